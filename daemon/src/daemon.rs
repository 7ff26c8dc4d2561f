//! Assembling and running the daemon: providers, channel service, idle monitor, API server,
//! and an orderly shutdown that stops every browser the daemon started.
//!
//! Before anything else the daemon takes its data directory's lock ([`data_lock`]) and clears
//! the temporary files a killed daemon left ([`temp_files`]).

mod browsers;
pub(crate) mod data_lock;
mod servers;
pub(crate) mod temp_files;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::agents::Agents;
use crate::api::{self, AppState};
use crate::channels::{run_idle_monitor, ChannelService, ChannelSettings};
use crate::config::Config;
use crate::cookie_import::CookieImporter;
use crate::mode::Mode;
use crate::state::StateDb;
use browsers::Browsers;

/// Longest the server may take to finish open requests at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// Longest the timeline's recorders may take to write what they have queued at shutdown.
const TIMELINE_DRAIN: Duration = Duration::from_secs(3);

/// Where the daemon keeps its files.
#[derive(Debug, Clone)]
pub struct Paths {
    pub data_dir: PathBuf,
}

impl Paths {
    pub(crate) fn profiles_dir(&self) -> PathBuf {
        self.data_dir.join("profiles")
    }
}

/// A started daemon: its address, token, and the handle to stop it.
pub struct Daemon {
    pub addr: SocketAddr,
    pub token: String,
    pub default_mode: Mode,
    pub channels: Arc<ChannelService>,
    /// The agent Unix socket, when it is served.
    pub agent_socket: Option<PathBuf>,
    /// The agent TCP listener's address, when configured.
    pub agent_addr: Option<SocketAddr>,
    shutdown: CancellationToken,
    servers: Vec<servers::Server>,
    timeline: Arc<crate::timeline::Timeline>,
    /// Held until the daemon is dropped (after `stop` has stopped every browser).
    _lock: data_lock::DataDirLock,
}

/// Why the daemon could not start; each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Locked(#[from] data_lock::LockError),
    #[error("cannot prepare the daemon's temporary directory in the data dir: {0}")]
    TempDir(#[source] std::io::Error),
    #[error("cannot read or create the owner token in the data dir: {0}")]
    Token(#[source] std::io::Error),
    #[error(transparent)]
    State(#[from] crate::state::StateError),
    #[error("cannot listen on {addr}: {source} (is another porthole running? set server.listen or --listen)")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot listen for agents on {addr} (server.agent_listen): {source}")]
    AgentListen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
}

impl Daemon {
    /// Binds `config.server.listen` (or `listener`) and starts serving.
    pub async fn start(
        config: Config,
        paths: Paths,
        listener: Option<TcpListener>,
    ) -> Result<Self, StartError> {
        config.validate()?;
        // First: a second daemon on this data directory stops here, having touched nothing.
        let lock = data_lock::DataDirLock::acquire(&paths.data_dir)?;
        clear_temp_files(&paths)?;
        crate::bounds::set(config.bounds());
        let token = crate::token::load_or_create(&paths.data_dir).map_err(StartError::Token)?;
        let screen = config.browser.screen_size()?;
        let browsers = Browsers::start(&config, &paths.data_dir, screen).await;
        let default_mode = browsers.default_mode;
        let docker = browsers.docker.is_some();
        let channels = channel_service(&config, &paths, screen, &browsers)?;
        let timeline =
            crate::timeline::Timeline::new(paths.data_dir.join("timeline"), config.timeline);
        channels.set_timeline(timeline.clone());
        let shutdown = CancellationToken::new();
        tokio::spawn(run_idle_monitor(channels.clone(), shutdown.clone()));
        let (listener, addr) = servers::bind_api(&config, listener).await?;
        let state = app_state(&config, &token, docker, &channels, &shutdown)
            .with_images(browsers.docker.map(|p| p.images().clone()))
            .with_timeline(timeline.clone())
            .with_vault(crate::vault::Vault::with_keyring(
                &config.vault,
                &paths.data_dir,
            ));
        // Sources whose password `porthole vault unlock` stored: unlocked off the start's path.
        tokio::spawn({
            let vault = state.inner.vault.clone();
            async move { vault.unlock_from_keyring().await }
        });
        let mut running = vec![servers::spawn_tcp(
            listener,
            api::app(state.clone()),
            shutdown.clone(),
        )];
        let agent_socket = servers::agent_socket(&config, &paths.data_dir, &state, &shutdown)
            .await
            .map(|(path, server)| {
                running.push(server);
                path
            });
        let agent_addr =
            servers::agent_tcp(&config, &state, &shutdown)
                .await?
                .map(|(addr, server)| {
                    running.push(server);
                    addr
                });
        tracing::info!(event = "daemon_listening", %addr, %default_mode);
        Ok(Self {
            addr,
            token,
            default_mode,
            channels,
            agent_socket,
            agent_addr,
            shutdown,
            servers: running,
            timeline,
            _lock: lock,
        })
    }

    /// The pane URL with the token in the fragment.
    pub fn pane_url(&self) -> String {
        format!("http://{}/#token={}", self.addr, self.token)
    }

    /// Stops serving, closes panes, and stops every browser this daemon started.
    pub async fn stop(self) {
        tracing::info!(event = "daemon_stopping");
        self.shutdown.cancel();
        let servers = futures_util::future::join_all(self.servers);
        match tokio::time::timeout(SHUTDOWN_GRACE, servers).await {
            Ok(results) => {
                for result in results {
                    if let Ok(Err(error)) = result {
                        tracing::warn!(event = "server_error", %error);
                    }
                }
            }
            Err(_) => tracing::warn!(event = "server_shutdown_timeout"),
        }
        if let Some(path) = &self.agent_socket {
            let _ = std::fs::remove_file(path);
        }
        // The last calls' events are queued now; the browsers still answer for their frames.
        self.timeline.drain(TIMELINE_DRAIN).await;
        self.channels.shutdown().await;
        tracing::info!(event = "daemon_stopped");
    }
}

/// Empties `<data_dir>/tmp` of what a stopped daemon left (under the data-dir lock).
fn clear_temp_files(paths: &Paths) -> Result<(), StartError> {
    let (temp_dir, removed) = temp_files::prepare(&paths.data_dir).map_err(StartError::TempDir)?;
    if removed > 0 {
        tracing::info!(event = "temp_files_removed", dir = %temp_dir.display(), count = removed, "removed temporary files a stopped daemon left");
    }
    Ok(())
}

/// The channel service over the started providers and the state database; tabs agents had
/// open when the last daemon stopped are reported lost.
fn channel_service(
    config: &Config,
    paths: &Paths,
    screen: (u32, u32),
    browsers: &Browsers,
) -> Result<Arc<ChannelService>, StartError> {
    let state = Arc::new(StateDb::open(&paths.data_dir.join("state.sqlite3"))?);
    let channels = Arc::new(ChannelService::new(
        browsers.providers.clone(),
        ChannelSettings {
            default_mode: browsers.default_mode,
            screen,
            idle_timeout: Duration::from_secs(config.browser.idle_timeout_secs),
            docker_unavailable: browsers.docker_unavailable.clone(),
            downloads_root: Some(paths.data_dir.join("downloads")),
            download_limits: crate::browser::DownloadLimits::from_mb(
                config.browser.downloads_max_mb,
            ),
            settle: config.tools.settle_limits(),
            reach: crate::reach::Reach::new(
                crate::reach::Notifier::new(config.notify.command.clone()).ok(),
            ),
        },
        state,
    ));
    Ok(channels)
}

/// What every request handler shares: channels, agents, cookie import and oversight.
fn app_state(
    config: &Config,
    token: &str,
    docker: bool,
    channels: &Arc<ChannelService>,
    shutdown: &CancellationToken,
) -> AppState {
    let agents = Arc::new(
        Agents::new(channels.state().clone(), config.agents.deny_tools.clone())
            .with_host_mode_for_all(config.agents.allow_host_mode)
            .with_max_calls_in_flight(config.agents.max_calls_in_flight)
            .with_sites_for_all(config.agents.sites.clone())
            .with_approvals(
                config.agents.confirm.clone(),
                std::time::Duration::from_secs(config.agents.approval_timeout_secs),
            )
            .with_act_settling(std::time::Duration::from_millis(
                config.agents.act_settle_ms,
            )),
    );
    for (agent_id, channel) in agents.tabs_left_open() {
        if let Ok(channel) = crate::channel_id::ChannelId::parse(&channel) {
            channels.note_lost_tabs(&channel, &agent_id, "daemon_restart");
        }
    }
    let cookies = Arc::new(CookieImporter::new(
        &config.browser.cookie_import,
        channels.state().clone(),
    ));
    if cookies.auto() {
        channels.set_start_hook(cookies.start_hook());
    }
    let oversight = Arc::new(crate::oversight::Oversight::new(
        crate::oversight::OversightSettings {
            stop: Duration::from_secs(config.agents.stop_secs),
            human_quiet: Duration::from_secs(config.agents.human_quiet_secs),
        },
        channels.clone(),
    ));
    AppState::new(
        channels.clone(),
        api::ApiSettings {
            token: token.to_string(),
            allowed_origins: config.server.allowed_origins.clone(),
            docker,
            max_ws_message_bytes: config.server.max_ws_message_bytes,
            pane_upload_max_bytes: config.browser.pane_upload_max_mb.saturating_mul(1 << 20),
        },
        shutdown.clone(),
        cookies,
        agents,
        oversight,
    )
}
