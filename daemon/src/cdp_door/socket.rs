//! The door's WebSockets: `…/devtools/browser[/<id>]` (a browser of the agent's own tabs) and
//! `…/devtools/page/<target>` (one of its tabs, its messages without a `sessionId` going to
//! that tab). One task per client owns its socket and answers in order: Chrome's events for
//! the client are passed before the answers that follow them (the events branch is polled
//! first, and Chrome's connection publishes an event before it completes a later reply).
//!
//! The connection ends when the client leaves, on `Browser.close`, or when the channel's
//! browser ends; the sessions the door attached for it are then detached.

use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, SinkExt, StreamExt};
use tokio::sync::broadcast::error::RecvError;

use super::command::{self, Answer};
use super::door::Door;
use super::targets;

/// Largest message a client may send (a page script, a file's bytes).
const MAX_CLIENT_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// Upgrades to a client's socket: the browser socket, or the page socket of `page`.
pub(super) fn upgrade(ws: WebSocketUpgrade, door: Arc<Door>, page: Option<String>) -> Response {
    ws.max_message_size(MAX_CLIENT_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve(socket, door, page))
}

async fn serve(mut socket: WebSocket, door: Arc<Door>, page: Option<String>) {
    let entry = &door.entry;
    tracing::info!(event = "cdp_door_connected", channel_id = %entry.channel, agent_id = entry.actor.id(), page = page.is_some());
    let mut events = entry.session.cdp().subscribe();
    if let Some(target) = &page {
        match targets::attach_page(&door, target).await {
            Ok(session) => door.set_page_session(&session),
            Err(_) => {
                let _ = socket.close().await;
                return;
            }
        }
    }
    let mut pending = FuturesUnordered::new();
    let reason = loop {
        tokio::select! {
            biased;
            event = events.recv() => match event {
                Ok(event) => {
                    if let Some(text) = door.pass_event(&event) {
                        if socket.send(Message::Text(text.into())).await.is_err() {
                            break "client gone";
                        }
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(event = "cdp_door_events_lagged", channel_id = %entry.channel, agent_id = entry.actor.id(), missed);
                }
                Err(RecvError::Closed) => break "browser connection closed",
            },
            Some(answer) = pending.next(), if !pending.is_empty() => {
                let Answer { before, reply, then_close } = answer;
                let mut sent = true;
                for text in before.into_iter().chain(std::iter::once(reply)) {
                    sent = sent && socket.send(Message::Text(text.into())).await.is_ok();
                }
                if !sent {
                    break "client gone";
                }
                if then_close {
                    break "Browser.close";
                }
            }
            message = socket.recv() => {
                let text = match message {
                    Some(Ok(Message::Text(text))) => text.to_string(),
                    Some(Ok(Message::Binary(bytes))) => String::from_utf8_lossy(&bytes).into_owned(),
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break "client left",
                    Some(Ok(_)) => continue,
                };
                match command::parse(&text) {
                    Ok(command) => pending.push(command::run(door.clone(), command).boxed()),
                    Err(answer) => {
                        if socket.send(Message::Text(answer.into())).await.is_err() {
                            break "client gone";
                        }
                    }
                }
            }
            _ = entry.session.ended() => break "the channel's browser ended",
        }
    };
    door.leave();
    let _ = socket.close().await;
    tracing::info!(event = "cdp_door_closed", channel_id = %entry.channel, agent_id = entry.actor.id(), reason);
}
