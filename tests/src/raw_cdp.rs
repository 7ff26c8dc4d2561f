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

/// `method` on flat session `session`; panics with the method's name when Chrome refuses.
pub async fn call(cdp: &CdpConnection, session: &str, method: &str, params: Value) -> Value {
    cdp.call_on(session, method, params)
        .await
        .unwrap_or_else(|e| panic!("{method}: {e}"))
}
