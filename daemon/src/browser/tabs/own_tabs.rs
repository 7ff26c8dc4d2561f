//! What a session does differently on the user's own Chrome (`Ownership::OwnTabs`): closing
//! only Porthole's tabs, telling whether a tab paints, and saying what to enable when Chrome
//! goes away. Never touches a tab the session does not track.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;
use tokio::sync::watch;

use super::tracking::TabLife;
use crate::browser::floor::Ownership;

/// The document's `visibilityState`.
const VISIBILITY_STATE: &str = include_str!("js/visibility-state.js");

/// How long one round of closes waits for Chrome to report the tabs destroyed.
const CLOSE_ROUND: Duration = Duration::from_millis(500);
/// Rounds of closes before giving up on a tab Chrome keeps (the caller bounds the time too).
const CLOSE_ROUNDS: usize = 8;

/// Waits up to `within` for Chrome to report every id in `left` destroyed (`gone`: the targets
/// reported so far while winding down, see `traffic`), removing each.
async fn wait_destroyed(
    gone: &mut watch::Receiver<HashSet<String>>,
    left: &mut HashSet<String>,
    within: Duration,
) {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        {
            let gone = gone.borrow_and_update();
            left.retain(|id| !gone.contains(id));
        }
        if left.is_empty() {
            return;
        }
        match tokio::time::timeout_at(deadline, gone.changed()).await {
            Err(_) | Ok(Err(_)) => return,
            Ok(Ok(())) => {}
        }
    }
}

impl TabLife<'_> {
    /// True when the page behind `session` reports `document.visibilityState == "hidden"`.
    pub(in crate::browser) async fn is_hidden(&self, session: &str) -> bool {
        self.core
            .cdp()
            .call_on(
                session,
                "Runtime.evaluate",
                json!({"expression": VISIBILITY_STATE, "returnByValue": true}),
            )
            .await
            .is_ok_and(|reply| reply["result"]["value"] == "hidden")
    }

    /// Closes every tab Porthole opened or was opening in this session, without a
    /// replacement (host-mode stop: Porthole's own tabs go, the user's stay), and returns once
    /// Chrome no longer lists them. Returns how many it closed.
    ///
    /// Chrome answers `Target.closeTarget` before the tab is gone (a tab still loading goes a
    /// moment later, and a close can be lost while it is being set up), so each round closes
    /// what is left, waits for `Target.targetDestroyed`, and asks Chrome's own target list.
    pub(in crate::browser) async fn close_own_tabs(&self) -> usize {
        self.traffic.winding_down.store(true, Ordering::SeqCst);
        // A tab Chrome is still opening for us lands in `opening` or closes itself (see
        // `open_tab`); the caller bounds the wait.
        let mut creating = self.traffic.creating.subscribe();
        let _ = creating.wait_for(|n| *n == 0).await;
        let mut gone = self.traffic.gone.subscribe();
        let mut asked: HashSet<String> = HashSet::new();
        let mut left: HashSet<String> = HashSet::new();
        for round in 0..CLOSE_ROUNDS {
            // Opened for us but not tracked yet, then what is tracked (in this order: a tab
            // leaves `opening` only once it is tracked), popups that appeared meanwhile too.
            left.extend(self.traffic.opening.lock().expect("opening lock").drain());
            left.extend(self.tracked_ids());
            if left.is_empty() {
                break;
            }
            for id in &left {
                asked.insert(id.clone());
                if let Err(error) = self
                    .core
                    .cdp()
                    .call("Target.closeTarget", json!({ "targetId": id }))
                    .await
                {
                    tracing::debug!(event = "own_tab_close_failed", channel_id = %self.core.channel(), target_id = %id, round, %error);
                }
            }
            wait_destroyed(&mut gone, &mut left, CLOSE_ROUND).await;
            // Chrome's own list is the truth (a lagging event reader can miss a destroy).
            if !left.is_empty() {
                if let Ok(targets) = self.core.cdp().call("Target.getTargets", json!({})).await {
                    let listed: HashSet<&str> = targets["targetInfos"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|t| t["targetId"].as_str())
                        .collect();
                    left.retain(|id| listed.contains(id.as_str()));
                }
            }
            for id in asked.iter().filter(|id| !left.contains(*id)) {
                self.untrack(id);
            }
            if left.is_empty() {
                break;
            }
        }
        if !left.is_empty() {
            tracing::warn!(event = "own_tabs_left_open", channel_id = %self.core.channel(), left = left.len());
        }
        asked.len() - left.len()
    }

    /// Target ids of the tabs this session tracks.
    fn tracked_ids(&self) -> Vec<String> {
        let (tabs, _) = self.core.tabs().infos();
        tabs.into_iter().map(|t| t.target_id).collect()
    }

    /// Whether Porthole is closing the session's own tabs (a host-mode stop): a tab list that
    /// empties then is not refilled, and a popup of ours goes too.
    pub(in crate::browser) fn winding_down(&self) -> bool {
        self.traffic.winding_down.load(Ordering::SeqCst)
    }

    /// What a person reads when the browser went away.
    pub(in crate::browser) fn gone_message(&self, reason: &str) -> String {
        match self.core.ownership() {
            Ownership::OwnTabs => format!(
                "Your Chrome closed or stopped allowing remote debugging ({reason}). Reopen Chrome with remote debugging on (chrome://inspect/#remote-debugging) and start again, or switch channel {} back to another mode.",
                self.core.channel()
            ),
            Ownership::AllTabs => format!(
                "The browser of channel {} went away ({reason}); send start to bring it back.",
                self.core.channel()
            ),
        }
    }
}
