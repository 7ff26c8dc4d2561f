//! The door's HTTP addresses, as Chrome's own debugging port answers them: `json/version`
//! (whose `webSocketDebuggerUrl` points back at the door), `json/list` (the agent's tabs
//! only), `PUT json/new?<url>`, `json/close/<id>`, `json/activate/<id>` (success, nothing
//! done: the person's focus stays hers) and `json/protocol` (what a client may send:
//! `protocol.rs`).

use std::sync::Arc;

use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::address::{refusal, Visitor};
use super::door::Door;
use super::targets;

/// Answers `json/<rest>` (`rest` without the leading `json/`; empty for `json` itself).
pub(super) async fn answer(
    door: Arc<Door>,
    visitor: &Visitor,
    method: &Method,
    rest: &str,
    query: Option<&str>,
) -> Response {
    let rest = rest.trim_end_matches('/');
    let (verb, id) = rest.split_once('/').unwrap_or((rest, ""));
    match verb {
        "version" => version(&door, visitor).await,
        "" | "list" => Json(list(&door, visitor).await).into_response(),
        "new" if method != Method::PUT => refusal(
            StatusCode::METHOD_NOT_ALLOWED,
            "put_required",
            "Using unsafe HTTP verb GET to invoke /json/new. This action supports only PUT verb.",
        ),
        "new" => {
            let url = query.map(percent_decoded).unwrap_or_default();
            match targets::open(&door, if url.is_empty() { "about:blank" } else { &url }).await {
                Ok(target) => Json(entry(&door, visitor, &target).await).into_response(),
                Err((_, message)) => refusal(StatusCode::FORBIDDEN, "refused", &message),
            }
        }
        "close" => match targets::close(&door, id).await {
            Ok(()) => "Target is closing".into_response(),
            Err((_, message)) => not_found_or(&message),
        },
        "activate" => match targets::ensure_own(&door, id) {
            Ok(()) => "Target activated".into_response(),
            Err((_, message)) => not_found_or(&message),
        },
        "protocol" => (
            [(
                axum::http::header::CONTENT_TYPE,
                "application/json; charset=UTF-8",
            )],
            super::protocol::listing(),
        )
            .into_response(),
        _ => refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such CDP door address",
        ),
    }
}

async fn version(door: &Door, visitor: &Visitor) -> Response {
    let reply = door
        .entry
        .session
        .cdp()
        .call("Browser.getVersion", json!({}))
        .await;
    let Ok(v) = reply else {
        return refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            "browser_unavailable",
            "the channel's browser does not answer; try again",
        );
    };
    Json(json!({
        "Browser": v["product"],
        "Protocol-Version": v["protocolVersion"],
        "User-Agent": v["userAgent"],
        "V8-Version": v["jsVersion"],
        "WebKit-Version": v["revision"],
        "webSocketDebuggerUrl": format!("{}/devtools/browser", visitor.root("ws")),
    }))
    .into_response()
}

async fn list(door: &Door, visitor: &Visitor) -> Vec<Value> {
    let mut entries = Vec::new();
    for target in targets::own_tabs(door) {
        entries.push(entry(door, visitor, &target).await);
    }
    entries
}

/// One tab as `json/list` shows it.
async fn entry(door: &Door, visitor: &Visitor, target: &str) -> Value {
    let info = targets::info(door, target).await.unwrap_or(Value::Null);
    json!({
        "description": "",
        "devtoolsFrontendUrl": "",
        "id": target,
        "title": info["title"],
        "type": "page",
        "url": info["url"],
        "webSocketDebuggerUrl": format!("{}/devtools/page/{target}", visitor.root("ws")),
    })
}

fn not_found_or(message: &str) -> Response {
    if message == super::wire::NO_TARGET {
        refusal(StatusCode::NOT_FOUND, "no_target", "No such target id")
    } else {
        refusal(StatusCode::FORBIDDEN, "refused", message)
    }
}

/// `%xx` escapes of a query decoded (as Chrome reads `json/new?<url>`).
fn percent_decoded(query: &str) -> String {
    let bytes = query.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::percent_decoded;

    #[test]
    fn a_new_tabs_url_is_unescaped() {
        assert_eq!(percent_decoded("http://a/b%3Fc%3D1"), "http://a/b?c=1");
        assert_eq!(percent_decoded("http://a/%zz"), "http://a/%zz");
    }
}
