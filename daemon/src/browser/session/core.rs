//! SessionCore: what every room of a session works on — which channel and mode it is, the
//! browser-level connection, the tab list, the session's life, the notices to panes, and the
//! size panes see tabs at. A room's handle borrows it (`Dialogs<'_>`,
//! `Navigation<'_>` …); the core imports no room that works on it, so every import in
//! `browser/` points down to here.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::browser::floor::{Layouts, PaneMessage, SessionError, Tabs};
use crate::cdp::{CdpConnection, CdpError};
use crate::channel_id::ChannelId;
use crate::mode::Mode;

/// Which targets a session shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// Every page of the browser (docker and local modes: the browser is ours).
    AllTabs,
    /// Only tabs this session created, and popups they opened (host mode: the rest is the
    /// user's).
    OwnTabs,
}

/// The parts of one (channel, mode) session every room works on.
pub(in crate::browser) struct SessionCore {
    /// The channel this session is of.
    pub channel: ChannelId,
    /// The mode (docker, local, host) its browser runs in.
    pub mode: Mode,
    /// Which targets it shows.
    pub ownership: Ownership,
    /// The browser-level connection (tabs are flat sessions on it).
    pub cdp: CdpConnection,
    /// The tracked tabs, each with its record (see the floor's `tab_list`). Short lock, never held
    /// across an await.
    pub tabs: Tabs,
    /// Whether and why the session ended.
    pub life: Life,
    /// Notices to every pane of the channel.
    pub notices: broadcast::Sender<PaneMessage>,
    /// What panes see: screencasts, layouts, the channel's viewport.
    pub views: Views,
}

impl SessionCore {
    /// Tells every pane of the channel; no pane listening is fine.
    pub fn notify(&self, message: PaneMessage) {
        let _ = self.notices.send(message);
    }

    /// True while the browser answers and nobody closed the session.
    pub fn is_alive(&self) -> bool {
        !self.life.closed.is_cancelled() && !self.cdp.is_lost()
    }

    /// Closes the session: panes get `stopped`, the screencast ends. The browser itself is the
    /// provider's business.
    pub fn close(&self, reason: &str) {
        if !self.life.closed.is_cancelled() {
            self.life
                .end_reason
                .lock()
                .expect("end reason lock")
                .get_or_insert_with(|| reason.to_string());
            self.life.closed.cancel();
            self.notify(PaneMessage::Stopped {
                channel_id: self.channel.to_string(),
                reason: reason.to_string(),
            });
        }
    }

    /// The `tabs` message describing the current list.
    pub fn tabs_message(&self) -> PaneMessage {
        let (tabs, active_target_id) = self.tabs.infos();
        PaneMessage::Tabs {
            tabs,
            active_target_id,
        }
    }

    /// `(target_id, session_id)` of the active tab.
    pub fn active_tab(&self) -> Result<(String, String), SessionError> {
        if !self.is_alive() {
            return Err(SessionError::Closed);
        }
        self.tabs
            .active()
            .map(|t| (t.target_id, t.session_id))
            .ok_or(SessionError::Closed)
    }

    /// The flat CDP session id of a tracked tab.
    pub fn tab_session(&self, target_id: &str) -> Option<String> {
        self.tabs.session_of(target_id)
    }

    /// How many panes are attached now (the timeline's own follower is no pane).
    pub fn pane_count(&self) -> usize {
        self.views.panes.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The viewport requested for this channel.
    pub fn viewport(&self) -> (u32, u32) {
        *self.views.viewport.lock().expect("viewport lock")
    }

    /// Device pixels per pane px of the tab behind flat CDP `session` (input coordinates are
    /// multiplied by it).
    pub fn pixel_scale(&self, session: &str) -> f64 {
        self.views.layouts.applied().of(session)
    }

    /// Lays the active tab out at the channel's size.
    pub fn size_active(&self) {
        let active = self.tabs.active().map(|t| t.session_id);
        if let Some(session) = active {
            self.lay_out_later(&session, self.viewport());
        }
    }

    /// Records `size` for the tab behind `session` now and sends it from a task (a later
    /// request for the tab still wins).
    pub fn lay_out_later(&self, session: &str, size: (u32, u32)) {
        let requested = self.views.layouts.request(session, size);
        let cdp = self.cdp.clone();
        tokio::spawn(async move {
            let _ = requested.apply(&cdp).await;
        });
    }

    /// Sets the channel's viewport (CSS px) and lays the tab behind flat CDP `session` out at
    /// it (other tabs follow when they are shown).
    pub async fn set_viewport_on(
        &self,
        session: &str,
        width: u32,
        height: u32,
    ) -> Result<(), SessionError> {
        let requested = self.views.layouts.request(session, (width, height));
        *self.views.viewport.lock().expect("viewport lock") =
            crate::browser::floor::clamp_size((width, height));
        requested.apply(&self.cdp).await?;
        Ok(())
    }

    /// Lays the tab behind the flat CDP `session` out at `size` (a pane's own size).
    pub async fn size_tab_to(&self, session: &str, size: (u32, u32)) -> Result<(), SessionError> {
        self.views
            .layouts
            .request(session, size)
            .apply(&self.cdp)
            .await?;
        Ok(())
    }

    /// Evaluates `expression` in execution context `context` of the tab behind flat CDP
    /// `session` (an isolated world of the daemon's) and returns its JSON value; a thrown
    /// exception is an error with its text.
    pub async fn evaluate_in(
        &self,
        session: &str,
        context: &Value,
        expression: &str,
    ) -> Result<Value, SessionError> {
        let reply = self
            .cdp
            .call_on(
                session,
                "Runtime.evaluate",
                json!({"expression": expression, "contextId": context, "returnByValue": true}),
            )
            .await?;
        if let Some(text) = crate::cdp::thrown(&reply) {
            return Err(SessionError::Cdp(CdpError::Protocol {
                method: "Runtime.evaluate".into(),
                code: 0,
                message: text,
            }));
        }
        Ok(reply["result"]["value"].clone())
    }
}

/// Whether and why the session ended.
#[derive(Debug, Default)]
pub(in crate::browser) struct Life {
    /// Cancelled when the session is closed.
    pub closed: CancellationToken,
    /// Why the session ended, once it has. Short lock.
    pub end_reason: Mutex<Option<String>>,
}

/// What panes see: the shared screencasts and the size tabs are laid out at.
pub(in crate::browser) struct Views {
    /// The size each tab is laid out at, sent in the order asked (a tab's goes with its record).
    pub layouts: Arc<Layouts>,
    /// Requested viewport (CSS px). Short lock.
    pub viewport: Mutex<(u32, u32)>,
    /// Panes attached now (each `PaneView` counts itself while it lives).
    pub panes: std::sync::atomic::AtomicUsize,
}
