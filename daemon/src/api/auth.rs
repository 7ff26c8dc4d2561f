//! Request admission: who may call what, on which listener.
//!
//! - The Host must name this daemon (no DNS rebinding): a loopback name on the loopback
//!   listener; on the agent TCP listener also `host.docker.internal` and its own address; the
//!   agent Unix socket has no Host to check (browsers cannot reach it).
//! - A browser's Origin must be the daemon's own or configured.
//! - Every API call but the health check carries a token (`Authorization: Bearer …`, or the
//!   WebSocket subprotocol `porthole.token.<token>` for browsers): the owner token, with full
//!   power, or an agent token, which may only run tools on its own channel and read
//!   `agents/me` (everything else 403 `agent_forbidden`). The [`Caller`] goes into the
//!   request's extensions for the handlers.
//! - A page on a configured origin (a desktop app embedding `<porthole-pane>`) gets CORS:
//!   preflights are answered here, before any token is asked for, and responses name the
//!   origin in `Access-Control-Allow-Origin`.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::AppState;
use crate::agents::AgentIdentity;
use crate::token::same_secret;

/// WebSocket subprotocol prefix that carries the token.
pub const TOKEN_PROTOCOL_PREFIX: &str = "porthole.token.";

/// Which listener a request came in on (set as a request extension by each listener's router).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listener {
    /// `server.listen`: loopback, the panes' and the owner's.
    Loopback,
    /// `server.agent_socket`: the Unix socket mounted into agent containers.
    AgentSocket,
    /// `server.agent_listen`: TCP for agents that cannot mount the socket.
    AgentTcp(SocketAddr),
}

/// Who is calling, as admitted.
#[derive(Debug, Clone)]
pub enum Caller {
    /// The owner token: full power.
    Owner,
    /// An agent token: its own channel's tools only.
    Agent(Arc<AgentIdentity>),
}

/// Paths anyone who can reach the listener may fetch: the health check and the static panel
/// (it holds no secret; the token reaches it in the URL fragment, which browsers never send).
fn is_public(path: &str) -> bool {
    path == "/api/health" || !path.starts_with("/api/")
}

/// What an agent token may call besides the public paths.
fn agent_may_call(method: &Method, path: &str) -> bool {
    (method == Method::POST && path == "/api/browser/action")
        || (method == Method::GET && path == "/api/browser/agents/me")
}

/// The middleware.
pub async fn admit(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let listener = request
        .extensions()
        .get::<Listener>()
        .copied()
        .unwrap_or(Listener::Loopback);
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_string();
    if !host_allowed(listener, &host) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "bad_host",
            "requests must address the daemon by a loopback name (127.0.0.1, localhost or [::1]; on the agent listener also host.docker.internal)",
        )
        .into_response();
    }
    let mut cors_origin = None;
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        let own = format!("http://{host}");
        let configured = state.inner.allowed_origins.iter().any(|o| o == origin);
        let allowed = origin == own || configured;
        if configured && origin != own {
            cors_origin = Some(origin.to_string());
        }
        if !allowed {
            tracing::info!(event = "origin_refused", %origin, path = %crate::cdp_door::logged_path(request.uri().path()));
            return ApiError::new(
                StatusCode::FORBIDDEN,
                "foreign_origin",
                format!("requests from {origin} are not allowed; add it to server.allowed_origins if you trust it"),
            )
            .into_response();
        }
    }
    if let Some(origin) = &cors_origin {
        if request.method() == Method::OPTIONS {
            return preflight(origin);
        }
    }
    let path = request.uri().path().to_string();
    let caller = match identify(&state, request.headers()) {
        Ok(caller) => caller,
        // A wrong token does not lock anyone out of the health check or the panel.
        Err(_) if is_public(&path) => None,
        Err(response) => return *response,
    };
    match &caller {
        None if is_public(&path) => {}
        None => return missing_token(listener),
        Some(Caller::Agent(agent))
            if !is_public(&path) && !agent_may_call(request.method(), &path) =>
        {
            tracing::info!(event = "agent_forbidden", agent_id = %agent.agent_id, %path);
            return ApiError::new(
                StatusCode::FORBIDDEN,
                "agent_forbidden",
                "an agent token may only run browser tools on its own channel (POST /api/browser/action) and read GET /api/browser/agents/me; this needs the owner token",
            )
            .into_response();
        }
        Some(_) => {}
    }
    if let Some(caller) = caller {
        request.extensions_mut().insert(caller);
    }
    let mut response = next.run(request).await;
    if let Some(origin) = cors_origin {
        allow_origin(&mut response, &origin);
    }
    response
}

/// The answer to a CORS preflight from a configured origin (no token: browsers send none).
fn preflight(origin: &str) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        header::HeaderValue::from_static("GET, POST, DELETE"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        header::HeaderValue::from_static("authorization, content-type"),
    );
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        header::HeaderValue::from_static("600"),
    );
    allow_origin(&mut response, origin);
    response
}

fn allow_origin(response: &mut Response, origin: &str) {
    if let Ok(value) = header::HeaderValue::from_str(origin) {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        headers.append(header::VARY, header::HeaderValue::from_static("origin"));
    }
}

/// The caller a request's token names; `None` without a token; 401 for a token nobody holds.
fn identify(
    state: &AppState,
    headers: &axum::http::HeaderMap,
) -> Result<Option<Caller>, Box<Response>> {
    let given = tokens(headers);
    if given.is_empty() {
        return Ok(None);
    }
    if given.iter().any(|t| same_secret(t, &state.inner.token)) {
        return Ok(Some(Caller::Owner));
    }
    for token in &given {
        match state.inner.agents.authenticate(token) {
            Ok(Some(agent)) => return Ok(Some(Caller::Agent(Arc::new(agent)))),
            Ok(None) => {}
            Err(error) => {
                tracing::warn!(event = "agent_lookup_failed", %error);
                return Err(Box::new(
                    ApiError::new(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "state_unavailable",
                        "the daemon cannot read its agent list right now; try again",
                    )
                    .into_response(),
                ));
            }
        }
    }
    Err(Box::new(
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "bad_token",
            "unknown or revoked token: use the owner token (in <data_dir>/token) or an agent token from `porthole agent add <channel>`",
        )
        .into_response(),
    ))
}

fn missing_token(listener: Listener) -> Response {
    let message = match listener {
        Listener::Loopback => "missing owner token: send Authorization: Bearer <token> (the token is in <data_dir>/token)",
        Listener::AgentSocket | Listener::AgentTcp(_) => "missing agent token: ask the person who runs Porthole to run `porthole agent add <channel>`, and pass the token it prints with PORTHOLE_TOKEN or --token-file (porthole-mcp), or as Authorization: Bearer <token>",
    };
    ApiError::new(StatusCode::UNAUTHORIZED, "bad_token", message).into_response()
}

/// Every token the request carries (bearer headers and WebSocket subprotocols).
fn tokens(headers: &axum::http::HeaderMap) -> Vec<String> {
    let bearer = headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string());
    let protocol = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|p| p.trim().strip_prefix(TOKEN_PROTOCOL_PREFIX))
        .map(str::to_string);
    bearer
        .chain(protocol)
        .filter(|t| !t.is_empty())
        .take(4)
        .collect()
}

fn host_allowed(listener: Listener, host: &str) -> bool {
    match listener {
        Listener::Loopback => is_loopback_host(host),
        Listener::AgentSocket => true,
        Listener::AgentTcp(addr) => {
            is_loopback_host(host)
                || host_name(host) == "host.docker.internal"
                || host_name(host) == addr.ip().to_string()
        }
    }
}

/// The name part of a Host header (no port, no IPv6 brackets).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    }
}

/// True for `127.0.0.1[:port]`, `localhost[:port]` and `[::1][:port]`.
fn is_loopback_host(host: &str) -> bool {
    matches!(host_name(host), "127.0.0.1" | "localhost" | "::1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_pass() {
        for ok in ["127.0.0.1:7878", "localhost", "[::1]:80", "localhost:1"] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "",
            "evil.com",
            "127.0.0.1.evil.com:80",
            "10.0.0.1:7878",
            "[::2]:1",
            "host.docker.internal:7878",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn the_agent_listener_also_accepts_host_docker_internal_and_its_own_address() {
        let tcp = Listener::AgentTcp("172.17.0.1:7879".parse().unwrap());
        for ok in [
            "host.docker.internal:7879",
            "172.17.0.1:7879",
            "127.0.0.1:7879",
        ] {
            assert!(host_allowed(tcp, ok), "{ok}");
        }
        for bad in ["evil.com", "172.17.0.2:7879", ""] {
            assert!(!host_allowed(tcp, bad), "{bad}");
        }
        assert!(host_allowed(Listener::AgentSocket, ""));
        assert!(!host_allowed(Listener::Loopback, "host.docker.internal"));
    }

    #[test]
    fn agents_may_call_only_the_action_and_me() {
        assert!(agent_may_call(&Method::POST, "/api/browser/action"));
        assert!(agent_may_call(&Method::GET, "/api/browser/agents/me"));
        assert!(!agent_may_call(&Method::GET, "/api/browser/agents"));
        assert!(!agent_may_call(&Method::POST, "/api/browser/mode"));
        assert!(!agent_may_call(&Method::GET, "/api/ws/browser"));
    }
}
