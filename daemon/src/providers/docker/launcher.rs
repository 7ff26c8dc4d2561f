//! Making and booting one sidecar under this daemon's settings: [`Launcher`] holds the engine,
//! the image manager and the settings, probes Chromium's sandbox once, writes a sidecar's spec
//! (and its hash), creates the container with its profile volume at once (replacing a stale
//! container of this daemon's, checking a vanished image again), starts it and waits for its
//! browser: ready when the sidecar says so on its attach stream ([`super::output`]), while the
//! gate's port is read by one inspect; no polling. It also reaches a sidecar that already runs
//! or was just thawed. It keeps no registry of sidecars: which channel has which is the
//! provider's, the warm spare is `spare`'s.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bollard::Docker;

use super::container::{self, GateAddr, Rollback};
use super::engine::{is_conflict, DockerError};
use super::image::ImageManager;
use super::names::{random_token, LABEL_DAEMON, LABEL_VERSION, VERSION};
use super::sandbox::{self, Sandbox};
use super::settings::{CdpRoute, DockerSettings};
use super::spec::{Network, SidecarSpec, LABEL_SPEC};
use super::steps::Steps;
use crate::providers::{CdpAddress, ProgressFn, ProviderError};

/// How long a new sidecar may take until its browser answers.
const READY_DEADLINE: Duration = Duration::from_secs(45);
/// How long a start that found its container exited waits for the rest of its output.
const EXIT_OUTPUT_DEADLINE: Duration = Duration::from_secs(5);
/// How often a start asks the gate while it waits for the sidecar's ready event (a safety net:
/// the event normally comes first).
const GATE_SAFETY_NET: Duration = Duration::from_secs(1);
/// How long an exec into a sidecar that already runs may take to answer.
const EXEC_RECONNECT_DEADLINE: Duration = Duration::from_secs(10);

/// Makes, boots and reaches sidecars; shared by the provider and the warm spare.
pub(crate) struct Launcher {
    docker: Docker,
    images: Arc<ImageManager>,
    settings: DockerSettings,
    /// Whether Chromium's own sandbox works here: probed once, before the first sidecar.
    sandbox: tokio::sync::OnceCell<Sandbox>,
}

impl Launcher {
    /// A launcher on `docker` for sidecars of `images`' image under `settings`; the sandbox
    /// is probed on the first spec.
    pub(super) fn new(docker: Docker, images: Arc<ImageManager>, settings: DockerSettings) -> Self {
        Self {
            docker,
            images,
            settings,
            sandbox: tokio::sync::OnceCell::new(),
        }
    }

    /// The engine.
    pub(super) fn docker(&self) -> &Docker {
        &self.docker
    }

    /// The image manager.
    pub(super) fn images(&self) -> &Arc<ImageManager> {
        &self.images
    }

    /// The provider's settings.
    pub(super) fn settings(&self) -> &DockerSettings {
        &self.settings
    }

    /// The labels of every sidecar of this daemon, before its channel's (a spare has none).
    pub(super) fn sidecar_labels(&self) -> HashMap<String, String> {
        let mut labels = self.settings.extra_labels.clone();
        labels.insert(LABEL_DAEMON.to_string(), self.settings.daemon_id.clone());
        labels.insert(LABEL_VERSION.to_string(), VERSION.to_string());
        labels
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

    /// The inspected container carries this daemon's label.
    pub(super) fn is_ours(&self, info: &bollard::models::ContainerInspectResponse) -> bool {
        container::label(info, LABEL_DAEMON) == Some(self.settings.daemon_id.as_str())
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

    /// The endpoint of the running sidecar `container` (its published gate `addr`, else by
    /// exec), `None` when it no longer answers.
    pub(super) async fn reach(
        &self,
        container: &str,
        addr: &Option<GateAddr>,
    ) -> Option<CdpAddress> {
        match addr {
            Some(addr) => container::gate_ready(addr)
                .await
                .then(|| CdpAddress::WebSocket(addr.ws_url())),
            None => {
                match super::exec::connect(&self.docker, container, EXEC_RECONNECT_DEADLINE).await {
                    Ok(cdp) => Some(CdpAddress::Connected(cdp)),
                    Err(error) => {
                        tracing::warn!(event = "cdp_exec_failed", container = %container, %error);
                        None
                    }
                }
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
