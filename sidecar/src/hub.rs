//! The one CDP connection to Chrome — its `--remote-debugging-pipe` (commands in on Chrome's
//! fd 3, replies and events out on fd 4, each message JSON and a NUL) — shared by every client
//! of the sidecar: the daemon's WebSocket through the gate, a test's probe, `cdp-pipe`'s Unix
//! socket. Chrome sees a single client, so this module does what Chrome does for separate
//! DevTools connections:
//!
//! - **Ids**: each command gets a fresh id on the pipe; the reply goes back to the client that
//!   sent it, with the client's own id.
//! - **Sessions**: a flat session belongs to the client whose `Target.attachToTarget` made it
//!   (its `Target.attachedToTarget` event comes before the reply, so the attach is remembered
//!   by target id), a child session to its parent's owner, a browser-level auto-attach to the
//!   client that turned auto-attach on. Events of a session, and its `attachedToTarget` /
//!   `detachedFromTarget`, go to that owner only — another client's detach must never read as
//!   a closed tab. A session nobody is known to own is everybody's. A command on another
//!   client's session (its own `sessionId`, or the one `Target.detachFromTarget` /
//!   `Target.sendMessageToTarget` names) is refused with an error for its id.
//! - **Browser-level events** (targets created, downloads…) go to every client.
//! - **A client that leaves** has its sessions detached, as Chrome does when a socket closes,
//!   so a screencast it ran stops and nothing is left streaming to nobody.
//!
//! - **A message over [`MAX_MESSAGE`]** is skipped, never kept and never the end of anything:
//!   one from Chrome (a huge `evaluate` result) fails only the call it answers, with an error
//!   for that client's id; one from a client is answered with an error for its id and never
//!   reaches Chrome. The connection, and every other client, lives on.
//!
//! Framing belongs to the callers (`proxy` frames for WebSocket, `socket` with NULs): a client
//! is a queue of [`ToClient`]. Locks are short and never held across a blocking read; the
//! writer lock is always taken before the state lock.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use crate::json;

/// Largest message read from Chrome or a client (the daemon's own WebSocket limit, less room
/// for the id the hub writes back in place of its own).
pub const MAX_MESSAGE: usize = 256 * 1024 * 1024 - 1024;
/// Bytes kept of a message over [`MAX_MESSAGE`]: enough to read the id it carries.
pub const HEAD_BYTES: usize = 64;
/// Bytes a client may have queued and unread before it is dropped (it stopped reading).
const MAX_QUEUED: usize = 512 * 1024 * 1024;

/// A client's number, unique for the life of the hub.
pub type ClientId = u64;

/// What the hub hands a client's writer.
#[derive(Debug)]
pub enum ToClient {
    /// One CDP message (JSON text, no framing).
    Message(Arc<Vec<u8>>),
    /// A WebSocket pong (queued by the client's own reader, so writes stay on one thread).
    Pong(Vec<u8>),
    /// Close the connection: Chrome is gone, or the client fell too far behind.
    Close,
}

/// A client's end: its number, and the queue its writer drains.
pub struct Client {
    pub id: ClientId,
    pub outbox: Receiver<ToClient>,
    /// For the client's own reader (pongs, a close it answers).
    pub sender: Sender<ToClient>,
    queued: Arc<AtomicUsize>,
}

impl Client {
    /// Takes one item off the queue (blocking); `None` once the hub let go of the client.
    pub fn next(&self) -> Option<ToClient> {
        let item = self.outbox.recv().ok()?;
        if let ToClient::Message(message) = &item {
            self.queued.fetch_sub(message.len(), Ordering::SeqCst);
        }
        Some(item)
    }

    /// Whether no message waits in the queue (the writer may flush now).
    pub fn outbox_is_empty(&self) -> bool {
        self.queued.load(Ordering::SeqCst) == 0
    }
}

/// Who receives a session's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Client(ClientId),
    /// Nobody known: every client.
    All,
    /// Its client left; it is being detached and its last words go nowhere.
    Gone,
}

/// What a reply on the pipe answers.
#[derive(Debug)]
enum Pending {
    Client {
        client: ClientId,
        /// The client's own id, as the raw JSON it sent.
        id: Vec<u8>,
        attach: bool,
    },
    /// The hub's first call: its answer means Chrome is up.
    Version,
    /// Anything else the hub asked for itself (detaches, `Browser.close`).
    Internal,
}

/// A `Target.attachToTarget` whose `attachedToTarget` event has not arrived yet.
struct Attach {
    /// The target id; empty for `Target.attachToBrowserTarget`.
    target: String,
    call: u64,
    client: ClientId,
}

struct Outbox {
    sender: Sender<ToClient>,
    queued: Arc<AtomicUsize>,
}

#[derive(Default)]
struct State {
    clients: HashMap<ClientId, Outbox>,
    next_client: ClientId,
    next_call: u64,
    pending: HashMap<u64, Pending>,
    sessions: HashMap<String, Owner>,
    attaches: Vec<Attach>,
    auto_attach: Option<ClientId>,
    lost: bool,
}

/// Why a client's message was not sent to Chrome.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not a CDP command; the reply to send back (JSON).
    Invalid(Vec<u8>),
    /// Chrome's pipe is gone.
    Lost,
}

/// The shared connection to Chrome.
pub struct Hub {
    to_chrome: Mutex<File>,
    state: Mutex<State>,
    ready: AtomicBool,
    /// Set once shutdown starts: the gate reports not ready and takes no new clients.
    pub stopping: AtomicBool,
    started: Instant,
}

impl Hub {
    /// A hub writing to Chrome's fd 3 through `to_chrome`; start [`Hub::read_from_chrome`] on a
    /// thread of its own and call [`Hub::probe`].
    pub fn new(to_chrome: File, started: Instant) -> Hub {
        Hub {
            to_chrome: Mutex::new(to_chrome),
            state: Mutex::new(State {
                next_call: 1,
                ..State::default()
            }),
            ready: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            started,
        }
    }

    /// Asks Chrome for its version; the answer marks it ready (`chrome_ready` in the log).
    pub fn probe(&self) -> io::Result<()> {
        self.internal("Browser.getVersion", "{}", Pending::Version)
    }

    /// Whether Chrome has answered on the pipe and the sidecar is not shutting down.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst) && !self.stopping.load(Ordering::SeqCst)
    }

    /// Whether Chrome has ever answered (shutdown aside).
    pub fn chrome_answered(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    /// Sends `Browser.close` (Chrome flushes the profile and exits).
    pub fn browser_close(&self) -> io::Result<()> {
        self.internal("Browser.close", "{}", Pending::Internal)
    }

    /// A new client; `None` once Chrome's pipe is gone.
    pub fn connect(&self) -> Option<Client> {
        let (sender, outbox) = channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let mut state = self.state();
        if state.lost {
            return None;
        }
        state.next_client += 1;
        let id = state.next_client;
        state.clients.insert(
            id,
            Outbox {
                sender: sender.clone(),
                queued: Arc::clone(&queued),
            },
        );
        Some(Client {
            id,
            outbox,
            sender,
            queued,
        })
    }

    /// Sends a client's command to Chrome under a fresh id.
    pub fn send_to_chrome(&self, client: ClientId, message: &[u8]) -> Result<(), Refused> {
        // Chrome's pipe ends a message at a NUL; valid JSON never holds a raw one.
        if message.contains(&0) {
            return Err(invalid(b"null", "a NUL byte, which JSON never contains"));
        }
        let fields = json::fields(message).ok_or_else(|| invalid(b"null", "not a JSON object"))?;
        let field = |key: &str| {
            fields
                .iter()
                .find(|(k, _)| *k == key.as_bytes())
                .map(|(_, span)| span.clone())
        };
        let id_span = field("id").ok_or_else(|| invalid(b"null", "no id"))?;
        let id = &message[id_span.clone()];
        let method = field("method")
            .and_then(|span| json::string(&message[span]))
            .ok_or_else(|| invalid(id, "no method"))?;
        let top_session = field("sessionId").map(|span| &message[span]);
        let browser_level = top_session.is_none();
        let params = field("params").map(|span| &message[span]);
        // The session the command acts on: its own, or the one a browser-level command names.
        let session = match (top_session, method.as_str()) {
            (Some(span), _) => json::string(span),
            (None, "Target.detachFromTarget" | "Target.sendMessageToTarget") => {
                params.and_then(|p| json::get_string(p, "sessionId"))
            }
            _ => None,
        };
        let mut writer = self.writer();
        let call = {
            let mut state = self.state();
            if state.lost {
                return Err(Refused::Lost);
            }
            if let Some(session) = session.as_deref() {
                if !state.may_use_session(client, session) {
                    drop(state);
                    event!(
                        "command_refused",
                        "client={client} reason=session_of_another_client"
                    );
                    return Err(invalid(
                        id,
                        "that session was attached by another client of this browser",
                    ));
                }
            }
            let call = state.take_call();
            let attach_target = match method.as_str() {
                "Target.attachToTarget" if browser_level => Some(
                    params
                        .and_then(|p| json::get_string(p, "targetId"))
                        .unwrap_or_default(),
                ),
                "Target.attachToBrowserTarget" if browser_level => Some(String::new()),
                _ => None,
            };
            if let Some(target) = attach_target.as_ref() {
                state.attaches.push(Attach {
                    target: target.clone(),
                    call,
                    client,
                });
            }
            if method == "Target.setAutoAttach" && browser_level {
                let on = params.and_then(|p| json::get(p, "autoAttach")) == Some(&b"true"[..]);
                if on {
                    state.auto_attach = Some(client);
                } else if state.auto_attach == Some(client) {
                    state.auto_attach = None;
                }
            }
            state.pending.insert(
                call,
                Pending::Client {
                    client,
                    id: id.to_vec(),
                    attach: attach_target.is_some(),
                },
            );
            call
        };
        let mut out = Vec::with_capacity(message.len() + 8);
        out.extend_from_slice(&message[..id_span.start]);
        out.extend_from_slice(call.to_string().as_bytes());
        out.extend_from_slice(&message[id_span.end..]);
        out.push(0);
        if writer.write_all(&out).is_err() {
            drop(writer);
            self.lose();
            return Err(Refused::Lost);
        }
        Ok(())
    }

    /// A client left: forget it and detach the sessions it owned.
    pub fn disconnect(&self, client: ClientId) {
        let orphans: Vec<String> = {
            let mut state = self.state();
            state.clients.remove(&client);
            if state.auto_attach == Some(client) {
                state.auto_attach = None;
            }
            let mut orphans = Vec::new();
            for (session, owner) in state.sessions.iter_mut() {
                if *owner == Owner::Client(client) {
                    *owner = Owner::Gone;
                    orphans.push(session.clone());
                }
            }
            orphans
        };
        self.detach(&orphans);
    }

    /// Reads Chrome's messages until its pipe closes, routing each; then closes every client.
    pub fn read_from_chrome(self: Arc<Self>, from_chrome: File) {
        let mut reader = BufReader::with_capacity(256 * 1024, from_chrome);
        let mut message = Vec::new();
        let ended = loop {
            message.clear();
            match read_message(&mut reader, &mut message) {
                Ok(Nul::Message) => {}
                Ok(Nul::TooLarge { bytes }) => {
                    self.skip_from_chrome(&message, bytes);
                    continue;
                }
                Ok(Nul::End) => break "closed".to_string(),
                Err(e) => break e.to_string(),
            }
            if !message.is_empty() {
                self.route(&message);
            }
        };
        event!("chrome_pipe_closed", "reason=\"{ended}\"");
        self.lose();
    }

    /// Answers the call a skipped message of Chrome's (over [`MAX_MESSAGE`]; `head` is its
    /// start) was the reply to with an error for the client's own id; a skipped event is lost.
    fn skip_from_chrome(&self, head: &[u8], bytes: usize) {
        let call = head_id(head)
            .and_then(|id| std::str::from_utf8(id).ok())
            .and_then(|id| id.parse::<u64>().ok());
        event!(
            "chrome_message_skipped",
            "bytes={bytes} call={}",
            call.map(|c| c.to_string()).unwrap_or_else(|| "none".into())
        );
        let mut state = self.state();
        let pending = call.and_then(|call| state.pending.remove(&call));
        if let Some(Pending::Client { client, id, attach }) = pending {
            if attach {
                state.attaches.retain(|a| Some(a.call) != call);
            }
            if let Refused::Invalid(reply) = too_large(&id, bytes, "Chrome's reply") {
                state.deliver(client, &Arc::new(reply));
            }
        }
    }

    /// Delivers one message from Chrome.
    fn route(self: &Arc<Self>, message: &[u8]) {
        let fields = match json::fields(message) {
            Some(fields) => fields,
            None => {
                event!("chrome_message_dropped", "reason=not_an_object");
                return;
            }
        };
        let field = |key: &str| {
            fields
                .iter()
                .find(|(k, _)| *k == key.as_bytes())
                .map(|(_, span)| &message[span.clone()])
        };
        if let Some((_, id_span)) = fields.iter().find(|(k, _)| *k == b"id") {
            self.route_reply(message, id_span.clone(), field("result"));
            return;
        }
        let method = field("method").and_then(json::string).unwrap_or_default();
        let top_session = field("sessionId").and_then(json::string);
        let params = field("params").unwrap_or(b"{}");
        let message_arc = Arc::new(message.to_vec());
        let message = &message_arc;
        let mut state = self.state();
        match state.owner_of_event(&method, top_session.as_deref(), params) {
            Owner::Client(client) => state.deliver(client, message),
            Owner::All => {
                let clients: Vec<ClientId> = state.clients.keys().copied().collect();
                for client in clients {
                    state.deliver(client, message);
                }
            }
            Owner::Gone => {}
        }
    }

    fn route_reply(
        self: &Arc<Self>,
        message: &[u8],
        id_span: std::ops::Range<usize>,
        result: Option<&[u8]>,
    ) {
        let call = std::str::from_utf8(&message[id_span.clone()])
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok());
        let mut state = self.state();
        let pending = call.and_then(|call| state.pending.remove(&call));
        match pending {
            Some(Pending::Client { client, id, attach }) => {
                let mut orphan = None;
                if attach {
                    state.attaches.retain(|a| Some(a.call) != call);
                    if let Some(session) = result.and_then(|r| json::get_string(r, "sessionId")) {
                        if state.clients.contains_key(&client) {
                            state.sessions.insert(session, Owner::Client(client));
                        } else {
                            state.sessions.insert(session.clone(), Owner::Gone);
                            orphan = Some(session);
                        }
                    }
                }
                let mut out = Vec::with_capacity(message.len() + id.len());
                out.extend_from_slice(&message[..id_span.start]);
                out.extend_from_slice(&id);
                out.extend_from_slice(&message[id_span.end..]);
                state.deliver(client, &Arc::new(out));
                drop(state);
                if let Some(session) = orphan {
                    // Not on this thread: writing to Chrome may wait for Chrome to read, and
                    // Chrome may be waiting for this thread to read.
                    let hub = Arc::clone(self);
                    let _ = std::thread::Builder::new()
                        .name("detach".into())
                        .spawn(move || hub.detach(&[session]));
                }
            }
            Some(Pending::Version) => {
                drop(state);
                if !self.ready.swap(true, Ordering::SeqCst) {
                    event!(
                        "chrome_ready",
                        "transport=pipe after_ms={}",
                        self.started.elapsed().as_millis()
                    );
                }
            }
            Some(Pending::Internal) | None => {}
        }
    }

    /// Detaches sessions whose client left (errors, e.g. for a child session already gone with
    /// its parent, are answered to nobody).
    fn detach(&self, sessions: &[String]) {
        for session in sessions {
            let params = format!("{{\"sessionId\":{}}}", json::quote(session));
            if self
                .internal("Target.detachFromTarget", &params, Pending::Internal)
                .is_err()
            {
                return;
            }
        }
    }

    fn internal(&self, method: &str, params: &str, pending: Pending) -> io::Result<()> {
        let mut writer = self.writer();
        let call = {
            let mut state = self.state();
            if state.lost {
                return Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "Chrome's pipe is closed",
                ));
            }
            let call = state.take_call();
            state.pending.insert(call, pending);
            call
        };
        let message = format!("{{\"id\":{call},\"method\":\"{method}\",\"params\":{params}}}\0");
        let written = writer.write_all(message.as_bytes());
        if written.is_err() {
            drop(writer);
            self.lose();
        }
        written
    }

    /// Chrome's pipe is gone: every client is closed and no new one is taken.
    fn lose(&self) {
        let mut state = self.state();
        state.lost = true;
        for (_, outbox) in state.clients.drain() {
            let _ = outbox.sender.send(ToClient::Close);
        }
        state.pending.clear();
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn writer(&self) -> MutexGuard<'_, File> {
        self.to_chrome.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl State {
    /// Whether `client` may send a command on `session`: its own, or one nobody is known to
    /// own. Another client's session (or one whose client left) is refused, as Chrome keeps
    /// one DevTools connection's sessions from another's.
    fn may_use_session(&self, client: ClientId, session: &str) -> bool {
        match self.sessions.get(session) {
            Some(Owner::Client(owner)) => *owner == client,
            Some(Owner::Gone) => false,
            Some(Owner::All) | None => true,
        }
    }

    fn take_call(&mut self) -> u64 {
        let call = self.next_call;
        self.next_call += 1;
        call
    }

    /// Who gets an event, updating who owns which session on the way.
    fn owner_of_event(&mut self, method: &str, top_session: Option<&str>, params: &[u8]) -> Owner {
        let session = || json::get_string(params, "sessionId").unwrap_or_default();
        if let Some(parent) = top_session {
            let owner = self.sessions.get(parent).copied().unwrap_or(Owner::All);
            match method {
                "Target.attachedToTarget" => {
                    self.sessions.insert(session(), owner);
                }
                "Target.detachedFromTarget" => {
                    self.sessions.remove(&session());
                }
                _ => {}
            }
            return owner;
        }
        match method {
            "Target.attachedToTarget" => {
                let info = json::get(params, "targetInfo").unwrap_or(b"{}");
                let target = json::get_string(info, "targetId").unwrap_or_default();
                let is_browser = json::get_string(info, "type").as_deref() == Some("browser");
                let explicit = self
                    .attaches
                    .iter()
                    .position(|a| a.target == target || (is_browser && a.target.is_empty()));
                let owner = match explicit {
                    Some(i) => Owner::Client(self.attaches.remove(i).client),
                    None => self.auto_attach.map_or(Owner::All, Owner::Client),
                };
                let owner = match owner {
                    Owner::Client(c) if !self.clients.contains_key(&c) => Owner::Gone,
                    other => other,
                };
                self.sessions.insert(session(), owner);
                owner
            }
            // A detach nobody is known to own is dropped, never broadcast: to the daemon it
            // would read as the tab going away.
            "Target.detachedFromTarget" => self.sessions.remove(&session()).unwrap_or(Owner::Gone),
            "Target.receivedMessageFromTarget" => {
                self.sessions.get(&session()).copied().unwrap_or(Owner::All)
            }
            _ => Owner::All,
        }
    }

    /// Queues a message for a client; a client too far behind is closed and forgotten.
    fn deliver(&mut self, client: ClientId, message: &Arc<Vec<u8>>) {
        let outbox = match self.clients.get(&client) {
            Some(outbox) => outbox,
            None => return,
        };
        let queued = outbox.queued.fetch_add(message.len(), Ordering::SeqCst) + message.len();
        let sent = queued <= MAX_QUEUED
            && outbox
                .sender
                .send(ToClient::Message(Arc::clone(message)))
                .is_ok();
        if !sent {
            if queued > MAX_QUEUED {
                event!(
                    "client_dropped",
                    "client={client} reason=too_far_behind queued={queued}"
                );
            }
            if let Some(outbox) = self.clients.remove(&client) {
                let _ = outbox.sender.send(ToClient::Close);
            }
        }
    }
}

fn invalid(id: &[u8], what: &str) -> Refused {
    let mut reply = b"{\"id\":".to_vec();
    reply.extend_from_slice(id);
    reply.extend_from_slice(
        format!(
            ",\"error\":{{\"code\":-32600,\"message\":{}}}}}",
            json::quote(&format!("the sidecar refused the message: {what}"))
        )
        .as_bytes(),
    );
    Refused::Invalid(reply)
}

/// The error answered for a message over [`MAX_MESSAGE`] that carried `id` (raw JSON).
pub fn too_large(id: &[u8], bytes: usize, what: &str) -> Refused {
    invalid(
        id,
        &format!(
            "{what} was {bytes} bytes, over the sidecar's limit of {} bytes; it was skipped and \
             only this call failed",
            MAX_MESSAGE
        ),
    )
}

/// The id at the head of a message (`{"id":<digits>,…`, as Chrome and the daemon write it),
/// as raw JSON; `None` when the head does not start with one.
pub fn head_id(head: &[u8]) -> Option<&[u8]> {
    fn skip_space(b: &[u8]) -> &[u8] {
        let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
        &b[n..]
    }
    let rest = skip_space(head).strip_prefix(b"{")?;
    let rest = skip_space(rest).strip_prefix(b"\"id\"")?;
    let rest = skip_space(skip_space(rest).strip_prefix(b":")?);
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let after = skip_space(&rest[digits..]);
    // A head cut inside the number cannot say which call it was.
    if digits == 0 || !(after.starts_with(b",") || after.starts_with(b"}")) {
        return None;
    }
    Some(&rest[..digits])
}

/// What [`read_message`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum Nul {
    /// A whole message (possibly empty), in the buffer.
    Message,
    /// A message over [`MAX_MESSAGE`], skipped up to its NUL: the buffer holds its first
    /// [`HEAD_BYTES`], and `bytes` is its size.
    TooLarge { bytes: usize },
    /// The stream ended between messages.
    End,
}

/// Reads one NUL-terminated message into `message`; one over [`MAX_MESSAGE`] is skipped
/// (never held) up to its NUL, keeping its head.
pub fn read_message(reader: &mut impl BufRead, message: &mut Vec<u8>) -> io::Result<Nul> {
    // Bytes of a message over the limit, counted instead of kept.
    let mut skipped: Option<usize> = None;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return if message.is_empty() && skipped.is_none() {
                Ok(Nul::End)
            } else {
                Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the stream ended mid-message",
                ))
            };
        }
        let end = available.iter().position(|&b| b == 0);
        let part = &available[..end.unwrap_or(available.len())];
        match skipped.as_mut() {
            Some(bytes) => *bytes += part.len(),
            None if message.len() + part.len() > MAX_MESSAGE => {
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
        if end.is_some() {
            return Ok(match skipped {
                Some(bytes) => Nul::TooLarge { bytes },
                None => Nul::Message,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::thread;
    use std::time::Duration;

    const WAIT: Duration = Duration::from_secs(5);

    /// A hub on two real pipes, and their far ends standing in for Chrome.
    struct FakeChrome {
        hub: Arc<Hub>,
        commands: Receiver<Vec<u8>>,
        writes: Option<File>,
    }

    impl FakeChrome {
        fn start() -> FakeChrome {
            let (chrome_reads, to_chrome) = crate::sys::pipe().unwrap();
            let (from_chrome, chrome_writes) = crate::sys::pipe().unwrap();
            let hub = Arc::new(Hub::new(to_chrome, Instant::now()));
            let reader = Arc::clone(&hub);
            thread::spawn(move || reader.read_from_chrome(from_chrome));
            let (tx, commands) = channel();
            thread::spawn(move || {
                let mut reader = BufReader::new(chrome_reads);
                let mut message = Vec::new();
                while let Ok(Nul::Message) = read_message(&mut reader, &mut message) {
                    if tx.send(std::mem::take(&mut message)).is_err() {
                        return;
                    }
                }
            });
            FakeChrome {
                hub,
                commands,
                writes: Some(chrome_writes),
            }
        }

        /// The next command Chrome reads, as text.
        fn command(&self) -> String {
            String::from_utf8(self.commands.recv_timeout(WAIT).expect("a command")).unwrap()
        }

        /// The pipe id of the next command, which must contain `needle`.
        fn call_id(&self, needle: &str) -> u64 {
            let command = self.command();
            assert!(command.contains(needle), "{command}");
            json::get(command.as_bytes(), "id")
                .and_then(|id| std::str::from_utf8(id).ok()?.parse().ok())
                .unwrap()
        }

        fn send(&mut self, message: &str) {
            let writes = self.writes.as_mut().unwrap();
            writes.write_all(message.as_bytes()).unwrap();
            writes.write_all(&[0]).unwrap();
        }
    }

    fn received(client: &Client) -> String {
        match client.outbox.recv_timeout(WAIT).expect("a message") {
            ToClient::Message(m) => String::from_utf8(m.to_vec()).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    /// Nothing arrives for `client` while a marker event sent to everyone does.
    fn nothing_but_marker(chrome: &mut FakeChrome, clients: &[&Client]) {
        chrome.send(r#"{"method":"Test.marker","params":{}}"#);
        for client in clients {
            assert_eq!(received(client), r#"{"method":"Test.marker","params":{}}"#);
        }
    }

    #[test]
    fn a_reply_over_the_limit_fails_its_call_only_and_every_client_lives_on() {
        let mut chrome = FakeChrome::start();
        let a = chrome.hub.connect().unwrap();
        let b = chrome.hub.connect().unwrap();
        chrome
            .hub
            .send_to_chrome(a.id, br#"{"id":7,"method":"Runtime.evaluate"}"#)
            .unwrap();
        let call = chrome.call_id("Runtime.evaluate");
        // Chrome's reply: just over the limit, streamed in chunks (never held whole here).
        let head = format!(r#"{{"id":{call},"result":{{"result":{{"type":"string","value":""#);
        let writes = chrome.writes.as_mut().unwrap();
        writes.write_all(head.as_bytes()).unwrap();
        let chunk = vec![b'x'; 1024 * 1024];
        let mut sent = head.len();
        while sent <= MAX_MESSAGE {
            writes.write_all(&chunk).unwrap();
            sent += chunk.len();
        }
        chrome.send(r#""}}}"#);
        let refused = received(&a);
        assert!(
            refused.starts_with(r#"{"id":7,"error":"#) && refused.contains("skipped"),
            "{refused}"
        );
        // The pipe lives on: the other client, and the same one, are answered as before.
        nothing_but_marker(&mut chrome, &[&a, &b]);
        chrome
            .hub
            .send_to_chrome(b.id, br#"{"id":8,"method":"Browser.getVersion"}"#)
            .unwrap();
        let call = chrome.call_id("Browser.getVersion");
        chrome.send(&format!(r#"{{"id":{call},"result":{{}}}}"#));
        assert_eq!(received(&b), r#"{"id":8,"result":{}}"#);
    }

    #[test]
    fn a_nul_framed_message_over_the_limit_is_skipped_to_its_end() {
        // A stream made as it is read: no 256 MiB buffer anywhere.
        let big = MAX_MESSAGE as u64 + 10;
        let stream = io::Cursor::new(br#"{"id":42,"method":"x","params":""#.to_vec())
            .chain(io::repeat(b'y').take(big))
            .chain(io::Cursor::new(b"\"}\0{\"id\":43}\0".to_vec()));
        let mut reader = BufReader::with_capacity(256 * 1024, stream);
        let mut message = Vec::new();
        let first = read_message(&mut reader, &mut message).unwrap();
        assert!(matches!(first, Nul::TooLarge { bytes } if bytes as u64 > big));
        assert_eq!(head_id(&message), Some(&b"42"[..]));
        assert!(message.len() <= HEAD_BYTES);
        message.clear();
        assert_eq!(
            read_message(&mut reader, &mut message).unwrap(),
            Nul::Message
        );
        assert_eq!(message, br#"{"id":43}"#);
        message.clear();
        assert_eq!(read_message(&mut reader, &mut message).unwrap(), Nul::End);
        assert_eq!(head_id(br#" { "id" : 5 , "#), Some(&b"5"[..]));
        assert_eq!(head_id(br#"{"id":12"#), None);
        assert_eq!(head_id(br#"{"method":"x","id":1}"#), None);
    }

    #[test]
    fn replies_go_back_to_their_client_with_its_own_id() {
        let mut chrome = FakeChrome::start();
        let a = chrome.hub.connect().unwrap();
        let b = chrome.hub.connect().unwrap();
        chrome
            .hub
            .send_to_chrome(a.id, br#"{"id":1,"method":"Browser.getVersion"}"#)
            .unwrap();
        chrome
            .hub
            .send_to_chrome(b.id, br#"{ "method":"Target.getTargets", "id" : 1 }"#)
            .unwrap();
        let first = chrome.call_id("Browser.getVersion");
        let second = chrome.call_id("Target.getTargets");
        assert_ne!(first, second);
        // Answered in the other order.
        chrome.send(&format!(
            r#"{{"id":{second},"result":{{"targetInfos":[]}}}}"#
        ));
        chrome.send(&format!(r#"{{"id":{first},"result":{{"product":"x"}}}}"#));
        assert_eq!(received(&a), r#"{"id":1,"result":{"product":"x"}}"#);
        assert_eq!(
            received(&b),
            r#"{ "id":1,"result":{"targetInfos":[]}}"#.replace("{ ", "{")
        );
        nothing_but_marker(&mut chrome, &[&a, &b]);
    }

    #[test]
    fn a_session_belongs_to_the_client_that_attached_and_leaves_with_it() {
        let mut chrome = FakeChrome::start();
        let daemon = chrome.hub.connect().unwrap();
        let probe = chrome.hub.connect().unwrap();
        chrome
            .hub
            .send_to_chrome(
                probe.id,
                br#"{"id":5,"method":"Target.attachToTarget","params":{"targetId":"T1","flatten":true}}"#,
            )
            .unwrap();
        let attach = chrome.call_id("Target.attachToTarget");
        // Chrome's order: the event first, then the reply.
        let attached = r#"{"method":"Target.attachedToTarget","params":{"sessionId":"S1","targetInfo":{"targetId":"T1","type":"page"},"waitingForDebugger":false}}"#;
        chrome.send(attached);
        chrome.send(&format!(
            r#"{{"id":{attach},"result":{{"sessionId":"S1"}}}}"#
        ));
        assert_eq!(received(&probe), attached);
        assert_eq!(received(&probe), r#"{"id":5,"result":{"sessionId":"S1"}}"#);
        // The session's events, and its detach, are the probe's alone: to the daemon a
        // detachedFromTarget would read as the tab closing.
        chrome.send(r#"{"method":"Runtime.consoleAPICalled","params":{},"sessionId":"S1"}"#);
        let detached =
            r#"{"method":"Target.detachedFromTarget","params":{"sessionId":"S1","targetId":"T1"}}"#;
        chrome.send(detached);
        assert!(received(&probe).contains("consoleAPICalled"));
        assert_eq!(received(&probe), detached);
        // Browser-level events are everyone's.
        chrome
            .send(r#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"T2"}}}"#);
        assert!(received(&daemon).contains("targetCreated"));
        assert!(received(&probe).contains("targetCreated"));
        nothing_but_marker(&mut chrome, &[&daemon, &probe]);

        // A second attach by the daemon, then the daemon leaves: its session is detached.
        chrome
            .hub
            .send_to_chrome(
                daemon.id,
                br#"{"id":9,"method":"Target.attachToTarget","params":{"targetId":"T2","flatten":true}}"#,
            )
            .unwrap();
        let attach = chrome.call_id("Target.attachToTarget");
        chrome.send(r#"{"method":"Target.attachedToTarget","params":{"sessionId":"S2","targetInfo":{"targetId":"T2","type":"page"}}}"#);
        chrome.send(&format!(
            r#"{{"id":{attach},"result":{{"sessionId":"S2"}}}}"#
        ));
        assert!(received(&daemon).contains("attachedToTarget"));
        assert!(received(&daemon).contains(r#""id":9"#));
        // A child session (auto-attach inside S2) is the daemon's too.
        chrome.send(r#"{"method":"Target.attachedToTarget","params":{"sessionId":"S3","targetInfo":{"targetId":"W1","type":"worker"}},"sessionId":"S2"}"#);
        assert!(received(&daemon).contains("S3"));
        chrome.send(r#"{"method":"Page.loadEventFired","params":{},"sessionId":"S3"}"#);
        assert!(received(&daemon).contains("loadEventFired"));
        let daemon_id = daemon.id;
        drop(daemon);
        chrome.hub.disconnect(daemon_id);
        let detached: Vec<String> = (0..2).map(|_| chrome.command()).collect();
        for session in ["S2", "S3"] {
            let call = format!(
                r#""method":"Target.detachFromTarget","params":{{"sessionId":"{session}"}}"#
            );
            assert!(detached.iter().any(|c| c.contains(&call)), "{detached:?}");
        }
        // What the gone sessions still say reaches nobody.
        chrome.send(r#"{"method":"Page.frameNavigated","params":{},"sessionId":"S2"}"#);
        chrome.send(
            r#"{"method":"Target.detachedFromTarget","params":{"sessionId":"S2","targetId":"T2"}}"#,
        );
        nothing_but_marker(&mut chrome, &[&probe]);
    }

    #[test]
    fn an_auto_attached_session_belongs_to_the_client_that_asked_for_it() {
        let mut chrome = FakeChrome::start();
        let a = chrome.hub.connect().unwrap();
        let b = chrome.hub.connect().unwrap();
        chrome
            .hub
            .send_to_chrome(
                b.id,
                br#"{"id":1,"method":"Target.setAutoAttach","params":{"autoAttach":true,"waitForDebuggerOnStart":false,"flatten":true}}"#,
            )
            .unwrap();
        let call = chrome.call_id("setAutoAttach");
        chrome.send(&format!(r#"{{"id":{call},"result":{{}}}}"#));
        assert_eq!(received(&b), r#"{"id":1,"result":{}}"#);
        chrome.send(r#"{"method":"Target.attachedToTarget","params":{"sessionId":"S9","targetInfo":{"targetId":"T9","type":"page"}}}"#);
        chrome.send(r#"{"method":"Page.loadEventFired","params":{},"sessionId":"S9"}"#);
        assert!(received(&b).contains("S9"));
        assert!(received(&b).contains("loadEventFired"));
        nothing_but_marker(&mut chrome, &[&a, &b]);
    }

    #[test]
    fn bad_messages_are_answered_by_the_hub_and_a_closed_pipe_closes_every_client() {
        let mut chrome = FakeChrome::start();
        let a = chrome.hub.connect().unwrap();
        for (message, id) in [
            (&b"not json"[..], "null"),
            (b"{\"method\":\"Browser.getVersion\"}", "null"),
            (b"{\"id\":3}", "3"),
        ] {
            match chrome.hub.send_to_chrome(a.id, message) {
                Err(Refused::Invalid(reply)) => {
                    let reply = String::from_utf8(reply).unwrap();
                    assert!(
                        reply.starts_with(&format!("{{\"id\":{id},\"error\":{{\"code\":-32600")),
                        "{reply}"
                    );
                    assert!(json::fields(reply.as_bytes()).is_some(), "{reply}");
                }
                other => panic!("{other:?}"),
            }
        }
        // Replies nobody waits for, and garbage, are dropped.
        chrome.send(r#"{"id":999,"result":{}}"#);
        chrome.send("garbage");
        nothing_but_marker(&mut chrome, &[&a]);
        // Chrome exits.
        chrome.writes = None;
        assert!(matches!(a.outbox.recv_timeout(WAIT), Ok(ToClient::Close)));
        assert!(chrome.hub.connect().is_none());
        assert_eq!(
            chrome
                .hub
                .send_to_chrome(a.id, br#"{"id":1,"method":"Browser.getVersion"}"#),
            Err(Refused::Lost)
        );
    }

    #[test]
    fn the_first_answer_makes_the_hub_ready_and_close_is_sent_on_the_pipe() {
        let mut chrome = FakeChrome::start();
        assert!(!chrome.hub.is_ready());
        chrome.hub.probe().unwrap();
        let call = chrome.call_id("Browser.getVersion");
        chrome.send(&format!(r#"{{"id":{call},"result":{{}}}}"#));
        let deadline = Instant::now() + WAIT;
        while !chrome.hub.is_ready() {
            assert!(Instant::now() < deadline, "never ready");
            thread::sleep(Duration::from_millis(5));
        }
        chrome.hub.stopping.store(true, Ordering::SeqCst);
        assert!(!chrome.hub.is_ready());
        chrome.hub.browser_close().unwrap();
        chrome.call_id("Browser.close");
    }

    #[test]
    fn a_command_on_another_clients_session_is_refused_for_its_id() {
        let mut chrome = FakeChrome::start();
        let owner = chrome.hub.connect().unwrap();
        let other = chrome.hub.connect().unwrap();
        chrome
            .hub
            .send_to_chrome(
                owner.id,
                br#"{"id":5,"method":"Target.attachToTarget","params":{"targetId":"T1","flatten":true}}"#,
            )
            .unwrap();
        let attach = chrome.call_id("Target.attachToTarget");
        chrome.send(r#"{"method":"Target.attachedToTarget","params":{"sessionId":"S1","targetInfo":{"targetId":"T1","type":"page"}}}"#);
        chrome.send(&format!(
            r#"{{"id":{attach},"result":{{"sessionId":"S1"}}}}"#
        ));
        assert!(received(&owner).contains("attachedToTarget"));
        assert!(received(&owner).contains(r#""id":5"#));
        for message in [
            &br#"{"id":7,"method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"S1"}"#[..],
            br#"{"id":7,"method":"Target.detachFromTarget","params":{"sessionId":"S1"}}"#,
            br#"{"id":7,"method":"Target.sendMessageToTarget","params":{"sessionId":"S1","message":"{}"}}"#,
        ] {
            match chrome.hub.send_to_chrome(other.id, message) {
                Err(Refused::Invalid(reply)) => {
                    let reply = String::from_utf8(reply).unwrap();
                    assert!(reply.starts_with(r#"{"id":7,"error""#), "{reply}");
                    assert!(reply.contains("another client"), "{reply}");
                }
                refused => panic!("{refused:?} for {}", String::from_utf8_lossy(message)),
            }
        }
        // The owner's own command on it, and anyone's on a session nobody owns, go to Chrome.
        chrome
            .hub
            .send_to_chrome(
                owner.id,
                br#"{"id":8,"method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"S1"}"#,
            )
            .unwrap();
        assert!(chrome.command().contains(r#""sessionId":"S1""#));
        chrome
            .hub
            .send_to_chrome(
                other.id,
                br#"{"id":9,"method":"Runtime.evaluate","params":{},"sessionId":"S-unknown"}"#,
            )
            .unwrap();
        assert!(chrome.command().contains("S-unknown"));
    }
}
