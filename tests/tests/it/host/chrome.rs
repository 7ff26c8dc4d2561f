//! A real Chromium standing in for the user's own Chrome: its own user-data dir and
//! `--remote-debugging-port=0`, so it writes `DevToolsActivePort` there as Chrome's
//! chrome://inspect toggle does. The test talks to it as "the user" over its own CDP
//! connection. Killed (whole process group) on drop, so a failing test leaves nothing behind.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use porthole::cdp::CdpConnection;
use porthole_tests::chromium::{BareChromium, Chromium};
use porthole_tests::eventually;
use porthole_tests::raw_cdp;
use serde_json::{json, Value};
use tokio::process::{Child, Command};

/// The "user's" Chrome.
pub struct UserChrome {
    chromium: BareChromium,
    /// The user's own CDP connection (as if they clicked around).
    pub cdp: CdpConnection,
}

impl UserChrome {
    /// Starts headless Chromium on `profile` and waits for its `DevToolsActivePort`.
    pub async fn start(profile: &Path) -> Self {
        Self::launch(Chromium::new().profile_dir(profile)).await
    }

    /// Starts a visible Chromium on the X display `display` (see [`VirtualDisplay`]), showing
    /// `url`, as the user's own Chrome on their screen.
    pub async fn start_visible(profile: &Path, display: &VirtualDisplay, url: &str) -> Self {
        Self::launch(
            Chromium::new()
                .profile_dir(profile)
                .on_display(&display.name)
                .url(url),
        )
        .await
    }

    async fn launch(how: Chromium) -> Self {
        let chromium = how.launch().await;
        let cdp = chromium.cdp().await;
        Self { chromium, cdp }
    }

    /// Kills Chrome and everything it started, as a crash or the user quitting would.
    pub async fn kill(&mut self) {
        self.chromium.kill();
        self.cdp.lost().await;
    }

    /// Page targets as Chrome lists them (everyone's tabs).
    pub async fn pages(&self) -> Vec<Value> {
        let targets = self
            .cdp
            .call("Target.getTargets", json!({}))
            .await
            .expect("targets");
        targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["type"] == "page")
            .cloned()
            .collect()
    }

    /// Target ids of the page targets.
    pub async fn page_ids(&self) -> Vec<String> {
        self.pages()
            .await
            .iter()
            .map(|t| t["targetId"].as_str().unwrap().to_string())
            .collect()
    }

    /// Opens a tab the way the user would (in their window, in front).
    pub async fn open_user_tab(&self, url: &str) -> String {
        let created = self
            .cdp
            .call("Target.createTarget", json!({"url": url}))
            .await
            .expect("user tab");
        created["targetId"].as_str().unwrap().to_string()
    }

    /// The browser window a target lives in.
    pub async fn window_of(&self, target_id: &str) -> Value {
        self.cdp
            .call("Browser.getWindowForTarget", json!({"targetId": target_id}))
            .await
            .expect("window for target")
    }

    /// Evaluates `expression` in page `target_id`.
    pub async fn eval(&self, target_id: &str, expression: &str) -> Value {
        let mut params = raw_cdp::by_value(expression);
        params["userGesture"] = json!(true);
        raw_cdp::evaluate_in(&self.cdp, target_id, params).await
    }
}

/// A virtual X display (Xvfb) of the test's own, killed on drop.
pub struct VirtualDisplay {
    /// `:N`.
    pub name: String,
    child: Child,
}

impl VirtualDisplay {
    /// Starts Xvfb on a free display number (scripts/setup/xvfb.sh installs it).
    pub async fn start() -> Self {
        for _ in 0..20 {
            let n = 100 + (std::process::id() % 400) + rand_small();
            if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
                continue;
            }
            let name = format!(":{n}");
            let child = Command::new("Xvfb")
                .args([&name, "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .expect("Xvfb runs (scripts/setup/xvfb.sh installs it)");
            let socket = format!("/tmp/.X11-unix/X{n}");
            eventually("Xvfb's socket", Duration::from_secs(10), || {
                let socket = socket.clone();
                async move { Path::new(&socket).exists().then_some(()) }
            })
            .await;
            return Self { name, child };
        }
        panic!("no free X display for Xvfb");
    }

    /// Runs `xdotool args…` on this display; its stdout, trimmed.
    pub fn xdotool(&self, args: &[&str]) -> String {
        let output = std::process::Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.name)
            .output()
            .expect("xdotool runs (scripts/setup/xvfb.sh installs it)");
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }

    /// The name of the window that has the keyboard focus.
    pub fn focused_window_name(&self) -> String {
        self.xdotool(&["getwindowfocus", "getwindowname"])
    }
}

impl Drop for VirtualDisplay {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

fn rand_small() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() % 97)
        .unwrap_or(0)
}
