//! The `tools/list` entries: each canonical tool's description (written for the model), its
//! argument schema from [`crate::vocabulary`], and hints (read-only or not). Alias entries come
//! from [`crate::aliases`].

use rmcp::model::{Tool, ToolAnnotations};

use crate::vocabulary::ToolName;

/// What the model reads about each tool.
pub fn description(tool: ToolName) -> &'static str {
    match tool {
        ToolName::Navigate => {
            "Load a URL in the active tab and wait until it has loaded. Returns the final URL and \
             title. Optionally wait for a CSS selector or a text to appear (wait_for_selector / \
             wait_for_text, up to wait_timeout_ms). Call read_page afterwards to see the page."
        }
        ToolName::ReadPage => {
            "Snapshot of the active tab's accessibility tree, one element per line with a ref \
             (e.g. [ref=e12]) that computer, form_input and find accept. Includes iframes and open \
             shadow roots. filter \"interactive\" (default) lists only elements one can act on; \
             \"all\" lists everything with a role or text. Refs are valid until the page \
             navigates: after that, call read_page again."
        }
        ToolName::Computer => {
            "Use the mouse and keyboard on the active tab: left_click, right_click, double_click, \
             triple_click, mouse_move, hover, left_click_drag, scroll, type, key, wait, \
             screenshot. Aim with a `ref` from read_page/find (preferred) or a viewport \
             `coordinate` [x, y] from a screenshot. Returns what changed (URL, title, dialogs); \
             screenshot returns an image."
        }
        ToolName::FormInput => {
            "Set a form field's value by ref: text for inputs and textareas (replacing their \
             content), true/false for checkboxes and radios, an option's value or text for a \
             select. Fires input and change events; the field keeps focus."
        }
        ToolName::Screenshot => {
            "Screenshot of the active tab's viewport, returned as an image. Optionally wait for \
             a selector or text first."
        }
        ToolName::SaveScreenshot => {
            "Save a screenshot of the active tab's viewport to an image file at `path` on the \
             machine where this MCP server runs (.png or .jpg). Returns the path and size."
        }
        ToolName::GoBack => "Go back one page in the active tab's history.",
        ToolName::GoForward => "Go forward one page in the active tab's history.",
        ToolName::Reload => "Reload the active tab.",
        ToolName::Evaluate => {
            "Evaluate a JavaScript expression in the active tab and return its value as JSON \
             (promises are awaited). Use it to read what the other tools do not show."
        }
        ToolName::ListTabs => {
            "List the open tabs as [1], [2], … with title, URL and target id; the active tab is \
             marked. switch_tab and close_tab take the number or the target id."
        }
        ToolName::NewTab => "Open a new tab (optionally at `url`) and make it the active tab.",
        ToolName::SwitchTab => {
            "Make a tab the active tab and bring it to the front. `tab` is its number from \
             list_tabs or its target id."
        }
        ToolName::CloseTab => {
            "Close a tab (default: the active one). `tab` is its number from list_tabs or its \
             target id. Closing the last tab leaves an empty about:blank tab."
        }
        ToolName::PageInfo => "The active tab's URL, title and loading state.",
        ToolName::GetPageText => {
            "The active tab's readable text (no markup), cut at max_chars with a note when \
             longer."
        }
        ToolName::Find => {
            "Find elements on the active tab matching a short description (e.g. \"search box\", \
             \"Sign in\"); returns their refs, roles and names for computer/form_input."
        }
        ToolName::ReadConsoleMessages => {
            "The active tab's console messages and uncaught errors, oldest first, filtered by \
             text pattern and minimum level. clear=true empties the buffer after reading."
        }
        ToolName::ReadNetworkRequests => {
            "The active tab's network requests (method, URL, status, type), oldest first, \
             filtered by URL pattern. clear=true empties the buffer after reading."
        }
        ToolName::ResizeWindow => {
            "Resize the browser window, which sets the viewport size pages lay out for."
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
    )
}

/// The `tools/list` entry of a canonical tool.
pub fn tool(name: ToolName) -> Tool {
    Tool::new(name.as_str(), description(name), name.input_schema()).with_annotations(
        ToolAnnotations::new()
            .read_only(is_read_only(name))
            .destructive(false)
            .open_world(true),
    )
}

/// The entries of all 20 canonical tools, in [`ToolName::ALL`] order.
pub fn canonical_tools() -> Vec<Tool> {
    ToolName::ALL.into_iter().map(tool).collect()
}
