//! Whether Chromium's own sandbox runs in this daemon's sidecars (DESIGN.md §13): [`probe`]
//! tries it once per daemon: a short-lived container of the sidecar image, with the sidecar's
//! own limits and the seccomp profile of [`super::seccomp`], runs Chromium without
//! `--no-sandbox` and must exit cleanly. Only then do sidecars get the profile and the sandbox;
//! otherwise they keep `--no-sandbox` and the log says why.

use std::collections::HashMap;
use std::time::Duration;

use bollard::query_parameters::{
    CreateContainerOptionsBuilder, LogsOptionsBuilder, WaitContainerOptionsBuilder,
};
use bollard::Docker;
use futures_util::StreamExt;

use super::container;
use super::spec::{Network, SidecarSpec};

/// How long the probe's Chromium may take to load a page and exit.
const PROBE_DEADLINE: Duration = Duration::from_secs(45);

/// Why the sandbox probe did not pass (logged; the sidecars then keep `--no-sandbox`).
#[derive(Debug, thiserror::Error)]
enum ProbeError {
    /// Chromium did not exit within [`PROBE_DEADLINE`].
    #[error("Chromium did not finish within {PROBE_DEADLINE:?}")]
    TimedOut,
    /// The engine refused the probe container (e.g. the seccomp profile).
    #[error("the engine refused the probe container: {0}")]
    Create(bollard::errors::Error),
    /// The engine created but would not start it.
    #[error("the engine would not start the probe container: {0}")]
    Start(bollard::errors::Error),
    /// Waiting for its exit failed.
    #[error("waiting for the probe failed: {0}")]
    Wait(bollard::errors::Error),
    /// The wait ended without an exit code.
    #[error("the engine ended the wait without an exit code")]
    NoExitCode,
    /// Chromium failed under the profile; `said` is its last telling line of output.
    #[error("Chromium exited with {code} under the profile: {said}")]
    Failed { code: i64, said: String },
}

/// Whether sidecars run Chromium's own sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sandbox {
    /// Under the sidecar's seccomp profile, without `--no-sandbox`.
    On,
    /// With `--no-sandbox`; `reason` says why (for the log).
    Off { reason: String },
}

impl Sandbox {
    pub fn is_on(&self) -> bool {
        matches!(self, Sandbox::On)
    }
}

/// Tries the sandbox once on `image` (see the module docs) and logs the outcome
/// (`sidecar_sandbox`). The probe container carries `labels` (the daemon's), so a crash
/// mid-probe leaves nothing the reaper would not remove.
pub async fn probe(docker: &Docker, image: &str, labels: HashMap<String, String>) -> Sandbox {
    let name = format!("porthole-sandbox-probe-{:08x}", rand_u32());
    let outcome = tokio::time::timeout(PROBE_DEADLINE, try_sandbox(docker, image, &name, labels))
        .await
        .unwrap_or(Err(ProbeError::TimedOut));
    let _ = container::remove_force(docker, &name).await;
    match outcome {
        Ok(()) => {
            tracing::info!(
                event = "sidecar_sandbox",
                sandbox = true,
                "Chromium in the sidecars runs its own sandbox (user namespaces under Porthole's seccomp profile)"
            );
            Sandbox::On
        }
        Err(reason) => {
            tracing::warn!(
                event = "sidecar_sandbox",
                sandbox = false,
                %reason,
                "Chromium in the sidecars runs with --no-sandbox: the engine refused Porthole's seccomp profile or Chromium's sandbox did not start under it; the container (no capabilities, no new privileges, read-only root, a pids limit, an unprivileged user) is the boundary"
            );
            Sandbox::Off {
                reason: reason.to_string(),
            }
        }
    }
}

async fn try_sandbox(
    docker: &Docker,
    image: &str,
    name: &str,
    labels: HashMap<String, String>,
) -> Result<(), ProbeError> {
    let spec = SidecarSpec {
        name: name.to_string(),
        image: image.to_string(),
        labels,
        secret: String::new(),
        network: Network::Bridge,
        host_port: None,
        volume: None,
        volume_labels: HashMap::new(),
        extensions: Vec::new(),
        screen: (800, 600),
        memory_mb: 0,
        cpus: 0.0,
        sandbox: true,
        // The probe needs no CDP: nothing published.
        publish: false,
    };
    let mut body = spec.create_body();
    body.entrypoint = Some(vec!["chromium".to_string()]);
    body.cmd = Some(
        [
            "--headless=new",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--dump-dom",
            "data:text/html,<title>porthole-sandbox-probe</title>",
        ]
        .map(String::from)
        .to_vec(),
    );
    body.exposed_ports = None;
    body.network_disabled = Some(true);
    if let Some(host) = body.host_config.as_mut() {
        host.port_bindings = None;
    }
    let options = CreateContainerOptionsBuilder::new().name(name).build();
    let created = docker
        .create_container(Some(options), body)
        .await
        .map_err(ProbeError::Create)?;
    docker
        .start_container(&created.id, None)
        .await
        .map_err(ProbeError::Start)?;
    let wait = WaitContainerOptionsBuilder::new().build();
    let code = match docker.wait_container(&created.id, Some(wait)).next().await {
        Some(Ok(response)) => response.status_code,
        Some(Err(bollard::errors::Error::DockerContainerWaitError { code, .. })) => code,
        Some(Err(e)) => return Err(ProbeError::Wait(e)),
        None => return Err(ProbeError::NoExitCode),
    };
    let logs = LogsOptionsBuilder::new()
        .stdout(true)
        .stderr(true)
        .tail("20")
        .build();
    let mut output = String::new();
    let mut stream = docker.logs(&created.id, Some(logs));
    while let Some(Ok(chunk)) = stream.next().await {
        output.push_str(&chunk.to_string());
    }
    if code == 0 && output.contains("porthole-sandbox-probe") {
        return Ok(());
    }
    let said = output
        .lines()
        .rfind(|l| !l.trim().is_empty() && !l.contains("dbus"))
        .unwrap_or("")
        .chars()
        .take(300)
        .collect::<String>();
    Err(ProbeError::Failed { code, said })
}

fn rand_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(std::process::id() as u64);
    hasher.finish() as u32
}
