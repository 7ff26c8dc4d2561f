//! Playwright MCP tool names as aliases (opt-in: `--playwright-aliases` /
//! [`crate::ServerOptions::playwright_aliases`]), so skills written for Playwright MCP work.
//!
//! An alias call is validated against Playwright MCP's own argument names, then translated
//! into one or more canonical calls run in order (the first error stops the sequence). Only
//! canonical names reach a [`crate::ToolBackend`]. Every alias that takes an element accepts
//! its ref as `ref` or `target`; Playwright's `element` (a description) is accepted and
//! ignored.
//!
//! | alias | canonical call(s) |
//! |---|---|
//! | `browser_navigate {url}` | `navigate {url}` |
//! | `browser_navigate_back {}` | `go_back {}` |
//! | `browser_snapshot {}` | `read_page {filter: "all"}` |
//! | `browser_click {element?, ref, doubleClick?, button?, modifiers?[]}` | `computer {action: left_click \| double_click \| right_click, ref, modifiers: "a+b"}` (middle button refused) |
//! | `browser_type {element?, ref, text, submit?, slowly?}` | `form_input {ref, value: text}` (or `computer {action: type, ref, text}` when `slowly`), then `computer {action: key, text: "Enter"}` when `submit` |
//! | `browser_select_option {element?, ref, values[]}` | `form_input {ref, value}` (a string for one value, a list for several) |
//! | `browser_press_key {key}` | `computer {action: key, text: key}` |
//! | `browser_take_screenshot {type?, filename?}` | `screenshot {format}`, or `save_screenshot {path: filename, format}`; `ref`/`fullPage: true` refused |
//! | `browser_evaluate {function}` | `evaluate {expression: "(<function>)()"}` (a plain expression passes as is); `ref` refused |
//! | `browser_tabs {action, index?, url?}` | `list_tabs` / `new_tab {url}` / `close_tab {tab: index+1}` / `switch_tab {tab: index+1}` (Playwright counts from 0, `list_tabs` from 1) |
//! | `browser_resize {width, height}` | `resize_window {width, height}` |
//! | `browser_console_messages {level?, onlyErrors?}` | `read_console_messages {level}` |
//! | `browser_network_requests {includeStatic?}` | `read_network_requests {}` |
//! | `browser_wait_for {time?, text?}` | `computer {action: wait, duration: time}` and/or `computer {action: wait, wait_for_text: text}`; `textGone` refused |

mod playwright;

use std::any::Any;

use rmcp::model::Tool;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::vocabulary::args::{input_schema, parse_args};
use crate::vocabulary::{ArgError, ToolName, Validate};
use playwright::*;

/// One canonical call an alias translates into (arguments not yet validated).
#[derive(Debug, Clone, PartialEq)]
pub struct CanonicalCall {
    /// The canonical tool.
    pub tool: ToolName,
    /// Its arguments.
    pub args: Value,
}

macro_rules! alias_table {
    ($($t:ty),* $(,)?) => {
        /// Every Playwright MCP alias name, in `tools/list` order.
        pub const PLAYWRIGHT_ALIASES: &[&str] = &[$(<$t as Alias>::NAME),*];

        /// The `tools/list` entries of the aliases.
        pub fn alias_tools() -> Vec<Tool> {
            vec![$(entry::<$t>()),*]
        }

        /// Translates a Playwright MCP call into canonical calls; `None` when `name` is not an
        /// alias.
        pub fn translate(name: &str, args: &Value) -> Option<Result<Vec<CanonicalCall>, ArgError>> {
            $(if name == <$t as Alias>::NAME {
                return Some(run::<$t>(args));
            })*
            None
        }
    };
}

alias_table!(
    BrowserNavigate,
    BrowserSnapshot,
    BrowserClick,
    BrowserType,
    BrowserSelectOption,
    BrowserPressKey,
    BrowserNavigateBack,
    BrowserTakeScreenshot,
    BrowserEvaluate,
    BrowserTabs,
    BrowserResize,
    BrowserConsoleMessages,
    BrowserNetworkRequests,
    BrowserWaitFor,
);

/// True when `name` is one of [`PLAYWRIGHT_ALIASES`].
pub fn is_alias(name: &str) -> bool {
    PLAYWRIGHT_ALIASES.contains(&name)
}

fn entry<T: Alias + JsonSchema + Any>() -> Tool {
    Tool::new(T::NAME, T::DESCRIPTION, input_schema::<T>())
}

fn run<T>(args: &Value) -> Result<Vec<CanonicalCall>, ArgError>
where
    T: Alias + DeserializeOwned + JsonSchema + Validate + Any,
{
    let parsed = parse_args::<T>(T::NAME, args)?;
    parsed.translate().map_err(|problem| ArgError {
        tool: T::NAME.to_owned(),
        problem: problem.to_string(),
        usage: crate::vocabulary::args::usage::<T>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(name: &str, args: Value) -> (ToolName, Value) {
        let mut calls = translate(name, &args).unwrap().unwrap();
        assert_eq!(calls.len(), 1, "{calls:?}");
        let c = calls.remove(0);
        (c.tool, c.args)
    }

    #[test]
    fn translations() {
        assert_eq!(PLAYWRIGHT_ALIASES.len(), 14);
        assert_eq!(
            one(
                "browser_click",
                json!({"element": "OK button", "target": "e5"})
            ),
            (
                ToolName::Computer,
                json!({"action": "left_click", "ref": "e5"})
            )
        );
        assert_eq!(
            one(
                "browser_click",
                json!({"ref": "e5", "doubleClick": true, "modifiers": ["Shift", "Alt"]})
            ),
            (
                ToolName::Computer,
                json!({"action": "double_click", "ref": "e5", "modifiers": "Shift+Alt"})
            )
        );
        assert_eq!(
            one("browser_tabs", json!({"action": "select", "index": 0})),
            (ToolName::SwitchTab, json!({"tab": 1}))
        );
        assert_eq!(
            one(
                "browser_evaluate",
                json!({"function": "() => document.title"})
            ),
            (
                ToolName::Evaluate,
                json!({"expression": "(() => document.title)()"})
            )
        );
        assert_eq!(
            one(
                "browser_select_option",
                json!({"ref": "e1", "values": ["a", "b"]})
            ),
            (
                ToolName::FormInput,
                json!({"ref": "e1", "value": ["a", "b"]})
            )
        );
        let calls = translate(
            "browser_type",
            &json!({"ref": "e2", "text": "hi", "submit": true}),
        )
        .unwrap()
        .unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1].args, json!({"action": "key", "text": "Enter"}));
        let e = translate("browser_click", &json!({"element": "x"}))
            .unwrap()
            .unwrap_err();
        assert!(e.problem.contains("`ref` (or `target`)"), "{e}");
        assert!(translate("navigate", &json!({})).is_none());
        for t in alias_tools() {
            assert_eq!(t.input_schema["type"], "object");
        }
    }
}
