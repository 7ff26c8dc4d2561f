//! Request admission: the Host must be a loopback name (no DNS rebinding), a browser's Origin
//! must be the daemon's own or configured, and every API call but the health check must carry
//! the owner token (`Authorization: Bearer …`, or the WebSocket subprotocol
//! `porthole.token.<token>` for browsers, which cannot set headers on a WebSocket).

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::AppState;
use crate::token::same_secret;

/// WebSocket subprotocol prefix that carries the token.
pub const TOKEN_PROTOCOL_PREFIX: &str = "porthole.token.";

/// Paths anyone on this machine may fetch: the health check and the static panel (it holds no
/// secret; the token reaches it in the URL fragment, which browsers never send).
fn is_public(path: &str) -> bool {
    path == "/api/health" || !path.starts_with("/api/")
}

/// The middleware.
pub async fn admit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    if !is_loopback_host(host) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "bad_host",
            "requests must address the daemon by a loopback name (127.0.0.1, localhost or [::1])",
        )
        .into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        let own = format!("http://{host}");
        let allowed = origin == own || state.inner.allowed_origins.iter().any(|o| o == origin);
        if !allowed {
            tracing::info!(event = "origin_refused", %origin, path = %request.uri().path());
            return ApiError::new(
                StatusCode::FORBIDDEN,
                "foreign_origin",
                format!("requests from {origin} are not allowed; add it to server.allowed_origins if you trust it"),
            )
            .into_response();
        }
    }
    if !is_public(request.uri().path()) && !has_token(headers, &state.inner.token) {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            "bad_token",
            "missing or wrong owner token: send Authorization: Bearer <token> (the token is in <data_dir>/token)",
        )
        .into_response();
    }
    next.run(request).await
}

fn has_token(headers: &axum::http::HeaderMap, token: &str) -> bool {
    let bearer = headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.strip_prefix("Bearer "))
        .any(|given| same_secret(given.trim(), token));
    let protocol = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|p| p.trim().strip_prefix(TOKEN_PROTOCOL_PREFIX))
        .any(|given| same_secret(given, token));
    bearer || protocol
}

/// True for `127.0.0.1[:port]`, `localhost[:port]` and `[::1][:port]`.
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    };
    matches!(name, "127.0.0.1" | "localhost" | "::1")
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
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }
}
