//! Docker mode (DESIGN.md §4): each channel's browser is a sidecar container
//! `porthole-chrome-<channel>` with its profile on the named volume
//! `porthole-chrome-profile-<channel>`.
//!
//! The files, from the floor up (each imports only files above it in this list):
//! - [`names`]: the names and labels of what this daemon makes on the engine; random tokens.
//! - [`settings`]: the provider's settings and how CDP reaches a sidecar ([`CdpRoute`]).
//! - [`engine`]: connecting to the engine (always `negotiate_version()`), error mapping.
//! - [`seccomp`]: the sidecar's seccomp profile and what turns Chromium's sandbox on.
//! - [`spec`]: what a sidecar container looks like (pure), and its spec hash.
//! - [`container`]: the calls that make, inspect, stop and remove one sidecar and its volume;
//!   the rollback guard of a failed start.
//! - [`files`]: the browser's downloads read back through the engine's archive API.
//! - [`exec`]: CDP carried inside the Docker API connection (an exec of the sidecar's
//!   `cdp-pipe`), for engines on another machine: nothing published.
//! - [`output`]: a starting sidecar's output on the attach stream: readiness as an event.
//! - [`image`]: the sidecar image: rebuild rules, the embedded build context, the build.
//! - [`sandbox`]: the probe that decides whether Chromium's own sandbox runs in the sidecars.
//! - [`steps`]: how long each step of a start took, for the log.
//! - [`pause`]: sidecars frozen at an idle stop and resumed by the next start.
//! - [`kept`]: stopped sidecars kept for their channel's next start.
//! - [`volumes`]: which volume holds each channel's profile (a spare's, for a channel that took
//!   one over).
//! - [`launcher`]: making and booting one sidecar under this daemon's settings.
//! - [`spare`]: one booted, paused sidecar kept ready for the next new channel.
//! - [`reaper`]: at daemon start, adopt this daemon's running sidecars, remove stale ones.
//! - [`provider`]: [`DockerProvider`], the `BrowserProvider` tying these together.
//!
//! This file only names them and starts the provider from the config.
//!
//! This module owns only containers, volumes and images that carry the label
//! `porthole.daemon=<this daemon's id>` (or the image tag it is configured with); it never
//! touches anything else on the engine. It holds no CDP state.

pub mod container;
pub mod engine;
pub(crate) mod exec;
pub(crate) mod files;
pub mod image;
mod kept;
mod launcher;
mod names;
mod output;
pub(crate) mod pause;
pub(crate) mod provider;
pub(crate) mod reaper;
pub mod sandbox;
mod seccomp;
mod settings;
mod spare;
mod spec;
mod steps;
mod volumes;

pub(crate) use engine::{connect, DockerError, EngineTarget};
pub(crate) use image::{ImageManager, ImageSettings, ImageStatus};
pub(crate) use provider::DockerProvider;
pub(crate) use settings::{CdpRoute, DockerSettings};
pub use spec::Network;

use std::path::Path;

use names::random_token;

/// This daemon's id: random, made on first start and kept in `<data_dir>/daemon_id`, so a
/// restarted daemon recognises the containers of its predecessor and two daemons with
/// different data dirs never take each other's.
pub(crate) fn load_or_create_daemon_id(data_dir: &Path) -> std::io::Result<String> {
    let path = data_dir.join("daemon_id");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let id = text.trim();
        if !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Ok(id.to_string());
        }
    }
    std::fs::create_dir_all(data_dir)?;
    let id = random_token(16);
    std::fs::write(&path, format!("{id}\n"))?;
    Ok(id)
}

/// How long the engine may take to answer at daemon start before docker mode is off.
pub(crate) const ENGINE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(3);

/// How CDP reaches the sidecars of `engine`: `auto` is the published port on this machine's
/// own engine (a unix socket) and the exec stream on any other, whose published ports are
/// not this machine's and whose network CDP must never cross in clear text.
pub(crate) fn cdp_route(wanted: crate::config::CdpTransport, engine: &EngineTarget) -> CdpRoute {
    use crate::config::CdpTransport;
    match wanted {
        CdpTransport::Port => CdpRoute::Port,
        CdpTransport::Exec => CdpRoute::Exec,
        CdpTransport::Auto if engine.is_remote() => CdpRoute::Exec,
        CdpTransport::Auto => CdpRoute::Port,
    }
}

/// Connects to the engine and makes the provider (reaping this daemon's old containers);
/// when no engine answers (or `browser.docker` is wrong), the reason, for a person, is
/// logged and returned so a pane asking for docker mode is told it. With `build_now` the
/// image check (and build, if the rules say so) starts in the background at once.
pub(crate) async fn start_provider(
    config: &crate::config::BrowserConfig,
    data_dir: &Path,
    screen: (u32, u32),
    build_now: bool,
) -> Result<std::sync::Arc<DockerProvider>, String> {
    let (docker, target) = match connect(&config.docker, ENGINE_DEADLINE).await {
        Ok(found) => found,
        Err(error) => {
            tracing::warn!(event = "docker_unavailable", %error, "docker mode is off");
            return Err(error.to_string());
        }
    };
    let daemon_id = match load_or_create_daemon_id(data_dir) {
        Ok(id) => id,
        Err(error) => {
            tracing::warn!(event = "docker_unavailable", %error, "docker mode is off: cannot keep the daemon id in the data dir");
            return Err(format!(
                "cannot keep the daemon id in the data dir: {error}"
            ));
        }
    };
    if target.is_remote() && cdp_route(config.docker.cdp_transport, &target) == CdpRoute::Port {
        tracing::warn!(event = "cdp_port_on_remote_engine", engine = %target.host, "browser.docker.cdp_transport is \"port\" on an engine that is not a local socket: the daemon dials 127.0.0.1, which works only when that engine runs on this machine");
    }
    tracing::info!(event = "docker_available", engine = %target.host, api = %docker.client_version(), daemon_id = %daemon_id);
    let images = std::sync::Arc::new(ImageManager::new(
        docker.clone(),
        ImageSettings::from_config(config, &target),
    ));
    let provider = DockerProvider::new(
        docker,
        images.clone(),
        DockerSettings {
            daemon_id,
            network: config.network,
            persist_profile: config.persist_profile,
            extensions: config.extensions.clone(),
            screen,
            memory_mb: config.memory_mb,
            cpus: config.cpus,
            extra_labels: config.container_labels.clone().into_iter().collect(),
            cdp_route: cdp_route(config.docker.cdp_transport, &target),
            idle_pause: std::time::Duration::from_secs(config.idle_pause_secs),
            warm_spare: config.warm_spare,
            data_dir: data_dir.to_path_buf(),
        },
    )
    .await;
    if build_now {
        // Docker is the default mode: the first channel need not wait for its sidecar either.
        provider.refill_spare();
    }
    if build_now {
        tokio::spawn(async move {
            // Progress is logged by the manager; a failure is shown again on the next start.
            let _ = images
                .ensure(std::sync::Arc::new(|_: &str, _: &str| {}))
                .await;
        });
    }
    Ok(provider)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn daemon_id_is_stable_per_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create_daemon_id(dir.path()).unwrap();
        assert_eq!(first.len(), 16);
        assert_eq!(load_or_create_daemon_id(dir.path()).unwrap(), first);
        let other = tempfile::tempdir().unwrap();
        assert_ne!(load_or_create_daemon_id(other.path()).unwrap(), first);
    }
}
