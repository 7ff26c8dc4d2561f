//! `<porthole-pane>` embedded the way a desktop app embeds it: a page of the test's own, on its
//! own origin (listed in `server.allowed_origins`), imports the module from the daemon and sets
//! the attributes; the pane starts its channel and shows frames, and its HTTP calls (health for
//! the mode pill, a token-carrying GET) pass the daemon's CORS.

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use serde_json::json;

use super::{PanelPage, PANE};

#[tokio::test]
async fn the_element_in_a_page_of_its_own_starts_its_channel_and_shows_frames() {
    // The embedding page's origin must be known before the daemon starts (allowed_origins).
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"server": {"allowed_origins": [origin]}}),
        ..DaemonOptions::default()
    })
    .await;
    let page = format!(
        r#"<!doctype html><html><head><title>Desktop app</title>
<script type="module" src="{base}/panel/js/porthole-pane.js"></script>
<style>body {{ margin: 0; }} porthole-pane {{ height: 560px; }}</style></head>
<body><h1 id="app">My desktop app</h1>
<porthole-pane id="p" api="{base}" token="{token}" channel="embedded"></porthole-pane>
</body></html>"#,
        base = daemon.base,
        token = daemon.token
    );
    let app = Router::new().route("/app", get(move || async move { Html(page) }));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });

    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let app = PanelPage::open(&browser, &format!("{origin}/app")).await;
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
