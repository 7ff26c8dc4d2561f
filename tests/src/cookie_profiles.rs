//! Browser profiles written by the real browsers themselves, for the cookie import tests: a
//! temp home with Debian Chromium (`--password-store=basic`, v10 values) or Firefox ESR
//! profiles in their standard Linux places, cookies set by a local HTTP server (every host name
//! resolves to 127.0.0.1) and planted over DevTools. Browsers are killed on drop.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use porthole::cdp::CdpConnection;
use serde_json::{json, Value};

use crate::chromium::Chromium;
use crate::pages::PageServer;
use crate::{eventually, TempDir};

/// A Firefox process killed and reaped when dropped, so a failing test leaves none behind.
pub struct BrowserGuard(pub Child);

impl BrowserGuard {
    fn spawn(what: &str, cmd: &mut Command) -> Self {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("starting {what}: {e} (run scripts/setup/cookie-browsers.sh)")
            });
        Self(child)
    }

    /// Waits (polling) until the process has exited by itself.
    pub async fn exited(&mut self, within: Duration) {
        eventually("the browser to exit", within, || {
            let done = matches!(self.0.try_wait(), Ok(Some(_)));
            async move { done.then_some(()) }
        })
        .await;
    }
}

impl Drop for BrowserGuard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// The page server, its `/set/<n>` pages answering with the `Set-Cookie` headers of
/// `cookies[n]` (and `/` with an empty page).
pub async fn cookie_setter(cookies: Vec<Vec<String>>) -> PageServer {
    let pages = PageServer::start().await;
    pages.set_cookies(cookies);
    pages
}

/// Extra flags of the Chromium that writes a profile: every host name is this machine.
pub const CHROMIUM_EXTRA: &[&str] = &["--host-resolver-rules=MAP * 127.0.0.1"];

/// A temp home for the daemon's `browser.cookie_import.home`.
pub fn temp_home() -> TempDir {
    TempDir::new("cookie-home")
}

/// Connects to a Chromium through `<user_data_dir>/DevToolsActivePort`.
pub use crate::chromium::devtools;

/// Every cookie of a browser (`Storage.getCookies`).
pub async fn all_cookies(cdp: &CdpConnection) -> Vec<Value> {
    let r = cdp
        .call("Storage.getCookies", json!({}))
        .await
        .expect("Storage.getCookies");
    r["cookies"].as_array().cloned().unwrap_or_default()
}

/// Has the real Chromium write `<home>/.config/chromium/Default`: opens `urls` (pages of a
/// [`cookie_setter`]) one after the other, waits for `names` to be in its jar, plants `planted`
/// with `Storage.setCookies`, then closes it with `Browser.close`. Returns the user-data dir.
pub async fn write_chromium_profile(
    home: &Path,
    urls: &[String],
    names: &[&str],
    planted: Value,
) -> PathBuf {
    let ud = home.join(".config").join("chromium");
    std::fs::create_dir_all(&ud).unwrap();
    let mut browser = Chromium::new()
        .profile_dir(&ud)
        .args(CHROMIUM_EXTRA)
        .launch()
        .await;
    let cdp = devtools(&ud).await;
    for url in urls {
        cdp.call("Target.createTarget", json!({ "url": url }))
            .await
            .expect("open a cookie page");
    }
    let wanted: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let names_in = |cdp: CdpConnection| async move {
        all_cookies(&cdp)
            .await
            .iter()
            .filter_map(|c| c["name"].as_str().map(str::to_owned))
            .collect::<Vec<String>>()
    };
    eventually(
        "Chromium to hold every cookie",
        Duration::from_secs(30),
        || {
            let (cdp, wanted) = (cdp.clone(), wanted.clone());
            async move {
                let have = names_in(cdp).await;
                wanted.iter().all(|w| have.contains(w)).then_some(())
            }
        },
    )
    .await;
    // Planted last, so a short-lived one is not waited on while the pages load.
    if let Some(list) = planted.as_array().filter(|l| !l.is_empty()) {
        cdp.call("Storage.setCookies", json!({ "cookies": list }))
            .await
            .expect("planting cookies");
    }
    let _ = cdp
        .call_with("Browser.close", json!({}), None, Duration::from_secs(5))
        .await;
    browser.exited(Duration::from_secs(30)).await;
    assert!(ud.join("Default").join("Cookies").is_file());
    ud
}

/// Starts Firefox ESR headless on a new profile registered in `<home>/.mozilla/firefox`
/// (directory `dir`, shown as `name`), opening `url`. Kill it by dropping the guard.
pub fn start_firefox(home: &Path, dir: &str, name: &str, url: &str) -> BrowserGuard {
    let root = home.join(".mozilla").join("firefox");
    let profile = root.join(dir);
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(
        profile.join("user.js"),
        r#"
user_pref("network.dns.forceResolve", "127.0.0.1");
user_pref("network.proxy.type", 0);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("app.update.disabledForTesting", true);
user_pref("browser.aboutwelcome.enabled", false);
"#,
    )
    .unwrap();
    std::fs::write(
        root.join("profiles.ini"),
        format!("[Profile0]\nName={name}\nIsRelative=1\nPath={dir}\nDefault=1\n\n[General]\nStartWithLastProfile=1\nVersion=2\n"),
    )
    .unwrap();
    BrowserGuard::spawn(
        "firefox-esr",
        Command::new("firefox-esr")
            .args(["--headless", "--no-remote", "--profile"])
            .arg(&profile)
            .arg(url)
            .env("HOME", home)
            .env("MOZ_CRASHREPORTER_DISABLE", "1"),
    )
}
