//! An agent's next tab, opened ahead. Chrome takes 40–60 ms to open a tab in a window of its
//! own (an agent's tab has one, so it paints beside everyone's), most of what a CDP client's
//! `newPage` costs through the door. So once a door client has opened a tab (and gone quiet:
//! `cdp_door/warm_next.rs`), the session opens the next one ahead: a blank page in a window of its own, untracked — no list shows it, no
//! client or agent can reach it, and the event loop leaves it alone ([`TabLife::is_warm`]) —
//! which the next agent tab opened in the session takes (`open_tab_laid_out`), paying only
//! its tracking. At most one per session, and none in host mode (it would be a window on the
//! user's screen). It goes with the browser, and is forgotten when Chrome reports it destroyed
//! (a profile reset closes every page).

use serde_json::json;

use super::tracking::TabLife;
use crate::browser::floor::Ownership;

/// The session's tab opened ahead.
#[derive(Debug, Default)]
pub(in crate::browser) struct Warm {
    /// Made and not taken yet.
    ready: Option<String>,
    /// Being made now.
    making: bool,
}

impl TabLife<'_> {
    /// Opens the next agent tab ahead when none is ready or being made (in the background: the
    /// caller does not wait). Nothing in host mode or once the session winds down.
    pub(in crate::browser) fn keep_warm(&self) {
        if self.core.ownership() != Ownership::AllTabs || !self.core.is_alive() {
            return;
        }
        {
            let mut warm = self.traffic.warm.lock().expect("warm lock");
            if warm.ready.is_some() || warm.making {
                return;
            }
            warm.making = true;
        }
        // Counted as a tab being created: the event loop, told of the target before Chrome
        // answers, waits for the answer and then finds it warm.
        self.traffic.creating.send_modify(|n| *n += 1);
        let (cdp, creating, warm, winding_down) = (
            self.core.cdp().clone(),
            self.traffic.creating.clone(),
            self.traffic.warm.clone(),
            self.traffic.winding_down.clone(),
        );
        let channel = self.core.channel().to_string();
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
                let mut warm = warm.lock().expect("warm lock");
                warm.making = false;
                match (id, winding_down.load(std::sync::atomic::Ordering::SeqCst)) {
                    (Some(id), false) => {
                        tracing::debug!(event = "warm_tab_ready", channel_id = %channel, target_id = %id);
                        warm.ready = Some(id)
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
    pub(super) fn take_warm(&self) -> Option<String> {
        self.traffic.warm.lock().expect("warm lock").ready.take()
    }

    /// Whether `target_id` is the tab opened ahead (the event loop leaves it alone).
    pub(in crate::browser) fn is_warm(&self, target_id: &str) -> bool {
        self.traffic
            .warm
            .lock()
            .expect("warm lock")
            .ready
            .as_deref()
            == Some(target_id)
    }

    /// Forgets the tab opened ahead when it is `target_id` (Chrome destroyed it).
    pub(super) fn forget_warm(&self, target_id: &str) {
        let mut warm = self.traffic.warm.lock().expect("warm lock");
        if warm.ready.as_deref() == Some(target_id) {
            warm.ready = None;
        }
    }
}
