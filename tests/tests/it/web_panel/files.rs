//! `<porthole-pane>` hands the page a file: a click on the page's file input (through the
//! canvas) shows the pane's file-chooser card; the person picks a file there (here set on the
//! card's own `<input type=file>` as the OS chooser would) and presses Send; the page reads
//! the file's name and bytes.

use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use serde_json::json;

use super::{PanelPage, PANE};

#[tokio::test]
async fn the_pane_answers_a_file_chooser_with_the_persons_file() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, "panelfiles").await;
    panel.show(&pages.url("/upload"), "Upload page").await;
    // The card is hidden until a chooser opens.
    assert_eq!(
        panel
            .eval(&format!("{PANE}.getElementById('file-chooser').hidden"))
            .await,
        json!(true)
    );

    // Click the page's single-file input (page point 100, 40) through the canvas.
    panel.click_at(panel.on_screen((100.0, 40.0)).await).await;
    panel
        .until(
            "the file-chooser card",
            &format!("!{PANE}.getElementById('file-chooser').hidden && window.porthole.fileChoosers.length === 1"),
        )
        .await;

    // The person picks a file in the card's own input.
    let dir = porthole_tests::TempDir::new("pane-pick");
    let file = dir.path().join("scan.txt");
    std::fs::write(&file, "id scan bytes").unwrap();
    panel.send_file_through_card(&file).await;

    let tab = panel.eval("window.porthole.activeTargetId").await;
    let probe = Probe::connect(&daemon.profile_dir("panelfiles")).await;
    probe
        .eval_until(
            tab.as_str().unwrap(),
            "document.title",
            json!("got scan.txt:id scan bytes"),
        )
        .await;
    panel
        .until(
            "the card closed",
            &format!("{PANE}.getElementById('file-chooser').hidden && window.porthole.fileChoosers.length === 0"),
        )
        .await;
    assert!(
        panel.eval("window.porthole.lastError").await.is_null(),
        "the panel showed an error"
    );
}
