//! A pane client: one WebSocket to the daemon, with the JSON messages and frames it received.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, Notify};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// What a pane has received so far.
#[derive(Default)]
pub struct Received {
    pub messages: Vec<Value>,
    pub frames: Vec<Vec<u8>>,
    /// When each of `frames` arrived (same order, same length).
    pub frame_times: Vec<std::time::Instant>,
    /// How many of `messages` had arrived before each of `frames` (same order, same length).
    pub frame_after_messages: Vec<usize>,
    pub frame_count: usize,
    pub closed: Option<String>,
}

/// How long a browser start may take before a test gives up: a sidecar container in docker
/// mode beside the image-build test has taken over 30 s on a 2-core machine running the whole
/// suite, and so has a local Chromium (its own start stalled for 30 s there).
pub const BROWSER_START: Duration = Duration::from_secs(90);

/// A pane connected to a daemon.
pub struct Pane {
    out: mpsc::UnboundedSender<Message>,
    pub received: Arc<Mutex<Received>>,
    changed: Arc<Notify>,
    /// When false the pane stops reading the socket (a "slow" pane).
    reading: Arc<tokio::sync::watch::Sender<bool>>,
}

impl Pane {
    /// Connects with the token as a Bearer header.
    pub async fn connect(addr: &str, token: &str) -> Self {
        let mut request = format!("ws://{addr}/api/ws/browser")
            .into_client_request()
            .expect("request");
        request.headers_mut().insert(
            "Authorization",
            format!("Bearer {token}").parse().expect("header"),
        );
        Self::connect_request(request).await.expect("pane connects")
    }

    /// Connects with a prepared request (to test refusals).
    pub async fn connect_request(
        request: tokio_tungstenite::tungstenite::handshake::client::Request,
    ) -> Result<Self, tokio_tungstenite::tungstenite::Error> {
        // No Nagle delay on small writes (input events), as a browser's WebSocket.
        let (socket, _) = tokio_tungstenite::connect_async_with_config(request, None, true).await?;
        let (mut sink, mut stream) = socket.split();
        let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            while let Some(message) = out_rx.recv().await {
                if sink.send(message).await.is_err() {
                    break;
                }
            }
        });
        let received = Arc::new(Mutex::new(Received::default()));
        let changed = Arc::new(Notify::new());
        let (reading, mut reading_rx) = tokio::sync::watch::channel(true);
        let (r, c) = (received.clone(), changed.clone());
        tokio::spawn(async move {
            loop {
                while !*reading_rx.borrow_and_update() {
                    if reading_rx.changed().await.is_err() {
                        return;
                    }
                }
                let Some(message) = stream.next().await else {
                    r.lock().unwrap().closed = Some("eof".into());
                    c.notify_waiters();
                    return;
                };
                {
                    let mut r = r.lock().unwrap();
                    match message {
                        Ok(Message::Text(text)) => r
                            .messages
                            .push(serde_json::from_str(&text).expect("daemon sends JSON")),
                        Ok(Message::Binary(bytes)) => {
                            r.frame_count += 1;
                            r.frames.push(bytes.to_vec());
                            r.frame_times.push(std::time::Instant::now());
                            let before = r.messages.len();
                            r.frame_after_messages.push(before);
                            if r.frames.len() > 8 {
                                r.frames.remove(0);
                                r.frame_times.remove(0);
                                r.frame_after_messages.remove(0);
                            }
                        }
                        Ok(Message::Close(frame)) => {
                            r.closed = Some(
                                frame
                                    .map(|f| format!("{} {}", u16::from(f.code), f.reason))
                                    .unwrap_or_default(),
                            );
                        }
                        Err(e) => r.closed = Some(format!("error: {e}")),
                        _ => {}
                    }
                }
                c.notify_waiters();
            }
        });
        Ok(Self {
            out,
            received,
            changed,
            reading: Arc::new(reading),
        })
    }

    pub fn send(&self, message: Value) {
        let _ = self.out.send(Message::text(message.to_string()));
    }

    pub fn send_raw(&self, message: Message) {
        let _ = self.out.send(message);
    }

    /// Sends an input event.
    pub fn input(&self, input_type: &str, mut fields: Value) {
        fields["type"] = json!("input");
        fields["input_type"] = json!(input_type);
        self.send(fields);
    }

    /// A left click at `(x, y)` (CSS px of the page): the button pressed and released there,
    /// one click. The pointer does not move there first; [`Pane::hover`] does that.
    pub fn click(&self, (x, y): (f64, f64)) {
        for kind in ["mousedown", "mouseup"] {
            self.input(
                kind,
                json!({"x": x, "y": y, "button": "left", "click_count": 1}),
            );
        }
    }

    /// The pointer moved to `(x, y)` with no button held.
    pub fn hover(&self, (x, y): (f64, f64)) {
        self.input("mousemove", json!({"x": x, "y": y, "button": "none"}));
    }

    /// `key` pressed and released: `code` names the physical key, `modifiers` is CDP's
    /// bitmask (Alt 1, Ctrl 2, Meta 4, Shift 8).
    pub fn key(&self, key: &str, code: &str, modifiers: u8) {
        for kind in ["keydown", "keyup"] {
            self.input(
                kind,
                json!({"key": key, "code": code, "modifiers": modifiers}),
            );
        }
    }

    /// Stops or resumes reading (a slow pane stops reading).
    pub fn set_reading(&self, reading: bool) {
        self.reading.send_replace(reading);
    }

    /// Waits until `check` finds something in what was received.
    pub async fn wait<T>(
        &self,
        what: &str,
        deadline: Duration,
        check: impl Fn(&Received) -> Option<T>,
    ) -> T {
        let end = tokio::time::Instant::now() + deadline;
        loop {
            let notified = self.changed.notified();
            {
                let received = self.received.lock().unwrap();
                if let Some(value) = check(&received) {
                    return value;
                }
            }
            if tokio::time::timeout_at(end, notified).await.is_err() {
                let received = self.received.lock().unwrap();
                panic!(
                    "timed out after {deadline:?} waiting for {what}; got {} frames and messages: {:#?}",
                    received.frame_count,
                    received.messages.iter().rev().take(12).collect::<Vec<_>>()
                );
            }
        }
    }

    /// Waits for the first message (after `skip` messages) of `kind`; returns it. A
    /// `started` gets as long as [`Pane::start`] gives a browser start.
    pub async fn next_of(&self, kind: &str, skip: usize) -> Value {
        let deadline = if kind == "started" {
            BROWSER_START
        } else {
            Duration::from_secs(30)
        };
        self.wait(&format!("a {kind:?} message"), deadline, |r| {
            r.messages
                .iter()
                .skip(skip)
                .find(|m| m["type"] == kind)
                .cloned()
        })
        .await
    }

    /// Waits for a message matching `check`, among those after `skip`.
    pub async fn message_where(
        &self,
        what: &str,
        skip: usize,
        check: impl Fn(&Value) -> bool,
    ) -> Value {
        self.wait(what, Duration::from_secs(30), |r| {
            r.messages.iter().skip(skip).find(|m| check(m)).cloned()
        })
        .await
    }

    /// Like `message_where` with its own deadline, `None` when none came in time.
    pub async fn message_within(
        &self,
        deadline: Duration,
        skip: usize,
        check: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        let end = tokio::time::Instant::now() + deadline;
        loop {
            let notified = self.changed.notified();
            if let Some(found) = self
                .received
                .lock()
                .unwrap()
                .messages
                .iter()
                .skip(skip)
                .find(|m| check(m))
            {
                return Some(found.clone());
            }
            if tokio::time::timeout_at(end, notified).await.is_err() {
                return None;
            }
        }
    }

    /// How many JSON messages have arrived (a mark for `next_of`).
    pub fn mark(&self) -> usize {
        self.received.lock().unwrap().messages.len()
    }

    pub fn frame_count(&self) -> usize {
        self.received.lock().unwrap().frame_count
    }

    /// Waits until at least `n` frames arrived in total; returns the newest.
    pub async fn frames_at_least(&self, n: usize) -> Vec<u8> {
        self.wait(&format!("{n} frames"), Duration::from_secs(30), |r| {
            (r.frame_count >= n).then(|| r.frames.last().cloned().unwrap_or_default())
        })
        .await
    }

    /// Starts a channel and waits for `started`; returns the active target id from `tabs`.
    pub async fn start(&self, channel: &str) -> String {
        let mark = self.mark();
        self.send(json!({"type": "start", "channel_id": channel, "width": 800, "height": 600}));
        let started = self
            .wait("a \"started\" message", BROWSER_START, |r| {
                r.messages
                    .iter()
                    .skip(mark)
                    .find(|m| m["type"] == "started")
                    .cloned()
            })
            .await;
        assert_eq!(started["channel_id"], channel);
        let tabs = self.next_of("tabs", mark).await;
        tabs["active_target_id"]
            .as_str()
            .expect("active tab")
            .to_string()
    }

    /// Starts a channel whose start must fail; returns the `error`. It gets as long as a
    /// start does: a refusal can come after the start's slow steps (a docker daemon's first
    /// start probes the sandbox before it creates the container).
    pub async fn start_refused(&self, channel: &str) -> Value {
        let mark = self.mark();
        self.send(json!({"type": "start", "channel_id": channel}));
        self.wait("an \"error\" message", BROWSER_START, |r| {
            r.messages
                .iter()
                .skip(mark)
                .find(|m| m["type"] == "error")
                .cloned()
        })
        .await
    }

    /// Sends `screencast` and waits for the first frame.
    pub async fn watch(&self) -> Vec<u8> {
        let before = self.frame_count();
        self.send(json!({"type": "screencast", "quality": 60}));
        self.frames_at_least(before + 1).await
    }

    /// Navigates the active tab to `url` and waits for its `page_info` titled `title`.
    pub async fn open_page(&self, url: &str, title: &str) -> Value {
        let mark = self.mark();
        self.send(json!({"type": "navigate", "url": url}));
        self.title_is(mark, title).await
    }

    /// Waits for a `page_info` titled `title` among the messages after `mark`; returns it.
    pub async fn title_is(&self, mark: usize, title: &str) -> Value {
        self.message_where(&format!("the page {title:?}"), mark, |m| {
            m["type"] == "page_info" && m["title"] == title
        })
        .await
    }

    /// Waits until the newest `page_info` of all is titled `title` (for a page whose title
    /// says its state, when an earlier state had the same title).
    pub async fn newest_title_is(&self, title: &str) {
        self.wait(
            &format!("the title {title:?}"),
            Duration::from_secs(30),
            |r| {
                let info = r.messages.iter().rev().find(|m| m["type"] == "page_info")?;
                (info["title"] == title).then_some(())
            },
        )
        .await;
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        // Close the socket like a browser tab closing: the daemon sees the pane leave.
        let _ = self.out.send(Message::Close(None));
        self.reading.send_replace(true);
    }
}
