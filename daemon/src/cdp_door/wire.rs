//! The door's messages to a client, in Chrome's own shapes: a reply, an error, an event, each
//! with the flat session it belongs to. Nothing here knows tabs or rules.

use std::time::Duration;

use serde_json::{json, Value};

/// How long a command sent on to Chrome may take (a page's own script may wait a long time;
/// the client keeps its own timeouts).
pub(super) const FORWARD_DEADLINE: Duration = Duration::from_secs(180);

/// A failed command: Chrome's code and the message the client reads.
pub(super) type Failure = (i64, String);

/// Chrome's error as the client reads it.
pub(super) fn failure(error: crate::cdp::CdpError) -> Failure {
    match error {
        crate::cdp::CdpError::Protocol { code, message, .. } => (code, message),
        other => (SERVER_ERROR, other.to_string()),
    }
}

/// Chrome's code for a server error (a refusal, a failure).
pub(super) const SERVER_ERROR: i64 = -32000;
/// Chrome's code for bad params, as in "No target with given id found".
pub(super) const INVALID_PARAMS: i64 = -32602;
/// Chrome's code for a message that is not JSON-RPC.
pub(super) const PARSE_ERROR: i64 = -32700;

/// Chrome's own words for a target id that is not the client's (as if it did not exist).
pub(super) const NO_TARGET: &str = "No target with given id found";
/// Chrome's own words for a session id that is not the client's.
pub(super) const NO_SESSION: &str = "Session with given id not found.";

/// The reply to command `id`.
pub(super) fn reply(id: &Value, result: Value, session: Option<&str>) -> String {
    let mut message = json!({ "id": id, "result": result });
    if let Some(session) = session {
        message["sessionId"] = json!(session);
    }
    message.to_string()
}

/// The error answer to command `id`.
pub(super) fn error(id: &Value, code: i64, text: &str, session: Option<&str>) -> String {
    let mut message = json!({ "id": id, "error": { "code": code, "message": text } });
    if let Some(session) = session {
        message["sessionId"] = json!(session);
    }
    message.to_string()
}

/// An event.
pub(super) fn event(method: &str, params: &Value, session: Option<&str>) -> String {
    let mut message = json!({ "method": method, "params": params });
    if let Some(session) = session {
        message["sessionId"] = json!(session);
    }
    message.to_string()
}

/// The refusal of `method` by rule `why`.
pub(super) fn refused(method: &str, why: &str) -> String {
    let method: String = method.chars().take(80).collect();
    format!("Porthole refused {method}: {why}.")
}

/// `message` (a browser-level event) addressed to the client's browser-level session
/// `session`, when it came through one.
pub(super) fn addressed(message: String, session: Option<&str>) -> String {
    let Some(session) = session else {
        return message;
    };
    match serde_json::from_str::<Value>(&message) {
        Ok(mut value) => {
            value["sessionId"] = json!(session);
            value.to_string()
        }
        Err(_) => message,
    }
}
