//! `showOpenFilePicker` opened by the person reaches the pane as a `file_chooser` (DESIGN.md
//! §15 "Files from the person"): the page gets a handle that reads the file handed over, a
//! cancel rejects the picker with `AbortError`, and a cancelled plain file input hears
//! `cancel` as it would from a browser's dialog. Local mode, real Chromium, real daemon; the
//! page is `tests/pages/pane_file_picker/picker.html` on 127.0.0.1 (a secure context, where the picker
//! exists).

use base64::Engine as _;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

/// Clicks at (x, y) as the person and returns the `file_chooser` that opens.
async fn click_for_chooser(pane: &Pane, (x, y): (u32, u32)) -> Value {
    let mark = pane.mark();
    pane.input(
        "click",
        json!({"x": x, "y": y, "button": "left", "click_count": 1}),
    );
    pane.next_of("file_chooser", mark).await
}

const OPEN_BUTTON: (u32, u32) = (100, 40);
const PLAIN_INPUT: (u32, u32) = (100, 120);

#[tokio::test]
async fn show_open_file_picker_reaches_the_person_and_a_cancel_rejects_it() {
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start("pfpicker").await;
    let pages = PageServer::area("pane_file_picker").await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/picker")}));
    pane.title_is(mark, "Picker page").await;

    // The picker's chooser: its types become the accept list; the file handed over is what
    // the page's handle reads; writing it back is refused.
    let chooser = click_for_chooser(&pane, OPEN_BUTTON).await;
    assert_eq!(chooser["target_id"], tab.as_str());
    assert_eq!(chooser["multiple"], false);
    assert_eq!(chooser["accept"], "text/plain,.txt");
    let mark = pane.mark();
    let data = base64::engine::general_purpose::STANDARD.encode("hello picker");
    pane.send(json!({"type": "file_chooser_answer", "id": chooser["id"],
        "files": [{"name": "notes.txt", "type": "text/plain", "data": data}]}));
    pane.title_is(
        mark,
        "picked 1 file notes.txt hello picker true NotAllowedError",
    )
    .await;

    // Cancelled: the page's picker rejects as when a person dismisses the dialog.
    let chooser = click_for_chooser(&pane, OPEN_BUTTON).await;
    let mark = pane.mark();
    pane.send(json!({"type": "file_chooser_answer", "id": chooser["id"], "cancel": true}));
    pane.title_is(mark, "picker AbortError").await;

    // A plain input cancelled hears `cancel`, and the picker works again afterwards.
    let chooser = click_for_chooser(&pane, PLAIN_INPUT).await;
    let mark = pane.mark();
    pane.send(json!({"type": "file_chooser_answer", "id": chooser["id"], "cancel": true}));
    pane.title_is(mark, "plain cancelled").await;
    let chooser = click_for_chooser(&pane, OPEN_BUTTON).await;
    let mark = pane.mark();
    let data = base64::engine::general_purpose::STANDARD.encode("again");
    pane.send(json!({"type": "file_chooser_answer", "id": chooser["id"],
        "files": [{"name": "b.txt", "data": data}]}));
    pane.title_is(mark, "picked 1 file b.txt again true NotAllowedError")
        .await;
}
