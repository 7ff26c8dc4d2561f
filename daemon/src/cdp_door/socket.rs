//! The door's WebSockets: `…/devtools/browser[/<id>]` (a browser of the agent's own tabs) and
//! `…/devtools/page/<target>` (one of its tabs, its messages without a `sessionId` going to
//! that tab). One task per client owns its socket and writes in Chrome's order: a forwarded
//! command's answer and Chrome's events for the client go out in the order Chrome sent them
//! (both carry when they were read from Chrome; Chrome's connection publishes every event
//! before it completes a later reply, so the events before an answer are already buffered
//! when the answer is ready). Playwright relies on it: a frame tree must come before the
//! execution contexts of its frames.
//!
//! A popup a client's page opens is the agent's (the daemon tracks it so); it reaches the
//! client, announced and auto-attached, once the daemon has it on the agent's record.
//!
//! The connection ends when the client leaves, on `Browser.close`, when the channel's browser
//! ends (a deleted channel's does) or when its agent is deleted; the sessions the door attached
//! for it are then detached, and a close frame says why.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, SinkExt, StreamExt};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::broadcast::Receiver;

use super::command::{self, Answer};
use super::door::Door;
use super::targets;
use crate::cdp::CdpEvent;

/// Largest message a client may send (a page script, a file's bytes).
const MAX_CLIENT_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// Upgrades to a client's socket: the browser socket, or the page socket of `page`.
pub(super) fn upgrade(ws: WebSocketUpgrade, door: Arc<Door>, page: Option<String>) -> Response {
    ws.max_message_size(MAX_CLIENT_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve(socket, door, page))
}

/// Why a connection ended (the close frame's reason).
type Ended = &'static str;

/// The agent was deleted: its token no longer opens the door.
const AGENT_DELETED: Ended = "Porthole closed the CDP door: its agent was deleted";
/// The channel's browser stopped (the channel was deleted or stopped).
const CHANNEL_ENDED: Ended = "Porthole closed the CDP door: the channel's browser ended";

/// One client's socket and what waits to be written to it, in Chrome's order.
struct Client {
    socket: WebSocket,
    door: Arc<Door>,
    /// Answers ready to go, each after the events Chrome sent before it.
    ready: Vec<Answer>,
}

impl Client {
    async fn send(&mut self, text: String) -> Result<(), Ended> {
        self.socket
            .send(Message::Text(text.into()))
            .await
            .map_err(|_| "client gone")
    }

    /// Writes the ready answers read from Chrome before `until` (all of them for `None`).
    async fn answers_before(&mut self, until: Option<Instant>) -> Result<(), Ended> {
        self.ready.sort_by_key(|a| a.at);
        while let Some(first) = self.ready.first() {
            if matches!((until, first.at), (Some(until), Some(at)) if at > until) {
                break;
            }
            let Answer {
                before,
                reply,
                then_close,
                ..
            } = self.ready.remove(0);
            for text in before.into_iter().chain(reply) {
                self.send(text).await?;
            }
            if then_close {
                return Err("Browser.close");
            }
        }
        Ok(())
    }

    /// Writes `event` (when it is the client's) after the answers Chrome sent before it.
    async fn event(
        &mut self,
        event: &CdpEvent,
        pending: &mut FuturesUnordered<futures_util::future::BoxFuture<'static, Answer>>,
    ) -> Result<(), Ended> {
        self.take_ready(pending);
        self.answers_before(Some(event.received)).await?;
        if let Some(text) = self.door.pass_event(event) {
            self.send(text).await?;
        }
        if let Some(popup) = self.door.popup_of(event) {
            let told = targets::popup(self.door.clone(), popup);
            pending.push(told.map(Answer::events).boxed());
        }
        Ok(())
    }

    /// Writes the buffered events and ready answers in Chrome's order, then every ready
    /// answer.
    async fn flush(
        &mut self,
        events: &mut Receiver<CdpEvent>,
        pending: &mut FuturesUnordered<futures_util::future::BoxFuture<'static, Answer>>,
    ) -> Result<(), Ended> {
        self.take_ready(pending);
        loop {
            match events.try_recv() {
                Ok(event) => self.event(&event, pending).await?,
                Err(TryRecvError::Lagged(missed)) => self.lagged(missed),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Closed) => return Err("browser connection closed"),
            }
        }
        self.answers_before(None).await
    }

    /// Moves the answers already complete into `ready`.
    fn take_ready(
        &mut self,
        pending: &mut FuturesUnordered<futures_util::future::BoxFuture<'static, Answer>>,
    ) {
        while let Some(Some(answer)) = pending.next().now_or_never() {
            self.ready.push(answer);
        }
    }

    fn lagged(&self, missed: u64) {
        let entry = &self.door.entry;
        tracing::warn!(event = "cdp_door_events_lagged", channel_id = %entry.channel, agent_id = entry.actor.id(), missed);
    }
}

async fn serve(socket: WebSocket, door: Arc<Door>, page: Option<String>) {
    let entry = &door.entry;
    tracing::info!(event = "cdp_door_connected", channel_id = %entry.channel, agent_id = entry.actor.id(), page = page.is_some());
    let mut events = entry.session.cdp().subscribe();
    let mut client = Client {
        socket,
        door: door.clone(),
        ready: Vec::new(),
    };
    if let Some(target) = &page {
        match targets::attach_page(&door, target).await {
            Ok(session) => door.set_page_session(&session),
            Err(_) => {
                let _ = client.socket.close().await;
                return;
            }
        }
    }
    let reason = run(&mut client, &mut events).await;
    door.leave();
    if reason == AGENT_DELETED {
        super::set_cookies::forget_agent(entry.actor.id());
    }
    // A policy close (1008) when Porthole ended it for the agent's or channel's sake.
    let code = match reason {
        AGENT_DELETED | CHANNEL_ENDED => 1008,
        _ => 1000,
    };
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = client.socket.send(Message::Close(Some(frame))).await;
    tracing::info!(event = "cdp_door_closed", channel_id = %entry.channel, agent_id = entry.actor.id(), reason);
}

async fn run(client: &mut Client, events: &mut Receiver<CdpEvent>) -> Ended {
    let door = client.door.clone();
    let mut pending = FuturesUnordered::new();
    loop {
        let step = tokio::select! {
            biased;
            event = events.recv() => match event {
                // An answer already complete but read from Chrome after this event waits in
                // `ready`; nothing else would wake the loop for it, so it goes out now, after
                // the events buffered before it.
                Ok(event) => match client.event(&event, &mut pending).await {
                    Ok(()) if !client.ready.is_empty() => client.flush(events, &mut pending).await,
                    step => step,
                },
                Err(RecvError::Lagged(missed)) => {
                    client.lagged(missed);
                    Ok(())
                }
                Err(RecvError::Closed) => Err("browser connection closed"),
            },
            Some(answer) = pending.next(), if !pending.is_empty() => {
                client.ready.push(answer);
                client.flush(events, &mut pending).await
            }
            message = client.socket.recv() => {
                let text = match message {
                    Some(Ok(Message::Text(text))) => text.to_string(),
                    Some(Ok(Message::Binary(bytes))) => String::from_utf8_lossy(&bytes).into_owned(),
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return "client left",
                    Some(Ok(_)) => continue,
                };
                match command::parse(&text) {
                    Ok(command) => {
                        pending.push(command::run(door.clone(), command).boxed());
                        Ok(())
                    }
                    Err(answer) => client.send(answer).await,
                }
            }
            _ = door.entry.session.ended() => Err(CHANNEL_ENDED),
            _ = door.entry.agent_deleted() => Err(AGENT_DELETED),
        };
        if let Err(reason) = step {
            return reason;
        }
    }
}
