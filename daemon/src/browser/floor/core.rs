//! SessionCore: what every room of a session works on — which channel and mode it is, the
//! browser-level connection, the tab list, the session's life, the notices to panes, and the
//! size panes see tabs at. Its fields are private: a room asks it by name (`cdp()`, `tabs()`,
//! `notify()`, `size_tab_to()` …) and a room's handle borrows it (`Dialogs<'_>`,
//! `Navigation<'_>` …). The core imports no room that works on it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::browser::floor::{clamp_size, Layouts, PaneMessage, SessionError, Tabs};
use crate::cdp::{CdpConnection, CdpError};
use crate::channel_id::ChannelId;
use crate::mode::Mode;
use crate::reach::Reach;

/// How many notices a pane may fall behind by before it misses some.
const NOTICES: usize = 256;

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
    channel: ChannelId,
    /// The mode (docker, local, host) its browser runs in.
    mode: Mode,
    /// Which targets it shows.
    ownership: Ownership,
    /// The browser-level connection (tabs are flat sessions on it).
    cdp: CdpConnection,
    /// The tracked tabs, each with its record (see `tab_list`). Short lock, never held across
    /// an await.
    tabs: Tabs,
    /// Whether and why the session ended.
    life: Life,
    /// Notices to every pane of the channel.
    notices: broadcast::Sender<PaneMessage>,
    /// The size panes see tabs at, and how many panes look.
    views: Views,
    /// The daemon-wide stream of what needs the person (`/api/events`) and the notifier.
    reach: Reach,
}

/// Whether and why the session ended.
#[derive(Debug, Default)]
struct Life {
    /// Cancelled when the session is closed.
    closed: CancellationToken,
    /// Why the session ended, once it has. Short lock.
    end_reason: Mutex<Option<String>>,
}

/// The size panes see tabs at, and how many panes look.
struct Views {
    /// The size each tab is laid out at, sent in the order asked (a tab's goes with its record).
    layouts: Arc<Layouts>,
    /// Requested viewport (CSS px). Short lock.
    viewport: Mutex<(u32, u32)>,
    /// Panes attached now (each pane's view counts itself while it lives).
    panes: AtomicUsize,
}

impl SessionCore {
    /// The core of `channel`'s session in `mode` on the browser behind `cdp`, showing
    /// `ownership`'s tabs, laid out at `viewport` (CSS px) until a pane asks for another; it
    /// ends when `closed` is cancelled (the session's dispatch ends with the same token).
    pub fn new(
        channel: ChannelId,
        mode: Mode,
        ownership: Ownership,
        cdp: CdpConnection,
        closed: CancellationToken,
        viewport: (u32, u32),
        reach: Reach,
    ) -> Self {
        Self {
            channel,
            mode,
            ownership,
            cdp,
            tabs: Tabs::default(),
            life: Life {
                closed,
                end_reason: Mutex::new(None),
            },
            notices: broadcast::channel(NOTICES).0,
            views: Views {
                layouts: Arc::default(),
                viewport: Mutex::new(viewport),
                panes: AtomicUsize::new(0),
            },
            reach,
        }
    }

    // What the session is.

    /// The channel this session is of.
    pub fn channel(&self) -> &ChannelId {
        &self.channel
    }

    /// The mode (docker, local, host) its browser runs in.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Which targets it shows.
    pub fn ownership(&self) -> Ownership {
        self.ownership
    }

    /// The browser-level connection (tabs are flat sessions on it).
    pub fn cdp(&self) -> &CdpConnection {
        &self.cdp
    }

    /// The tracked tabs, each with its record (asked by name, see `Tabs`).
    pub fn tabs(&self) -> &Tabs {
        &self.tabs
    }

    // Notices to panes.

    /// Tells every pane of the channel, and `/api/events` what needs the person (an
    /// approval, a handoff …: see `reach::KINDS`); no pane listening is fine.
    pub fn notify(&self, message: PaneMessage) {
        if message.for_the_person() {
            if let Ok(json) = serde_json::to_value(&message) {
                self.reach.publish(self.channel.as_str(), json);
            }
        }
        let _ = self.notices.send(message);
    }

    /// How the person is reached without a pane.
    pub fn reach(&self) -> &Reach {
        &self.reach
    }

    /// True when the person can be asked something: a pane is attached, an event stream is
    /// open or a notifier is configured.
    pub fn person_reachable(&self) -> bool {
        self.pane_count() > 0 || self.reach.reachable()
    }

    /// Receives every notice for panes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<PaneMessage> {
        self.notices.subscribe()
    }

    /// A way to tell panes for a part that notifies from a task of its own, without the core
    /// (the downloads' notices).
    pub fn notices(&self) -> broadcast::Sender<PaneMessage> {
        self.notices.clone()
    }

    // The session's life.

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

    /// Resolves when the session is closed (not when its browser goes: see [`Self::ended`]).
    pub async fn closed(&self) {
        self.life.closed.cancelled().await;
    }

    /// Resolves when the session is closed or its browser is gone.
    pub async fn ended(&self) {
        tokio::select! {
            _ = self.life.closed.cancelled() => {}
            _ = self.cdp.lost() => {}
        }
    }

    /// Why the session ended (`idle`, `browser_gone`, `profile_reset` …); `None` while it runs.
    pub fn end_reason(&self) -> Option<String> {
        if self.is_alive() {
            return None;
        }
        let recorded = self
            .life
            .end_reason
            .lock()
            .expect("end reason lock")
            .clone();
        Some(recorded.unwrap_or_else(|| "browser_gone".to_string()))
    }

    // The tabs, as panes and tools name them.

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

    // Panes and the size they see tabs at.

    /// How many panes are attached now (the timeline's own follower is no pane).
    pub fn pane_count(&self) -> usize {
        self.views.panes.load(Ordering::SeqCst)
    }

    /// A pane's view began looking (it counts itself while it lives).
    pub fn pane_attached(&self) {
        self.views.panes.fetch_add(1, Ordering::SeqCst);
    }

    /// A pane's view stopped looking.
    pub fn pane_detached(&self) {
        self.views.panes.fetch_sub(1, Ordering::SeqCst);
    }

    /// The size each tab is laid out at (its pixel ratio and zoom too; see `layouts`).
    pub fn layouts(&self) -> &Arc<Layouts> {
        &self.views.layouts
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
        *self.views.viewport.lock().expect("viewport lock") = clamp_size((width, height));
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

    // Running the daemon's own script in a tab.

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
