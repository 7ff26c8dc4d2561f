//! Local mode: headless Chromium launched by the daemon as a child process, one per channel,
//! with its profile under `<data_dir>/profiles/<channel>`.
//!
//! Each browser runs in its own process group and dies with the daemon (parent-death signal),
//! so neither a graceful exit nor a `kill -9` of the daemon leaves Chromium behind; a stale
//! profile lock from an earlier crash is cleared before launch.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

use super::{BrowserProvider, Endpoint, ProgressFn, ProviderError, Removed, Stopped};
use crate::cdp::CdpConnection;
use crate::channel_id::ChannelId;
use crate::mode::Mode;

/// How long Chromium may take to open its DevTools port.
const LAUNCH_DEADLINE: Duration = Duration::from_secs(30);
/// How long a clean shutdown (cookies flushed) may take before the group is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Flags every Porthole Chromium gets on this closed network (DESIGN.md §4, §10).
pub const BASE_FLAGS: &[&str] = &[
    "--headless=new",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-sync",
    "--disable-quic",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--disable-extensions",
    "--password-store=basic",
    "--use-mock-keychain",
];

/// Settings of the local provider.
#[derive(Debug, Clone)]
pub struct LocalSettings {
    /// Chromium binary; searched on PATH when `None`.
    pub chromium_path: Option<PathBuf>,
    /// Directory holding one profile directory per channel.
    pub profiles_dir: PathBuf,
    /// Keep profiles across restarts; off → a throwaway profile per start.
    pub persist_profile: bool,
    /// Initial window size.
    pub screen: (u32, u32),
    /// Extra flags appended after the base flags.
    pub extra_args: Vec<String>,
}

struct Running {
    child: Child,
    ws_url: String,
    profile: PathBuf,
    throwaway: bool,
}

/// Launches and stops Chromium child processes.
pub struct LocalProvider {
    settings: LocalSettings,
    /// Short lock, never held across an await.
    running: Mutex<HashMap<ChannelId, Running>>,
}

impl LocalProvider {
    pub fn new(settings: LocalSettings) -> Self {
        Self {
            settings,
            running: Mutex::new(HashMap::new()),
        }
    }

    /// The persistent profile directory of a channel.
    pub fn profile_dir(&self, channel: &ChannelId) -> PathBuf {
        self.settings.profiles_dir.join(channel.as_str())
    }

    fn chromium(&self) -> Result<PathBuf, ProviderError> {
        if let Some(path) = &self.settings.chromium_path {
            return if path.is_file() {
                Ok(path.clone())
            } else {
                Err(ProviderError::Unavailable(format!(
                    "Chromium not found at {} (browser.chromium_path); install it with `apt-get install chromium` or fix the path",
                    path.display()
                )))
            };
        }
        find_chromium().ok_or_else(|| {
            ProviderError::Unavailable(
                "Chromium is not installed: install it (`apt-get install chromium` on Debian) or set browser.chromium_path".to_string(),
            )
        })
    }

    fn running_endpoint(&self, channel: &ChannelId) -> Option<String> {
        let mut running = self.running.lock().expect("local registry lock");
        let alive = match running.get_mut(channel) {
            Some(entry) => matches!(entry.child.try_wait(), Ok(None)),
            None => return None,
        };
        if alive {
            return running.get(channel).map(|entry| entry.ws_url.clone());
        }
        if let Some(dead) = running.remove(channel) {
            kill_group(&dead.child);
            if dead.throwaway {
                let _ = std::fs::remove_dir_all(&dead.profile);
            }
        }
        None
    }

    async fn launch(&self, channel: &ChannelId) -> Result<Running, ProviderError> {
        let chromium = self.chromium()?;
        let (profile, throwaway) = if self.settings.persist_profile {
            (self.profile_dir(channel), false)
        } else {
            let name = format!("{}-{:08x}", channel, rand::random::<u32>());
            (
                self.settings.profiles_dir.join(".throwaway").join(name),
                true,
            )
        };
        std::fs::create_dir_all(&profile).map_err(|e| {
            ProviderError::Failed(format!(
                "cannot create profile directory {}: {e}",
                profile.display()
            ))
        })?;
        clear_stale_lock(&profile);

        let (width, height) = self.settings.screen;
        let mut command = Command::new(&chromium);
        command
            .args(BASE_FLAGS)
            .arg("--remote-debugging-address=127.0.0.1")
            .arg("--remote-debugging-port=0")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={width},{height}"))
            .args(&self.settings.extra_args);
        if nix::unistd::geteuid().is_root() {
            command.arg("--no-sandbox");
        }
        command
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        die_with_parent(&mut command);
        let mut child = command.spawn().map_err(|e| {
            ProviderError::Unavailable(format!("cannot start {}: {e}", chromium.display()))
        })?;
        tracing::info!(event = "local_browser_launched", channel_id = %channel, pid = child.id(), profile = %profile.display());

        let stderr = child.stderr.take().expect("stderr is piped");
        let (found, url) = oneshot::channel();
        let tail = Arc::new(Mutex::new(Vec::<String>::new()));
        tokio::spawn(watch_stderr(
            BufReader::new(stderr),
            found,
            tail.clone(),
            channel.clone(),
        ));
        let failure = |reason: String| {
            let tail = tail.lock().expect("stderr tail lock").join("\n");
            ProviderError::Failed(format!(
                "Chromium did not start: {reason}{}",
                if tail.is_empty() {
                    String::new()
                } else {
                    format!("; its last output:\n{tail}")
                }
            ))
        };
        match tokio::time::timeout(LAUNCH_DEADLINE, url).await {
            Ok(Ok(ws_url)) => Ok(Running {
                child,
                ws_url,
                profile,
                throwaway,
            }),
            Ok(Err(_)) => {
                let status = child.wait().await.ok();
                kill_group(&child);
                Err(failure(format!(
                    "it exited ({})",
                    status.map(|s| s.to_string()).unwrap_or_default()
                )))
            }
            Err(_) => {
                kill_group(&child);
                Err(failure(format!(
                    "no DevTools endpoint within {LAUNCH_DEADLINE:?}"
                )))
            }
        }
    }
}

#[async_trait]
impl BrowserProvider for LocalProvider {
    fn mode(&self) -> Mode {
        Mode::Local
    }

    async fn ensure_browser(
        &self,
        channel: &ChannelId,
        progress: ProgressFn,
    ) -> Result<Endpoint, ProviderError> {
        if let Some(ws_url) = self.running_endpoint(channel) {
            return Ok(Endpoint {
                ws_url,
                fresh: false,
            });
        }
        progress("launching", "Starting Chromium");
        let running = self.launch(channel).await?;
        let ws_url = running.ws_url.clone();
        let previous = self
            .running
            .lock()
            .expect("local registry lock")
            .insert(channel.clone(), running);
        if let Some(previous) = previous {
            kill_group(&previous.child);
        }
        Ok(Endpoint {
            ws_url,
            fresh: true,
        })
    }

    async fn stop_browser(&self, channel: &ChannelId) -> Result<Stopped, ProviderError> {
        let entry = self
            .running
            .lock()
            .expect("local registry lock")
            .remove(channel);
        let Some(mut entry) = entry else {
            return Ok(Stopped::NotRunning);
        };
        stop_child(&mut entry.child, &entry.ws_url).await;
        if entry.throwaway {
            let _ = std::fs::remove_dir_all(&entry.profile);
        }
        tracing::info!(event = "local_browser_stopped", channel_id = %channel);
        Ok(Stopped::Stopped)
    }

    async fn remove_profile(&self, channel: &ChannelId) -> Result<Removed, ProviderError> {
        self.stop_browser(channel).await?;
        let dir = self.profile_dir(channel);
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => Ok(Removed::Removed),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Removed::NotFound),
            Err(e) => Err(ProviderError::Failed(format!(
                "cannot delete profile {}: {e}",
                dir.display()
            ))),
        }
    }

    async fn shutdown(&self) {
        let channels: Vec<ChannelId> = self
            .running
            .lock()
            .expect("local registry lock")
            .keys()
            .cloned()
            .collect();
        let stops = channels.iter().map(|channel| self.stop_browser(channel));
        futures_util::future::join_all(stops).await;
    }
}

/// Reads Chromium's stderr for the DevTools URL, keeps a short tail for error messages, and
/// keeps draining so Chromium never blocks on a full pipe.
async fn watch_stderr(
    mut stderr: BufReader<tokio::process::ChildStderr>,
    found: oneshot::Sender<String>,
    tail: Arc<Mutex<Vec<String>>>,
    channel: ChannelId,
) {
    let mut found = Some(found);
    let mut line = String::new();
    loop {
        line.clear();
        match stderr.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = line.trim_end();
        if let Some(url) = text.strip_prefix("DevTools listening on ") {
            if let Some(found) = found.take() {
                let _ = found.send(url.trim().to_string());
            }
            continue;
        }
        tracing::trace!(event = "chromium_stderr", channel_id = %channel, line = text);
        let mut tail = tail.lock().expect("stderr tail lock");
        if tail.len() == 12 {
            tail.remove(0);
        }
        tail.push(text.chars().take(400).collect());
    }
}

/// Shuts Chromium down cleanly so the profile (cookies) is flushed to disk — `Browser.close`
/// over CDP, then SIGTERM — and finally kills whatever is left of its process group.
async fn stop_child(child: &mut Child, ws_url: &str) {
    let closed = async {
        let cdp = CdpConnection::connect(ws_url, Duration::from_secs(2))
            .await
            .ok()?;
        cdp.fire("Browser.close", serde_json::json!({}), None);
        tokio::time::timeout(STOP_GRACE, child.wait()).await.ok()
    }
    .await
    .is_some();
    if !closed {
        if let Some(pid) = child.id() {
            let _ = nix::sys::signal::kill(Pid::from_raw(pid as i32), Signal::SIGTERM);
            if tokio::time::timeout(STOP_GRACE, child.wait())
                .await
                .is_err()
            {
                tracing::warn!(
                    event = "local_browser_kill",
                    pid,
                    "Chromium did not exit on Browser.close or SIGTERM; killing it"
                );
            }
        }
    }
    kill_group(child);
    let _ = child.wait().await;
}

/// Kills the child's whole process group (renderers, GPU and zygote processes included).
fn kill_group(child: &Child) {
    if let Some(pid) = child.id() {
        let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
    }
}

/// Makes the kernel kill Chromium when the daemon dies, however it dies.
fn die_with_parent(command: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec and only calls prctl, which is
    // async-signal-safe; it touches no memory of the parent.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from)
        });
    }
}

/// Removes Chromium's `Singleton*` files left by a browser that no longer runs, and kills a
/// leftover Chromium that still holds this profile (an orphan of a crashed daemon).
fn clear_stale_lock(profile: &Path) {
    let lock = profile.join("SingletonLock");
    if let Ok(target) = std::fs::read_link(&lock) {
        let pid = target
            .to_string_lossy()
            .rsplit('-')
            .next()
            .and_then(|pid| pid.parse::<i32>().ok());
        if let Some(pid) = pid {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let needle = format!("--user-data-dir={}", profile.display());
            if String::from_utf8_lossy(&cmdline).contains(&needle) {
                tracing::warn!(
                    event = "local_browser_orphan_killed",
                    pid,
                    profile = %profile.display()
                );
                let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
    }
    for name in ["SingletonLock", "SingletonSocket", "SingletonCookie"] {
        let _ = std::fs::remove_file(profile.join(name));
    }
}

/// Finds a Chromium-family binary on PATH.
pub fn find_chromium() -> Option<PathBuf> {
    let names = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ];
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}
