//! [`DockerProvider`]: a channel's browser as the sidecar container `porthole-chrome-<channel>`.
//!
//! Start: image ready (checked once per daemon) → a sidecar paused at an idle stop is resumed
//! ([`super::pause`]), or one this daemon stopped and kept is started again ([`super::kept`]),
//! when its spec hash label still equals the spec's; else a new channel takes over the warm
//! spare ([`super::spare`]); else the [`Launcher`] creates the profile volume and the
//! container at once and boots it. A failed start removes the container and any volume it
//! created ([`Rollback`]). Stop: SIGTERM (the sidecar closes Chrome cleanly, cookies flushed);
//! the container is kept, stopped, for the next start, and removed on a profile reset, a
//! channel delete, daemon shutdown, or when it stopped without being asked (killed, crashed).
//! The volume stays until a profile reset or channel delete. An idle stop pauses the sidecar
//! instead while `browser.idle_pause_secs` allows, and the next start resumes it; a paused
//! sidecar asked to stop or go is thawed first. Per-channel serialisation is the caller's
//! (`ChannelService` holds a lifecycle lock per channel and mode).
//!
//! This is the roof of the docker files: it holds the registries (running, kept, paused, the
//! spare, the profile volumes) and uses every room below; none of them imports it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bollard::Docker;

use super::container::{self, GateAddr, Rollback};
use super::engine::DockerError;
use super::image::ImageManager;
use super::kept::{Kept, KeptSidecars};
use super::launcher::{check_extensions, Launcher};
use super::names::{container_name, LABEL_CHANNEL, LABEL_VERSION, VERSION};
use super::pause::{self, Paused, PausedSidecars};
use super::reaper;
use super::sandbox::Sandbox;
use super::settings::DockerSettings;
use super::spare::SpareSlot;
use super::spec::{DOWNLOADS_DIR, LABEL_SPEC};
use super::steps::Steps;
use super::volumes::ProfileVolumes;
use crate::channel_id::ChannelId;
use crate::mode::Mode;
use crate::providers::{
    BrowserProvider, CdpAddress, DownloadPlace, Endpoint, ProgressFn, ProviderError, Removed,
    Stopped,
};

/// SIGTERM-to-SIGKILL time on stop (the sidecar's own grace is 8 s).
const STOP_GRACE: Duration = Duration::from_secs(10);

/// A channel's sidecar registered as running.
#[derive(Debug, Clone)]
struct Running {
    container: String,
    /// The published gate; `None` when CDP goes by exec.
    addr: Option<GateAddr>,
}

/// Runs each channel's browser in its own sidecar container.
pub struct DockerProvider {
    /// Makes, boots and reaches sidecars (the engine, the images, the settings).
    launcher: Arc<Launcher>,
    /// Short lock, never held across an await.
    running: Mutex<HashMap<ChannelId, Running>>,
    /// Stopped sidecars kept for their channel's next start.
    kept: KeptSidecars,
    /// Sidecars paused at an idle stop, resumed by their channel's next start.
    paused: PausedSidecars,
    /// Which volume holds each channel's profile.
    volumes: ProfileVolumes,
    /// The warm spare a new channel takes over (see [`super::spare`]).
    spare: Arc<SpareSlot>,
}

impl DockerProvider {
    /// Creates the provider and reaps: this daemon's running sidecars are adopted, its stale
    /// ones removed (see [`reaper`]).
    pub async fn new(
        docker: Docker,
        images: Arc<ImageManager>,
        settings: DockerSettings,
    ) -> Arc<Self> {
        let mut running = HashMap::new();
        let kept = KeptSidecars::default();
        let paused = PausedSidecars::default();
        match reaper::reap(&docker, &settings.daemon_id).await {
            Ok(reaped) => {
                tracing::info!(
                    event = "docker_reaped",
                    adopted = reaped.adopted.len(),
                    kept = reaped.kept.len(),
                    paused = reaped.paused.len(),
                    removed = reaped.removed.len()
                );
                for (channel, addr) in reaped.adopted {
                    let container = container_name(&channel);
                    running.insert(channel, Running { container, addr });
                }
                for (channel, found) in reaped.kept {
                    kept.insert(channel, found);
                }
                for (channel, found) in reaped.paused {
                    paused.insert(channel, found);
                }
            }
            Err(error) => tracing::warn!(event = "docker_reap_failed", %error),
        }
        let volumes = ProfileVolumes::load(settings.data_dir.join("profile_volumes.json"));
        let launcher = Arc::new(Launcher::new(docker, images, settings));
        Arc::new(Self {
            spare: Arc::new(SpareSlot::new(launcher.clone())),
            launcher,
            running: Mutex::new(running),
            kept,
            paused,
            volumes,
        })
    }

    /// The image manager (for the image endpoints).
    pub fn images(&self) -> &Arc<ImageManager> {
        self.launcher.images()
    }

    /// Makes a warm spare in the background unless one is ready or being made (or spares are
    /// off; see [`super::spare`]).
    pub(crate) fn refill_spare(&self) {
        self.spare.refill();
    }

    fn docker(&self) -> &Docker {
        self.launcher.docker()
    }

    fn settings(&self) -> &DockerSettings {
        self.launcher.settings()
    }

    fn labels(&self, channel: &ChannelId) -> HashMap<String, String> {
        let mut labels = self.launcher.sidecar_labels();
        labels.insert(LABEL_CHANNEL.to_string(), channel.to_string());
        labels
    }

    fn registered(&self, channel: &ChannelId) -> Option<Running> {
        self.running
            .lock()
            .expect("docker registry lock")
            .get(channel)
            .cloned()
    }

    /// Starts the channel's kept sidecar when its spec still matches, else creates one (and
    /// its volume) and starts it; records what it created in `rollback`.
    async fn launch(
        &self,
        channel: &ChannelId,
        extensions: Vec<PathBuf>,
        progress: &ProgressFn,
        rollback: &mut Rollback,
        steps: &mut Steps,
    ) -> Result<(Option<GateAddr>, CdpAddress), ProviderError> {
        let name = container_name(channel);
        let volume = self
            .settings()
            .persist_profile
            .then(|| self.volumes.volume_of(channel));
        let (mut spec, hash) = self
            .launcher
            .spec(name.clone(), self.labels(channel), volume, extensions)
            .await?;
        steps.mark("sandbox_probe");
        if let Sandbox::Off { reason } = self.launcher.sandbox().await {
            tracing::info!(
                event = "sidecar_chromium_unsandboxed",
                container = %name,
                %reason,
                "Chromium in the sidecar runs with --no-sandbox"
            );
        }
        if let Some(paused) = self.paused.take(channel) {
            if paused.spec.as_deref() == Some(hash.as_str()) {
                match self.resume(channel, &paused, steps).await {
                    Ok(address) => return Ok((paused.addr, address)),
                    Err(error) => {
                        tracing::warn!(event = "sidecar_resume_failed", container = %name, %error, "creating a new one");
                    }
                }
            } else {
                tracing::info!(event = "sidecar_spec_changed", container = %name, was = ?paused.spec, now = %hash, "the paused sidecar is replaced");
            }
            steps.requests(1);
            container::remove_force(self.docker(), &paused.id).await?;
        }
        let kept = self.kept.take(channel);
        if let Some(kept) = kept {
            // A kept sidecar that does not come up again is removed, like a new one would be.
            rollback.container(&name);
            if kept.spec == hash {
                match self.launcher.boot(&kept.id, &name, steps).await {
                    Ok(found) => {
                        tracing::info!(event = "sidecar_restarted", container = %name, id = %kept.id);
                        steps.reused();
                        return Ok(found);
                    }
                    Err(error) => {
                        tracing::warn!(event = "sidecar_restart_failed", container = %name, %error, "creating a new one");
                    }
                }
            } else {
                tracing::info!(event = "sidecar_spec_changed", container = %name, was = %kept.spec, now = %hash, "the kept sidecar is replaced");
            }
            steps.requests(1);
            container::remove_force(self.docker(), &kept.id).await?;
        }
        if let Some(found) = self.spare.claim(&self.volumes, channel, &hash, steps).await {
            return Ok(found);
        }
        let id = self
            .launcher
            .create_with_volume(&mut spec, progress, rollback, steps)
            .await?;
        tracing::info!(event = "sidecar_created", container = %name, id = %id);
        self.launcher.boot(&id, &name, steps).await
    }

    /// Stops the channel's sidecar if it is ours. With `keep`, a running sidecar of this
    /// version is stopped and kept for the next start ([`Kept`]); every other one (asked to
    /// go, or one that stopped without being asked: killed, crashed) is removed.
    async fn stop_container(&self, channel: &ChannelId, keep: bool) -> Result<bool, DockerError> {
        let name = container_name(channel);
        self.kept.take(channel);
        let info = match container::inspect(self.docker(), &name).await? {
            Some(info) if self.launcher.is_ours(&info) => info,
            _ => return Ok(false),
        };
        if pause::is_paused(&info) {
            // A frozen process takes no signal: thawed first, then stopped like any other.
            pause::unpause(self.docker(), info.id.as_deref().unwrap_or(&name), &name).await?;
        }
        let spec = container::label(&info, LABEL_SPEC).map(str::to_string);
        let this_version = container::label(&info, LABEL_VERSION) == Some(VERSION);
        match (
            keep && this_version && container::is_running(&info),
            spec,
            info.id,
        ) {
            (true, Some(spec), Some(id)) => {
                let stopped = container::stop(self.docker(), &id, STOP_GRACE).await?;
                if stopped {
                    tracing::info!(event = "sidecar_kept", container = %name, "stopped, kept for the next start");
                    self.kept.insert(channel.clone(), Kept { id, spec });
                }
                Ok(stopped)
            }
            _ => container::stop_and_remove(self.docker(), &name, STOP_GRACE).await,
        }
    }

    /// Stops the channel's browser; `keep` as in [`DockerProvider::stop_container`].
    async fn halt(&self, channel: &ChannelId, keep: bool) -> Result<Stopped, ProviderError> {
        let registered = self
            .running
            .lock()
            .expect("docker registry lock")
            .remove(channel)
            .is_some()
            | self.paused.take(channel).is_some();
        let stopped = self.stop_container(channel, keep).await?;
        if stopped {
            tracing::info!(event = "sidecar_stopped", channel_id = %channel, kept = keep);
        }
        Ok(if stopped || registered {
            Stopped::Stopped
        } else {
            Stopped::NotRunning
        })
    }
}

impl DockerProvider {
    /// Freezes the channel's running sidecar (see [`super::pause`]); false when there is none
    /// of this daemon's and version running to freeze, or the engine refused.
    async fn pause_running(&self, channel: &ChannelId) -> bool {
        let Some(running) = self
            .running
            .lock()
            .expect("docker registry lock")
            .remove(channel)
        else {
            return false;
        };
        let name = running.container.clone();
        let paused = async {
            let info = container::inspect(self.docker(), &name).await?;
            let Some(info) = info.filter(|info| {
                self.launcher.is_ours(info)
                    && container::label(info, LABEL_VERSION) == Some(VERSION)
                    && container::is_running(info)
                    && !pause::is_paused(info)
            }) else {
                return Ok(None);
            };
            let spec = container::label(&info, LABEL_SPEC).map(str::to_string);
            let Some(id) = info.id else { return Ok(None) };
            pause::pause(self.docker(), &id, &name).await?;
            Ok::<_, DockerError>(Some((id, spec)))
        };
        match paused.await {
            Ok(Some((id, spec))) => {
                tracing::info!(event = "sidecar_paused", channel_id = %channel, container = %name, window_secs = self.settings().idle_pause.as_secs(), "frozen until the next start or the end of the pause window");
                self.paused.insert(
                    channel.clone(),
                    Paused {
                        id,
                        container: name,
                        addr: running.addr,
                        spec,
                        since: std::time::Instant::now(),
                    },
                );
                true
            }
            Ok(None) => false,
            Err(error) => {
                tracing::warn!(event = "sidecar_pause_failed", channel_id = %channel, %error, "stopping it instead");
                false
            }
        }
    }

    /// Thaws a paused sidecar and reaches its browser: one Engine API request on the
    /// published gate (Chrome never stopped), an exec more when CDP goes by exec.
    async fn resume(
        &self,
        channel: &ChannelId,
        paused: &Paused,
        steps: &mut Steps,
    ) -> Result<CdpAddress, DockerError> {
        steps.requests(1);
        if !pause::unpause(self.docker(), &paused.id, &paused.container).await? {
            return Err(DockerError::NotReady(format!(
                "the paused container {} is gone",
                paused.container
            )));
        }
        steps.mark("unpause");
        let address = self
            .launcher
            .thawed_address(&paused.container, &paused.addr, steps)
            .await?;
        steps.reused();
        tracing::info!(event = "sidecar_resumed", channel_id = %channel, container = %paused.container, paused_ms = paused.since.elapsed().as_millis() as u64);
        Ok(address)
    }
}

#[async_trait]
impl BrowserProvider for DockerProvider {
    fn mode(&self) -> Mode {
        Mode::Docker
    }

    /// In the profile volume (kept across restarts, gone with a profile reset), read back
    /// through the engine's archive API.
    fn downloads(&self, channel: &ChannelId) -> DownloadPlace {
        DownloadPlace::Browser {
            dir: DOWNLOADS_DIR.to_string(),
            files: Arc::new(super::files::ContainerFiles {
                docker: self.docker().clone(),
                container: container_name(channel),
            }),
        }
    }

    async fn ensure_browser(
        &self,
        channel: &ChannelId,
        progress: ProgressFn,
    ) -> Result<Endpoint, ProviderError> {
        let mut steps = Steps::start();
        if let Some(running) = self.registered(channel) {
            if let Some(address) = self.launcher.reach(&running.container, &running.addr).await {
                return Ok(Endpoint {
                    address,
                    fresh: false,
                });
            }
            tracing::warn!(event = "sidecar_lost", channel_id = %channel, container = %running.container);
            self.running
                .lock()
                .expect("docker registry lock")
                .remove(channel);
            container::remove_force(self.docker(), &running.container)
                .await
                .map_err(ProviderError::from)?;
            steps.requests(1);
            // Asked the gate (or the exec) of the sidecar it had, and removed that one.
            steps.mark("lost_sidecar_removed");
        }
        self.launcher.images().ensure(progress.clone()).await?;
        steps.mark("image");
        let name = container_name(channel);
        let extensions = check_extensions(&self.settings().extensions)?;
        progress("starting_container", "Starting the browser container");
        let mut rollback = Rollback::new(self.docker().clone());
        match self
            .launch(channel, extensions, &progress, &mut rollback, &mut steps)
            .await
        {
            Ok((addr, address)) => {
                rollback.disarm();
                tracing::info!(event = "sidecar_start_steps", channel_id = %channel, steps = ?steps.summary(), engine_requests = steps.request_count(), reused = steps.was_reused(), "milliseconds per step");
                tracing::info!(event = "sidecar_ready", channel_id = %channel, container = %name, port = ?addr.as_ref().map(|a| a.port), route = ?self.settings().cdp_route);
                self.running.lock().expect("docker registry lock").insert(
                    channel.clone(),
                    Running {
                        container: name,
                        addr,
                    },
                );
                Ok(Endpoint {
                    address,
                    fresh: true,
                })
            }
            Err(error) => {
                tracing::warn!(event = "sidecar_start_failed", channel_id = %channel, %error);
                rollback.run().await;
                Err(error)
            }
        }
    }

    async fn stop_browser(&self, channel: &ChannelId) -> Result<Stopped, ProviderError> {
        self.halt(channel, true).await
    }

    fn pauses_when_idle(&self) -> bool {
        !self.settings().idle_pause.is_zero()
    }

    async fn idle_browser(&self, channel: &ChannelId) -> Result<Stopped, ProviderError> {
        if self.pauses_when_idle() && self.pause_running(channel).await {
            return Ok(Stopped::Stopped);
        }
        self.halt(channel, true).await
    }

    fn paused_too_long(&self) -> Vec<ChannelId> {
        self.paused.older_than(self.settings().idle_pause)
    }

    async fn stop_paused(&self, channel: &ChannelId) -> Result<Stopped, ProviderError> {
        if !self.paused.contains(channel) {
            return Ok(Stopped::NotRunning);
        }
        tracing::info!(event = "sidecar_pause_ended", channel_id = %channel, "paused for the whole window: stopped");
        self.halt(channel, true).await
    }

    async fn remove_profile(&self, channel: &ChannelId) -> Result<Removed, ProviderError> {
        self.halt(channel, false).await?;
        let volume = self.volumes.volume_of(channel);
        let removed =
            container::remove_volume(self.docker(), &volume, &self.labels(channel)).await?;
        self.volumes.forget(channel);
        tracing::info!(event = "profile_volume_removed", channel_id = %channel, volume = %volume, removed);
        Ok(if removed {
            Removed::Removed
        } else {
            Removed::NotFound
        })
    }

    async fn shutdown(&self) {
        let mut channels: Vec<ChannelId> = self
            .running
            .lock()
            .expect("docker registry lock")
            .keys()
            .cloned()
            .collect();
        channels.extend(self.paused.channels());
        let stops = channels.iter().map(|channel| self.halt(channel, false));
        let (results, ()) =
            tokio::join!(futures_util::future::join_all(stops), self.spare.remove());
        for result in results {
            if let Err(error) = result {
                tracing::warn!(event = "sidecar_shutdown_failed", %error);
            }
        }
    }
}
