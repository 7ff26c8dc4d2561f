//! Docker mode on a second, real `dockerd` standing in for a remote host (issue 13,
//! DESIGN.md §14): reached over `tcp://127.0.0.1:<port>` with mutual TLS, CDP carried inside
//! that connection by an exec of `porthole-sidecar cdp-pipe`, nothing published.
//!
//! Each test that reaches the engine runs twice (issue 22): `direct`, and
//! `at_50ms_round_trip` with the daemon (and `docker-build`) reaching the engine through a
//! delaying proxy that adds 25 ms each way — behaviour at distance, never timings; the test's
//! own `docker` CLI goes direct.
//!
//! Everything a test creates carries `porthole.test=<tag>` and is removed from the remote
//! engine by its [`RemoteTest`] even when the test fails.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::delay_proxy::Link;
use porthole_tests::docker::container;
use porthole_tests::docker::{self, unique};
use porthole_tests::pages;
use porthole_tests::pane::Pane;
use porthole_tests::remote::RemoteTest;
use serde_json::{json, Value};

/// How far the engine is from the daemon.
#[derive(Debug, Clone, Copy)]
enum Distance {
    Direct,
    /// Through a delaying proxy, this many ms each way.
    Away(u64),
}

impl Distance {
    /// The link the daemon reaches the engine by: `None` for direct.
    fn link(self) -> Option<Link> {
        match self {
            Distance::Direct => None,
            Distance::Away(ms) => Some(Link::delay_ms(ms)),
        }
    }
}

/// Each body as two tests: `<name>::direct` and `<name>::at_50ms_round_trip`.
macro_rules! at_both_distances {
    ($($test:ident => $body:ident;)*) => {$(
        mod $test {
            #[tokio::test]
            async fn direct() {
                super::$body(super::Distance::Direct).await
            }
            #[tokio::test]
            async fn at_50ms_round_trip() {
                super::$body(super::Distance::Away(25)).await
            }
        }
    )*};
}

at_both_distances! {
    remote_channel_runs_on_that_engine_streams_and_publishes_nothing => channel_runs_and_publishes_nothing;
    remote_profile_survives_an_idle_stop_and_a_killed_daemons_sidecar_is_adopted => profile_survives_and_sidecar_is_adopted;
    wrong_tls_material_is_named_and_docker_build_says_which_file => wrong_tls_material_is_named;
    tls_material_that_does_not_fit_the_engine_names_the_file => tls_material_that_does_not_fit;
    a_remote_engine_without_base_images_fails_the_build_with_the_command_that_fixes_it => no_base_images_names_the_fix;
    a_cdp_stream_that_drops_mid_way_is_told_and_the_next_start_reconnects => dropped_stream_is_told_and_reconnects;
    an_agents_tools_drive_a_remote_browser => agents_tools_drive_a_remote_browser;
}

fn volume(channel: &str) -> String {
    format!("porthole-chrome-profile-{channel}")
}

/// Sends `start` with a mode and waits for the `error` the pane gets; returns it.
async fn start_error(pane: &Pane, channel: &str, mode: &str) -> Value {
    let mark = pane.mark();
    pane.send(json!({"type": "start", "channel_id": channel, "mode": mode}));
    pane.message_where("an error", mark, |m| m["type"] == "error")
        .await
}

/// Runs `porthole docker-build` with `config`; returns (success, stderr + stdout).
async fn docker_build(config: Value) -> (bool, String) {
    let dir = porthole_tests::TempDir::new("remote-build");
    let path = dir.path().join("config.json");
    std::fs::write(&path, config.to_string()).unwrap();
    let output = porthole_tests::cli::porthole(&path, dir.path())
        .args(["docker-build", "--if-needed"])
        .output()
        .await
        .expect("run porthole docker-build");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    (output.status.success(), text)
}

async fn channel_runs_and_publishes_nothing(distance: Distance) {
    let test = RemoteTest::with_image("rm-frames", distance.link()).await;
    let (engine, tag) = (&test.engine, test.tag.clone());
    let daemon = TestDaemon::start_with(test.options(json!({}))).await;
    let (_, health) = daemon.get("/api/health").await;
    assert_eq!(health["docker"], true, "{health}");

    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    let frame = pane.watch().await;
    assert!(frame.starts_with(&[0xff, 0xd8]), "a JPEG frame");
    // A page that repaints every animation frame keeps frames coming through the exec stream.
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages::data_url(&pages::clock_page())}));
    pane.message_where("the clock page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Clock"
    })
    .await;
    pane.frames_at_least(pane.frame_count() + 10).await;

    // On the remote engine, labelled, and not on the local one.
    let info = engine
        .inspect_container(&container(&tag))
        .expect("the sidecar runs on the remote engine");
    assert_eq!(info["State"]["Running"], true);
    let labels = &info["Config"]["Labels"];
    assert_eq!(labels["porthole.channel"], tag.as_str());
    assert_eq!(labels["porthole.test"], tag.as_str());
    assert!(
        docker::inspect_container(&container(&tag)).is_none(),
        "the channel must not run on the local engine"
    );
    // Nothing published: no port bindings asked for, none made, nothing exposed.
    let bindings = &info["HostConfig"]["PortBindings"];
    assert!(
        bindings.is_null() || bindings.as_object().is_some_and(|b| b.is_empty()),
        "{bindings}"
    );
    // The image EXPOSEs the gate port; exposed is not published: no host binding at all.
    let ports = &info["NetworkSettings"]["Ports"];
    assert!(
        ports.is_null()
            || ports
                .as_object()
                .is_some_and(|p| p.values().all(Value::is_null)),
        "{ports}"
    );
    let env: Vec<&str> = info["Config"]["Env"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        env.contains(&"PORTHOLE_LISTEN=127.0.0.1:9222"),
        "the gate listens on the container's loopback only: {env:?}"
    );
    let log = daemon.log();
    assert!(log.contains("route=Exec"), "CDP goes by exec: {log}");
}

async fn profile_survives_and_sidecar_is_adopted(distance: Distance) {
    let test = RemoteTest::with_image("rm-profile", distance.link()).await;
    let (engine, tag) = (&test.engine, test.tag.clone());
    let options = DaemonOptions {
        idle_timeout_secs: 1,
        ..test.options(json!({"idle_pause_secs": 0}))
    };
    let mut daemon = TestDaemon::start_with(options.clone()).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    // A persistent cookie, set through a second exec stream (the daemon's own path).
    let probe = engine.probe(&container(&tag)).await;
    probe
        .set_cookie("kept", "yes", "remote.example", true)
        .await;
    drop(probe);
    let first_id = engine.inspect_container(&container(&tag)).unwrap()["Id"].clone();

    // Idle stop: the pane leaves, the container stops (kept for the next start), the volume
    // stays.
    drop(pane);
    porthole_tests::eventually(
        "the idle sidecar to stop on the remote engine",
        Duration::from_secs(60),
        || {
            let engine = engine.clone();
            let name = container(&tag);
            async move {
                engine
                    .inspect_container(&name)
                    .is_none_or(|info| info["State"]["Running"] != true)
                    .then_some(())
            }
        },
    )
    .await;
    assert!(
        engine.volume_exists(&volume(&tag)),
        "the profile volume stays"
    );

    // A new start finds the cookie in the same profile.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    let second = engine.inspect_container(&container(&tag)).unwrap();
    assert_eq!(second["Id"], first_id, "the kept container, started again");
    let probe = engine.probe(&container(&tag)).await;
    let cookies = probe
        .cdp
        .call("Storage.getCookies", json!({}))
        .await
        .expect("read cookies");
    assert!(
        cookies["cookies"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "kept" && c["value"] == "yes"),
        "{cookies}"
    );
    drop(probe);

    // SIGKILL: the sidecar outlives the daemon; the next daemon on the same data dir finds it
    // by its label and adopts it (its browser answers over an exec), and a stale container of
    // that daemon is removed; the next start reuses the adopted one.
    daemon.kill_hard().await;
    let running = engine
        .inspect_container(&container(&tag))
        .expect("the killed daemon's sidecar is still there");
    assert_eq!(running["State"]["Running"], true);
    let daemon_id = std::fs::read_to_string(daemon.data.path().join("daemon_id"))
        .unwrap()
        .trim()
        .to_string();
    let stale = format!("{tag}-stale");
    let (ok, _) = engine.docker(&[
        "create",
        "--name",
        &container(&stale),
        "--label",
        &format!("porthole.daemon={daemon_id}"),
        "--label",
        &format!("porthole.channel={stale}"),
        "--label",
        &format!("porthole.test={tag}"),
        "porthole-base:bookworm",
        "true",
    ]);
    assert!(ok, "create a stale container on the remote engine");
    let data = std::mem::replace(
        &mut daemon.data,
        porthole_tests::TempDir(Default::default()),
    );
    drop(pane);
    let restarted = TestDaemon::start_in(data, options).await;
    assert!(
        engine.inspect_container(&container(&stale)).is_none(),
        "the stale container is reaped at start"
    );
    let log = restarted.log();
    assert!(log.contains("sidecar_adopted"), "{log}");
    let pane = Pane::connect(&restarted.addr, &restarted.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    let after = engine.inspect_container(&container(&tag)).unwrap();
    assert_eq!(after["Id"], running["Id"], "the adopted sidecar is reused");
    assert!(
        engine.volume_exists(&volume(&tag)),
        "the profile volume stays"
    );
}

async fn wrong_tls_material_is_named(distance: Distance) {
    let test = RemoteTest::new("rm-tls", distance.link()).await;
    let (reach, tag) = (&test.reach, test.tag.clone());
    let dir = porthole_tests::TempDir::new("bad-tls");
    let bad_key = dir.path().join("not-a-key.pem");
    std::fs::write(&bad_key, "this is not PEM\n").unwrap();
    let mut config = reach.docker_config();
    config["tls"]["key"] = json!(bad_key);
    let options = DaemonOptions {
        config: json!({"browser": {"docker": config.clone(), "container_labels": {"porthole.test": tag}}}),
        mode: "docker",
        ..Default::default()
    };
    let daemon = TestDaemon::start_with(options).await;
    let (_, health) = daemon.get("/api/health").await;
    assert_eq!(health["docker"], false, "{health}");
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let error = start_error(&pane, &tag, "docker").await;
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&bad_key.display().to_string()) && message.contains("key"),
        "the pane's error names the key file: {error}"
    );
    assert!(daemon.log().contains(&bad_key.display().to_string()));

    let (ok, output) = docker_build(json!({"browser": {"docker": config}})).await;
    assert!(!ok, "docker-build must fail: {output}");
    assert!(
        output.contains(&bad_key.display().to_string()),
        "docker-build names the file: {output}"
    );
}

async fn tls_material_that_does_not_fit(distance: Distance) {
    let test = RemoteTest::new("rm-ca", distance.link()).await;
    let reach = &test.reach;
    let dir = porthole_tests::TempDir::new("other-ca");
    let (other_cert, other_key) = (
        dir.path().join("other.pem"),
        dir.path().join("other-key.pem"),
    );
    let status = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=not-the-engines-ca", "-keyout"])
        .arg(&other_key)
        .arg("-out")
        .arg(&other_cert)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("openssl runs");
    assert!(status.success());
    // A CA that did not sign the engine's certificate; a client certificate the engine does
    // not trust; a key that is not the client certificate's.
    let cases = [
        ("ca", &other_cert, "not signed by the CA in"),
        ("cert", &other_cert, "refused the client certificate"),
        ("key", &other_key, "does not belong to the TLS cert file"),
    ];
    for (key, file, says) in cases {
        let mut config = reach.docker_config();
        config["tls"][key] = json!(file);
        if key == "cert" {
            config["tls"]["key"] = json!(other_key);
        }
        let (ok, output) = docker_build(json!({"browser": {"docker": config}})).await;
        assert!(!ok, "{key}: docker-build must fail: {output}");
        assert!(
            output.contains(says) && output.contains(&file.display().to_string()),
            "{key}: the error says {says:?} and names {}: {output}",
            file.display()
        );
    }
}

#[tokio::test]
async fn an_unreachable_engine_is_told_to_the_pane_and_local_channels_still_work() {
    // A port nobody listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let host = format!("tcp://127.0.0.1:{port}");
    let tag = unique("rm-down");
    let options = DaemonOptions {
        config: json!({"browser": {"docker": {"host": host}}}),
        mode: "docker",
        ..Default::default()
    };
    let daemon = TestDaemon::start_with(options).await;
    let (_, health) = daemon.get("/api/health").await;
    assert_eq!(health["docker"], false, "{health}");
    assert_eq!(health["default_mode"], "local", "{health}");
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let error = start_error(&pane, &format!("{tag}-d"), "docker").await;
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&host) && message.contains("does not answer"),
        "the pane is told which engine does not answer: {error}"
    );
    // The same daemon still serves a local channel, frames and all.
    let mark = pane.mark();
    pane.send(json!({"type": "start", "channel_id": format!("{tag}-l"), "mode": "local"}));
    pane.next_of("started", mark).await;
    let frame = pane.watch().await;
    assert!(frame.starts_with(&[0xff, 0xd8]));
}

async fn no_base_images_names_the_fix(distance: Distance) {
    let test = RemoteTest::new("rm-nobase", distance.link()).await;
    let (engine, reach, tag) = (&test.engine, &test.reach, test.tag.clone());
    let missing = format!("porthole-test-missing-base:{tag}");
    let mut browser = json!({
        "image_pull": false,
        "chrome_image": format!("porthole-test-chrome:{tag}"),
        "local_base_image": missing,
        "docker": reach.docker_config(),
    });
    browser["container_labels"] = json!({"porthole.test": tag});
    let (ok, output) = docker_build(json!({ "browser": browser })).await;
    assert!(!ok, "the build must fail: {output}");
    let fix = format!("docker save {missing} | DOCKER_HOST={}", reach.host);
    assert!(output.contains(&fix), "says how to load it: {output}");
    assert!(output.contains("docker load"), "{output}");
    assert!(
        output.contains(&format!("DOCKER_CERT_PATH={}", engine.cert_dir.display())),
        "{output}"
    );
}

async fn dropped_stream_is_told_and_reconnects(distance: Distance) {
    let test = RemoteTest::with_image("rm-drop", distance.link()).await;
    let (engine, tag) = (&test.engine, test.tag.clone());
    let daemon = TestDaemon::start_with(test.options(json!({}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    let first_id = engine.inspect_container(&container(&tag)).unwrap()["Id"].clone();

    // The daemon's exec stream ends while the container keeps running: kill its relay.
    let mark = pane.mark();
    // Fails unless at least one relay was found and killed.
    let script = "n=0; for d in /proc/[0-9]*; do \
        [ \"$(tr '\\0' ' ' < $d/cmdline 2>/dev/null)\" = '/usr/local/bin/porthole-sidecar cdp-pipe ' ] \
        && kill ${d#/proc/} && n=$((n+1)); done; [ $n -gt 0 ]";
    let (ok, _) = engine.docker(&["exec", &container(&tag), "sh", "-c", script]);
    assert!(ok, "kill the relay");
    let error = pane
        .message_where("the browser_gone error", mark, |m| {
            m["type"] == "error" && m["code"] == "browser_gone"
        })
        .await;
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("exec stream")),
        "the pane is told the stream ended: {error}"
    );

    // The next start reconnects to the same, still running sidecar through a new exec.
    pane.start(&tag).await;
    pane.watch().await;
    let info = engine.inspect_container(&container(&tag)).unwrap();
    assert_eq!(info["Id"], first_id, "the same container, reconnected");
}

/// Calls a tool as the owner; returns (isError, the text blocks joined).
async fn tool(daemon: &TestDaemon, channel: &str, name: &str, args: Value) -> (bool, String) {
    daemon.owner_on(channel).act_text(name, args).await
}

fn ref_on(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?} in:\n{snapshot}"));
    let start = line.find("[ref=").unwrap() + 5;
    line[start..start + line[start..].find(']').unwrap()].to_string()
}

/// The MCP tools on a browser of the remote engine: every step does what it says (the
/// page's own state is read back), history works, a browser-internal page is refused.
async fn agents_tools_drive_a_remote_browser(distance: Distance) {
    let test = RemoteTest::with_image("rm-tools", distance.link()).await;
    let tag = test.tag.clone();
    let daemon = TestDaemon::start_with(test.options(json!({}))).await;
    // The browser starts on the first call (a container start can be slow on a loaded machine:
    // a pane waits longer than a tool call).
    Pane::connect(&daemon.addr, &daemon.token)
        .await
        .start(&tag)
        .await;
    // The remote engine's containers cannot reach this machine's page server: pages travel in
    // the URL. A form for the tools: a button that changes text, a field, a select.
    let form = pages::data_url(&pages::page("remote/form.html"));
    let (failed, text) = tool(&daemon, &tag, "navigate", json!({ "url": form })).await;
    assert!(!failed && text.contains("Title: Remote form"), "{text}");
    let (_, snapshot) = tool(&daemon, &tag, "read_page", json!({})).await;
    let (button, field, select) = (
        ref_on(&snapshot, "button \"Change\""),
        ref_on(&snapshot, "textbox \"Name\""),
        ref_on(&snapshot, "combobox \"Color\""),
    );
    let (failed, text) = tool(
        &daemon,
        &tag,
        "computer",
        json!({"action": "left_click", "ref": button}),
    )
    .await;
    assert!(!failed, "{text}");
    let (failed, text) = tool(
        &daemon,
        &tag,
        "computer",
        json!({"action": "type", "ref": field, "text": "far away"}),
    )
    .await;
    assert!(!failed && !text.contains("Read back"), "{text}");
    let (failed, text) = tool(
        &daemon,
        &tag,
        "form_input",
        json!({"ref": select, "value": "Green"}),
    )
    .await;
    assert!(!failed, "{text}");
    let state = "[document.getElementById('status').textContent, \
         document.getElementById('name').value, document.getElementById('color').value].join('|')";
    let (_, text) = tool(&daemon, &tag, "evaluate", json!({ "expression": state })).await;
    assert!(text.contains("Changed!|far away|g"), "{text}");

    let page2 = pages::data_url(&pages::page("remote/second.html"));
    let (failed, text) = tool(&daemon, &tag, "navigate", json!({ "url": page2 })).await;
    assert!(!failed && text.contains("Title: Second"), "{text}");
    let (failed, text) = tool(&daemon, &tag, "go_back", json!({})).await;
    assert!(!failed && text.contains("Title: Remote form"), "{text}");
    // The helper works in the page it came back to (a new world or the restored one).
    let (failed, snapshot) = tool(&daemon, &tag, "read_page", json!({})).await;
    assert!(
        !failed && snapshot.contains("button \"Change\""),
        "{snapshot}"
    );

    // A browser-internal page stays refused at any distance, and nothing changed.
    let (failed, text) = tool(
        &daemon,
        &tag,
        "navigate",
        json!({"url": "chrome://version"}),
    )
    .await;
    assert!(failed, "chrome://version must be refused: {text}");
    let (failed, text) = tool(&daemon, &tag, "page_info", json!({})).await;
    assert!(!failed && text.contains("Title: Remote form"), "{text}");
}
