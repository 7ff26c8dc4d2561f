//! The session's tabs and the size they are laid out at, as the rest of the daemon names them:
//! by target id, by flat CDP session, the active one. Each asks the floor's core or the `tabs`
//! room (`tab_life()`).

use super::handle::BrowserSession;
use crate::browser::floor::{PaneMessage, SessionError, TabInfo, TabOwner};

impl BrowserSession {
    /// Who owns a tracked tab.
    pub(crate) fn owner_of(&self, target_id: &str) -> Option<TabOwner> {
        self.core.tabs().owner_of(target_id)
    }

    /// The main frame's id of the tab behind flat session `session` (its target's id); `None`
    /// for a session that is not a tab's (an out-of-process frame's).
    pub(crate) fn main_frame_of(&self, session: &str) -> Option<String> {
        self.core.tabs().main_frame_of(session)
    }

    /// The flat CDP session id of a tracked tab.
    pub fn tab_session(&self, target_id: &str) -> Option<String> {
        self.core.tab_session(target_id)
    }

    pub fn tab_count(&self) -> usize {
        self.core.tabs().len()
    }

    /// The `tabs` message describing the current list.
    pub(crate) fn tabs_message(&self) -> PaneMessage {
        self.core.tabs_message()
    }

    /// Tabs in order, with the active one's id.
    pub(crate) fn tab_infos(&self) -> (Vec<TabInfo>, Option<String>) {
        self.core.tabs().infos()
    }

    /// `page_info` of a tab.
    pub(crate) fn page_info_of(&self, target_id: &str) -> Option<PaneMessage> {
        self.core.tabs().page_info(target_id)
    }

    /// `(target_id, session_id)` of the active tab.
    pub(crate) fn active_tab(&self) -> Result<(String, String), SessionError> {
        self.core.active_tab()
    }

    /// Resolves a tab reference: a 1-based index (as `list_tabs` prints) or a target id.
    pub(crate) fn resolve_tab(&self, reference: &str) -> Result<String, SessionError> {
        self.core.tabs().resolve(reference)
    }

    /// Opens a tab of the person at the pane (about:blank by default, in a window of its own
    /// so it paints while another pane watches another tab) and makes it active.
    pub async fn new_tab(&self, url: Option<&str>) -> Result<TabInfo, SessionError> {
        self.tab_life().new_tab(url).await
    }

    /// Makes a tracked tab the active one: the tab new panes start on and the owner token acts
    /// in (see `tabs::active`).
    pub async fn switch_tab(&self, target_id: &str) -> Result<(), SessionError> {
        self.tab_life().switch_tab(target_id).await
    }

    /// Closes a tracked tab; closing the last one leaves a fresh about:blank tab.
    pub async fn close_tab(&self, target_id: &str) -> Result<(), SessionError> {
        self.tab_life().close_tab(target_id).await
    }

    /// Closes every tab Porthole opened in this session, without a replacement (host-mode
    /// stop); returns how many it closed (see `tabs::own_tabs`).
    pub(crate) async fn close_own_tabs(&self) -> usize {
        self.tab_life().close_own_tabs().await
    }

    /// Sets the page viewport (CSS px) of the active tab (and of tabs shown later).
    pub(crate) async fn set_viewport(&self, width: u32, height: u32) -> Result<(), SessionError> {
        let (_, session) = self.active_tab()?;
        self.set_viewport_on(&session, width, height).await
    }

    /// Sets the channel's viewport (CSS px) and lays the tab behind flat CDP `session` out at
    /// it (other tabs follow when they are shown).
    pub(crate) async fn set_viewport_on(
        &self,
        session: &str,
        width: u32,
        height: u32,
    ) -> Result<(), SessionError> {
        self.core.set_viewport_on(session, width, height).await
    }

    /// Lays the tab behind the flat CDP `session` out at the channel's viewport.
    pub(crate) async fn size_tab(&self, session: &str) -> Result<(), SessionError> {
        self.core.size_tab_to(session, self.viewport()).await
    }

    /// The viewport requested for this channel.
    pub fn viewport(&self) -> (u32, u32) {
        self.core.viewport()
    }
}
