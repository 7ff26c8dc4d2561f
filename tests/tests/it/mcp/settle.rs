//! Settling after an action (`porthole mcp-host-browser` on a test Chromium): an action that
//! only changes the page returns with the change in place for the next `read_page`, and one
//! whose navigation starts a task later is still reported as a navigation. A click after which
//! the page scheduled nothing (no animation frame, timer or idle callback) settles on one quiet
//! frame; one that scheduled work (text rendered two frames later) waits for it (the server's
//! debug log says which, as `page_scheduled`).

use serde_json::json;

use super::harness::{ok, ref_of};
use super::host::LoggedHost;

#[tokio::test]
async fn actions_return_once_the_page_reflects_them() {
    let host = LoggedHost::start().await;
    let (mcp, url) = (&host.mcp, |p: &str| host.url(p));
    // The page-scheduled flag of each DOM-quiet wait the server logged, in order.
    let quiet_waits = || -> Vec<bool> {
        host.log()
            .lines()
            .filter(|l| l.contains("event=\"dom_quiet\""))
            .map(|l| l.contains("page_scheduled=true"))
            .collect()
    };

    let t = ok(mcp, "navigate", json!({"url": url("/settle")})).await;
    assert!(t.contains("Title: Settle page"), "{t}");
    let snap = ok(mcp, "read_page", json!({"filter": "all"})).await;
    assert!(snap.contains("Not yet"), "{snap}");

    // A click that changes nothing reports nothing, and settles without waiting for work the
    // page did not schedule.
    let waits = quiet_waits().len();
    let t = ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Do nothing\"")}),
    )
    .await;
    assert!(!t.contains("changed"), "{t}");
    assert_eq!(quiet_waits()[waits..], [false], "{:?}", quiet_waits());

    // Text rendered two frames after the click is there for the very next read_page.
    let t = ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Render later\"")}),
    )
    .await;
    assert!(!t.contains("URL changed"), "{t}");
    assert_eq!(quiet_waits().last(), Some(&true), "{:?}", quiet_waits());
    let after = ok(mcp, "read_page", json!({"filter": "all"})).await;
    assert!(after.contains("Rendered later"), "{after}");

    // A navigation a task after the click is followed to its load and reported.
    let t = ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Go soon\"")}),
    )
    .await;
    assert!(t.contains("URL changed") && t.contains("/second"), "{t}");
    assert!(t.contains("Title changed: \"Second page\""), "{t}");
    let next = ok(mcp, "read_page", json!({})).await;
    assert!(next.contains("Back to form"), "{next}");
}
