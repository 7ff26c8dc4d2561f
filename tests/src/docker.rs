//! Docker-mode test support: the `docker` CLI, a cleanup guard that removes everything a test
//! labelled `porthole.test=<tag>` (even when the test fails), the sidecar image made once per
//! test process, and a CDP probe through a sidecar's gate.

use std::time::Duration;

use porthole::cdp::CdpConnection;
use serde_json::{json, Value};

use crate::daemon::DaemonOptions;
use crate::devtools_port::Probe;
use crate::TempDir;

/// The image the docker tests run (the daemon's default).
pub const IMAGE: &str = "porthole-chrome:latest";

/// Runs `docker <args>`; returns (success, stdout).
pub fn docker(args: &[&str]) -> (bool, String) {
    let output = std::process::Command::new("docker")
        .args(args)
        .output()
        .expect("the docker CLI runs (scripts/setup/docker.sh installs it)");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).trim().to_string(),
    )
}

/// The sidecar container of `channel` (the daemon's `porthole-chrome-<channel>`).
pub fn container(channel: &str) -> String {
    format!("porthole-chrome-{channel}")
}

/// What a container wrote on stderr (the sidecar's `[sidecar] …` lines go there).
pub fn stderr_log(name: &str) -> String {
    let output = std::process::Command::new("docker")
        .args(["logs", name])
        .output()
        .expect("the docker CLI runs (scripts/setup/docker.sh installs it)");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `docker inspect` of a container, `None` when there is none.
pub fn inspect_container(name: &str) -> Option<Value> {
    let (ok, out) = docker(&["container", "inspect", name]);
    if !ok {
        return None;
    }
    let value: Value = serde_json::from_str(&out).ok()?;
    value.get(0).cloned()
}

pub fn volume_exists(name: &str) -> bool {
    docker(&["volume", "inspect", name]).0
}

/// Names of the containers (any state) labelled `porthole.test=<tag>`.
pub fn labelled_containers(tag: &str) -> Vec<String> {
    let filter = format!("label=porthole.test={tag}");
    let (_, out) = docker(&["ps", "-a", "--filter", &filter, "--format", "{{.Names}}"]);
    out.lines().map(str::to_string).collect()
}

/// A unique tag and channel prefix for one test.
pub fn unique(prefix: &str) -> String {
    format!("{prefix}-{:08x}", crate::rand_u32())
}

/// Removes every container, volume and image labelled `porthole.test=<tag>`, and the extra
/// containers named in `names`, when dropped.
pub struct DockerCleanup {
    pub tag: String,
    pub names: Vec<String>,
}

impl DockerCleanup {
    pub fn new(tag: &str) -> Self {
        Self {
            tag: tag.to_string(),
            names: Vec::new(),
        }
    }
}

impl Drop for DockerCleanup {
    fn drop(&mut self) {
        let filter = format!("label=porthole.test={}", self.tag);
        let mut containers = labelled_containers(&self.tag);
        containers.extend(self.names.iter().cloned());
        for name in containers {
            docker(&["rm", "-f", "-v", &name]);
        }
        let (_, volumes) = docker(&["volume", "ls", "-q", "--filter", &filter]);
        for volume in volumes.lines() {
            docker(&["volume", "rm", "-f", volume]);
        }
        let (_, images) = docker(&["images", "-q", "--filter", &filter]);
        for image in images.lines() {
            docker(&["rmi", "-f", image]);
        }
    }
}

static IMAGE_READY: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();

/// Makes sure the sidecar image under test ([`image_under_test`]) exists before daemons
/// start, once per test process, so parallel tests never race to build it (`porthole
/// docker-build --if-needed`).
pub async fn ensure_image() {
    IMAGE_READY
        .get_or_init(|| async {
            // Always asked: `--if-needed` is quick when the image is current, and rebuilds one
            // made from other sidecar sources (its porthole.source label differs).
            let dir = TempDir::new("image");
            let config = dir.path().join("config.json");
            let browser = json!({"chrome_image": image_under_test()});
            std::fs::write(&config, json!({ "browser": browser }).to_string())
                .expect("write config");
            let status = crate::cli::porthole(&config, dir.path())
                .args(["docker-build", "--if-needed"])
                .status()
                .await
                .expect("run porthole docker-build");
            assert!(status.success(), "porthole docker-build failed");
        })
        .await;
}

/// The sidecar image the docker tests run: `PORTHOLE_TEST_IMAGE` (e.g. one built from this
/// tree while `IMAGE` is an older build) or [`IMAGE`].
pub fn image_under_test() -> String {
    std::env::var("PORTHOLE_TEST_IMAGE").unwrap_or_else(|_| IMAGE.to_string())
}

/// Daemon options for docker mode, everything labelled with `tag`.
pub fn options(tag: &str, browser: Value) -> DaemonOptions {
    let mut browser = browser;
    browser["container_labels"] = json!({"porthole.test": tag});
    browser["image_pull"] = json!(false);
    if browser.get("chrome_image").is_none() && std::env::var_os("PORTHOLE_TEST_IMAGE").is_some() {
        browser["chrome_image"] = json!(image_under_test());
    }
    DaemonOptions {
        config: json!({"browser": browser}),
        mode: "docker",
        ..Default::default()
    }
}

/// A second CDP connection to a channel's browser, through its sidecar's gate with the
/// container's secret (read with `docker inspect`).
pub async fn probe(container: &str) -> Probe {
    let info = inspect_container(container).expect("the sidecar container exists");
    let ws = gate_url(&info).expect("the sidecar has a gate");
    let cdp = CdpConnection::connect(&ws, Duration::from_secs(10))
        .await
        .expect("probe connects through the gate");
    Probe { cdp }
}

/// `(port, secret)` of a sidecar's gate from its inspect data.
pub fn gate(info: &Value) -> Option<(u16, String)> {
    let env = info["Config"]["Env"].as_array()?;
    let var = |name: &str| {
        env.iter()
            .filter_map(Value::as_str)
            .find_map(|e| e.strip_prefix(name)?.strip_prefix('='))
            .map(str::to_string)
    };
    let secret = var("PORTHOLE_SECRET")?;
    let port = match var("PORTHOLE_LISTEN") {
        Some(listen) => listen.rsplit(':').next()?.parse().ok()?,
        None => info["NetworkSettings"]["Ports"]["9222/tcp"][0]["HostPort"]
            .as_str()?
            .parse()
            .ok()?,
    };
    Some((port, secret))
}

fn gate_url(info: &Value) -> Option<String> {
    let (port, secret) = gate(info)?;
    Some(format!("ws://127.0.0.1:{port}/{secret}/devtools/browser"))
}
