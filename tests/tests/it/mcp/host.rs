//! `porthole mcp-host-browser` on a Chromium the test starts with its own `--user-data-dir`
//! and `--remote-debugging-port=0` (it writes `DevToolsActivePort` there), standing in for the
//! user's Chrome: the tools work, the user's own tab is untouched, and without a Chrome the
//! error says how to turn remote debugging on.

use std::time::Duration;

use porthole_tests::chromium::{BareChromium, Chromium};
use porthole_tests::devtools_port::Probe;
use porthole_tests::TempDir;
use serde_json::json;

use super::harness::{call, connect, err, eval, eval_until, image, ok, ref_of};

/// The "user's" Chrome, killed with its process group when dropped; `profile` and the rest
/// through [`BareChromium`].
pub(super) struct UserChrome(BareChromium);

impl UserChrome {
    pub(super) async fn start(first_url: &str) -> Self {
        Self::start_in(TempDir::new("user-chrome"), first_url).await
    }

    /// Starts on a profile the test prepared (its `Default/Preferences`, say).
    pub(super) async fn start_in(profile: TempDir, first_url: &str) -> Self {
        Self(
            Chromium::new()
                .temp_profile(profile)
                .url(first_url)
                .launch()
                .await,
        )
    }

    /// The tab the user's Chrome opened at start (its URL ends with `/user`), once it shows.
    pub async fn user_tab(&self) -> serde_json::Value {
        let probe = Probe::connect(self.profile.path()).await;
        porthole_tests::eventually("the user's tab", Duration::from_secs(20), || async {
            probe
                .pages()
                .await
                .into_iter()
                .find(|p| p["url"].as_str().is_some_and(|u| u.ends_with("/user")))
        })
        .await
    }
}

impl std::ops::Deref for UserChrome {
    type Target = BareChromium;
    fn deref(&self) -> &BareChromium {
        &self.0
    }
}

/// `porthole mcp-host-browser` on a [`UserChrome`] showing the mcp pages' `/user`, its log
/// (debug lines included) in a file the test reads.
pub(super) struct LoggedHost {
    pages: porthole_tests::pages::PageServer,
    _chrome: UserChrome,
    _home: TempDir,
    log: std::path::PathBuf,
    pub mcp: porthole_tests::mcp::Client,
}

impl LoggedHost {
    pub(super) async fn start() -> Self {
        let pages = porthole_tests::pages::PageServer::area("mcp").await;
        let chrome = UserChrome::start(&pages.url("/user")).await;
        chrome.user_tab().await;
        let home = TempDir::new("mcp-home");
        let log = home.path().join("server.log");
        let log_arg = log.display().to_string();
        let (args, env) = host_args(&home, &[chrome.profile.path()], &["--log", &log_arg]);
        let mcp = connect("porthole", &args, &env).await;
        Self {
            pages,
            _chrome: chrome,
            _home: home,
            log,
            mcp,
        }
    }

    /// The URL of the mcp page at `path`.
    pub fn url(&self, path: &str) -> String {
        self.pages.url(path)
    }

    /// What the server logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Arguments and an environment in which the well-known Chrome dirs are empty.
pub(super) fn host_args(
    home: &TempDir,
    dirs: &[&std::path::Path],
    extra: &[&str],
) -> (Vec<String>, Vec<(&'static str, String)>) {
    let mut args = vec!["mcp-host-browser".to_string()];
    for d in dirs {
        args.push("--user-data-dir".into());
        args.push(d.display().to_string());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let home = home.path().display().to_string();
    let env = vec![
        ("HOME", home.clone()),
        ("XDG_CONFIG_HOME", format!("{home}/config")),
    ];
    (args, env)
}

#[tokio::test]
async fn host_browser_drives_only_its_own_tabs() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let url = |p: &str| format!("http://{pages}{p}");
    let chrome = UserChrome::start(&url("/user")).await;
    let probe = Probe::connect(chrome.profile.path()).await;
    let user_tab = chrome.user_tab().await;
    let user_id = user_tab["targetId"].as_str().unwrap().to_string();

    let home = TempDir::new("mcp-home");
    let (args, env) = host_args(&home, &[chrome.profile.path()], &[]);
    let mcp = connect("porthole", &args, &env).await;
    let tools = mcp.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 25);

    let t = ok(
        &mcp,
        "navigate",
        json!({"url": url("/form"), "wait_for_selector": "#change"}),
    )
    .await;
    assert!(t.contains("Title: Form page"), "{t}");
    let snap = ok(&mcp, "read_page", json!({})).await;
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Change\"")}),
    )
    .await;
    eval_until(
        &mcp,
        "document.getElementById('status').textContent",
        json!("Changed!"),
    )
    .await;
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Frame button\"")}),
    )
    .await;
    eval_until(
        &mcp,
        "document.getElementById('frame').contentDocument.getElementById('fs').textContent",
        json!("frame clicked"),
    )
    .await;
    ok(
        &mcp,
        "form_input",
        json!({"ref": ref_of(&snap, "textbox \"Name\""), "value": "Host"}),
    )
    .await;
    assert_eq!(
        eval(&mcp, "document.getElementById('name').value").await,
        json!("Host")
    );
    let console = ok(&mcp, "read_console_messages", json!({"pattern": "HELLO"})).await;
    assert!(console.contains("hello from form"), "{console}");

    // Only our tab is listed; a second one is ours too.
    let list = ok(&mcp, "list_tabs", json!({})).await;
    assert!(
        list.starts_with("1 tab(s)") && !list.contains("/user"),
        "{list}"
    );
    ok(&mcp, "new_tab", json!({"url": url("/second")})).await;
    let list = ok(&mcp, "list_tabs", json!({})).await;
    assert!(list.contains("[2] Second page"), "{list}");
    let e = err(&mcp, "switch_tab", json!({"tab": user_id.clone()})).await;
    assert!(e.contains("There is no tab"), "{e}");
    ok(&mcp, "close_tab", json!({"tab": 2})).await;
    let shot = call(&mcp, "screenshot", json!({})).await;
    assert!(image(&shot).is_some());
    let file = home.path().join("host-shot.jpg");
    ok(
        &mcp,
        "save_screenshot",
        json!({"path": file.to_str().unwrap()}),
    )
    .await;
    assert!(std::fs::read(&file).unwrap().starts_with(&[0xFF, 0xD8]));
    // Playwright names are opt-in.
    let e = err(&mcp, "browser_snapshot", json!({})).await;
    assert!(e.contains("--playwright-aliases"), "{e}");

    // The user's tab: still there, same page, never navigated.
    let pages_now = probe.pages().await;
    let still = pages_now
        .iter()
        .find(|p| p["targetId"] == json!(user_id))
        .expect("the user's tab is still open");
    assert!(still["url"].as_str().unwrap().ends_with("/user"), "{still}");
    assert_eq!(probe.eval(&user_id, "history.length").await, json!(1));

    // When the client goes, the server closes the tabs it opened.
    drop(mcp);
    porthole_tests::eventually("our tabs closed", Duration::from_secs(20), || async {
        let pages = probe.pages().await;
        (pages.len() == 1 && pages[0]["targetId"] == json!(user_id)).then_some(())
    })
    .await;
}

/// Downloads of our tabs are listed with where the user's Chrome saved them (its own folder,
/// unchanged); the user's own downloads are not listed.
#[tokio::test]
async fn host_browser_lists_its_own_tabs_downloads_where_chrome_saved_them() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let url = |p: &str| format!("http://{pages}{p}");
    let (saves, chrome) = chrome_saving_downloads(&url("/user")).await;
    let user_tab = chrome.user_tab().await;
    let user_id = user_tab["targetId"].as_str().unwrap().to_string();

    let home = TempDir::new("mcp-home");
    let (args, env) = host_args(&home, &[chrome.profile.path()], &[]);
    let mcp = connect("porthole", &args, &env).await;
    ok(
        &mcp,
        "navigate",
        json!({"url": url("/downloads"), "wait_for_selector": "#att"}),
    )
    .await;
    let snap = ok(&mcp, "read_page", json!({})).await;
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "link \"Get report\"")}),
    )
    .await;
    let list = porthole_tests::eventually(
        "the download listed as completed",
        Duration::from_secs(20),
        || async {
            let t = ok(&mcp, "list_downloads", json!({})).await;
            t.contains("completed").then_some(t)
        },
    )
    .await;
    let saved = saves.path().join("report.bin");
    assert!(list.contains("report.bin"), "{list}");
    assert!(
        list.contains(&saved.display().to_string()),
        "the path Chrome saved it at: {list}"
    );
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        porthole_tests::pages::report_bytes(),
        "saved where the user's Chrome saves"
    );

    // The user's own download in their own tab is theirs: never listed.
    let probe = Probe::connect(chrome.profile.path()).await;
    probe
        .eval(
            &user_id,
            "(() => { const a = document.createElement('a'); a.href = '/download/report.bin'; \
             document.body.appendChild(a); a.click(); return 1; })()",
        )
        .await;
    // The server names it too: Chrome saves it beside ours as "report (1).bin".
    let theirs = saves.path().join("report (1).bin");
    porthole_tests::eventually("the user's download saved", Duration::from_secs(20), || {
        let theirs = theirs.clone();
        async move { theirs.exists().then_some(()) }
    })
    .await;
    let list = ok(&mcp, "list_downloads", json!({})).await;
    assert!(
        !list.contains("report (1).bin") && !list.contains("[d2]"),
        "{list}"
    );
}

/// The user's Chrome, saving downloads in a folder of its own choosing without asking (that
/// folder, and the Chrome).
async fn chrome_saving_downloads(first_url: &str) -> (TempDir, UserChrome) {
    let saves = TempDir::new("user-downloads");
    let profile = TempDir::new("user-chrome");
    std::fs::create_dir_all(profile.path().join("Default")).unwrap();
    let prefs = json!({"download": {"default_directory": saves.path(), "prompt_for_download": false, "directory_upgrade": true}});
    std::fs::write(
        profile.path().join("Default").join("Preferences"),
        prefs.to_string(),
    )
    .unwrap();
    let chrome = UserChrome::start_in(profile, first_url).await;
    (saves, chrome)
}

/// A download the page makes itself (an `<a download>` of a `blob:` URL it generated, in a page
/// of its own making) is listed like an attachment link's: its name, its size, completed,
/// where Chrome saved it.
#[tokio::test]
async fn host_browser_lists_a_blob_download_of_its_own_tab() {
    use porthole_tests::pages::{blob_download_page, data_url, download_payload, DOWNLOAD_NAME};
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let (saves, chrome) = chrome_saving_downloads(&pages.url("/user")).await;
    chrome.user_tab().await;
    let home = TempDir::new("mcp-home");
    let (args, env) = host_args(&home, &[chrome.profile.path()], &[]);
    let mcp = connect("porthole", &args, &env).await;
    let saved = saves.path().join(DOWNLOAD_NAME);
    for (n, page) in [
        pages.url("/blob-download.html"),
        data_url(&blob_download_page()),
    ]
    .into_iter()
    .enumerate()
    {
        ok(
            &mcp,
            "navigate",
            json!({"url": page, "wait_for_selector": "#dl"}),
        )
        .await;
        let snap = ok(&mcp, "read_page", json!({})).await;
        ok(
            &mcp,
            "computer",
            json!({"action": "left_click", "ref": ref_of(&snap, "link \"Download\"")}),
        )
        .await;
        // Chrome saves it (so the page did download it; the second beside the first) …
        let saved = match n {
            0 => saved.clone(),
            _ => saves.path().join(DOWNLOAD_NAME.replace(".bin", " (1).bin")),
        };
        porthole_tests::eventually("the blob download saved", Duration::from_secs(20), || {
            let saved = saved.clone();
            async move { saved.exists().then_some(()) }
        })
        .await;
        // … and the list says so.
        let id = format!("[d{}]", n + 1);
        let list = porthole_tests::eventually(
            "the blob download listed as completed",
            Duration::from_secs(20),
            || async {
                let t = ok(&mcp, "list_downloads", json!({})).await;
                let line = t.lines().find(|l| l.starts_with(&id))?.to_string();
                line.contains("completed").then_some(line)
            },
        )
        .await;
        assert!(
            list.contains(&format!("{DOWNLOAD_NAME} — 102400 bytes")),
            "{list}"
        );
        assert!(
            list.contains(&saved.display().to_string()),
            "the path Chrome saved it at: {list}"
        );
        assert_eq!(std::fs::read(&saved).unwrap(), download_payload());
    }
}

#[tokio::test]
async fn host_browser_without_chrome_says_how_to_enable_it() {
    let home = TempDir::new("mcp-nochrome");
    let empty = TempDir::new("mcp-nochrome-profile");
    let (args, env) = host_args(&home, &[empty.path()], &["--playwright-aliases"]);
    let mcp = connect("porthole", &args, &env).await;
    let tools = mcp.list_all_tools().await.expect("tools/list");
    assert!(tools.len() > 20, "aliases listed");
    let e = err(&mcp, "navigate", json!({"url": "http://127.0.0.1:1/"})).await;
    assert!(e.contains("chrome://inspect/#remote-debugging"), "{e}");
    let e = err(&mcp, "browser_snapshot", json!({})).await;
    assert!(e.contains("chrome://inspect/#remote-debugging"), "{e}");
}

/// The issue 52 case: on one page a link's download, clicked first, and then a button whose
/// handler makes a `blob:` link and clicks it: both are listed (Chrome 156 does not hold back
/// the second here). A handler that fails instead (an inline `onclick` where `URL` is
/// `document.URL`, so `URL.createObjectURL` is no function) starts no download, and the click's
/// answer says what the page threw, so the agent is told why nothing came.
#[tokio::test]
async fn host_browser_lists_a_pages_second_download_made_by_its_script() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let (saves, chrome) = chrome_saving_downloads(&pages.url("/user")).await;
    chrome.user_tab().await;
    let home = TempDir::new("mcp-home");
    let (args, env) = host_args(&home, &[chrome.profile.path()], &[]);
    let mcp = connect("porthole", &args, &env).await;
    ok(
        &mcp,
        "navigate",
        json!({"url": pages.url("/downloads.html"), "wait_for_selector": "#blob"}),
    )
    .await;
    let snap = ok(&mcp, "read_page", json!({})).await;
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "link \"Get report\"")}),
    )
    .await;
    porthole_tests::eventually("the link's download", Duration::from_secs(20), || async {
        let t = ok(&mcp, "list_downloads", json!({})).await;
        (t.contains("report.bin") && t.contains("completed")).then_some(())
    })
    .await;
    let snap = ok(&mcp, "read_page", json!({})).await;
    let clicked = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Make blob\"")}),
    )
    .await;
    let list =
        porthole_tests::eventually("the script's download", Duration::from_secs(20), || async {
            let t = ok(&mcp, "list_downloads", json!({})).await;
            (t.contains("bytes.bin") && t.matches("completed").count() == 2).then_some(t)
        })
        .await;
    assert!(saves.path().join("bytes.bin").exists(), "{list}\n{clicked}");
    // The control for the note below: a handler that works threw nothing.
    assert!(!clicked.contains("threw"), "{clicked}");

    let snap = ok(&mcp, "read_page", json!({})).await;
    let broken = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Broken blob\"")}),
    )
    .await;
    assert!(broken.contains("The page's script threw"), "{broken}");
    assert!(
        broken.contains("createObjectURL is not a function"),
        "{broken}"
    );
    let list = ok(&mcp, "list_downloads", json!({})).await;
    assert!(!list.contains("never.txt"), "{list}");
}
