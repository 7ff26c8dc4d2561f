//! `porthole-sidecar cdp-pipe`: CDP on stdin/stdout, for a daemon that reaches the container
//! only through the Docker API (`docker exec`, DESIGN.md §14): nothing is published, and CDP
//! travels inside the engine connection (TLS or SSH for a remote engine).
//!
//! Run inside a running sidecar container (by `docker exec`, never as PID 1). It finds
//! Chrome's DevTools endpoint the way the gate does (`DevToolsActivePort` in the user-data dir
//! PID 1 gave Chrome, read from `/proc/1/cmdline`), waits for it up to a deadline, opens the
//! browser-level WebSocket on loopback, and relays: each NUL-terminated JSON message read on
//! stdin goes to Chrome as one text frame; each message from Chrome is written to stdout
//! followed by a NUL (Chromium's own `--remote-debugging-pipe` framing). It exits when either
//! side closes. Diagnostics go to stderr as `[sidecar] <event> …` lines.

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::chrome::{self, ActivePort};
use crate::closer;

/// Largest message relayed either way.
const MAX_MESSAGE: u64 = 256 * 1024 * 1024;

/// Runs the relay; returns the exit code.
pub fn run(wait: Duration) -> i32 {
    let dir = user_data_dir();
    let deadline = Instant::now() + wait;
    let active = loop {
        if let Some(active) = chrome::read_active_port(&dir) {
            break active;
        }
        if Instant::now() >= deadline {
            event!(
                "cdp_pipe_failed",
                "error=\"Chrome's DevTools did not come up within {wait:?} (no DevToolsActivePort in {})\"",
                dir.display()
            );
            return 1;
        }
        thread::sleep(Duration::from_millis(50));
    };
    match relay(&active) {
        Ok(()) => 0,
        Err(e) => {
            event!("cdp_pipe_failed", "error=\"{e}\"");
            1
        }
    }
}

/// The user-data dir PID 1 passed to Chrome (its arguments after `--`).
fn user_data_dir() -> PathBuf {
    let cmdline = std::fs::read("/proc/1/cmdline").unwrap_or_default();
    let args: Vec<String> = cmdline
        .split(|&b| b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let after = args
        .iter()
        .position(|a| a == "--")
        .map(|i| args[i + 1..].to_vec())
        .unwrap_or_default();
    chrome::build_command(&after).user_data_dir
}

fn relay(active: &ActivePort) -> io::Result<()> {
    let addr = SocketAddr::from(([127, 0, 0, 1], active.port));
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    writer.write_all(closer::handshake(active).as_bytes())?;
    let mut reader = BufReader::with_capacity(256 * 1024, stream);
    let mut status = String::new();
    reader.read_line(&mut status)?;
    if !status.starts_with("HTTP/1.1 101") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("DevTools refused the WebSocket upgrade: {}", status.trim()),
        ));
    }
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "DevTools closed the handshake",
            ));
        }
        if line == "\r\n" {
            break;
        }
    }
    event!("cdp_pipe_open", "port={}", active.port);
    let writer = Arc::new(Mutex::new(writer));
    {
        let writer = Arc::clone(&writer);
        thread::Builder::new().name("stdin".into()).spawn(move || {
            let result = stdin_to_chrome(&writer);
            let mut w = writer.lock().unwrap_or_else(|p| p.into_inner());
            // Tell Chrome we are done; then stop reading so the other loop ends too.
            let _ = w.write_all(&closer::masked_frame(0x8, &[], closer::mask_key()));
            let _ = w.shutdown(std::net::Shutdown::Both);
            if let Err(e) = result {
                event!("cdp_pipe_stdin_error", "error=\"{e}\"");
            }
        })?;
    }
    let result = chrome_to_stdout(&mut reader, &writer);
    event!("cdp_pipe_closed");
    result
}

/// Reads NUL-terminated messages from stdin and sends each as a text frame.
fn stdin_to_chrome(writer: &Mutex<TcpStream>) -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = BufReader::with_capacity(64 * 1024, stdin.lock());
    let mut message = Vec::new();
    loop {
        message.clear();
        if input.read_until(0, &mut message)? == 0 {
            return Ok(());
        }
        if message.last() == Some(&0) {
            message.pop();
        }
        if message.is_empty() {
            continue;
        }
        let frame = closer::text_frame(&message, closer::mask_key());
        writer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .write_all(&frame)?;
    }
}

/// Reads frames from Chrome; writes each whole message and a NUL to stdout, answers pings.
fn chrome_to_stdout(reader: &mut impl Read, writer: &Mutex<TcpStream>) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(256 * 1024, stdout.lock());
    let mut message = Vec::new();
    loop {
        let frame = match read_frame(reader) {
            Ok(frame) => frame,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        };
        match frame.opcode {
            0x0..=0x2 => {
                message.extend_from_slice(&frame.payload);
                if message.len() as u64 > MAX_MESSAGE {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "Chrome sent a message over 256 MiB",
                    ));
                }
                if frame.fin {
                    out.write_all(&message)?;
                    out.write_all(&[0])?;
                    out.flush()?;
                    message.clear();
                }
            }
            0x8 => return Ok(()),
            0x9 => {
                let pong = closer::masked_frame(0xA, &frame.payload, closer::mask_key());
                writer
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .write_all(&pong)?;
            }
            _ => {}
        }
    }
}

#[derive(Debug)]
struct Frame {
    fin: bool,
    opcode: u8,
    payload: Vec<u8>,
}

/// Reads one WebSocket frame (a server's frames are unmasked, but a mask is honoured).
fn read_frame(reader: &mut impl Read) -> io::Result<Frame> {
    let mut head = [0u8; 2];
    reader.read_exact(&mut head)?;
    let fin = head[0] & 0x80 != 0;
    let opcode = head[0] & 0x0f;
    let masked = head[1] & 0x80 != 0;
    let len = match head[1] & 0x7f {
        126 => {
            let mut b = [0u8; 2];
            reader.read_exact(&mut b)?;
            u64::from(u16::from_be_bytes(b))
        }
        127 => {
            let mut b = [0u8; 8];
            reader.read_exact(&mut b)?;
            u64::from_be_bytes(b)
        }
        n => u64::from(n),
    };
    if len > MAX_MESSAGE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "Chrome sent a frame over 256 MiB",
        ));
    }
    let mut mask = [0u8; 4];
    if masked {
        reader.read_exact(&mut mask)?;
    }
    let mut payload = vec![0u8; len as usize];
    reader.read_exact(&mut payload)?;
    if masked {
        for (i, b) in payload.iter_mut().enumerate() {
            *b ^= mask[i % 4];
        }
    }
    Ok(Frame {
        fin,
        opcode,
        payload,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server_frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mut frame = vec![if fin { 0x80 } else { 0 } | opcode];
        if payload.len() < 126 {
            frame.push(payload.len() as u8);
        } else if payload.len() <= 0xffff {
            frame.push(126);
            frame.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        } else {
            frame.push(127);
            frame.extend_from_slice(&(payload.len() as u64).to_be_bytes());
        }
        frame.extend_from_slice(payload);
        frame
    }

    #[test]
    fn reads_short_long_and_fragmented_frames() {
        let big = vec![b'y'; 70_000];
        let mut wire = server_frame(true, 1, b"{\"id\":1}");
        wire.extend(server_frame(false, 1, b"{\"a\":"));
        wire.extend(server_frame(true, 0, b"2}"));
        wire.extend(server_frame(true, 1, &big));
        let mut reader = &wire[..];
        let first = read_frame(&mut reader).unwrap();
        assert_eq!((first.fin, first.opcode), (true, 1));
        assert_eq!(first.payload, b"{\"id\":1}");
        let part = read_frame(&mut reader).unwrap();
        assert!(!part.fin);
        let rest = read_frame(&mut reader).unwrap();
        assert_eq!((rest.fin, rest.opcode), (true, 0));
        let long = read_frame(&mut reader).unwrap();
        assert_eq!(long.payload.len(), 70_000);
        assert_eq!(
            read_frame(&mut reader).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }

    #[test]
    fn client_frames_of_every_length_are_masked_and_read_back() {
        for len in [0usize, 125, 126, 65_535, 65_536, 200_000] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let frame = closer::masked_frame(1, &payload, [1, 2, 3, 4]);
            let read = read_frame(&mut &frame[..]).unwrap();
            assert_eq!(read.payload, payload, "length {len}");
        }
    }
}
