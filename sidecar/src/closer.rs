//! Clean Chrome shutdown over its own DevTools WebSocket: one `Browser.close` call.
//!
//! Verified on Debian Chromium 150 `--headless=new`: SIGTERM ends Chrome within ~60 ms but
//! flushes nothing (a cookie set just before is gone on the next start, and the `Singleton*`
//! locks stay behind), while `Browser.close` writes the profile and removes the locks in
//! ~0.4 s. So shutdown asks with `Browser.close` first and uses signals only as a fallback.

use crate::chrome::ActivePort;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The one message sent. Its id is arbitrary: nothing else travels on this connection.
const CLOSE_MESSAGE: &[u8] = br#"{"id":1,"method":"Browser.close"}"#;
/// Base64 of the 16 bytes "porthole-sidecar": a valid `Sec-WebSocket-Key`.
const WS_KEY: &str = "cG9ydGhvbGUtc2lkZWNhcg==";

/// Sends `Browser.close` to Chrome and waits (up to `timeout`) for its answer or for Chrome to
/// drop the connection. `Ok` means Chrome took the command; its exit is reaped elsewhere.
pub fn browser_close(active: &ActivePort, timeout: Duration) -> io::Result<()> {
    let addr = SocketAddr::from(([127, 0, 0, 1], active.port));
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.write_all(handshake(active).as_bytes())?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk)?;
        if n == 0 || buf.len() > 8192 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "DevTools closed the handshake",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    if !buf.starts_with(b"HTTP/1.1 101") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "DevTools refused the WebSocket upgrade",
        ));
    }
    stream.write_all(&text_frame(CLOSE_MESSAGE, mask_key()))?;
    // Chrome answers `{"id":1,"result":{}}` and then drops the socket as it exits. Either one
    // (or the timeout) ends the wait; by then the command is in.
    let _ = stream.read(&mut chunk);
    Ok(())
}

pub fn handshake(active: &ActivePort) -> String {
    format!(
        "GET {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: {WS_KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n",
        active.browser_path, active.port
    )
}

/// A client-to-server WebSocket text frame (FIN, opcode 1, masked).
pub fn text_frame(payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    masked_frame(0x1, payload, mask)
}

/// A client-to-server WebSocket frame (FIN set, masked) of any length.
pub fn masked_frame(opcode: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(payload.len() + 14);
    frame.push(0x80 | opcode);
    if payload.len() < 126 {
        frame.push(0x80 | payload.len() as u8);
    } else if payload.len() <= 0xffff {
        frame.push(0x80 | 126);
        frame.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    } else {
        frame.push(0x80 | 127);
        frame.extend_from_slice(&(payload.len() as u64).to_be_bytes());
    }
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    frame
}

/// A mask key that varies between runs, as RFC 6455 asks (it guards proxies, not secrets).
pub fn mask_key() -> [u8; 4] {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0x5eed_1234);
    (nanos ^ std::process::id().rotate_left(16)).to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_frame_is_masked_and_sized() {
        let frame = text_frame(b"Hello", [0x37, 0xfa, 0x21, 0x3d]);
        // RFC 6455 section 5.7's masked "Hello" example.
        assert_eq!(
            frame,
            [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        );
        let long = vec![b'x'; 300];
        let frame = text_frame(&long, [0; 4]);
        assert_eq!(&frame[..4], &[0x81, 0x80 | 126, 0x01, 0x2c]);
        assert_eq!(frame.len(), 2 + 2 + 4 + 300);
    }

    #[test]
    fn handshake_targets_the_browser_endpoint() {
        let active = ActivePort {
            port: 41234,
            browser_path: "/devtools/browser/abc".into(),
        };
        let h = handshake(&active);
        assert!(h.starts_with("GET /devtools/browser/abc HTTP/1.1\r\nHost: 127.0.0.1:41234\r\n"));
        assert!(h.contains("Sec-WebSocket-Key: cG9ydGhvbGUtc2lkZWNhcg==\r\n"));
        assert!(!h.to_ascii_lowercase().contains("origin"));
        assert!(h.ends_with("\r\n\r\n"));
    }

    #[test]
    fn close_message_is_the_cdp_call() {
        assert_eq!(CLOSE_MESSAGE.len(), 33);
        assert!(CLOSE_MESSAGE.len() < 126);
    }
}
