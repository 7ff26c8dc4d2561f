//! Actions that check themselves, through `porthole-mcp`: typed and filled text is read back
//! and a page that rewrites it is reported; a click that opens a tab says so.

use porthole_tests::daemon::TestDaemon;
use serde_json::json;

use super::harness::{eval_until, ok, ref_of, Client};

const CHANNEL: &str = "mcp-checks";

async fn proxy(daemon: &TestDaemon) -> Client {
    super::harness::owner_proxy(daemon, CHANNEL, &[]).await
}

#[tokio::test]
async fn typed_and_filled_text_is_read_back_and_a_new_tab_is_reported() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let mcp = proxy(&daemon).await;
    ok(
        &mcp,
        "navigate",
        json!({"url": format!("http://{pages}/rewrite"), "wait_for_selector": "#plain"}),
    )
    .await;
    let snap = ok(&mcp, "read_page", json!({})).await;
    let up = ref_of(&snap, "textbox \"Shout\"");
    let letters = ref_of(&snap, "textbox \"Letters\"");
    let plain = ref_of(&snap, "textbox \"Plain\"");

    // Typing into a field the page upper-cases: the result says what the field holds.
    let t = ok(
        &mcp,
        "computer",
        json!({"action": "type", "ref": up, "text": "quiet"}),
    )
    .await;
    assert!(t.contains("Read back") && t.contains("\"QUIET\""), "{t}");
    // Typing without a ref reads back the focused field.
    let t = ok(&mcp, "computer", json!({"action": "type", "text": "er"})).await;
    assert!(t.contains("\"QUIETER\""), "{t}");
    // A field that keeps what was typed: no read-back note.
    let t = ok(
        &mcp,
        "computer",
        json!({"action": "type", "ref": plain, "text": "as typed"}),
    )
    .await;
    assert!(!t.contains("Read back"), "{t}");
    eval_until(
        &mcp,
        "document.getElementById('plain').value",
        json!("as typed"),
    )
    .await;
    // form_input: the page drops digits; the result says so.
    let t = ok(
        &mcp,
        "form_input",
        json!({"ref": letters, "value": "a1b2c3"}),
    )
    .await;
    assert!(t.contains("Read back") && t.contains("\"abc\""), "{t}");
    let t = ok(&mcp, "form_input", json!({"ref": plain, "value": "kept"})).await;
    assert!(!t.contains("Read back"), "{t}");

    // A click that opens a tab says so (the agent stays where it was).
    let t = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "link \"Open second\"")}),
    )
    .await;
    assert!(
        t.contains("A new tab opened") && t.contains("/second"),
        "{t}"
    );
}
