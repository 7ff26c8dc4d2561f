//! The rmcp MCP server over an `Arc<dyn ToolBackend>`.
//!
//! `tools/list` returns the 20 canonical tools (plus the Playwright aliases when enabled) with
//! their JSON schemas. `tools/call` resolves the name (canonical, or alias → canonical calls),
//! validates every call's arguments before running any, runs each on the backend under a
//! deadline, and returns the backend's [`ToolOutput`] as a `CallToolResult`. Every failure —
//! unknown tool, bad arguments, deadline passed, backend error — is a tool result with
//! `isError: true` and a message saying what to do, never a protocol error. This module owns
//! none of the tools' behaviour and no transport but stdio.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ResourceContents, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tracing::{info, warn, Instrument};

use crate::aliases;
use crate::backend::ToolBackend;
use crate::tools::canonical_tools;
use crate::vocabulary::{ToolCall, ToolName, DEFAULT_CALL_DEADLINE};
use crate::wire::{Content, ToolOutput};

/// How the server presents and bounds the tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOptions {
    /// Also offer Playwright MCP's tool names (`browser_click` …), see [`crate::aliases`].
    pub playwright_aliases: bool,
    /// The deadline of a call that does not wait on purpose; a call that waits gets its wait
    /// time on top (see [`ToolCall::deadline`]).
    pub base_deadline: Duration,
    /// Tools this server neither lists nor runs (`--deny`, or the agent's policy).
    pub deny_tools: Vec<ToolName>,
    /// The setting that denies them, named in the refusal (e.g. `--deny`).
    pub deny_setting: String,
    /// Tools this server does not list because they cannot work behind it (the vault's
    /// outside the daemon); a call still gets their own answer saying why.
    pub unlisted_tools: Vec<ToolName>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            playwright_aliases: false,
            base_deadline: DEFAULT_CALL_DEADLINE,
            deny_tools: Vec::new(),
            deny_setting: "--deny".to_string(),
            unlisted_tools: Vec::new(),
        }
    }
}

/// Failed to run the server over stdio.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The MCP handshake with the client failed.
    #[error("MCP initialisation failed: {0}")]
    Initialize(Box<rmcp::service::ServerInitializeError>),
    /// The server task ended abnormally.
    #[error("MCP server task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// The MCP server: a cheap, cloneable handle over the backend and the tool list.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    backend: Arc<dyn ToolBackend>,
    options: ServerOptions,
    tools: Vec<Tool>,
}

impl McpServer {
    /// A server that runs tools on `backend`.
    pub fn new(backend: Arc<dyn ToolBackend>, options: ServerOptions) -> Self {
        let mut tools = canonical_tools();
        tools.retain(|t| {
            !options
                .deny_tools
                .iter()
                .chain(&options.unlisted_tools)
                .any(|left_out| left_out.as_str() == t.name.as_ref())
        });
        if options.playwright_aliases {
            tools.extend(aliases::alias_tools());
        }
        Self {
            inner: Arc::new(Inner {
                backend,
                options,
                tools,
            }),
        }
    }

    /// What `tools/list` returns.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// Runs one `tools/call` end to end (name resolution, validation, deadline, backend).
    pub async fn call(&self, name: &str, args: Value) -> ToolOutput {
        let started = Instant::now();
        let span = tracing::info_span!("tool_call", tool = name);
        let out = self.call_inner(name, args).instrument(span).await;
        info!(
            tool = name,
            is_error = out.is_error,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "tool_result"
        );
        out
    }

    async fn call_inner(&self, name: &str, args: Value) -> ToolOutput {
        let planned: Vec<(ToolName, Value)> = if let Ok(tool) = name.parse::<ToolName>() {
            vec![(tool, args)]
        } else if self.inner.options.playwright_aliases {
            match aliases::translate(name, &args) {
                Some(Ok(calls)) => calls.into_iter().map(|c| (c.tool, c.args)).collect(),
                Some(Err(e)) => return ToolOutput::error(e.to_string()),
                None => return self.unknown_tool(name),
            }
        } else {
            return self.unknown_tool(name);
        };
        // A denied tool is refused before anything runs, aliases included.
        if let Some((denied, _)) = planned
            .iter()
            .find(|(tool, _)| self.inner.options.deny_tools.contains(tool))
        {
            return ToolOutput::error(format!(
                "The tool {denied} is turned off here ({}). Use another tool, or ask the person \
                 who runs Porthole.",
                self.inner.options.deny_setting
            ));
        }
        // Validate every step before running any, so a bad alias argument changes nothing.
        let mut calls = Vec::with_capacity(planned.len());
        for (tool, args) in planned {
            match ToolCall::parse(tool, &args) {
                Ok(call) => calls.push(call),
                Err(e) => return ToolOutput::error(e.to_string()),
            }
        }
        let mut out = ToolOutput {
            content: Vec::new(),
            is_error: false,
        };
        for call in calls {
            let step = self.run(&call).await;
            out.content.extend(step.content);
            if step.is_error {
                out.is_error = true;
                break;
            }
        }
        out
    }

    async fn run(&self, call: &ToolCall) -> ToolOutput {
        let tool = call.name();
        let deadline = call.deadline(self.inner.options.base_deadline);
        let backend_call = self.inner.backend.call(tool.as_str(), call.args_json());
        match tokio::time::timeout(deadline, backend_call).await {
            Ok(out) => out,
            Err(_) => {
                warn!(
                    tool = tool.as_str(),
                    deadline_ms = deadline.as_millis() as u64,
                    "tool_timeout"
                );
                ToolOutput::error(format!(
                    "`{tool}` did not finish within its deadline of {:.1} s and was abandoned. The \
                     browser may still be busy: check with page_info or screenshot before \
                     retrying.",
                    deadline.as_secs_f64()
                ))
            }
        }
    }

    fn unknown_tool(&self, name: &str) -> ToolOutput {
        let mut text = format!(
            "Unknown tool `{name}`. Available tools: {}",
            ToolName::list()
        );
        if self.inner.options.playwright_aliases {
            text.push_str(&format!(
                "; Playwright MCP names: {}",
                aliases::PLAYWRIGHT_ALIASES.join(", ")
            ));
        } else if aliases::is_alias(name) {
            text.push_str(
                ". Playwright MCP names such as this one are offered only when porthole-mcp runs \
                 with --playwright-aliases; use the canonical tools above",
            );
        }
        text.push('.');
        ToolOutput::error(text)
    }

    /// Serves MCP over this process's stdin/stdout until the client disconnects.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let service = self
            .serve(rmcp::transport::stdio_pipes())
            .await
            .map_err(|e| ServeError::Initialize(Box::new(e)))?;
        let reason = service.waiting().await?;
        info!(?reason, "mcp_server_stopped");
        Ok(())
    }
}

impl From<ToolOutput> for CallToolResult {
    fn from(out: ToolOutput) -> Self {
        let content = out
            .content
            .into_iter()
            .map(|c| match c {
                Content::Text { text } => ContentBlock::text(text),
                Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
                Content::Resource { resource } => ContentBlock::resource(
                    ResourceContents::blob(resource.blob, resource.uri)
                        .with_mime_type(resource.mime_type),
                ),
            })
            .collect();
        if out.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
    }
}

const INSTRUCTIONS: &str = "Browser tools for this workspace's own browser, which a person may be \
    watching live. Start with navigate, then read_page to get element refs; act with computer or \
    form_input using those refs (coordinates from a screenshot also work). Refs go stale when the \
    page navigates: call read_page again. Tabs are numbered by list_tabs.";

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "porthole-mcp",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let out = self.call(&request.name, args).await;
        Ok(CallToolResult::from(out).into())
    }
}
