//! The CDP connection actor: one task owns one connection to Chrome — a WebSocket, or the
//! pipe of a Chromium started with `--remote-debugging-pipe` (see [`super::transport`]).
//!
//! Callers hold a cloneable [`CdpConnection`] and send commands through it; replies are matched
//! by id, every call has a deadline, and a dead socket turns every pending and later call into
//! [`CdpError::Lost`]. A reply over the cap (`browser.cdp_message_max_mb`) fails its own call
//! with [`CdpError::TooLarge`] and nothing else; an event over it is dropped and logged.
//! Events are published on a broadcast channel with their flat-session id.
//! Unknown fields and unknown events are ignored. Dropping the last handle closes the socket
//! (or the pipe).
//! This module knows nothing about tabs, screencasts or channels.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::net::unix::pipe;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_util::sync::CancellationToken;

use super::error::CdpError;
use super::tally::Waiting;
use super::transport::{Frame, Transport, MAX_MESSAGE_BYTES};
use super::trim::Trims;

/// Default deadline of a CDP call.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(15);
/// How many events a slow subscriber may fall behind before it starts missing them.
const EVENT_BUFFER: usize = 512;

/// One event sent by Chrome.
#[derive(Debug, Clone)]
pub struct CdpEvent {
    /// E.g. `Page.screencastFrame`.
    pub method: String,
    /// The event's parameters, as sent.
    pub params: Arc<Value>,
    /// The flat session the event belongs to; `None` for browser-level events.
    pub session_id: Option<String>,
    /// When its message was read whole from Chrome (before parsing).
    pub received: std::time::Instant,
}

/// A reply and when its message was read whole from Chrome (the same clock as
/// [`CdpEvent::received`], so a caller can put replies and events back in Chrome's order).
type Replied = (Result<Value, CdpError>, std::time::Instant);

struct Command {
    method: String,
    params: Value,
    session_id: Option<String>,
    reply: oneshot::Sender<Replied>,
}

/// A cloneable handle to the actor that owns one connection (WebSocket or pipe) to Chrome.
#[derive(Clone)]
pub struct CdpConnection {
    commands: mpsc::UnboundedSender<Command>,
    events: broadcast::Sender<CdpEvent>,
    /// Why the actor stopped, once it has (shared so every handle can report it).
    lost: Arc<Mutex<Option<String>>>,
    /// Cancelled by the actor when the socket is gone.
    gone: CancellationToken,
    /// Which events lose their long strings before they are published.
    trims: Arc<Trims>,
    url: Arc<str>,
}

impl std::fmt::Debug for CdpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CdpConnection")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl CdpConnection {
    /// Opens the WebSocket at `url` (a `ws://…/devtools/browser/<id>` endpoint) and spawns the
    /// actor that owns it.
    pub async fn connect(url: &str, deadline: Duration) -> Result<Self, CdpError> {
        let limit = MAX_MESSAGE_BYTES.max(crate::bounds::get().cdp_message_max_bytes);
        let mut config = WebSocketConfig::default();
        config.max_message_size = Some(limit);
        config.max_frame_size = Some(limit);
        let connect = tokio_tungstenite::connect_async_with_config(url, Some(config), false);
        let (socket, _) = tokio::time::timeout(deadline, connect)
            .await
            .map_err(|_| CdpError::Connect {
                url: url.to_string(),
                reason: format!("no answer within {deadline:?}"),
            })?
            .map_err(|e| CdpError::Connect {
                url: url.to_string(),
                reason: e.to_string(),
            })?;
        Ok(Self::spawn(Transport::websocket(socket), url))
    }

    /// Speaks CDP over the pipes of a Chromium started with `--remote-debugging-pipe`:
    /// `to_chrome` is the write end of the pipe Chrome reads as its fd 3, `from_chrome` the
    /// read end of the one it writes as its fd 4. `name` stands in for a URL (`url()`), e.g.
    /// `pipe://chromium/<pid>`; it should be unique while the browser runs.
    pub(crate) fn over_pipe(
        to_chrome: pipe::Sender,
        from_chrome: pipe::Receiver,
        name: &str,
    ) -> Self {
        Self::spawn(Transport::pipe(to_chrome, from_chrome), name)
    }

    /// Speaks NUL-framed CDP (as on Chromium's pipe) over `writer` and a stream of byte
    /// chunks from the browser, e.g. a `docker exec` of `porthole-sidecar cdp-pipe` carried
    /// inside the Docker API connection. `name` stands in for a URL, as for [`Self::over_pipe`];
    /// an `Err` chunk ends the connection with that reason.
    pub fn over_byte_stream(
        writer: std::pin::Pin<Box<dyn tokio::io::AsyncWrite + Send>>,
        chunks: super::transport::Chunks,
        name: &str,
    ) -> Self {
        Self::spawn(Transport::byte_stream(writer, chunks), name)
    }

    fn spawn(transport: Transport, url: &str) -> Self {
        let (commands, receiver) = mpsc::unbounded_channel();
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let lost = Arc::new(Mutex::new(None));
        let gone = CancellationToken::new();
        let trims = Arc::new(Trims::default());
        let actor = Actor {
            events: events.clone(),
            lost: lost.clone(),
            gone: gone.clone(),
            trims: trims.clone(),
            pending: HashMap::new(),
            next_id: 1,
        };
        tokio::spawn(actor.run(transport, receiver));
        Self {
            commands,
            events,
            lost,
            gone,
            trims,
            url: url.into(),
        }
    }

    /// From now on, events `methods` (a method, or a whole domain written `Network.`) reach
    /// subscribers with strings cut to `max_bytes` and arrays to 100 items: for events whose
    /// every reader keeps short records, so a page's megabyte URLs or log lines are never
    /// held whole in the event buffer (see [`super::trim`]).
    pub(crate) fn trim_events(&self, methods: &[&str], max_bytes: usize) {
        for method in methods {
            self.trims.add(method, max_bytes);
        }
    }

    /// The endpoint this connection was opened on (for a pipe, the name it was given).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Subscribes to every event Chrome sends from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<CdpEvent> {
        self.events.subscribe()
    }

    /// True once the socket (or pipe) is gone.
    pub fn is_lost(&self) -> bool {
        self.gone.is_cancelled()
    }

    /// Resolves when the socket is gone.
    pub async fn lost(&self) {
        self.gone.cancelled().await
    }

    /// Why the socket is gone, if it is.
    pub(crate) fn lost_reason(&self) -> Option<String> {
        self.lost.lock().expect("lost reason lock").clone()
    }

    /// Sends a command without waiting for its reply (e.g. screencast frame acks).
    pub fn fire(&self, method: &str, params: Value, session_id: Option<&str>) {
        let (reply, _) = oneshot::channel();
        Waiting::fired();
        let _ = self.commands.send(Command {
            method: method.to_string(),
            params,
            session_id: session_id.map(str::to_string),
            reply,
        });
    }

    /// Calls a browser-level method with the default deadline.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, CdpError> {
        self.call_with(method, params, None, DEFAULT_DEADLINE).await
    }

    /// Calls a method on a flat session (a tab attached with `Target.attachToTarget`).
    pub async fn call_on(
        &self,
        session_id: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        self.call_with(method, params, Some(session_id), DEFAULT_DEADLINE)
            .await
    }

    /// Calls `method` and waits at most `deadline` for the reply.
    pub async fn call_with(
        &self,
        method: &str,
        params: Value,
        session_id: Option<&str>,
        deadline: Duration,
    ) -> Result<Value, CdpError> {
        let _waiting = Waiting::start();
        let answer = self.send(method, params, session_id)?;
        match tokio::time::timeout(deadline, answer).await {
            Ok(Ok((result, _))) => result,
            Ok(Err(_)) => Err(self.lost_error()),
            Err(_) => Err(CdpError::Timeout {
                method: method.to_string(),
                deadline,
            }),
        }
    }

    /// [`Self::call_with`], with when the reply was read from Chrome (for a failure before
    /// any reply: when it failed), on the clock of [`CdpEvent::received`].
    pub(crate) async fn call_received(
        &self,
        method: &str,
        params: Value,
        session_id: Option<&str>,
        deadline: Duration,
    ) -> Replied {
        let _waiting = Waiting::start();
        let now = std::time::Instant::now;
        let answer = match self.send(method, params, session_id) {
            Ok(answer) => answer,
            Err(lost) => return (Err(lost), now()),
        };
        match tokio::time::timeout(deadline, answer).await {
            Ok(Ok(replied)) => replied,
            Ok(Err(_)) => (Err(self.lost_error()), now()),
            Err(_) => (
                Err(CdpError::Timeout {
                    method: method.to_string(),
                    deadline,
                }),
                now(),
            ),
        }
    }

    /// Hands a command to the actor; its reply comes on the receiver.
    fn send(
        &self,
        method: &str,
        params: Value,
        session_id: Option<&str>,
    ) -> Result<oneshot::Receiver<Replied>, CdpError> {
        let (reply, answer) = oneshot::channel();
        let command = Command {
            method: method.to_string(),
            params,
            session_id: session_id.map(str::to_string),
            reply,
        };
        if self.commands.send(command).is_err() {
            return Err(self.lost_error());
        }
        Ok(answer)
    }

    fn lost_error(&self) -> CdpError {
        // Short lock, never held across an await.
        let reason = self.lost.lock().expect("lost reason lock").clone();
        CdpError::Lost {
            reason: reason.unwrap_or_else(|| "connection closed".to_string()),
        }
    }
}

/// What Chrome sends: a reply (with `id`) or an event (with `method`).
#[derive(Deserialize)]
struct Incoming {
    id: Option<u64>,
    method: Option<String>,
    #[serde(default)]
    params: Value,
    result: Option<Value>,
    error: Option<ProtocolError>,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

#[derive(Deserialize)]
struct ProtocolError {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<String>,
}

struct Pending {
    method: String,
    reply: oneshot::Sender<Replied>,
}

struct Actor {
    events: broadcast::Sender<CdpEvent>,
    lost: Arc<Mutex<Option<String>>>,
    gone: CancellationToken,
    trims: Arc<Trims>,
    pending: HashMap<u64, Pending>,
    next_id: u64,
}

impl Actor {
    async fn run(mut self, transport: Transport, mut commands: mpsc::UnboundedReceiver<Command>) {
        let Transport {
            outgoing: mut sink,
            incoming: mut stream,
        } = transport;
        let reason = loop {
            tokio::select! {
                command = commands.recv() => {
                    let Some(command) = command else {
                        let _ = sink.close().await;
                        break "every handle was dropped".to_string();
                    };
                    let id = self.next_id;
                    self.next_id += 1;
                    let mut message = json!({"id": id, "method": command.method, "params": command.params});
                    if let Some(session) = &command.session_id {
                        message["sessionId"] = json!(session);
                    }
                    if let Err(e) = sink.send(message.to_string()).await {
                        let reason = e.to_string();
                        let _ = command.reply.send((Err(CdpError::Lost { reason: reason.clone() }), std::time::Instant::now()));
                        break reason;
                    }
                    self.forget_abandoned();
                    let round = self.starts_round(&command.reply);
                    tracing::trace!(event = "cdp_command", id, method = %command.method, round);
                    self.pending.insert(id, Pending { method: command.method, reply: command.reply });
                }
                message = stream.next() => match message {
                    Some(Ok(Frame::Text(text))) => self.dispatch(&text),
                    Some(Ok(Frame::TooLarge { id, bytes })) => self.too_large(id, bytes),
                    Some(Err(reason)) => break reason.to_string(),
                    None => break "socket closed".to_string(),
                }
            }
        };
        tracing::debug!(event = "cdp_connection_closed", %reason);
        *self.lost.lock().expect("lost reason lock") = Some(reason.clone());
        commands.close();
        self.gone.cancel();
        for (_, pending) in self.pending.drain() {
            let _ = pending.reply.send((
                Err(CdpError::Lost {
                    reason: reason.clone(),
                }),
                std::time::Instant::now(),
            ));
        }
        // Commands queued after the socket died fail the same way.
        while let Ok(command) = commands.try_recv() {
            let _ = command.reply.send((
                Err(CdpError::Lost {
                    reason: reason.clone(),
                }),
                std::time::Instant::now(),
            ));
        }
    }

    fn dispatch(&mut self, text: &str) {
        let received = std::time::Instant::now();
        let Ok(mut incoming) = serde_json::from_str::<Incoming>(text) else {
            tracing::debug!(event = "cdp_unreadable_message", len = text.len());
            return;
        };
        if let Some(id) = incoming.id {
            let Some(pending) = self.pending.remove(&id) else {
                return;
            };
            let result = match incoming.error {
                Some(error) => Err(CdpError::Protocol {
                    method: pending.method,
                    code: error.code,
                    message: match error.data {
                        Some(data) if !data.is_empty() => format!("{} ({data})", error.message),
                        _ => error.message,
                    },
                }),
                None => Ok(incoming.result.unwrap_or(Value::Null)),
            };
            let _ = pending.reply.send((result, received));
        } else if let Some(method) = incoming.method {
            self.trims.apply(&method, text.len(), &mut incoming.params);
            // Nobody listening is fine: events nobody wants are dropped.
            let _ = self.events.send(CdpEvent {
                method,
                params: Arc::new(incoming.params),
                session_id: incoming.session_id,
                received,
            });
        }
    }

    /// A message over the cap was skipped: the call it answers fails, alone.
    fn too_large(&mut self, id: Option<u64>, bytes: usize) {
        let cap = crate::bounds::get().cdp_message_max_bytes;
        let Some(pending) = id.and_then(|id| self.pending.remove(&id)) else {
            tracing::warn!(
                event = "cdp_message_too_large",
                bytes,
                cap,
                "an event or unknown reply over the cap was dropped"
            );
            return;
        };
        tracing::warn!(event = "cdp_reply_too_large", method = %pending.method, bytes, cap);
        let _ = pending.reply.send((
            Err(CdpError::TooLarge {
                method: pending.method,
                bytes,
                cap,
            }),
            std::time::Instant::now(),
        ));
    }

    /// Whether a command about to be sent starts a new round: its caller waits and no other
    /// awaited reply is outstanding (over a slow link, each round is one round trip). Only
    /// traced; [`super::tally`] counts per tool call.
    fn starts_round(&self, reply: &oneshot::Sender<Replied>) -> bool {
        !reply.is_closed() && self.pending.values().all(|p| p.reply.is_closed())
    }

    /// Drops entries whose caller gave up (deadline passed) so the map cannot grow forever.
    fn forget_abandoned(&mut self) {
        if self.pending.len() > 64 {
            self.pending.retain(|_, pending| !pending.reply.is_closed());
        }
    }
}
