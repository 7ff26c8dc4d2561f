//! `<porthole-pane>` embedded the way a desktop app embeds it: a page of the test's own, on its
//! own origin (listed in `server.allowed_origins`), imports the module from the daemon and sets
//! the attributes; the pane starts its channel and shows frames, and its HTTP calls (health for
//! the mode pill, a token-carrying GET) pass the daemon's CORS.

use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use serde_json::json;

use super::{PanelPage, PANE};

#[tokio::test]
async fn the_element_in_a_page_of_its_own_starts_its_channel_and_shows_frames() {
    // The embedding page's origin must be known before the daemon starts (allowed_origins);
    // the page (`tests/pages/web_panel/embed-app.html`) learns the daemon's address after.
    let pages = PageServer::area("web_panel").await;
    let origin = pages.base();
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"server": {"allowed_origins": [origin]}}),
        ..DaemonOptions::default()
    })
    .await;
    pages.set("API", &daemon.base);
    pages.set("TOKEN", &daemon.token);

    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let app = PanelPage::open(&browser, &format!("{origin}/embed-app")).await;
    app.until(
        "the element to be defined from the daemon's module",
        "customElements.get('porthole-pane') !== undefined",
    )
    .await;
    app.until(
        "the pane to start its channel",
        "document.getElementById('p').state.started",
    )
    .await;
    app.until(
        "frames drawn by the embedded pane",
        "document.getElementById('p').state.framesShown > 0",
    )
    .await;
    assert_eq!(
        app.eval("document.getElementById('p').state.channel").await,
        json!("embedded")
    );
    // The tab strip and URL bar are there, in the element's own shadow root.
    app.until(
        "a tab in the embedded tab strip",
        &format!("{PANE}.querySelectorAll('.tab').length"),
    )
    .await;
    // The mode pill asked /api/health across origins (CORS): it knows where to switch to.
    app.until(
        "the mode pill to be usable",
        &format!("(() => {{ const b = {PANE}.getElementById('mode-pill'); return !b.hidden && !b.disabled; }})()"),
    )
    .await;
    // A token-carrying call from the embedding origin passes the preflight.
    let status = app
        .until(
            "a GET with the token from the embedding page",
            &format!(
                "fetch('{}/api/browser/channels', {{headers: {{Authorization: 'Bearer {}'}}}}).then(r => r.status, e => String(e))",
                daemon.base, daemon.token
            ),
        )
        .await;
    assert_eq!(status, json!(200));
    assert!(
        app.eval("document.getElementById('p').state.lastError")
            .await
            .is_null(),
        "the embedded pane showed an error"
    );
}
