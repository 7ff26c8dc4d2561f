//! The person's downloads in `<porthole-pane>`: a print of the watched tab shows in the pane's
//! download list, and its Save link fetches the bytes with the token and saves them in the
//! person's own browser (a blob URL and an `<a download>`).

use std::time::Duration;

use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use serde_json::json;

use super::{PanelPage, PANE};

#[tokio::test]
async fn a_print_is_offered_in_the_pane_and_saved_in_the_persons_browser() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let user_browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&user_browser, &daemon, "dl-panel").await;
    // Where the person's own browser saves what the pane hands it.
    let saves = panel.saves_downloads("person-saves").await;

    panel.show(&pages.url("/second"), "Second page").await;
    panel
        .eval("document.querySelector('porthole-pane').printPage()")
        .await;
    // Once the print is offered to save, the list holds it once: one row in all.
    let rows = panel
        .until(
            "the print offered to save",
            &format!(
                "(() => {{ const r = {PANE}.querySelector('.download[data-state=completed]'); \
                 if (!(r && r.textContent.includes('Second page.pdf') && r.querySelector('.download-save'))) return null; \
                 return [...{PANE}.querySelectorAll('.download')].map((d) => d.textContent); }})()"
            ),
        )
        .await;
    assert_eq!(
        rows.as_array().map(Vec::len),
        Some(1),
        "one print, one row: {rows}"
    );
    // Click Save with the mouse, as the person would.
    let save = panel
        .center_of("the Save link's place", ".download-save")
        .await;
    panel.click_at(save).await;

    let saved = porthole_tests::eventually(
        "the PDF saved by the person's browser",
        Duration::from_secs(30),
        || {
            let dir = saves.path().to_path_buf();
            async move {
                std::fs::read_dir(&dir)
                    .ok()?
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_none())
                    .find_map(|p| std::fs::read(p).ok().filter(|b| b.starts_with(b"%PDF")))
            }
        },
    )
    .await;
    let (status, _, body) = porthole_tests::pages::http_get_bytes(
        &daemon.addr,
        "/api/browser/channels/dl-panel/downloads/d1",
        &[("Authorization", &format!("Bearer {}", daemon.token))],
    )
    .await;
    assert_eq!(status, 200);
    assert!(saved == body, "the saved file differs from the daemon's");
    assert!(
        panel
            .eval(&format!(
                "{PANE}.querySelector('.download-save').textContent"
            ))
            .await
            == json!("Save again")
    );
}
