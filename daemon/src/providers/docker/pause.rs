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

/// How long to wait before asking again each time runc answers "unable to freeze" (about
/// 6 s in all). On cgroup v1 runc gives up after about a thousand quick tries and thaws the
/// container again; a browser that is still starting processes, or a machine under load,
/// can outlast that, and the same request a little later succeeds (seen in CI on 2 cores).
const FREEZE_RETRY_DELAYS: [Duration; 6] = [
    Duration::from_millis(100),
    Duration::from_millis(200),
    Duration::from_millis(400),
    Duration::from_millis(800),
    Duration::from_millis(1600),
    Duration::from_millis(3200),
];

/// Freezes a running container, asking again while runc could not freeze it in time.
pub(crate) async fn pause(docker: &Docker, id: &str, name: &str) -> Result<(), DockerError> {
    retry_while_unfrozen(name, &FREEZE_RETRY_DELAYS, || docker.pause_container(id))
        .await
        .map_err(|e| DockerError::engine(format!("pause container {name}"), e))
}

/// Runs `attempt` until it succeeds, fails otherwise than "unable to freeze", or `delays`
/// run out (then the last answer is the error).
async fn retry_while_unfrozen<F, Fut>(
    name: &str,
    delays: &[Duration],
    mut attempt: F,
) -> Result<(), bollard::errors::Error>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(), bollard::errors::Error>>,
{
    let mut delays = delays.iter();
    let mut refusals = 0;
    loop {
        match attempt().await {
            Ok(()) => {
                if refusals > 0 {
                    tracing::info!(event = "sidecar_freeze_retried", container = %name, refusals, "frozen after runc could not freeze it at first");
                }
                return Ok(());
            }
            Err(error) if is_unable_to_freeze(&error) => match delays.next() {
                Some(delay) => {
                    refusals += 1;
                    tracing::debug!(event = "sidecar_freeze_refused", container = %name, refusals, retry_ms = delay.as_millis() as u64);
                    tokio::time::sleep(*delay).await;
                }
                None => return Err(error),
            },
            Err(error) => return Err(error),
        }
    }
}

/// True for the engine's answer when runc's freezer saw the container still FREEZING after
/// its own tries: transient, the container is left running and thawed.
fn is_unable_to_freeze(error: &bollard::errors::Error) -> bool {
    matches!(
        error,
        bollard::errors::Error::DockerResponseServerError { status_code: 500, message }
            if message.contains("unable to freeze")
    )
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
    use std::sync::atomic::{AtomicU32, Ordering};

    /// The engine's answer when runc gave up freezing, as docker 20.10 words it.
    fn unable_to_freeze() -> bollard::errors::Error {
        bollard::errors::Error::DockerResponseServerError {
            status_code: 500,
            message:
                "Cannot pause container c255: OCI runtime pause failed: unable to freeze: unknown"
                    .into(),
        }
    }

    /// An engine that refuses to freeze `refusals` times, then freezes.
    async fn freeze_after(
        refusals: u32,
        delays: &[Duration],
    ) -> (Result<(), bollard::errors::Error>, u32) {
        let calls = AtomicU32::new(0);
        let result = retry_while_unfrozen("c", delays, || {
            let call = calls.fetch_add(1, Ordering::SeqCst);
            async move {
                if call < refusals {
                    Err(unable_to_freeze())
                } else {
                    Ok(())
                }
            }
        })
        .await;
        (result, calls.load(Ordering::SeqCst))
    }

    #[tokio::test]
    async fn a_container_runc_could_not_freeze_at_first_is_frozen_on_a_later_try() {
        let delays = [Duration::from_millis(1); 3];
        let (result, calls) = freeze_after(3, &delays).await;
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(calls, 4, "three refusals, then the freeze");
    }

    #[tokio::test]
    async fn a_pause_gives_up_when_the_retries_run_out() {
        let delays = [Duration::from_millis(1); 2];
        let (result, calls) = freeze_after(10, &delays).await;
        assert!(is_unable_to_freeze(&result.unwrap_err()));
        assert_eq!(calls, 3, "the first try and one per delay");
    }

    #[tokio::test]
    async fn other_engine_errors_are_not_retried() {
        let calls = AtomicU32::new(0);
        let result = retry_while_unfrozen("c", &[Duration::from_millis(1)], || {
            calls.fetch_add(1, Ordering::SeqCst);
            async {
                Err(bollard::errors::Error::DockerResponseServerError {
                    status_code: 409,
                    message: "Container c255 is not running".into(),
                })
            }
        })
        .await;
        assert!(result.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

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
