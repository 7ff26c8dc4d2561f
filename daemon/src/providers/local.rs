//! Local mode: headless Chromium launched by the daemon as a child process, one per channel,
//! with its profile under `<data_dir>/profiles/<channel>`.
//!
//! Chromium speaks CDP over `--remote-debugging-pipe` (its fds 3 and 4), so it opens no TCP
//! port: no other local process can drive the channel's browser or read its cookies
//! (DESIGN.md §13). The provider hands the session the connection it opened on that pipe.
//!
//! Each browser runs in its own process group and dies with the daemon (parent-death signal),
//! so neither a graceful exit nor a `kill -9` of the daemon leaves Chromium behind; a stale
//! profile lock from an earlier crash is cleared before launch.
//!
//! Errors say in words what failed and what to do; the OS error behind one ("No such file or
//! directory (os error 2)") is kept as its cause, for the log only ([`ProviderError::detail`]).

use std::collections::HashMap;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

use super::{BrowserProvider, CdpAddress, Endpoint, ProgressFn, ProviderError, Removed, Stopped};
use crate::cdp::{CdpConnection, CdpError};
use crate::channel_id::ChannelId;
use crate::mode::Mode;

/// How long Chromium may take to answer its first CDP command on the pipe.
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
pub(crate) struct LocalSettings {
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
    /// The connection on Chromium's debugging pipe; the session gets clones of it.
    cdp: CdpConnection,
    profile: PathBuf,
    throwaway: bool,
}

/// Launches and stops Chromium child processes.
pub(crate) struct LocalProvider {
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
                Err(ProviderError::unavailable(format!(
                    "Chromium not found at {} (browser.chromium_path); install it with `apt-get install chromium` or fix the path",
                    path.display()
                )))
            };
        }
        find_chromium().ok_or_else(|| {
            ProviderError::unavailable(
                "Chromium is not installed: install it (`apt-get install chromium` on Debian) or set browser.chromium_path".to_string(),
            )
        })
    }

    fn running_connection(&self, channel: &ChannelId) -> Option<CdpConnection> {
        let mut running = self.running.lock().expect("local registry lock");
        let alive = match running.get_mut(channel) {
            // A browser whose pipe is gone cannot be reached again: it is replaced.
            Some(entry) => matches!(entry.child.try_wait(), Ok(None)) && !entry.cdp.is_lost(),
            None => return None,
        };
        if alive {
            return running.get(channel).map(|entry| entry.cdp.clone());
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
        let (profile, throwaway) = self.profile_for(channel);
        create_profile(&profile)?;
        clear_stale_lock(&profile);
        let pipes = CdpPipes::new().map_err(|e| {
            ProviderError::failed(
                "cannot open the pipes to talk to Chromium; the daemon may have run out of open files",
            )
            .caused_by(e)
        })?;
        self.warn_of_a_devtools_port(channel);
        let mut command = self.command(&chromium, &profile);
        prepare_child(&mut command, &pipes);
        let mut child = command.spawn().map_err(|e| {
            ProviderError::unavailable(format!(
                "cannot start Chromium at {} ({}); install Chromium (`apt-get install chromium`) or fix browser.chromium_path",
                chromium.display(),
                super::io_reason(&e)
            ))
            .caused_by(e)
        })?;
        let pid = child.id().unwrap_or_default();
        tracing::info!(event = "local_browser_launched", channel_id = %channel, pid, profile = %profile.display());
        let cdp = match pipes.connect(pid) {
            Ok(cdp) => cdp,
            Err(e) => {
                kill_group(&child);
                let _ = child.wait().await;
                return Err(
                    ProviderError::failed("cannot use Chromium's debugging pipe").caused_by(e),
                );
            }
        };
        first_answer(&mut child, &cdp, channel).await?;
        Ok(Running {
            child,
            cdp,
            profile,
            throwaway,
        })
    }

    /// The channel's profile directory, and whether it is a throwaway one (profiles not kept).
    fn profile_for(&self, channel: &ChannelId) -> (PathBuf, bool) {
        if self.settings.persist_profile {
            (self.profile_dir(channel), false)
        } else {
            let name = format!("{}-{:08x}", channel, rand::random::<u32>());
            (
                self.settings.profiles_dir.join(".throwaway").join(name),
                true,
            )
        }
    }

    fn warn_of_a_devtools_port(&self, channel: &ChannelId) {
        if self
            .settings
            .extra_args
            .iter()
            .any(|arg| arg.starts_with("--remote-debugging-port"))
        {
            tracing::warn!(
                event = "local_devtools_port_configured",
                channel_id = %channel,
                "browser.chromium_args opens a DevTools TCP port: any local process can drive this browser"
            );
        }
    }

    /// Chromium's command line: the base flags, CDP on the pipe, the profile, the configured
    /// flags; its own process group, stderr piped for the launch's error message.
    fn command(&self, chromium: &Path, profile: &Path) -> Command {
        let (width, height) = self.settings.screen;
        let mut command = Command::new(chromium);
        command
            .args(BASE_FLAGS)
            .arg("--remote-debugging-pipe")
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
        command
    }
}

fn create_profile(profile: &Path) -> Result<(), ProviderError> {
    std::fs::create_dir_all(profile).map_err(|e| {
        ProviderError::failed(format!(
            "cannot create the profile directory {} ({}); check that the data directory is writable",
            profile.display(),
            super::io_reason(&e)
        ))
        .caused_by(e)
    })
}

/// Waits for Chromium's first answer on the pipe, the sign that it is up; on failure the
/// process group is killed and the error carries the end of its stderr.
async fn first_answer(
    child: &mut Child,
    cdp: &CdpConnection,
    channel: &ChannelId,
) -> Result<(), ProviderError> {
    let stderr = child.stderr.take().expect("stderr is piped");
    let tail = Arc::new(Mutex::new(Vec::<String>::new()));
    let stderr_done = tokio::spawn(watch_stderr(
        BufReader::new(stderr),
        tail.clone(),
        channel.clone(),
    ));
    let failure = |reason: String| {
        let tail = tail.lock().expect("stderr tail lock").join("\n");
        ProviderError::failed(format!(
            "Chromium did not start: {reason}{}",
            if tail.is_empty() {
                String::new()
            } else {
                format!("; its last output:\n{tail}")
            }
        ))
    };
    let version = cdp
        .call_with(
            "Browser.getVersion",
            serde_json::json!({}),
            None,
            LAUNCH_DEADLINE,
        )
        .await;
    match version {
        Ok(_) => Ok(()),
        Err(CdpError::Timeout { .. }) => {
            kill_group(child);
            let _ = child.wait().await;
            Err(failure(format!(
                "no answer on its debugging pipe within {LAUNCH_DEADLINE:?}"
            )))
        }
        Err(error) => {
            kill_group(child);
            let status = tokio::time::timeout(STOP_GRACE, child.wait()).await;
            // Its last words first: the group is gone, so stderr ends at once.
            let _ = tokio::time::timeout(Duration::from_secs(2), stderr_done).await;
            Err(failure(match status {
                Ok(Ok(status)) => format!("it exited ({status})"),
                _ => "its debugging pipe closed".to_string(),
            })
            .caused_by(error))
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
        if let Some(cdp) = self.running_connection(channel) {
            return Ok(Endpoint {
                address: CdpAddress::Connected(cdp),
                fresh: false,
            });
        }
        progress("launching", "Starting Chromium");
        let running = self.launch(channel).await?;
        let cdp = running.cdp.clone();
        let previous = self
            .running
            .lock()
            .expect("local registry lock")
            .insert(channel.clone(), running);
        if let Some(previous) = previous {
            kill_group(&previous.child);
        }
        Ok(Endpoint {
            address: CdpAddress::Connected(cdp),
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
        stop_child(&mut entry.child, &entry.cdp).await;
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
            Err(e) => Err(ProviderError::failed(format!(
                "cannot delete the profile directory {} ({}); check its permissions",
                dir.display(),
                super::io_reason(&e)
            ))
            .caused_by(e)),
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

/// Keeps a short tail of Chromium's stderr for error messages, and keeps draining so Chromium
/// never blocks on a full pipe.
async fn watch_stderr(
    mut stderr: BufReader<tokio::process::ChildStderr>,
    tail: Arc<Mutex<Vec<String>>>,
    channel: ChannelId,
) {
    let mut line = String::new();
    loop {
        line.clear();
        match stderr.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = line.trim_end();
        tracing::trace!(event = "chromium_stderr", channel_id = %channel, line = text);
        let mut tail = tail.lock().expect("stderr tail lock");
        if tail.len() == 12 {
            tail.remove(0);
        }
        tail.push(text.chars().take(400).collect());
    }
}

/// Shuts Chromium down cleanly so the profile (cookies) is flushed to disk — `Browser.close`
/// over its pipe, then SIGTERM — and finally kills whatever is left of its process group.
async fn stop_child(child: &mut Child, cdp: &CdpConnection) {
    let closed = !cdp.is_lost() && {
        cdp.fire("Browser.close", serde_json::json!({}), None);
        tokio::time::timeout(STOP_GRACE, child.wait()).await.is_ok()
    };
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

/// The two pipes of `--remote-debugging-pipe`. All four ends are close-on-exec, so no other
/// child of the daemon (another channel's Chromium) inherits them; only the child they are
/// meant for gets its two ends, as fds 3 and 4, in [`prepare_child`].
struct CdpPipes {
    /// Chromium reads commands from this end (its fd 3).
    chrome_reads: OwnedFd,
    /// The daemon writes commands here.
    to_chrome: OwnedFd,
    /// Chromium writes replies and events to this end (its fd 4).
    chrome_writes: OwnedFd,
    /// The daemon reads replies and events here.
    from_chrome: OwnedFd,
}

impl CdpPipes {
    fn new() -> std::io::Result<Self> {
        let (chrome_reads, to_chrome) = std::io::pipe()?;
        let (from_chrome, chrome_writes) = std::io::pipe()?;
        Ok(Self {
            chrome_reads: chrome_reads.into(),
            to_chrome: to_chrome.into(),
            chrome_writes: chrome_writes.into(),
            from_chrome: from_chrome.into(),
        })
    }

    /// After the spawn: closes the child's ends here (so Chromium's exit reads as end of file)
    /// and opens the CDP connection on the daemon's ends.
    fn connect(self, pid: u32) -> std::io::Result<CdpConnection> {
        let Self {
            chrome_reads,
            to_chrome,
            chrome_writes,
            from_chrome,
        } = self;
        drop((chrome_reads, chrome_writes));
        let to = pipe::Sender::from_owned_fd(to_chrome)?;
        let from = pipe::Receiver::from_owned_fd(from_chrome)?;
        Ok(CdpConnection::over_pipe(
            to,
            from,
            &format!("pipe://chromium/{pid}"),
        ))
    }
}

/// Gives the child its CDP pipe ends as fds 3 and 4, and makes the kernel kill Chromium when
/// the daemon dies, however it dies.
fn prepare_child(command: &mut Command, pipes: &CdpPipes) {
    let reads: RawFd = pipes.chrome_reads.as_raw_fd();
    let writes: RawFd = pipes.chrome_writes.as_raw_fd();
    // SAFETY: the closure runs in the forked child before exec and only makes syscalls that
    // are async-signal-safe (fcntl, dup2, close, prctl); it allocates nothing and touches no
    // memory of the parent beyond two copied integers. The fds it names stay open in the parent
    // until after the spawn (`pipes` is borrowed across it). Each end is first copied above
    // fd 10 so that placing one at 3 or 4 can never overwrite the other.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(move || {
            let high_reads = libc::fcntl(reads, libc::F_DUPFD_CLOEXEC, 10);
            let high_writes = libc::fcntl(writes, libc::F_DUPFD_CLOEXEC, 10);
            if high_reads < 0
                || high_writes < 0
                || libc::dup2(high_reads, 3) < 0
                || libc::dup2(high_writes, 4) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
            // dup2 leaves 3 and 4 without close-on-exec; the copies above fd 10 close at exec.
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from)
        });
    }
}

/// Removes Chromium's `Singleton*` files (and a `DevToolsActivePort`) left by a browser that no
/// longer runs, and kills a leftover Chromium that still holds this profile (an orphan of a
/// crashed daemon).
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
    // DevToolsActivePort: written by earlier Porthole versions (or a configured port); this
    // browser opens no port, so an old file would only point at nothing.
    for name in [
        "SingletonLock",
        "SingletonSocket",
        "SingletonCookie",
        "DevToolsActivePort",
    ] {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(chromium: &Path, profiles_dir: PathBuf) -> LocalProvider {
        LocalProvider::new(LocalSettings {
            chromium_path: Some(chromium.to_path_buf()),
            profiles_dir,
            persist_profile: true,
            screen: (800, 600),
            extra_args: Vec::new(),
        })
    }

    fn no_progress() -> ProgressFn {
        Arc::new(|_: &str, _: &str| {})
    }

    #[tokio::test]
    async fn os_errors_reach_the_log_detail_never_the_message() {
        let dir = tempfile::tempdir().unwrap();
        let channel = ChannelId::parse("c1").unwrap();
        // A "Chromium" that is a file but not a program (no execute bit): the spawn fails.
        let fake = dir.path().join("chromium");
        std::fs::write(&fake, "not a program").unwrap();
        let error = provider(&fake, dir.path().join("profiles"))
            .ensure_browser(&channel, no_progress())
            .await
            .unwrap_err();
        assert!(!error.message().contains("os error"), "{error}");
        assert!(error.message().contains("permission denied"), "{error}");
        assert!(error.message().contains("browser.chromium_path"), "{error}");
        assert!(
            error.detail().is_some_and(|d| d.contains("os error 13")),
            "{:?}",
            error.detail()
        );
        // The profiles directory is a file: the profile cannot be made.
        let blocker = dir.path().join("blocker");
        std::fs::write(&blocker, "").unwrap();
        let error = provider(&fake, blocker.join("profiles"))
            .ensure_browser(&channel, no_progress())
            .await
            .unwrap_err();
        assert!(!error.message().contains("os error"), "{error}");
        assert!(error.message().contains("profile directory"), "{error}");
        assert!(
            error.detail().is_some_and(|d| d.contains("os error")),
            "{:?}",
            error.detail()
        );
    }
}
