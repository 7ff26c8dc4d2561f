//! A reader of the daemon's `GET /api/events` (Server-Sent Events), as a desktop app would hold
//! it: one connection kept open, its chunked body de-chunked and cut into events by a task of
//! its own, every event kept in order. Dropping the reader closes the connection.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long a wait for an event may take.
const WAIT: Duration = Duration::from_secs(20);

/// One event of the stream.
#[derive(Debug, Clone)]
pub struct StreamEvent {
    /// Its `event:` name.
    pub name: String,
    /// Its `data:` as JSON (Null when it is not JSON).
    pub data: Value,
}

/// An open `/api/events` stream.
pub struct EventStream {
    /// Every event received, in order.
    events: Arc<Mutex<Vec<StreamEvent>>>,
    /// The task reading the connection.
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// The answer to a request for the stream that was refused: status and body.
#[derive(Debug)]
pub struct Refused {
    pub status: u16,
    pub body: String,
}

impl EventStream {
    /// Opens the stream on the daemon at `addr` with `headers` (an `Authorization`, an
    /// `Origin` …); a refusal is the status and body.
    pub async fn open(addr: &str, headers: &[(&str, &str)]) -> Result<Self, Refused> {
        let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let mut request =
            format!("GET /api/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).await.expect("write");
        // The head, up to the blank line.
        let mut buffer = Vec::new();
        let head_end = loop {
            if let Some(end) = find(&buffer, b"\r\n\r\n") {
                break end;
            }
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.expect("read");
            assert!(n > 0, "the daemon closed the stream before its head");
            buffer.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
        let status: u16 = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status");
        let rest = buffer[head_end + 4..].to_vec();
        if status != 200 {
            let mut body = rest;
            let _ =
                tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut body)).await;
            return Err(Refused {
                status,
                body: String::from_utf8_lossy(&body).to_string(),
            });
        }
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: text/event-stream"),
            "{head}"
        );
        let events = Arc::new(Mutex::new(Vec::new()));
        let kept = events.clone();
        let reader = tokio::spawn(async move {
            let mut chunked = Dechunker::new(rest);
            let mut text = String::new();
            loop {
                while let Some(data) = chunked.next_chunk() {
                    text.push_str(&String::from_utf8_lossy(&data));
                    while let Some(end) = text.find("\n\n") {
                        let block: String = text.drain(..end + 2).collect();
                        if let Some(event) = parse(&block) {
                            kept.lock().unwrap().push(event);
                        }
                    }
                }
                let mut chunk = [0u8; 4096];
                match stream.read(&mut chunk).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => chunked.push(&chunk[..n]),
                }
            }
        });
        Ok(Self { events, reader })
    }

    /// How many events arrived so far (a mark for [`Self::next_of`]).
    pub fn mark(&self) -> usize {
        self.events.lock().unwrap().len()
    }

    /// Every event so far.
    pub fn all(&self) -> Vec<StreamEvent> {
        self.events.lock().unwrap().clone()
    }

    /// The first event named `name` after the first `skip` events; panics after a while.
    pub async fn next_of(&self, name: &str, skip: usize) -> Value {
        crate::Poll::new(&format!("an event {name:?} on /api/events"), WAIT)
            .explained(
                || async {
                    self.events
                        .lock()
                        .unwrap()
                        .iter()
                        .skip(skip)
                        .find(|e| e.name == name)
                        .map(|e| e.data.clone())
                },
                || async { Some(format!("{:?}", self.all())) },
            )
            .await
    }
}

/// One SSE block (lines up to a blank line) as an event; comments alone are none.
fn parse(block: &str) -> Option<StreamEvent> {
    let mut name = String::from("message");
    let mut data = Vec::new();
    let mut any = false;
    for line in block.lines() {
        if let Some(value) = line.strip_prefix("event:") {
            name = value.trim().to_string();
            any = true;
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push(value.strip_prefix(' ').unwrap_or(value).to_string());
            any = true;
        }
    }
    any.then(|| StreamEvent {
        name,
        data: serde_json::from_str(&data.join("\n")).unwrap_or(Value::Null),
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// HTTP/1.1 chunked transfer decoding, fed as bytes arrive.
struct Dechunker {
    buffer: Vec<u8>,
}

impl Dechunker {
    fn new(start: Vec<u8>) -> Self {
        Self { buffer: start }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// The next whole chunk's data, when it has arrived.
    fn next_chunk(&mut self) -> Option<Vec<u8>> {
        let line_end = find(&self.buffer, b"\r\n")?;
        let size_text = String::from_utf8_lossy(&self.buffer[..line_end]).to_string();
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        let start = line_end + 2;
        if self.buffer.len() < start + size + 2 {
            return None;
        }
        let data = self.buffer[start..start + size].to_vec();
        self.buffer.drain(..start + size + 2);
        Some(data)
    }
}
