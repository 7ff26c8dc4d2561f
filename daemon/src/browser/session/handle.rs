//! BrowserSession: the CDP state of one channel in one mode. It opens the session (tracks the
//! browser's tabs, starts every room's follower of Chrome's events) and holds the floor's core
//! (`SessionCore`) and each room's state (`parts`). Each room's handle is lent in `lend`, the
//! tabs are named in `tab_access`, and what every room keeps, installs and closes per tab is
//! `per_tab`.
//!
//! Tab changes made by anyone (a pane, an agent, a page opening a popup) reach every pane as the
//! same messages. Attaching to and opening tabs is `tabs::tracking`; each pane's own view is
//! `pane_view`. This module never starts or stops a browser process; providers do.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use super::parts::{AgentState, Prompts, ToolState};
use super::paused::PAUSED_EVENTS;
use crate::browser::files::person_files::{self, CHOOSER_EVENTS};
use crate::browser::files::transfers::{SessionFiles, FILE_EVENTS};
use crate::browser::floor::{
    Actor, Dispatch, Ownership, PaneMessage, SessionCore, SessionError, TabOwner,
};
use crate::browser::guard::redirects::SHOWN_EVENTS;
use crate::browser::tabs::logs::{TabLogs, LOG_EVENTS};
use crate::browser::tabs::traffic::{TabTraffic, GONE_EVENTS};
use crate::browser::view::screencast::{ScreencastHub, FRAME_EVENTS};
use crate::cdp::CdpConnection;
use crate::channel_id::ChannelId;
use crate::mode::Mode;

/// What a session is opened with, beside its browser connection.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    pub ownership: Ownership,
    /// The viewport (CSS px) tabs are laid out at until a pane asks for another.
    pub screen: (u32, u32),
    /// Where the browser saves downloads (the provider says).
    pub downloads: crate::providers::DownloadPlace,
    /// Where channels' download directories go on the daemon's side (`<data_dir>/downloads`).
    pub downloads_root: Option<std::path::PathBuf>,
    /// `browser.downloads_max_mb`.
    pub download_limits: crate::browser::files::transfers::DownloadLimits,
    /// How long the tools' settle waits (`tools.*` settings).
    pub settle: SettleLimits,
    /// How the person is reached without a pane: the session tells it what needs her.
    pub reach: crate::reach::Reach,
}

pub(crate) use crate::config::SettleLimits;

/// The CDP state of one (channel, mode).
pub struct BrowserSession {
    /// What every room works on: the channel, the connection, the tab list, the session's
    /// life, notices and views.
    pub(in crate::browser) core: Arc<SessionCore>,
    /// Tabs coming and going (the tabs room's, lent with `tab_life()`).
    pub(in crate::browser) traffic: TabTraffic,
    /// One screencast per tab shared by the channel's panes (a tab's cast goes with its record).
    pub(in crate::browser) screencast: Arc<ScreencastHub>,
    /// The MCP tools' logs, worlds, files and settle limits.
    pub(in crate::browser) tools: ToolState,
    /// Agents' current tabs, their locks and the URL guard.
    pub(in crate::browser) agents: AgentState,
    /// What waits for the person: file choosers, auth prompts, popups and menus.
    pub(in crate::browser) prompts: Prompts,
}

impl std::fmt::Debug for BrowserSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserSession")
            .field("channel", &self.core.channel())
            .field("mode", &self.core.mode())
            .finish_non_exhaustive()
    }
}

impl BrowserSession {
    /// Takes over a connected browser: tracks its tabs (creating one when it has none) and
    /// starts following its events.
    pub async fn open(
        channel: ChannelId,
        mode: Mode,
        cdp: CdpConnection,
        options: SessionOptions,
    ) -> Result<Arc<Self>, SessionError> {
        let SessionOptions {
            ownership,
            screen,
            downloads,
            downloads_root,
            download_limits,
            settle,
            reach,
        } = options;
        let closed = CancellationToken::new();
        // One subscription for every room, taken before anything is asked of Chrome.
        let mut dispatch = Dispatch::new(cdp.subscribe(), closed.clone());
        let core = Arc::new(SessionCore::new(
            channel,
            mode,
            ownership,
            cdp.clone(),
            closed.clone(),
            screen,
            reach,
        ));
        let hub = Arc::new(ScreencastHub::new(
            cdp.clone(),
            closed.clone(),
            ownership == Ownership::AllTabs,
            core.layouts().applied().clone(),
        ));
        let logs = TabLogs::new(&cdp);
        let files = SessionFiles::open(
            core.channel().as_str(),
            downloads,
            downloads_root.as_deref(),
            core.notices(),
            download_limits,
        );
        let session = Arc::new(Self {
            core,
            traffic: TabTraffic::default(),
            screencast: hub,
            tools: ToolState {
                logs,
                worlds: Default::default(),
                files,
                settle,
            },
            agents: AgentState::default(),
            prompts: Prompts::default(),
        });
        // Every room follows Chrome's events one way: a queue of the one dispatch, with the
        // events it wants, read in Chrome's order by a follower of its own (see the floor's
        // `dispatch`). Every queue is taken here, before anything is asked of Chrome.
        dispatch.follow("screencast", FRAME_EVENTS, |events| {
            session.screencast.follow(events)
        });
        dispatch.follow("logs", LOG_EVENTS, |events| {
            session.tools.logs.follow(events)
        });
        dispatch.follow("files", FILE_EVENTS, |events| {
            session.tools.files.follow(&cdp, events)
        });
        dispatch.follow("url_guard", SHOWN_EVENTS, |events| {
            session.url_guard().follow(events)
        });
        dispatch.follow("person_files", CHOOSER_EVENTS, |events| {
            person_files::follow(
                session.core.clone(),
                session.prompts.files.clone(),
                session.tools.files.clone(),
                events,
            )
        });
        dispatch.follow("auth", PAUSED_EVENTS, |events| {
            session.paused().follow(events)
        });
        dispatch.follow("tabs_gone", GONE_EVENTS, |events| {
            session.traffic.follow(events)
        });
        // The session's own follower reads its queue once the tabs the browser has now are
        // tracked (below): what happened to them meanwhile waits in its queue.
        let (tracked, on_tracked) = oneshot::channel::<()>();
        dispatch.follow("session", &Self::followed_events(), |events| {
            let session = session.clone();
            async move {
                if on_tracked.await.is_ok() {
                    session.follow_events(events).await;
                }
            }
        });
        dispatch.start();
        // Discovery on and the tabs listed, sent together (one round trip): the list comes
        // after discovery began, so a tab opening meanwhile is in one or the other.
        let all_tabs = ownership == Ownership::AllTabs;
        let (discover, targets) = tokio::join!(
            biased;
            cdp.call("Target.setDiscoverTargets", json!({"discover": true})),
            async {
                match all_tabs {
                    true => Some(cdp.call("Target.getTargets", json!({})).await),
                    false => None,
                }
            }
        );
        discover?;
        // The first page becomes the active tab: brought to the front while it is attached
        // (its activation sent beside the attach, not after the tracking: one round trip
        // less before a pane's first frame).
        let mut activated = None;
        if let Some(targets) = targets {
            let targets = targets?;
            let pages: Vec<&str> = targets["targetInfos"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|info| info["type"] == "page")
                .filter_map(|info| info["targetId"].as_str())
                .collect();
            let activate = async {
                match pages.first() {
                    Some(first) => cdp
                        .call("Target.activateTarget", json!({ "targetId": first }))
                        .await
                        .map(|_| Some(first.to_string())),
                    None => Ok(None),
                }
            };
            let track = async {
                for id in &pages {
                    session.tab_life().track(id, TabOwner::Human).await?;
                }
                Ok::<_, SessionError>(())
            };
            let (active, tracked) = tokio::join!(biased; activate, track);
            tracked?;
            activated = active?;
        }
        let _ = tracked.send(());
        if session.tab_count() == 0 {
            session.new_tab(None).await?;
        } else {
            let active = session.core.tabs().active_id();
            // The first tracked tab is active and laid out already (`track`).
            if let Some(active) = active.filter(|a| activated.as_ref() != Some(a)) {
                session.switch_tab(&active).await?;
            }
        }
        Ok(session)
    }

    pub fn channel(&self) -> &ChannelId {
        self.core.channel()
    }

    pub fn mode(&self) -> Mode {
        self.core.mode()
    }

    /// Which targets this session shows.
    pub fn ownership(&self) -> Ownership {
        self.core.ownership()
    }

    /// The browser-level connection (for tools that need raw CDP).
    pub fn cdp(&self) -> &CdpConnection {
        self.core.cdp()
    }

    /// True while the browser answers and nobody closed the session.
    pub(crate) fn is_alive(&self) -> bool {
        self.core.is_alive()
    }

    /// Resolves when the session is closed or its browser is gone.
    pub async fn ended(&self) {
        self.core.ended().await;
    }

    /// Closes the session: panes get `stopped`, the screencast ends. The browser itself is the
    /// provider's business.
    pub fn close(&self, reason: &str) {
        self.core.close(reason);
    }

    /// Why the session ended (`idle`, `browser_gone`, `profile_reset` …); `None` while it runs.
    pub(crate) fn end_reason(&self) -> Option<String> {
        self.core.end_reason()
    }

    /// Receives every notice for panes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<PaneMessage> {
        self.core.subscribe()
    }

    /// The screencast hub of this channel.
    pub fn screencast(&self) -> &ScreencastHub {
        &self.screencast
    }

    /// How long the tools' settle waits after an action.
    pub fn settle_limits(&self) -> SettleLimits {
        self.tools.settle
    }

    /// Opens an about:blank tab and closes every other page before an idle pause (see
    /// `blank_slate`); false when a page stays.
    pub(crate) async fn leave_one_blank_tab(&self) -> bool {
        super::blank_slate::leave_one_blank_tab(&self.core).await
    }

    /// Tells every pane of the channel (messages of other layers: control, handoffs, agent
    /// activity).
    pub(crate) fn announce(&self, message: PaneMessage) {
        self.core.notify(message);
    }

    /// How many panes are attached now (the timeline's own follower is no pane).
    pub(crate) fn pane_count(&self) -> usize {
        self.core.pane_count()
    }

    /// True when the person can be asked something now: a pane is attached, an event stream
    /// is open or a notifier is configured.
    pub(crate) fn person_reachable(&self) -> bool {
        self.core.person_reachable()
    }

    /// Runs `notify.command` (when configured) for `id`, of `kind`, that now waits on the
    /// person for `actor`; never waits for it.
    pub(crate) fn tell_notifier(&self, id: &str, kind: &str, actor: &Actor) {
        self.core
            .reach()
            .approval_asked(crate::reach::ApprovalNotice {
                id: id.to_string(),
                kind: kind.to_string(),
                agent_id: actor.id().to_string(),
                agent: actor.name().to_string(),
                channel_id: self.core.channel().to_string(),
            });
    }
}
