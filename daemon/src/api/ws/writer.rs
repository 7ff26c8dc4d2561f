//! The only task that writes to a pane's socket: JSON notices and replies, and the latest
//! frame of the tab the pane watches.
//!
//! The session's notices and the view's moves are waited on by futures kept from one turn
//! of the loop to the next: a `recv()` or `changed()` made afresh at every turn would enter
//! and leave its channel's list of waiters (under that channel's lock, shared by every pane
//! of the session) for each frame each pane writes.

use std::sync::Arc;
use std::task::Poll;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::stream::SplitSink;
use futures_util::SinkExt;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_util::sync::ReusableBoxFuture;

use super::Outgoing;
use crate::browser::{Frame, PaneMessage, PaneView, Watching};

type Sink = SplitSink<WebSocket, Message>;

/// The next notice of the session, with its receiver back.
type NextNotice = (
    Result<PaneMessage, broadcast::error::RecvError>,
    broadcast::Receiver<PaneMessage>,
);
/// The next move of the view, with its receiver back.
type NextChange = (Result<(), watch::error::RecvError>, watch::Receiver<u64>);

async fn next_notice(mut notices: broadcast::Receiver<PaneMessage>) -> NextNotice {
    (notices.recv().await, notices)
}

async fn next_change(mut changes: watch::Receiver<u64>) -> NextChange {
    (changes.changed().await, changes)
}

/// What the writer follows once a pane is attached: each wait kept between turns.
struct Following {
    notices: ReusableBoxFuture<'static, NextNotice>,
    view: Arc<PaneView>,
    changes: ReusableBoxFuture<'static, NextChange>,
}

/// The only task that writes to the socket.
pub(super) async fn write_loop(mut sink: Sink, mut commands: mpsc::Receiver<Outgoing>) {
    let mut following: Option<Following> = None;
    // Whether the pane asked for frames, the watcher of its tab, and the frame size it was
    // last told (a `viewport` message precedes the first frame of another size).
    let mut cast = false;
    let mut frames: Option<Watching> = None;
    let mut told_size: Option<(u32, u32)> = None;
    loop {
        let sent = tokio::select! {
            biased;
            command = commands.recv() => match command {
                None => break,
                Some(Outgoing::Json(message)) => send_json(&mut sink, &message).await,
                Some(Outgoing::Follow(notices, view)) => {
                    let mut changes = view.changes();
                    changes.borrow_and_update();
                    following = Some(Following {
                        notices: ReusableBoxFuture::new(next_notice(notices)),
                        view,
                        changes: ReusableBoxFuture::new(next_change(changes)),
                    });
                    (cast, frames) = (false, None);
                    Ok(())
                }
                Some(Outgoing::Cast) => {
                    cast = true;
                    frames = following.as_ref().and_then(|f| f.view.frames());
                    told_size = None;
                    Ok(())
                }
                Some(Outgoing::TellSize) => {
                    told_size = None;
                    Ok(())
                }
                Some(Outgoing::Unfollow) => {
                    following = None;
                    (cast, frames) = (false, None);
                    Ok(())
                }
                Some(Outgoing::Close(code, reason)) => {
                    let frame = CloseFrame { code, reason: Utf8Bytes::from_static(reason) };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    break;
                }
            },
            followed = next_followed(&mut following) => match followed {
                Followed::Moved(view) => {
                    if cast {
                        frames = view.frames();
                    }
                    let mut sent = Ok(());
                    for message in view.view_messages() {
                        sent = sent.and(send_json(&mut sink, &message).await);
                    }
                    sent
                }
                Followed::Notice(PaneMessage::TimelineEvents(events)) => {
                    send_all(&mut sink, &events).await
                }
                Followed::Notice(message) => send_json(&mut sink, &message).await,
                Followed::Nothing => Ok(()),
                Followed::Ended => {
                    following = None;
                    Ok(())
                }
            },
            frame = next_frame(&mut frames) => match frame {
                Some(frame) => {
                    let size = (frame.width, frame.height);
                    let mut sent = Ok(());
                    if told_size != Some(size) {
                        told_size = Some(size);
                        let viewport = PaneMessage::Viewport { width: size.0, height: size.1 };
                        sent = send_json(&mut sink, &viewport).await;
                    }
                    match sent {
                        Ok(()) => {
                            let sent = sink.send(Message::Binary(frame.jpeg.clone())).await;
                            crate::browser::frame_stages::written(frame.stamps.as_ref(), frame.seq);
                            if let Some(stamps) = &frame.stamps {
                                crate::browser::wheel_frame_written(stamps.from_swap, stamps.received);
                            }
                            sent
                        }
                        error => error,
                    }
                }
                None => Ok(()),
            },
        };
        if sent.is_err() {
            break;
        }
    }
    let _ = sink.close().await;
}

async fn send_json(sink: &mut Sink, message: &PaneMessage) -> Result<(), axum::Error> {
    sink.send(Message::Text(message.to_json().into())).await
}

/// Sends `messages` in order, in one write.
async fn send_all(sink: &mut Sink, messages: &[PaneMessage]) -> Result<(), axum::Error> {
    for message in messages {
        sink.feed(Message::Text(message.to_json().into())).await?;
    }
    sink.flush().await
}

/// What happened in the followed session.
enum Followed {
    /// The view moved to another tab.
    Moved(Arc<PaneView>),
    /// A notice for this pane.
    Notice(PaneMessage),
    /// A notice not meant for this pane.
    Nothing,
    /// The session's notices ended.
    Ended,
}

/// The next move of this pane's view or notice of its session (as the view reads it); pending
/// forever when none is followed. A pane that fell behind gets the whole tab list instead of
/// what it missed.
async fn next_followed(following: &mut Option<Following>) -> Followed {
    let Some(Following {
        notices,
        view,
        changes,
    }) = following
    else {
        return std::future::pending().await;
    };
    std::future::poll_fn(|cx| {
        if let Poll::Ready((changed, mut receiver)) = changes.poll(cx) {
            let followed = match changed {
                Ok(()) => {
                    receiver.borrow_and_update();
                    Followed::Moved(view.clone())
                }
                Err(_) => Followed::Ended,
            };
            changes.set(next_change(receiver));
            return Poll::Ready(followed);
        }
        if let Poll::Ready((notice, receiver)) = notices.poll(cx) {
            notices.set(next_notice(receiver));
            let adapted = match notice {
                Ok(message) => view.adapt(message),
                Err(broadcast::error::RecvError::Lagged(_)) => view.adapt(view.tabs_message()),
                Err(broadcast::error::RecvError::Closed) => return Poll::Ready(Followed::Ended),
            };
            return Poll::Ready(adapted.map_or(Followed::Nothing, Followed::Notice));
        }
        Poll::Pending
    })
    .await
}

/// The newest frame once it changes; pending forever when not watching.
async fn next_frame(frames: &mut Option<Watching>) -> Option<Arc<Frame>> {
    let Some(watching) = frames else {
        return std::future::pending().await;
    };
    if watching.frames.changed().await.is_err() {
        *frames = None;
        return None;
    }
    let frame = watching.frames.borrow_and_update().clone();
    frame
}
