//! [`DockerProvider`]: a channel's browser as the sidecar container `porthole-chrome-<channel>`.
//!
//! Start: image ready (checked once per daemon) → a sidecar this daemon stopped and kept is
//! started again when its spec hash label still equals the spec's ([`Kept`]); else the profile
//! volume and the container are created at once (the create makes a missing volume itself,
//! with the same labels) → attached to its output → started → ready when the sidecar says so on
//! that stream, while the gate's port is read by one inspect ([`super::output`]); no polling.
//! A failed start removes the container and any volume it created ([`Rollback`]). Stop:
//! SIGTERM (the sidecar closes Chrome cleanly, cookies flushed); the container is kept,
//! stopped, for the next start, and removed on a profile reset, a channel delete, daemon
//! shutdown, or when it stopped without being asked (killed, crashed). The volume stays until a
//! profile reset or channel delete. An idle stop pauses the sidecar instead while
//! `browser.idle_pause_secs` allows, and the next start resumes it ([`super::pause`]); a
//! paused sidecar asked to stop or go is thawed first. Per-channel serialisation is the caller's
//! (`ChannelService` holds a lifecycle lock per channel and mode).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bollard::Docker;

use super::container::{self, GateAddr, Rollback};
use super::engine::{is_conflict, DockerError};
use super::image::ImageManager;
use super::names::{
    container_name, random_token, LABEL_CHANNEL, LABEL_DAEMON, LABEL_VERSION, VERSION,
};
use super::pause::{self, Paused, PausedSidecars};
use super::reaper;
use super::sandbox::{self, Sandbox};
use super::spare::SpareSlot;
use super::spec::{Network, SidecarSpec, DOWNLOADS_DIR, LABEL_SPEC};
use super::steps::Steps;
use super::volumes::ProfileVolumes;
use crate::channel_id::ChannelId;
use crate::mode::Mode;
use crate::providers::{
    BrowserProvider, CdpAddress, DownloadPlace, Endpoint, ProgressFn, ProviderError, Removed,
    Stopped,
};

/// How long a new sidecar may take until its browser answers.
const READY_DEADLINE: Duration = Duration::from_secs(45);
/// How long a start that found its container exited waits for the rest of its output.
const EXIT_OUTPUT_DEADLINE: Duration = Duration::from_secs(5);
/// How often a start asks the gate while it waits for the sidecar's ready event (a safety net:
/// the event normally comes first).
const GATE_SAFETY_NET: Duration = Duration::from_secs(1);
/// SIGTERM-to-SIGKILL time on stop (the sidecar's own grace is 8 s).
const STOP_GRACE: Duration = Duration::from_secs(10);

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
    /// the idle stop; see [`super::pause`]).
    pub idle_pause: Duration,
    /// Keep one booted, paused sidecar for the next new channel (see [`super::spare`]).
    pub warm_spare: bool,
    /// The daemon's data dir (where [`ProfileVolumes`] keeps its file).
    pub data_dir: PathBuf,
}

/// How the daemon reaches a sidecar's CDP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CdpRoute {
    /// The sidecar's secret-gated port, published on 127.0.0.1 of the engine's host (only
    /// meaningful when that host is this machine).
    Port,
    /// An exec stream of `porthole-sidecar cdp-pipe`, inside the Docker API connection:
    /// nothing published (see [`super::exec`]).
    Exec,
}

/// How long an exec into a sidecar that already runs may take to answer.
const EXEC_RECONNECT_DEADLINE: Duration = Duration::from_secs(10);

/// A sidecar this daemon stopped cleanly (or found stopped at its start) and kept: started
/// again by the next start of its channel while `spec` equals that start's spec hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kept {
    pub id: String,
    /// Its [`LABEL_SPEC`].
    pub spec: String,
}

#[derive(Debug, Clone)]
pub(super) struct Running {
    pub(super) container: String,
    /// The published gate; `None` when CDP goes by exec.
    pub(super) addr: Option<GateAddr>,
}

/// Runs each channel's browser in its own sidecar container.
pub struct DockerProvider {
    pub(super) docker: Docker,
    pub(super) images: Arc<ImageManager>,
    pub(super) settings: DockerSettings,
    /// Short lock, never held across an await.
    pub(super) running: Mutex<HashMap<ChannelId, Running>>,
    /// Whether Chromium's own sandbox works here: probed once, before the first sidecar.
    sandbox: tokio::sync::OnceCell<Sandbox>,
    /// Stopped sidecars kept for their channel's next start (short lock).
    kept: Mutex<HashMap<ChannelId, Kept>>,
    /// Sidecars paused at an idle stop, resumed by their channel's next start.
    paused: PausedSidecars,
    /// Which volume holds each channel's profile.
    pub(super) volumes: ProfileVolumes,
    /// The warm spare a new channel takes over (see [`super::spare`]).
    pub(super) spare: SpareSlot,
    /// This provider, for the tasks it spawns (made with `Arc::new_cyclic`).
    pub(super) me: std::sync::Weak<DockerProvider>,
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
        let mut kept = HashMap::new();
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
                kept = reaped.kept;
                for (channel, found) in reaped.paused {
                    paused.insert(channel, found);
                }
            }
            Err(error) => tracing::warn!(event = "docker_reap_failed", %error),
        }
        let volumes = ProfileVolumes::load(settings.data_dir.join("profile_volumes.json"));
        Arc::new_cyclic(|me| Self {
            docker,
            images,
            settings,
            running: Mutex::new(running),
            sandbox: tokio::sync::OnceCell::new(),
            kept: Mutex::new(kept),
            paused,
            volumes,
            spare: SpareSlot::default(),
            me: me.clone(),
        })
    }

    /// The image manager (for the image endpoints).
    pub fn images(&self) -> &Arc<ImageManager> {
        &self.images
    }

    fn labels(&self, channel: &ChannelId) -> HashMap<String, String> {
        let mut labels = self.sidecar_labels();
        labels.insert(LABEL_CHANNEL.to_string(), channel.to_string());
        labels
    }

    /// The labels of every sidecar of this daemon, before its channel's (a spare has none).
    pub(super) fn sidecar_labels(&self) -> HashMap<String, String> {
        let mut labels = self.settings.extra_labels.clone();
        labels.insert(LABEL_DAEMON.to_string(), self.settings.daemon_id.clone());
        labels.insert(LABEL_VERSION.to_string(), VERSION.to_string());
        labels
    }

    /// The CDP address of a sidecar that was paused and is thawed now (its browser never
    /// stopped): its published gate, else a new exec stream.
    pub(super) async fn thawed_address(
        &self,
        container: &str,
        addr: &Option<GateAddr>,
        steps: &mut Steps,
    ) -> Result<CdpAddress, DockerError> {
        Ok(match addr {
            Some(addr) => CdpAddress::WebSocket(addr.ws_url()),
            None => {
                steps.requests(2);
                let cdp =
                    super::exec::connect(&self.docker, container, EXEC_RECONNECT_DEADLINE).await?;
                steps.mark("exec_cdp_ready");
                CdpAddress::Connected(cdp)
            }
        })
    }

    /// The sandbox probe's outcome (run on the first call; see [`sandbox`]).
    pub(super) async fn sandbox(&self) -> &Sandbox {
        self.sandbox
            .get_or_init(|| async {
                let mut labels = self.settings.extra_labels.clone();
                labels.insert(LABEL_DAEMON.to_string(), self.settings.daemon_id.clone());
                sandbox::probe(&self.docker, self.images.image(), labels).await
            })
            .await
    }

    fn is_ours(&self, info: &bollard::models::ContainerInspectResponse) -> bool {
        container::label(info, LABEL_DAEMON) == Some(self.settings.daemon_id.as_str())
    }

    fn registered(&self, channel: &ChannelId) -> Option<Running> {
        self.running
            .lock()
            .expect("docker registry lock")
            .get(channel)
            .cloned()
    }

    /// Creates the container of `spec`, in one Engine API call when nothing is in the way.
    /// A container of that name (a stale sidecar of this daemon's, stopped outside it) is
    /// removed and the create made again; one of another daemon's is refused. An image gone
    /// since this daemon checked it is checked (built) again, once.
    async fn create(
        &self,
        spec: &SidecarSpec,
        progress: &ProgressFn,
        requests: &std::sync::atomic::AtomicU32,
    ) -> Result<String, ProviderError> {
        use std::sync::atomic::Ordering::Relaxed;
        requests.fetch_add(1, Relaxed);
        match container::create(&self.docker, spec).await {
            Ok(id) => return Ok(id),
            Err(DockerError::Engine { source, .. }) if is_conflict(&source) => {
                requests.fetch_add(2, Relaxed);
                let info = container::inspect(&self.docker, &spec.name).await?;
                if info.as_ref().is_some_and(|info| !self.is_ours(info)) {
                    let name = &spec.name;
                    return Err(ProviderError::refused(format!(
                        "a container named {name} exists and does not belong to this Porthole daemon; remove it (docker rm -f {name}) or use another channel id"
                    )));
                }
                container::remove_force(&self.docker, &spec.name).await?;
                tracing::info!(event = "stale_sidecar_removed", container = %spec.name);
            }
            Err(DockerError::ImageMissing { .. }) => {
                tracing::info!(event = "sidecar_image_gone", image = %spec.image);
                self.images.forget();
                self.images.ensure(progress.clone()).await?;
            }
            Err(error) => return Err(error.into()),
        }
        requests.fetch_add(1, Relaxed);
        Ok(container::create(&self.docker, spec).await?)
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
            .settings
            .persist_profile
            .then(|| self.volumes.volume_of(channel));
        let (mut spec, hash) = self
            .spec(name.clone(), self.labels(channel), volume, extensions)
            .await?;
        steps.mark("sandbox_probe");
        if let Sandbox::Off { reason } = self.sandbox().await {
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
            container::remove_force(&self.docker, &paused.id).await?;
        }
        let kept = self.kept.lock().expect("kept lock").remove(channel);
        if let Some(kept) = kept {
            // A kept sidecar that does not come up again is removed, like a new one would be.
            rollback.container(&name);
            if kept.spec == hash {
                match self.boot(&kept.id, &name, steps).await {
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
            container::remove_force(&self.docker, &kept.id).await?;
        }
        if let Some(found) = self.claim_spare(channel, &hash, steps).await {
            return Ok(found);
        }
        let id = self
            .create_with_volume(&mut spec, progress, rollback, steps)
            .await?;
        tracing::info!(event = "sidecar_created", container = %name, id = %id);
        self.boot(&id, &name, steps).await
    }

    /// The spec of a sidecar named `name` with `labels` and its profile on `volume`, under
    /// this daemon's settings, and its spec hash (also set as its [`LABEL_SPEC`] label).
    pub(super) async fn spec(
        &self,
        name: String,
        labels: HashMap<String, String>,
        volume: Option<String>,
        extensions: Vec<PathBuf>,
    ) -> Result<(SidecarSpec, String), DockerError> {
        let host_port = match self.settings.network {
            Network::Host => Some(free_loopback_port()?),
            Network::Bridge => None,
        };
        let mut spec = SidecarSpec {
            name,
            image: self.images.image().to_string(),
            labels,
            secret: random_token(32),
            network: self.settings.network,
            host_port,
            publish: self.settings.cdp_route == CdpRoute::Port,
            volume,
            volume_labels: HashMap::new(),
            extensions,
            screen: self.settings.screen,
            memory_mb: self.settings.memory_mb,
            cpus: self.settings.cpus,
            sandbox: self.sandbox().await.is_on(),
        };
        let image_id = self.images.image_id().unwrap_or_else(|| spec.image.clone());
        let hash = spec.spec_hash(&image_id);
        spec.labels.insert(LABEL_SPEC.to_string(), hash.clone());
        Ok((spec, hash))
    }

    /// Creates the container and its profile volume at once: the volume create (which tells
    /// whether this start made the volume, and whose it is) runs beside the container's create,
    /// which makes a missing volume itself with the same labels.
    pub(super) async fn create_with_volume(
        &self,
        spec: &mut SidecarSpec,
        progress: &ProgressFn,
        rollback: &mut Rollback,
        steps: &mut Steps,
    ) -> Result<String, ProviderError> {
        let asked = spec.volume.as_ref().map(|_| {
            let mut labels = spec.labels.clone();
            labels.remove(LABEL_SPEC);
            container::volume_labels(&labels)
        });
        spec.volume_labels = asked.clone().unwrap_or_default();
        let requests = std::sync::atomic::AtomicU32::new(0);
        let volume = async {
            match (&spec.volume, &asked) {
                (Some(volume), Some(asked)) => {
                    requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    container::ensure_volume(&self.docker, volume, asked)
                        .await
                        .map(|made| made.then(|| volume.clone()))
                }
                _ => Ok(None),
            }
        };
        let (made, created) = tokio::join!(volume, self.create(spec, progress, &requests));
        steps.requests(requests.into_inner());
        if let Ok(Some(volume)) = &made {
            rollback.volume(volume);
        }
        if created.is_ok() {
            rollback.container(&spec.name);
        }
        made?;
        let id = created?;
        steps.mark("volume_and_create");
        Ok(id)
    }

    /// Starts a created or stopped sidecar and waits until its browser is ready: by exec (the
    /// relay waits for Chrome), or on the published gate, ready when the sidecar's output
    /// says so (attached before the start) and found by one inspect meanwhile.
    pub(super) async fn boot(
        &self,
        id: &str,
        name: &str,
        steps: &mut Steps,
    ) -> Result<(Option<GateAddr>, CdpAddress), ProviderError> {
        if self.settings.cdp_route == CdpRoute::Exec {
            steps.requests(1);
            container::start(&self.docker, id, name).await?;
            steps.mark("start");
            steps.requests(2);
            let cdp = match super::exec::connect(&self.docker, name, READY_DEADLINE).await {
                Ok(cdp) => cdp,
                Err(error) => {
                    let tail = container::log_tail(&self.docker, name, 20).await;
                    return Err(DockerError::NotReady(format!(
                        "{error}; the container's last output:\n{tail}"
                    ))
                    .into());
                }
            };
            steps.mark("exec_cdp_ready");
            return Ok((None, CdpAddress::Connected(cdp)));
        }
        steps.requests(1);
        let output = super::output::attach(&self.docker, id, name).await?;
        steps.mark("attach");
        steps.requests(1);
        container::start(&self.docker, id, name).await?;
        steps.mark("start");
        steps.requests(1);
        let gate = async {
            let info = container::inspect(&self.docker, id).await?.ok_or_else(|| {
                DockerError::NotReady(format!("container {name} vanished after start"))
            })?;
            container::gate_addr(&info).ok_or_else(|| {
                DockerError::NotReady(format!(
                    "container {name} has no gate port published on 127.0.0.1"
                ))
            })
        };
        // The inspect answers long before Chrome is up; the output stream keeps what the
        // sidecar writes meanwhile.
        let addr = match gate.await {
            Ok(addr) => addr,
            // A container that exited has no published port: its output says why.
            Err(error) => {
                return Err(match output.ready(name, EXIT_OUTPUT_DEADLINE).await {
                    Err(said @ DockerError::NotReady(_)) => said,
                    _ => error,
                }
                .into())
            }
        };
        // The event decides; the gate is asked now and then only as a safety net, should the
        // engine's stream lose the line.
        let asked = async {
            loop {
                tokio::time::sleep(GATE_SAFETY_NET).await;
                if container::gate_ready(&addr).await {
                    tracing::warn!(event = "sidecar_ready_by_gate", container = %name, "the sidecar's ready line did not arrive on the attach stream; its gate answered");
                    return;
                }
            }
        };
        tokio::select! {
            ready = output.ready(name, READY_DEADLINE) => ready?,
            () = asked => {}
        }
        steps.mark("chrome_ready");
        let ws_url = addr.ws_url();
        Ok((Some(addr), CdpAddress::WebSocket(ws_url)))
    }

    /// The endpoint of a sidecar registered as running, `None` when it no longer answers.
    async fn reach(&self, running: &Running) -> Option<CdpAddress> {
        match &running.addr {
            Some(addr) => container::gate_ready(addr)
                .await
                .then(|| CdpAddress::WebSocket(addr.ws_url())),
            None => {
                match super::exec::connect(
                    &self.docker,
                    &running.container,
                    EXEC_RECONNECT_DEADLINE,
                )
                .await
                {
                    Ok(cdp) => Some(CdpAddress::Connected(cdp)),
                    Err(error) => {
                        tracing::warn!(event = "cdp_exec_failed", container = %running.container, %error);
                        None
                    }
                }
            }
        }
    }

    /// Stops the channel's sidecar if it is ours. With `keep`, a running sidecar of this
    /// version is stopped and kept for the next start ([`Kept`]); every other one (asked to
    /// go, or one that stopped without being asked: killed, crashed) is removed.
    async fn stop_container(&self, channel: &ChannelId, keep: bool) -> Result<bool, DockerError> {
        let name = container_name(channel);
        self.kept.lock().expect("kept lock").remove(channel);
        let info = match container::inspect(&self.docker, &name).await? {
            Some(info) if self.is_ours(&info) => info,
            _ => return Ok(false),
        };
        if pause::is_paused(&info) {
            // A frozen process takes no signal: thawed first, then stopped like any other.
            pause::unpause(&self.docker, info.id.as_deref().unwrap_or(&name), &name).await?;
        }
        let spec = container::label(&info, LABEL_SPEC).map(str::to_string);
        let this_version = container::label(&info, LABEL_VERSION) == Some(VERSION);
        match (
            keep && this_version && container::is_running(&info),
            spec,
            info.id,
        ) {
            (true, Some(spec), Some(id)) => {
                let stopped = container::stop(&self.docker, &id, STOP_GRACE).await?;
                if stopped {
                    tracing::info!(event = "sidecar_kept", container = %name, "stopped, kept for the next start");
                    self.kept
                        .lock()
                        .expect("kept lock")
                        .insert(channel.clone(), Kept { id, spec });
                }
                Ok(stopped)
            }
            _ => container::stop_and_remove(&self.docker, &name, STOP_GRACE).await,
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
            let info = container::inspect(&self.docker, &name).await?;
            let Some(info) = info.filter(|info| {
                self.is_ours(info)
                    && container::label(info, LABEL_VERSION) == Some(VERSION)
                    && container::is_running(info)
                    && !pause::is_paused(info)
            }) else {
                return Ok(None);
            };
            let spec = container::label(&info, LABEL_SPEC).map(str::to_string);
            let Some(id) = info.id else { return Ok(None) };
            pause::pause(&self.docker, &id, &name).await?;
            Ok::<_, DockerError>(Some((id, spec)))
        };
        match paused.await {
            Ok(Some((id, spec))) => {
                tracing::info!(event = "sidecar_paused", channel_id = %channel, container = %name, window_secs = self.settings.idle_pause.as_secs(), "frozen until the next start or the end of the pause window");
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
        if !pause::unpause(&self.docker, &paused.id, &paused.container).await? {
            return Err(DockerError::NotReady(format!(
                "the paused container {} is gone",
                paused.container
            )));
        }
        steps.mark("unpause");
        let address = self
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
                docker: self.docker.clone(),
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
            if let Some(address) = self.reach(&running).await {
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
            container::remove_force(&self.docker, &running.container)
                .await
                .map_err(ProviderError::from)?;
            steps.requests(1);
            // Asked the gate (or the exec) of the sidecar it had, and removed that one.
            steps.mark("lost_sidecar_removed");
        }
        self.images.ensure(progress.clone()).await?;
        steps.mark("image");
        let name = container_name(channel);
        let extensions = check_extensions(&self.settings.extensions)?;
        progress("starting_container", "Starting the browser container");
        let mut rollback = Rollback::new(self.docker.clone());
        match self
            .launch(channel, extensions, &progress, &mut rollback, &mut steps)
            .await
        {
            Ok((addr, address)) => {
                rollback.disarm();
                tracing::info!(event = "sidecar_start_steps", channel_id = %channel, steps = ?steps.summary(), engine_requests = steps.request_count(), reused = steps.was_reused(), "milliseconds per step");
                tracing::info!(event = "sidecar_ready", channel_id = %channel, container = %name, port = ?addr.as_ref().map(|a| a.port), route = ?self.settings.cdp_route);
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
        !self.settings.idle_pause.is_zero()
    }

    async fn idle_browser(&self, channel: &ChannelId) -> Result<Stopped, ProviderError> {
        if self.pauses_when_idle() && self.pause_running(channel).await {
            return Ok(Stopped::Stopped);
        }
        self.halt(channel, true).await
    }

    fn paused_too_long(&self) -> Vec<ChannelId> {
        self.paused.older_than(self.settings.idle_pause)
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
            container::remove_volume(&self.docker, &volume, &self.labels(channel)).await?;
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
            tokio::join!(futures_util::future::join_all(stops), self.remove_spare());
        for result in results {
            if let Err(error) = result {
                tracing::warn!(event = "sidecar_shutdown_failed", %error);
            }
        }
    }
}

/// Every configured extension directory, absolute, checked to be a readable directory with a
/// `manifest.json`; the error names the directory.
pub(super) fn check_extensions(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, DockerError> {
    dirs.iter()
        .enumerate()
        .map(|(i, dir)| check_extension(i, dir))
        .collect()
}

fn check_extension(index: usize, dir: &Path) -> Result<PathBuf, DockerError> {
    let fail = |what: String| {
        DockerError::Invalid(format!(
            "extension directory {} (browser.extensions[{index}]) {what}; fix or remove it in the config",
            dir.display()
        ))
    };
    let absolute = std::fs::canonicalize(dir).map_err(|e| fail(format!("cannot be read: {e}")))?;
    std::fs::read_dir(&absolute).map_err(|e| fail(format!("cannot be listed: {e}")))?;
    if !absolute.join("manifest.json").is_file() {
        return Err(fail("has no manifest.json".to_string()));
    }
    Ok(absolute)
}

/// A free 127.0.0.1 port for a host-network sidecar's gate.
fn free_loopback_port() -> Result<u16, DockerError> {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|e| DockerError::Invalid(format!("cannot find a free port on 127.0.0.1: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_dirs_are_checked_and_named_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good");
        std::fs::create_dir(&good).unwrap();
        std::fs::write(good.join("manifest.json"), "{}").unwrap();
        let bare = dir.path().join("bare");
        std::fs::create_dir(&bare).unwrap();
        let missing = dir.path().join("missing");
        assert_eq!(
            check_extensions(std::slice::from_ref(&good)).unwrap(),
            vec![std::fs::canonicalize(&good).unwrap()]
        );
        let error = check_extensions(&[good.clone(), missing.clone()])
            .unwrap_err()
            .to_string();
        assert!(error.contains(&missing.display().to_string()), "{error}");
        assert!(error.contains("browser.extensions[1]"), "{error}");
        let error = check_extensions(std::slice::from_ref(&bare))
            .unwrap_err()
            .to_string();
        assert!(error.contains("manifest.json"), "{error}");
    }
}
