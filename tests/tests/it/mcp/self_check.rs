//! Actions that check themselves (issue 12), in both MCP binaries: a click that opens a tab
//! moves the caller there; `read_page` marks what is off-screen and what is new since the
//! caller's last read; `find`, `get_page_text` and `wait_for_*` reach into a cross-origin
//! (out-of-process) frame; a click that fetches and then renders returns after the render.

use serde_json::json;

use super::both::Both;
use super::harness::{err, eval_until, ok, ref_of};

/// The snapshot line holding `needle`.
fn line<'a>(snap: &'a str, needle: &str) -> &'a str {
    snap.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{snap}"))
}

#[tokio::test]
async fn a_click_that_opens_a_tab_moves_the_caller_there() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let both = Both::start(pages.addr, "mcp-follow").await;
    for (name, mcp) in &both.clients {
        let rewrite = format!("http://{pages}/rewrite");
        ok(mcp, "navigate", json!({"url": rewrite})).await;
        let snap = ok(mcp, "read_page", json!({})).await;
        let t = ok(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": ref_of(&snap, "link \"Open second\"")}),
        )
        .await;
        assert!(
            t.contains("you now act in it") && t.contains("/second"),
            "{name}: {t}"
        );
        // The next call acts in the new tab, which has loaded.
        let now = ok(mcp, "read_page", json!({})).await;
        assert!(now.starts_with("Page: Second page"), "{name}: {now}");
        assert!(now.contains("Back to form"), "{name}: {now}");
        // The note's way back works.
        let back: usize = t
            .split("switch_tab ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no way back in {t}"));
        ok(mcp, "switch_tab", json!({"tab": back})).await;
        let there = ok(mcp, "page_info", json!({})).await;
        assert!(there.contains("/rewrite"), "{name}: {there}");
    }
}

#[tokio::test]
async fn read_page_marks_off_screen_and_new_elements() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let both = Both::start(pages.addr, "mcp-marks").await;
    for (name, mcp) in &both.clients {
        ok(
            mcp,
            "navigate",
            json!({"url": format!("http://{pages}/marks")}),
        )
        .await;
        let first = ok(mcp, "read_page", json!({})).await;
        assert!(line(&first, "Far link").ends_with(" ↓"), "{name}: {first}");
        assert!(!line(&first, "Add one").contains('↓'), "{name}: {first}");
        assert!(first.contains("↓↑←→ off-screen"), "{name}: {first}");
        // A first read of a page marks nothing as new.
        assert!(!first.contains(" new"), "{name}: {first}");

        ok(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": ref_of(&first, "button \"Add one\"")}),
        )
        .await;
        let second = ok(mcp, "read_page", json!({})).await;
        assert!(
            line(&second, "Fresh button").ends_with(" new"),
            "{name}: {second}"
        );
        assert!(
            !line(&second, "Add one").contains(" new"),
            "{name}: {second}"
        );
        assert!(
            second.contains("new: since your last read"),
            "{name}: {second}"
        );
        // Seen now: the next read marks nothing new.
        let third = ok(mcp, "read_page", json!({})).await;
        assert!(!third.contains(" new"), "{name}: {third}");
        // Clicking the far link by ref scrolls it into view: no longer marked off-screen.
        ok(
            mcp,
            "computer",
            json!({"action": "hover", "ref": ref_of(&third, "link \"Far link\"")}),
        )
        .await;
        let scrolled = ok(mcp, "read_page", json!({})).await;
        assert!(
            !line(&scrolled, "Far link").contains('↓'),
            "{name}: {scrolled}"
        );
        assert!(
            line(&scrolled, "Add one").ends_with(" ↑"),
            "{name}: {scrolled}"
        );
    }
}

#[tokio::test]
async fn find_text_and_waits_reach_into_cross_origin_frames() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let port = pages.port();
    let both = Both::start(pages.addr, "mcp-xframes").await;
    for (name, mcp) in &both.clients {
        ok(
            mcp,
            "navigate",
            json!({"url": format!("http://127.0.0.1:{port}/xsite")}),
        )
        .await;
        eval_until(mcp, "window.frameLoads.join(',')", json!("1")).await;
        // find: the frame's button, with a ref a click can use.
        let found = ok(mcp, "find", json!({"query": "Cross button"})).await;
        let button = ref_of(&found, "button \"Cross button\"");
        ok(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": button}),
        )
        .await;
        // get_page_text: the frame's text, after the page's own.
        let text = ok(mcp, "get_page_text", json!({})).await;
        assert!(
            text.contains("Top button") && text.contains("Clicked inside"),
            "{name}: {text}"
        );
        // wait_for_text / wait_for_selector: text and a field only the frame has.
        ok(
            mcp,
            "evaluate",
            json!({"expression": "document.getElementById('x').src = 'http://localhost:' + location.port + '/xframe?v=7'; 1"}),
        )
        .await;
        let waited = ok(
            mcp,
            "computer",
            json!({"action": "wait", "wait_for_text": "Cross button v7", "wait_for_selector": "#xname"}),
        )
        .await;
        assert!(waited.contains("Waited"), "{name}: {waited}");
        let e = err(
            mcp,
            "computer",
            json!({"action": "wait", "wait_for_text": "Not in any frame", "wait_timeout_ms": 600}),
        )
        .await;
        assert!(e.contains("Timed out"), "{name}: {e}");
    }
}

#[tokio::test]
async fn a_click_that_fetches_then_renders_returns_after_the_render() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let both = Both::start(pages.addr, "mcp-fetch").await;
    for (name, mcp) in &both.clients {
        ok(
            mcp,
            "navigate",
            json!({"url": format!("http://{pages}/fetch")}),
        )
        .await;
        let snap = ok(mcp, "read_page", json!({})).await;
        let t = ok(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": ref_of(&snap, "button \"Load\"")}),
        )
        .await;
        assert!(!t.contains("still running"), "{name}: {t}");
        // No wait in between: the click returned after the answer was rendered.
        let text = ok(mcp, "get_page_text", json!({})).await;
        assert!(text.contains("Loaded 42"), "{name}: {text}");
    }
}

/// `tools.settle_network_ms` bounds the wait for an action's requests: at 200 ms the click on
/// a button whose request takes 800 ms answers first, says the request was still running and
/// names the setting; the page renders the answer later.
#[tokio::test]
async fn the_network_wait_is_the_setting() {
    use porthole_tests::daemon::{DaemonOptions, TestDaemon};
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"tools": {"settle_network_ms": 200}}),
        ..Default::default()
    })
    .await;
    let mcp = super::harness::owner_proxy(&daemon, "mcp-settle-setting", &[]).await;
    ok(
        &mcp,
        "navigate",
        json!({"url": format!("http://{pages}/fetch")}),
    )
    .await;
    let snap = ok(&mcp, "read_page", json!({})).await;
    let t = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Load\"")}),
    )
    .await;
    assert!(
        t.contains("1 request(s) this action started were still running after 200 ms (tools.settle_network_ms)"),
        "{t}"
    );
    let text = ok(&mcp, "get_page_text", json!({})).await;
    assert!(text.contains("Nothing yet"), "{text}");
    eval_until(
        &mcp,
        "document.getElementById('out').textContent",
        json!("Loaded 42"),
    )
    .await;
}
