//! What one pane looks at: the tab it watches (its own choice, or where an agent acts while
//! it follows agents), and how the channel's notices read from there.
//!
//! There is no single active tab shown to every pane: each pane watches a tab of its own
//! choosing, its input and navigation go to that tab, and its `tabs`, `tab_switched` and
//! `page_info` messages speak of it. The session's own active tab remains the person's last
//! choice: where a new pane starts and where the owner token acts. A pane's view never moves
//! an agent. This module never writes to a socket; the WebSocket layer does.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::handle::BrowserSession;
use crate::browser::floor::{PaneMessage, SessionError, TabOwner};
use crate::browser::view::screencast::Watching;

/// One pane's view of its channel.
pub struct PaneView {
    session: Arc<BrowserSession>,
    /// Target id of the tab watched. Short lock.
    watched: Mutex<Option<String>>,
    /// Whether the view moves to the tab an agent acts in (on by default).
    follow_agents: AtomicBool,
    /// The size this pane asked for (CSS px); the channel's until it asks. Short lock.
    size: Mutex<Option<(u32, u32)>>,
    /// Bumped whenever the watched tab changes.
    version: watch::Sender<u64>,
}

impl Drop for PaneView {
    fn drop(&mut self) {
        self.session.core.pane_detached();
    }
}

impl std::fmt::Debug for PaneView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaneView")
            .field("watched", &self.watched())
            .finish_non_exhaustive()
    }
}

impl PaneView {
    /// A view of `session` that starts on the session's active tab, following agents.
    pub fn new(session: Arc<BrowserSession>) -> Arc<Self> {
        let watched = session.active_tab().ok().map(|(id, _)| id);
        session.core.pane_attached();
        Arc::new(Self {
            session,
            watched: Mutex::new(watched),
            follow_agents: AtomicBool::new(true),
            size: Mutex::new(None),
            version: watch::channel(0).0,
        })
    }

    pub fn session(&self) -> &Arc<BrowserSession> {
        &self.session
    }

    /// Target id of the tab this pane watches.
    pub fn watched(&self) -> Option<String> {
        self.watched.lock().expect("watched lock").clone()
    }

    /// `(target_id, flat session)` of the watched tab; the session's active tab when the
    /// watched one is gone.
    pub fn watched_tab(&self) -> Result<(String, String), SessionError> {
        if let Some(target) = self.watched() {
            if let Some(session) = self.session.tab_session(&target) {
                return Ok((target, session));
            }
        }
        self.session.active_tab()
    }

    /// Watches `target_id` from now on (a tracked tab); false when it was watched already.
    pub fn show(&self, target_id: &str) -> Result<bool, SessionError> {
        let Some(tab_session) = self.session.tab_session(target_id) else {
            return Err(SessionError::UnknownTab(target_id.to_string()));
        };
        {
            let mut watched = self.watched.lock().expect("watched lock");
            if watched.as_deref() == Some(target_id) {
                return Ok(false);
            }
            *watched = Some(target_id.to_string());
        }
        // Lay the tab out at this pane's size before its first frame reaches the pane.
        let size = self
            .size
            .lock()
            .expect("size lock")
            .unwrap_or_else(|| self.session.viewport());
        self.session.core.lay_out_later(&tab_session, size);
        self.version.send_modify(|v| *v += 1);
        Ok(true)
    }

    /// Records the size this pane shows the page at; tabs it moves to are laid out at it.
    pub fn set_size(&self, width: u32, height: u32) {
        *self.size.lock().expect("size lock") = Some((width, height));
    }

    /// Turns "follow agents" on or off for this pane only.
    pub fn set_follow_agents(&self, on: bool) {
        self.follow_agents.store(on, Ordering::SeqCst);
    }

    /// Changes of the watched tab (the pane's writer re-subscribes its frames on each).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// Starts receiving the watched tab's frames.
    pub fn frames(&self) -> Option<Watching> {
        let (target, session) = self.watched_tab().ok()?;
        Some(self.session.screencast().watch(&target, &session))
    }

    /// The `tabs` message as this pane sees it (its watched tab as the active one).
    pub fn tabs_message(&self) -> PaneMessage {
        let (tabs, _) = self.session.tab_infos();
        PaneMessage::Tabs {
            tabs,
            active_target_id: self.watched(),
        }
    }

    /// What a pane is told after its view moved: the tab, its page, the list.
    pub fn view_messages(&self) -> Vec<PaneMessage> {
        let Some(target_id) = self.watched() else {
            return vec![self.tabs_message()];
        };
        let mut messages = vec![PaneMessage::TabSwitched {
            target_id: target_id.clone(),
        }];
        messages.extend(self.session.page_info_of(&target_id));
        messages.push(self.tabs_message());
        messages
    }

    /// A channel notice as this pane should get it (`None`: not for this pane). May move the
    /// view: off a tab that closed, to where an agent acts while following agents, onto a tab
    /// when it had none.
    pub fn adapt(&self, message: PaneMessage) -> Option<PaneMessage> {
        match message {
            PaneMessage::Tabs { tabs, .. } => {
                let watched = self.watched();
                let lost = watched
                    .as_deref()
                    .is_none_or(|w| !tabs.iter().any(|t| t.target_id == w));
                if lost {
                    self.fall_back();
                }
                Some(PaneMessage::Tabs {
                    tabs,
                    active_target_id: self.watched(),
                })
            }
            PaneMessage::PageInfo { ref target_id, .. } => {
                (target_id.as_deref() == self.watched().as_deref()).then_some(message)
            }
            // A page the pane watches opened a tab of the person's (a link with
            // target=_blank): the pane goes there, as a browser brings such a tab to the front.
            // An agent's popups move the agent, and panes following it, instead.
            PaneMessage::TabCreated {
                ref target_id,
                opener_id: Some(ref opener),
                ..
            } if self.watched().as_deref() == Some(opener.as_str()) => {
                if self.session.owner_of(target_id) == Some(TabOwner::Human) {
                    if let Err(error) = self.show(target_id) {
                        tracing::debug!(event = "follow_popup_failed", %target_id, %error);
                    }
                }
                Some(message)
            }
            PaneMessage::TabClosed { ref target_id } => {
                if self.watched().as_deref() == Some(target_id) {
                    self.fall_back();
                }
                Some(message)
            }
            PaneMessage::AgentActivity {
                target_id: Some(ref target_id),
                ..
            } if self.follow_agents.load(Ordering::SeqCst) => {
                if self.watched().as_deref() != Some(target_id) {
                    if let Err(error) = self.show(target_id) {
                        tracing::debug!(event = "follow_agent_failed", %target_id, %error);
                    }
                }
                Some(message)
            }
            other => Some(other),
        }
    }

    /// Moves off a tab that is gone: to the session's active tab (the person's last choice,
    /// or the closed tab's neighbour).
    fn fall_back(&self) {
        let next = self.session.active_tab().ok().map(|(id, _)| id);
        match next {
            Some(target) => {
                let _ = self.show(&target);
            }
            None => {
                if self.watched.lock().expect("watched lock").take().is_some() {
                    self.version.send_modify(|v| *v += 1);
                }
            }
        }
    }
}
