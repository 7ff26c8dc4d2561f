//! Docker mode on a second, real `dockerd` standing in for a remote host (issue 13,
//! DESIGN.md §14): reached over `tcp://127.0.0.1:<port>` with mutual TLS, CDP carried inside
//! that connection by an exec of `porthole-sidecar cdp-pipe`, nothing published.
//!
//! Everything a test creates carries `porthole.test=<tag>` and is removed from the remote
//! engine by a [`RemoteCleanup`] guard even when the test fails.

use std::time::Duration;

use base64::Engine as _;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::docker::{self, unique};
use porthole_tests::pages;
use porthole_tests::pane::Pane;
use porthole_tests::remote::{self, RemoteCleanup};
use serde_json::{json, Value};

fn container(channel: &str) -> String {
    format!("porthole-chrome-{channel}")
}

fn volume(channel: &str) -> String {
    format!("porthole-chrome-profile-{channel}")
}

/// The remote engine's containers cannot reach this machine's 127.0.0.1 page server; pages
/// travel in the URL.
fn data_url(html: &str) -> String {
    format!(
        "data:text/html;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(html)
    )
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
    let output = tokio::process::Command::new(porthole_tests::workspace_binary("porthole"))
        .arg("--config")
        .arg(&path)
        .arg("--data-dir")
        .arg(dir.path())
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

#[tokio::test]
async fn remote_channel_runs_on_that_engine_streams_and_publishes_nothing() {
    let engine = remote::engine().await;
    remote::ensure_image(&engine).await;
    let tag = unique("rm-frames");
    let _cleanup = RemoteCleanup {
        engine: engine.clone(),
        tag: tag.clone(),
    };
    let daemon = TestDaemon::start_with(remote::options(&engine, &tag, json!({}))).await;
    let (_, health) = daemon.get("/api/health").await;
    assert_eq!(health["docker"], true, "{health}");

    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    let frame = pane.watch().await;
    assert!(frame.starts_with(&[0xff, 0xd8]), "a JPEG frame");
    // A page that repaints every animation frame keeps frames coming through the exec stream.
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": data_url(&pages::clock_page())}));
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

#[tokio::test]
async fn remote_profile_survives_an_idle_stop_and_a_killed_daemons_sidecar_is_adopted() {
    let engine = remote::engine().await;
    remote::ensure_image(&engine).await;
    let tag = unique("rm-profile");
    let _cleanup = RemoteCleanup {
        engine: engine.clone(),
        tag: tag.clone(),
    };
    let options = DaemonOptions {
        idle_timeout_secs: 1,
        ..remote::options(&engine, &tag, json!({}))
    };
    let mut daemon = TestDaemon::start_with(options.clone()).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    // A persistent cookie, set through a second exec stream (the daemon's own path).
    let probe = engine.probe(&container(&tag)).await;
    probe
        .cdp
        .call(
            "Storage.setCookies",
            json!({"cookies": [{"name": "kept", "value": "yes", "domain": "remote.example",
                "path": "/", "expires": 4_102_444_800i64}]}),
        )
        .await
        .expect("set a cookie");
    drop(probe);
    let first_id = engine.inspect_container(&container(&tag)).unwrap()["Id"].clone();

    // Idle stop: the pane leaves, the container goes, the volume stays.
    drop(pane);
    porthole_tests::eventually(
        "the idle sidecar to be removed from the remote engine",
        Duration::from_secs(60),
        || {
            let engine = engine.clone();
            let name = container(&tag);
            async move { engine.inspect_container(&name).is_none().then_some(()) }
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
    assert_ne!(second["Id"], first_id, "a new container");
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

#[tokio::test]
async fn wrong_tls_material_is_named_and_docker_build_says_which_file() {
    let engine = remote::engine().await;
    let tag = unique("rm-tls");
    let dir = porthole_tests::TempDir::new("bad-tls");
    let bad_key = dir.path().join("not-a-key.pem");
    std::fs::write(&bad_key, "this is not PEM\n").unwrap();
    let mut config = engine.docker_config();
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

#[tokio::test]
async fn tls_material_that_does_not_fit_the_engine_names_the_file() {
    let engine = remote::engine().await;
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
        let mut config = engine.docker_config();
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

#[tokio::test]
async fn a_remote_engine_without_base_images_fails_the_build_with_the_command_that_fixes_it() {
    let engine = remote::engine().await;
    let tag = unique("rm-nobase");
    let missing = format!("porthole-test-missing-base:{tag}");
    let mut browser = json!({
        "image_pull": false,
        "chrome_image": format!("porthole-test-chrome:{tag}"),
        "local_base_image": missing,
        "docker": engine.docker_config(),
    });
    browser["container_labels"] = json!({"porthole.test": tag});
    let (ok, output) = docker_build(json!({ "browser": browser })).await;
    assert!(!ok, "the build must fail: {output}");
    let fix = format!("docker save {missing} | DOCKER_HOST={}", engine.host);
    assert!(output.contains(&fix), "says how to load it: {output}");
    assert!(output.contains("docker load"), "{output}");
    assert!(
        output.contains(&format!("DOCKER_CERT_PATH={}", engine.cert_dir.display())),
        "{output}"
    );
}

#[tokio::test]
async fn a_cdp_stream_that_drops_mid_way_is_told_and_the_next_start_reconnects() {
    let engine = remote::engine().await;
    remote::ensure_image(&engine).await;
    let tag = unique("rm-drop");
    let _cleanup = RemoteCleanup {
        engine: engine.clone(),
        tag: tag.clone(),
    };
    let daemon = TestDaemon::start_with(remote::options(&engine, &tag, json!({}))).await;
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
