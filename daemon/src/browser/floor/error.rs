//! The error of a session operation, a leaf: returning one does not import the session.

use crate::cdp::CdpError;

/// A failed session operation; the message is for a person.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Cdp(#[from] CdpError),
    #[error("no tab {0} in this channel")]
    UnknownTab(String),
    #[error("{0}")]
    BadUrl(String),
    #[error("navigation to {url} failed: {reason}")]
    Navigation { url: String, reason: String },
    #[error("this channel's browser session is closed; send start again")]
    Closed,
    #[error("no dialog is open in tab {0}")]
    NoDialog(String),
    /// The tab belongs to someone else (an agent touching another owner's tab).
    #[error("tab {target_id} belongs to {owner}; you may only use your own tabs (call list_tabs to see them, or new_tab to open one)")]
    NotYours { target_id: String, owner: String },
    /// A download of the person's (a print) could not be made or stored.
    #[error("{0}")]
    Download(String),
    /// The agent has as many tabs as one agent may (`agents.max_tabs`).
    #[error("you have {open} tabs open, the most one agent may have (the setting {}); close one with close_tab first", crate::bounds::MAX_TABS_KEY)]
    TabLimit { open: usize },
    /// The agent's sites do not include the URL's (`sites` on its record, `agents.sites`).
    #[error("Porthole refused {url}: this agent may not open that site ({rule}). The person sets an agent's sites; ask them if you need it")]
    SiteRefused { url: String, rule: String },
    /// An act the agent's `confirm` kinds hold was not allowed by the person (declined, timed
    /// out, or nobody watching); the text says which.
    #[error("{0}")]
    NotApproved(String),
}

impl SessionError {
    /// A stable snake_case code for APIs.
    pub fn code(&self) -> &'static str {
        match self {
            SessionError::Cdp(CdpError::Lost { .. }) | SessionError::Closed => "browser_gone",
            SessionError::Cdp(CdpError::Timeout { .. }) => "browser_timeout",
            SessionError::Cdp(_) => "browser_error",
            SessionError::UnknownTab(_) => "unknown_tab",
            SessionError::BadUrl(_) => "bad_url",
            SessionError::Navigation { .. } => "navigation_failed",
            SessionError::NotYours { .. } => "not_your_tab",
            SessionError::NoDialog(_) => "no_dialog",
            SessionError::Download(_) => "download_failed",
            SessionError::TabLimit { .. } => "tab_limit",
            SessionError::SiteRefused { .. } => "site_refused",
            SessionError::NotApproved(_) => "not_approved",
        }
    }
}
