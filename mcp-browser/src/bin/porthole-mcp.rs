//! `porthole-mcp`: the stdio MCP server for agent containers. Every tool call is proxied to
//! the Porthole daemon's `POST /api/browser/action` for one channel, over TCP or the agent
//! Unix socket. At start it asks the daemon who its token belongs to (`agents/me`): an agent
//! token names its channel and the tools it may not use, which are then not listed.
//!
//! stdout carries the MCP protocol only; logs go to `--log <file>` or stderr.
//!
//! `porthole-mcp cdp --listen 127.0.0.1:9222` instead forwards a port's root to the agent's
//! CDP door (see [`porthole_mcp::cdp_forward`]), for tools that take only a port.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context as _};
use clap::{Parser, Subcommand};
use porthole_mcp::cdp_forward::{loopback_listen, Forwarder};
use porthole_mcp::proxy::HttpProxyBackend;
use porthole_mcp::{McpServer, ServerOptions};
use url::Url;

/// Browser tools over MCP (stdio) for one Porthole channel, proxied to the daemon.
#[derive(Debug, Parser)]
#[command(name = "porthole-mcp", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The daemon's base URL: `http://127.0.0.1:7878`, or the agent socket
    /// `unix:///run/porthole/agents.sock` mounted into this container.
    #[arg(
        long,
        env = "PORTHOLE_API",
        global = true,
        default_value = "http://127.0.0.1:7878"
    )]
    api: Url,
    /// The channel whose browser the tools drive (an agent token knows its own; the owner
    /// token needs this).
    #[arg(long, env = "PORTHOLE_CHANNEL")]
    channel: Option<String>,
    /// An agent token from `porthole agent add <channel>` (or the owner token), or set
    /// PORTHOLE_TOKEN, or use --token-file.
    #[arg(long, env = "PORTHOLE_TOKEN", hide_env_values = true, global = true)]
    token: Option<String>,
    /// A file holding the token (takes precedence over --token / PORTHOLE_TOKEN).
    #[arg(long, env = "PORTHOLE_TOKEN_FILE", global = true)]
    token_file: Option<PathBuf>,
    /// Also offer Playwright MCP's tool names (browser_navigate, browser_click, …).
    #[arg(long)]
    playwright_aliases: bool,
    /// Append logs to this file instead of stderr.
    #[arg(long, global = true)]
    log: Option<PathBuf>,
    /// Deadline of a tool call that does not wait on purpose, in milliseconds; wait_* and
    /// `computer` wait time is added on top.
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    call_timeout_ms: u64,
}

/// Instead of the MCP server (the default).
#[derive(Debug, Subcommand)]
enum Command {
    /// Forward a loopback port's root to this agent's CDP door, for tools that take only a
    /// port (`--browserUrl http://127.0.0.1:9222`, Puppeteer's `browserURL`): `/json/…` and
    /// `/devtools/…` go to the daemon with the agent token added, and the WebSocket URLs in
    /// its answers point back here.
    Cdp {
        /// The loopback address to listen on, such as 127.0.0.1:9222 (port 0: any free port,
        /// printed at start).
        #[arg(long)]
        listen: String,
    },
}

fn token(cli: &Cli) -> anyhow::Result<String> {
    if let Some(path) = &cli.token_file {
        let token = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the token file {}", path.display()))?;
        return Ok(token.trim().to_owned());
    }
    match &cli.token {
        Some(t) => Ok(t.trim().to_owned()),
        None => bail!(
            "no token: pass --token <token>, set PORTHOLE_TOKEN, or --token-file <path> (ask \
             the person who runs Porthole for an agent token: `porthole agent add <channel>`)"
        ),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let logs_to_file = cli.log.is_some();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // stdout belongs to the protocol: the reason goes to the log, and to stderr when
            // the log is a file (or could not be opened).
            tracing::error!(error = %format!("{e:#}"), "porthole_mcp_failed");
            if logs_to_file {
                eprintln!("porthole-mcp: {e:#}");
            }
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    porthole_mcp::stdio_logging::init_stdio_logging(cli.log.as_deref())?;
    if let Some(Command::Cdp { listen }) = &cli.command {
        return forward_cdp(&cli, listen).await;
    }
    let token = token(&cli)?;
    let backend = HttpProxyBackend::new(cli.api.clone(), cli.channel.clone(), token)?;
    let mut deny_tools = Vec::new();
    match backend.identity().await {
        Ok(me) => {
            if me.channel_id.is_none() && cli.channel.is_none() {
                bail!("the owner token acts on any channel: pass --channel <id> (or use an agent token, which knows its channel)");
            }
            tracing::info!(agent_id = %me.agent_id, name = %me.name, channel_id = ?me.channel_id, deny = ?me.deny_tools, "porthole_mcp_identity");
            // Names this build does not know are skipped: the daemon refuses them anyway.
            deny_tools = me
                .deny_tools
                .iter()
                .filter_map(|t| t.parse().ok())
                .collect();
        }
        // Not fatal: the daemon may start later; it refuses denied tools itself.
        Err(error) => tracing::warn!(%error, "porthole_mcp_identity_unknown"),
    }
    let options = ServerOptions {
        playwright_aliases: cli.playwright_aliases,
        base_deadline: Duration::from_millis(cli.call_timeout_ms),
        deny_tools,
        deny_setting: "this agent's deny_tools or the daemon's agents.deny_tools".to_string(),
        ..ServerOptions::default()
    };
    tracing::info!(
        api = %cli.api,
        channel_id = ?cli.channel,
        aliases = cli.playwright_aliases,
        "porthole_mcp_start"
    );
    McpServer::new(Arc::new(backend), options)
        .serve_stdio()
        .await
        .context("MCP server failed")
}

/// `porthole-mcp cdp --listen <addr>`: serves the forwarder until the process ends.
async fn forward_cdp(cli: &Cli, listen: &str) -> anyhow::Result<()> {
    let listen = loopback_listen(listen)?;
    let token = token(cli)?;
    if token.is_empty() {
        bail!("the token is empty: pass --token, set PORTHOLE_TOKEN or point --token-file at a file holding an agent token (`porthole agent add <channel>`)");
    }
    let forwarder = Forwarder::new(&cli.api, token, listen)?;
    let api = cli.api.clone();
    forwarder
        .serve(|bound| {
            tracing::info!(listen = %bound, %api, "porthole_mcp_cdp_listening");
            println!("CDP forwarder listening on http://{bound} (the agent's door at {api})");
        })
        .await
        .with_context(|| format!("cannot serve on {listen}"))
}
