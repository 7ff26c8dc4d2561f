//! Who is at the door: the agent token from the door's path (`/cdp/<agent-token>/…`) or an
//! `Authorization: Bearer` header, and the door's own URLs handed back to the client (which
//! carry the token only when it came in the path, and only to that client).
//!
//! The token is a secret: it is never logged (the path with it is logged as
//! [`logged_path`]), never recorded and never in an error.

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use crate::agents::{AgentIdentity, Agents};
use crate::calls::DoorShut;

/// Where the token came from, and so how the door's URLs are written back.
#[derive(Clone)]
pub(super) enum Key {
    /// `/cdp/<token>/…`: the URLs carry it.
    InPath(String),
    /// `Authorization: Bearer`: the URLs do not; the client sends the header again.
    Bearer,
}

/// A caller the door knows: the agent and how to write its URLs.
pub(super) struct Visitor {
    pub(super) agent: AgentIdentity,
    pub(super) key: Key,
    /// The Host the client used (checked by the API's admission).
    host: String,
}

impl Visitor {
    /// The door's root: `http://<host>/cdp/<token>` or `http://<host>/cdp`.
    pub(super) fn root(&self, scheme: &str) -> String {
        match &self.key {
            Key::InPath(token) => format!("{scheme}://{}/cdp/{token}", self.host),
            Key::Bearer => format!("{scheme}://{}/cdp", self.host),
        }
    }
}

/// The agent behind `token` (from the path) or the request's bearer token; the refusal a
/// client reads otherwise (401 unknown token, 403 door shut).
pub(super) fn visitor(
    agents: &Agents,
    token: Option<&str>,
    headers: &HeaderMap,
) -> Result<Visitor, Refused> {
    let (given, key) = match token {
        Some(token) => (token.to_string(), Key::InPath(token.to_string())),
        None => match bearer(headers) {
            Some(token) => (token, Key::Bearer),
            None => {
                return Err(Refused::new(
                    StatusCode::UNAUTHORIZED,
                    "bad_token",
                    "the CDP door needs an agent token: /cdp/<agent-token>/… or Authorization: Bearer <agent-token> (`porthole agent add <channel>` prints it)",
                ))
            }
        },
    };
    let agent = match agents.authenticate(&given) {
        Ok(Some(agent)) => agent,
        Ok(None) => {
            return Err(Refused::new(
                StatusCode::UNAUTHORIZED,
                "bad_token",
                "unknown or revoked agent token: the CDP door takes an agent token from `porthole agent add <channel>`",
            ))
        }
        Err(error) => {
            tracing::warn!(event = "cdp_door_agent_lookup_failed", %error);
            return Err(Refused::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "state_unavailable",
                "the daemon cannot read its agent list right now; try again",
            ));
        }
    };
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1")
        .to_string();
    Ok(Visitor { agent, key, host })
}

/// The answer to a door shut to an agent.
pub(super) fn shut(agent: &AgentIdentity, shut: &DoorShut) -> Refused {
    let (status, code) = match shut {
        DoorShut::Forbidden(_) => (StatusCode::FORBIDDEN, "agent_forbidden"),
        DoorShut::Request(_) => (StatusCode::NOT_FOUND, "unknown_channel"),
        DoorShut::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "browser_unavailable"),
    };
    tracing::info!(event = "cdp_door_shut", agent_id = %agent.agent_id, channel_id = %agent.channel_id, code);
    Refused::new(status, code, &shut.message())
}

/// A refusal at the door, answered in the API's shape `{"error":{"code","message"}}`.
pub(super) struct Refused {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl Refused {
    pub(super) fn new(status: StatusCode, code: &'static str, message: &str) -> Self {
        Self {
            status,
            code,
            message: message.to_string(),
        }
    }
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        refusal(self.status, self.code, &self.message)
    }
}

/// An HTTP refusal in the API's shape `{"error":{"code","message"}}`.
pub(super) fn refusal(status: StatusCode, code: &str, message: &str) -> Response {
    (
        status,
        Json(json!({ "error": { "code": code, "message": message } })),
    )
        .into_response()
}

/// `path` as logs may keep it: a door path loses its token (`/cdp/<token>/x` → `/cdp/…/x`).
pub(crate) fn logged_path(path: &str) -> String {
    match path.strip_prefix("/cdp/") {
        Some(rest) => match rest.split_once('/') {
            Some((first, tail)) if !matches!(first, "json" | "devtools") => {
                format!("/cdp/…/{tail}")
            }
            None if !matches!(rest, "json" | "devtools") => "/cdp/…".to_string(),
            _ => path.to_string(),
        },
        None => path.to_string(),
    }
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
        .find(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::logged_path;

    #[test]
    fn a_door_path_loses_its_token_in_logs() {
        assert_eq!(
            logged_path("/cdp/pha_secret/json/version"),
            "/cdp/…/json/version"
        );
        assert_eq!(logged_path("/cdp/pha_secret"), "/cdp/…");
        assert_eq!(logged_path("/cdp/json/version"), "/cdp/json/version");
        assert_eq!(logged_path("/api/health"), "/api/health");
    }
}
