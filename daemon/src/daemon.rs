//! Assembling and running the daemon: providers, channel service, idle monitor, API server,
//! and an orderly shutdown that stops every browser the daemon started.
//!
//! Before anything else the daemon takes its data directory's lock ([`data_lock`]) and clears
//! the temporary files a killed daemon left ([`temp_files`]).

pub mod data_lock;
pub mod temp_files;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::agents::Agents;
use crate::api::{self, AppState, Listener};
use crate::channels::{run_idle_monitor, ChannelService, ChannelSettings};
use crate::config::Config;
use crate::cookie_import::CookieImporter;
use crate::mode::Mode;
use crate::providers::host::{HostProvider, HostSettings};
use crate::providers::local::{LocalProvider, LocalSettings};
use crate::providers::BrowserProvider;
use crate::state::StateDb;

/// Longest the server may take to finish open requests at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Where the daemon keeps its files.
#[derive(Debug, Clone)]
pub struct Paths {
    pub data_dir: PathBuf,
}

impl Paths {
    pub fn profiles_dir(&self) -> PathBuf {
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
    servers: Vec<tokio::task::JoinHandle<std::io::Result<()>>>,
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
        let (temp_dir, removed) =
            temp_files::prepare(&paths.data_dir).map_err(StartError::TempDir)?;
        if removed > 0 {
            tracing::info!(event = "temp_files_removed", dir = %temp_dir.display(), count = removed, "removed temporary files a stopped daemon left");
        }
        crate::bounds::set(config.bounds());
        let token = crate::token::load_or_create(&paths.data_dir).map_err(StartError::Token)?;
        let screen = config.browser.screen_size()?;
        let local: Arc<dyn BrowserProvider> = Arc::new(LocalProvider::new(LocalSettings {
            chromium_path: config.browser.chromium_path.clone(),
            profiles_dir: paths.profiles_dir(),
            persist_profile: config.browser.persist_profile,
            screen,
            extra_args: config.browser.chromium_args.clone(),
        }));
        let host: Arc<dyn BrowserProvider> = Arc::new(HostProvider::new(HostSettings {
            user_data_dirs: config.browser.host.user_data_dirs.clone(),
            port: config.browser.host.port,
        }));
        let docker_provider = crate::providers::docker::start_provider(
            &config.browser,
            &paths.data_dir,
            screen,
            config.browser.default_mode == Mode::Docker,
        )
        .await;
        let (docker_provider, docker_unavailable) = match docker_provider {
            Ok(provider) => (Some(provider), None),
            Err(why) => (None, Some(why)),
        };
        let docker = docker_provider.is_some();
        let mut providers = vec![local, host];
        if let Some(provider) = &docker_provider {
            providers.push(provider.clone());
        }
        let default_mode = match config.browser.default_mode {
            Mode::Docker if !docker => {
                tracing::warn!(
                    event = "docker_unavailable",
                    "docker mode is not available (no Docker engine answers); channels run in local mode"
                );
                Mode::Local
            }
            mode => mode,
        };
        let state = Arc::new(StateDb::open(&paths.data_dir.join("state.sqlite3"))?);
        let channels = Arc::new(ChannelService::new(
            providers,
            ChannelSettings {
                default_mode,
                screen,
                idle_timeout: Duration::from_secs(config.browser.idle_timeout_secs),
                docker_unavailable,
                downloads_root: Some(paths.data_dir.join("downloads")),
                download_limits: crate::browser::files::DownloadLimits::from_mb(
                    config.browser.downloads_max_mb,
                ),
                settle: config.tools.settle_limits(),
            },
            state,
        ));
        let agents = Arc::new(
            Agents::new(channels.state().clone(), config.agents.deny_tools.clone())
                .with_host_mode_for_all(config.agents.allow_host_mode),
        );
        for (agent_id, channel) in agents.tabs_left_open() {
            if let Ok(channel) = crate::channel_id::ChannelId::parse(&channel) {
                channels.note_lost_tabs(&channel, &agent_id, "daemon_restart");
            }
        }
        let timeline = crate::timeline::Timeline::new(
            paths.data_dir.join("timeline"),
            config.timeline.settings(),
        );
        channels.set_timeline(timeline.clone());
        let cookies = Arc::new(CookieImporter::new(
            &config.browser.cookie_import,
            channels.state().clone(),
        ));
        if cookies.auto() {
            channels.set_start_hook(cookies.start_hook());
        }
        let shutdown = CancellationToken::new();
        tokio::spawn(run_idle_monitor(channels.clone(), shutdown.clone()));
        let listener = match listener {
            Some(listener) => listener,
            None => TcpListener::bind(config.server.listen)
                .await
                .map_err(|source| StartError::Listen {
                    addr: config.server.listen,
                    source,
                })?,
        };
        let addr = listener.local_addr().map_err(|source| StartError::Listen {
            addr: config.server.listen,
            source,
        })?;
        if !addr.ip().is_loopback() {
            tracing::warn!(event = "listening_beyond_loopback", %addr, "the API is reachable from other machines; the owner token is all that protects it");
        }
        let state = AppState::new(
            channels.clone(),
            api::ApiSettings {
                token: token.clone(),
                allowed_origins: config.server.allowed_origins.clone(),
                docker,
                max_ws_message_bytes: config.server.max_ws_message_bytes,
                pane_upload_max_bytes: config.browser.pane_upload_max_mb.saturating_mul(1 << 20),
            },
            shutdown.clone(),
            cookies,
            agents,
            Arc::new(crate::oversight::Oversight::new(
                crate::oversight::OversightSettings {
                    stop: Duration::from_secs(config.agents.stop_secs),
                    human_quiet: Duration::from_secs(config.agents.human_quiet_secs),
                },
                channels.clone(),
            )),
        )
        .with_images(docker_provider.map(|p| p.images().clone()))
        .with_timeline(timeline);
        let mut servers = Vec::new();
        let app = api::app(state.clone());
        let server_shutdown = shutdown.clone();
        servers.push(tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(server_shutdown.cancelled_owned())
                .await
        }));
        let agent_socket = match config.server.agent_socket_path(&paths.data_dir) {
            Some(path) => match crate::agents::socket::bind(&path).await {
                Ok(unix) => {
                    let app = api::app_on(state.clone(), Listener::AgentSocket);
                    let server_shutdown = shutdown.clone();
                    servers.push(tokio::spawn(async move {
                        axum::serve(unix, app)
                            .with_graceful_shutdown(server_shutdown.cancelled_owned())
                            .await
                    }));
                    tracing::info!(event = "agent_socket_listening", path = %path.display());
                    Some(path)
                }
                Err(error) => {
                    tracing::warn!(event = "agent_socket_unavailable", path = %path.display(), %error, "agents in containers cannot reach this daemon over the socket");
                    None
                }
            },
            None => None,
        };
        let agent_addr = match config.server.agent_listen {
            Some(wanted) => {
                let tcp =
                    TcpListener::bind(wanted)
                        .await
                        .map_err(|source| StartError::AgentListen {
                            addr: wanted,
                            source,
                        })?;
                let bound = tcp.local_addr().map_err(|source| StartError::AgentListen {
                    addr: wanted,
                    source,
                })?;
                let app = api::app_on(state.clone(), Listener::AgentTcp(bound));
                let server_shutdown = shutdown.clone();
                servers.push(tokio::spawn(async move {
                    axum::serve(tcp, app)
                        .with_graceful_shutdown(server_shutdown.cancelled_owned())
                        .await
                }));
                tracing::info!(event = "agent_tcp_listening", addr = %bound);
                Some(bound)
            }
            None => None,
        };
        tracing::info!(event = "daemon_listening", %addr, %default_mode);
        Ok(Self {
            addr,
            token,
            default_mode,
            channels,
            agent_socket,
            agent_addr,
            shutdown,
            servers,
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
        self.channels.shutdown().await;
        tracing::info!(event = "daemon_stopped");
    }
}
