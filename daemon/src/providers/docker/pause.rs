//! Paused sidecars: an idle stop freezes a channel's sidecar (`docker pause`: the cgroup
//! freezer; no CPU, its memory kept) for `browser.idle_pause_secs`, so the channel's next start
//! resumes it in one Engine API request instead of starting a container and booting Chrome.
//! Past that window the idle monitor stops it for real (kept, like any idle stop).
//!
//! This module owns the engine calls (pause, unpause) and the registry of which channel's
//! sidecar is paused since when. The caller leaves the browser on one blank tab before it
//! pauses, so a resumed browser looks like a fresh one to the person and the agents.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bollard::models::ContainerInspectResponse;
use bollard::Docker;

use super::container::GateAddr;
use super::engine::{is_not_found, DockerError};
use crate::channel_id::ChannelId;

/// A sidecar frozen at an idle stop.
#[derive(Debug, Clone)]
pub(crate) struct Paused {
    pub id: String,
    pub container: String,
    /// Its published gate; `None` when CDP goes by exec.
    pub addr: Option<GateAddr>,
    /// Its spec hash label: a start whose spec differs replaces it, as it would a kept one.
    pub spec: Option<String>,
    pub since: Instant,
}

/// Which channel's sidecar is paused, since when. Short lock, never held across an await.
#[derive(Debug, Default)]
pub(crate) struct PausedSidecars {
    paused: Mutex<HashMap<ChannelId, Paused>>,
}

impl PausedSidecars {
    pub fn insert(&self, channel: ChannelId, paused: Paused) {
        self.lock().insert(channel, paused);
    }

    /// Takes the channel's paused sidecar out of the registry (to resume or stop it).
    pub fn take(&self, channel: &ChannelId) -> Option<Paused> {
        self.lock().remove(channel)
    }

    pub fn contains(&self, channel: &ChannelId) -> bool {
        self.lock().contains_key(channel)
    }

    /// Every channel whose sidecar has been paused for at least `window`.
    pub fn older_than(&self, window: Duration) -> Vec<ChannelId> {
        self.lock()
            .iter()
            .filter(|(_, p)| p.since.elapsed() >= window)
            .map(|(channel, _)| channel.clone())
            .collect()
    }

    /// Every channel with a paused sidecar.
    pub fn channels(&self) -> Vec<ChannelId> {
        self.lock().keys().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ChannelId, Paused>> {
        self.paused.lock().expect("paused sidecars lock")
    }
}

/// True when the inspected container is frozen.
pub(crate) fn is_paused(info: &ContainerInspectResponse) -> bool {
    info.state.as_ref().and_then(|s| s.paused).unwrap_or(false)
}

/// Freezes a running container.
pub(crate) async fn pause(docker: &Docker, id: &str, name: &str) -> Result<(), DockerError> {
    docker
        .pause_container(id)
        .await
        .map_err(|e| DockerError::engine(format!("pause container {name}"), e))
}

/// Thaws a paused container. False when there is no such container.
pub(crate) async fn unpause(docker: &Docker, id: &str, name: &str) -> Result<bool, DockerError> {
    match docker.unpause_container(id).await {
        Ok(()) => Ok(true),
        Err(e) if is_not_found(&e) => Ok(false),
        Err(e) => Err(DockerError::engine(format!("unpause container {name}"), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paused(since: Instant) -> Paused {
        Paused {
            id: "id".into(),
            container: "porthole-chrome-a".into(),
            addr: None,
            spec: None,
            since,
        }
    }

    #[test]
    fn only_sidecars_paused_for_the_whole_window_are_due_for_a_stop() {
        let registry = PausedSidecars::default();
        let a = ChannelId::parse("a").unwrap();
        let b = ChannelId::parse("b").unwrap();
        registry.insert(a.clone(), paused(Instant::now() - Duration::from_secs(60)));
        registry.insert(b.clone(), paused(Instant::now()));
        assert_eq!(
            registry.older_than(Duration::from_secs(30)),
            vec![a.clone()]
        );
        assert!(registry.take(&a).is_some());
        assert!(registry.take(&a).is_none(), "taken once");
        assert!(registry.contains(&b));
        assert!(registry.older_than(Duration::from_secs(30)).is_empty());
    }
}
