//! [`ToolCall`]: one validated call of a canonical tool, with typed arguments — what a backend
//! matches on — and the deadline the server gives it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::args::{input_schema, parse_args, usage, ArgError};
use super::capture::{SaveScreenshotArgs, ScreenshotArgs};
use super::computer::{ComputerAction, ComputerArgs};
use super::files::{GetDownloadArgs, UploadFileArgs};
use super::form::FormInputArgs;
use super::human::{HandleDialogArgs, RequestHumanArgs};
use super::logs::{ReadConsoleMessagesArgs, ReadNetworkRequestsArgs};
use super::names::{ToolName, UnknownTool};
use super::page::{EvaluateArgs, FindArgs, GetPageTextArgs, NavigateArgs, NoArgs, ReadPageArgs};
use super::tabs::{CloseTabArgs, NewTabArgs, SwitchTabArgs};
use super::vault::{FillLoginArgs, FillTotpArgs};
use super::wait::HasWait;
use super::window::ResizeWindowArgs;

/// The deadline of a call that does not wait on purpose; waits add their own time on top.
pub const DEFAULT_CALL_DEADLINE: Duration = Duration::from_secs(30);

macro_rules! tool_calls {
    ($($variant:ident($args:ty)),* $(,)?) => {
        /// A validated call of a canonical tool.
        #[derive(Debug, Clone, PartialEq)]
        pub enum ToolCall {
            $(
                #[doc = concat!("`", stringify!($variant), "` with its arguments.")]
                $variant($args),
            )*
        }

        impl ToolCall {
            /// Decodes and validates `args` for `tool`.
            pub fn parse(tool: ToolName, args: &Value) -> Result<Self, ArgError> {
                match tool {
                    $(ToolName::$variant =>
                        parse_args::<$args>(tool.as_str(), args).map(ToolCall::$variant),)*
                }
            }

            /// The tool this call runs.
            pub fn name(&self) -> ToolName {
                match self {
                    $(ToolCall::$variant(_) => ToolName::$variant,)*
                }
            }

            /// The arguments as JSON, normalised (what the server sends to a backend).
            pub fn args_json(&self) -> Value {
                let value = match self {
                    $(ToolCall::$variant(a) => serde_json::to_value(a),)*
                };
                value.unwrap_or_else(|e| panic!("tool arguments always serialise: {e}"))
            }
        }

        impl ToolName {
            /// The JSON schema of the tool's arguments (MCP `inputSchema`).
            pub fn input_schema(self) -> Arc<serde_json::Map<String, Value>> {
                match self {
                    $(ToolName::$variant => input_schema::<$args>(),)*
                }
            }

            /// The tool's arguments in short, e.g. `{url, wait_for_selector?, …}`.
            pub fn usage(self) -> String {
                match self {
                    $(ToolName::$variant => usage::<$args>(),)*
                }
            }
        }
    };
}

tool_calls! {
    Navigate(NavigateArgs),
    ReadPage(ReadPageArgs),
    Computer(ComputerArgs),
    FormInput(FormInputArgs),
    Screenshot(ScreenshotArgs),
    SaveScreenshot(SaveScreenshotArgs),
    GoBack(NoArgs),
    GoForward(NoArgs),
    Reload(NoArgs),
    Evaluate(EvaluateArgs),
    ListTabs(NoArgs),
    NewTab(NewTabArgs),
    SwitchTab(SwitchTabArgs),
    CloseTab(CloseTabArgs),
    PageInfo(NoArgs),
    GetPageText(GetPageTextArgs),
    Find(FindArgs),
    ReadConsoleMessages(ReadConsoleMessagesArgs),
    ReadNetworkRequests(ReadNetworkRequestsArgs),
    ResizeWindow(ResizeWindowArgs),
    UploadFile(UploadFileArgs),
    ListDownloads(NoArgs),
    GetDownload(GetDownloadArgs),
    HandleDialog(HandleDialogArgs),
    RequestHuman(RequestHumanArgs),
    ListLogins(NoArgs),
    FillLogin(FillLoginArgs),
    FillTotp(FillTotpArgs),
}

/// Why a `(tool, args)` pair is not a valid call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolCallError {
    /// Not a canonical tool name.
    #[error("Unknown tool `{}`. Available tools: {}", .0 .0, ToolName::list())]
    UnknownTool(UnknownTool),
    /// The arguments are wrong.
    #[error(transparent)]
    Args(#[from] ArgError),
}

impl ToolCall {
    /// Resolves a canonical tool name and validates its arguments (for callers holding a
    /// name as text, such as the daemon's action endpoint).
    pub fn from_name(tool: &str, args: &Value) -> Result<Self, ToolCallError> {
        let name: ToolName = tool.parse().map_err(ToolCallError::UnknownTool)?;
        Ok(Self::parse(name, args)?)
    }

    /// The time this call may spend waiting on purpose: wait_timeout_ms when it waits for a
    /// selector or text, plus `duration` for `computer` wait.
    pub fn wait_budget(&self) -> Duration {
        let wait = match self {
            ToolCall::Navigate(a) => a.wait(),
            ToolCall::Screenshot(a) => a.wait(),
            ToolCall::SaveScreenshot(a) => a.wait(),
            ToolCall::Computer(a) => a.wait(),
            _ => None,
        };
        let pause = match self {
            ToolCall::Computer(a) if a.action == ComputerAction::Wait => {
                a.wait_duration().unwrap_or_default()
            }
            ToolCall::RequestHuman(a) => a.timeout(),
            _ => Duration::ZERO,
        };
        wait.map(|w| w.timeout).unwrap_or_default() + pause
    }

    /// The deadline for this call: `base` (the work itself) plus [`wait_budget`](Self::wait_budget).
    pub fn deadline(&self, base: Duration) -> Duration {
        base + self.wait_budget()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_tool_has_an_object_schema_and_parses_minimal_args() {
        for t in ToolName::ALL {
            assert_eq!(t.input_schema()["type"], "object", "{t}");
        }
        let call = ToolCall::from_name("navigate", &json!({"url": "example.com"})).unwrap();
        assert_eq!(call.args_json(), json!({"url": "https://example.com"}));
        assert_eq!(call.deadline(DEFAULT_CALL_DEADLINE), DEFAULT_CALL_DEADLINE);
        let call = ToolCall::from_name(
            "navigate",
            &json!({"url": "http://localhost:1/", "wait_for_text": "hi"}),
        )
        .unwrap();
        assert_eq!(call.wait_budget(), Duration::from_secs(10));
        let e = ToolCall::from_name(
            "navigate",
            &json!({"url": "http://x/", "wait_for_text": "a", "wait_timeout_ms": 90000}),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("`wait_timeout_ms` must be between 1 and 60000"),
            "{e}"
        );
        let e = ToolCall::from_name("nope", &json!({})).unwrap_err();
        assert!(e
            .to_string()
            .contains("Available tools: navigate, read_page"));
    }
}
