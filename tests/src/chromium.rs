//! The one Chromium launcher of the tests: [`Chromium`] says how (headless or on an X display,
//! which profile dir, extra flags, environment, first URL), [`BareChromium`] is the running
//! browser. It always gets `--remote-debugging-port=0`, so it writes `DevToolsActivePort` in its
//! profile, read through the daemon's own discovery ([`devtools_url`]). The flags are the
//! daemon's own [`BASE_FLAGS`] (a flag given in the extras replaces the base flag of that name).
//! It runs in its own process group, killed whole on drop, so a failing test leaves nothing.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use porthole::cdp::CdpConnection;
pub use porthole::providers::local::BASE_FLAGS;

use crate::TempDir;

/// How long a Chromium may take to write `DevToolsActivePort`: seconds alone, far more when a
/// loaded `make test` starts several at once (30 s was seen to run out).
pub const CHROMIUM_START: Duration = Duration::from_secs(90);

/// `ws://127.0.0.1:<port>/devtools/browser/<id>` of the Chromium whose profile is `profile`,
/// waiting up to `within` for it to write `DevToolsActivePort` (read as the daemon reads it).
pub async fn devtools_url(profile: &Path, within: Duration) -> String {
    crate::eventually("DevToolsActivePort", within, || async {
        porthole::providers::host::discovery::read_active_port(profile)
            .map(|(port, path)| format!("ws://127.0.0.1:{port}{path}"))
    })
    .await
}

/// A CDP connection to the Chromium whose profile is `profile` (through [`devtools_url`]).
pub async fn devtools(profile: &Path) -> CdpConnection {
    let url = devtools_url(profile, CHROMIUM_START).await;
    CdpConnection::connect(&url, Duration::from_secs(20))
        .await
        .expect("DevTools connects")
}

/// The command line of a Chromium: the daemon's base flags minus those the extras name again
/// (and minus `--headless` when it runs on a display), `--no-sandbox`, then the extras.
pub fn flags(extra: &[String], headless: bool) -> Vec<String> {
    let name = |flag: &str| flag.split('=').next().unwrap_or(flag).to_string();
    let named: Vec<String> = extra.iter().map(|f| name(f)).collect();
    let mut out: Vec<String> = BASE_FLAGS
        .iter()
        .filter(|f| headless || !f.starts_with("--headless"))
        .filter(|f| !named.contains(&name(f)))
        .map(|f| f.to_string())
        .collect();
    out.push("--no-sandbox".into());
    out.extend(extra.iter().cloned());
    out
}

/// Where a Chromium keeps its profile.
pub enum Profile {
    /// A fresh temp dir of its own, removed with it.
    Temp(TempDir),
    /// A dir the test owns (it outlives the browser).
    Dir(PathBuf),
}

impl Profile {
    pub fn path(&self) -> &Path {
        match self {
            Profile::Temp(dir) => dir.path(),
            Profile::Dir(dir) => dir,
        }
    }
}

/// How to start a Chromium (a builder; [`Chromium::launch`] starts it).
pub struct Chromium {
    display: Option<String>,
    profile: Option<Profile>,
    extra: Vec<String>,
    env: Vec<(String, String)>,
    url: String,
}

impl Default for Chromium {
    fn default() -> Self {
        Self::new()
    }
}

impl Chromium {
    /// Headless, on a fresh temp profile, opening `about:blank`.
    pub fn new() -> Self {
        Self {
            display: None,
            profile: None,
            extra: Vec::new(),
            env: Vec::new(),
            url: "about:blank".into(),
        }
    }

    /// Visible on the X display `display` (`:N`, an Xvfb of the test's) instead of headless.
    pub fn on_display(mut self, display: &str) -> Self {
        self.display = Some(display.to_string());
        self
    }

    /// On the profile dir `dir`, which the test owns; stale lock and port files are removed.
    pub fn profile_dir(mut self, dir: &Path) -> Self {
        self.profile = Some(Profile::Dir(dir.to_path_buf()));
        self
    }

    /// On a temp dir the test prepared; removed with the browser.
    pub fn temp_profile(mut self, dir: TempDir) -> Self {
        self.profile = Some(Profile::Temp(dir));
        self
    }

    /// Extra flags (after the base flags; a flag named again replaces the base one).
    pub fn args<S: AsRef<str>>(mut self, flags: &[S]) -> Self {
        self.extra
            .extend(flags.iter().map(|f| f.as_ref().to_string()));
        self
    }

    /// An environment variable of the browser process.
    pub fn env(mut self, key: &str, value: impl Into<String>) -> Self {
        self.env.push((key.to_string(), value.into()));
        self
    }

    /// The page it opens first.
    pub fn url(mut self, url: &str) -> Self {
        self.url = url.to_string();
        self
    }

    /// Starts it and waits for its `DevToolsActivePort`.
    pub async fn launch(self) -> BareChromium {
        let profile = self
            .profile
            .unwrap_or_else(|| Profile::Temp(TempDir::new("chromium")));
        // Files left by an earlier (killed) browser on this dir must not be mistaken for ours.
        for stale in [
            "DevToolsActivePort",
            "SingletonLock",
            "SingletonSocket",
            "SingletonCookie",
        ] {
            let _ = std::fs::remove_file(profile.path().join(stale));
        }
        let chromium = porthole::providers::local::find_chromium().expect("chromium is installed");
        let mut command = std::process::Command::new(chromium);
        command
            .args(flags(&self.extra, self.display.is_none()))
            .arg("--remote-debugging-port=0")
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(&self.url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(display) = &self.display {
            command.env("DISPLAY", display);
        }
        for (key, value) in &self.env {
            command.env(key, value);
        }
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn().expect("start chromium");
        let mut chromium = BareChromium {
            child,
            profile,
            ws_url: String::new(),
            killed: false,
        };
        // Killed with its group (by drop) if it never writes the file.
        chromium.ws_url = devtools_url(chromium.profile.path(), CHROMIUM_START).await;
        chromium
    }
}

/// A running Chromium, killed with its whole process group on drop.
pub struct BareChromium {
    pub child: std::process::Child,
    pub profile: Profile,
    /// `ws://127.0.0.1:<port>/devtools/browser/<id>`.
    pub ws_url: String,
    killed: bool,
}

impl BareChromium {
    /// Headless on a temp profile.
    pub async fn launch() -> Self {
        Chromium::new().launch().await
    }

    /// Headless on a temp profile with extra flags.
    pub async fn launch_with(extra: &[&str]) -> Self {
        Chromium::new().args(extra).launch().await
    }

    /// A new CDP connection to its browser target.
    pub async fn cdp(&self) -> CdpConnection {
        CdpConnection::connect(&self.ws_url, Duration::from_secs(20))
            .await
            .expect("DevTools connects")
    }

    /// Kills it and everything it started at once (a crash, from the daemon's point of view).
    pub fn kill(&mut self) {
        if !std::mem::replace(&mut self.killed, true) {
            crate::daemon::unsafe_free_kill_group(self.child.id(), "-KILL");
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits (polling) until it has exited by itself (after `Browser.close`, say).
    pub async fn exited(&mut self, within: Duration) {
        crate::eventually("Chromium to exit", within, || {
            let done = matches!(self.child.try_wait(), Ok(Some(_)));
            async move { done.then_some(()) }
        })
        .await;
    }
}

impl Drop for BareChromium {
    fn drop(&mut self) {
        self.kill();
    }
}
