//! The canonical tool names (DESIGN.md §7) as a closed enum, and their string forms.

use std::fmt;
use std::str::FromStr;

/// A canonical browser tool. Its [`as_str`](ToolName::as_str) is the MCP tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolName {
    /// `navigate`
    Navigate,
    /// `read_page`
    ReadPage,
    /// `computer`
    Computer,
    /// `form_input`
    FormInput,
    /// `screenshot`
    Screenshot,
    /// `save_screenshot`
    SaveScreenshot,
    /// `go_back`
    GoBack,
    /// `go_forward`
    GoForward,
    /// `reload`
    Reload,
    /// `evaluate`
    Evaluate,
    /// `list_tabs`
    ListTabs,
    /// `new_tab`
    NewTab,
    /// `switch_tab`
    SwitchTab,
    /// `close_tab`
    CloseTab,
    /// `page_info`
    PageInfo,
    /// `get_page_text`
    GetPageText,
    /// `find`
    Find,
    /// `read_console_messages`
    ReadConsoleMessages,
    /// `read_network_requests`
    ReadNetworkRequests,
    /// `resize_window`
    ResizeWindow,
    /// `upload_file`
    UploadFile,
    /// `list_downloads`
    ListDownloads,
    /// `get_download`
    GetDownload,
    /// `handle_dialog`
    HandleDialog,
    /// `request_human`
    RequestHuman,
    /// `list_logins`
    ListLogins,
    /// `fill_login`
    FillLogin,
    /// `fill_totp`
    FillTotp,
}

impl ToolName {
    /// Every tool, in the order `tools/list` shows them.
    pub const ALL: [ToolName; 28] = [
        ToolName::Navigate,
        ToolName::ReadPage,
        ToolName::Computer,
        ToolName::FormInput,
        ToolName::Screenshot,
        ToolName::SaveScreenshot,
        ToolName::GoBack,
        ToolName::GoForward,
        ToolName::Reload,
        ToolName::Evaluate,
        ToolName::ListTabs,
        ToolName::NewTab,
        ToolName::SwitchTab,
        ToolName::CloseTab,
        ToolName::PageInfo,
        ToolName::GetPageText,
        ToolName::Find,
        ToolName::ReadConsoleMessages,
        ToolName::ReadNetworkRequests,
        ToolName::ResizeWindow,
        ToolName::UploadFile,
        ToolName::ListDownloads,
        ToolName::GetDownload,
        ToolName::HandleDialog,
        ToolName::RequestHuman,
        ToolName::ListLogins,
        ToolName::FillLogin,
        ToolName::FillTotp,
    ];

    /// The MCP tool name.
    pub const fn as_str(self) -> &'static str {
        match self {
            ToolName::Navigate => "navigate",
            ToolName::ReadPage => "read_page",
            ToolName::Computer => "computer",
            ToolName::FormInput => "form_input",
            ToolName::Screenshot => "screenshot",
            ToolName::SaveScreenshot => "save_screenshot",
            ToolName::GoBack => "go_back",
            ToolName::GoForward => "go_forward",
            ToolName::Reload => "reload",
            ToolName::Evaluate => "evaluate",
            ToolName::ListTabs => "list_tabs",
            ToolName::NewTab => "new_tab",
            ToolName::SwitchTab => "switch_tab",
            ToolName::CloseTab => "close_tab",
            ToolName::PageInfo => "page_info",
            ToolName::GetPageText => "get_page_text",
            ToolName::Find => "find",
            ToolName::ReadConsoleMessages => "read_console_messages",
            ToolName::ReadNetworkRequests => "read_network_requests",
            ToolName::ResizeWindow => "resize_window",
            ToolName::UploadFile => "upload_file",
            ToolName::ListDownloads => "list_downloads",
            ToolName::GetDownload => "get_download",
            ToolName::HandleDialog => "handle_dialog",
            ToolName::RequestHuman => "request_human",
            ToolName::ListLogins => "list_logins",
            ToolName::FillLogin => "fill_login",
            ToolName::FillTotp => "fill_totp",
        }
    }

    /// All names joined with ", " (for "unknown tool" messages).
    pub fn list() -> String {
        Self::ALL.map(Self::as_str).join(", ")
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The name is not one of the canonical tools.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool `{0}`")]
pub struct UnknownTool(pub String);

impl FromStr for ToolName {
    type Err = UnknownTool;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| UnknownTool(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in ToolName::ALL {
            assert_eq!(t.as_str().parse::<ToolName>(), Ok(t));
        }
        assert!("browser_click".parse::<ToolName>().is_err());
    }
}
