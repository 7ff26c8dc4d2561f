//! Raw CDP on a page, without the daemon: attach to a target on a flat session, call a method
//! on it, evaluate script in it. The one place tests and benches write these.

use porthole::cdp::CdpConnection;
use serde_json::{json, Value};

/// Attaches to `target` on a flat session; returns the session id.
pub async fn attach(cdp: &CdpConnection, target: &str) -> String {
    let attached = cdp
        .call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        )
        .await
        .expect("attach to the target");
    attached["sessionId"]
        .as_str()
        .expect("a session id")
        .to_string()
}

/// The target id of the only tab the browser (or CDP door) behind `cdp` lists; panics when it
/// lists none.
pub async fn only_tab(cdp: &CdpConnection) -> String {
    let targets = cdp
        .call("Target.getTargets", json!({}))
        .await
        .expect("the targets");
    targets["targetInfos"][0]["targetId"]
        .as_str()
        .unwrap_or_else(|| panic!("no tab: {targets}"))
        .to_string()
}

/// `method` on flat session `session`; panics with the method's name when Chrome refuses.
pub async fn call(cdp: &CdpConnection, session: &str, method: &str, params: Value) -> Value {
    cdp.call_on(session, method, params)
        .await
        .unwrap_or_else(|e| panic!("{method}: {e}"))
}

/// Opens `url` in a new tab of the browser behind `cdp` and attaches to it on a flat session;
/// returns the tab's target id and the session id.
pub async fn open(cdp: &CdpConnection, url: &str) -> (String, String) {
    let created = cdp
        .call("Target.createTarget", json!({"url": url}))
        .await
        .expect("open a tab");
    let target = created["targetId"]
        .as_str()
        .expect("a target id")
        .to_string();
    let session = attach(cdp, &target).await;
    (target, session)
}

/// The params of a `Runtime.evaluate` of `expression` whose value comes back by value, a
/// promise awaited first.
pub fn by_value(expression: &str) -> Value {
    json!({"expression": expression, "returnByValue": true, "awaitPromise": true})
}

/// `Runtime.evaluate` with `params` (see [`by_value`]) on flat session `session`; the value it
/// gave (`result.value`). Panics when Chrome refuses.
pub async fn evaluate(cdp: &CdpConnection, session: &str, params: Value) -> Value {
    call(cdp, session, "Runtime.evaluate", params).await["result"]["value"].clone()
}

/// `Runtime.evaluate` with `params` in page `target`, on a session attached for it and
/// detached after; the value it gave.
pub async fn evaluate_in(cdp: &CdpConnection, target: &str, params: Value) -> Value {
    let session = attach(cdp, target).await;
    let value = evaluate(cdp, &session, params).await;
    let _ = cdp
        .call("Target.detachFromTarget", json!({"sessionId": session}))
        .await;
    value
}
