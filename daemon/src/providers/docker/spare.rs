//! The warm spare (`browser.warm_spare`): one sidecar created, booted and then paused before
//! any channel asks for it, named `porthole-spare-<id>` with its profile on the new, empty
//! volume `porthole-spare-profile-<id>` and the label `porthole.spare`. A new channel (no
//! container, no profile volume yet) takes it over: its volume is written down as the
//! channel's ([`super::volumes`]), the container renamed to the channel's and thawed — two
//! Engine API requests instead of a create, a start and Chrome's boot. A new spare is then
//! made in the background. Its spec hash is the channel's (the hash leaves out names and
//! channel labels), so a spare made under another image or config is never taken: it is
//! removed and made again.
//!
//! Shutdown removes an untaken spare with its volume; the reaper of the next daemon removes one
//! a killed daemon left (by name: a taken spare has been renamed).
//!
//! [`SpareSlot`] makes and boots its spare through the [`Launcher`] it holds, and is handed the
//! channel's [`ProfileVolumes`] when a channel claims it; it knows nothing of the provider.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::container::{self, GateAddr, Rollback};
use super::engine::{is_not_found, DockerError};
use super::launcher::{check_extensions, Launcher};
use super::names::{
    container_name, random_token, volume_name, LABEL_DAEMON, LABEL_SPARE, SPARE_PREFIX,
    SPARE_VOLUME_PREFIX,
};
use super::pause;
use super::steps::Steps;
use super::volumes::ProfileVolumes;
use crate::channel_id::ChannelId;
use crate::providers::{CdpAddress, ProgressFn, ProviderError};

/// A booted, paused sidecar no channel owns yet.
#[derive(Debug, Clone)]
struct Spare {
    id: String,
    name: String,
    volume: Option<String>,
    addr: Option<GateAddr>,
    /// Its spec hash.
    spec: String,
}

/// The spare, if one is ready, and whether one is being made.
pub(crate) struct SpareSlot {
    launcher: Arc<Launcher>,
    /// Short lock, never held across an await.
    ready: Mutex<Option<Spare>>,
    making: AtomicBool,
    /// Set at shutdown: a spare finished after it removes itself.
    closed: AtomicBool,
}

impl SpareSlot {
    /// An empty slot whose spares `launcher` makes.
    pub(super) fn new(launcher: Arc<Launcher>) -> Self {
        Self {
            launcher,
            ready: Mutex::new(None),
            making: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        }
    }

    fn take(&self) -> Option<Spare> {
        self.ready.lock().expect("spare lock").take()
    }

    fn put(&self, spare: Spare) {
        *self.ready.lock().expect("spare lock") = Some(spare);
    }

    /// Makes a spare in the background unless one is ready or being made (or spares are off).
    pub(super) fn refill(self: &Arc<Self>) {
        if !self.launcher.settings().warm_spare
            || self.closed.load(Ordering::SeqCst)
            || self.ready.lock().expect("spare lock").is_some()
            || self.making.swap(true, Ordering::SeqCst)
        {
            return;
        }
        let me = self.clone();
        tokio::spawn(async move {
            let made = me.make().await;
            me.making.store(false, Ordering::SeqCst);
            match made {
                Ok(spare) if me.closed.load(Ordering::SeqCst) => {
                    me.discard(spare).await;
                }
                Ok(spare) => {
                    tracing::info!(event = "spare_ready", container = %spare.name);
                    me.put(spare);
                }
                Err(error) => {
                    tracing::warn!(event = "spare_failed", %error, "new channels start without a spare")
                }
            }
        });
    }

    /// Creates, boots and pauses a spare.
    async fn make(&self) -> Result<Spare, DockerError> {
        let launcher = &self.launcher;
        launcher
            .images()
            .ensure(Arc::new(|_: &str, _: &str| {}))
            .await?;
        let id = random_token(12);
        let name = format!("{SPARE_PREFIX}{id}");
        let volume = launcher
            .settings()
            .persist_profile
            .then(|| format!("{SPARE_VOLUME_PREFIX}{id}"));
        let mut labels = launcher.sidecar_labels();
        labels.insert(LABEL_SPARE.to_string(), "1".to_string());
        let extensions = check_extensions(&launcher.settings().extensions)?;
        let (mut spec, hash) = launcher
            .spec(name.clone(), labels, volume.clone(), extensions)
            .await?;
        let mut steps = Steps::start();
        let mut rollback = Rollback::new(launcher.docker().clone());
        let progress: ProgressFn = Arc::new(|_: &str, _: &str| {});
        let made = async {
            let id = launcher
                .create_with_volume(&mut spec, &progress, &mut rollback, &mut steps)
                .await?;
            let (addr, _) = launcher.boot(&id, &name, &mut steps).await?;
            pause::pause(launcher.docker(), &id, &name).await?;
            Ok::<_, ProviderError>((id, addr))
        };
        match made.await {
            Ok((id, addr)) => {
                rollback.disarm();
                tracing::info!(event = "spare_made", container = %name, steps = ?steps.summary());
                Ok(Spare {
                    id,
                    name,
                    volume,
                    addr,
                    spec: hash,
                })
            }
            Err(error) => {
                rollback.run().await;
                Err(DockerError::NotReady(error.to_string()))
            }
        }
    }

    /// Hands the spare to `channel` when it is new (no profile volume yet, in `volumes` or on
    /// the engine) and the spare's spec is `hash`: written down in `volumes`, renamed, thawed.
    /// `None`: the start makes its own sidecar.
    pub(super) async fn claim(
        self: &Arc<Self>,
        volumes: &ProfileVolumes,
        channel: &ChannelId,
        hash: &str,
        steps: &mut Steps,
    ) -> Option<(Option<GateAddr>, CdpAddress)> {
        if !self.launcher.settings().warm_spare {
            return None;
        }
        let spare = self.take();
        let Some(spare) = spare else {
            self.refill();
            return None;
        };
        if volumes.is_mapped(channel) || self.has_profile(channel, steps).await {
            self.put(spare);
            return None;
        }
        if spare.spec != hash {
            tracing::info!(event = "spare_outdated", container = %spare.name, "made under another image or config: replaced");
            self.discard(spare).await;
            self.refill();
            return None;
        }
        let name = container_name(channel);
        let taken = self.take_over(volumes, channel, &spare, &name, steps).await;
        self.refill();
        match taken {
            Ok(address) => {
                tracing::info!(event = "spare_claimed", channel_id = %channel, container = %name, volume = ?spare.volume);
                Some((spare.addr, address))
            }
            Err(error) => {
                tracing::warn!(event = "spare_claim_failed", channel_id = %channel, %error, "creating a new sidecar");
                volumes.forget(channel);
                self.discard(spare).await;
                None
            }
        }
    }

    /// The channel's own profile volume exists (a reset channel has none: it may take a spare).
    async fn has_profile(&self, channel: &ChannelId, steps: &mut Steps) -> bool {
        if !self.launcher.settings().persist_profile {
            return false;
        }
        steps.requests(1);
        !matches!(
            self.launcher.docker().inspect_volume(&volume_name(channel)).await,
            Err(ref e) if is_not_found(e)
        )
    }

    async fn take_over(
        &self,
        volumes: &ProfileVolumes,
        channel: &ChannelId,
        spare: &Spare,
        name: &str,
        steps: &mut Steps,
    ) -> Result<CdpAddress, DockerError> {
        if let Some(volume) = &spare.volume {
            volumes.assign(channel, volume).map_err(|e| {
                DockerError::Invalid(format!(
                    "cannot write down the channel's profile volume: {e}"
                ))
            })?;
        }
        steps.requests(2);
        let docker = self.launcher.docker();
        docker
            .rename_container(
                &spare.id,
                bollard::query_parameters::RenameContainerOptionsBuilder::new()
                    .name(name)
                    .build(),
            )
            .await
            .map_err(|e| {
                DockerError::engine(format!("rename container {} to {name}", spare.name), e)
            })?;
        pause::unpause(docker, &spare.id, name).await?;
        steps.mark("spare_claimed");
        self.launcher.thawed_address(name, &spare.addr, steps).await
    }

    /// Removes an untaken spare and its volume (shutdown); a spare still being made removes
    /// itself when done.
    pub(super) async fn remove(&self) {
        self.closed.store(true, Ordering::SeqCst);
        if let Some(spare) = self.take() {
            self.discard(spare).await;
        }
    }

    /// Removes a spare's container and volume.
    async fn discard(&self, spare: Spare) {
        let docker = self.launcher.docker();
        if let Err(error) = container::remove_force(docker, &spare.id).await {
            tracing::warn!(event = "spare_remove_failed", container = %spare.name, %error);
        }
        if let Some(volume) = &spare.volume {
            let labels = std::collections::HashMap::from([(
                LABEL_DAEMON.to_string(),
                self.launcher.settings().daemon_id.clone(),
            )]);
            if let Err(error) = container::remove_volume(docker, volume, &labels).await {
                tracing::warn!(event = "spare_volume_remove_failed", %volume, %error);
            }
        }
    }
}
