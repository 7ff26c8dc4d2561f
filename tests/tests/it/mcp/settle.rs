//! Settling after an action (`porthole mcp-host-browser` on a test Chromium): an action that
//! only changes the page returns with the change in place for the next `read_page`, and one
//! whose navigation starts a task later is still reported as a navigation.

use porthole_tests::TempDir;
use serde_json::json;

use super::harness::{connect, ok, ref_of};
use super::host::{host_args, UserChrome};

#[tokio::test]
async fn actions_return_once_the_page_reflects_them() {
    let pages = super::pages::serve().await;
    let url = |p: &str| format!("http://{pages}{p}");
    let chrome = UserChrome::start(&url("/user")).await;
    chrome.user_tab().await;
    let home = TempDir::new("mcp-home");
    let (args, env) = host_args(&home, &[chrome.profile.path()], &[]);
    let mcp = connect("porthole", &args, &env).await;

    let t = ok(&mcp, "navigate", json!({"url": url("/settle")})).await;
    assert!(t.contains("Title: Settle page"), "{t}");
    let snap = ok(&mcp, "read_page", json!({"filter": "all"})).await;
    assert!(snap.contains("Not yet"), "{snap}");

    // A click that changes nothing reports nothing.
    let t = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Do nothing\"")}),
    )
    .await;
    assert!(!t.contains("changed"), "{t}");

    // Text rendered two frames after the click is there for the very next read_page.
    let t = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Render later\"")}),
    )
    .await;
    assert!(!t.contains("URL changed"), "{t}");
    let after = ok(&mcp, "read_page", json!({"filter": "all"})).await;
    assert!(after.contains("Rendered later"), "{after}");

    // A navigation a task after the click is followed to its load and reported.
    let t = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Go soon\"")}),
    )
    .await;
    assert!(t.contains("URL changed") && t.contains("/second"), "{t}");
    assert!(t.contains("Title changed: \"Second page\""), "{t}");
    let next = ok(&mcp, "read_page", json!({})).await;
    assert!(next.contains("Back to form"), "{next}");
}
