//! The CDP gate: accepts connections on the published port, answers `/<secret>/ready`, and
//! splices `/<secret>/devtools/browser` WebSockets through to Chrome's loopback DevTools port.
//! A thread per connection, and one more per direction while a connection is forwarded.
//!
//! Never logs a request path (it carries the secret).

use crate::chrome::{self, ActivePort};
use crate::http::{self, Route};
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the readiness probe and the forward dial wait for Chrome's port.
const DIAL_TIMEOUT: Duration = Duration::from_millis(500);
/// Connections served at once; more get 503 so a flood cannot exhaust threads.
const MAX_CONNECTIONS: usize = 128;

/// What every connection handler shares.
pub struct Gate {
    pub secret: String,
    pub user_data_dir: PathBuf,
    /// Set once shutdown starts: `ready` turns 503 and no new browser connection is forwarded.
    pub stopping: AtomicBool,
    active: AtomicUsize,
}

impl Gate {
    pub fn new(secret: String, user_data_dir: PathBuf) -> Gate {
        Gate {
            secret,
            user_data_dir,
            stopping: AtomicBool::new(false),
            active: AtomicUsize::new(0),
        }
    }

    /// Chrome's endpoint once `DevToolsActivePort` exists and its port accepts a connection.
    pub fn chrome_ready(&self) -> Option<ActivePort> {
        if self.stopping.load(Ordering::SeqCst) {
            return None;
        }
        let active = chrome::read_active_port(&self.user_data_dir)?;
        let addr = SocketAddr::from(([127, 0, 0, 1], active.port));
        TcpStream::connect_timeout(&addr, DIAL_TIMEOUT).ok()?;
        Some(active)
    }
}

/// Accepts connections until the process exits.
pub fn serve(listener: TcpListener, gate: Arc<Gate>) {
    for conn in listener.incoming() {
        let stream = match conn {
            Ok(stream) => stream,
            Err(e) => {
                event!("accept_failed", "error=\"{e}\"");
                thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let peer = stream
            .peer_addr()
            .map(|a| a.to_string())
            .unwrap_or_else(|_| "?".into());
        if gate.active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            gate.active.fetch_sub(1, Ordering::SeqCst);
            event!(
                "request_refused",
                "peer={peer} status=503 reason=too_many_connections"
            );
            let _ = respond(&stream, 503, "Service Unavailable", "busy\n");
            continue;
        }
        let gate = Arc::clone(&gate);
        let spawned = thread::Builder::new()
            .name("gate-conn".into())
            .spawn(move || {
                if let Err(e) = handle(stream, &gate, &peer) {
                    event!("connection_error", "peer={peer} error=\"{e}\"");
                }
                gate.active.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            event!("spawn_failed", "error=\"{e}\"");
        }
    }
}

fn handle(mut client: TcpStream, gate: &Gate, peer: &str) -> io::Result<()> {
    client.set_read_timeout(Some(HEAD_TIMEOUT))?;
    let (buf, head_len) = match read_head(&mut client)? {
        Some(read) => read,
        None => {
            event!("request_refused", "peer={peer} status=431");
            return respond(
                &client,
                431,
                "Request Header Fields Too Large",
                "head too large\n",
            );
        }
    };
    let head = match http::parse_head(&buf[..head_len]) {
        Some(head) => head,
        None => {
            event!("request_refused", "peer={peer} status=400");
            return respond(&client, 400, "Bad Request", "bad request\n");
        }
    };
    match http::route(&head, &gate.secret) {
        Route::Forbidden => {
            event!("request_refused", "peer={peer} status=403");
            respond(&client, 403, "Forbidden", "forbidden\n")
        }
        Route::NotFound => {
            event!(
                "request_refused",
                "peer={peer} status=404 method={}",
                head.method
            );
            respond(&client, 404, "Not Found", "not found\n")
        }
        Route::Ready => match gate.chrome_ready() {
            Some(_) => respond(&client, 200, "OK", "ready\n"),
            None => respond(&client, 503, "Service Unavailable", "starting\n"),
        },
        Route::Browser => {
            let active = match gate.chrome_ready() {
                Some(active) => active,
                None => {
                    event!(
                        "request_refused",
                        "peer={peer} status=503 reason=chrome_not_ready"
                    );
                    return respond(&client, 503, "Service Unavailable", "starting\n");
                }
            };
            let addr = SocketAddr::from(([127, 0, 0, 1], active.port));
            let mut chrome = match TcpStream::connect_timeout(&addr, DIAL_TIMEOUT) {
                Ok(chrome) => chrome,
                Err(e) => {
                    event!("request_refused", "peer={peer} status=502 error=\"{e}\"");
                    return respond(&client, 502, "Bad Gateway", "chrome unreachable\n");
                }
            };
            let rewritten = http::rewrite_for_chrome(&head, &active.browser_path, active.port);
            chrome.write_all(rewritten.as_bytes())?;
            // Bytes the client sent after its head belong to Chrome too.
            chrome.write_all(&buf[head_len..])?;
            client.set_read_timeout(None)?;
            event!("cdp_opened", "peer={peer}");
            let (up, down) = splice(client, chrome)?;
            event!("cdp_closed", "peer={peer} bytes_up={up} bytes_down={down}");
            Ok(())
        }
    }
}

/// Reads until the end of the request head. Returns the bytes read and the head's length, or
/// `None` when the head exceeds [`http::MAX_HEAD`].
fn read_head(stream: &mut TcpStream) -> io::Result<Option<(Vec<u8>, usize)>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "closed before the request head ended",
            ));
        }
        // Only the tail can complete the terminator: search from just before the new bytes.
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(len) = http::head_len(&buf[from..]) {
            return Ok(Some((buf, from + len)));
        }
        if buf.len() > http::MAX_HEAD {
            return Ok(None);
        }
    }
}

fn respond(mut stream: &TcpStream, status: u16, reason: &str, body: &str) -> io::Result<()> {
    stream.write_all(http::simple_response(status, reason, body).as_bytes())?;
    let _ = stream.shutdown(Shutdown::Write);
    Ok(())
}

/// Pipes bytes both ways until both directions end; returns (client→chrome, chrome→client).
///
/// The client's clean EOF is passed on as a half-close, so a WebSocket close handshake can
/// finish. Anything else ending a direction (Chrome closing, an error, a reset) closes both
/// sockets fully, which also wakes the other direction's blocked read.
fn splice(client: TcpStream, chrome: TcpStream) -> io::Result<(u64, u64)> {
    // CDP is chatty small messages (input events, acks): never wait to coalesce them.
    client.set_nodelay(true)?;
    chrome.set_nodelay(true)?;
    let client_r = client.try_clone()?;
    let chrome_w = chrome.try_clone()?;
    let up = thread::Builder::new()
        .name("gate-up".into())
        .spawn(move || {
            let (n, clean_eof) = pipe(&client_r, &chrome_w);
            if clean_eof {
                let _ = chrome_w.shutdown(Shutdown::Write);
            } else {
                let _ = client_r.shutdown(Shutdown::Both);
                let _ = chrome_w.shutdown(Shutdown::Both);
            }
            n
        })?;
    let (down, _) = pipe(&chrome, &client);
    let _ = client.shutdown(Shutdown::Both);
    let _ = chrome.shutdown(Shutdown::Both);
    let up = up.join().unwrap_or(0);
    Ok((up, down))
}

/// Copies `from` to `to` until EOF or an error. Returns the bytes copied and whether it ended
/// on a clean EOF from `from`.
fn pipe(mut from: &TcpStream, mut to: &TcpStream) -> (u64, bool) {
    let mut buf = [0u8; 16 * 1024];
    let mut total = 0u64;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return (total, true),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return (total, false),
        };
        if to.write_all(&buf[..n]).is_err() {
            return (total, false);
        }
        total += n as u64;
    }
}
