//! Trust boundaries, round two (DESIGN.md §16), through the real daemon: host mode per agent,
//! one daemon per data directory, the agent socket handed out read-only and reclaimed at start,
//! temporary files a killed daemon left, and the owner token kept out of logs.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use porthole_tests::{eventually, TempDir};
use serde_json::{json, Value};

use crate::host::chrome::UserChrome;
use crate::mcp::harness::{agent_proxy, err, ok, owner_proxy};

/// Puts `channel` in host mode from a pane, as a person would, and waits for `started`.
async fn start_host_mode(pane: &Pane, channel: &str) {
    let mark = pane.mark();
    pane.send(json!({"type": "start", "channel_id": channel, "mode": "host", "width": 800, "height": 600}));
    let started = pane
        .message_where("started or error", mark, |m| {
            m["type"] == "started" || m["type"] == "error"
        })
        .await;
    assert_eq!(started["type"], "started", "{started}");
    assert_eq!(started["mode"], "host", "{started}");
}

/// URLs of the page targets in the user's Chrome.
async fn user_chrome_urls(chrome: &UserChrome) -> Vec<String> {
    chrome
        .pages()
        .await
        .iter()
        .filter_map(|p| p["url"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn host_mode_is_for_agents_allowed_it_and_refused_to_the_others() {
    let pages = PageServer::start().await;
    let profile = TempDir::new("trust-host-chrome");
    let chrome = UserChrome::start(profile.path()).await;
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"browser": {"host": {"user_data_dirs": [profile.path()]}}}),
        ..DaemonOptions::default()
    })
    .await;
    const CHANNEL: &str = "trust-host";
    let (plain_id, plain) = daemon.add_agent(CHANNEL, "plain", &[]).await;
    let (status, created) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": CHANNEL, "name": "trusted", "allow_host_mode": true}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["allow_host_mode"], true, "{created}");
    let trusted = created["token"].as_str().unwrap().to_string();
    let (_, list) = daemon.get("/api/browser/agents").await;
    let listed = |id: &str| -> Value {
        list["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent_id"] == id)
            .map(|a| a["allow_host_mode"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(listed(&plain_id), false, "{list}");
    assert_eq!(
        listed(created["agent_id"].as_str().unwrap()),
        true,
        "{list}"
    );
    // The command line's `--host` sets the same.
    let data = daemon.data.path();
    let added = porthole_tests::cli::porthole_in(data)
        .args(["agent", "add", CHANNEL, "--name", "cli", "--host"])
        .output()
        .await
        .expect("porthole agent add --host");
    let printed = String::from_utf8_lossy(&added.stdout);
    assert!(added.status.success(), "{printed}");
    assert!(printed.contains("allow_host_mode"), "{printed}");
    let (_, list) = daemon.get("/api/browser/agents").await;
    let cli = list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "cli")
        .cloned()
        .unwrap_or_default();
    assert_eq!(cli["allow_host_mode"], true, "{list}");

    // One look from a pane in host mode…
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    start_host_mode(&pane, CHANNEL).await;

    // …does not carry an ordinary agent into the user's Chrome: an error result naming the
    // setting, for changing and reading tools alike, and nothing opens there.
    let refused_page = pages.url("/second?refused");
    let plain_agent = agent_proxy(&daemon, &plain).await;
    let refused = err(&plain_agent, "navigate", json!({"url": refused_page})).await;
    assert!(refused.contains("allow_host_mode"), "{refused}");
    let refused = err(&plain_agent, "list_tabs", json!({})).await;
    assert!(refused.contains("allow_host_mode"), "{refused}");
    let urls = user_chrome_urls(&chrome).await;
    assert!(
        !urls.iter().any(|u| u.contains("refused")),
        "the refused agent's page opened in the user's Chrome: {urls:?}"
    );
    assert!(daemon.log().contains("host_mode_refused"));

    // An agent allowed host mode acts there, in the user's Chrome.
    let allowed_page = pages.url("/second?allowed");
    let trusted_agent = agent_proxy(&daemon, &trusted).await;
    ok(&trusted_agent, "navigate", json!({"url": allowed_page})).await;
    eventually(
        "the allowed agent's page in the user's Chrome",
        Duration::from_secs(20),
        || {
            let chrome = &chrome;
            async move {
                user_chrome_urls(chrome)
                    .await
                    .iter()
                    .any(|u| u.contains("allowed"))
                    .then_some(())
            }
        },
    )
    .await;

    // The owner token, acting as `owner`, keeps working in host mode.
    let owner = owner_proxy(&daemon, CHANNEL, &[]).await;
    let tabs = ok(&owner, "list_tabs", json!({})).await;
    assert!(tabs.contains("allowed"), "{tabs}");
    // And the refused agent still is refused (nothing it did changed that).
    err(&plain_agent, "page_info", json!({})).await;
    plain_agent.cancel().await.ok();
    trusted_agent.cancel().await.ok();
    owner.cancel().await.ok();
}

/// `porthole serve` on `data`'s config and data dir with stdout and stderr captured; waits for
/// it to exit (at most `within`), `None` when it still runs then (it is killed).
async fn second_daemon(data: &Path, within: Duration) -> Option<std::process::Output> {
    let child = porthole_tests::cli::porthole_in(data)
        .args(["serve", "--listen", "127.0.0.1:0", "--mode", "local"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the second porthole");
    tokio::time::timeout(within, child.wait_with_output())
        .await
        .ok()
        .map(|out| out.expect("second porthole's output"))
}

fn sorted(mut pids: Vec<u32>) -> Vec<u32> {
    pids.sort_unstable();
    pids
}

#[tokio::test]
async fn a_second_daemon_on_the_same_data_dir_exits_naming_the_first_which_streams_on() {
    let pages = PageServer::start().await;
    let daemon = TestDaemon::start().await;
    let first_pid = daemon.child.as_ref().unwrap().id().unwrap();
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("trust-lock").await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/clock")}));
    pane.message_where("the clock page", mark, |m| {
        m["type"] == "page_info" && m["url"].as_str().is_some_and(|u| u.ends_with("/clock"))
    })
    .await;
    pane.watch().await;
    let chromium = format!(
        "--user-data-dir={}",
        daemon.profile_dir("trust-lock").display()
    );
    let browsers = sorted(porthole_tests::processes_with(&chromium));
    assert!(!browsers.is_empty(), "the first daemon's Chromium runs");

    let output = second_daemon(daemon.data.path(), Duration::from_secs(30))
        .await
        .expect("the second daemon exits at once instead of serving");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!("pid {first_pid}")),
        "the message names the first daemon's pid {first_pid}: {stderr}"
    );
    assert!(!stdout.contains("http://"), "it never served: {stdout}");

    // The first daemon, its browser and its pane's stream are untouched.
    assert_eq!(sorted(porthole_tests::processes_with(&chromium)), browsers);
    let frames = pane.frame_count();
    pane.frames_at_least(frames + 3).await;
    let (status, health) = daemon.get("/api/health").await;
    assert_eq!(status, 200, "{health}");
}

#[tokio::test]
async fn a_foreign_listener_on_the_socket_path_is_replaced_at_start() {
    use std::os::unix::fs::PermissionsExt as _;
    let data = TempDir::new("trust-socket");
    let run = data.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o777)).unwrap();
    // Something else answers on the socket's path (a relay a container left, say).
    let squatter = std::os::unix::net::UnixListener::bind(run.join("agents.sock")).unwrap();
    let daemon = TestDaemon::start_in(data, DaemonOptions::default()).await;
    let log = daemon.log();
    assert!(
        log.contains("agent_socket_replaced"),
        "the daemon says it replaced the socket:\n{log}"
    );
    let mode = std::fs::metadata(&run).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o755, "the socket's directory is the daemon's, 0755");
    let (_, token) = daemon.add_agent("trust-socket", "after", &[]).await;
    let (status, me) = daemon
        .socket_request(Some(&token), "GET", "/api/browser/agents/me", None)
        .await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["name"], "after");
    drop(squatter);
}

#[tokio::test]
async fn a_container_with_the_printed_mount_cannot_move_the_socket() {
    use porthole_tests::docker::{docker, unique, DockerCleanup};
    let daemon = TestDaemon::start().await;
    let data = daemon.data.path();
    let added = porthole_tests::cli::porthole_in(data)
        .args(["agent", "add", "trust-mount", "--name", "boxed"])
        .output()
        .await
        .expect("porthole agent add");
    let printed = String::from_utf8_lossy(&added.stdout).to_string();
    assert!(added.status.success(), "{printed}");
    let words: Vec<&str> = printed.split_whitespace().collect();
    let mount = words
        .windows(2)
        .find(|w| w[0] == "-v" && w[1].split(':').nth(1) == Some("/run/porthole"))
        .map(|w| w[1].to_string())
        .unwrap_or_else(|| panic!("no socket mount in:\n{printed}"));
    let token = words
        .iter()
        .find(|w| w.starts_with("pha_"))
        .expect("the token, printed once")
        .to_string();

    let tag = unique("trust-mount");
    let name = format!("porthole-test-{tag}");
    let mut cleanup = DockerCleanup::new(&tag);
    cleanup.names.push(name.clone());
    // Root in the container tries to move the socket aside (to put a relay in its place).
    let output = std::process::Command::new("docker")
        .args(["run", "--rm", "--name", &name, "--label"])
        .arg(format!("porthole.test={tag}"))
        .args(["-v", &mount, "porthole-base:bookworm", "sh", "-c"])
        .arg("ls -l /run/porthole/agents.sock && mv /run/porthole/agents.sock /run/porthole/moved")
        .output()
        .expect("docker run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stdout.contains("agents.sock"),
        "the container sees the socket: {stdout} {stderr}"
    );
    assert!(!output.status.success(), "mv succeeded: {stdout} {stderr}");
    assert!(stderr.contains("Read-only"), "{stderr}");
    assert!(mount.ends_with(":/run/porthole:ro"), "{mount}");
    assert!(daemon.agent_socket().exists());
    let (status, me) = daemon
        .socket_request(Some(&token), "GET", "/api/browser/agents/me", None)
        .await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["name"], "boxed");
    let _ = docker(&["rm", "-f", &name]);
}

#[tokio::test]
async fn startup_removes_the_temporary_files_a_killed_daemon_left() {
    let data = TempDir::new("trust-temp");
    let tmp = data.path().join("tmp");
    // What a SIGKILLed daemon leaves: a cookie database copy and a session's upload folder.
    let cookies = tmp.join("porthole-cookies-AbC123");
    let upload = tmp.join("porthole-files-work-XyZ789/uploads/1/0");
    std::fs::create_dir_all(&cookies).unwrap();
    std::fs::create_dir_all(&upload).unwrap();
    std::fs::write(cookies.join("Cookies"), b"copied cookie database").unwrap();
    std::fs::write(upload.join("passport.pdf"), b"uploaded file").unwrap();
    let kept = data.path().join("keep-me");
    std::fs::write(&kept, b"not a temporary file").unwrap();

    let daemon = TestDaemon::start_in(data, DaemonOptions::default()).await;
    let tmp = daemon.data.path().join("tmp");
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .expect("the daemon's temporary directory exists")
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "leftovers survived the start: {left:?}");
    assert!(daemon.data.path().join("keep-me").exists());
    assert!(daemon.log().contains("temp_files_removed"));
}

#[tokio::test]
async fn the_owner_token_never_reaches_the_log_or_a_piped_stdout() {
    let data = TempDir::new("trust-token");
    let config = data.path().join("config.json");
    std::fs::write(
        &config,
        json!({"server": {"agent_socket": data.path().join("run/agents.sock")}}).to_string(),
    )
    .unwrap();
    let mut child = porthole_tests::cli::porthole(&config, data.path())
        .args(["serve", "--listen", "127.0.0.1:0", "--mode", "local"])
        .env("RUST_LOG", "porthole=trace,info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn porthole");
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    // Drained all along, so the daemon never blocks on a full pipe.
    let stderr = tokio::spawn(async move {
        use tokio::io::AsyncReadExt as _;
        let mut all = Vec::new();
        let _ = stderr.read_to_end(&mut all).await;
        String::from_utf8_lossy(&all).into_owned()
    });
    use tokio::io::AsyncBufReadExt as _;
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let mut printed = String::new();
    let addr = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            printed.push_str(&line);
            printed.push('\n');
            if let Some(url) = line.trim().strip_prefix("http://") {
                return url.split('/').next().map(str::to_string);
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .unwrap_or_else(|| panic!("no pane URL printed:\n{printed}"));
    let token = std::fs::read_to_string(data.path().join("token")).unwrap();
    let token = token.trim();
    // The printed URL works once the token (from the data dir, or `porthole token`) is added.
    let pane = Pane::connect(&addr, token).await;
    pane.start("trust-token").await;
    drop(pane);
    porthole_tests::daemon::unsafe_free_kill(child.id().unwrap(), "-TERM");
    while let Ok(Some(line)) = lines.next_line().await {
        printed.push_str(&line);
        printed.push('\n');
    }
    child.wait().await.unwrap();
    let stderr = stderr.await.unwrap();
    let log_file = std::fs::read_to_string(data.path().join("logs/porthole.log"))
        .expect("the daemon's log file, logs/porthole.log");
    // The file holds what the daemon logged of this run (its channel's start), so a token
    // written there would show.
    assert!(
        log_file.contains("trust-token"),
        "logs/porthole.log holds nothing of this run:\n{log_file}"
    );
    for (what, text) in [
        ("stdout", printed.as_str()),
        ("stderr", stderr.as_str()),
        ("logs/porthole.log", log_file.as_str()),
    ] {
        assert!(
            !text.contains(token),
            "the owner token is in {what}:\n{text}"
        );
    }
    // And it says where the token is.
    assert!(printed.contains("porthole token"), "{printed}");
}
