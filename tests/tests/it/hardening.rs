//! Hardening (DESIGN.md §13): no DevTools port on a local-mode or sidecar Chromium (bridge
//! and host network), least-privilege sidecars, clean errors and logs, faults.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use porthole_tests::sockets::{listening_sockets_of, process_family};
use serde_json::json;

/// A daemon exactly as a user gets it: no test-only DevTools port on its Chromium.
fn no_probe_port() -> DaemonOptions {
    DaemonOptions {
        probe_port: false,
        ..Default::default()
    }
}

/// The browser process (not a renderer or zygote) of the Chromium using `profile`.
fn browser_pid(profile: &std::path::Path) -> Option<u32> {
    let needle = format!("--user-data-dir={}", profile.display());
    porthole_tests::processes_with(&needle)
        .into_iter()
        .find(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            !String::from_utf8_lossy(&cmdline).contains("--type=")
        })
}

#[test]
fn the_listen_socket_detector_sees_a_listening_socket() {
    // The check below can only fail if it can see a listener at all: prove it on our own.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let found = listening_sockets_of(&[std::process::id()]);
    assert!(
        !found.is_empty(),
        "no LISTEN socket found for this process although it listens on {}",
        listener.local_addr().unwrap()
    );
}

#[tokio::test]
async fn a_local_channel_works_over_the_pipe_and_its_chromium_listens_on_no_tcp_port() {
    let daemon = TestDaemon::start_with(no_probe_port()).await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("pipe").await;
    pane.watch().await;
    let mark = pane.mark();
    let frames_before = pane.frame_count();
    pane.send(json!({"type": "navigate", "url": pages.url("/second")}));
    pane.message_where("page_info of the second page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Second page"
    })
    .await;
    // The new page painted: a frame came after the navigation.
    pane.frames_at_least(frames_before + 1).await;

    let profile = daemon.profile_dir("pipe");
    let browser = browser_pid(&profile).expect("the channel's Chromium runs");
    let cmdline = String::from_utf8_lossy(
        &std::fs::read(format!("/proc/{browser}/cmdline")).unwrap_or_default(),
    )
    .replace('\0', " ");
    assert!(cmdline.contains("--remote-debugging-pipe"), "{cmdline}");
    assert!(!cmdline.contains("--remote-debugging-port"), "{cmdline}");
    // Wait until the renderer of the page exists, so the whole family is looked at.
    let family = porthole_tests::eventually(
        "a renderer under the browser",
        Duration::from_secs(10),
        || async move {
            let family = process_family(browser);
            family
                .iter()
                .any(|pid| {
                    std::fs::read(format!("/proc/{pid}/cmdline"))
                        .map(|c| String::from_utf8_lossy(&c).contains("--type=renderer"))
                        .unwrap_or(false)
                })
                .then_some(family)
        },
    )
    .await;
    let listening = listening_sockets_of(&family);
    assert!(
        listening.is_empty(),
        "Chromium processes {family:?} hold LISTEN sockets (pid, inode): {listening:?}"
    );
    assert!(
        !profile.join("DevToolsActivePort").exists(),
        "Chromium wrote DevToolsActivePort, so it opened a port"
    );
    assert!(!daemon.log().contains("DevTools listening"));
}

#[tokio::test]
async fn logs_written_to_files_carry_no_ansi_codes() {
    // The harness sends the daemon's stderr to a file, as a service manager would.
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    // A start logs inside the channel span (span fields are where colour used to leak).
    pane.start("plainlog").await;
    let file_log = daemon.data.path().join("logs").join("porthole.log");
    for (name, text) in [
        ("stderr", daemon.log()),
        (
            "logs/porthole.log",
            std::fs::read_to_string(&file_log).unwrap_or_default(),
        ),
    ] {
        assert!(
            text.contains("session_started") && text.contains("channel_id"),
            "{name} lacks the start's lines:\n{text}"
        );
        assert!(
            !text.contains('\x1b'),
            "{name} has ANSI escape codes:\n{text:?}"
        );
    }
}

#[tokio::test]
async fn a_corrupt_state_database_is_moved_aside_and_the_daemon_serves() {
    let data = porthole_tests::TempDir::new("corrupt");
    let garbage = b"\x00\x01not sqlite at all\xff\xfe".repeat(512);
    std::fs::write(data.path().join("state.sqlite3"), &garbage).unwrap();
    let daemon = TestDaemon::start_in(data, DaemonOptions::default()).await;
    let log = daemon.log();
    assert!(log.contains("state_corrupt"), "{log}");
    let aside: Vec<_> = std::fs::read_dir(daemon.data.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("state.sqlite3.corrupt-")
        })
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read(&aside[0]).unwrap(), garbage);
    // It serves, and the fresh database records a channel's mode.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("fresh").await;
    let (status, channels) = daemon.get("/api/browser/channels").await;
    assert_eq!(status, 200);
    assert_eq!(channels["channels"][0]["channel_id"], "fresh", "{channels}");
    let fresh = std::fs::read(daemon.data.path().join("state.sqlite3")).unwrap();
    assert!(fresh.starts_with(b"SQLite format 3\0"));
}

/// `CapEff`, `NoNewPrivs` and the real uid of a process, from `/proc/<pid>/status`.
fn privileges(pid: u32) -> Option<(String, String, String)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.split_whitespace().next().unwrap_or_default().to_string())
    };
    Some((field("CapEff:")?, field("NoNewPrivs:")?, field("Uid:")?))
}

#[tokio::test]
async fn a_sidecar_runs_with_least_privilege_and_chromium_sandboxed_and_its_browser_works() {
    use porthole_tests::docker::{self, ensure_image, inspect_container, unique, DockerCleanup};

    ensure_image().await;
    let tag = unique("dk-priv");
    let _cleanup = DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    // The browser works under these limits: it navigates and paints (a data: page, as the
    // bridge container cannot reach the host's loopback).
    let mark = pane.mark();
    let frames_before = pane.frame_count();
    pane.send(
        json!({"type": "navigate", "url": "data:text/html,<title>Boxed</title><h1>boxed</h1>"}),
    );
    pane.message_where("page_info of the data page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Boxed"
    })
    .await;
    pane.frames_at_least(frames_before + 1).await;

    let name = format!("porthole-chrome-{tag}");
    let info = inspect_container(&name).expect("the sidecar runs");
    let host = &info["HostConfig"];
    assert_eq!(host["CapDrop"], json!(["ALL"]), "{host}");
    assert!(
        host["CapAdd"].is_null() || host["CapAdd"] == json!([]),
        "{host}"
    );
    assert_eq!(host["Privileged"], false);
    assert_eq!(host["ReadonlyRootfs"], true, "{host}");
    assert!(
        host["SecurityOpt"]
            .as_array()
            .is_some_and(|o| o.iter().any(|o| o
                .as_str()
                .is_some_and(|o| o.starts_with("no-new-privileges")))),
        "{host}"
    );
    assert!(host["PidsLimit"].as_i64().is_some_and(|n| n > 0), "{host}");
    assert!(host["Tmpfs"]["/tmp"].is_string(), "{host}");
    assert_eq!(info["Config"]["User"], "porthole");

    // What the kernel says about the running processes: no capabilities, no new privileges,
    // not root — every process of the container, Chromium's included.
    let pid = info["State"]["Pid"].as_u64().expect("the sidecar's pid") as u32;
    let family = process_family(pid);
    let chromium: Vec<u32> = family
        .iter()
        .copied()
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains("chromium"))
                .unwrap_or(false)
        })
        .collect();
    assert!(!chromium.is_empty(), "no Chromium under the sidecar {pid}");
    let container_ns = std::fs::read_link(format!("/proc/{pid}/ns/user")).ok();
    for p in family {
        let Some((cap_eff, no_new_privs, uid)) = privileges(p) else {
            continue; // exited meanwhile
        };
        // Chromium's sandboxed zygotes hold capabilities only inside the user namespace they
        // made for themselves (that is how its namespace sandbox works), none over the
        // container's; in the container's own user namespace, nobody holds any.
        if std::fs::read_link(format!("/proc/{p}/ns/user")).ok() == container_ns {
            assert_eq!(cap_eff, "0000000000000000", "pid {p} has capabilities");
        }
        assert_eq!(no_new_privs, "1", "pid {p} may gain privileges");
        assert_ne!(uid, "0", "pid {p} runs as root");
    }
    // The root filesystem refuses writes; the scratch tmpfs takes them.
    let (wrote_root, _) = docker::docker(&["exec", &name, "sh", "-c", "echo x > /etc/probe"]);
    assert!(!wrote_root, "the root filesystem is writable");
    let (wrote_tmp, _) = docker::docker(&["exec", &name, "sh", "-c", "echo x > /tmp/probe"]);
    assert!(wrote_tmp, "/tmp is not writable");
    // Chromium's own sandbox runs under the sidecar's seccomp profile: the browser has no
    // --no-sandbox and its renderers live in user namespaces of their own.
    let log = daemon.log();
    assert!(
        log.contains("sidecar_sandbox"),
        "the log does not say whether Chromium's sandbox is on"
    );
    assert!(
        host["SecurityOpt"].as_array().is_some_and(|o| o
            .iter()
            .any(|o| o.as_str().is_some_and(|o| o.starts_with("seccomp=")))),
        "no seccomp profile on the sidecar (the probe said: {})",
        log.lines()
            .find(|l| l.contains("sidecar_sandbox"))
            .unwrap_or("")
    );
    let cmdline = |p: u32| {
        String::from_utf8_lossy(&std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default())
            .replace('\0', " ")
    };
    let user_ns = |p: u32| std::fs::read_link(format!("/proc/{p}/ns/user")).ok();
    // The browser: Chromium's own binary (argv[0], not the sidecar whose arguments merely
    // mention it), no --type=.
    let browser = chromium
        .iter()
        .copied()
        .find(|p| {
            let line = cmdline(*p);
            line.split(' ')
                .next()
                .is_some_and(|a| a.contains("chromium"))
                && !line.contains("--type=")
        })
        .expect("the browser process");
    assert!(
        !cmdline(browser).contains("--no-sandbox"),
        "{}",
        cmdline(browser)
    );
    let browser_ns = user_ns(browser).expect("the browser's user namespace");
    let renderer_ns = porthole_tests::eventually(
        "a renderer of the sidecar's Chromium",
        Duration::from_secs(10),
        || {
            let renderer = process_family(pid)
                .into_iter()
                .find(|p| cmdline(*p).contains("--type=renderer"));
            async move { renderer.and_then(user_ns) }
        },
    )
    .await;
    assert_ne!(
        renderer_ns, browser_ns,
        "the renderer shares the browser's user namespace: not sandboxed"
    );
}

#[tokio::test]
async fn a_chromium_that_exits_at_once_is_a_clear_error_with_its_last_words() {
    let dir = porthole_tests::TempDir::new("fakechrome");
    let fake = dir.path().join("chromium");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'fake chromium: no display here' >&2\nexit 3\n",
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&fake)
        .status()
        .unwrap();
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"browser": {"chromium_path": fake}}),
        ..no_probe_port()
    })
    .await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let started = std::time::Instant::now();
    let error = pane.start_refused("fake").await;
    assert_eq!(error["code"], "browser_failed", "{error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("exited"), "{error}");
    assert!(
        message.contains("fake chromium: no display here"),
        "{error}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn the_stdio_mcp_server_logs_to_a_file_or_pipe_without_ansi_codes() {
    let dir = porthole_tests::TempDir::new("mcplog");
    let stderr_path = dir.path().join("stderr.log");
    // No client: stdin is empty, so the server logs its start and stops.
    std::process::Command::new(porthole_tests::workspace_binary("porthole-mcp"))
        .args([
            "--api",
            "http://127.0.0.1:9",
            "--channel",
            "c",
            "--token",
            "t",
        ])
        .env("RUST_LOG", "debug")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .status()
        .expect("porthole-mcp runs");
    let text = std::fs::read_to_string(&stderr_path).unwrap();
    assert!(text.contains("porthole_mcp_start"), "{text}");
    assert!(!text.contains('\x1b'), "{text:?}");
}

/// Words of the Docker engine's own answers that must never reach a pane or an agent.
const ENGINE_WORDS: [&str; 4] = [
    "Docker responded",
    "status code",
    "Minimum memory limit",
    "Error response from daemon",
];

#[tokio::test]
async fn an_engine_refusal_reaches_pane_and_agent_without_engine_text_and_the_log_keeps_it() {
    use porthole_tests::docker::{self, ensure_image, labelled_containers, unique, DockerCleanup};
    ensure_image().await;
    let tag = unique("hd-engine");
    let _cleanup = DockerCleanup::new(&tag);
    // The real engine refuses to create a container with 1 MB of memory ("Minimum memory
    // limit allowed is 6MB", status 400).
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"memory_mb": 1}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let error = pane.start_refused(&tag).await;
    assert_eq!(error["code"], "browser_failed", "{error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("Docker could not"), "{message}");
    for words in ENGINE_WORDS {
        assert!(!message.contains(words), "engine text in a pane: {message}");
    }

    // An agent's call on the same channel: an error result, no engine text either.
    let (status, result) = daemon.owner_on(&tag).call("page_info", json!({})).await;
    let text = result.to_string();
    assert!(
        status != 200 || result["isError"] == true,
        "the call failed: {status} {result}"
    );
    for words in ENGINE_WORDS {
        assert!(!text.contains(words), "engine text to an agent: {text}");
    }
    // The engine's words are in the log, for whoever runs the daemon.
    let log = daemon.log();
    assert!(log.contains("Minimum memory limit"), "{log}");
    assert!(labelled_containers(&tag).is_empty());
}

/// A small tmpfs mounted on a fresh directory (needs root), unmounted and removed on drop.
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    fn mount(size: &str) -> Option<Self> {
        let dir = porthole_tests::TempDir::new("diskfull");
        let path = dir.path().to_path_buf();
        std::mem::forget(dir); // the guard below owns removal
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&path)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = std::fs::remove_dir(&path);
            return None;
        }
        Some(Self(path))
    }

    /// Writes a file until the filesystem is full.
    fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let path = self.0.join("filler");
        let mut file = std::fs::File::create(&path).expect("create filler");
        let chunk = vec![0u8; 64 * 1024];
        loop {
            if file.write_all(&chunk).and_then(|_| file.flush()).is_err() {
                break;
            }
        }
        // Leave nothing half-written in a cache: the next write anywhere must fail.
        let _ = file.sync_all();
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazy: the daemon may still hold a file for a moment after its SIGTERM.
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn a_full_data_disk_fails_state_writes_clearly_and_the_daemon_keeps_serving() {
    let Some(disk) = Tmpfs::mount("4m") else {
        assert_ne!(
            current_uid(),
            0,
            "mounting a tmpfs failed although the tests run as root"
        );
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    };
    let data = disk.0.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let daemon = TestDaemon::start_in(
        porthole_tests::TempDir(data),
        DaemonOptions {
            rust_log: "info",
            ..no_probe_port()
        },
    )
    .await;
    // A write before the disk is full works.
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": "full", "name": "before"}),
        )
        .await;
    assert_eq!(status, 201, "{body}");

    let filler = disk.fill();
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": "full", "name": "during"}),
        )
        .await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "state_unavailable", "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("disk full"), "{message}");
    let (status, body) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": "full", "mode": "local"}),
        )
        .await;
    assert!(
        status == 200 || status == 503,
        "a mode change on a full disk: {status} {body}"
    );
    if status == 503 {
        assert_eq!(body["error"]["code"], "state_unavailable", "{body}");
    }
    // Still serving: reads work, the agent made before is still listed.
    let (status, _) = daemon.get("/api/health").await;
    assert_eq!(status, 200);
    let (status, agents) = daemon.get("/api/browser/agents").await;
    assert_eq!(status, 200, "{agents}");
    assert!(agents.to_string().contains("before"), "{agents}");
    assert!(!agents.to_string().contains("during"), "{agents}");

    // Space again: writes work again without a restart.
    std::fs::remove_file(filler).unwrap();
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": "full", "name": "after"}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
}

fn current_uid() -> u32 {
    // /proc/self/status "Uid:\t<real>\t..." — no libc call needed.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().next().map(str::to_string))
        })
        .and_then(|u| u.parse().ok())
        .unwrap_or(u32::MAX)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sidecar_killed_mid_screencast_and_mid_tool_call_is_reported_and_recovers_its_flushed_profile(
) {
    use porthole_tests::docker::{
        self, docker, ensure_image, inspect_container, unique, DockerCleanup,
    };
    ensure_image().await;
    let tag = unique("hd-kill");
    let _cleanup = DockerCleanup::new(&tag);
    let container = format!("porthole-chrome-{tag}");
    let pages = PageServer::start().await;
    // A page that never answers, so a navigate call is still in flight when the sidecar dies.
    let hang = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hang_url = format!("http://{}/never", hang.local_addr().unwrap());
    let (accepted_tx, mut accepted) = tokio::sync::mpsc::unbounded_channel();
    let hanger = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = hang.accept().await {
            held.push(socket);
            let _ = accepted_tx.send(());
        }
    });
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"network": "host"}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start(&tag).await;
    pane.watch().await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/input")}));
    pane.message_where("the input page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Input page"
    })
    .await;
    let probe = docker::probe(&container).await;
    probe
        .eval(
            &tab,
            "document.cookie = 'survives=kill; max-age=86400; path=/'; document.cookie",
        )
        .await;
    drop(probe);
    // Chromium writes its cookie store on its own schedule (about every 30 s): wait until the
    // cookie is on the volume, so "flushed" is a fact and not a hope.
    porthole_tests::eventually(
        "the cookie written to the profile volume",
        Duration::from_secs(90),
        || {
            let container = container.clone();
            async move {
                docker(&[
                    "exec",
                    &container,
                    "grep",
                    "-c",
                    "survives",
                    "/profile/Default/Cookies",
                ])
                .0
                .then_some(())
            }
        },
    )
    .await;

    // An agent's navigate hangs on the page that never answers ...
    let owner = daemon.owner_on(&tag);
    let call = tokio::spawn(async move { owner.call("navigate", json!({"url": hang_url})).await });
    tokio::time::timeout(Duration::from_secs(30), accepted.recv())
        .await
        .expect("the browser asked for the hanging page");
    assert!(!call.is_finished(), "the navigate call is still in flight");
    // ... and the sidecar dies under it and under the pane's screencast.
    let mark = pane.mark();
    assert!(docker(&["kill", &container]).0);
    let error = pane.next_of("error", mark).await;
    assert_eq!(error["code"], "browser_gone", "{error}");
    pane.next_of("stopped", mark).await;
    let (status, result) = tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .expect("the agent's call ended soon after the kill")
        .unwrap();
    assert!(
        status != 200 || result["isError"] == true,
        "the agent was told: {status} {result}"
    );
    let text = result.to_string();
    for words in ENGINE_WORDS {
        assert!(!text.contains(words), "engine text to an agent: {text}");
    }

    // The next start recovers on the same volume, the flushed cookie still there.
    let tab = pane.start(&tag).await;
    pane.watch().await;
    let mounts = inspect_container(&container).expect("a new sidecar")["Mounts"].clone();
    assert!(
        mounts
            .to_string()
            .contains(&format!("porthole-chrome-profile-{tag}")),
        "{mounts}"
    );
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/second")}));
    pane.message_where("the second page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Second page"
    })
    .await;
    let probe = docker::probe(&container).await;
    assert_eq!(probe.eval(&tab, "document.cookie").await, "survives=kill");
    hanger.abort();
}

/// Docker mode on `network` ("bridge" or "host"): the channel works, a second CDP client
/// through the gate (a probe) works beside the daemon's own without disturbing it, and no
/// process of the sidecar's Chromium holds a LISTEN TCP socket; the sidecar holds exactly
/// one, its gate. With the host network the container's sockets are the host's, so this is
/// also "nothing of Chrome's on the host's loopback".
async fn a_sidecar_chromium_listens_on_no_tcp_port(network: &str) {
    use porthole_tests::docker::{
        self, docker, ensure_image, inspect_container, unique, DockerCleanup,
    };

    ensure_image().await;
    let tag = unique(&format!("hd-port-{network}"));
    let _cleanup = DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"network": network}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start(&tag).await;
    pane.watch().await;
    let navigate = |title: &'static str| {
        let pane = &pane;
        async move {
            let mark = pane.mark();
            let url = format!("data:text/html,<title>{title}</title><h1>{title}</h1>");
            pane.send(json!({"type": "navigate", "url": url}));
            pane.message_where(&format!("page_info of {title}"), mark, |m| {
                m["type"] == "page_info" && m["title"] == title
            })
            .await;
        }
    };
    navigate("First").await;

    // A second client on the shared pipe: it attaches, reads and detaches; the daemon's
    // session must neither see its replies nor take its detach for a closed tab.
    let container = format!("porthole-chrome-{tag}");
    let probe = docker::probe(&container).await;
    assert_eq!(probe.eval(&tab, "document.title").await, "First");
    assert!(!probe.pages().await.is_empty());
    drop(probe);
    let frames_before = pane.frame_count();
    navigate("Second").await;
    pane.frames_at_least(frames_before + 1).await;

    let info = inspect_container(&container).expect("the sidecar runs");
    let sidecar = info["State"]["Pid"].as_u64().expect("the sidecar's pid") as u32;
    let cmdline = |p: u32| {
        String::from_utf8_lossy(&std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default())
            .replace('\0', " ")
    };
    let family = porthole_tests::eventually(
        "a renderer under the sidecar's Chromium",
        Duration::from_secs(10),
        || async move {
            let family = process_family(sidecar);
            family
                .iter()
                .any(|p| cmdline(*p).contains("--type=renderer"))
                .then_some(family)
        },
    )
    .await;
    let chromium: Vec<u32> = family.iter().copied().filter(|p| *p != sidecar).collect();
    let browser = chromium
        .iter()
        .copied()
        .find(|p| {
            let line = cmdline(*p);
            line.split(' ')
                .next()
                .is_some_and(|a| a.contains("chromium"))
                && !line.contains("--type=")
        })
        .expect("the browser process");
    let browser_line = cmdline(browser);
    assert!(
        browser_line.contains("--remote-debugging-pipe"),
        "{browser_line}"
    );
    assert!(
        !browser_line.contains("--remote-debugging-port"),
        "{browser_line}"
    );
    let listening = listening_sockets_of(&chromium);
    assert!(
        listening.is_empty(),
        "Chromium processes {chromium:?} of the {network} sidecar hold LISTEN sockets (pid, inode): {listening:?}"
    );
    assert_eq!(
        listening_sockets_of(&[sidecar]).len(),
        1,
        "the sidecar should listen on its gate and nothing else"
    );
    let (has_port_file, _) = docker(&["exec", &container, "sh", "-c", "ls /profile/DevToolsActivePort /tmp/porthole-profile/DevToolsActivePort 2>/dev/null | grep -q ."]);
    assert!(
        !has_port_file,
        "Chromium wrote DevToolsActivePort, so it opened a port"
    );
}

#[tokio::test]
async fn a_bridge_network_sidecar_chromium_listens_on_no_tcp_port() {
    a_sidecar_chromium_listens_on_no_tcp_port("bridge").await;
}

#[tokio::test]
async fn a_host_network_sidecar_chromium_listens_on_no_tcp_port() {
    a_sidecar_chromium_listens_on_no_tcp_port("host").await;
}
