//! Sharp frames of a still page at a pixel scale above 1 (DESIGN.md §15, issue 35).
//!
//! Measured with `porthole-bench scale` (Chromium 156 headless, software compositing, an
//! 800×600 pane on a page painting every frame): a cast at the full 1600×1200 of scale 2
//! runs at about 16 frames/s, about 130 ms behind paint, whatever the JPEG quality, while a
//! cast of the same tab capped at its CSS size (`maxWidth`/`maxHeight` 800×600) keeps about
//! 45 frames/s and scale 1's latency: the time goes to capturing and encoding four times the
//! pixels, not to raster or to the bytes. So a tab at a scale above 1 is cast capped at its
//! CSS size (fluid motion, see `screencast`), and this module makes it sharp once it stands
//! still: when its cast sent no frame for [`SETTLE`], a second flat session on the same tab
//! starts a full-size cast, takes its first frame, and stops it. Chrome sends that frame at
//! once, of the surface as it is, without a repaint: the capped cast sends nothing for it
//! (measured: 80–110 ms from the start to the frame). The frame is published unless a newer
//! one of the capped cast is in the slot by then (the page moved again).
//!
//! Not `Page.captureScreenshot`: it paints the page anew, so the capped cast sends a blurry
//! frame of that paint too, which lands after the sharp one and starts the settle timer over
//! (measured: 140–220 ms per screenshot, each followed by a capped frame). Not restarting the
//! tab's one cast at full size: when the page moves again its first frames would come at the
//! slow size.
//!
//! The second session is attached for each capture and detached after it (its
//! `Target.detachedFromTarget` names the tab, which the session tells from the tab's own
//! session leaving).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::{oneshot, watch};

use super::frames::{publish, Sent, Shared, FRAME_CAP};
use crate::cdp::CdpConnection;

/// How long a capped cast sends no frame before its page counts as still. At 60 frames/s a
/// moving page sends one every 17 ms; a loaded machine leaves gaps of up to ~40 ms.
pub(super) const SETTLE: Duration = Duration::from_millis(50);

/// How long the full-size cast may take to send its frame.
const SHARP_DEADLINE: Duration = Duration::from_secs(2);

/// One tab's cast at a scale above 1, as its settle task sees it.
pub(super) struct Tab {
    pub(super) cdp: CdpConnection,
    pub(super) target_id: String,
    /// The tab's own flat session (its cast's).
    pub(super) session_id: String,
    pub(super) shared: Arc<Shared>,
    pub(super) quality: u8,
}

/// Takes a sharp frame each time the capped cast stops sending (see the module doc). Ends
/// when the cast it was started with stops (`capped` closes).
pub(super) async fn settle(tab: Tab, mut capped: watch::Receiver<u64>) {
    loop {
        if capped.changed().await.is_err() {
            return;
        }
        loop {
            // Quiet for SETTLE since the last capped frame.
            loop {
                match tokio::time::timeout(SETTLE, capped.changed()).await {
                    Ok(Ok(())) => continue,
                    Ok(Err(_)) => return,
                    Err(_) => break,
                }
            }
            capped.borrow_and_update();
            if tab.take_sharp(&mut capped).await {
                break;
            }
        }
    }
}

impl Tab {
    /// A second session on the tab, for one capture.
    async fn sharp_session(&self) -> Option<String> {
        let attached = self
            .cdp
            .call(
                "Target.attachToTarget",
                json!({"targetId": self.target_id, "flatten": true}),
            )
            .await;
        match attached {
            Ok(reply) => {
                let session = reply["sessionId"].as_str().unwrap_or_default().to_string();
                self.waiting(&session, None);
                Some(session)
            }
            Err(error) => {
                tracing::debug!(event = "screencast_sharp_failed", target_id = %self.target_id, %error);
                None
            }
        }
    }

    /// One full-size frame of the tab, published unless a newer frame is there by then. Given
    /// up when the capped cast sends a frame first (the page moves again: a full-size capture
    /// running beside it would slow it down); false then, to wait for quiet again.
    async fn take_sharp(&self, capped: &mut watch::Receiver<u64>) -> bool {
        let Some(session) = self.sharp_session().await else {
            return true;
        };
        let mut moved = false;
        let asked = Instant::now();
        let (taken, frame) = oneshot::channel();
        self.waiting(&session, Some(taken));
        let request = json!({
            "format": "jpeg", "quality": self.quality, "everyNthFrame": 1,
            "maxWidth": FRAME_CAP.0, "maxHeight": FRAME_CAP.1,
        });
        let started = self
            .cdp
            .call_on(&session, "Page.startScreencast", request)
            .await;
        let frame = match started {
            Ok(_) => tokio::select! {
                biased;
                frame = tokio::time::timeout(SHARP_DEADLINE, frame) => frame.ok().and_then(Result::ok),
                _ = capped.changed() => {
                    moved = true;
                    None
                }
            },
            Err(_) => None,
        };
        self.waiting(&session, None);
        let published = frame.as_ref().and_then(|params| {
            publish(&self.shared, &self.session_id, params, Sent::Sharp, || None)
        });
        tracing::debug!(
            event = "screencast_sharp",
            target_id = %self.target_id,
            taken = frame.is_some(),
            published = published.is_some(),
            moved,
            ms = asked.elapsed().as_millis() as u64,
            settle_ms = SETTLE.as_millis() as u64
        );
        let _ = self
            .cdp
            .call_on(&session, "Page.stopScreencast", json!({}))
            .await;
        let _ = self
            .cdp
            .call("Target.detachFromTarget", json!({ "sessionId": session }))
            .await;
        self.shared
            .sharp_sessions
            .lock()
            .expect("sharp lock")
            .remove(&session);
        !moved
    }

    fn waiting(&self, session: &str, taken: Option<oneshot::Sender<Value>>) {
        let mut sessions = self.shared.sharp_sessions.lock().expect("sharp lock");
        sessions.insert(session.to_string(), taken);
    }
}

/// Hands a frame of a second session to the capture waiting for it; true when `session` is
/// one (its frames are never acked nor published as the tab's own).
pub(super) fn took(shared: &Shared, session: &str, params: &Value) -> bool {
    let mut sessions = shared.sharp_sessions.lock().expect("sharp lock");
    let Some(waiting) = sessions.get_mut(session) else {
        return false;
    };
    if let Some(taken) = waiting.take() {
        let _ = taken.send(params.clone());
    }
    true
}
