//! `porthole mcp-host-browser`: a stdio MCP server on the user's own Chrome, found through its
//! `DevToolsActivePort` (chrome://inspect/#remote-debugging). The tools run on a
//! `BrowserSession` in own-tabs mode over that one connection — the same engine as a channel,
//! with no channel service and no panes — so only tabs this server opened (in a background
//! window of their own) and the popups they open are ever touched.
//!
//! Chrome is looked for on the first tool call, not at start, so the tool list is there even
//! when Chrome is not; a lost connection is replaced on the next call. stdout is the protocol's.
//!
//! An entry point like [`crate::daemon`]: it connects to the user's Chrome and closes its tabs
//! on the way out through the same functions as a host-mode channel ([`crate::channels`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use porthole_mcp::{McpServer, ServerOptions, ToolBackend, ToolOutput};
use serde_json::Value;

use crate::browser::{Actor, BrowserSession};
use crate::calls::Pipeline;
use crate::channel_id::ChannelId;
use crate::channels::{close_session, connect_users_chrome, ownership_of};
use crate::mode::Mode;
use crate::providers::host::{HostProvider, HostSettings};
use crate::providers::{BrowserProvider, CdpAddress, ProgressFn};

/// Where to look for the user's Chrome and how to present the tools.
#[derive(Debug, Clone)]
pub struct HostBrowserOptions {
    /// User-data dirs searched for `DevToolsActivePort` before the well-known ones.
    pub user_data_dirs: Vec<PathBuf>,
    /// A remote-debugging port to try when no `DevToolsActivePort` is found.
    pub port: Option<u16>,
    /// Viewport of the tabs this server opens.
    pub screen: (u32, u32),
    /// How long the tools' settle waits (`tools.*` settings).
    pub settle: crate::browser::SettleLimits,
    pub server: ServerOptions,
}

/// The session over the user's Chrome, opened on first use and replaced when lost.
struct HostSource {
    options: HostBrowserOptions,
    /// Serialises connecting; held across the connect only, never across tool work.
    session: tokio::sync::Mutex<Option<Arc<BrowserSession>>>,
}

/// How long to wait for Chrome's DevTools socket (it may show a permission prompt); shorter
/// than a channel's, so the answer comes within the MCP call's own deadline.
const CONNECT_DEADLINE: Duration = Duration::from_secs(20);

/// The tools on the user's Chrome: every call through the call pipeline's standalone layers,
/// as the owner (only this server's own tabs exist for it).
struct HostTools {
    source: Arc<HostSource>,
    pipeline: Pipeline,
}

#[async_trait]
impl ToolBackend for HostTools {
    async fn call(&self, tool: &str, args: Value) -> ToolOutput {
        match self.source.session().await {
            Ok(session) => self.pipeline.run(&session, &Actor::Owner, tool, args).await,
            Err(message) => ToolOutput::error(message),
        }
    }
}

impl HostSource {
    /// The running session over the user's Chrome, connected on first use, or a message
    /// saying what to do.
    async fn session(&self) -> Result<Arc<BrowserSession>, String> {
        let mut slot = self.session.lock().await;
        if let Some(session) = slot.as_ref().filter(|s| s.is_alive()) {
            return Ok(session.clone());
        }
        // The same discovery and terms as a host-mode channel (providers::host).
        let provider = HostProvider::new(HostSettings {
            user_data_dirs: self.options.user_data_dirs.clone(),
            port: self.options.port,
        });
        let channel = ChannelId::parse("mcp-host-browser").expect("a valid channel id");
        let quiet: ProgressFn = Arc::new(|_: &str, _: &str| {});
        let endpoint = provider
            .ensure_browser(&channel, quiet)
            .await
            .map_err(|e| e.to_string())?;
        let CdpAddress::WebSocket(ws_url) = endpoint.address else {
            return Err("Chrome's DevTools endpoint is not a WebSocket".to_string());
        };
        let cdp = connect_users_chrome(&ws_url, CONNECT_DEADLINE)
            .await
            .map_err(|e| e.to_string())?;
        let options = crate::browser::SessionOptions {
            ownership: ownership_of(provider.terms()),
            screen: self.options.screen,
            downloads: provider.downloads(&channel),
            downloads_root: None,
            download_limits: Default::default(),
            settle: self.options.settle,
            // No person here: nobody but a pane could answer, and there is none.
            reach: Default::default(),
        };
        let session = BrowserSession::open(channel, Mode::Host, cdp, options)
            .await
            .map_err(|e| format!("Connected to Chrome but could not open a tab: {e}"))?;
        // No person here: every tab is the tools', kept off browser-internal pages.
        session.url_guard().every_tab();
        *slot = Some(session.clone());
        Ok(session)
    }
}

/// Serves MCP on stdin/stdout until the client goes; closes the tabs it opened on the way out.
pub async fn serve(options: HostBrowserOptions) -> Result<(), porthole_mcp::server::ServeError> {
    let server_options = options.server.clone();
    let source = Arc::new(HostSource {
        options,
        session: tokio::sync::Mutex::new(None),
    });
    let backend = HostTools {
        source: source.clone(),
        pipeline: Pipeline::standalone(),
    };
    let result = McpServer::new(Arc::new(backend), server_options)
        .serve_stdio()
        .await;
    // Leave the user's Chrome as we found it: close our tabs (their window goes with them).
    let session = source.session.lock().await.take();
    if let Some(session) = session {
        close_session(&session, "mcp_client_gone").await;
    }
    result
}
