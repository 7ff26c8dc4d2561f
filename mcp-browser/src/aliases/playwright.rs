//! Playwright MCP's tool arguments (`browser_click {element, ref}` …) as typed structs, each
//! with its translation into canonical calls. See [`crate::aliases`] for the mapping table.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::CanonicalCall;
use crate::vocabulary::{ImageFormat, Problem, ToolName, Validate};

/// A Playwright MCP tool: its name, description and translation.
pub(super) trait Alias: Sized {
    /// The Playwright MCP tool name.
    const NAME: &'static str;
    /// What the model reads in `tools/list`.
    const DESCRIPTION: &'static str;
    /// The canonical calls that do the same, in order; `Err` names the argument.
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem>;
}

fn call(tool: ToolName, args: Value) -> CanonicalCall {
    CanonicalCall { tool, args }
}

/// The element ref from `ref` or `target`; `Err` when neither (or two different ones) is given.
fn element_ref(r: Option<String>, target: Option<String>) -> Result<String, Problem> {
    match (r, target) {
        (Some(a), Some(b)) if a != b => {
            Err(format!("`ref` ({a}) and `target` ({b}) disagree; give one").into())
        }
        (Some(a), _) | (None, Some(a)) => Ok(a),
        (None, None) => Err(
            "missing required argument `ref` (or `target`): the element's ref \
                             from browser_snapshot"
                .into(),
        ),
    }
}

macro_rules! no_validate {
    ($($t:ty),*) => { $(impl Validate for $t {})* };
}

/// `browser_navigate` → `navigate`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BrowserNavigate {
    /// The URL to navigate to.
    pub url: String,
}

impl Alias for BrowserNavigate {
    const NAME: &'static str = "browser_navigate";
    const DESCRIPTION: &'static str = "Navigate to a URL (alias of navigate).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        Ok(vec![call(ToolName::Navigate, json!({"url": self.url}))])
    }
}

/// `browser_navigate_back` → `go_back`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BrowserNavigateBack {}

impl Alias for BrowserNavigateBack {
    const NAME: &'static str = "browser_navigate_back";
    const DESCRIPTION: &'static str = "Go back to the previous page (alias of go_back).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        Ok(vec![call(ToolName::GoBack, json!({}))])
    }
}

/// `browser_snapshot` → `read_page {filter: "all"}`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BrowserSnapshot {}

impl Alias for BrowserSnapshot {
    const NAME: &'static str = "browser_snapshot";
    const DESCRIPTION: &'static str = "Accessibility snapshot of the current page with element \
        refs for the other tools (alias of read_page with filter \"all\").";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        Ok(vec![call(ToolName::ReadPage, json!({"filter": "all"}))])
    }
}

/// `browser_click` → `computer {left_click | double_click | right_click, ref, modifiers}`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BrowserClick {
    /// Human-readable description of the element (informational).
    #[serde(default)]
    pub element: Option<String>,
    /// The element's ref from browser_snapshot.
    #[serde(rename = "ref", default)]
    pub element_ref: Option<String>,
    /// Same as `ref`.
    #[serde(default)]
    pub target: Option<String>,
    /// Double-click instead of a single click.
    #[serde(default)]
    pub double_click: Option<bool>,
    /// "left" (default) or "right".
    #[serde(default)]
    pub button: Option<String>,
    /// Modifier keys to hold: Alt, Control, ControlOrMeta, Meta, Shift.
    #[serde(default)]
    pub modifiers: Option<Vec<String>>,
}

impl Alias for BrowserClick {
    const NAME: &'static str = "browser_click";
    const DESCRIPTION: &'static str =
        "Click an element by ref (alias of computer left_click / double_click / right_click).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        let r = element_ref(self.element_ref, self.target)?;
        let action = match (self.button.as_deref(), self.double_click.unwrap_or(false)) {
            (None | Some("left"), false) => "left_click",
            (None | Some("left"), true) => "double_click",
            (Some("right"), false) => "right_click",
            (Some("right"), true) => {
                return Err("a right double-click is not supported; drop `doubleClick`".into())
            }
            (Some(other), _) => {
                return Err(format!(
                    "argument `button`: {other:?} is not supported; use \"left\" or \"right\""
                )
                .into())
            }
        };
        let mut args = json!({"action": action, "ref": r});
        if let Some(m) = self.modifiers.filter(|m| !m.is_empty()) {
            args["modifiers"] = json!(m.join("+"));
        }
        Ok(vec![call(ToolName::Computer, args)])
    }
}

/// `browser_type` → `form_input {ref, value}` (or `computer type` when `slowly`), then
/// `computer key Enter` when `submit`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BrowserType {
    /// Human-readable description of the element (informational).
    #[serde(default)]
    pub element: Option<String>,
    /// The element's ref from browser_snapshot.
    #[serde(rename = "ref", default)]
    pub element_ref: Option<String>,
    /// Same as `ref`.
    #[serde(default)]
    pub target: Option<String>,
    /// The text to put in the field (replaces its content unless `slowly`).
    pub text: String,
    /// Press Enter afterwards.
    #[serde(default)]
    pub submit: Option<bool>,
    /// Type key by key (triggers key handlers) instead of filling the field at once.
    #[serde(default)]
    pub slowly: Option<bool>,
}

impl Alias for BrowserType {
    const NAME: &'static str = "browser_type";
    const DESCRIPTION: &'static str = "Type text into an editable element by ref (alias of \
        form_input, or computer type when slowly; submit presses Enter).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        let r = element_ref(self.element_ref, self.target)?;
        let mut calls = vec![if self.slowly.unwrap_or(false) {
            call(
                ToolName::Computer,
                json!({"action": "type", "ref": r, "text": self.text}),
            )
        } else {
            call(ToolName::FormInput, json!({"ref": r, "value": self.text}))
        }];
        if self.submit.unwrap_or(false) {
            calls.push(call(
                ToolName::Computer,
                json!({"action": "key", "text": "Enter"}),
            ));
        }
        Ok(calls)
    }
}

/// `browser_select_option` → `form_input {ref, value}` (a list for several values).
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BrowserSelectOption {
    /// Human-readable description of the element (informational).
    #[serde(default)]
    pub element: Option<String>,
    /// The select's ref from browser_snapshot.
    #[serde(rename = "ref", default)]
    pub element_ref: Option<String>,
    /// Same as `ref`.
    #[serde(default)]
    pub target: Option<String>,
    /// The options to select, by value or visible text.
    pub values: Vec<String>,
}

impl Alias for BrowserSelectOption {
    const NAME: &'static str = "browser_select_option";
    const DESCRIPTION: &'static str = "Select options in a dropdown by ref (alias of form_input).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        let r = element_ref(self.element_ref, self.target)?;
        let value = match self.values.as_slice() {
            [] => return Err("argument `values` must name at least one option".into()),
            [one] => json!(one),
            many => json!(many),
        };
        Ok(vec![call(
            ToolName::FormInput,
            json!({"ref": r, "value": value}),
        )])
    }
}

/// `browser_press_key` → `computer {action: key, text: key}`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BrowserPressKey {
    /// The key, e.g. "Enter", "ArrowLeft", "a", "Control+a".
    pub key: String,
}

impl Alias for BrowserPressKey {
    const NAME: &'static str = "browser_press_key";
    const DESCRIPTION: &'static str = "Press a key (alias of computer key).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        Ok(vec![call(
            ToolName::Computer,
            json!({"action": "key", "text": self.key}),
        )])
    }
}

/// `browser_take_screenshot` → `screenshot {format}`, or `save_screenshot {path, format}` with
/// a filename.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BrowserTakeScreenshot {
    /// "png" (default) or "jpeg".
    #[serde(rename = "type", default)]
    pub image_type: Option<ImageFormat>,
    /// Save to this file instead of returning the image.
    #[serde(default)]
    pub filename: Option<String>,
    /// Not supported (element screenshots).
    #[serde(default)]
    pub element: Option<String>,
    /// Not supported (element screenshots).
    #[serde(rename = "ref", default)]
    pub element_ref: Option<String>,
    /// Not supported (element screenshots).
    #[serde(default)]
    pub target: Option<String>,
    /// Not supported: only the viewport is captured.
    #[serde(default)]
    pub full_page: Option<bool>,
}

impl Alias for BrowserTakeScreenshot {
    const NAME: &'static str = "browser_take_screenshot";
    const DESCRIPTION: &'static str = "Screenshot of the viewport, returned or saved to \
        `filename` (alias of screenshot / save_screenshot). Element and full-page screenshots \
        are not supported.";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        if self.element_ref.is_some() || self.target.is_some() {
            return Err(
                "element screenshots (`ref`/`target`) are not supported; call without \
                        them to capture the viewport"
                    .into(),
            );
        }
        if self.full_page == Some(true) {
            return Err(
                "`fullPage` is not supported; only the viewport can be captured \
                        (scroll with browser_press_key PageDown and take several)"
                    .into(),
            );
        }
        let mut args = json!({});
        if let Some(f) = self.image_type {
            args["format"] = json!(f);
        }
        Ok(vec![match self.filename {
            Some(path) => {
                args["path"] = json!(path);
                call(ToolName::SaveScreenshot, args)
            }
            None => call(ToolName::Screenshot, args),
        }])
    }
}

/// `browser_evaluate` → `evaluate {expression: "(<function>)()"}`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BrowserEvaluate {
    /// A JavaScript function, e.g. "() => document.title".
    pub function: String,
    /// Not supported (evaluating on an element).
    #[serde(default)]
    pub element: Option<String>,
    /// Not supported (evaluating on an element).
    #[serde(rename = "ref", default)]
    pub element_ref: Option<String>,
    /// Not supported (evaluating on an element).
    #[serde(default)]
    pub target: Option<String>,
}

impl Alias for BrowserEvaluate {
    const NAME: &'static str = "browser_evaluate";
    const DESCRIPTION: &'static str =
        "Evaluate a JavaScript function on the page (alias of evaluate; no element argument).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        if self.element_ref.is_some() || self.target.is_some() {
            return Err(
                "evaluating on an element (`ref`/`target`) is not supported; select it \
                        in the function with document.querySelector"
                    .into(),
            );
        }
        let f = self.function.trim();
        let looks_like_function =
            f.contains("=>") || f.starts_with("function") || f.starts_with("async");
        let expression = if looks_like_function {
            format!("({f})()")
        } else {
            f.to_owned()
        };
        Ok(vec![call(
            ToolName::Evaluate,
            json!({"expression": expression}),
        )])
    }
}

/// What `browser_tabs` does.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum TabsAction {
    /// list_tabs
    List,
    /// new_tab
    New,
    /// close_tab
    Close,
    /// switch_tab
    Select,
}

/// `browser_tabs` → `list_tabs` / `new_tab` / `close_tab` / `switch_tab` (0-based `index` →
/// 1-based `tab`).
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BrowserTabs {
    /// list, new, close or select.
    pub action: TabsAction,
    /// The tab's index, starting at 0 (for close and select; close defaults to the current tab).
    #[serde(default)]
    pub index: Option<u32>,
    /// For new: the URL to open.
    #[serde(default)]
    pub url: Option<String>,
}

impl Alias for BrowserTabs {
    const NAME: &'static str = "browser_tabs";
    const DESCRIPTION: &'static str = "List, create, close or select a browser tab (alias of \
        list_tabs / new_tab / close_tab / switch_tab; index starts at 0).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        let tab = self.index.map(|i| json!(i + 1));
        Ok(vec![match self.action {
            TabsAction::List => call(ToolName::ListTabs, json!({})),
            TabsAction::New => call(
                ToolName::NewTab,
                self.url.map_or(json!({}), |u| json!({"url": u})),
            ),
            TabsAction::Close => call(
                ToolName::CloseTab,
                tab.map_or(json!({}), |t| json!({"tab": t})),
            ),
            TabsAction::Select => match tab {
                Some(t) => call(ToolName::SwitchTab, json!({"tab": t})),
                None => return Err("action `select` needs `index` (starting at 0)".into()),
            },
        }])
    }
}

/// `browser_resize` → `resize_window`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct BrowserResize {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl Alias for BrowserResize {
    const NAME: &'static str = "browser_resize";
    const DESCRIPTION: &'static str = "Resize the browser window (alias of resize_window).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        Ok(vec![call(
            ToolName::ResizeWindow,
            json!({"width": self.width, "height": self.height}),
        )])
    }
}

/// `browser_console_messages` → `read_console_messages {level}`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BrowserConsoleMessages {
    /// Minimum level: "error", "warning", "info" or "debug".
    #[serde(default)]
    pub level: Option<String>,
    /// Only errors (same as level "error").
    #[serde(default)]
    pub only_errors: Option<bool>,
}

impl Alias for BrowserConsoleMessages {
    const NAME: &'static str = "browser_console_messages";
    const DESCRIPTION: &'static str =
        "Console messages of the page (alias of read_console_messages).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        let level = if self.only_errors == Some(true) {
            Some("error".to_owned())
        } else {
            self.level
        };
        Ok(vec![call(
            ToolName::ReadConsoleMessages,
            level.map_or(json!({}), |l| json!({"level": l})),
        )])
    }
}

/// `browser_network_requests` → `read_network_requests`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BrowserNetworkRequests {
    /// Accepted and ignored: every request is listed.
    #[serde(default)]
    pub include_static: Option<bool>,
}

impl Alias for BrowserNetworkRequests {
    const NAME: &'static str = "browser_network_requests";
    const DESCRIPTION: &'static str =
        "Network requests since the page was opened (alias of read_network_requests).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        Ok(vec![call(ToolName::ReadNetworkRequests, json!({}))])
    }
}

/// `browser_wait_for` → `computer {action: wait, duration | wait_for_text}`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BrowserWaitFor {
    /// Seconds to wait.
    #[serde(default)]
    pub time: Option<f64>,
    /// Text to wait for.
    #[serde(default)]
    pub text: Option<String>,
    /// Not supported: waiting for text to disappear.
    #[serde(default)]
    pub text_gone: Option<String>,
}

impl Alias for BrowserWaitFor {
    const NAME: &'static str = "browser_wait_for";
    const DESCRIPTION: &'static str = "Wait for a number of seconds or for a text to appear \
        (alias of computer wait; textGone is not supported).";
    fn translate(self) -> Result<Vec<CanonicalCall>, Problem> {
        if self.text_gone.is_some() {
            return Err(
                "`textGone` is not supported; wait with `time` and check with \
                        browser_snapshot"
                    .into(),
            );
        }
        let mut calls = Vec::new();
        if let Some(t) = self.time {
            calls.push(call(
                ToolName::Computer,
                json!({"action": "wait", "duration": t}),
            ));
        }
        if let Some(text) = self.text {
            calls.push(call(
                ToolName::Computer,
                json!({"action": "wait", "wait_for_text": text}),
            ));
        }
        if calls.is_empty() {
            return Err("give `time` (seconds) or `text`".into());
        }
        Ok(calls)
    }
}

no_validate!(
    BrowserNavigate,
    BrowserNavigateBack,
    BrowserSnapshot,
    BrowserClick,
    BrowserType,
    BrowserSelectOption,
    BrowserPressKey,
    BrowserTakeScreenshot,
    BrowserEvaluate,
    BrowserTabs,
    BrowserResize,
    BrowserConsoleMessages,
    BrowserNetworkRequests,
    BrowserWaitFor
);
