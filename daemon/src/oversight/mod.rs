//! The person at the browser outranks every agent (DESIGN.md §12, "Seeing and stopping
//! agents"): who holds control of each channel ([`control`]), the human-activity and
//! reopen-loop guards ([`guard`]), handoffs (`request_human`, [`handoff`]), and which tools
//! still run while the person holds control ([`may_run_while_held`]).
//!
//! Owns per-channel oversight state and its messages to panes; knows nothing of HTTP or CDP
//! beyond reading a tab's URL and fields for the guard's report ([`page_state`]).

pub mod control;
pub mod guard;
pub mod handoff;
pub mod page_state;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use porthole_mcp::ToolName;

use crate::channel_id::ChannelId;
use crate::channels::ChannelService;

pub use control::ChannelOversight;

/// Timings from the config's `agents` section.
#[derive(Debug, Clone, Copy)]
pub struct OversightSettings {
    /// How long `stop_agents` refuses agents (and how long a vanished pane's takeover lasts).
    pub stop: Duration,
    /// How long after a person's last input in a tab agents may not act there.
    pub human_quiet: Duration,
}

/// Oversight of every channel.
pub struct Oversight {
    settings: OversightSettings,
    channels: Arc<ChannelService>,
    /// Short lock, never held across an await.
    by_channel: Mutex<HashMap<ChannelId, Arc<ChannelOversight>>>,
}

impl Oversight {
    pub fn new(settings: OversightSettings, channels: Arc<ChannelService>) -> Self {
        Self {
            settings,
            channels,
            by_channel: Mutex::new(HashMap::new()),
        }
    }

    /// The oversight of one channel (made on first use).
    pub fn channel(&self, channel: &ChannelId) -> Arc<ChannelOversight> {
        self.by_channel
            .lock()
            .expect("oversight lock")
            .entry(channel.clone())
            .or_insert_with(|| {
                Arc::new(ChannelOversight::new(
                    channel.clone(),
                    self.settings,
                    self.channels.clone(),
                ))
            })
            .clone()
    }
}

/// Tools that only read (and `request_human`, which asks for help): they keep working while
/// the person holds control.
pub fn may_run_while_held(tool: ToolName) -> bool {
    matches!(
        tool,
        ToolName::ReadPage
            | ToolName::GetPageText
            | ToolName::Find
            | ToolName::PageInfo
            | ToolName::ListTabs
            | ToolName::Screenshot
            | ToolName::SaveScreenshot
            | ToolName::ReadConsoleMessages
            | ToolName::ReadNetworkRequests
            | ToolName::ListDownloads
            | ToolName::GetDownload
            | ToolName::RequestHuman
            | ToolName::ListLogins
    )
}

/// Tools that act in the agent's tab (input, navigation, reload, close): the human-activity
/// guard holds them back while the person is using that tab.
pub fn acts_in_tab(tool: ToolName) -> bool {
    matches!(
        tool,
        ToolName::Computer
            | ToolName::FormInput
            | ToolName::Navigate
            | ToolName::GoBack
            | ToolName::GoForward
            | ToolName::Reload
            | ToolName::CloseTab
            | ToolName::Evaluate
            | ToolName::UploadFile
            | ToolName::HandleDialog
            | ToolName::FillLogin
            | ToolName::FillTotp
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_tools_run_while_held_and_acting_ones_do_not() {
        for tool in ToolName::ALL {
            assert!(
                !(may_run_while_held(tool) && acts_in_tab(tool)),
                "{tool} cannot be both"
            );
        }
        assert!(may_run_while_held(ToolName::ReadPage));
        assert!(!may_run_while_held(ToolName::Navigate));
        assert!(acts_in_tab(ToolName::Navigate));
        assert!(!acts_in_tab(ToolName::NewTab));
    }
}
