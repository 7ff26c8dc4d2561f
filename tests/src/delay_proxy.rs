//! A delaying TCP proxy for distance tests and `porthole-bench distance` (issue 22): accepts
//! on 127.0.0.1, forwards every connection to one target (the second dockerd's TLS port),
//! and holds each chunk `one_way` in each direction before passing it on — data kept in
//! order, nothing merged or dropped — so the daemon sees a remote engine `2 × one_way` of
//! round trip away. Optionally a bandwidth limit per direction and connection (a chunk leaves
//! no sooner than the previous one's bytes have drained at that rate).
//!
//! It counts on the wire the connections it accepts, the client's flights, and the depth of
//! what it relays within a window ([`depth`]: the longest chain of round trips each send could
//! have waited on).
//!
//! Everything runs on loopback; dropping the proxy closes the listener and every connection.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Instant;

pub mod depth;

use depth::{Depths, Ledger, Side};

/// How the link between the daemon and the target behaves.
#[derive(Debug, Clone, Copy, Default)]
pub struct Link {
    /// Added to each direction (round trip = 2 × this).
    pub one_way: Duration,
    /// Bytes per second per direction and connection; `None` for no limit.
    pub bytes_per_sec: Option<u64>,
}

impl Link {
    /// `ms` milliseconds each way, no bandwidth limit.
    pub fn delay_ms(ms: u64) -> Self {
        Self {
            one_way: Duration::from_millis(ms),
            bytes_per_sec: None,
        }
    }
}

/// A running proxy; dropping it stops it.
pub struct DelayProxy {
    /// Where to connect instead of the target.
    pub addr: SocketAddr,
    pub link: Link,
    /// Connections accepted so far (each a TCP connect and, to a TLS engine, a handshake).
    accepted: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// Client flights so far: data from the client after the target spoke (or first).
    flights: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The depth of what was relayed in the current window, over every connection.
    // A std mutex, held only to stamp or note a chunk, never across an await.
    ledger: Arc<Mutex<Ledger>>,
    task: tokio::task::JoinHandle<()>,
}

impl DelayProxy {
    /// Starts a proxy to `target` on a free port of 127.0.0.1.
    pub async fn start(target: SocketAddr, link: Link) -> Self {
        assert!(
            target.ip().is_loopback(),
            "the delay proxy forwards to loopback only, not {target}"
        );
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the delay proxy");
        let addr = listener.local_addr().expect("the proxy's address");
        let accepted = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let flights = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let (count, flight_count) = (accepted.clone(), flights.clone());
        let ledger: Arc<Mutex<Ledger>> = Arc::default();
        let wire = ledger.clone();
        let task = tokio::spawn(async move {
            // Owned here: aborting the accept loop drops every connection's tasks.
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((client, _)) = accepted else { continue };
                        let index = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let on = Wire { ledger: wire.clone(), connection: index as usize };
                        connections.spawn(relay(client, target, link, flight_count.clone(), on));
                    }
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
        });
        Self {
            addr,
            link,
            accepted,
            flights,
            ledger,
            task,
        }
    }

    /// Opens a new depth window: from now the depths count from zero (see [`depth`]).
    pub fn open_depth_window(&self) {
        self.ledger.lock().expect("ledger lock").open();
    }

    /// The current window's depths so far.
    pub fn depths(&self) -> Depths {
        self.ledger.lock().expect("ledger lock").depths()
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> u64 {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Client flights so far, over every connection: each time a client sent data first or
    /// after the target had answered. An HTTP/1.1 request on a connection is at least one (a
    /// client waits for a response before its next request); a TLS handshake is one or two.
    /// Read on the wire, whatever the client says it did.
    pub fn client_flights(&self) -> u64 {
        self.flights.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// `tcp://127.0.0.1:<port>` of the proxy (for `browser.docker.host`).
    pub fn docker_host(&self) -> String {
        format!("tcp://{}", self.addr)
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Parses `tcp://host:port` into an address.
pub fn tcp_addr(docker_host: &str) -> SocketAddr {
    docker_host
        .trim_start_matches("tcp://")
        .parse()
        .unwrap_or_else(|e| panic!("{docker_host} is not tcp://ip:port: {e}"))
}

/// Where a connection's chunks are noted: the proxy's ledger, and the connection's index.
#[derive(Clone)]
struct Wire {
    ledger: Arc<Mutex<Ledger>>,
    connection: usize,
}

impl Wire {
    fn read(&self, from: Side, bytes: usize) -> depth::Stamp {
        let mut ledger = self.ledger.lock().expect("ledger lock");
        ledger.read(self.connection, from, bytes)
    }

    fn delivered(&self, from: Side, stamp: depth::Stamp) {
        self.ledger
            .lock()
            .expect("ledger lock")
            .delivered(from, stamp);
    }
}

async fn relay(
    client: TcpStream,
    target: SocketAddr,
    link: Link,
    flights: Arc<AtomicU64>,
    wire: Wire,
) {
    let Ok(server) = TcpStream::connect(target).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    // Whether the target spoke last on this connection (true before anyone spoke).
    let turn = Arc::new(AtomicBool::new(true));
    let client_turn = Turn {
        target_spoke: turn.clone(),
        flights: Some(flights),
    };
    let server_turn = Turn {
        target_spoke: turn,
        flights: None,
    };
    tokio::join!(
        direction(
            client_read,
            server_write,
            link,
            client_turn,
            (Side::Client, &wire)
        ),
        direction(
            server_read,
            client_write,
            link,
            server_turn,
            (Side::Engine, &wire)
        ),
    );
}

/// Who spoke last on a connection: the client's side counts a flight when it speaks after
/// the target; the target's side notes that it spoke.
struct Turn {
    target_spoke: Arc<AtomicBool>,
    /// The proxy's flight count, on the client's side only.
    flights: Option<Arc<AtomicU64>>,
}

impl Turn {
    fn spoke(&self) {
        match &self.flights {
            Some(flights) => {
                if self.target_spoke.swap(false, Ordering::SeqCst) {
                    flights.fetch_add(1, Ordering::SeqCst);
                }
            }
            None => self.target_spoke.store(true, Ordering::SeqCst),
        }
    }
}

/// One direction: a reader stamps each chunk with when it may leave (and its depth); a writer
/// sends it then (and notes its delivery).
async fn direction(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    link: Link,
    turn: Turn,
    (side, wire): (Side, &Wire),
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>, depth::Stamp)>();
    let reader = async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    turn.spoke();
                    let stamp = wire.read(side, n);
                    if tx
                        .send((Instant::now() + link.one_way, buf[..n].to_vec(), stamp))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
        // Dropping tx ends the writer once every chunk has left.
    };
    let writer = async move {
        let mut drained = Instant::now();
        while let Some((due, chunk, stamp)) = rx.recv().await {
            let mut leave = due;
            if let Some(rate) = link.bytes_per_sec.filter(|r| *r > 0) {
                let cost = Duration::from_secs_f64(chunk.len() as f64 / rate as f64);
                drained = drained.max(Instant::now()) + cost;
                leave = leave.max(drained);
            }
            tokio::time::sleep_until(leave).await;
            if to.write_all(&chunk).await.is_err() {
                return;
            }
            wire.delivered(side, stamp);
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(reader, writer);
}

/// `engine` reached through `proxy` instead of directly (same TLS files: the engine's
/// certificate names 127.0.0.1, which the proxy's address is too).
pub fn via(
    engine: &crate::remote::RemoteEngine,
    proxy: &DelayProxy,
) -> crate::remote::RemoteEngine {
    crate::remote::RemoteEngine {
        host: proxy.docker_host(),
        ..engine.clone()
    }
}
