//! The docker provider's settings ([`DockerSettings`], from the daemon's config) and how the
//! daemon reaches a sidecar's CDP ([`CdpRoute`]). Plain values; imports nothing of the other
//! docker files.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::Network;

/// Settings of the docker provider.
#[derive(Debug, Clone)]
pub struct DockerSettings {
    /// This daemon's id (`porthole.daemon` label).
    pub daemon_id: String,
    pub network: Network,
    pub persist_profile: bool,
    /// Unpacked extension directories, in load order.
    pub extensions: Vec<PathBuf>,
    pub screen: (u32, u32),
    pub memory_mb: u64,
    pub cpus: f64,
    /// Labels added to every container and volume (tests add `porthole.test`).
    pub extra_labels: HashMap<String, String>,
    /// How the daemon reaches each browser's CDP.
    pub cdp_route: CdpRoute,
    /// How long an idle-stopped sidecar stays paused before it is stopped (zero: stopped at
    /// the idle stop; see `pause`).
    pub idle_pause: Duration,
    /// Keep one booted, paused sidecar for the next new channel (see `spare`).
    pub warm_spare: bool,
    /// The daemon's data dir (where `volumes` keeps its file).
    pub data_dir: PathBuf,
}

/// How the daemon reaches a sidecar's CDP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CdpRoute {
    /// The sidecar's secret-gated port, published on 127.0.0.1 of the engine's host (only
    /// meaningful when that host is this machine).
    Port,
    /// An exec stream of `porthole-sidecar cdp-pipe`, inside the Docker API connection:
    /// nothing published (see `exec`).
    Exec,
}
