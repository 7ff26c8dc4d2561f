//! Arguments of `read_console_messages` and `read_network_requests`, which read the per-tab
//! ring buffers the backend keeps from the moment it attaches to a tab.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_range, Problem, Validate};

/// Entries returned when no `limit` is given.
pub const DEFAULT_LOG_LIMIT: u32 = 100;
/// The largest `limit` accepted.
pub const MAX_LOG_LIMIT: u32 = 1000;

/// A console message's severity, least to most severe (so `>=` filters "this or worse").
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum ConsoleLevel {
    /// console.debug
    Debug,
    /// console.log
    Log,
    /// console.info
    Info,
    /// console.warn
    #[serde(alias = "warn")]
    Warning,
    /// console.error and uncaught exceptions
    Error,
}

/// `read_console_messages`: the active tab's console output, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadConsoleMessagesArgs {
    /// Only messages containing this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Minimum level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<ConsoleLevel>,
    /// Most recent N (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u32>,
    /// Skip the N most recent matches (to page back through a cut answer; its note says N).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1000))]
    pub offset: Option<u32>,
    /// Empty the buffer after reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear: Option<bool>,
}

impl ReadConsoleMessagesArgs {
    /// The entry cap, defaulting to [`DEFAULT_LOG_LIMIT`].
    pub fn limit(&self) -> usize {
        self.limit.unwrap_or(DEFAULT_LOG_LIMIT) as usize
    }
    /// How many of the most recent matches to skip (0 unless given).
    pub fn offset(&self) -> usize {
        self.offset.unwrap_or(0) as usize
    }
}

impl Validate for ReadConsoleMessagesArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_range("limit", self.limit, 1, MAX_LOG_LIMIT)?;
        check_range("offset", self.offset, 0, MAX_LOG_LIMIT)
    }
}

/// `read_network_requests`: the active tab's requests, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadNetworkRequestsArgs {
    /// Only URLs containing this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_pattern: Option<String>,
    /// Most recent N (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u32>,
    /// Skip the N most recent matches (to page back through a cut answer; its note says N).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1000))]
    pub offset: Option<u32>,
    /// Empty the buffer after reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear: Option<bool>,
}

impl ReadNetworkRequestsArgs {
    /// The entry cap, defaulting to [`DEFAULT_LOG_LIMIT`].
    pub fn limit(&self) -> usize {
        self.limit.unwrap_or(DEFAULT_LOG_LIMIT) as usize
    }
    /// How many of the most recent matches to skip (0 unless given).
    pub fn offset(&self) -> usize {
        self.offset.unwrap_or(0) as usize
    }
}

impl Validate for ReadNetworkRequestsArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_range("limit", self.limit, 1, MAX_LOG_LIMIT)?;
        check_range("offset", self.offset, 0, MAX_LOG_LIMIT)
    }
}
