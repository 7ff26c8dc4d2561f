//! A hostile page cannot fool the tools (DESIGN.md §13): it replaces DOM prototypes, `JSON`,
//! `document.querySelectorAll`, `getBoundingClientRect` and `elementFromPoint`, and plants a
//! fake helper under the name the tools' helper used to live at in the page's own world. The
//! tools run in an isolated world, so `read_page` shows the true text and a ref click lands on
//! the true element (read back through `evaluate`, which runs in the page's world).

use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::json;

use super::harness::{connect, err, eval, eval_until, ok, ref_of};

const CHANNEL: &str = "mcp-hostile";

#[tokio::test]
async fn a_hostile_page_cannot_forge_read_page_or_redirect_a_ref_click() {
    let pages = PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    let args: Vec<String> = ["--api", &daemon.base, "--channel", CHANNEL, "--token"]
        .iter()
        .map(|s| s.to_string())
        .chain([daemon.token.clone()])
        .collect();
    let mcp = connect("porthole-mcp", &args, &[]).await;

    let t = ok(
        &mcp,
        "navigate",
        json!({"url": format!("http://{pages}/hostile")}),
    )
    .await;
    // The page's world really is hostile (so what follows can fail).
    assert_eq!(
        eval(&mcp, "document.getElementById('truth').innerText").await,
        json!("FORGED")
    );
    assert!(!t.contains("FORGED"), "{t}");

    let snap = ok(&mcp, "read_page", json!({"filter": "all"})).await;
    assert!(!snap.contains("FORGED"), "{snap}");
    assert!(snap.contains("Page: Hostile page"), "{snap}");
    assert!(snap.contains("The true text of this page"), "{snap}");
    assert!(snap.contains("button \"Real button\""), "{snap}");
    let text = ok(&mcp, "get_page_text", json!({})).await;
    assert!(text.contains("The true text of this page"), "{text}");
    assert!(!text.contains("FORGED"), "{text}");
    let found = ok(&mcp, "find", json!({"query": "real button"})).await;
    assert!(found.contains("button \"Real button\""), "{found}");

    // The click lands on the real button, not where the page's rects point.
    let real = ref_of(&snap, "button \"Real button\"");
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": real}),
    )
    .await;
    eval_until(&mcp, "clickLog.join(',')", json!("real")).await;

    // form_input sets the true field.
    ok(
        &mcp,
        "form_input",
        json!({"ref": ref_of(&snap, "textbox \"Field\""), "value": "typed"}),
    )
    .await;
    assert_eq!(
        eval(&mcp, "document.getElementById('field').value").await,
        json!("typed")
    );

    // A wait for text the page does not have is not answered by the page's fake helper.
    let t = err(
        &mcp,
        "navigate",
        json!({"url": format!("http://{pages}/hostile"), "wait_for_text": "only in the forgery",
               "wait_timeout_ms": 1000}),
    )
    .await;
    assert!(t.contains("only in the forgery"), "{t}");
    // Refs survive the reload as errors, never as clicks on something else.
    let t = err(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": real}),
    )
    .await;
    assert!(t.contains("read_page"), "{t}");
    assert_eq!(eval(&mcp, "clickLog.join(',')").await, json!(""));
}
