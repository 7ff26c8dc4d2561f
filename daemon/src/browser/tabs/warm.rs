//! An agent's next tab, opened ahead. Chrome takes 40–60 ms to open a tab in a window of its
//! own (an agent's tab has one, so it paints beside everyone's), most of what a CDP client's
//! `newPage` costs through the door. So once a door client has opened a tab (and gone quiet:
//! `cdp_door/warm_next.rs`), the session opens the next one ahead: a blank page in a window of
//! its own, untracked — no list shows it, no client or agent can reach it, and the event loop
//! leaves it alone (`TabLife::is_warm`) — which the next agent tab opened in the session takes
//! (`open_tab_laid_out`), paying only its tracking. At most one per session, and none in host
//! mode (it would be a window on the user's screen; `TabLife::keep_warm` decides). It goes with
//! the browser, and is forgotten when Chrome reports it destroyed (a profile reset closes every
//! page).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::sync::watch;

use crate::cdp::CdpConnection;

/// The session's tab opened ahead. Short lock.
#[derive(Debug, Default)]
pub(in crate::browser) struct WarmTab {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    /// Made and not taken yet.
    ready: Option<String>,
    /// Being made now.
    making: bool,
}

impl WarmTab {
    /// Opens the tab ahead in the background when none is ready or being made. `creating`
    /// counts it among the tabs being created until Chrome answers (the event loop, told of
    /// the target first, waits for that and then finds it warm); once `winding_down`, a tab
    /// made meanwhile is closed instead.
    pub(in crate::browser) fn open_ahead(
        &self,
        cdp: &CdpConnection,
        creating: &Arc<watch::Sender<usize>>,
        winding_down: &Arc<AtomicBool>,
        channel: &str,
    ) {
        {
            let mut state = self.state.lock().expect("warm lock");
            if state.ready.is_some() || state.making {
                return;
            }
            state.making = true;
        }
        creating.send_modify(|n| *n += 1);
        let (cdp, creating, winding_down, state) = (
            cdp.clone(),
            creating.clone(),
            winding_down.clone(),
            self.state.clone(),
        );
        let channel = channel.to_string();
        tokio::spawn(async move {
            let params = json!({"url": "about:blank", "newWindow": true, "background": true, "focus": false});
            let created = cdp.call("Target.createTarget", params).await;
            let id = created
                .as_ref()
                .ok()
                .and_then(|r| r["targetId"].as_str())
                .map(str::to_string);
            let mut left_over = None;
            {
                let mut state = state.lock().expect("warm lock");
                state.making = false;
                match (id, winding_down.load(Ordering::SeqCst)) {
                    (Some(id), false) => {
                        tracing::debug!(event = "warm_tab_ready", channel_id = %channel, target_id = %id);
                        state.ready = Some(id);
                    }
                    (Some(id), true) => left_over = Some(id),
                    (None, _) => {}
                }
            }
            creating.send_modify(|n| *n = n.saturating_sub(1));
            if let Err(error) = &created {
                tracing::debug!(event = "warm_tab_failed", channel_id = %channel, %error);
            }
            if let Some(id) = left_over {
                let _ = cdp
                    .call("Target.closeTarget", json!({ "targetId": id }))
                    .await;
            }
        });
    }

    /// The tab opened ahead, taken (no longer warm: the caller tracks it).
    pub(in crate::browser) fn take(&self) -> Option<String> {
        self.state.lock().expect("warm lock").ready.take()
    }

    /// Whether `target_id` is the tab opened ahead.
    pub(in crate::browser) fn is(&self, target_id: &str) -> bool {
        self.state.lock().expect("warm lock").ready.as_deref() == Some(target_id)
    }

    /// Forgets the tab opened ahead when it is `target_id` (Chrome destroyed it).
    pub(in crate::browser) fn forget(&self, target_id: &str) {
        let mut state = self.state.lock().expect("warm lock");
        if state.ready.as_deref() == Some(target_id) {
            state.ready = None;
        }
    }
}
