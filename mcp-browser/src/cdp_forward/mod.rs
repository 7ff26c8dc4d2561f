//! `porthole-mcp cdp --listen 127.0.0.1:9222`: a CDP forwarder for tools that take only a port
//! (`--remote-debugging-port`-style clients, Puppeteer's `browserURL`, chrome-devtools-mcp's
//! `--browserUrl`). They dial the listener's ROOT — `GET /json/version`, `/json/list`,
//! `PUT /json/new?…`, `/json/close/<id>`, `/json/activate/<id>`, `/json/protocol`, and the
//! WebSockets `/devtools/browser[/<id>]`, `/devtools/page/<id>` — and each request goes on to
//! the agent's CDP door on the daemon (`/cdp/json/…`, `/cdp/devtools/…`, DESIGN.md §21) with
//! `Authorization: Bearer <token>` added, over the same transport `porthole-mcp` uses (the
//! agent socket in an agent container, or `--api http://127.0.0.1:<port>` on the host).
//!
//! Rooms, one job each: [`listen`] (only a loopback listen address, and only loopback Host
//! and Origin on requests), [`paths`] (the client's root path to the door's path), [`rewrite`]
//! (the door's URLs in JSON answers pointed back at the listener), [`upstream`] (one
//! request to the daemon, TCP or Unix socket, with WebSocket upgrades), [`exchange`] (one
//! client request: forward, answer, splice an upgraded connection).
//!
//! The token is a secret: it goes only into the `Authorization` header sent to the daemon;
//! it is never logged and never in an answer (the door hands back token-less URLs to a bearer
//! caller, and the forwarder rewrites them to the listener anyway).

mod exchange;
pub mod listen;
mod paths;
mod rewrite;
mod upstream;

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use url::Url;

pub use listen::{loopback_listen, ListenError};

use crate::transport::TransportError;

/// What every forwarded request needs: where the daemon is, the token, and the listener's
/// own address (written into the URLs handed back).
pub struct Forwarder {
    upstream: upstream::Upstream,
    token: String,
    listen: SocketAddr,
}

impl Forwarder {
    /// A forwarder from `listen` to the daemon at `api` (`http://…` or `unix:///…`).
    pub fn new(api: &Url, token: String, listen: SocketAddr) -> Result<Self, TransportError> {
        Ok(Self {
            upstream: upstream::Upstream::new(api)?,
            token,
            listen,
        })
    }

    /// Binds the listener and serves until the process ends; `ready` is called with the bound
    /// address once clients can connect.
    pub async fn serve(self, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(self.listen).await?;
        let bound = listener.local_addr()?;
        let forwarder = Arc::new(Self {
            listen: bound,
            ..self
        });
        ready(bound);
        loop {
            let (stream, peer) = listener.accept().await?;
            let forwarder = forwarder.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let forwarder = forwarder.clone();
                    async move { Ok::<_, std::convert::Infallible>(forwarder.answer(request).await) }
                });
                let served = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .with_upgrades()
                    .await;
                if let Err(error) = served {
                    tracing::debug!(%peer, %error, "cdp_forward_connection_ended");
                }
            });
        }
    }
}
