//! Porthole's MCP browser tools.
//!
//! - [`vocabulary`]: the tools' names, typed arguments and JSON schemas, and validation.
//! - [`aliases`]: Playwright MCP tool names translated into canonical calls (opt-in).
//! - [`tools`]: the `tools/list` entries (name, description, schema).
//! - [`backend`]: [`ToolBackend`], the seam to whatever runs the tools.
//! - [`wire`]: the JSON shapes of `POST /api/browser/action` ([`ToolOutput`] …).
//! - [`server`]: the rmcp stdio server over a [`ToolBackend`].
//! - [`proxy`]: [`proxy::HttpProxyBackend`], forwarding every call to the daemon.
//! - [`transport`]: one HTTP exchange with the daemon, over TCP or the agent Unix socket.
//! - [`screenshot_file`]: `save_screenshot` done by the calling process on top of `screenshot`.
//! - [`upload`]: `upload_file`'s files read by the calling process and sent inline.
//! - [`cdp_forward`]: `porthole-mcp cdp --listen`, the agent's CDP door at a port's root.
//!
//! This crate never depends on the daemon: the daemon depends on it and implements the direct
//! backend on its CDP engine.

pub mod aliases;
pub mod backend;
pub mod cdp_forward;
pub mod proxy;
pub mod screenshot_file;
pub mod server;
pub mod stdio_logging;
pub mod tools;
pub mod transport;
pub mod upload;
pub mod vocabulary;
pub mod wire;

pub use backend::ToolBackend;
pub use server::{McpServer, ServerOptions};
pub use vocabulary::{ToolCall, ToolName};
pub use wire::{ActionRequest, ApiErrorBody, ApiErrorDetail, BlobResource, Content, ToolOutput};
