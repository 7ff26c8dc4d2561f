//! Messages from the daemon to panes (DESIGN.md §6, "Daemon → client", JSON text).
//!
//! A `BrowserSession` broadcasts them to every pane of its channel; the WebSocket layer adds
//! its own replies (`started`, `clipboard`, `error`) of the same type. Binary frames are not
//! here: they travel through the screencast hub.

use serde::Serialize;

use crate::mode::Mode;

/// One tab as panes see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct TabInfo {
    pub target_id: String,
    pub url: String,
    pub title: String,
    /// `"human"` or the owning agent's id (`owner` for the owner token).
    pub owner: String,
    /// `"human"` or the owning agent's name.
    pub owner_name: String,
}

/// A JSON message to a pane.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PaneMessage {
    /// The channel's browser is ready.
    Started {
        channel_id: String,
        mode: Mode,
    },
    /// The channel's browser stopped (pane asked, idle stop, crash, daemon shutdown).
    Stopped {
        channel_id: String,
        reason: String,
    },
    /// The whole tab list, in order.
    Tabs {
        tabs: Vec<TabInfo>,
        active_target_id: Option<String>,
    },
    TabSwitched {
        target_id: String,
    },
    TabCreated {
        target_id: String,
        url: String,
        title: String,
    },
    TabClosed {
        target_id: String,
    },
    /// URL and title of the active tab.
    PageInfo {
        url: String,
        title: String,
    },
    /// The page viewport in CSS pixels (the size of the frames).
    Viewport {
        width: u32,
        height: u32,
    },
    /// Text the pane should put on the user's clipboard (reply to `copy` / `cut`).
    Clipboard {
        text: String,
    },
    /// A step of slow work (browser start, image build).
    Progress {
        stage: String,
        message: String,
    },
    /// Something failed; the connection stays up.
    Error {
        code: String,
        message: String,
    },
}

impl PaneMessage {
    pub fn error(code: &str, message: impl Into<String>) -> Self {
        PaneMessage::Error {
            code: code.to_string(),
            message: message.into(),
        }
    }

    /// The JSON text sent on the wire.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("pane messages always serialize")
    }
}
