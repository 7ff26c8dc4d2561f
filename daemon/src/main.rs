//! The `porthole` command line.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use porthole::config::Config;
use porthole::daemon::{Daemon, Paths};
use porthole::mode::Mode;

/// mimalloc, not glibc's malloc: measured with `porthole-bench timeline` and `screencast`
/// (release, alternating runs), malloc and free were 15 % of a busy daemon's CPU, and with
/// mimalloc a tool call costs 8–15 % less CPU and a pane's frame about 10 % less.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "porthole",
    version,
    about = "A shared, persistent browser per channel for AI agents and their humans"
)]
struct Cli {
    /// Config file (default: <config dir>/porthole/config.json).
    #[arg(long, global = true, env = "PORTHOLE_CONFIG")]
    config: Option<PathBuf>,
    /// Data directory: token, state, profiles, logs.
    #[arg(long, global = true, env = "PORTHOLE_DATA_DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the daemon and print the pane URL (with the owner token only on a terminal).
    Serve {
        /// Listen address (overrides server.listen), e.g. 127.0.0.1:7878; port 0 picks one.
        #[arg(long)]
        listen: Option<std::net::SocketAddr>,
        /// Default mode for channels that never chose one (overrides browser.default_mode).
        #[arg(long)]
        mode: Option<Mode>,
        /// Idle timeout in seconds (overrides browser.idle_timeout_secs).
        #[arg(long)]
        idle_timeout_secs: Option<u64>,
        /// Open the pane in your browser (the URL with the owner token is never printed then).
        #[arg(long)]
        open: bool,
    },
    /// Print the owner token (creating it on first use).
    Token,
    /// Serve the MCP browser tools on stdio, driving your own Chrome (only tabs it opens).
    McpHostBrowser(McpHostBrowserArgs),
    /// Manage agent identities: their own tokens, bound to one channel.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// The vault's KeePass passwords in the OS keyring (Secret Service, macOS Keychain).
    #[command(subcommand)]
    Vault(VaultCommand),
    /// Build the docker-mode sidecar image (browser.chrome_image) now, without cache.
    DockerBuild {
        /// Build only when the rebuild rules say so (missing, unlabelled, other version).
        #[arg(long)]
        if_needed: bool,
    },
}

#[derive(Subcommand)]
enum AgentCommand {
    /// Create an agent for a channel; prints its token once and the `docker run` flags that
    /// hand a container the agent socket and the token.
    Add {
        /// The channel the agent may act on.
        channel: String,
        /// A name people see in the pane.
        #[arg(long)]
        name: Option<String>,
        /// Tools this agent may not call, comma-separated (e.g. evaluate,navigate).
        #[arg(long, value_delimiter = ',')]
        deny: Vec<String>,
        /// Write the token to this file (mode 0600) instead of printing it.
        #[arg(long)]
        token_file: Option<PathBuf>,
        /// Let the agent act while its channel is in host mode (your own Chrome). Without it
        /// the agent is refused there (agents.allow_host_mode in the config allows every agent).
        #[arg(long)]
        host: bool,
        /// Only these sites load in the agent's tabs (repeatable or comma-separated): a host
        /// (github.com), a host with its subdomains (*.github.com) or an origin
        /// (http://127.0.0.1:8080).
        #[arg(long = "allow-site", value_delimiter = ',')]
        allow_sites: Vec<String>,
        /// These sites never load in the agent's tabs (repeatable or comma-separated; wins
        /// over --allow-site).
        #[arg(long = "deny-site", value_delimiter = ',')]
        deny_sites: Vec<String>,
        /// Acts the agent must ask the person about in the pane (repeatable or
        /// comma-separated): submit, new_site, upload, download, evaluate, login.
        #[arg(long = "confirm", value_delimiter = ',')]
        confirm: Vec<String>,
    },
    /// List agents (never their tokens).
    List,
    /// Remove an agent; its token stops working at once.
    Remove {
        /// The agent's id (as `porthole agent list` shows it).
        agent_id: String,
    },
}

#[derive(Subcommand)]
enum VaultCommand {
    /// Check a KeePass source's password against its database and store it in the OS keyring,
    /// where the daemon on this data dir finds it at start. Asked without echo on a terminal;
    /// otherwise the first line of stdin.
    Unlock {
        /// The source's name (vault.sources).
        source: String,
    },
    /// Remove a source's password from the OS keyring (the daemon keeps it locked from its
    /// next start).
    Forget {
        /// The source's name (vault.sources).
        source: String,
    },
}

#[derive(clap::Args)]
struct McpHostBrowserArgs {
    /// A Chrome user-data dir to look for DevToolsActivePort in first (repeatable; adds to
    /// browser.host.user_data_dirs).
    #[arg(long = "user-data-dir")]
    user_data_dirs: Vec<PathBuf>,
    /// A remote-debugging port to try when no DevToolsActivePort is found.
    #[arg(long)]
    port: Option<u16>,
    /// Also offer Playwright MCP's tool names (browser_navigate, browser_click, …).
    #[arg(long)]
    playwright_aliases: bool,
    /// Append logs to this file instead of stderr (stdout carries the protocol).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Tools not to offer, comma-separated (e.g. evaluate): not listed, and refused if called.
    #[arg(long, value_delimiter = ',')]
    deny: Vec<String>,
}

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("dev", "porthole", "porthole")
}

fn main() -> anyhow::Result<()> {
    porthole::bounds::release_large_buffers();
    let cli = Cli::parse();
    let data_dir = match cli.data_dir {
        Some(dir) => dir,
        None => project_dirs()
            .context("cannot find a home directory for the data dir; pass --data-dir")?
            .data_dir()
            .to_path_buf(),
    };
    let (config_path, must_exist) = match cli.config {
        Some(path) => (path, true),
        None => (
            project_dirs()
                .map(|d| d.config_dir().join("config.json"))
                .unwrap_or_else(|| PathBuf::from("porthole.json")),
            false,
        ),
    };
    let mut config = Config::load(&config_path, must_exist)?;
    let paths = Paths { data_dir };
    match cli.command {
        Command::Token => {
            println!("{}", porthole::token::load_or_create(&paths.data_dir)?);
            Ok(())
        }
        Command::McpHostBrowser(args) => mcp_host_browser(config, args),
        Command::Agent(command) => agent_command(&config, &paths, command),
        Command::Vault(command) => vault_command(&config, &paths, command),
        Command::DockerBuild { if_needed } => {
            porthole::logging::init(&paths.data_dir)?;
            let runtime = tokio::runtime::Runtime::new()?;
            let status = runtime.block_on(porthole::providers::docker::image::build_once(
                &config.browser,
                if_needed,
            ))?;
            println!(
                "{} is ready (porthole.version={}, built {})",
                status.image,
                status
                    .labels
                    .get("porthole.version")
                    .map(String::as_str)
                    .unwrap_or("?"),
                status
                    .labels
                    .get("porthole.built_at")
                    .map(String::as_str)
                    .unwrap_or("?"),
            );
            Ok(())
        }
        Command::Serve {
            listen,
            mode,
            idle_timeout_secs,
            open,
        } => {
            if let Some(listen) = listen {
                config.server.listen = listen;
            }
            if let Some(mode) = mode {
                config.browser.default_mode = mode;
            }
            if let Some(secs) = idle_timeout_secs {
                config.browser.idle_timeout_secs = secs;
            }
            porthole::logging::init(&paths.data_dir)?;
            let runtime = tokio::runtime::Runtime::new()?;
            runtime.block_on(serve(config, paths, open))
        }
    }
}

async fn serve(config: Config, paths: Paths, open: bool) -> anyhow::Result<()> {
    let token_path = paths.data_dir.join("token");
    let daemon = Daemon::start(config, paths, None).await?;
    println!(
        "Porthole is running ({} mode). Open the pane:",
        daemon.default_mode
    );
    print!("{}", pane_url_lines(&daemon, &token_path, open));
    use std::io::Write as _;
    std::io::stdout().flush().ok();
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    daemon.stop().await;
    Ok(())
}

/// How the pane URL is shown (DESIGN.md §16: the owner token never reaches a log). A person at
/// a terminal gets the URL with the token; when stdout is a pipe or a file (a service manager,
/// `> log`) it gets the URL without the token and where the token is. `--open` hands the full
/// URL to the desktop's browser instead of printing it.
fn pane_url_lines(daemon: &Daemon, token_path: &std::path::Path, open: bool) -> String {
    use std::io::IsTerminal as _;
    if open {
        match open_in_browser(&daemon.pane_url()) {
            Ok(()) => return format!("  http://{}/ (opened in your browser)\n", daemon.addr),
            Err(error) => eprintln!("could not open a browser ({error}); open the URL below"),
        }
    }
    if std::io::stdout().is_terminal() {
        format!("  {}\n", daemon.pane_url())
    } else {
        format!(
            "  http://{}/\n  (add #token=<owner token> to it; the token is in {}, and \
             `porthole token` prints it. It is left out here because this output is not a \
             terminal and may be kept in a log.)\n",
            daemon.addr,
            token_path.display()
        )
    }
}

/// Opens `url` with the desktop's opener (`xdg-open`, `open` on macOS); the URL goes as an
/// argument, never through a shell or a log.
fn open_in_browser(url: &str) -> std::io::Result<()> {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let status = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "{opener} exited with {status}"
        )))
    }
}

fn mcp_host_browser(config: Config, args: McpHostBrowserArgs) -> anyhow::Result<()> {
    porthole_mcp::stdio_logging::init_stdio_logging(args.log.as_deref())?;
    let mut deny_tools = Vec::new();
    // `cdp` names the daemon's CDP door, which this browser server does not have.
    let door = porthole::agents::CDP_DOOR_TOOL;
    for name in args
        .deny
        .iter()
        .chain(&config.agents.deny_tools)
        .filter(|n| n.trim() != door)
    {
        let tool: porthole_mcp::ToolName = name.trim().parse().map_err(|_| {
            anyhow::anyhow!(
                "--deny: unknown tool {name:?}; valid names: {}",
                porthole_mcp::ToolName::list()
            )
        })?;
        deny_tools.push(tool);
    }
    let mut user_data_dirs = args.user_data_dirs;
    user_data_dirs.extend(config.browser.host.user_data_dirs.iter().cloned());
    let options = porthole::host_browser::HostBrowserOptions {
        user_data_dirs,
        port: args.port.or(config.browser.host.port),
        screen: config.browser.screen_size()?,
        settle: config.tools.settle_limits(),
        server: porthole_mcp::ServerOptions {
            playwright_aliases: args.playwright_aliases,
            deny_tools,
            deny_setting: "porthole mcp-host-browser --deny".to_string(),
            // The vault lives in the daemon (porthole serve); nothing to fill from here.
            unlisted_tools: vec![
                porthole_mcp::ToolName::ListLogins,
                porthole_mcp::ToolName::FillLogin,
                porthole_mcp::ToolName::FillTotp,
            ],
            ..Default::default()
        },
    };
    porthole::bounds::set(config.bounds());
    let runtime = tokio::runtime::Runtime::new()?;
    Ok(runtime.block_on(porthole::host_browser::serve(options))?)
}

fn vault_command(config: &Config, paths: &Paths, command: VaultCommand) -> anyhow::Result<()> {
    use porthole::vault::keyring_setup;
    let runtime = tokio::runtime::Runtime::new()?;
    match command {
        VaultCommand::Unlock { source } => {
            let password = porthole::vault::password_input::read_password(&format!(
                "Password of vault source {source:?}: "
            ))
            .context("cannot read the password")?;
            let scope = runtime.block_on(keyring_setup::store(
                &config.vault,
                &paths.data_dir,
                &source,
                password,
            ))?;
            println!(
                "Stored the password of {:?} in the OS keyring; the daemon on {} unlocks it at \
                 start. `porthole vault forget {}` removes it.",
                scope.source, scope.data_dir, scope.source
            );
        }
        VaultCommand::Forget { source } => {
            if runtime.block_on(keyring_setup::forget(
                &config.vault,
                &paths.data_dir,
                &source,
            ))? {
                println!("Removed the password of {source:?} from the OS keyring.");
            } else {
                println!("No password of {source:?} was in the OS keyring.");
            }
        }
    }
    Ok(())
}

fn agent_command(config: &Config, paths: &Paths, command: AgentCommand) -> anyhow::Result<()> {
    std::fs::create_dir_all(&paths.data_dir)
        .with_context(|| format!("cannot create the data dir {}", paths.data_dir.display()))?;
    let state = std::sync::Arc::new(porthole::state::StateDb::open(
        &paths.data_dir.join("state.sqlite3"),
    )?);
    let agents = porthole::agents::Agents::new(state, config.agents.deny_tools.clone());
    match command {
        AgentCommand::Add {
            channel,
            name,
            deny,
            token_file,
            host,
            allow_sites,
            deny_sites,
            confirm,
        } => {
            let sites = porthole::sites::Sites {
                allow: allow_sites,
                deny: deny_sites,
            };
            let confirm = porthole::approvals::Confirm(confirm);
            let new = agents.add(&channel, name.as_deref(), &deny, host, sites, confirm)?;
            let socket = config.server.agent_socket_path(&paths.data_dir);
            print!(
                "{}",
                porthole::agents::howto::added(
                    &new,
                    socket.as_deref(),
                    token_file.as_deref(),
                    config.server.listen
                )?
            );
            Ok(())
        }
        AgentCommand::List => {
            let list = agents.list()?;
            if list.is_empty() {
                println!("No agents. Add one with: porthole agent add <channel> --name <name>");
            }
            for agent in list {
                let seen = agent
                    .last_seen
                    .map(|s| format!("last seen {s} (unix time)"))
                    .unwrap_or_else(|| "never seen".to_string());
                let deny = if agent.deny_tools.is_empty() {
                    String::new()
                } else {
                    format!(", denied: {}", agent.deny_tools.join(","))
                };
                let host = if agent.allow_host_mode {
                    ", allowed in host mode"
                } else {
                    ""
                };
                let mut sites = String::new();
                if !agent.sites.allow.is_empty() {
                    sites += &format!(", sites allowed: {}", agent.sites.allow.join(","));
                }
                if !agent.sites.deny.is_empty() {
                    sites += &format!(", sites denied: {}", agent.sites.deny.join(","));
                }
                println!(
                    "{}  {:?} on channel {}, {seen}{deny}{host}{sites}",
                    agent.agent_id, agent.name, agent.channel_id
                );
            }
            Ok(())
        }
        AgentCommand::Remove { agent_id } => {
            if agents.remove(&agent_id)? {
                println!("Removed agent {agent_id}; its token no longer works.");
                Ok(())
            } else {
                anyhow::bail!("there is no agent {agent_id} (porthole agent list shows them)")
            }
        }
    }
}
