//! Cross-origin frames inside cross-origin frames (issue 12), in both MCP binaries: a page on
//! `127.0.0.1` embeds a frame from `localhost`, which embeds one from `127.0.0.1` again, each a
//! frame of its own process. `read_page` reads all three documents, nested in place, with refs;
//! a click by the innermost frame's ref lands there (placed through both frames' offsets);
//! `find`, `get_page_text` and `wait_for_text` reach the innermost document; screenshot badges
//! name its button, and a cover over the top page hides them.

use serde_json::json;

use super::both::Both;
use super::harness::{call, eval_until, is_error, ok, ref_of, text};

#[tokio::test]
async fn every_tool_reaches_a_cross_origin_frame_inside_another() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let port = pages.port();
    let both = Both::start(pages.addr, "mcp-nested-frames").await;
    for (name, mcp) in &both.clients {
        ok(
            mcp,
            "navigate",
            json!({"url": format!("http://127.0.0.1:{port}/xnest")}),
        )
        .await;
        ok(mcp, "resize_window", json!({"width": 800, "height": 600})).await;
        eval_until(mcp, "window.innerLoads", json!(1)).await;

        // read_page: the three documents, each frame's content under its <iframe>.
        let snap = ok(mcp, "read_page", json!({})).await;
        let position = |what: &str| {
            snap.find(what)
                .unwrap_or_else(|| panic!("{name}: no {what} in\n{snap}"))
        };
        assert!(
            position("Top button") < position("Outer button")
                && position("Outer button") < position("Inner button"),
            "{name}: {snap}"
        );
        assert!(!snap.contains("not read"), "{name}: {snap}");
        let inner = ref_of(&snap, "button \"Inner button\"");
        // The inner frame's lines sit deeper than the outer frame's.
        let indent = |what: &str| {
            let line = snap.lines().find(|l| l.contains(what)).unwrap();
            line.len() - line.trim_start().len()
        };
        assert!(
            indent("Inner button") > indent("Outer button"),
            "{name}: {snap}"
        );

        // A click by the inner ref lands inside the inner frame.
        ok(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": inner}),
        )
        .await;
        let found = ok(mcp, "find", json!({"query": "Inner clicked"})).await;
        assert!(
            found.contains("button \"Inner clicked\""),
            "{name}: {found}"
        );
        let page_text = ok(mcp, "get_page_text", json!({})).await;
        assert!(
            page_text.contains("Outer button") && page_text.contains("Inner clicked"),
            "{name}: {page_text}"
        );
        // Typing by ref into the inner field, then waiting for text only it shows.
        let snap = ok(mcp, "read_page", json!({})).await;
        let field = ref_of(&snap, "textbox \"Inner name\"");
        ok(
            mcp,
            "computer",
            json!({"action": "type", "ref": field, "text": "deep"}),
        )
        .await;
        let waited = ok(
            mcp,
            "computer",
            json!({"action": "wait", "wait_for_text": "Inner clicked", "wait_timeout_ms": 2000}),
        )
        .await;
        assert!(waited.contains("Waited"), "{name}: {waited}");
        // The typed text is in the inner field, read back from the frame's own document.
        let after = ok(mcp, "read_page", json!({})).await;
        assert!(
            after
                .lines()
                .any(|l| l.contains("textbox \"Inner name\"") && l.ends_with("value=\"deep\"")),
            "{name}: the inner field holds the typed text: {after}"
        );

        // Badges name the inner frame's button, and its badge ref clicks there too.
        let shot = call(mcp, "screenshot", json!({"badges": true})).await;
        let listing = text(&shot);
        assert!(!is_error(&shot), "{name}: {listing}");
        assert!(
            listing.contains("button \"Inner clicked\"")
                && listing.contains("textbox \"Inner name\""),
            "{name}: {listing}"
        );
        // A cover the top page draws over the outer frame hides the inner frame's badges too.
        ok(
            mcp,
            "evaluate",
            json!({"expression": "const d = document.createElement('div'); d.style.cssText = 'position:fixed;inset:0;background:#fff'; document.body.append(d); 1"}),
        )
        .await;
        let shot = call(mcp, "screenshot", json!({"badges": true})).await;
        let covered = text(&shot);
        assert!(!is_error(&shot), "{name}: {covered}");
        assert!(
            !covered.contains("Inner") && !covered.contains("Outer"),
            "{name}: {covered}"
        );
    }
}
