//! The second, real Docker engine that stands in for a remote host (issue 13): started once
//! per test process by `scripts/setup/remote-dockerd.sh` (idempotent), reached over
//! `tcp://127.0.0.1:<port>` with mutual TLS. The `docker` CLI against it, a test's ground
//! there ([`RemoteTest`]: a tag, an optional delaying proxy, the cleanup of what it
//! labelled), the sidecar image built on it, daemon options that point docker mode at it,
//! and a CDP probe that goes the way the daemon does: `docker exec … cdp-pipe`.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use porthole::cdp::CdpConnection;
use serde_json::{json, Value};
use tokio::io::AsyncReadExt;

use crate::daemon::DaemonOptions;
use crate::delay_proxy::{self, DelayProxy, Link};
use crate::devtools_port::Probe;
use crate::TempDir;

/// Where the remote engine is and the TLS files to reach it.
#[derive(Debug, Clone)]
pub struct RemoteEngine {
    /// `tcp://127.0.0.1:<port>`.
    pub host: String,
    /// Holds `ca.pem`, `cert.pem`, `key.pem` (the client's).
    pub cert_dir: PathBuf,
}

impl RemoteEngine {
    /// The environment of a `docker` CLI talking to this engine.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("DOCKER_HOST".into(), self.host.clone()),
            ("DOCKER_TLS_VERIFY".into(), "1".into()),
            (
                "DOCKER_CERT_PATH".into(),
                self.cert_dir.display().to_string(),
            ),
        ]
    }

    /// `browser.docker` pointing at this engine.
    pub fn docker_config(&self) -> Value {
        json!({
            "host": self.host,
            "tls": {
                "ca": self.cert_dir.join("ca.pem"),
                "cert": self.cert_dir.join("cert.pem"),
                "key": self.cert_dir.join("key.pem"),
            }
        })
    }

    /// Runs `docker <args>` against this engine; returns (success, stdout).
    pub fn docker(&self, args: &[&str]) -> (bool, String) {
        let output = std::process::Command::new("docker")
            .args(args)
            .envs(self.env())
            .output()
            .expect("the docker CLI runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).trim().to_string(),
        )
    }

    /// `docker inspect` of a container on this engine, `None` when there is none.
    pub fn inspect_container(&self, name: &str) -> Option<Value> {
        let (ok, out) = self.docker(&["container", "inspect", name]);
        if !ok {
            return None;
        }
        serde_json::from_str::<Value>(&out).ok()?.get(0).cloned()
    }

    pub fn volume_exists(&self, name: &str) -> bool {
        self.docker(&["volume", "inspect", name]).0
    }

    /// A CDP connection to a container's browser through `docker exec … cdp-pipe` over the
    /// engine's TLS connection (the same path the daemon takes, with the CLI instead of bollard).
    pub async fn probe(&self, container: &str) -> Probe {
        let mut child = tokio::process::Command::new("docker")
            .args([
                "exec",
                "-i",
                container,
                "/usr/local/bin/porthole-sidecar",
                "cdp-pipe",
            ])
            .envs(self.env())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("docker exec runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let chunks =
            futures_util::stream::unfold((stdout, Some(child)), |(mut stdout, child)| async move {
                let mut buf = vec![0u8; 64 * 1024];
                match stdout.read(&mut buf).await {
                    Ok(0) | Err(_) => {
                        // The child is reaped with the stream (kill_on_drop).
                        drop(child);
                        None
                    }
                    Ok(n) => {
                        buf.truncate(n);
                        Some((Ok(bytes::Bytes::from(buf)), (stdout, child)))
                    }
                }
            });
        let cdp = CdpConnection::over_byte_stream(
            Box::pin(stdin),
            Box::pin(chunks),
            &format!("docker-exec-probe://{container}"),
        );
        crate::eventually("the exec probe to answer", Duration::from_secs(30), || {
            let cdp = cdp.clone();
            async move { cdp.call("Browser.getVersion", json!({})).await.ok() }
        })
        .await;
        Probe { cdp }
    }
}

static ENGINE: tokio::sync::OnceCell<RemoteEngine> = tokio::sync::OnceCell::const_new();
static IMAGE_READY: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();

/// Starts (or finds) the second engine, once per test process.
pub async fn engine() -> RemoteEngine {
    ENGINE
        .get_or_init(|| async {
            let script = crate::workspace_root().join("scripts/setup/remote-dockerd.sh");
            let output = tokio::process::Command::new(&script)
                .arg("start")
                .output()
                .await
                .expect("run scripts/setup/remote-dockerd.sh");
            assert!(
                output.status.success(),
                "scripts/setup/remote-dockerd.sh start failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            let env = tokio::process::Command::new(&script)
                .arg("env")
                .output()
                .await
                .expect("run scripts/setup/remote-dockerd.sh env");
            let env = String::from_utf8_lossy(&env.stdout).to_string();
            let var = |name: &str| {
                env.lines()
                    .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
                    .map(str::to_string)
                    .unwrap_or_else(|| panic!("{name} missing from remote-dockerd.sh env: {env}"))
            };
            RemoteEngine {
                host: var("DOCKER_HOST"),
                cert_dir: PathBuf::from(var("DOCKER_CERT_PATH")),
            }
        })
        .await
        .clone()
}

/// Makes sure the sidecar image exists on the remote engine with `cdp-pipe` in it, once per
/// test process: built there by `porthole docker-build --if-needed` (rebuilt when it was made
/// from other sidecar sources).
pub async fn ensure_image(engine: &RemoteEngine) {
    IMAGE_READY
        .get_or_init(|| async {
            ensure_image_with(
                &crate::docker::image_under_test(),
                json!({"docker": engine.docker_config()}),
            )
            .await
        })
        .await;
}

/// Makes sure `image` is current on the engine `browser` points at (`porthole docker-build
/// --if-needed`: built when missing or made from other sidecar sources).
pub async fn ensure_image_with(image: &str, browser: Value) {
    let dir = TempDir::new("exec-image");
    let config = dir.path().join("config.json");
    let mut browser = browser;
    browser["image_pull"] = json!(false);
    browser["chrome_image"] = json!(image);
    std::fs::write(&config, json!({ "browser": browser }).to_string()).expect("write config");
    let status = crate::cli::porthole(&config, dir.path())
        .args(["docker-build", "--if-needed"])
        .status()
        .await
        .expect("run porthole docker-build");
    assert!(status.success(), "porthole docker-build of {image} failed");
}

/// Daemon options for docker mode on the remote engine, everything labelled with `tag`.
pub fn options(engine: &RemoteEngine, tag: &str, browser: Value) -> DaemonOptions {
    let mut options = crate::docker::options(tag, browser);
    options.config["browser"]["docker"] = engine.docker_config();
    options
}

/// One test's ground on the remote engine: the engine for the test's own `docker` CLI
/// (direct), the engine as the daemon is told to reach it (through [`DelayProxy`] when a
/// [`Link`] is asked for: keep this as long as the daemon runs), a unique tag, and the removal
/// of everything labelled with it when dropped (even when the test fails).
pub struct RemoteTest {
    pub engine: RemoteEngine,
    pub reach: RemoteEngine,
    pub proxy: Option<DelayProxy>,
    pub tag: String,
    _cleanup: RemoteCleanup,
}

impl RemoteTest {
    /// A test that starts sidecars: the image is made sure of first.
    pub async fn with_image(prefix: &str, link: Option<Link>) -> Self {
        let test = Self::new(prefix, link).await;
        ensure_image(&test.engine).await;
        test
    }

    /// A test that needs no sidecar image (TLS material, failing builds).
    pub async fn new(prefix: &str, link: Option<Link>) -> Self {
        let engine = engine().await;
        let proxy = match link {
            Some(link) => Some(DelayProxy::start(delay_proxy::tcp_addr(&engine.host), link).await),
            None => None,
        };
        let reach = match &proxy {
            Some(proxy) => delay_proxy::via(&engine, proxy),
            None => engine.clone(),
        };
        let tag = crate::docker::unique(prefix);
        Self {
            _cleanup: RemoteCleanup::new(&engine, &tag),
            engine,
            reach,
            proxy,
            tag,
        }
    }

    /// Daemon options for docker mode on the engine as reached, labelled with the tag.
    pub fn options(&self, browser: Value) -> DaemonOptions {
        options(&self.reach, &self.tag, browser)
    }
}

/// Removes every container and volume labelled `porthole.test=<tag>` on the remote engine
/// when dropped (even when the test fails).
struct RemoteCleanup {
    engine: RemoteEngine,
    tag: String,
}

impl RemoteCleanup {
    fn new(engine: &RemoteEngine, tag: &str) -> Self {
        Self {
            engine: engine.clone(),
            tag: tag.to_string(),
        }
    }
}

impl Drop for RemoteCleanup {
    fn drop(&mut self) {
        let filter = format!("label=porthole.test={}", self.tag);
        let (_, containers) = self.engine.docker(&["ps", "-aq", "--filter", &filter]);
        for id in containers.lines() {
            self.engine.docker(&["rm", "-f", "-v", id]);
        }
        let (_, volumes) = self
            .engine
            .docker(&["volume", "ls", "-q", "--filter", &filter]);
        for volume in volumes.lines() {
            self.engine.docker(&["volume", "rm", "-f", volume]);
        }
    }
}
