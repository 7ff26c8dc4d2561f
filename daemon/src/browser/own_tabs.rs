//! What a session does differently on the user's own Chrome (`Ownership::OwnTabs`): closing
//! only Porthole's tabs, telling whether a tab paints, and saying what to enable when Chrome
//! goes away. Never touches a tab the session does not track.

use serde_json::json;

use super::session::{BrowserSession, Ownership};

impl BrowserSession {
    /// True when the page behind `session` reports `document.visibilityState == "hidden"`.
    pub(super) async fn is_hidden(&self, session: &str) -> bool {
        self.cdp
            .call_on(
                session,
                "Runtime.evaluate",
                json!({"expression": "document.visibilityState", "returnByValue": true}),
            )
            .await
            .is_ok_and(|reply| reply["result"]["value"] == "hidden")
    }

    /// Closes every tab this session tracks, without a replacement (host-mode stop: Porthole's
    /// own tabs go, the user's stay). Returns how many were closed.
    pub async fn close_own_tabs(&self) -> usize {
        self.winding_down
            .store(true, std::sync::atomic::Ordering::SeqCst);
        // A tab Chrome is still opening for us closes itself (see `open_tab`) or is tracked
        // by the time this resolves; the caller bounds the wait.
        let mut creating = self.creating.subscribe();
        let _ = creating.wait_for(|n| *n == 0).await;
        let ids: Vec<String> = {
            let tabs = self.tabs.lock().expect("tabs lock");
            tabs.infos().into_iter().map(|t| t.target_id).collect()
        };
        let mut closed = 0;
        for id in ids {
            match self
                .cdp
                .call("Target.closeTarget", json!({ "targetId": id }))
                .await
            {
                Ok(_) => closed += 1,
                Err(error) => {
                    tracing::debug!(event = "own_tab_close_failed", channel_id = %self.channel(), target_id = %id, %error)
                }
            }
            self.untrack(&id);
        }
        closed
    }

    /// What a person reads when the browser went away.
    pub(super) fn gone_message(&self, reason: &str) -> String {
        match self.ownership() {
            Ownership::OwnTabs => format!(
                "Your Chrome closed or stopped allowing remote debugging ({reason}). Reopen Chrome with remote debugging on (chrome://inspect/#remote-debugging) and start again, or switch channel {} back to another mode.",
                self.channel()
            ),
            Ownership::AllTabs => format!(
                "The browser of channel {} went away ({reason}); send start to bring it back.",
                self.channel()
            ),
        }
    }
}
