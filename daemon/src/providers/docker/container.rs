//! One sidecar container on the engine: the calls that create (from its [`SidecarSpec`]),
//! inspect, stop and remove it and its profile volume, where its gate listens, the gate's
//! one-shot readiness check, and the [`Rollback`] guard of a failed start. What the container
//! looks like is `spec`'s.

use std::collections::HashMap;
use std::time::Duration;

use bollard::models::{ContainerInspectResponse, VolumeCreateRequest};
use bollard::query_parameters::{
    CreateContainerOptionsBuilder, LogsOptionsBuilder, RemoveContainerOptionsBuilder,
    RemoveVolumeOptionsBuilder, StopContainerOptionsBuilder,
};
use bollard::Docker;
use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::engine::{is_conflict, is_not_found, DockerError};
use super::names::{random_token, LABEL_DAEMON};
use super::spec::GATE_PORT;
/// The spec `create` takes and its network setting, named here for the callers of `create`.
pub use super::spec::{Network, SidecarSpec};

/// Where a running sidecar's gate accepts the daemon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateAddr {
    pub port: u16,
    pub secret: String,
}

impl GateAddr {
    /// The browser-level CDP WebSocket through the gate.
    pub fn ws_url(&self) -> String {
        format!(
            "ws://127.0.0.1:{}/{}/devtools/browser",
            self.port, self.secret
        )
    }
}

/// Reads the gate's port and secret from an inspected container: the 127.0.0.1 binding of
/// the gate port (bridge) or `PORTHOLE_LISTEN` (host network).
pub fn gate_addr(info: &ContainerInspectResponse) -> Option<GateAddr> {
    let env = info.config.as_ref()?.env.as_ref()?;
    let var = |name: &str| {
        env.iter()
            .find_map(|entry| entry.strip_prefix(name)?.strip_prefix('='))
            .map(str::to_string)
    };
    let secret = var("PORTHOLE_SECRET")?;
    let host_network = info
        .host_config
        .as_ref()
        .and_then(|h| h.network_mode.as_deref())
        == Some("host");
    let port = if host_network {
        var("PORTHOLE_LISTEN")?.rsplit(':').next()?.parse().ok()?
    } else {
        let ports = info.network_settings.as_ref()?.ports.as_ref()?;
        ports
            .get(&format!("{GATE_PORT}/tcp"))?
            .as_ref()?
            .iter()
            .filter(|b| b.host_ip.as_deref() == Some("127.0.0.1"))
            .find_map(|b| b.host_port.as_deref()?.parse().ok())?
    };
    Some(GateAddr { port, secret })
}

/// True when the inspected container runs.
pub(crate) fn is_running(info: &ContainerInspectResponse) -> bool {
    info.state.as_ref().and_then(|s| s.running).unwrap_or(false)
}

/// The label value, if any.
pub fn label<'a>(info: &'a ContainerInspectResponse, key: &str) -> Option<&'a str> {
    info.config
        .as_ref()?
        .labels
        .as_ref()?
        .get(key)
        .map(String::as_str)
}

/// Inspects a container by name or id; `None` when there is none.
pub async fn inspect(
    docker: &Docker,
    name: &str,
) -> Result<Option<ContainerInspectResponse>, DockerError> {
    match docker.inspect_container(name, None).await {
        Ok(info) => Ok(Some(info)),
        Err(e) if is_not_found(&e) => Ok(None),
        Err(e) => Err(DockerError::engine(format!("inspect container {name}"), e)),
    }
}

/// Creates the container; returns its id.
pub async fn create(docker: &Docker, spec: &SidecarSpec) -> Result<String, DockerError> {
    let options = CreateContainerOptionsBuilder::new()
        .name(&spec.name)
        .build();
    let created = docker
        .create_container(Some(options), spec.create_body())
        .await
        .map_err(|e| {
            if is_not_found(&e) {
                DockerError::ImageMissing {
                    image: spec.image.clone(),
                    source: e,
                }
            } else {
                DockerError::engine(format!("create container {}", spec.name), e)
            }
        })?;
    Ok(created.id)
}

/// Starts a created container.
pub async fn start(docker: &Docker, id: &str, name: &str) -> Result<(), DockerError> {
    docker
        .start_container(id, None)
        .await
        .map_err(|e| DockerError::engine(format!("start container {name}"), e))
}

/// Stops a container (SIGTERM: the sidecar closes Chrome cleanly, cookies flushed; SIGKILL
/// after `grace`) and removes it. Returns false when there was no such container.
pub(crate) async fn stop_and_remove(
    docker: &Docker,
    name: &str,
    grace: Duration,
) -> Result<bool, DockerError> {
    match stop(docker, name, grace).await {
        Ok(false) => return Ok(false),
        Ok(true) => {}
        Err(e) => tracing::warn!(event = "container_stop_failed", container = name, error = %e),
    }
    remove_force(docker, name).await
}

/// Stops a container (SIGTERM: the sidecar closes Chrome cleanly, cookies flushed; SIGKILL
/// after `grace`) and keeps it. Returns false when there was no such container.
pub(crate) async fn stop(
    docker: &Docker,
    name: &str,
    grace: Duration,
) -> Result<bool, DockerError> {
    let options = StopContainerOptionsBuilder::new()
        .t(grace.as_secs() as i32)
        .build();
    match docker.stop_container(name, Some(options)).await {
        Ok(()) => Ok(true),
        Err(e) if is_not_found(&e) => Ok(false),
        // 304: already stopped.
        Err(bollard::errors::Error::DockerResponseServerError {
            status_code: 304, ..
        }) => Ok(true),
        Err(e) => Err(DockerError::engine(format!("stop container {name}"), e)),
    }
}

/// Removes a container at once, running or not. Returns false when there was none.
pub async fn remove_force(docker: &Docker, name: &str) -> Result<bool, DockerError> {
    let options = RemoveContainerOptionsBuilder::new().force(true).build();
    match docker.remove_container(name, Some(options)).await {
        Ok(()) => Ok(true),
        Err(e) if is_not_found(&e) => Ok(false),
        // Removal already in progress (e.g. a concurrent cleanup).
        Err(e) if is_conflict(&e) => Ok(true),
        Err(e) => Err(DockerError::engine(format!("remove container {name}"), e)),
    }
}

/// The last lines the container wrote, for error messages.
pub(crate) async fn log_tail(docker: &Docker, name: &str, lines: usize) -> String {
    let options = LogsOptionsBuilder::new()
        .stdout(true)
        .stderr(true)
        .tail(&lines.to_string())
        .build();
    let mut stream = docker.logs(name, Some(options));
    let mut text = String::new();
    while let Some(Ok(chunk)) = stream.next().await {
        text.push_str(&chunk.to_string());
    }
    text.trim_end().to_string()
}

/// Label a profile volume gets when a start creates it: a random value of that start's, so
/// the start can tell from the engine's answer whether it made the volume (and removes it
/// again if the start fails) or found it.
pub(crate) const LABEL_VOLUME_NONCE: &str = "porthole.volume-nonce";

/// The labels a start asks its profile volume to be created with: `labels` plus a fresh
/// [`LABEL_VOLUME_NONCE`].
pub(crate) fn volume_labels(labels: &HashMap<String, String>) -> HashMap<String, String> {
    let mut asked = labels.clone();
    asked.insert(LABEL_VOLUME_NONCE.to_string(), random_token(16));
    asked
}

/// Makes sure the profile volume `name` exists, in one Engine API call: creating a volume
/// that exists answers with that volume and its first labels (Docker 20.10 and later), so
/// [`LABEL_VOLUME_NONCE`] tells who made it. `asked` comes from [`volume_labels`]; the
/// container's create may run at the same time with the same labels (whichever makes the
/// volume gives it this start's nonce). Returns true when this start created it; a volume of
/// another Porthole daemon is refused.
pub(crate) async fn ensure_volume(
    docker: &Docker,
    name: &str,
    asked: &HashMap<String, String>,
) -> Result<bool, DockerError> {
    let volume = docker
        .create_volume(VolumeCreateRequest {
            name: Some(name.to_string()),
            labels: Some(asked.clone()),
            ..Default::default()
        })
        .await
        .map_err(|e| DockerError::engine(format!("create volume {name}"), e))?;
    check_volume_owner(name, &volume.labels, asked)?;
    Ok(volume.labels.get(LABEL_VOLUME_NONCE) == asked.get(LABEL_VOLUME_NONCE))
}

fn check_volume_owner(
    name: &str,
    found: &HashMap<String, String>,
    ours: &HashMap<String, String>,
) -> Result<(), DockerError> {
    match (found.get(LABEL_DAEMON), ours.get(LABEL_DAEMON)) {
        (Some(theirs), Some(ours)) if theirs != ours => Err(DockerError::Invalid(format!(
            "volume {name} belongs to another Porthole daemon ({LABEL_DAEMON}={theirs}); stop that daemon or use another channel id"
        ))),
        _ => Ok(()),
    }
}

/// Deletes the profile volume. Returns false when there was none.
pub(crate) async fn remove_volume(
    docker: &Docker,
    name: &str,
    labels: &HashMap<String, String>,
) -> Result<bool, DockerError> {
    match docker.inspect_volume(name).await {
        Ok(volume) => check_volume_owner(name, &volume.labels, labels)?,
        Err(e) if is_not_found(&e) => return Ok(false),
        Err(e) => return Err(DockerError::engine(format!("inspect volume {name}"), e)),
    }
    let options = RemoveVolumeOptionsBuilder::new().force(true).build();
    match docker.remove_volume(name, Some(options)).await {
        Ok(()) => Ok(true),
        Err(e) if is_not_found(&e) => Ok(false),
        Err(e) => Err(DockerError::engine(format!("remove volume {name}"), e)),
    }
}

/// Asks the gate `GET /<secret>/ready` once.
pub(crate) async fn gate_ready(addr: &GateAddr) -> bool {
    let probe = async {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", addr.port))
            .await
            .ok()?;
        let request = format!(
            "GET /{}/ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            addr.secret
        );
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut head = [0u8; 64];
        let mut read = 0;
        while read < 12 {
            let n = stream.read(&mut head[read..]).await.ok()?;
            if n == 0 {
                break;
            }
            read += n;
        }
        let text = String::from_utf8_lossy(&head[..read]).to_string();
        Some(text.split_whitespace().nth(1) == Some("200"))
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(2), probe).await,
        Ok(Some(true))
    )
}

/// Removes what a start created unless disarmed: on the error path call [`Rollback::run`];
/// if the start is cancelled instead (its future dropped), `Drop` spawns the same cleanup.
pub(crate) struct Rollback {
    docker: Docker,
    container: Option<String>,
    volume: Option<String>,
}

impl Rollback {
    pub fn new(docker: Docker) -> Self {
        Self {
            docker,
            container: None,
            volume: None,
        }
    }

    /// Records a container this start created.
    pub fn container(&mut self, name: &str) {
        self.container = Some(name.to_string());
    }

    /// Records a volume this start created.
    pub fn volume(&mut self, name: &str) {
        self.volume = Some(name.to_string());
    }

    /// The start succeeded: keep everything.
    pub(crate) fn disarm(mut self) {
        self.container = None;
        self.volume = None;
    }

    /// The start failed: remove what it created, now.
    pub async fn run(mut self) {
        let (container, volume) = (self.container.take(), self.volume.take());
        cleanup(self.docker.clone(), container, volume).await;
    }
}

impl Drop for Rollback {
    fn drop(&mut self) {
        let (container, volume) = (self.container.take(), self.volume.take());
        if container.is_none() && volume.is_none() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(cleanup(self.docker.clone(), container, volume));
        }
    }
}

async fn cleanup(docker: Docker, container: Option<String>, volume: Option<String>) {
    if let Some(name) = container {
        match remove_force(&docker, &name).await {
            Ok(_) => tracing::info!(event = "start_rolled_back", container = %name),
            Err(error) => tracing::warn!(event = "rollback_failed", container = %name, %error),
        }
    }
    if let Some(name) = volume {
        let options = RemoveVolumeOptionsBuilder::new().force(true).build();
        if let Err(error) = docker.remove_volume(&name, Some(options)).await {
            if !is_not_found(&error) {
                tracing::warn!(event = "rollback_failed", volume = %name, %error);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::spec::tests::spec;
    use super::*;

    #[test]
    fn host_network_listens_on_loopback_at_the_chosen_port() {
        let host = SidecarSpec {
            network: Network::Host,
            host_port: Some(41234),
            ..spec()
        };
        let body = host.create_body();
        assert!(body
            .env
            .clone()
            .unwrap()
            .contains(&"PORTHOLE_LISTEN=127.0.0.1:41234".to_string()));
        let config = body.host_config.unwrap();
        assert_eq!(config.network_mode.as_deref(), Some("host"));
        assert!(config.port_bindings.is_none());
        let info = ContainerInspectResponse {
            config: Some(bollard::models::ContainerConfig {
                env: body.env,
                ..Default::default()
            }),
            host_config: Some(config),
            ..Default::default()
        };
        assert_eq!(
            gate_addr(&info),
            Some(GateAddr {
                port: 41234,
                secret: "s3cret".into()
            })
        );
    }

    #[test]
    fn a_create_makes_a_missing_volume_with_the_starts_labels() {
        let asked = volume_labels(&HashMap::from([(LABEL_DAEMON.into(), "me".into())]));
        assert!(asked.contains_key(LABEL_VOLUME_NONCE));
        let body = SidecarSpec {
            volume_labels: asked.clone(),
            ..spec()
        }
        .create_body();
        let mounts = body.host_config.unwrap().mounts.unwrap();
        let options = mounts[0].volume_options.as_ref().unwrap();
        assert_eq!(options.labels.as_ref(), Some(&asked));
    }

    #[test]
    fn a_volume_of_another_daemon_is_refused() {
        let ours = HashMap::from([(LABEL_DAEMON.to_string(), "me".to_string())]);
        let theirs = HashMap::from([(LABEL_DAEMON.to_string(), "you".to_string())]);
        assert!(check_volume_owner("v", &theirs, &ours).is_err());
        assert!(check_volume_owner("v", &ours, &ours).is_ok());
        assert!(check_volume_owner("v", &HashMap::new(), &ours).is_ok());
    }
}
