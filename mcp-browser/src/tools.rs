//! The `tools/list` entries: each canonical tool's description (written for the model), its
//! argument schema from [`crate::vocabulary`], and hints (read-only or not). Alias entries come
//! from [`crate::aliases`].

use rmcp::model::{Tool, ToolAnnotations};

use crate::vocabulary::ToolName;

/// What the model reads about each tool. Kept short: the whole `tools/list` is in the model's
/// context on every turn (budget: 12 KB of JSON, asserted by the tools_list test).
pub fn description(tool: ToolName) -> &'static str {
    match tool {
        ToolName::Navigate => {
            "Load a URL in the active tab and wait for it (and for wait_for_selector / \
             wait_for_text if given); returns the final URL and title."
        }
        ToolName::ReadPage => {
            "The active tab as a tree, one element per line with a ref ([ref=e12]) for \
             computer, form_input and upload_file; covers iframes and shadow roots. Refs last \
             until the page navigates. Long trees are cut with a note giving the next offset."
        }
        ToolName::Computer => {
            "Mouse and keyboard on the active tab. Aim with `ref` (preferred) or `coordinate` \
             [x, y] from a screenshot. wait_for_* waits after acting (before, for wait and \
             screenshot). Returns what changed."
        }
        ToolName::FormInput => {
            "Set a field by ref: text (replaces), true/false for checkbox/radio, option value \
             or text for a select."
        }
        ToolName::Screenshot => "The active tab's viewport as an image.",
        ToolName::SaveScreenshot => {
            "Write a viewport screenshot to `path` (.png/.jpg) where this MCP server runs."
        }
        ToolName::GoBack => "Go back one page in the active tab.",
        ToolName::GoForward => "Go forward one page in the active tab.",
        ToolName::Reload => "Reload the active tab.",
        ToolName::Evaluate => "Evaluate JavaScript in the active tab; returns the value as JSON.",
        ToolName::ListTabs => "List tabs as [1], [2], … (active one marked).",
        ToolName::NewTab => "Open a tab (at `url`) and make it active.",
        ToolName::SwitchTab => "Make a tab active, by list_tabs number or target id.",
        ToolName::CloseTab => "Close a tab (default: the active one).",
        ToolName::PageInfo => "The active tab's URL, title and loading state.",
        ToolName::GetPageText => "The active tab's readable text.",
        ToolName::Find => {
            "Find elements by a short description (\"search box\", \"Sign in\"); returns refs."
        }
        ToolName::ReadConsoleMessages => "The active tab's console messages and errors.",
        ToolName::ReadNetworkRequests => "The active tab's network requests.",
        ToolName::ResizeWindow => "Resize the browser window (the viewport pages lay out for).",
        ToolName::UploadFile => {
            "Set the files of a file input (by ref), up to 10 MiB in all. A file chooser the \
             page opens is not shown: call this without ref to answer it."
        }
        ToolName::ListDownloads => "Downloads of this browser: id, name, size, MIME type, state.",
        ToolName::GetDownload => "A finished download's bytes, by id from list_downloads.",
        ToolName::HandleDialog => {
            "Answer the alert/confirm/prompt open in your tab (results name it while it is open)."
        }
        ToolName::ListLogins => "Logins the person shared with you; never a password.",
        ToolName::FillLogin => {
            "Type a shared login into the active tab's sign-in form (its own sites only); you \
             never see the password."
        }
        ToolName::FillTotp => "Type a shared login's one-time code into the active tab.",
        ToolName::RequestHuman => {
            "Ask the person at the browser to do something (log in, solve a captcha) and wait \
             until they press Done; returns their note and the page as it is then."
        }
    }
}

/// True for tools that only read the browser's state.
pub fn is_read_only(tool: ToolName) -> bool {
    matches!(
        tool,
        ToolName::ReadPage
            | ToolName::Screenshot
            | ToolName::ListTabs
            | ToolName::PageInfo
            | ToolName::GetPageText
            | ToolName::Find
            | ToolName::ReadNetworkRequests
            | ToolName::ListDownloads
            | ToolName::GetDownload
            | ToolName::ListLogins
    )
}

/// The `tools/list` entry of a canonical tool. Hints are given only where they differ from
/// MCP's defaults (`readOnlyHint: false`, `destructiveHint: true`, `openWorldHint: true`).
pub fn tool(name: ToolName) -> Tool {
    let hints = if is_read_only(name) {
        ToolAnnotations::new().read_only(true)
    } else {
        ToolAnnotations::new().destructive(false)
    };
    Tool::new(name.as_str(), description(name), name.input_schema()).with_annotations(hints)
}

/// The entries of all canonical tools, in [`ToolName::ALL`] order.
pub fn canonical_tools() -> Vec<Tool> {
    ToolName::ALL.into_iter().map(tool).collect()
}
