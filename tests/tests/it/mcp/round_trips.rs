//! Round trips a tool call waits on (issue 22): the tools' world, helper installed, is made by
//! Chrome in every new document of a tab the tools have used, so after a navigation no tool
//! makes one (`Page.createIsolatedWorld` and the helper's install are two round trips to a
//! browser far away). The world Chrome made reads the page and clicks by ref like one the
//! tools made, in the main frame and not in a frame inside it. Run on
//! `porthole mcp-host-browser` and a test Chromium; the server's debug log tells each world
//! it made (`tools_world_created`).

use serde_json::json;

use super::harness::{ok, ref_of};
use super::host::LoggedHost;

#[tokio::test]
async fn after_a_navigation_the_tools_find_their_world_made_by_chrome() {
    let host = LoggedHost::start().await;
    let (mcp, url) = (&host.mcp, |p: &str| host.url(p));
    let worlds_made = || host.log().matches("event=\"tools_world_created\"").count();

    let t = ok(mcp, "navigate", json!({"url": url("/second")})).await;
    assert!(t.contains("Title: Second page"), "{t}");
    assert_eq!(worlds_made(), 1, "the first call makes the world");

    // The form page has a same-origin frame: Chrome makes the world there too, and the tools
    // still read and act in the main frame's.
    let t = ok(mcp, "navigate", json!({"url": url("/form")})).await;
    assert!(t.contains("Title: Form page"), "{t}");
    let snap = ok(mcp, "read_page", json!({"filter": "interactive"})).await;
    let t = ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Change\"")}),
    )
    .await;
    assert!(t.contains("left_click"), "{t}");
    let status = ok(
        mcp,
        "evaluate",
        json!({"expression": "document.getElementById('status').textContent"}),
    )
    .await;
    assert!(status.contains("Changed!"), "{status}");

    let t = ok(mcp, "navigate", json!({"url": url("/second")})).await;
    assert!(t.contains("Title: Second page"), "{t}");
    let text = ok(mcp, "get_page_text", json!({})).await;
    assert!(text.contains("Second"), "{text}");
    assert_eq!(
        worlds_made(),
        1,
        "no tool made a world after a navigation:\n{}",
        host.log()
    );
}
