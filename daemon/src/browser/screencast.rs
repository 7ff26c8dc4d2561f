//! The screencast hub: one `Page.startScreencast` per channel, on the active tab, shared by
//! every pane that watches.
//!
//! Frames are acked to Chrome on receipt and published into a `watch` slot that holds only the
//! latest frame: a slow pane skips frames, never delays the others and never grows a queue; a
//! new pane gets the last frame at once. The cast runs only while somebody watches. One task
//! reconciles what is wanted (watchers, active tab, size, quality) with what Chrome does, so
//! starts and stops never race.

use std::sync::{Arc, Mutex};

use base64::Engine as _;
use bytes::Bytes;
use serde_json::json;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use super::notice::PaneMessage;
use crate::cdp::{CdpConnection, CdpEvent};

/// One JPEG frame of the active tab.
#[derive(Debug)]
pub struct Frame {
    /// Raw JPEG bytes, sent to panes as one binary message.
    pub jpeg: Bytes,
    /// Page viewport in CSS pixels when the frame was taken.
    pub width: u32,
    pub height: u32,
    /// Increases by one per frame received from Chrome.
    pub seq: u64,
}

/// What the hub should be doing.
#[derive(Debug, Clone, PartialEq)]
struct Wanted {
    watchers: usize,
    /// `(target_id, session_id)` of the active tab.
    tab: Option<(String, String)>,
    quality: u8,
    max_size: (u32, u32),
    /// Bumped to restart the cast (a cross-process navigation can end it silently).
    generation: u64,
}

/// Shares one screencast among the panes of a channel.
pub struct ScreencastHub {
    frames: watch::Sender<Option<Arc<Frame>>>,
    wanted: watch::Sender<Wanted>,
    /// Flat session currently casting; frames from any other session are stale. Short lock.
    casting: Arc<Mutex<Option<String>>>,
}

/// Held by a pane while it watches; dropping it stops the cast when it was the last one.
pub struct Watching {
    wanted: watch::Sender<Wanted>,
    /// Latest-frame slot of this pane.
    pub frames: watch::Receiver<Option<Arc<Frame>>>,
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.wanted
            .send_modify(|w| w.watchers = w.watchers.saturating_sub(1));
    }
}

impl ScreencastHub {
    /// Creates the hub and spawns its reconcile and frame tasks; both end with `closed`.
    /// `activate`: bring the cast tab to the front first (our own browser, where a hidden tab
    /// paints nothing). Never on the user's own Chrome: activating raises and focuses the
    /// window they are looking at; Porthole's tabs there sit in background windows of their
    /// own, where they paint already.
    pub fn spawn(
        cdp: CdpConnection,
        notices: broadcast::Sender<PaneMessage>,
        max_size: (u32, u32),
        closed: CancellationToken,
        activate: bool,
    ) -> Self {
        let (frames, _) = watch::channel(None);
        let (wanted, wanted_rx) = watch::channel(Wanted {
            watchers: 0,
            tab: None,
            quality: 70,
            max_size,
            generation: 0,
        });
        let casting = Arc::new(Mutex::new(None));
        tokio::spawn(reconcile(
            cdp.clone(),
            wanted_rx,
            casting.clone(),
            closed.clone(),
            activate,
        ));
        tokio::spawn(receive_frames(
            cdp,
            frames.clone(),
            casting.clone(),
            notices,
            wanted.clone(),
            closed,
        ));
        Self {
            frames,
            wanted,
            casting,
        }
    }

    /// Starts watching; the returned slot already holds the last frame, if any.
    pub fn watch(&self) -> Watching {
        self.wanted.send_modify(|w| w.watchers += 1);
        let mut frames = self.frames.subscribe();
        if frames.borrow().is_some() {
            frames.mark_changed();
        }
        Watching {
            wanted: self.wanted.clone(),
            frames,
        }
    }

    /// Number of panes watching.
    pub fn watchers(&self) -> usize {
        self.wanted.borrow().watchers
    }

    /// Follows a new active tab (or none).
    pub fn set_tab(&self, tab: Option<(String, String)>) {
        self.wanted.send_if_modified(|w| {
            let changed = w.tab != tab;
            w.tab = tab;
            changed
        });
    }

    /// Restarts the cast if one runs (after the casting tab's main frame navigated).
    pub fn restart(&self) {
        self.wanted.send_modify(|w| w.generation += 1);
    }

    /// Sets the frame size cap and JPEG quality (1–100).
    pub fn set_params(&self, max_size: (u32, u32), quality: Option<u8>) {
        self.wanted.send_if_modified(|w| {
            let quality = quality.map(|q| q.clamp(1, 100)).unwrap_or(w.quality);
            let changed = w.max_size != max_size || w.quality != quality;
            w.max_size = max_size;
            w.quality = quality;
            changed
        });
    }

    /// The last frame sent by Chrome, if any.
    pub fn last_frame(&self) -> Option<Arc<Frame>> {
        self.frames.borrow().clone()
    }

    /// True while a cast runs.
    pub fn is_casting(&self) -> bool {
        self.casting.lock().expect("casting lock").is_some()
    }
}

/// Pause before retrying a screencast start that failed.
const RETRY_DELAY: std::time::Duration = std::time::Duration::from_millis(100);

/// Brings Chrome in line with `Wanted`, one change at a time.
async fn reconcile(
    cdp: CdpConnection,
    mut wanted: watch::Receiver<Wanted>,
    casting: Arc<Mutex<Option<String>>>,
    closed: CancellationToken,
    activate: bool,
) {
    let mut current: Option<(String, Wanted)> = None;
    let mut failures = 0u32;
    loop {
        let want = wanted.borrow_and_update().clone();
        let target = want.tab.clone().filter(|_| want.watchers > 0);
        let same = match (&current, &target) {
            (Some((session, params)), Some((_, new_session))) => {
                session == new_session
                    && params.quality == want.quality
                    && params.max_size == want.max_size
                    && params.generation == want.generation
            }
            (None, None) => true,
            _ => false,
        };
        if !same {
            if let Some((session, _)) = current.take() {
                *casting.lock().expect("casting lock") = None;
                let _ = cdp
                    .call_on(&session, "Page.stopScreencast", json!({}))
                    .await;
                tracing::debug!(event = "screencast_stopped", %session);
            }
            if let Some((target_id, session)) = target {
                // A tab that is not the active one paints nothing (DESIGN.md §3).
                if activate {
                    let _ = cdp
                        .call("Target.activateTarget", json!({ "targetId": target_id }))
                        .await;
                }
                *casting.lock().expect("casting lock") = Some(session.clone());
                let params = json!({
                    "format": "jpeg", "quality": want.quality, "everyNthFrame": 1,
                    "maxWidth": want.max_size.0, "maxHeight": want.max_size.1,
                });
                match cdp.call_on(&session, "Page.startScreencast", params).await {
                    Ok(_) => {
                        tracing::debug!(event = "screencast_started", %session);
                        current = Some((session, want));
                        failures = 0;
                    }
                    Err(error) => {
                        // Typically "Not attached to an active page" mid-navigation: retry.
                        *casting.lock().expect("casting lock") = None;
                        failures += 1;
                        if failures == 1 || failures.is_multiple_of(40) {
                            tracing::warn!(event = "screencast_start_failed", failures, %error);
                        }
                    }
                }
            }
        }
        let retry = async {
            if failures > 0 {
                tokio::time::sleep(RETRY_DELAY).await
            } else {
                std::future::pending().await
            }
        };
        tokio::select! {
            _ = closed.cancelled() => return,
            changed = wanted.changed() => if changed.is_err() { return },
            _ = retry => {}
        }
    }
}

/// Acks every frame at once and publishes the current session's frames into the slot.
async fn receive_frames(
    cdp: CdpConnection,
    frames: watch::Sender<Option<Arc<Frame>>>,
    casting: Arc<Mutex<Option<String>>>,
    notices: broadcast::Sender<PaneMessage>,
    wanted: watch::Sender<Wanted>,
    closed: CancellationToken,
) {
    let mut events = cdp.subscribe();
    let mut seq = 0u64;
    let mut viewport = (0u32, 0u32);
    loop {
        let event: CdpEvent = tokio::select! {
            _ = closed.cancelled() => return,
            event = events.recv() => match event {
                Ok(event) => event,
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    // Frames we never saw were never acked, and Chrome stops sending after a
                    // couple of unacked frames: restart the cast.
                    tracing::debug!(event = "screencast_lagged", missed);
                    wanted.send_modify(|w| w.generation += 1);
                    continue;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
        };
        if event.method != "Page.screencastFrame" {
            continue;
        }
        let Some(session) = event.session_id.as_deref() else {
            continue;
        };
        if let Some(ack) = event.params.get("sessionId") {
            cdp.fire(
                "Page.screencastFrameAck",
                json!({ "sessionId": ack }),
                Some(session),
            );
        }
        if casting.lock().expect("casting lock").as_deref() != Some(session) {
            continue;
        }
        let Some(data) = event.params["data"].as_str() else {
            continue;
        };
        let Ok(jpeg) = base64::engine::general_purpose::STANDARD.decode(data) else {
            continue;
        };
        let metadata = &event.params["metadata"];
        let size = (
            metadata["deviceWidth"].as_f64().unwrap_or(0.0).round() as u32,
            metadata["deviceHeight"].as_f64().unwrap_or(0.0).round() as u32,
        );
        if size != viewport {
            viewport = size;
            let _ = notices.send(PaneMessage::Viewport {
                width: size.0,
                height: size.1,
            });
        }
        seq += 1;
        frames.send_replace(Some(Arc::new(Frame {
            jpeg: Bytes::from(jpeg),
            width: size.0,
            height: size.1,
            seq,
        })));
    }
}
