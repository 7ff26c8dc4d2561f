//! The two wires the CDP actor can speak over, behind one small seam: a sink of outgoing
//! message texts and a stream of incoming ones.
//!
//! - WebSocket (docker sidecars, the user's Chrome): one text frame per message.
//! - Pipe (`--remote-debugging-pipe`, local mode): Chrome reads commands on its fd 3 and writes
//!   replies and events on its fd 4, each message JSON followed by a NUL byte. No TCP port.
//! - Byte stream (docker mode on a remote engine): the same NUL framing over any writer and any
//!   stream of byte chunks, e.g. the stdin/stdout of a `docker exec` of `porthole-sidecar
//!   cdp-pipe`, carried inside the Docker API connection. Chunks split messages anywhere.
//!
//! A message over the cap (`browser.cdp_message_max_mb`, [`crate::bounds`]) is not kept: the
//! NUL-framed readers skip its bytes up to the next NUL, keeping only its head, and hand on
//! [`Frame::TooLarge`] with the id it answers, so the actor fails that one call and the
//! connection lives on. A WebSocket message up to [`MAX_MESSAGE_BYTES`] is read whole and
//! then dropped the same way; past that tungstenite cannot skip a frame, and the socket ends.
//!
//! Both streams are cancel-safe (the actor polls them inside `select!`): the WebSocket stream
//! by tungstenite's own contract, the pipe reader because its partial message lives in the
//! stream's state, not in the dropped `next()` future.

use std::pin::Pin;

use futures_util::{Sink, SinkExt, Stream, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio_tungstenite::tungstenite::Message;

/// The most a WebSocket message may be before the socket itself gives up (tungstenite's
/// limit; the cap of [`crate::bounds`] applies below it when set lower).
pub(super) const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// Bytes kept of a message over the cap: enough to read the id of the call it answers.
const HEAD_BYTES: usize = 64;

/// One message from the browser.
#[derive(Debug, PartialEq)]
pub(super) enum Frame {
    /// A whole message, as sent.
    Text(String),
    /// A message over the cap, not kept: the id of the call it answers (`None` for an event
    /// or a head that does not say) and its size.
    TooLarge { id: Option<u64>, bytes: usize },
}

/// Why a wire to the browser ended; the connection keeps the message as its lost reason.
#[derive(Debug, thiserror::Error)]
pub(super) enum WireError {
    /// A WebSocket message could not be sent.
    #[error("send failed: {0}")]
    Send(tokio_tungstenite::tungstenite::Error),
    /// The browser sent a close frame (with its reason, possibly empty).
    #[error("browser closed the socket ({0})")]
    SocketClosed(String),
    /// The WebSocket broke.
    #[error("socket error: {0}")]
    Socket(tokio_tungstenite::tungstenite::Error),
    /// Writing to Chrome's pipe failed.
    #[error("pipe write failed: {0}")]
    PipeWrite(std::io::Error),
    /// Writing to a byte stream failed.
    #[error("write failed: {0}")]
    Write(std::io::Error),
    /// Reading a pipe or byte stream failed (for a byte stream: the reason of its `Err` chunk).
    #[error("read failed: {0}")]
    Read(std::io::Error),
    /// The browser's end closed between messages.
    #[error("the browser closed its pipe")]
    PipeClosed,
    /// The browser's end closed inside a message.
    #[error("the browser closed its pipe mid-message")]
    PipeClosedMidMessage,
    /// A NUL-framed message was not UTF-8 (so not CDP's JSON).
    #[error("the browser sent a message that is not UTF-8")]
    NotUtf8,
}

/// One incoming message, or why the wire ended (then the stream is over).
pub(super) type Incoming = Pin<Box<dyn Stream<Item = Result<Frame, WireError>> + Send>>;
/// Outgoing message texts; an error says why the wire is unusable.
pub(super) type Outgoing = Pin<Box<dyn Sink<String, Error = WireError> + Send>>;
/// Byte chunks from the browser for a NUL-framed wire; an `Err` chunk ends the wire with its
/// reason.
pub(crate) type Chunks = Pin<Box<dyn Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send>>;

/// A connected wire to Chrome.
pub(super) struct Transport {
    pub(super) outgoing: Outgoing,
    pub(super) incoming: Incoming,
}

pub(super) type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

impl Transport {
    /// A WebSocket: text (or UTF-8 binary) frames are messages; a close frame ends the stream.
    pub(super) fn websocket(socket: Socket) -> Self {
        let (sink, stream) = socket.split();
        let outgoing = sink
            .with(|text: String| async move {
                Ok::<_, tokio_tungstenite::tungstenite::Error>(Message::text(text))
            })
            .sink_map_err(WireError::Send);
        let text_frame = |text: &[u8]| {
            let cap = crate::bounds::get().cdp_message_max_bytes;
            if text.len() > cap {
                return Some(Ok(Frame::TooLarge {
                    id: reply_id(&text[..text.len().min(HEAD_BYTES)]),
                    bytes: text.len(),
                }));
            }
            std::str::from_utf8(text)
                .ok()
                .map(|t| Ok(Frame::Text(t.to_string())))
        };
        let incoming = stream
            .filter_map(move |message| async move {
                match message {
                    Ok(Message::Text(text)) => text_frame(text.as_bytes()),
                    Ok(Message::Binary(bytes)) => text_frame(&bytes),
                    Ok(Message::Close(frame)) => Some(Err(WireError::SocketClosed(
                        frame.map(|f| f.reason.to_string()).unwrap_or_default(),
                    ))),
                    Ok(_) => None,
                    Err(e) => Some(Err(WireError::Socket(e))),
                }
            })
            // Nothing after a close or an error is read.
            .scan(false, |ended, item| {
                let out = if *ended { None } else { Some(item) };
                if matches!(out, Some(Err(_))) {
                    *ended = true;
                }
                futures_util::future::ready(out)
            });
        Self {
            outgoing: Box::pin(outgoing),
            incoming: Box::pin(incoming),
        }
    }

    /// Chrome's `--remote-debugging-pipe`: `to_chrome` is the write end of the pipe Chrome
    /// reads as fd 3, `from_chrome` the read end of the one it writes as fd 4.
    pub(super) fn pipe(to_chrome: pipe::Sender, from_chrome: pipe::Receiver) -> Self {
        let outgoing =
            futures_util::sink::unfold(to_chrome, |mut writer, text: String| async move {
                let mut bytes = text.into_bytes();
                bytes.push(0);
                writer
                    .write_all(&bytes)
                    .await
                    .map_err(WireError::PipeWrite)?;
                Ok::<_, WireError>(writer)
            });
        let reader = BufReader::with_capacity(64 * 1024, from_chrome);
        Self::nul_framed(Box::pin(outgoing), reader)
    }

    /// NUL-framed JSON over `writer` and a stream of byte chunks; `Err` items end the wire
    /// with their reason.
    pub(super) fn byte_stream(
        writer: Pin<Box<dyn tokio::io::AsyncWrite + Send>>,
        chunks: Chunks,
    ) -> Self {
        let outgoing = futures_util::sink::unfold(writer, |mut writer, text: String| async move {
            let mut bytes = text.into_bytes();
            bytes.push(0);
            writer.write_all(&bytes).await.map_err(WireError::Write)?;
            writer.flush().await.map_err(WireError::Write)?;
            Ok::<_, WireError>(writer)
        });
        let reader = tokio_util::io::StreamReader::new(chunks);
        Self::nul_framed(
            Box::pin(outgoing),
            BufReader::with_capacity(64 * 1024, reader),
        )
    }

    fn nul_framed<R>(outgoing: Outgoing, reader: BufReader<R>) -> Self
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
    {
        let incoming = futures_util::stream::unfold(Some(reader), |reader| async move {
            let mut reader = reader?;
            match read_message(&mut reader).await {
                Ok(text) => Some((Ok(text), Some(reader))),
                Err(reason) => Some((Err(reason), None)),
            }
        });
        Self {
            outgoing,
            incoming: Box::pin(incoming),
        }
    }
}

/// Reads one NUL-terminated message (empty ones are skipped); one over the cap is skipped to
/// its NUL and reported as [`Frame::TooLarge`].
async fn read_message<R: tokio::io::AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
) -> Result<Frame, WireError> {
    let cap = crate::bounds::get().cdp_message_max_bytes;
    let mut message = Vec::new();
    // Bytes of a message over the cap, counted instead of kept (its head stays in `message`).
    let mut skipped: Option<usize> = None;
    loop {
        let available = reader.fill_buf().await.map_err(WireError::Read)?;
        if available.is_empty() {
            return Err(if message.is_empty() {
                WireError::PipeClosed
            } else {
                WireError::PipeClosedMidMessage
            });
        }
        let end = available.iter().position(|&b| b == 0);
        let part = &available[..end.unwrap_or(available.len())];
        match skipped.as_mut() {
            Some(bytes) => *bytes += part.len(),
            None if message.len() + part.len() > cap => {
                let bytes = message.len() + part.len();
                let keep = HEAD_BYTES.saturating_sub(message.len()).min(part.len());
                message.extend_from_slice(&part[..keep]);
                message.truncate(HEAD_BYTES);
                message.shrink_to_fit();
                skipped = Some(bytes);
            }
            None => message.extend_from_slice(part),
        }
        let consumed = part.len() + usize::from(end.is_some());
        reader.consume(consumed);
        if end.is_none() {
            continue;
        }
        if let Some(bytes) = skipped {
            return Ok(Frame::TooLarge {
                id: reply_id(&message),
                bytes,
            });
        }
        if message.is_empty() {
            continue;
        }
        return String::from_utf8(message)
            .map(Frame::Text)
            .map_err(|_| WireError::NotUtf8);
    }
}

/// The id of the call a message answers, read from its head: Chrome writes a reply as
/// `{"id":<n>,…`, the id first; an event starts `{"method":…` and has none.
fn reply_id(head: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(head);
    let rest = text.trim_start().strip_prefix('{')?.trim_start();
    let rest = rest.strip_prefix("\"id\"")?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = rest[digits.len()..].trim_start();
    // A head cut inside the number cannot say which call it was.
    if !(after.starts_with(',') || after.starts_with('}')) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{json, Value};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::unix::pipe;

    use crate::cdp::{CdpConnection, CdpError};

    /// A connection on two pipes, and the far ends standing in for Chrome.
    fn fake_chrome() -> (CdpConnection, pipe::Receiver, pipe::Sender) {
        let (to_chrome, chrome_reads) = pipe::pipe().unwrap();
        let (chrome_writes, from_chrome) = pipe::pipe().unwrap();
        let cdp = CdpConnection::over_pipe(to_chrome, from_chrome, "pipe://test");
        (cdp, chrome_reads, chrome_writes)
    }

    /// Reads NUL-terminated commands until `n` have arrived.
    async fn read_commands(reader: &mut pipe::Receiver, n: usize) -> Vec<Value> {
        let mut bytes = Vec::new();
        let mut buf = [0u8; 4096];
        while bytes.iter().filter(|&&b| b == 0).count() < n {
            let read = reader.read(&mut buf).await.unwrap();
            assert!(read > 0, "pipe closed early");
            bytes.extend_from_slice(&buf[..read]);
        }
        bytes
            .split(|&b| b == 0)
            .filter(|m| !m.is_empty())
            .map(|m| serde_json::from_slice(m).unwrap())
            .collect()
    }

    #[tokio::test]
    async fn calls_and_events_travel_as_nul_terminated_json_split_anyhow() {
        let (cdp, mut chrome_reads, mut chrome_writes) = fake_chrome();
        let mut events = cdp.subscribe();
        let first = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call("Browser.getVersion", json!({})).await }
        });
        let second = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call_on("S1", "Runtime.evaluate", json!({"x": 1})).await }
        });
        let commands = read_commands(&mut chrome_reads, 2).await;
        let id_of = |method: &str| {
            commands
                .iter()
                .find(|c| c["method"] == method)
                .map(|c| c["id"].as_u64().unwrap())
                .unwrap()
        };
        let evaluate = commands
            .iter()
            .find(|c| c["method"] == "Runtime.evaluate")
            .unwrap();
        assert_eq!(evaluate["sessionId"], "S1");
        // Replies in reverse order, an event and an empty message between them, all in one
        // stream of bytes written in awkward pieces (a message split mid-way, two in one write).
        let wire = format!(
            "{}\0\0{}\0{}\0",
            json!({"id": id_of("Runtime.evaluate"), "result": {"v": "é"}}),
            json!({"method": "Page.loadEventFired", "params": {"t": 1}, "sessionId": "S1"}),
            json!({"id": id_of("Browser.getVersion"), "error": {"code": -32000, "message": "nope"}}),
        );
        let bytes = wire.as_bytes();
        for piece in [&bytes[..7], &bytes[7..30], &bytes[30..]] {
            chrome_writes.write_all(piece).await.unwrap();
            tokio::task::yield_now().await;
        }
        let second = second.await.unwrap().unwrap();
        assert_eq!(second["v"], "é");
        match first.await.unwrap() {
            Err(CdpError::Protocol { method, code, .. }) => {
                assert_eq!((method.as_str(), code), ("Browser.getVersion", -32000))
            }
            other => panic!("{other:?}"),
        }
        let event = events.recv().await.unwrap();
        assert_eq!(event.method, "Page.loadEventFired");
        assert_eq!(event.session_id.as_deref(), Some("S1"));
        assert_eq!(cdp.url(), "pipe://test");
    }

    #[tokio::test]
    async fn a_closed_pipe_turns_pending_and_later_calls_into_lost() {
        let (cdp, mut chrome_reads, chrome_writes) = fake_chrome();
        let pending = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call("Browser.getVersion", json!({})).await }
        });
        read_commands(&mut chrome_reads, 1).await;
        // Chrome exits: its write end closes.
        drop(chrome_writes);
        let error = pending.await.unwrap().unwrap_err();
        assert!(error.is_lost(), "{error:?}");
        tokio::time::timeout(Duration::from_secs(5), cdp.lost())
            .await
            .unwrap();
        assert!(cdp.is_lost());
        let later = cdp.call("Browser.getVersion", json!({})).await;
        assert!(matches!(later, Err(CdpError::Lost { .. })), "{later:?}");
        assert!(cdp.lost_reason().unwrap().contains("closed its pipe"));
    }

    #[tokio::test]
    async fn dropping_every_handle_closes_the_pipe_to_chrome() {
        let (cdp, mut chrome_reads, _chrome_writes) = fake_chrome();
        drop(cdp);
        let mut buf = [0u8; 16];
        let read = tokio::time::timeout(Duration::from_secs(5), chrome_reads.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(read, 0, "Chrome's fd 3 sees end of file");
    }

    #[tokio::test]
    async fn a_byte_stream_carries_calls_and_ends_with_the_streams_reason() {
        let (writer, mut chrome_reads) = tokio::io::duplex(64 * 1024);
        let (chunks_tx, chunks_rx) =
            tokio::sync::mpsc::unbounded_channel::<Result<bytes::Bytes, std::io::Error>>();
        let chunks = tokio_stream_from(chunks_rx);
        let cdp = CdpConnection::over_byte_stream(Box::pin(writer), chunks, "exec://test");
        let call = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call("Browser.getVersion", json!({})).await }
        });
        let mut sent = Vec::new();
        let mut buf = [0u8; 256];
        while !sent.contains(&0) {
            let n = chrome_reads.read(&mut buf).await.unwrap();
            assert!(n > 0);
            sent.extend_from_slice(&buf[..n]);
        }
        let command: Value = serde_json::from_slice(&sent[..sent.len() - 1]).unwrap();
        let reply = format!(
            "{}\0",
            json!({"id": command["id"], "result": {"product": "x"}})
        );
        let (a, b) = reply.as_bytes().split_at(5);
        chunks_tx
            .send(Ok(bytes::Bytes::copy_from_slice(a)))
            .unwrap();
        chunks_tx
            .send(Ok(bytes::Bytes::copy_from_slice(b)))
            .unwrap();
        assert_eq!(call.await.unwrap().unwrap()["product"], "x");
        chunks_tx
            .send(Err(std::io::Error::other("the exec ended")))
            .unwrap();
        tokio::time::timeout(Duration::from_secs(5), cdp.lost())
            .await
            .unwrap();
        assert!(cdp.lost_reason().unwrap().contains("the exec ended"));
    }

    #[tokio::test]
    async fn a_reply_over_the_cap_fails_its_call_only_and_the_pipe_lives_on() {
        let (cdp, mut chrome_reads, mut chrome_writes) = fake_chrome();
        let big = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call_on("S1", "Runtime.evaluate", json!({})).await }
        });
        let id = read_commands(&mut chrome_reads, 1).await[0]["id"].clone();
        let cap = crate::bounds::get().cdp_message_max_bytes;
        // A reply one byte over the cap, written in pieces, then an event.
        let head =
            format!("{{\"id\":{id},\"result\":{{\"result\":{{\"type\":\"string\",\"value\":\"");
        let tail = "\"}}}\0";
        let filler = vec![b'x'; cap + 1 - head.len() - (tail.len() - 1)];
        chrome_writes.write_all(head.as_bytes()).await.unwrap();
        for piece in filler.chunks(1 << 20) {
            chrome_writes.write_all(piece).await.unwrap();
        }
        chrome_writes.write_all(tail.as_bytes()).await.unwrap();
        let mut events = cdp.subscribe();
        let event = json!({"method": "Page.loadEventFired", "params": {}, "sessionId": "S1"});
        chrome_writes
            .write_all(format!("{event}\0").as_bytes())
            .await
            .unwrap();
        match big.await.unwrap() {
            Err(CdpError::TooLarge {
                method,
                bytes,
                cap: c,
            }) => {
                assert_eq!(
                    (method.as_str(), bytes, c),
                    ("Runtime.evaluate", cap + 1, cap)
                );
                let text = CdpError::TooLarge {
                    method,
                    bytes,
                    cap: c,
                }
                .to_string();
                assert!(text.contains("browser.cdp_message_max_mb"), "{text}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(events.recv().await.unwrap().method, "Page.loadEventFired");
        // The connection is not lost: the next call is answered.
        let next = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call("Browser.getVersion", json!({})).await }
        });
        let id = read_commands(&mut chrome_reads, 1).await[0]["id"].clone();
        let reply = json!({"id": id, "result": {"product": "ok"}});
        chrome_writes
            .write_all(format!("{reply}\0").as_bytes())
            .await
            .unwrap();
        assert_eq!(next.await.unwrap().unwrap()["product"], "ok");
        assert!(!cdp.is_lost());
    }

    #[test]
    fn reply_ids_come_from_the_head_of_a_reply_only() {
        use super::reply_id;
        assert_eq!(reply_id(br#"{"id":42,"result":{"x"#), Some(42));
        assert_eq!(reply_id(br#" { "id" : 7 }"#), Some(7));
        assert_eq!(reply_id(br#"{"method":"Network.x","params":{"id":3"#), None);
        // Cut inside the number: unknown, never a wrong call.
        assert_eq!(reply_id(br#"{"id":12"#), None);
        assert_eq!(reply_id(b""), None);
    }

    fn tokio_stream_from(
        mut rx: tokio::sync::mpsc::UnboundedReceiver<Result<bytes::Bytes, std::io::Error>>,
    ) -> super::Chunks {
        Box::pin(futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx)))
    }
}
