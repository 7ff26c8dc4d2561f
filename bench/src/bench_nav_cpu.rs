//! `make bench`, agents part: what one navigation costs a bare Chromium in CPU (a raw CDP
//! client with only the Page domain on, the bench's two pages in turn, each to its load
//! event). The agents' script navigates three times, so this bounds from below what four
//! agents at once can cost on this machine's cores, whatever the daemon does.

use std::time::Duration;

use porthole::bench_hooks::cdp::CdpConnection;
use porthole_tests::chromium::BareChromium;
use serde_json::json;

use crate::stream_stats::tree_cpu_seconds;

/// Measured navigations (after three to warm up).
const NAVIGATIONS: usize = 20;

/// CPU ms of the whole Chromium (every process) per navigation between `base`'s /form and
/// /page2.
pub async fn bare_navigation_cpu_ms(base: &str) -> f64 {
    let chromium = BareChromium::launch().await;
    let cdp = CdpConnection::connect(&chromium.ws_url, Duration::from_secs(10))
        .await
        .expect("CDP to the bare Chromium");
    let (_, session) = porthole_tests::raw_cdp::open(&cdp, "about:blank").await;
    cdp.call_on(&session, "Page.enable", json!({}))
        .await
        .expect("Page.enable");
    for i in 0..3 {
        navigate(&cdp, &session, &format!("{base}/{}", page(i))).await;
    }
    let before = tree_cpu_seconds(chromium.child.id());
    for i in 0..NAVIGATIONS {
        navigate(&cdp, &session, &format!("{base}/{}", page(i))).await;
    }
    (tree_cpu_seconds(chromium.child.id()) - before) * 1000.0 / NAVIGATIONS as f64
}

fn page(i: usize) -> &'static str {
    if i.is_multiple_of(2) {
        "page2"
    } else {
        "form"
    }
}

/// Navigates the tab of `session` to `url` and waits for its load event (at most 10 s).
async fn navigate(cdp: &CdpConnection, session: &str, url: &str) {
    let mut events = cdp.subscribe();
    cdp.call_on(session, "Page.navigate", json!({"url": url}))
        .await
        .expect("navigate");
    let loaded = async {
        while let Ok(event) = events.recv().await {
            if event.method == "Page.loadEventFired" {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(10), loaded).await;
}
