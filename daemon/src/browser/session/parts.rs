//! The named parts a [`crate::browser::BrowserSession`] is made of beside its connection and tab list:
//! how it ends, tabs coming and going, what panes see, the MCP tools' state, agents' state,
//! and what waits for the person. Plain holders: the behaviour is in the modules each field
//! names.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::handle::SettleLimits;
use crate::browser::files::transfers::SessionFiles;
use crate::browser::tabs::adoption::Adopting;
use crate::browser::tabs::logs::TabLogs;
use crate::browser::tabs::worlds::Worlds;
use crate::browser::view::layouts::Layouts;
use crate::browser::view::screencast::ScreencastHub;

/// Whether and why the session ended.
#[derive(Debug, Default)]
pub(in crate::browser) struct Life {
    /// Cancelled when the session is closed.
    pub closed: CancellationToken,
    /// Why the session ended, once it has. Short lock.
    pub end_reason: Mutex<Option<String>>,
}

/// Tabs coming and going: waiting for a target to be tracked, and what a host-mode stop must
/// close.
#[derive(Debug)]
pub(in crate::browser) struct TabTraffic {
    /// Bumped on every tab-list change, so callers can wait for a target to be tracked.
    pub version: watch::Sender<u64>,
    /// Set when Porthole itself is closing the session's tabs (host-mode stop): a tab list
    /// that empties then is not refilled.
    pub winding_down: Arc<AtomicBool>,
    /// Tabs being created right now (`Target.createTarget` in flight or being attached): a
    /// host-mode stop waits for them so none is left behind in the user's Chrome.
    pub creating: Arc<watch::Sender<usize>>,
    /// Targets Chrome created for us that are not tracked yet (their creator may have been
    /// cancelled mid-way): a host-mode stop closes them too. Short lock.
    pub opening: Arc<Mutex<HashSet<String>>>,
    /// Targets whose creating call is tracking them now: the event loop leaves them to it.
    pub adopting: Adopting,
}

impl Default for TabTraffic {
    fn default() -> Self {
        Self {
            version: watch::channel(0).0,
            winding_down: Arc::default(),
            creating: Arc::new(watch::channel(0).0),
            opening: Arc::default(),
            adopting: Adopting::default(),
        }
    }
}

/// What panes see: the shared screencasts and the size tabs are laid out at.
pub(in crate::browser) struct Views {
    /// One screencast per tab shared by the channel's panes (a tab's cast goes with its record).
    pub hub: Arc<ScreencastHub>,
    /// The size each tab is laid out at, sent in the order asked (a tab's goes with its record).
    pub layouts: Arc<Layouts>,
    /// Requested viewport (CSS px). Short lock.
    pub viewport: Mutex<(u32, u32)>,
    /// Panes attached now (each `PaneView` counts itself while it lives).
    pub panes: std::sync::atomic::AtomicUsize,
}

/// The MCP tools' state in the session.
pub(in crate::browser) struct ToolState {
    /// The way to each tab's console and network ring buffers.
    pub logs: TabLogs,
    /// The tools' isolated worlds, per frame session (a tab's goes with its record).
    pub worlds: Arc<Worlds>,
    /// Uploaded files and downloads.
    pub files: Arc<SessionFiles>,
    /// How long the tools' settle waits.
    pub settle: SettleLimits,
}

/// Agents' state in the session.
#[derive(Debug, Default)]
pub(in crate::browser) struct AgentState {
    /// Each agent's current tab (agent id → target id). Short lock.
    pub tabs: Mutex<HashMap<String, String>>,
    /// Serialises finding or opening an agent's tab, per agent, so one agent racing itself
    /// never opens two first tabs. Short lock around the map only.
    pub locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Keeps agents' tabs off browser-internal pages (see `url_guard`).
    pub url_guard: crate::browser::guard::redirects::UrlGuard,
    /// The sites each agent may open (see `guard::sites`).
    pub sites: crate::browser::guard::sites::AgentSites,
    /// What each agent must ask the person about, and its calls in flight (see
    /// `guard::consent`).
    pub consent: crate::browser::guard::consent::AgentConsent,
}

/// What waits for the person at a pane.
#[derive(Debug, Default)]
pub(in crate::browser) struct Prompts {
    /// File choosers waiting for the person, and files handed to tabs (see `person_files`).
    pub files: crate::browser::prompts::person_files::PersonFiles,
    /// HTTP authentication prompts (see `auth`).
    pub auth: crate::browser::prompts::auth::AuthPrompts,
    /// The `<select>` popups and context menus open in the session's tabs (see
    /// `select_popup`; a tab's go with its record).
    pub popups: Arc<crate::browser::prompts::select_popup::OpenPopups>,
    /// Agents' acts waiting for the person's approval (see `approvals`).
    pub approvals: crate::browser::prompts::approvals::OpenApprovals,
}
