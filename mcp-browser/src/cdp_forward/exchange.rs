//! One client request at the listener: admitted (loopback `Host` and `Origin`, a CDP path),
//! sent to the door with the bearer token, and answered — a JSON answer with its URLs pointed
//! back at the listener, or a WebSocket upgrade spliced byte for byte between the client and
//! the door.

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use super::listen::{loopback_host, loopback_origin};
use super::paths::door_path;
use super::rewrite::point_at_listener;
use super::Forwarder;

impl Forwarder {
    /// The answer to one client request.
    pub(super) async fn answer(&self, mut request: Request<Incoming>) -> Response<Full<Bytes>> {
        let headers = request.headers();
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        if !host.is_some_and(loopback_host) {
            return plain(
                StatusCode::FORBIDDEN,
                "Host header is specified and is not an IP address or localhost.",
            );
        }
        let origin = headers
            .get(header::ORIGIN)
            .map(|o| o.to_str().unwrap_or(""));
        if origin.is_some_and(|o| !loopback_origin(o)) {
            return plain(
                StatusCode::FORBIDDEN,
                "Rejected an incoming request from a non-loopback Origin: the forwarder serves \
                 only clients on this machine.",
            );
        }
        let client_path = request
            .uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string();
        let Some(door) = door_path(&client_path) else {
            return plain(
                StatusCode::NOT_FOUND,
                "not a CDP address: the forwarder serves /json/… and /devtools/…",
            );
        };
        tracing::info!(method = %request.method(), path = %client_path, "cdp_forward_request");
        let client_upgrade = request
            .headers()
            .contains_key(header::UPGRADE)
            .then(|| hyper::upgrade::on(&mut request));
        let upstream_request = match self.to_door(request, &door) {
            Ok(r) => r,
            Err(message) => return plain(StatusCode::BAD_REQUEST, &message),
        };
        let mut answer = match self.upstream.send(upstream_request).await {
            Ok(answer) => answer,
            Err(error) => {
                tracing::warn!(%error, "cdp_forward_daemon_unreachable");
                return plain(
                    StatusCode::BAD_GATEWAY,
                    &format!("the Porthole daemon is not reachable: {error}"),
                );
            }
        };
        if answer.status() == StatusCode::SWITCHING_PROTOCOLS {
            let daemon_upgrade = hyper::upgrade::on(&mut answer);
            if let Some(client_upgrade) = client_upgrade {
                tokio::spawn(async move {
                    let (Ok(client), Ok(daemon)) = tokio::join!(client_upgrade, daemon_upgrade)
                    else {
                        tracing::warn!("cdp_forward_upgrade_failed");
                        return;
                    };
                    let copied = tokio::io::copy_bidirectional(
                        &mut TokioIo::new(client),
                        &mut TokioIo::new(daemon),
                    )
                    .await;
                    tracing::debug!(ok = copied.is_ok(), "cdp_forward_socket_closed");
                });
            }
            let mut response = Response::new(Full::new(Bytes::new()));
            *response.status_mut() = answer.status();
            *response.headers_mut() = answer.headers().clone();
            return response;
        }
        self.relay(answer).await
    }

    /// The client's request as the door's: its path, the daemon's Host, the bearer token
    /// (any client `Authorization` dropped); method, other headers and body kept.
    fn to_door(&self, request: Request<Incoming>, door: &str) -> Result<Request<Incoming>, String> {
        let (mut parts, body) = request.into_parts();
        parts.uri = self
            .upstream
            .target(door)
            .parse()
            .map_err(|_| "the request path cannot be forwarded".to_string())?;
        let bearer = HeaderValue::from_str(&format!("Bearer {}", self.token))
            .map_err(|_| "the token is not a valid header value".to_string())?;
        let host = HeaderValue::from_str(&self.upstream.host())
            .map_err(|_| "the daemon address is not a valid Host".to_string())?;
        parts.headers.insert(header::AUTHORIZATION, bearer);
        parts.headers.insert(header::HOST, host);
        // The daemon admits its own origin only; the forwarder checked the client's above.
        parts.headers.remove(header::ORIGIN);
        Ok(Request::from_parts(parts, body))
    }

    /// A plain answer relayed, JSON URLs pointed back at the listener.
    async fn relay(&self, answer: Response<Incoming>) -> Response<Full<Bytes>> {
        let (mut parts, body) = answer.into_parts();
        let body = match body.collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(error) => {
                return plain(
                    StatusCode::BAD_GATEWAY,
                    &format!("the Porthole daemon's answer broke off: {error}"),
                )
            }
        };
        let body = point_at_listener(&body, self.listen).map_or(body, Bytes::from);
        parts.headers.remove(header::CONTENT_LENGTH);
        parts.headers.remove(header::TRANSFER_ENCODING);
        Response::from_parts(parts, Full::new(body))
    }
}

fn plain(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(message.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
