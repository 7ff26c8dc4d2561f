//! The tab panes start on and the owner token acts in: opening the person's tab, making a tab
//! the active one, and closing a tab (the last one is replaced, so a channel always has a tab
//! to show and drive).

use serde_json::json;

use super::tracking::TabLife;
use crate::browser::floor::{Ownership, SessionError, TabInfo, TabOwner};

impl TabLife<'_> {
    /// Opens a tab of the person at the pane (about:blank by default, in a window of its own
    /// so it paints while another pane watches another tab) and makes it active.
    pub async fn new_tab(&self, url: Option<&str>) -> Result<TabInfo, SessionError> {
        let target_id = self.open_tab(url, TabOwner::Human, true).await?;
        self.switch_tab(&target_id).await?;
        self.core
            .tabs()
            .get(&target_id)
            .map(|t| t.info())
            .ok_or(SessionError::UnknownTab(target_id))
    }

    /// Makes a tracked tab the active one (brought to front so it renders at full speed): the tab
    /// new panes start on and the owner token acts in. Panes' views are their own (the session's
    /// `pane_view`); this moves none of them.
    pub async fn switch_tab(&self, target_id: &str) -> Result<(), SessionError> {
        let Some(session_id) = self.core.tabs().set_active(target_id) else {
            return Err(SessionError::UnknownTab(target_id.to_string()));
        };
        // Activating raises the tab's window and takes focus. Our own browser: always (a
        // hidden tab sends no frames). The user's Chrome: each Porthole tab sits in a
        // background window of its own where it already paints, so only a tab that is hidden
        // (a popup that opened over its opener) is activated, and only in Porthole's window.
        let activate = match self.core.ownership() {
            Ownership::OwnTabs => self.is_hidden(&session_id).await,
            Ownership::AllTabs => true,
        };
        if activate {
            self.core
                .cdp()
                .call("Target.activateTarget", json!({ "targetId": target_id }))
                .await?;
        }
        self.core.size_active();
        Ok(())
    }

    /// Closes a tracked tab; closing the last one leaves a fresh about:blank tab.
    pub async fn close_tab(&self, target_id: &str) -> Result<(), SessionError> {
        let Some(count) = self.core.tabs().len_if_tracked(target_id) else {
            return Err(SessionError::UnknownTab(target_id.to_string()));
        };
        if count == 1 {
            // The active tab's context dies with it: make the replacement first.
            self.new_tab(None).await?;
        }
        self.core
            .cdp()
            .call("Target.closeTarget", json!({ "targetId": target_id }))
            .await?;
        self.untrack(target_id);
        Ok(())
    }
}
