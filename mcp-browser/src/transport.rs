//! [`ApiTransport`]: one HTTP exchange with the Porthole daemon, over TCP (`http://…`, reqwest)
//! or over the agent Unix socket (`unix:///run/porthole/agents.sock`, hyper's HTTP/1 client on
//! a fresh connection per request — a local socket costs microseconds to open).
//!
//! Owns only moving bytes: status and body come back as they are; what they mean is the
//! proxy's business.

use std::path::PathBuf;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use url::Url;

/// How long connecting may take.
const CONNECT_DEADLINE: Duration = Duration::from_secs(5);

/// Where the daemon is and how to reach it.
#[derive(Debug, Clone)]
pub enum ApiTransport {
    /// `http://host:port/…`.
    Tcp { base: Url, client: reqwest::Client },
    /// `unix:///path/to/agents.sock`.
    Unix { socket: PathBuf },
}

/// The daemon URL cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("the daemon URL {0} must be http://host:port or unix:///path/to/agents.sock")]
    BadUrl(Url),
    #[error("could not build the HTTP client: {0}")]
    Client(#[from] reqwest::Error),
}

/// One exchange with the daemon failed before an answer came back.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The path or method could not make a request.
    #[error("{0}")]
    Request(String),
    /// The agent socket did not accept the connection within [`CONNECT_DEADLINE`].
    #[error("connecting to {} timed out", .0.display())]
    ConnectTimeout(PathBuf),
    /// The agent socket refused the connection (missing, no permission, nobody listening).
    #[error("cannot connect to {}: {source}", socket.display())]
    Connect {
        socket: PathBuf,
        source: std::io::Error,
    },
    /// The exchange broke off; the error and its causes, `: `-joined.
    #[error("{0}")]
    Exchange(String),
}

impl ApiTransport {
    /// A transport for `api` (`http://…` or `unix:///…`).
    pub fn new(api: &Url) -> Result<Self, TransportError> {
        match api.scheme() {
            "http" => {
                let mut base = api.clone();
                if !base.path().ends_with('/') {
                    base.set_path(&format!("{}/", base.path()));
                }
                let client = reqwest::Client::builder()
                    .no_proxy()
                    .connect_timeout(CONNECT_DEADLINE)
                    .build()?;
                Ok(Self::Tcp { base, client })
            }
            "unix" if !api.path().is_empty() && api.path() != "/" => Ok(Self::Unix {
                socket: PathBuf::from(api.path()),
            }),
            _ => Err(TransportError::BadUrl(api.clone())),
        }
    }

    /// Sends `method path` with the bearer `token` and an optional JSON `body`; returns the
    /// status and body text, or why the daemon could not be reached.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<Vec<u8>>,
    ) -> Result<(u16, String), SendError> {
        match self {
            Self::Tcp { base, client } => {
                let url = base
                    .join(path.trim_start_matches('/'))
                    .map_err(|e| SendError::Request(e.to_string()))?;
                let method = reqwest::Method::from_bytes(method.as_bytes())
                    .map_err(|e| SendError::Request(e.to_string()))?;
                let mut request = client.request(method, url).bearer_auth(token);
                if let Some(body) = body {
                    request = request
                        .header("content-type", "application/json")
                        .body(body);
                }
                let response = request.send().await.map_err(|e| exchange(&e))?;
                let status = response.status().as_u16();
                let text = response.text().await.map_err(|e| exchange(&e))?;
                Ok((status, text))
            }
            Self::Unix { socket } => unix_send(socket, method, path, token, body).await,
        }
    }
}

async fn unix_send(
    socket: &std::path::Path,
    method: &str,
    path: &str,
    token: &str,
    body: Option<Vec<u8>>,
) -> Result<(u16, String), SendError> {
    let stream = tokio::time::timeout(CONNECT_DEADLINE, tokio::net::UnixStream::connect(socket))
        .await
        .map_err(|_| SendError::ConnectTimeout(socket.to_owned()))?
        .map_err(|source| SendError::Connect {
            socket: socket.to_owned(),
            source,
        })?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| SendError::Exchange(e.to_string()))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let mut request = hyper::Request::builder()
        .method(method)
        .uri(path)
        // The agent socket checks no Host (browsers cannot reach it); HTTP/1.1 needs one.
        .header("host", "localhost")
        .header("authorization", format!("Bearer {token}"));
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let request = request
        .body(Full::new(Bytes::from(body.unwrap_or_default())))
        .map_err(|e| SendError::Request(e.to_string()))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| exchange(&e))?;
    let status = response.status().as_u16();
    let bytes = response
        .into_body()
        .collect()
        .await
        .map_err(|e| SendError::Exchange(e.to_string()))?
        .to_bytes();
    driver.abort();
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

/// An error and its causes, `: `-joined (reqwest's and hyper's own messages hide the cause).
fn exchange(e: &(dyn std::error::Error + 'static)) -> SendError {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    SendError::Exchange(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_pick_their_transport() {
        let tcp = ApiTransport::new(&"http://127.0.0.1:7878".parse().unwrap()).unwrap();
        assert!(matches!(tcp, ApiTransport::Tcp { .. }));
        let unix = ApiTransport::new(&"unix:///run/porthole/agents.sock".parse().unwrap()).unwrap();
        match unix {
            ApiTransport::Unix { socket } => {
                assert_eq!(socket, PathBuf::from("/run/porthole/agents.sock"))
            }
            other => panic!("{other:?}"),
        }
        for bad in ["https://x", "unix:///", "ftp://x/y"] {
            assert!(ApiTransport::new(&bad.parse().unwrap()).is_err(), "{bad}");
        }
    }
}
