//! The CDP gate: accepts connections on the published port, answers `/<secret>/ready`, and
//! serves `/<secret>/devtools/browser` as a CDP WebSocket of its own, carried to Chrome by the
//! [`Hub`] over Chrome's pipe. Chrome itself listens nowhere. A thread per connection, and one
//! more per WebSocket to write what the hub queues for it.
//!
//! Never logs a request path (it carries the secret).

use crate::http::{self, Route};
use crate::hub::{self, Client, Hub, Refused, ToClient};
use crate::ws::{self, Incoming};
use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// How long a client may take to send its whole request head (not each read: a byte every few
/// seconds must not hold one of the [`MAX_CONNECTIONS`] slots for hours).
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; more get 503 so a flood cannot exhaust threads.
const MAX_CONNECTIONS: usize = 128;

/// What every connection handler shares.
pub struct Gate {
    pub secret: String,
    pub hub: Arc<Hub>,
    active: AtomicUsize,
}

impl Gate {
    pub fn new(secret: String, hub: Arc<Hub>) -> Gate {
        Gate {
            secret,
            hub,
            active: AtomicUsize::new(0),
        }
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
    let (buf, head_len) = match read_head(&mut client, HEAD_TIMEOUT)? {
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
        Route::Ready if gate.hub.is_ready() => respond(&client, 200, "OK", "ready\n"),
        Route::Ready => respond(&client, 503, "Service Unavailable", "starting\n"),
        Route::Browser => {
            if !gate.hub.is_ready() {
                event!(
                    "request_refused",
                    "peer={peer} status=503 reason=chrome_not_ready"
                );
                return respond(&client, 503, "Service Unavailable", "starting\n");
            }
            let answer = match http::accept_upgrade(&head) {
                Ok(answer) => answer,
                Err(why) => {
                    event!("request_refused", "peer={peer} status=400 reason=\"{why}\"");
                    return respond(&client, 400, "Bad Request", &format!("{why}\n"));
                }
            };
            let cdp = match gate.hub.connect() {
                Some(cdp) => cdp,
                None => {
                    event!(
                        "request_refused",
                        "peer={peer} status=502 reason=chrome_gone"
                    );
                    return respond(&client, 502, "Bad Gateway", "chrome is gone\n");
                }
            };
            client.write_all(answer.as_bytes())?;
            client.set_read_timeout(None)?;
            // CDP is chatty small messages (input events, acks): never wait to coalesce them.
            client.set_nodelay(true)?;
            event!("cdp_opened", "peer={peer} client={}", cdp.id);
            // Bytes the client sent after its head are its first frames.
            let early = buf[head_len..].to_vec();
            let id = cdp.id;
            let result = serve_websocket(client, early, cdp, &gate.hub);
            gate.hub.disconnect(id);
            event!("cdp_closed", "peer={peer} client={id}");
            result
        }
    }
}

/// Carries one WebSocket client's CDP to and from the hub until either side ends.
fn serve_websocket(client: TcpStream, early: Vec<u8>, cdp: Client, hub: &Hub) -> io::Result<()> {
    let writer = client.try_clone()?;
    let sender = cdp.sender.clone();
    let id = cdp.id;
    let write_thread = thread::Builder::new()
        .name("gate-ws-write".into())
        .spawn(move || write_websocket(writer, cdp))?;
    let mut reader = BufReader::with_capacity(64 * 1024, io::Cursor::new(early).chain(&client));
    let mut messages = ws::Reassembler::default();
    let result = loop {
        match messages.read(&mut reader) {
            Ok(Incoming::Message(message)) => match hub.send_to_chrome(id, &message) {
                Ok(()) => {}
                Err(Refused::Invalid(reply)) => {
                    let _ = sender.send(ToClient::Message(Arc::new(reply)));
                }
                Err(Refused::Lost) => break Ok(()),
            },
            Ok(Incoming::Ping(payload)) => {
                let _ = sender.send(ToClient::Pong(payload));
            }
            // Skipped, never sent to Chrome: answered for its id when its head names one.
            Ok(Incoming::TooLarge { head, bytes }) => {
                event!("client_message_skipped", "client={id} bytes={bytes}");
                if let Some(call) = hub::head_id(&head) {
                    let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
                    if let Refused::Invalid(reply) = hub::too_large(call, bytes, "the message") {
                        let _ = sender.send(ToClient::Message(Arc::new(reply)));
                    }
                }
            }
            Ok(Incoming::Close(_)) => break Ok(()),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    // Tells the writer to send a close frame and stop.
    let _ = sender.send(ToClient::Close);
    drop(sender);
    let _ = write_thread.join();
    let _ = client.shutdown(Shutdown::Both);
    result
}

/// Writes what the hub queues for a client as WebSocket frames; a close ends the connection
/// (which also wakes the reader).
fn write_websocket(stream: TcpStream, cdp: Client) {
    let mut out = io::BufWriter::with_capacity(64 * 1024, &stream);
    while let Some(item) = cdp.next() {
        let written = match &item {
            ToClient::Message(message) => ws::write_frame(&mut out, ws::OP_TEXT, message),
            ToClient::Pong(payload) => ws::write_frame(&mut out, ws::OP_PONG, payload),
            ToClient::Close => {
                let _ = ws::write_frame(&mut out, ws::OP_CLOSE, &1000u16.to_be_bytes());
                let _ = out.flush();
                break;
            }
        };
        // Flush only when nothing else waits, so a burst goes out in few writes.
        let flushed = if cdp.outbox_is_empty() {
            out.flush()
        } else {
            Ok(())
        };
        if written.is_err() || flushed.is_err() {
            break;
        }
    }
    drop(out);
    let _ = stream.shutdown(Shutdown::Both);
}

/// Reads until the end of the request head, all of it within `budget`. Returns the bytes read
/// and the head's length, or `None` when the head exceeds [`http::MAX_HEAD`]; a head still
/// unfinished when `budget` is spent is a `TimedOut` error.
fn read_head(stream: &mut TcpStream, budget: Duration) -> io::Result<Option<(Vec<u8>, usize)>> {
    let deadline = Instant::now() + budget;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(head_too_slow(budget));
        }
        // Each read may only wait for what is left of the whole head's time.
        stream.set_read_timeout(Some(left))?;
        let n = match stream.read(&mut chunk) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(head_too_slow(budget))
            }
            Err(e) => return Err(e),
        };
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

fn head_too_slow(budget: Duration) -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        format!("the request head took longer than {budget:?}"),
    )
}

fn respond(mut stream: &TcpStream, status: u16, reason: &str, body: &str) -> io::Result<()> {
    stream.write_all(http::simple_response(status, reason, body).as_bytes())?;
    let _ = stream.shutdown(Shutdown::Write);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connected pair on loopback: (the gate's end, the client's end).
    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        (server, client)
    }

    #[test]
    fn a_head_dribbled_a_byte_at_a_time_runs_out_of_its_total_time() {
        let (mut server, mut client) = pair();
        // Each byte well within any per-read wait; the client gives up after 20 s at most.
        let dribble = thread::spawn(move || {
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(20) {
                if client.write_all(b"G").is_err() {
                    return;
                }
                thread::sleep(Duration::from_millis(20));
            }
        });
        let error = read_head(&mut server, Duration::from_millis(300)).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
        drop(server);
        dribble.join().unwrap();
    }

    #[test]
    fn a_head_within_its_time_is_read_whole() {
        let (mut server, mut client) = pair();
        client
            .write_all(b"GET /s/ready HTTP/1.1\r\nHost: x\r\n\r\nextra")
            .unwrap();
        let (buf, len) = read_head(&mut server, Duration::from_secs(5))
            .unwrap()
            .unwrap();
        assert_eq!(&buf[len..], b"extra");
    }
}
