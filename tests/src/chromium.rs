//! A bare headless Chromium started by a test (its own user-data dir, `--remote-debugging-port=0`,
//! which makes it write `DevToolsActivePort`), killed on drop.

use std::process::Stdio;
use std::time::Duration;

use crate::TempDir;

/// Flags for a headless Chromium on this closed network.
pub const FLAGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--password-store=basic",
    "--use-mock-keychain",
];

/// A running Chromium.
pub struct BareChromium {
    pub child: std::process::Child,
    pub profile: TempDir,
    /// `ws://127.0.0.1:<port>/devtools/browser/<id>`.
    pub ws_url: String,
}

impl BareChromium {
    pub async fn launch() -> Self {
        Self::launch_with(&[]).await
    }

    pub async fn launch_with(extra: &[&str]) -> Self {
        let profile = TempDir::new("chromium");
        let child = std::process::Command::new("chromium")
            .args(FLAGS)
            .arg("--remote-debugging-port=0")
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromium");
        let file = profile.path().join("DevToolsActivePort");
        let text = crate::eventually("DevToolsActivePort", Duration::from_secs(30), || {
            let file = file.clone();
            async move {
                std::fs::read_to_string(&file)
                    .ok()
                    .filter(|t| t.lines().count() >= 2)
            }
        })
        .await;
        let mut lines = text.lines();
        let port = lines.next().unwrap().trim().to_string();
        let path = lines.next().unwrap().trim().to_string();
        Self {
            child,
            profile,
            ws_url: format!("ws://127.0.0.1:{port}{path}"),
        }
    }

    /// Kills it at once (a crash, from the daemon's point of view).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for BareChromium {
    fn drop(&mut self) {
        self.kill();
    }
}
