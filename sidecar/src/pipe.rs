//! `porthole-sidecar cdp-pipe`: CDP on stdin/stdout, for a daemon that reaches the container
//! only through the Docker API (`docker exec`, DESIGN.md §14): nothing is published, and CDP
//! travels inside the engine connection (TLS or SSH for a remote engine).
//!
//! Run inside a running sidecar container (by `docker exec`, never as PID 1). It connects to
//! PID 1's CDP Unix socket (see `socket`; waiting for it up to a deadline while the container
//! starts) and copies bytes both ways: the framing on the socket is already Chrome's own
//! `--remote-debugging-pipe` framing (JSON and a NUL), which is what the daemon speaks on the
//! exec stream. It exits when either side closes. Diagnostics go to stderr as
//! `[sidecar] <event> …` lines.
//!
//! Before relaying, it asks Chrome for its version itself and says `cdp_pipe_ready` on stderr
//! once Chrome answered: the daemon learns that the browser answers from the exec's own
//! output, with no request of its own (one round trip less for an engine far away). The
//! daemon's commands sent meanwhile wait in stdin and follow the probe.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

/// Runs the relay; returns the exit code.
pub fn run(socket: &Path, wait: Duration) -> i32 {
    let deadline = Instant::now() + wait;
    let stream = loop {
        match UnixStream::connect(socket) {
            Ok(stream) => break stream,
            Err(e) if Instant::now() >= deadline => {
                event!(
                    "cdp_pipe_failed",
                    "error=\"the sidecar's CDP socket {} did not answer within {wait:?}: {e}\"",
                    socket.display()
                );
                return 1;
            }
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    };
    event!("cdp_pipe_open", "socket={}", socket.display());
    match probe_then_relay(stream) {
        Ok(()) => {
            event!("cdp_pipe_closed");
            0
        }
        Err(e) => {
            event!("cdp_pipe_failed", "error=\"{e}\"");
            1
        }
    }
}

/// The relay's own command: its id is the relay's alone (the hub gives each client's commands
/// fresh ids on Chrome's pipe and answers with the client's own).
const PROBE: &[u8] = b"{\"id\":-1,\"method\":\"Browser.getVersion\"}\0";
/// How its reply starts (the hub writes the client's id back where Chrome had its own).
const PROBE_REPLY: &[u8] = b"{\"id\":-1,";

/// Sends [`PROBE`], then relays; says `cdp_pipe_ready` when the probe's reply arrives (which
/// is not passed on; anything before it is).
fn probe_then_relay(stream: UnixStream) -> io::Result<()> {
    (&stream).write_all(PROBE)?;
    relay(stream)
}

/// stdin → socket on a thread (its end half-closes the socket), socket → stdout here (after
/// the probe's reply, read message by message); returns when the socket side ends.
fn relay(stream: UnixStream) -> io::Result<()> {
    let to_socket = stream.try_clone()?;
    thread::Builder::new().name("stdin".into()).spawn(move || {
        let stdin = io::stdin();
        let copied = copy_flushing(&mut stdin.lock(), &mut &to_socket);
        let _ = to_socket.shutdown(Shutdown::Write);
        if let Err(e) = copied {
            event!("cdp_pipe_stdin_error", "error=\"{e}\"");
        }
    })?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut from_socket = BufReader::with_capacity(256 * 1024, &stream);
    if !until_probe_reply(&mut from_socket, &mut out)? {
        return Ok(());
    }
    // What the reader holds already goes first.
    let held = from_socket.buffer().to_vec();
    out.write_all(&held)?;
    out.flush()?;
    copy_flushing(&mut &stream, &mut out)
}

/// Passes messages on until the probe's reply, which it drops; says `cdp_pipe_ready` (or
/// `cdp_pipe_probe_failed` with Chrome's error). False when the socket ended first.
fn until_probe_reply(from: &mut impl BufRead, to: &mut impl Write) -> io::Result<bool> {
    let mut message = Vec::new();
    loop {
        message.clear();
        if from.read_until(0, &mut message)? == 0 {
            return Ok(false);
        }
        if message.starts_with(PROBE_REPLY) {
            if message.windows(9).any(|w| w == b"\"result\":") {
                event!("cdp_pipe_ready");
            } else {
                let text = String::from_utf8_lossy(&message);
                event!(
                    "cdp_pipe_probe_failed",
                    "reply={:?}",
                    text.trim_end_matches('\0')
                );
            }
            return Ok(true);
        }
        to.write_all(&message)?;
        to.flush()?;
    }
}

/// Copies until end of file, writing each chunk as soon as it is read (CDP is small messages
/// that must not wait for a buffer to fill).
fn copy_flushing(from: &mut impl Read, to: &mut impl Write) -> io::Result<()> {
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..n])?;
        to.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::until_probe_reply;

    #[test]
    fn the_probe_reply_is_dropped_and_what_came_before_it_passed_on() {
        let from_chrome: &[u8] =
            b"{\"method\":\"Target.targetCreated\",\"params\":{}}\0{\"id\":-1,\"result\":{\"product\":\"x\"}}\0{\"id\":1,\"result\":{}}\0";
        let mut reader = std::io::BufReader::new(from_chrome);
        let mut out = Vec::new();
        assert!(until_probe_reply(&mut reader, &mut out).unwrap());
        assert_eq!(
            out,
            b"{\"method\":\"Target.targetCreated\",\"params\":{}}\0"
        );
        // The daemon's own reply is left for the relay.
        assert_eq!(reader.buffer(), b"{\"id\":1,\"result\":{}}\0");
    }

    #[test]
    fn a_socket_that_ends_before_the_reply_ends_the_relay() {
        let mut reader = std::io::BufReader::new(&b"{\"id\":7,\"result\":{}}\0"[..]);
        let mut out = Vec::new();
        assert!(!until_probe_reply(&mut reader, &mut out).unwrap());
        assert_eq!(out, b"{\"id\":7,\"result\":{}}\0");
    }
}
