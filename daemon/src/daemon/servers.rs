//! The daemon's listeners: the owner API on loopback, and the agents' Unix socket and TCP
//! listener when configured. Each is served by the same router builder until shutdown.

use std::net::SocketAddr;
use std::path::PathBuf;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::StartError;
use crate::api::{self, AppState, Listener};
use crate::config::Config;

/// A running server: ends when the daemon's shutdown is cancelled.
pub(super) type Server = JoinHandle<std::io::Result<()>>;

/// Serves `app` on `listener` until `shutdown`, letting open requests finish.
pub(super) fn spawn<L>(listener: L, app: axum::Router, shutdown: CancellationToken) -> Server
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await
    })
}

/// Serves `app` on a TCP `listener` like [`spawn`], each connection without Nagle's
/// algorithm ([`no_delay`]).
pub(super) fn spawn_tcp(
    listener: TcpListener,
    app: axum::Router,
    shutdown: CancellationToken,
) -> Server {
    spawn(no_delay(listener), app, shutdown)
}

/// `listener` with Nagle's algorithm off on every connection it accepts: a pane's socket
/// writes a small message (`viewport`) right before a frame, and with Nagle on the frame
/// waited for the peer's delayed ACK of the message (up to 40 ms).
fn no_delay(
    listener: TcpListener,
) -> impl axum::serve::Listener<Io = tokio::net::TcpStream, Addr = SocketAddr> {
    use axum::serve::ListenerExt;
    listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(event = "tcp_nodelay_failed", %error);
        }
    })
}

/// The owner API's listener: the one handed in (tests), else `server.listen`.
pub(super) async fn bind_api(
    config: &Config,
    given: Option<TcpListener>,
) -> Result<(TcpListener, SocketAddr), StartError> {
    let wanted = config.server.listen;
    let listen_error = |source| StartError::Listen {
        addr: wanted,
        source,
    };
    let listener = match given {
        Some(listener) => listener,
        None => TcpListener::bind(wanted).await.map_err(listen_error)?,
    };
    let addr = listener.local_addr().map_err(listen_error)?;
    if !addr.ip().is_loopback() {
        tracing::warn!(event = "listening_beyond_loopback", %addr, "the API is reachable from other machines; the owner token is all that protects it");
    }
    Ok((listener, addr))
}

/// The agents' Unix socket, when configured and it can be bound (a failure is logged: agents
/// in containers then cannot reach the daemon, but the owner API still runs).
pub(super) async fn agent_socket(
    config: &Config,
    data_dir: &std::path::Path,
    state: &AppState,
    shutdown: &CancellationToken,
) -> Option<(PathBuf, Server)> {
    let path = config.server.agent_socket_path(data_dir)?;
    match crate::agents::socket::bind(&path).await {
        Ok(unix) => {
            let app = api::app_on(state.clone(), Listener::AgentSocket);
            tracing::info!(event = "agent_socket_listening", path = %path.display());
            Some((path, spawn(unix, app, shutdown.clone())))
        }
        Err(error) => {
            tracing::warn!(event = "agent_socket_unavailable", path = %path.display(), %error, "agents in containers cannot reach this daemon over the socket");
            None
        }
    }
}

/// The agents' TCP listener (`server.agent_listen`), when configured; failing to bind it is an
/// error, since it was asked for by address.
pub(super) async fn agent_tcp(
    config: &Config,
    state: &AppState,
    shutdown: &CancellationToken,
) -> Result<Option<(SocketAddr, Server)>, StartError> {
    let Some(wanted) = config.server.agent_listen else {
        return Ok(None);
    };
    let listen_error = |source| StartError::AgentListen {
        addr: wanted,
        source,
    };
    let tcp = TcpListener::bind(wanted).await.map_err(listen_error)?;
    let bound = tcp.local_addr().map_err(listen_error)?;
    let app = api::app_on(state.clone(), Listener::AgentTcp(bound));
    tracing::info!(event = "agent_tcp_listening", addr = %bound);
    Ok(Some((bound, spawn_tcp(tcp, app, shutdown.clone()))))
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn accepted_connections_send_without_waiting_for_acks() {
        use axum::serve::Listener;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut listener = super::no_delay(listener);
        let (_client, (accepted, _)) =
            tokio::join!(tokio::net::TcpStream::connect(addr), listener.accept());
        assert!(
            accepted.nodelay().unwrap(),
            "Nagle is off on the pane's socket"
        );
    }
}
