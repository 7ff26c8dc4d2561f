//! The seam between the MCP server and whatever runs the tools: [`ToolBackend`].
//!
//! Two implementations exist: [`crate::proxy::HttpProxyBackend`] (this crate; forwards to the
//! daemon over HTTP) and the daemon's direct backend on its CDP engine (in the daemon crate).
//! This module owns only the trait; it knows nothing of HTTP, CDP or rmcp.

use async_trait::async_trait;
use serde_json::Value;

use crate::wire::ToolOutput;

/// Runs one canonical tool call.
///
/// `tool` is always a canonical name (one of [`crate::ToolName`]): the server translates
/// aliases and validates `args` before calling, so `ToolCall::parse(tool, &args)` succeeds on
/// what a backend receives. Failures are returned as a [`ToolOutput`] with `is_error` set
/// and a message that says what to do — never a panic. The server bounds every call with a
/// deadline and drops the future when it expires, so a backend must be cancel-safe.
#[async_trait]
pub trait ToolBackend: Send + Sync + 'static {
    /// Runs `tool` with `args` and returns the MCP tool result.
    async fn call(&self, tool: &str, args: Value) -> ToolOutput;
}
