//! The tool vocabulary (DESIGN.md §7): the canonical tool names, their typed argument
//! structs (serde + JSON schema, with descriptions written for the model), validation with
//! errors that name the argument, and [`ToolCall`], the validated call a backend acts on.
//!
//! Pure data: no I/O, no rmcp server, no browser. Both the MCP server here and the daemon's
//! action endpoint validate through [`ToolCall::parse`] / [`ToolCall::from_name`].
//!
//! Field doc comments double as the JSON-schema descriptions the model reads, so they quote
//! URLs as plain text.
#![allow(rustdoc::bare_urls)]

pub mod args;
pub mod call;
pub mod capture;
pub mod computer;
pub mod files;
pub mod form;
pub mod human;
pub mod logs;
pub mod names;
pub mod page;
pub mod tabs;
pub mod vault;
pub mod wait;
pub mod window;

pub use args::{ArgError, Problem, Validate};
pub use call::{ToolCall, ToolCallError, DEFAULT_CALL_DEADLINE};
pub use capture::{ImageFormat, SaveScreenshotArgs, ScreenshotArgs};
pub use computer::{
    ComputerAction, ComputerArgs, Modifiers, PointTarget, ScrollDirection, DEFAULT_SCROLL_AMOUNT,
    SCROLL_TICK_PX,
};
pub use files::{GetDownloadArgs, InlineFile, UploadFileArgs, MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES};
pub use form::{FormInputArgs, FormValue};
pub use human::{
    HandleDialogArgs, RequestHumanArgs, DEFAULT_HANDOFF_TIMEOUT_MS, MAX_HANDOFF_TIMEOUT_MS,
};
pub use logs::{ConsoleLevel, ReadConsoleMessagesArgs, ReadNetworkRequestsArgs, DEFAULT_LOG_LIMIT};
pub use names::{ToolName, UnknownTool};
pub use page::{
    normalize_url, EvaluateArgs, FindArgs, GetPageTextArgs, NavigateArgs, NoArgs, ReadPageArgs,
    ReadPageFilter, DEFAULT_READ_PAGE_BYTES, MAX_READ_PAGE_BYTES, MIN_READ_PAGE_BYTES,
};
pub use tabs::{CloseTabArgs, NewTabArgs, SwitchTabArgs, TabRef};
pub use vault::{FillLoginArgs, FillTotpArgs};
pub use wait::{
    HasWait, WaitFor, DEFAULT_WAIT_TIMEOUT_MS, MAX_WAIT_TIMEOUT_MS, WAIT_POLL_INTERVAL,
};
pub use window::ResizeWindowArgs;
