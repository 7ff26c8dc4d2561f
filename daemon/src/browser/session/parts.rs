//! The named parts a [`crate::browser::BrowserSession`] holds beside the floor's core: the MCP
//! tools' state, agents' state, and what waits for the person. Plain holders: the behaviour is in
//! the rooms each field names, whose handles borrow the one field they work on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::browser::files::transfers::SessionFiles;
use crate::browser::tabs::logs::TabLogs;
use crate::browser::tabs::worlds::Worlds;
use crate::config::SettleLimits;

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
    /// Keeps agents' tabs off browser-internal pages (see `guard::redirects`).
    pub url_guard: crate::browser::guard::redirects::UrlGuardState,
    /// The notes waiting for agents' next tool results (see `guard::notes`).
    pub notes: Arc<crate::browser::guard::notes::AgentNotes>,
    /// The sites each agent may open (see `guard::sites`).
    pub sites: Arc<crate::browser::guard::sites::AgentSites>,
    /// What each agent must ask the person about, and its calls in flight (see
    /// `prompts::consent`).
    pub consent: Arc<crate::browser::prompts::consent::AgentConsent>,
}

/// What waits for the person at a pane.
#[derive(Debug, Default)]
pub(in crate::browser) struct Prompts {
    /// File choosers waiting for the person, and files handed to tabs (see `person_files`).
    pub files: Arc<crate::browser::files::person_files::FileHandoffs>,
    /// HTTP authentication prompts (see `auth`).
    pub auth: Arc<crate::browser::prompts::auth::AuthPrompts>,
    /// The `<select>` popups and context menus open in the session's tabs (see
    /// `select_popup`; a tab's go with its record).
    pub popups: Arc<crate::browser::prompts::open_popups::OpenPopups>,
    /// Agents' acts waiting for the person's approval (see `approvals`).
    pub approvals: Arc<crate::browser::prompts::approvals::OpenApprovals>,
}
