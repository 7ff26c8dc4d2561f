//! A real `porthole serve` process in a private data dir, stopped (SIGTERM) on drop.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

use crate::action::Caller;
use crate::TempDir;

/// Options for a test daemon.
#[derive(Debug, Clone)]
pub struct DaemonOptions {
    /// Extra config merged into the config file (JSON object).
    pub config: Value,
    pub idle_timeout_secs: u64,
    pub mode: &'static str,
    /// `RUST_LOG` of the daemon.
    pub rust_log: &'static str,
    /// Extra environment variables of the daemon process.
    pub env: Vec<(String, String)>,
    /// Local mode: also open a DevTools TCP port on the channel's Chromium (beside the pipe
    /// the daemon uses), so a test's [`crate::devtools_port::Probe`] can look inside. Porthole itself
    /// opens none; tests of that turn this off.
    pub probe_port: bool,
    /// Leave `server.agent_socket` to the daemon's default (under `$XDG_RUNTIME_DIR`, or the
    /// data dir); otherwise each daemon's socket is `<data_dir>/run/agents.sock`.
    pub default_agent_socket: bool,
}

impl Default for DaemonOptions {
    fn default() -> Self {
        Self {
            config: serde_json::json!({}),
            idle_timeout_secs: 600,
            mode: "local",
            rust_log: "porthole=debug,info",
            env: Vec::new(),
            probe_port: true,
            default_agent_socket: false,
        }
    }
}

/// A running daemon.
pub struct TestDaemon {
    pub child: Option<Child>,
    pub base: String,
    pub addr: String,
    pub token: String,
    pub data: TempDir,
    pub log_path: PathBuf,
}

impl TestDaemon {
    pub async fn start() -> Self {
        Self::start_with(DaemonOptions::default()).await
    }

    pub async fn start_with(options: DaemonOptions) -> Self {
        let data = TempDir::new("daemon");
        Self::start_in(data, options).await
    }

    /// Starts a daemon on an existing data dir (to test restarts).
    pub async fn start_in(data: TempDir, options: DaemonOptions) -> Self {
        let config_path = data.path().join("config.json");
        // Each daemon's agent socket in its own data dir, so parallel tests never share one.
        let socket = data.path().join("run").join("agents.sock");
        let mut config = serde_json::json!({
            "server": {"agent_socket": socket},
            // A warm spare is a second Chrome booting beside every test daemon that has an
            // engine: only the tests (and benches) that ask for one get it.
            "browser": {"screen": "800,600", "chromium_args": ["--disable-gpu"], "warm_spare": false}
        });
        merge(&mut config, &options.config);
        if options.default_agent_socket {
            if let Some(server) = config["server"].as_object_mut() {
                server.remove("agent_socket");
            }
        }
        if options.probe_port && options.mode == "local" {
            if let Some(args) = config["browser"]["chromium_args"].as_array_mut() {
                args.push("--remote-debugging-port=0".into());
            }
        }
        std::fs::write(&config_path, config.to_string()).expect("write config");
        let log_path = data.path().join("stderr.log");
        let log = std::fs::File::create(&log_path).expect("log file");
        let mut child = crate::cli::porthole(&config_path, data.path())
            .args(["serve", "--listen", "127.0.0.1:0", "--mode", options.mode])
            .arg("--idle-timeout-secs")
            .arg(options.idle_timeout_secs.to_string())
            .env("RUST_LOG", options.rust_log)
            .envs(options.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .kill_on_drop(true)
            .spawn()
            .expect("spawn porthole");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.trim().strip_prefix("http://") {
                    return Some(url.to_string());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| {
            panic!(
                "porthole did not print its URL; log:\n{}",
                std::fs::read_to_string(&log_path).unwrap_or_default()
            )
        });
        // Keep draining stdout so the daemon never blocks on it.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        // Not a terminal: the daemon prints the URL without its token (DESIGN.md §16), which
        // is in the data dir.
        let addr = url
            .split('/')
            .next()
            .expect("url with an address")
            .to_string();
        let token = std::fs::read_to_string(data.path().join("token"))
            .expect("the owner token in the data dir")
            .trim()
            .to_string();
        Self {
            child: Some(child),
            base: format!("http://{addr}"),
            addr,
            token,
            data,
            log_path,
        }
    }

    /// The daemon's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log_path).unwrap_or_default()
    }

    /// The log lines of the stable event `name` (logged as `event="name"`), in order: what a
    /// test synchronises on, rather than a message's free text.
    pub fn events_logged(&self, name: &str) -> Vec<String> {
        let field = format!("event=\"{name}\"");
        self.log()
            .lines()
            .filter(|line| line.contains(&field))
            .map(str::to_string)
            .collect()
    }

    /// Whether the daemon logged the event `name` (see [`TestDaemon::events_logged`]).
    pub fn logged(&self, name: &str) -> bool {
        !self.events_logged(name).is_empty()
    }

    /// Profile dir of a local-mode channel.
    pub fn profile_dir(&self, channel: &str) -> PathBuf {
        self.data.path().join("profiles").join(channel)
    }

    /// An HTTP request with the owner token.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        crate::pages::http_request(
            "GET",
            &self.addr,
            path,
            &[("Authorization", &format!("Bearer {}", self.token))],
            None,
        )
        .await
    }

    /// A channel's timeline (its newest 1000 events), and those of its events of `kind`.
    pub async fn timeline_of(&self, channel: &str, kind: &str) -> (Value, Vec<Value>) {
        let (_, timeline) = self
            .get(&format!(
                "/api/browser/channels/{channel}/timeline?limit=1000"
            ))
            .await;
        let events = timeline["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["kind"] == kind)
            .cloned()
            .collect();
        (timeline, events)
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        crate::pages::http_request(
            "POST",
            &self.addr,
            path,
            &[("Authorization", &format!("Bearer {}", self.token))],
            Some(body.to_string()),
        )
        .await
    }

    pub async fn delete(&self, path: &str) -> (u16, Value) {
        crate::pages::http_request(
            "DELETE",
            &self.addr,
            path,
            &[("Authorization", &format!("Bearer {}", self.token))],
            None,
        )
        .await
    }

    /// A caller of tools with `token` (an agent's, or the owner's with [`Caller::on`]).
    pub fn caller(&self, token: &str) -> Caller {
        Caller::new(&self.addr, self.agent_socket(), Some(token))
    }

    /// The owner calling tools on `channel`.
    pub fn owner_on(&self, channel: &str) -> Caller {
        self.caller(&self.token).on(channel)
    }

    /// One tool call with `token` on `POST /api/browser/action` (status 200 asserted); returns
    /// the tool's result. An agent's token needs no channel; the owner's goes through
    /// [`TestDaemon::owner_on`].
    pub async fn act(&self, token: &str, tool: &str, args: Value) -> Value {
        self.caller(token).act(tool, args).await
    }

    /// The agent Unix socket (as the harness configures it).
    pub fn agent_socket(&self) -> PathBuf {
        self.data.path().join("run").join("agents.sock")
    }

    /// Creates an agent with the owner token; returns `(agent_id, token)`.
    pub async fn add_agent(&self, channel: &str, name: &str, deny: &[&str]) -> (String, String) {
        let (status, body) = self
            .post(
                "/api/browser/agents",
                &serde_json::json!({"channel_id": channel, "name": name, "deny_tools": deny}),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        (
            body["agent_id"].as_str().expect("agent_id").to_string(),
            body["token"].as_str().expect("token").to_string(),
        )
    }

    /// A request on the loopback listener with `token` (none: no Authorization header).
    pub async fn request_as(
        &self,
        token: Option<&str>,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let auth = token.map(|t| format!("Bearer {t}"));
        let headers = auth_header(auth.as_deref());
        crate::pages::http_request(
            method,
            &self.addr,
            path,
            &headers,
            body.map(Value::to_string),
        )
        .await
    }

    /// A request on the agent Unix socket with `token` (none: no Authorization header).
    pub async fn socket_request(
        &self,
        token: Option<&str>,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let auth = token.map(|t| format!("Bearer {t}"));
        let headers = auth_header(auth.as_deref());
        crate::pages::unix_http_request(
            &self.agent_socket(),
            method,
            path,
            &headers,
            body.map(Value::to_string),
        )
        .await
    }

    /// Sends SIGTERM and waits for a clean exit; returns the data dir for a restart.
    pub async fn stop(mut self) -> TempDir {
        self.terminate().await;
        std::mem::replace(&mut self.data, TempDir(PathBuf::new()))
    }

    async fn terminate(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Some(pid) = child.id() {
                unsafe_free_kill(pid, "-TERM");
            }
            let exited = tokio::time::timeout(Duration::from_secs(20), child.wait()).await;
            assert!(
                exited.is_ok(),
                "porthole did not exit within 20 s of SIGTERM"
            );
        }
    }

    /// Kills the daemon with SIGKILL (no chance to clean up).
    pub async fn kill_hard(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill().await;
        }
    }
}

impl Drop for TestDaemon {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = self.log();
            let tail: Vec<&str> = log.lines().rev().take(60).collect();
            eprintln!("--- porthole log (last 60 lines) ---");
            for line in tail.iter().rev() {
                eprintln!("{line}");
            }
        }
        if let Some(child) = &self.child {
            if let Some(pid) = child.id() {
                unsafe_free_kill(pid, "-TERM");
            }
        }
    }
}

/// `[("Authorization", auth)]`, or nothing.
fn auth_header(auth: Option<&str>) -> Vec<(&'static str, &str)> {
    auth.map(|a| vec![("Authorization", a)]).unwrap_or_default()
}

/// Sends a signal with the `kill` command (keeps the harness free of unsafe code).
pub fn unsafe_free_kill(pid: u32, signal: &str) {
    let _ = std::process::Command::new("kill")
        .arg(signal)
        .arg(pid.to_string())
        .status();
}

/// Sends a signal to the whole process group `pgid` with the `kill` command.
pub fn unsafe_free_kill_group(pgid: u32, signal: &str) {
    let _ = std::process::Command::new("kill")
        .args([signal, "--", &format!("-{pgid}")])
        .status();
}

fn merge(base: &mut Value, extra: &Value) {
    match (base, extra) {
        (Value::Object(base), Value::Object(extra)) => {
            for (key, value) in extra {
                merge(base.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (base, extra) => *base = extra.clone(),
    }
}
