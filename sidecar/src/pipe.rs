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

use std::io::{self, Read, Write};
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
    match relay(stream) {
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

/// stdin → socket on a thread (its end half-closes the socket), socket → stdout here; returns
/// when the socket side ends.
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
    copy_flushing(&mut &stream, &mut out)
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
