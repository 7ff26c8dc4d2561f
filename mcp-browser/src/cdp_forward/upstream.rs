//! One request to the daemon's CDP door: over TCP (`--api http://host:port`) or the agent
//! Unix socket (`unix:///run/porthole/agents.sock`), on a fresh HTTP/1 connection per request
//! that stays open for a WebSocket upgrade (hyper's `with_upgrades`).

use std::path::PathBuf;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use url::Url;

use crate::transport::{SendError, TransportError};

/// How long connecting to the daemon may take.
const CONNECT_DEADLINE: Duration = Duration::from_secs(5);

/// Where the daemon is.
pub(super) enum Upstream {
    /// `http://host:port/<prefix>`: its `host:port` and path prefix (ends with `/`).
    Tcp {
        host: String,
        port: u16,
        prefix: String,
    },
    /// `unix:///path/to/agents.sock`.
    Unix { socket: PathBuf },
}

impl Upstream {
    pub(super) fn new(api: &Url) -> Result<Self, TransportError> {
        match (api.scheme(), api.host_str(), api.port_or_known_default()) {
            ("http", Some(host), Some(port)) => {
                let path = api.path().trim_end_matches('/');
                Ok(Self::Tcp {
                    host: host.to_string(),
                    port,
                    prefix: format!("{path}/"),
                })
            }
            ("unix", _, _) if !api.path().is_empty() && api.path() != "/" => Ok(Self::Unix {
                socket: PathBuf::from(api.path()),
            }),
            _ => Err(TransportError::BadUrl(api.clone())),
        }
    }

    /// The request target for the door's `path` (`cdp/json/version`).
    pub(super) fn target(&self, path: &str) -> String {
        match self {
            Self::Tcp { prefix, .. } => format!("{prefix}{path}"),
            Self::Unix { .. } => format!("/{path}"),
        }
    }

    /// The `Host` the daemon admits: its own address over TCP; any over the agent socket.
    pub(super) fn host(&self) -> String {
        match self {
            Self::Tcp { host, port, .. } if host.contains(':') => format!("[{host}]:{port}"),
            Self::Tcp { host, port, .. } => format!("{host}:{port}"),
            Self::Unix { .. } => "localhost".to_string(),
        }
    }

    /// Sends `request` and returns the daemon's answer (its body and any upgrade still to
    /// be read).
    pub(super) async fn send(
        &self,
        request: Request<Incoming>,
    ) -> Result<Response<Incoming>, SendError> {
        match self {
            Self::Tcp { host, port, .. } => {
                let connect = tokio::net::TcpStream::connect((host.as_str(), *port));
                let stream = tokio::time::timeout(CONNECT_DEADLINE, connect)
                    .await
                    .map_err(|_| {
                        SendError::Exchange(format!("connecting to {host}:{port} timed out"))
                    })?
                    .map_err(|e| {
                        SendError::Exchange(format!("cannot connect to {host}:{port}: {e}"))
                    })?;
                exchange(TokioIo::new(stream), request).await
            }
            Self::Unix { socket } => {
                let connect = tokio::net::UnixStream::connect(socket);
                let stream = tokio::time::timeout(CONNECT_DEADLINE, connect)
                    .await
                    .map_err(|_| SendError::ConnectTimeout(socket.clone()))?
                    .map_err(|source| SendError::Connect {
                        socket: socket.clone(),
                        source,
                    })?;
                exchange(TokioIo::new(stream), request).await
            }
        }
    }
}

async fn exchange<T>(io: T, request: Request<Incoming>) -> Result<Response<Incoming>, SendError>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| SendError::Exchange(e.to_string()))?;
    tokio::spawn(async move {
        if let Err(error) = connection.with_upgrades().await {
            tracing::debug!(%error, "cdp_forward_upstream_connection_ended");
        }
    });
    sender
        .send_request(request)
        .await
        .map_err(|e| SendError::Exchange(e.to_string()))
}
