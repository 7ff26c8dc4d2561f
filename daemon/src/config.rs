//! Porthole's configuration: the JSON file, its defaults, and where it lives.
//!
//! Every key is optional; `config/porthole.example.json` documents each one with its default.
//! This module only parses and validates; it starts nothing.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::mode::Mode;

/// The whole configuration file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub browser: BrowserConfig,
    pub agents: AgentsConfig,
    pub tools: ToolsConfig,
    pub timeline: TimelineConfig,
    pub vault: VaultConfig,
    pub notify: NotifyConfig,
}

/// `notify.*`: how the person hears of an approval with no pane open (DESIGN.md §20a).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NotifyConfig {
    /// A program and its arguments (no shell), run once per approval with
    /// `PORTHOLE_APPROVAL_KIND`, `PORTHOLE_APPROVAL_ID`, `PORTHOLE_AGENT`, `PORTHOLE_AGENT_ID`
    /// and `PORTHOLE_CHANNEL` in its environment; empty: none.
    pub command: Vec<String>,
}

pub use crate::vault::settings::{VaultConfig, VaultShare, VaultSourceConfig};

impl VaultConfig {
    /// Checks `vault.*`: source names, and shares naming known sources.
    fn validate(&self) -> Result<(), ConfigError> {
        let mut names: Vec<&str> = Vec::new();
        for source in &self.sources {
            let name = source.name();
            let ok = !name.is_empty()
                && name.len() <= 32
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !ok {
                return Err(ConfigError::Invalid {
                    key: "vault.sources",
                    reason: format!("source name {name:?} must be 1-32 letters, digits, - or _"),
                });
            }
            if names.contains(&name) {
                return Err(ConfigError::Invalid {
                    key: "vault.sources",
                    reason: format!("two sources are named {name:?}"),
                });
            }
            names.push(name);
        }
        crate::vault::shares::check(&self.share, &names).map_err(|e| ConfigError::Invalid {
            key: "vault.share",
            reason: e.to_string(),
        })
    }
}

/// `timeline.*`: the recorded history of each channel (DESIGN.md §17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimelineConfig {
    /// Record tool calls, the person's input (coarse), navigations and frames.
    pub enabled: bool,
    /// The most one channel's timeline may take on disk, in MiB; the oldest go first.
    pub max_mb: u64,
    /// Events older than this many days go.
    pub keep_days: u64,
}

impl Default for TimelineConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_mb: 200,
            keep_days: 7,
        }
    }
}

impl TimelineConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=1_000_000).contains(&self.max_mb) {
            return Err(ConfigError::Invalid {
                key: "timeline.max_mb",
                reason: format!("{} is not between 1 and 1000000", self.max_mb),
            });
        }
        if !(1..=3650).contains(&self.keep_days) {
            return Err(ConfigError::Invalid {
                key: "timeline.keep_days",
                reason: format!("{} is not between 1 and 3650", self.keep_days),
            });
        }
        Ok(())
    }
}

/// `tools.*`: how long the MCP tools wait after an action before they answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolsConfig {
    /// The longest an action's result waits for the requests the action started (and the
    /// render after them), in ms; 0 does not wait for the network.
    pub settle_network_ms: u64,
    /// The longest a click that opened a tab waits for that tab to load before handing it to
    /// the agent, in ms.
    pub new_tab_load_ms: u64,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        let limits = SettleLimits::default();
        Self {
            settle_network_ms: limits.network.as_millis() as u64,
            new_tab_load_ms: limits.new_tab_load.as_millis() as u64,
        }
    }
}

/// How long an MCP action's settle may wait (the `tools.*` settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettleLimits {
    /// For the requests the action started (and the render after them).
    pub network: std::time::Duration,
    /// For a tab the action opened to load.
    pub new_tab_load: std::time::Duration,
}

impl Default for SettleLimits {
    fn default() -> Self {
        Self {
            network: std::time::Duration::from_secs(3),
            new_tab_load: std::time::Duration::from_secs(5),
        }
    }
}

/// The most any `tools.*` wait may be set to (ms).
const TOOLS_WAIT_MAX_MS: u64 = 60_000;

impl ToolsConfig {
    /// The limits as the tools use them.
    pub fn settle_limits(&self) -> SettleLimits {
        SettleLimits {
            network: std::time::Duration::from_millis(self.settle_network_ms),
            new_tab_load: std::time::Duration::from_millis(self.new_tab_load_ms),
        }
    }

    fn validate(&self) -> Result<(), ConfigError> {
        for (key, value) in [
            ("tools.settle_network_ms", self.settle_network_ms),
            ("tools.new_tab_load_ms", self.new_tab_load_ms),
        ] {
            if value > TOOLS_WAIT_MAX_MS {
                return Err(ConfigError::Invalid {
                    key,
                    reason: format!("{value} is more than {TOOLS_WAIT_MAX_MS} (one minute)"),
                });
            }
        }
        Ok(())
    }
}

/// `agents.*`: what agents may do (DESIGN.md §12).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentsConfig {
    /// Tools no agent may call (the owner token included); each agent can deny more.
    pub deny_tools: Vec<String>,
    /// How long "Stop agents" refuses agents, in seconds (also how long a vanished pane's
    /// takeover lasts).
    pub stop_secs: u64,
    /// How long after a person's last input in a tab agents may not act there, in seconds.
    pub human_quiet_secs: u64,
    /// Every agent may act while its channel is in host mode (the user's own Chrome); off,
    /// only agents added with `allow_host_mode` may (DESIGN.md §16).
    pub allow_host_mode: bool,
    /// The most tabs one agent may have open in a channel, its pages' popups included.
    pub max_tabs: usize,
    /// The most tool calls one agent may have running at once; one more is refused at once.
    pub max_calls_in_flight: usize,
    /// Sites every agent is held to besides its own (`allow`: only these; `deny`: never
    /// these; DESIGN.md §20).
    pub sites: crate::sites::Sites,
    /// Acts every agent must ask the person about besides its own kinds: submit, new_site,
    /// upload, download, evaluate, login (DESIGN.md §20).
    pub confirm: crate::approvals::Confirm,
    /// How long an approval waits for the person's answer before it is declined, in seconds.
    pub approval_timeout_secs: u64,
    /// How long after an agent's call ends its tab's requests still count as its acts (a form
    /// post that leaves just after the click's answer), in milliseconds.
    pub act_settle_ms: u64,
}

impl Default for AgentsConfig {
    fn default() -> Self {
        Self {
            deny_tools: Vec::new(),
            stop_secs: 30,
            human_quiet_secs: 20,
            allow_host_mode: false,
            max_tabs: crate::bounds::DEFAULT_MAX_TABS,
            max_calls_in_flight: crate::agents::DEFAULT_MAX_CALLS_IN_FLIGHT,
            sites: crate::sites::Sites::default(),
            confirm: crate::approvals::Confirm::default(),
            approval_timeout_secs: crate::agents::DEFAULT_APPROVAL_TIMEOUT_SECS,
            act_settle_ms: crate::agents::DEFAULT_ACT_SETTLE_MS,
        }
    }
}

/// `server.*`: where the daemon listens and whom it lets in.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address to listen on; loopback by default.
    pub listen: SocketAddr,
    /// Origins besides the daemon's own that may call the API (e.g. the desktop app's).
    pub allowed_origins: Vec<String>,
    /// Largest WebSocket message a pane may send, in bytes.
    pub max_ws_message_bytes: usize,
    /// Unix socket serving the API to agent containers (bind-mount its directory into them);
    /// `$XDG_RUNTIME_DIR` is expanded (the data dir when unset), and `$PORTHOLE_DATA_ID` to a
    /// short hash of the data dir (so daemons on two data dirs never share a socket); null
    /// turns it off.
    pub agent_socket: Option<String>,
    /// Optional TCP address for agents that cannot mount the socket, e.g. the Docker bridge
    /// gateway `172.17.0.1:7879`; its Host check also accepts `host.docker.internal`.
    pub agent_listen: Option<SocketAddr>,
}

/// The default `server.agent_socket`: one directory per data dir.
pub(crate) const DEFAULT_AGENT_SOCKET: &str =
    "$XDG_RUNTIME_DIR/porthole/$PORTHOLE_DATA_ID/agents.sock";

/// Hex digits of the data dir's hash in `$PORTHOLE_DATA_ID` (48 bits: two data dirs of one
/// user never meet by chance, and the socket path stays far below the ~100 bytes a Unix
/// socket path may take).
const DATA_ID_HEX: usize = 12;

/// `$PORTHOLE_DATA_ID`: the first hex digits of the SHA-256 of the data dir's canonical path
/// (as given when it cannot be resolved).
pub fn data_dir_id(data_dir: &Path) -> String {
    use sha2::Digest;
    let canonical = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let digest = sha2::Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex[..DATA_ID_HEX].to_string()
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 7878)),
            allowed_origins: Vec::new(),
            max_ws_message_bytes: 1024 * 1024,
            agent_socket: Some(DEFAULT_AGENT_SOCKET.to_string()),
            agent_listen: None,
        }
    }
}

impl ServerConfig {
    /// Where the agent socket goes, with `$XDG_RUNTIME_DIR` expanded (`data_dir` when unset)
    /// and `$PORTHOLE_DATA_ID` ([`data_dir_id`]).
    pub fn agent_socket_path(&self, data_dir: &Path) -> Option<PathBuf> {
        let runtime = std::env::var_os("XDG_RUNTIME_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        self.agent_socket_path_in(data_dir, runtime.as_deref())
    }

    /// [`ServerConfig::agent_socket_path`] with `runtime` as `$XDG_RUNTIME_DIR`.
    fn agent_socket_path_in(&self, data_dir: &Path, runtime: Option<&Path>) -> Option<PathBuf> {
        let configured = self.agent_socket.as_deref()?;
        let runtime = runtime.unwrap_or(data_dir);
        let mut path = configured.replace("$XDG_RUNTIME_DIR", &runtime.to_string_lossy());
        if path.contains("$PORTHOLE_DATA_ID") {
            path = path.replace("$PORTHOLE_DATA_ID", &data_dir_id(data_dir));
        }
        Some(PathBuf::from(path))
    }
}

/// `browser.*`: how channel browsers are run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowserConfig {
    /// Mode of a channel that never chose one: `docker` (falls back to `local` when no Docker
    /// engine answers), `local` or `host`.
    pub default_mode: Mode,
    /// Sidecar image for docker mode.
    pub chrome_image: String,
    /// Base image of the sidecar's final stage.
    pub base_image: Option<String>,
    /// Image the sidecar supervisor is compiled in.
    pub builder_image: Option<String>,
    /// Pull the base image before building (falls back to the local one when no registry answers).
    pub image_pull: bool,
    /// Local stand-in for the final stage's base when no registry answers
    /// (made by scripts/setup/base-images.sh).
    pub local_base_image: String,
    /// Local stand-in for the builder image when no registry answers.
    pub local_builder_image: String,
    /// Docker mode's network: `bridge` (CDP published on 127.0.0.1) or `host` (Linux: the
    /// browser reaches the user's localhost servers).
    pub network: Network,
    /// Extra labels on every sidecar container, volume and built image.
    pub container_labels: std::collections::BTreeMap<String, String>,
    /// Keep each channel's profile (cookies, logins) across browser restarts.
    pub persist_profile: bool,
    /// Unpacked extension directories loaded into docker-mode browsers, in this order.
    pub extensions: Vec<PathBuf>,
    /// Initial window size, "width,height".
    pub screen: String,
    /// Most a person may hand a page at once from a pane (a file chooser's answer, a drop),
    /// in MiB, all files together.
    pub pane_upload_max_mb: u64,
    /// A browser with no pane watching for this long is stopped.
    pub idle_timeout_secs: u64,
    /// Docker mode: how long an idle-stopped sidecar stays paused (frozen: no CPU, its memory
    /// kept) so that the channel's next start resumes it at once; then it is stopped. 0 stops
    /// it at the idle stop.
    pub idle_pause_secs: u64,
    /// Docker mode: keep one sidecar booted and paused for the next new channel, which takes
    /// it over instead of creating and starting its own.
    pub warm_spare: bool,
    /// Memory cap of a sidecar container, in MiB (0 = no cap).
    pub memory_mb: u64,
    /// CPU cap of a sidecar container (0 = no cap).
    pub cpus: f64,
    /// Chromium binary for local mode; found on PATH when unset.
    pub chromium_path: Option<PathBuf>,
    /// Extra Chromium flags for local mode.
    pub chromium_args: Vec<String>,
    /// Docker mode: which engine, and how to reach it.
    pub docker: DockerConfig,
    /// Host mode: where to look for the user's Chrome.
    pub host: HostConfig,
    /// Cookie import defaults and auto-replay.
    pub cookie_import: CookieImportConfig,
    /// The most a channel's downloads may take on disk, in MiB (0 = no cap); a download
    /// that would go over is cancelled and its partial file removed.
    pub downloads_max_mb: u64,
    /// The largest CDP message (reply or event) taken from a browser, in MiB; a larger reply
    /// fails only the call it answers.
    pub cdp_message_max_mb: usize,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        Self {
            default_mode: Mode::Docker,
            chrome_image: "porthole-chrome:latest".to_string(),
            base_image: None,
            builder_image: None,
            image_pull: true,
            local_base_image: "porthole-base:bookworm".to_string(),
            local_builder_image: "porthole-builder:bookworm".to_string(),
            network: Network::Bridge,
            container_labels: std::collections::BTreeMap::new(),
            persist_profile: true,
            extensions: Vec::new(),
            screen: "1280,800".to_string(),
            pane_upload_max_mb: 100,
            idle_timeout_secs: 300,
            idle_pause_secs: 600,
            warm_spare: true,
            memory_mb: 2048,
            cpus: 2.0,
            chromium_path: None,
            chromium_args: Vec::new(),
            docker: DockerConfig::default(),
            host: HostConfig::default(),
            cookie_import: CookieImportConfig::default(),
            downloads_max_mb: 1024,
            cdp_message_max_mb: crate::bounds::DEFAULT_CDP_MESSAGE_MAX_MB,
        }
    }
}

impl BrowserConfig {
    /// The configured screen size, validated.
    pub fn screen_size(&self) -> Result<(u32, u32), ConfigError> {
        parse_screen(&self.screen).ok_or_else(|| ConfigError::Invalid {
            key: "browser.screen",
            reason: format!(
                "{:?} is not \"width,height\" between 100 and 8192",
                self.screen
            ),
        })
    }
}

fn parse_screen(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.split_once(',')?;
    let w: u32 = w.trim().parse().ok()?;
    let h: u32 = h.trim().parse().ok()?;
    let ok = |v: u32| (100..=8192).contains(&v);
    (ok(w) && ok(h)).then_some((w, h))
}

/// `browser.docker.*`: the Docker engine of docker mode (DESIGN.md §14).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DockerConfig {
    /// `unix:///path`, `tcp://host:port` (TLS from `tls`, or `DOCKER_CERT_PATH` /
    /// `DOCKER_TLS_VERIFY`) or `ssh://user@host`; null: `DOCKER_HOST`, else the local socket.
    pub host: Option<String>,
    /// Client TLS material for a `tcp://` engine; null: `DOCKER_CERT_PATH` when
    /// `DOCKER_TLS_VERIFY` is set.
    pub tls: Option<TlsFiles>,
    /// How the daemon reaches each browser's CDP: `auto` (a published 127.0.0.1 port on a
    /// local unix-socket engine, the exec stream otherwise), `port` or `exec` (inside the
    /// Docker API connection; nothing published).
    pub cdp_transport: CdpTransport,
}

/// `browser.docker.cdp_transport`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CdpTransport {
    #[default]
    Auto,
    Port,
    Exec,
}

/// `browser.docker.tls`: PEM files of a TLS-protected engine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsFiles {
    /// The CA that signed the engine's certificate.
    pub ca: PathBuf,
    /// The client certificate.
    pub cert: PathBuf,
    /// The client certificate's private key.
    pub key: PathBuf,
}

/// `browser.host.*`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostConfig {
    /// User-data dirs searched for `DevToolsActivePort` before the well-known ones.
    pub user_data_dirs: Vec<PathBuf>,
    /// Remote-debugging port dialled when no `DevToolsActivePort` is found.
    pub port: Option<u16>,
}

/// `browser.cookie_import.*`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CookieImportConfig {
    /// Source profile id, e.g. `chrome:Default` (as `GET /api/browser/cookies/sources` lists).
    pub source: Option<String>,
    /// Cookie scopes to import, exactly as listed (`.github.com`, `gist.github.com`).
    pub domains: Vec<String>,
    /// Replay the import into every freshly started browser (a channel's own last import wins
    /// over `source`/`domains`). Off by default: moving credentials unattended is opt-in.
    pub auto: bool,
    /// Look for browser profiles under this home directory instead of the user's own (the
    /// standard per-OS locations below it). Null: the home of the user running the daemon.
    pub home: Option<PathBuf>,
}

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path} is not valid: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("config key {key}: {reason}")]
    Invalid { key: &'static str, reason: String },
}

impl Config {
    /// Loads `path`; a missing file at the default location means "all defaults".
    pub fn load(path: &Path, must_exist: bool) -> Result<Self, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => {
                return Ok(Self::default())
            }
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        let config: Config = serde_json::from_str(&text).map_err(|source| ConfigError::Parse {
            path: path.to_path_buf(),
            source,
        })?;
        config.validate()?;
        Ok(config)
    }

    /// The bounds of DESIGN.md §16 as [`crate::bounds`] holds them.
    pub fn bounds(&self) -> crate::bounds::Bounds {
        crate::bounds::Bounds {
            max_tabs: self.agents.max_tabs,
            cdp_message_max_bytes: self.browser.cdp_message_max_mb * 1024 * 1024,
        }
    }

    /// Checks values serde cannot.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        self.browser.screen_size()?;
        crate::agents::check_tools(&self.agents.deny_tools).map_err(|e| ConfigError::Invalid {
            key: "agents.deny_tools",
            reason: e.to_string(),
        })?;
        self.tools.validate()?;
        self.timeline.validate()?;
        self.vault.validate()?;
        if !(1..=1000).contains(&self.agents.max_tabs) {
            return Err(ConfigError::Invalid {
                key: crate::bounds::MAX_TABS_KEY,
                reason: format!("{} is not between 1 and 1000", self.agents.max_tabs),
            });
        }
        if !(1..=1000).contains(&self.agents.max_calls_in_flight) {
            return Err(ConfigError::Invalid {
                key: crate::agents::MAX_CALLS_IN_FLIGHT_KEY,
                reason: format!(
                    "{} is not between 1 and 1000",
                    self.agents.max_calls_in_flight
                ),
            });
        }
        self.agents
            .sites
            .check()
            .map_err(|e| ConfigError::Invalid {
                key: "agents.sites",
                reason: e.to_string(),
            })?;
        self.agents
            .confirm
            .kinds()
            .map_err(|e| ConfigError::Invalid {
                key: "agents.confirm",
                reason: e.to_string(),
            })?;
        if !(1..=86_400).contains(&self.agents.approval_timeout_secs) {
            return Err(ConfigError::Invalid {
                key: "agents.approval_timeout_secs",
                reason: format!(
                    "{} is not between 1 and 86400",
                    self.agents.approval_timeout_secs
                ),
            });
        }
        if self.agents.act_settle_ms > 60_000 {
            return Err(ConfigError::Invalid {
                key: "agents.act_settle_ms",
                reason: format!("{} is more than 60000", self.agents.act_settle_ms),
            });
        }
        if !self.notify.command.is_empty() && self.notify.command[0].trim().is_empty() {
            return Err(ConfigError::Invalid {
                key: "notify.command",
                reason: "its first element must name a program (an argv array, no shell)"
                    .to_string(),
            });
        }
        if !(1..=1024).contains(&self.browser.cdp_message_max_mb) {
            return Err(ConfigError::Invalid {
                key: crate::bounds::CDP_MESSAGE_KEY,
                reason: format!(
                    "{} is not between 1 and 1024",
                    self.browser.cdp_message_max_mb
                ),
            });
        }
        if self.browser.idle_timeout_secs == 0 {
            return Err(ConfigError::Invalid {
                key: "browser.idle_timeout_secs",
                reason: "must be at least 1".to_string(),
            });
        }
        Ok(())
    }
}

/// How the sidecar's gate is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// Own network namespace; the gate is published on 127.0.0.1 at a random host port.
    Bridge,
    /// The host's network (Linux): the browser reaches the user's localhost servers; the gate
    /// listens on 127.0.0.1 at a port the daemon picks.
    Host,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_waits_past_a_minute_are_refused() {
        let config: Config =
            serde_json::from_value(serde_json::json!({"tools": {"settle_network_ms": 60_001}}))
                .unwrap();
        let error = config.validate().unwrap_err().to_string();
        assert!(error.contains("tools.settle_network_ms"), "{error}");
        let config: Config =
            serde_json::from_value(serde_json::json!({"tools": {"new_tab_load_ms": 0}})).unwrap();
        config.validate().unwrap();
        assert_eq!(
            config.tools.settle_limits().new_tab_load,
            std::time::Duration::ZERO
        );
    }

    #[test]
    fn example_file_parses_and_matches_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/porthole.example.json");
        let config = Config::load(&path, true).expect("example config parses");
        let defaults = serde_json::to_value(Config::default()).unwrap();
        assert_eq!(serde_json::to_value(&config).unwrap(), defaults);
    }

    #[test]
    fn bounds_out_of_range_name_their_setting() {
        for (json, key) in [
            (
                serde_json::json!({"agents": {"max_tabs": 0}}),
                "agents.max_tabs",
            ),
            (
                serde_json::json!({"agents": {"max_calls_in_flight": 0}}),
                "agents.max_calls_in_flight",
            ),
            (
                serde_json::json!({"browser": {"cdp_message_max_mb": 2048}}),
                "browser.cdp_message_max_mb",
            ),
        ] {
            let config: Config = serde_json::from_value(json).unwrap();
            let error = config.validate().unwrap_err().to_string();
            assert!(error.contains(key), "{error}");
        }
        let bounds = Config::default().bounds();
        assert_eq!(bounds, crate::bounds::Bounds::default());
    }

    #[test]
    fn two_data_dirs_get_two_default_agent_sockets() {
        let root = tempfile::tempdir().unwrap();
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let server = ServerConfig::default();
        // One runtime directory for both, as for one user's two daemons.
        let runtime = Some(Path::new("/run/user/1000"));
        let (sa, sb) = (
            server.agent_socket_path_in(&a, runtime).unwrap(),
            server.agent_socket_path_in(&b, runtime).unwrap(),
        );
        assert_ne!(sa, sb);
        let id = data_dir_id(&a);
        assert_eq!(id.len(), DATA_ID_HEX);
        assert_eq!(
            sa,
            PathBuf::from(format!("/run/user/1000/porthole/{id}/agents.sock"))
        );
        // The same data dir, however it is spelled, gets the same socket.
        assert_eq!(
            server
                .agent_socket_path_in(&a.join("../a"), runtime)
                .unwrap(),
            sa
        );
        // Without a runtime directory: under the data dir.
        assert!(server
            .agent_socket_path_in(&a, None)
            .unwrap()
            .starts_with(&a));
        // An explicit path is taken as written.
        let fixed = ServerConfig {
            agent_socket: Some("/run/x/agents.sock".into()),
            ..ServerConfig::default()
        };
        assert_eq!(
            fixed.agent_socket_path_in(&a, runtime),
            Some(PathBuf::from("/run/x/agents.sock"))
        );
    }

    #[test]
    fn unknown_keys_and_bad_screens_are_refused() {
        assert!(serde_json::from_str::<Config>(r#"{"browser":{"nope":1}}"#).is_err());
        assert_eq!(parse_screen("1280,800"), Some((1280, 800)));
        assert_eq!(parse_screen("1280x800"), None);
        assert_eq!(parse_screen("10,800"), None);
    }
}
