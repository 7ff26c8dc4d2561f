//! At daemon start: find the containers labelled with this daemon's id, adopt the running
//! sidecars of this version that still answer (a daemon killed with SIGKILL leaves them
//! running) through their published gate or, for sidecars that publish nothing (CDP by exec),
//! through an exec of `cdp-pipe`, keep the stopped sidecars of this version that carry a spec
//! hash (the next start of their channel restarts one whose spec still matches), keep the
//! paused ones (an idle stop froze them; the next start resumes one, the pause window counts
//! from this daemon's start), and remove every other one. Containers without this daemon's label are never
//! looked at: the engine filters by label.

use std::collections::HashMap;
use std::time::Duration;

use bollard::models::ContainerSummaryStateEnum;
use bollard::query_parameters::ListContainersOptionsBuilder;
use bollard::Docker;

use super::container::{self, GateAddr};
use super::engine::DockerError;
use super::kept::Kept;
use super::names::{
    container_name, spare_volume, LABEL_CHANNEL, LABEL_DAEMON, LABEL_SPARE, LABEL_VERSION,
    SPARE_PREFIX, VERSION,
};
use super::pause::Paused;
use super::spec::LABEL_SPEC;
use crate::channel_id::ChannelId;

/// What the reaper found.
#[derive(Debug, Default)]
pub struct Reaped {
    /// Running sidecars taken over, by channel, with their published gate (`None`: reached
    /// by exec).
    pub adopted: HashMap<ChannelId, Option<GateAddr>>,
    /// Stopped sidecars kept for their channel's next start.
    pub kept: HashMap<ChannelId, Kept>,
    /// Sidecars an idle stop paused, resumed by their channel's next start.
    pub paused: HashMap<ChannelId, Paused>,
    /// Names of the containers removed.
    pub removed: Vec<String>,
}

/// Adopts or removes every container labelled `porthole.daemon=<daemon_id>`.
pub async fn reap(docker: &Docker, daemon_id: &str) -> Result<Reaped, DockerError> {
    let filters = HashMap::from([(
        "label".to_string(),
        vec![format!("{LABEL_DAEMON}={daemon_id}")],
    )]);
    let options = ListContainersOptionsBuilder::new()
        .all(true)
        .filters(&filters)
        .build();
    let found = docker
        .list_containers(Some(options))
        .await
        .map_err(|e| DockerError::engine("list this daemon's containers", e))?;
    let mut reaped = Reaped::default();
    for summary in found {
        let Some(id) = summary.id else { continue };
        // Belt and braces: the engine filtered by label; check it again before touching it.
        let labels = summary.labels.unwrap_or_default();
        if labels.get(LABEL_DAEMON).map(String::as_str) != Some(daemon_id) {
            continue;
        }
        let name = summary
            .names
            .and_then(|names| names.first().cloned())
            .unwrap_or_default()
            .trim_start_matches('/')
            .to_string();
        if name.starts_with(SPARE_PREFIX) {
            remove_spare(docker, &id, &name, daemon_id, &mut reaped).await;
            continue;
        }
        let exited = summary.state == Some(ContainerSummaryStateEnum::EXITED);
        if summary.state == Some(ContainerSummaryStateEnum::PAUSED) {
            if let Some((channel, paused)) = pausable(docker, &id, &name, &labels).await {
                tracing::info!(event = "sidecar_paused_found", channel_id = %channel, container = %name, "paused, resumed by the next start");
                reaped.paused.insert(channel, paused);
                continue;
            }
        }
        if let Some((channel, kept)) = keepable(exited, &id, &name, &labels) {
            tracing::info!(event = "sidecar_kept", channel_id = %channel, container = %name, "stopped, kept for the next start");
            reaped.kept.insert(channel, kept);
            continue;
        }
        if let Some((channel, addr)) = adoptable(docker, &id, &name, &labels).await {
            tracing::info!(event = "sidecar_adopted", channel_id = %channel, container = %name);
            reaped.adopted.insert(channel, addr);
            continue;
        }
        match container::remove_force(docker, &id).await {
            Ok(_) => {
                tracing::info!(event = "stale_sidecar_removed", container = %name);
                reaped.removed.push(name);
            }
            Err(error) => {
                tracing::warn!(event = "stale_sidecar_remove_failed", container = %name, %error)
            }
        }
    }
    Ok(reaped)
}

/// The channel of a sidecar: its label, or for a warm spare a channel took over (made before
/// its channel was known, then renamed), its name.
fn channel_of(name: &str, labels: &HashMap<String, String>) -> Option<ChannelId> {
    match labels.get(LABEL_CHANNEL) {
        Some(channel) => ChannelId::parse(channel).ok(),
        None if labels.contains_key(LABEL_SPARE) => {
            ChannelId::parse(name.strip_prefix("porthole-chrome-")?).ok()
        }
        None => None,
    }
}

/// Removes a spare nobody took (its daemon was killed) and its volume.
async fn remove_spare(docker: &Docker, id: &str, name: &str, daemon_id: &str, reaped: &mut Reaped) {
    if let Err(error) = container::remove_force(docker, id).await {
        tracing::warn!(event = "stale_sidecar_remove_failed", container = %name, %error);
        return;
    }
    if let Some(volume) = spare_volume(name) {
        let labels = HashMap::from([(LABEL_DAEMON.to_string(), daemon_id.to_string())]);
        if let Err(error) = container::remove_volume(docker, &volume, &labels).await {
            tracing::warn!(event = "spare_volume_remove_failed", %volume, %error);
        }
    }
    tracing::info!(event = "stale_spare_removed", container = %name);
    reaped.removed.push(name.to_string());
}

/// A stopped container is kept when it is this version's sidecar of a valid channel, under
/// the channel's own name, with a spec hash label.
fn keepable(
    exited: bool,
    id: &str,
    name: &str,
    labels: &HashMap<String, String>,
) -> Option<(ChannelId, Kept)> {
    let channel = channel_of(name, labels)?;
    let spec = labels.get(LABEL_SPEC)?;
    (exited
        && labels.get(LABEL_VERSION).map(String::as_str) == Some(VERSION)
        && name == container_name(&channel))
    .then(|| {
        (
            channel,
            Kept {
                id: id.to_string(),
                spec: spec.clone(),
            },
        )
    })
}

/// A paused container is kept paused when it is this version's sidecar of a valid channel,
/// under the channel's own name.
async fn pausable(
    docker: &Docker,
    id: &str,
    name: &str,
    labels: &HashMap<String, String>,
) -> Option<(ChannelId, Paused)> {
    let channel = channel_of(name, labels)?;
    if labels.get(LABEL_VERSION).map(String::as_str) != Some(VERSION)
        || name != container_name(&channel)
    {
        return None;
    }
    let info = container::inspect(docker, id).await.ok()??;
    let paused = Paused {
        id: id.to_string(),
        container: name.to_string(),
        addr: container::gate_addr(&info),
        spec: labels.get(LABEL_SPEC).cloned(),
        since: std::time::Instant::now(),
    };
    Some((channel, paused))
}

/// A container is adopted when it is this version's sidecar of a valid channel, under the
/// channel's own name, running, and its gate answers.
async fn adoptable(
    docker: &Docker,
    id: &str,
    name: &str,
    labels: &HashMap<String, String>,
) -> Option<(ChannelId, Option<GateAddr>)> {
    let channel = channel_of(name, labels)?;
    if labels.get(LABEL_VERSION).map(String::as_str) != Some(VERSION)
        || name != container_name(&channel)
    {
        return None;
    }
    let info = container::inspect(docker, id).await.ok()??;
    if !container::is_running(&info) {
        return None;
    }
    let Some(addr) = container::gate_addr(&info) else {
        // Nothing published: a sidecar reached through the Docker API. It is ours to keep
        // if its browser answers over an exec.
        return super::exec::connect(docker, name, Duration::from_secs(10))
            .await
            .ok()
            .map(|_| (channel, None));
    };
    let answered = tokio::time::timeout(Duration::from_secs(3), async {
        loop {
            if container::gate_ready(&addr).await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    answered.is_ok().then_some((channel, Some(addr)))
}
