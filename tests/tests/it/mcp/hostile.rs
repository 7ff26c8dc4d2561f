//! A hostile page cannot fool the tools (DESIGN.md §13): it replaces DOM prototypes, `JSON`,
//! `document.querySelectorAll`, `getBoundingClientRect` and `elementFromPoint`, and plants a
//! fake helper under the name the tools' helper used to live at in the page's own world. The
//! tools run in an isolated world, so `read_page` shows the true text and a ref click lands on
//! the true element (read back through `evaluate`, which runs in the page's world).

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pane::Pane;
use serde_json::json;

use super::harness::{connect, err, eval, eval_until, ok, ref_of};

const CHANNEL: &str = "mcp-hostile";

/// The real button is at the top left; the decoy far away. Clicks are logged in
/// `window.clickLog` (read back by `evaluate`).
const HOSTILE_PAGE: &str = r#"<!doctype html>
<html><head><title>Hostile page</title><style>
 body { margin: 0; font: 16px sans-serif; }
 #real { position: absolute; left: 20px; top: 20px; width: 160px; height: 40px; }
 #decoy { position: absolute; left: 420px; top: 300px; width: 160px; height: 40px; }
 #truth { position: absolute; left: 20px; top: 100px; }
 #field { position: absolute; left: 20px; top: 160px; }
</style></head><body>
<button id="real" onclick="clickLog.push('real')">Real button</button>
<button id="decoy" onclick="clickLog.push('decoy')">Decoy button</button>
<p id="truth">The true text of this page</p>
<input id="field" aria-label="Field">
<script>
 window.clickLog = [];
 const decoy = document.getElementById('decoy');
 const forged = {
   snapshot: () => ({ lines: ['- button "FORGED" [ref=e1]'], frames: [], next: 2, title: 'FORGED', url: 'forged:' }),
   find: () => ({ lines: ['- button "FORGED" [ref=e1]'], next: 2 }),
   text: () => 'FORGED TEXT',
   point: () => ({ x: 500, y: 320, what: 'forged' }),
   frameOrigin: () => ({ x: 0, y: 0 }),
   fill: () => ({ ok: 'FORGED fill' }),
   hasText: () => true,
   hasSelector: () => true,
   quiet: () => Promise.resolve(true),
   refOf: () => 'e1',
   nonce: 'guess',
 };
 // Where the helper used to live, and names it might be looked up by.
 Object.defineProperty(globalThis, Symbol.for('porthole.tools'), { value: forged });
 window.porthole = forged; window.__porthole = forged; window.P = forged;
 // DOM prototypes and globals the helper reads.
 const realRect = Element.prototype.getBoundingClientRect;
 Element.prototype.getBoundingClientRect = function () {
   return realRect.call(decoy);
 };
 Element.prototype.scrollIntoView = function () {};
 Document.prototype.elementFromPoint = function () { return decoy; };
 document.elementFromPoint = function () { return decoy; };
 Element.prototype.getAttribute = function (n) { return n === 'aria-label' ? 'FORGED LABEL' : null; };
 Object.defineProperty(HTMLElement.prototype, 'innerText', { get() { return 'FORGED'; } });
 const textContent = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent');
 Object.defineProperty(Node.prototype, 'textContent', {
   get() { return 'FORGED'; }, set(v) { textContent.set.call(this, v); }, configurable: true,
 });
 Document.prototype.querySelectorAll = function () { return []; };
 document.querySelectorAll = function () { return []; };
 Element.prototype.checkVisibility = function () { return true; };
 JSON.stringify = function () { return '"FORGED"'; };
 JSON.parse = function () { return { forged: true }; };
 Object.defineProperty(document, 'title', { get() { return 'FORGED TITLE'; } });
</script></body></html>"#;

async fn serve() -> std::net::SocketAddr {
    let app = Router::new().route("/hostile", get(|| async { Html(HOSTILE_PAGE) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

#[tokio::test]
async fn a_hostile_page_cannot_forge_read_page_or_redirect_a_ref_click() {
    let pages = serve().await;
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
