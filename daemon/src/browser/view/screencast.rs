//! The screencast hub: one `Page.startScreencast` per watched tab, shared by every pane that
//! watches that tab.
//!
//! Frames are acked to Chrome on receipt and published into a `watch` slot per tab that holds
//! only the latest frame: a slow pane skips frames, never delays the others and never grows a
//! queue; a pane that starts watching gets the tab's last frame at once. A tab's cast runs
//! only while somebody watches it. One task per tab reconciles what is wanted (watchers, size,
//! quality) with what Chrome does, so starts and stops never race; one task for the whole
//! browser acks and routes frames by flat session.
//!
//! A tab laid out at a pixel scale above 1 is cast capped at its CSS size, and made sharp
//! once it stands still (see `sharp`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::frame_stages;
use super::frames::{
    publish, stale_capture, Cast, Frame, FrameSlot, Params, Running, Sent, Shared, Sizes, Wanted,
    FRAME_CAP,
};
use crate::browser::floor::{Delivery, RoomEvents};
use crate::cdp::{CdpConnection, CdpEvent};
use std::future::Future;

/// Shares one screencast per tab among the panes of a channel.
pub struct ScreencastHub {
    cdp: CdpConnection,
    closed: CancellationToken,
    /// Bring a tab to the front before casting it (see [`ScreencastHub::new`]).
    activate: bool,
    params: Mutex<Params>,
    shared: Arc<Shared>,
    /// The daemon's runtime, where each tab's cast task runs: a pane's writer starts watching
    /// from the writers' thread (`api::ws::writer_thread`), which only copies bytes into
    /// sockets.
    runtime: tokio::runtime::Handle,
}

/// Held by a pane while it watches a tab; dropping it stops that tab's cast when it was the
/// last watcher.
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
    /// Creates the hub (its frames come through [`Self::follow`]); every cast's task ends with
    /// `closed`. `activate`: bring a cast tab to the front first (our own browser, where a hidden tab
    /// paints nothing). Never on the user's own Chrome: activating raises and focuses the
    /// window they are looking at; Porthole's tabs there sit in background windows of their
    /// own, where they paint already.
    /// `scales`: each tab's pixel scale, by which Chrome's frame sizes are divided to give CSS
    /// px (see the floor's `layouts`).
    pub(in crate::browser) fn new(
        cdp: CdpConnection,
        closed: CancellationToken,
        activate: bool,
        scales: crate::browser::floor::AppliedScales,
    ) -> Self {
        let shared = Arc::new(Shared::new(scales.clone()));
        let on_scale = Arc::downgrade(&shared);
        scales.on_change(Box::new(move |session| {
            if let Some(shared) = on_scale.upgrade() {
                restart_cast(&shared, session);
            }
        }));
        Self {
            cdp,
            closed,
            activate,
            params: Mutex::new(Params { quality: 70 }),
            shared,
            runtime: tokio::runtime::Handle::current(),
        }
    }

    /// Acks every frame of `frames` (the session's [`FRAME_EVENTS`]) at once and publishes each
    /// running cast's frames into its tab's slot, until the session ends.
    pub(in crate::browser) fn follow(
        &self,
        frames: RoomEvents,
    ) -> impl Future<Output = ()> + Send + 'static {
        receive_frames(self.cdp.clone(), frames, self.shared.clone())
    }

    /// Starts watching the tab `target_id` (flat session `session_id`); the returned slot
    /// already holds the tab's last frame, if any.
    pub fn watch(&self, target_id: &str, session_id: &str) -> Watching {
        let params = *self.params.lock().expect("params lock");
        let mut casts = self.shared.casts.lock().expect("casts lock");
        let reattached = casts
            .get(target_id)
            .is_some_and(|cast| cast.session_id != session_id);
        if reattached {
            if let Some(old) = casts.remove(target_id) {
                old.ended.cancel();
            }
        }
        let cast = casts
            .entry(target_id.to_string())
            .or_insert_with(|| self.new_cast(target_id, session_id, params));
        cast.wanted.send_modify(|w| w.watchers += 1);
        let mut frames = cast.frames.subscribe();
        if frames.borrow().is_some() {
            frames.mark_changed();
        }
        Watching {
            wanted: cast.wanted.clone(),
            frames,
        }
    }

    fn new_cast(&self, target_id: &str, session_id: &str, params: Params) -> Cast {
        let (frames, _) = watch::channel(None);
        let (wanted, wanted_rx) = watch::channel(Wanted {
            watchers: 0,
            params,
            generation: 0,
        });
        let ended = self.closed.child_token();
        self.runtime.spawn(reconcile(
            Caster {
                cdp: self.cdp.clone(),
                target_id: target_id.to_string(),
                session_id: session_id.to_string(),
                frames: frames.clone(),
                shared: self.shared.clone(),
                activate: self.activate,
            },
            wanted_rx,
            ended.clone(),
        ));
        Cast {
            session_id: session_id.to_string(),
            frames,
            wanted,
            ended,
        }
    }

    /// Drops a tab's cast (the tab closed): its watchers' slots close.
    pub fn forget(&self, target_id: &str) {
        let cast = self
            .shared
            .casts
            .lock()
            .expect("casts lock")
            .remove(target_id);
        if let Some(cast) = cast {
            cast.ended.cancel();
        }
    }

    /// Restarts the cast of the tab behind flat session `session_id`, if one runs (after its
    /// main frame navigated to another process).
    pub fn restart(&self, session_id: &str) {
        restart_cast(&self.shared, session_id);
    }

    /// Sets the JPEG quality (1–100) of every cast.
    pub fn set_quality(&self, quality: Option<u8>) {
        let params = {
            let mut params = self.params.lock().expect("params lock");
            if let Some(quality) = quality {
                params.quality = quality.clamp(1, 100);
            }
            *params
        };
        let casts = self.shared.casts.lock().expect("casts lock");
        for cast in casts.values() {
            cast.wanted.send_if_modified(|w| {
                let changed = w.params != params;
                w.params = params;
                changed
            });
        }
    }

    /// The last frame Chrome sent of a tab, if any.
    pub fn last_frame(&self, target_id: &str) -> Option<Arc<Frame>> {
        let casts = self.shared.casts.lock().expect("casts lock");
        casts.get(target_id).and_then(|c| c.frames.borrow().clone())
    }

    /// Changes whenever a frame of any tab is published (for a follower that samples the
    /// frames, such as the timeline; it costs the cast nothing).
    pub fn frames_published(&self) -> watch::Receiver<u64> {
        self.shared.published.subscribe()
    }

    /// The last frame of every tab some pane watches now, by target id.
    pub fn watched_frames(&self) -> Vec<(String, Arc<Frame>)> {
        let casts = self.shared.casts.lock().expect("casts lock");
        casts
            .iter()
            .filter(|(_, c)| c.wanted.borrow().watchers > 0)
            .filter_map(|(id, c)| c.frames.borrow().clone().map(|f| (id.clone(), f)))
            .collect()
    }
}

/// Restarts the cast of the tab behind flat session `session_id`, if one runs.
fn restart_cast(shared: &Shared, session_id: &str) {
    if !shared
        .casting
        .lock()
        .expect("casting lock")
        .contains_key(session_id)
    {
        return;
    }
    let casts = shared.casts.lock().expect("casts lock");
    for cast in casts.values().filter(|c| c.session_id == session_id) {
        cast.wanted.send_modify(|w| w.generation += 1);
    }
}

/// Pause before retrying a screencast start that failed.
const RETRY_DELAY: std::time::Duration = std::time::Duration::from_millis(100);

/// What one tab's reconcile task works with.
struct Caster {
    cdp: CdpConnection,
    target_id: String,
    session_id: String,
    frames: FrameSlot,
    shared: Arc<Shared>,
    activate: bool,
}

impl Caster {
    fn set_casting(&self, running: Option<Running>) {
        let mut casting = self.shared.casting.lock().expect("casting lock");
        match running {
            Some(running) => casting.insert(self.session_id.clone(), running),
            None => casting.remove(&self.session_id),
        };
    }

    async fn stop(&self) {
        self.set_casting(None);
        let _ = self
            .cdp
            .call_on(&self.session_id, "Page.stopScreencast", json!({}))
            .await;
        tracing::debug!(event = "screencast_stopped", target_id = %self.target_id);
    }

    async fn start(&self, params: Params) -> Result<(), crate::cdp::CdpError> {
        let asked = std::time::Instant::now();
        // Sees only frames from now on.
        let first = self.frames.subscribe();
        // At a pixel scale above 1: capped at the CSS size, and a task that makes the still
        // page sharp (see `sharp`).
        let scaled = self.shared.scales.scaled_css(&self.session_id);
        let cap = scaled.unwrap_or(FRAME_CAP);
        let settle = scaled.map(|_| {
            let (settle, capped) = watch::channel(0);
            tokio::spawn(super::sharp::settle(
                super::sharp::Tab {
                    cdp: self.cdp.clone(),
                    target_id: self.target_id.clone(),
                    session_id: self.session_id.clone(),
                    shared: self.shared.clone(),
                    quality: params.quality,
                },
                capped,
            ));
            settle
        });
        self.set_casting(Some(Running {
            frames: self.frames.clone(),
            cap,
            newest: None,
            settle,
        }));
        let request = json!({
            "format": "jpeg", "quality": params.quality, "everyNthFrame": 1,
            "maxWidth": cap.0, "maxHeight": cap.1,
        });
        // Sent at once, in this order (one round trip, not three): the tab to the front (a
        // tab that is not the active one of its window paints nothing, DESIGN.md §3), the
        // cast, and a repaint nudge so a first frame comes now, at the view's current size,
        // even on a still page (harmless when the start fails).
        let activate = async {
            if self.activate {
                let target = json!({ "targetId": self.target_id });
                let _ = self.cdp.call("Target.activateTarget", target).await;
            }
        };
        let ((_, started, _), cdp) = crate::cdp::tallied(async {
            tokio::join!(
                biased;
                activate,
                self.cdp
                    .call_on(&self.session_id, "Page.startScreencast", request),
                crate::browser::floor::repaint(&self.cdp, &self.session_id),
            )
        })
        .await;
        if started.is_err() {
            self.set_casting(None);
        } else {
            tracing::debug!(
                event = "screencast_started",
                target_id = %self.target_id,
                commands = cdp.commands,
                sequential_waits = cdp.rounds
            );
            log_first_frame(first, asked, self.target_id.clone());
        }
        started.map(drop)
    }
}

/// Logs `screencast_first_frame` when the cast started at `asked` sends its first frame:
/// how long its start's replies took (`started_ms`: activate, start, repaint nudge) and the
/// time from `asked` to that frame (`frame_ms`), for `porthole-bench docker`'s breakdown.
fn log_first_frame(
    mut frames: watch::Receiver<Option<Arc<Frame>>>,
    asked: std::time::Instant,
    target_id: String,
) {
    let started_ms = asked.elapsed().as_millis() as u64;
    tokio::spawn(async move {
        let wait = tokio::time::timeout(std::time::Duration::from_secs(30), frames.changed());
        if let Ok(Ok(())) = wait.await {
            tracing::debug!(
                event = "screencast_first_frame",
                %target_id,
                started_ms,
                frame_ms = asked.elapsed().as_millis() as u64
            );
        }
    });
}

/// Brings Chrome in line with what one tab's watchers want, one change at a time.
async fn reconcile(caster: Caster, mut wanted: watch::Receiver<Wanted>, ended: CancellationToken) {
    let mut running: Option<Wanted> = None;
    let mut failures = 0u32;
    loop {
        let want = wanted.borrow_and_update().clone();
        let cast = want.watchers > 0;
        let same = match &running {
            Some(now) => cast && now.params == want.params && now.generation == want.generation,
            None => !cast,
        };
        if !same {
            if running.take().is_some() {
                caster.stop().await;
            }
            if cast {
                match caster.start(want.params).await {
                    Ok(()) => {
                        running = Some(want);
                        failures = 0;
                    }
                    Err(error) => {
                        // Typically "Not attached to an active page" mid-navigation: retry.
                        failures += 1;
                        if failures == 1 || failures.is_multiple_of(40) {
                            tracing::warn!(event = "screencast_start_failed", target_id = %caster.target_id, failures, %error);
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
            _ = ended.cancelled() => break,
            changed = wanted.changed() => if changed.is_err() { break },
            _ = retry => {}
        }
    }
    // The tab is gone or nobody can watch it any more: nothing to stop in Chrome.
    caster.set_casting(None);
}

/// The events the screencast is fed by.
pub(in crate::browser) const FRAME_EVENTS: &[&str] = &["Page.screencastFrame"];

/// Acks every frame at once and publishes each running cast's frames into its tab's slot.
async fn receive_frames(cdp: CdpConnection, mut events: RoomEvents, shared: Arc<Shared>) {
    // The view size and JPEG size of each session's last frame (see `stale_capture`).
    let mut last_sizes: HashMap<String, Sizes> = HashMap::new();
    loop {
        // Ends with the session.
        let event: CdpEvent = match events.recv().await {
            Some(Delivery::Event(event)) => event,
            Some(Delivery::Lagged(missed)) => {
                // Frames we never saw were never acked, and Chrome stops sending after a
                // couple of unacked frames: restart every cast.
                tracing::debug!(event = "screencast_lagged", missed);
                for cast in shared.casts.lock().expect("casts lock").values() {
                    cast.wanted.send_modify(|w| w.generation += 1);
                }
                continue;
            }
            None => return,
        };
        if event.method != "Page.screencastFrame" {
            continue;
        }
        let at_hub = std::time::Instant::now();
        let Some(session) = event.session_id.as_deref() else {
            continue;
        };
        if super::sharp::took(&shared, session, &event.params) {
            continue;
        }
        if let Some(ack) = event.params.get("sessionId") {
            cdp.fire(
                "Page.screencastFrameAck",
                json!({ "sessionId": ack }),
                Some(session),
            );
        }
        let stamps = || {
            let swapped = event.params["metadata"]["timestamp"].as_f64();
            frame_stages::on().then(|| frame_stages::Stamps {
                from_swap: frame_stages::since_swap(swapped, event.received),
                received: event.received,
                at_hub,
                published: std::time::Instant::now(),
            })
        };
        let Some((sizes, cap)) = publish(&shared, session, &event.params, Sent::Cast, stamps)
        else {
            continue;
        };
        if stale_capture(last_sizes.get(session), &sizes, cap) {
            tracing::debug!(event = "screencast_resized", view = ?sizes.view);
            restart_cast(&shared, session);
        }
        last_sizes.insert(session.to_string(), sizes);
    }
}
