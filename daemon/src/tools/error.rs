//! [`ToolError`]: why a tool failed, as a message for the model that says what to do next.

use crate::browser::SessionError;
use crate::cdp::CdpError;

/// A failed tool; becomes an `isError` tool result with this text.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ToolError {
    /// The browser session failed.
    #[error("{}", session_advice(.0))]
    Session(#[from] SessionError),
    /// Anything else, already phrased for the model.
    #[error("{0}")]
    Failed(String),
}

impl From<CdpError> for ToolError {
    fn from(error: CdpError) -> Self {
        ToolError::Session(SessionError::Cdp(error))
    }
}

impl ToolError {
    /// A failure with a message for the model.
    pub fn msg(text: impl Into<String>) -> Self {
        ToolError::Failed(text.into())
    }
}

fn session_advice(error: &SessionError) -> String {
    match error {
        SessionError::Cdp(CdpError::Lost { .. }) | SessionError::Closed => format!(
            "The browser went away ({error}). Try the call again: the browser is started afresh \
             on about:blank, so navigate again."
        ),
        SessionError::Cdp(CdpError::Timeout { .. }) => format!(
            "The browser did not answer in time ({error}). The page may be busy or showing a \
             dialog; take a screenshot to see it."
        ),
        SessionError::UnknownTab(_) => format!("{error}. Call list_tabs to see the open tabs."),
        SessionError::BadUrl(_) => format!("{error}."),
        SessionError::Navigation { .. } => {
            format!("{error}. Check the URL (is the site up and reachable from this browser?).")
        }
        SessionError::Cdp(CdpError::TooLarge { .. }) => format!("{error}."),
        SessionError::Cdp(_) => format!("The browser refused the command: {error}."),
        SessionError::NotYours { .. } => format!("{error}."),
        SessionError::TabLimit { .. } | SessionError::SiteRefused { .. } => format!("{error}."),
        SessionError::NoDialog(_) => format!("{error}; there is nothing to answer."),
        SessionError::Download(_) => format!("{error}."),
        SessionError::NotApproved(_) => error.to_string(),
    }
}
