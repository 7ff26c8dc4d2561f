//! Docker mode against the real engine and the real sidecar image: frames, the loopback-only
//! gate, profiles on volumes across idle stops and restarts, reset/delete, extensions, the
//! reaper, rollback of failed starts, a killed sidecar, and a real image build.
//!
//! Everything a test creates carries `porthole.test=<tag>` and is removed by a
//! [`DockerCleanup`] guard even when the test fails; channel names are unique per test.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::docker::container;
use porthole_tests::docker::{
    self, docker, ensure_image, inspect_container, labelled_containers, unique, volume_exists,
    DockerCleanup,
};
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

fn volume(channel: &str) -> String {
    format!("porthole-chrome-profile-{channel}")
}

/// Waits until the container `name` exists and no longer runs (an idle stop keeps it).
async fn stopped_and_kept(name: String) -> Value {
    porthole_tests::eventually(
        &format!("container {name} to be stopped and kept"),
        Duration::from_secs(30),
        || {
            let name = name.clone();
            async move { inspect_container(&name).filter(|info| info["State"]["Running"] == false) }
        },
    )
    .await
}

fn is_running(name: &str) -> bool {
    inspect_container(name).is_some_and(|info| info["State"]["Running"] == true)
}

#[tokio::test]
async fn a_sidecar_streams_frames_and_its_gate_is_loopback_only_and_secret() {
    ensure_image().await;
    let tag = unique("dk-frames");
    let _cleanup = DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({}))).await;
    let (_, health) = daemon.get("/api/health").await;
    assert_eq!(health["docker"], true, "{health}");
    assert_eq!(health["default_mode"], "docker");

    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    let frame = pane.watch().await;
    assert!(frame.starts_with(&[0xff, 0xd8]), "a JPEG frame");

    let info = inspect_container(&container(&tag)).expect("the sidecar runs");
    let labels = &info["Config"]["Labels"];
    assert_eq!(labels["porthole.channel"], tag.as_str());
    assert_eq!(labels["porthole.test"], tag.as_str());
    assert_eq!(labels["porthole.version"], env!("CARGO_PKG_VERSION"));
    assert!(labels["porthole.daemon"]
        .as_str()
        .is_some_and(|d| !d.is_empty()));
    let bindings = info["HostConfig"]["PortBindings"]["9222/tcp"]
        .as_array()
        .expect("the gate port is published");
    assert!(
        bindings.iter().all(|b| b["HostIp"] == "127.0.0.1"),
        "{bindings:?}"
    );
    let published = info["NetworkSettings"]["Ports"]["9222/tcp"]
        .as_array()
        .expect("published ports");
    assert!(
        published.iter().all(|b| b["HostIp"] == "127.0.0.1"),
        "{published:?}"
    );
    // Profile on the named volume, extensions off.
    let mounts = info["Mounts"].as_array().unwrap();
    assert_eq!(mounts.len(), 1, "{mounts:?}");
    assert_eq!(mounts[0]["Name"], volume(&tag).as_str());
    assert_eq!(mounts[0]["Destination"], "/profile");
    let args: Vec<&str> = info["Args"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(args.contains(&"--disable-extensions"), "{args:?}");
    assert_eq!(info["HostConfig"]["Memory"], 2048u64 * 1024 * 1024);

    // Without the secret the gate refuses; with it, it forwards.
    let (port, secret) = docker::gate(&info).expect("gate");
    let gate = format!("127.0.0.1:{port}");
    for path in [
        "/json/version".to_string(),
        "/devtools/browser".to_string(),
        format!("/{}x/ready", secret),
        "/ready".to_string(),
    ] {
        let (status, _) = porthole_tests::pages::http_request("GET", &gate, &path, &[], None).await;
        assert_eq!(status, 403, "{path}");
    }
    let (status, _) =
        porthole_tests::pages::http_request("GET", &gate, &format!("/{secret}/ready"), &[], None)
            .await;
    assert_eq!(status, 200);

    let (status, image) = daemon.get("/api/browser/image").await;
    assert_eq!(status, 200, "{image}");
    assert_eq!(image["present"], true);
    assert_eq!(image["image"], docker::image_under_test().as_str());
    assert!(image["labels"]["porthole.version"].is_string(), "{image}");
}

#[tokio::test]
async fn a_profile_survives_idle_stops_and_restarts_and_reset_and_delete_remove_it() {
    ensure_image().await;
    let tag = unique("dk-profile");
    let _cleanup = DockerCleanup::new(&tag);
    let pages = PageServer::start().await;
    let options = DaemonOptions {
        idle_timeout_secs: 1,
        ..docker::options(&tag, json!({"network": "host", "idle_pause_secs": 0}))
    };
    let daemon = TestDaemon::start_with(options.clone()).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start(&tag).await;
    pane.open_page(&pages.url("/input"), "Input page").await;
    let probe = docker::probe(&container(&tag)).await;
    probe
        .eval(
            &tab,
            "document.cookie = 'remember=me; max-age=86400; path=/'; document.cookie",
        )
        .await;
    drop(probe);
    let first_id = inspect_container(&container(&tag)).unwrap()["Id"].clone();

    // Idle: the container is stopped and kept, the volume stays.
    drop(pane);
    stopped_and_kept(container(&tag)).await;
    assert!(volume_exists(&volume(&tag)));

    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start(&tag).await;
    assert_eq!(
        inspect_container(&container(&tag)).unwrap()["Id"],
        first_id,
        "the kept container, started again"
    );
    pane.open_page(&pages.url("/second"), "Second page").await;
    let probe = docker::probe(&container(&tag)).await;
    assert_eq!(probe.eval(&tab, "document.cookie").await, "remember=me");
    drop(probe);
    drop(pane);

    // Daemon shutdown stops its sidecars; a restart finds the profile again.
    let data = daemon.stop().await;
    assert!(
        !is_running(&container(&tag)),
        "the sidecar outlived the daemon"
    );
    let daemon = TestDaemon::start_in(data, options).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start(&tag).await;
    pane.open_page(&pages.url("/second"), "Second page").await;
    let probe = docker::probe(&container(&tag)).await;
    assert_eq!(probe.eval(&tab, "document.cookie").await, "remember=me");
    drop(probe);

    // Reset: container and volume go, the pane hears it.
    let mark = pane.mark();
    let (status, body) = daemon
        .post("/api/browser/profile/reset", &json!({"channel_id": tag}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["removed"], true);
    pane.next_of("stopped", mark).await;
    assert!(inspect_container(&container(&tag)).is_none());
    assert!(!volume_exists(&volume(&tag)));

    // A fresh start has a fresh profile; delete removes it again.
    let tab = pane.start(&tag).await;
    pane.open_page(&pages.url("/second"), "Second page").await;
    let probe = docker::probe(&container(&tag)).await;
    assert_eq!(probe.eval(&tab, "document.cookie").await, "");
    drop(probe);
    assert!(volume_exists(&volume(&tag)));
    let (status, _) = daemon.delete(&format!("/api/browser/channels/{tag}")).await;
    assert_eq!(status, 204);
    assert!(inspect_container(&container(&tag)).is_none());
    assert!(!volume_exists(&volume(&tag)));
}

/// A tiny MV3 extension whose content script marks every page it runs on.
fn write_extension(dir: &std::path::Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        json!({
            "manifest_version": 3,
            "name": "porthole test marker",
            "version": "1.0",
            "content_scripts": [{"matches": ["<all_urls>"], "js": ["mark.js"], "run_at": "document_end"}]
        })
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("mark.js"),
        "document.documentElement.dataset.portholeExtension = 'loaded';",
    )
    .unwrap();
}

#[tokio::test]
async fn an_extension_is_mounted_read_only_and_runs_and_a_throwaway_profile_mounts_nothing() {
    ensure_image().await;
    let tag = unique("dk-ext");
    let _cleanup = DockerCleanup::new(&tag);
    let pages = PageServer::start().await;
    let dir = porthole_tests::TempDir::new("extension");
    let extension = dir.path().join("marker");
    write_extension(&extension);
    let daemon = TestDaemon::start_with(docker::options(
        &tag,
        json!({"network": "host", "persist_profile": false, "extensions": [extension]}),
    ))
    .await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start(&tag).await;

    let info = inspect_container(&container(&tag)).expect("the sidecar runs");
    let mounts = info["Mounts"].as_array().unwrap();
    assert_eq!(mounts.len(), 1, "only the extension: {mounts:?}");
    assert_eq!(mounts[0]["Type"], "bind");
    assert_eq!(mounts[0]["Destination"], "/extensions/0");
    assert_eq!(mounts[0]["RW"], false);
    assert!(!volume_exists(&volume(&tag)));
    assert_eq!(info["HostConfig"]["NetworkMode"], "host");

    pane.open_page(&pages.url("/input"), "Input page").await;
    let probe = docker::probe(&container(&tag)).await;
    probe
        .eval_until(
            &tab,
            "document.documentElement.dataset.portholeExtension || ''",
            json!("loaded"),
        )
        .await;
}

#[tokio::test]
async fn a_failed_start_leaves_no_container_or_volume_behind() {
    ensure_image().await;
    let tag = unique("dk-fail");
    let _cleanup = DockerCleanup::new(&tag);
    // An image without the sidecar: the container is created, then cannot start.
    let daemon = TestDaemon::start_with(docker::options(
        &tag,
        json!({"chrome_image": "porthole-base:bookworm"}),
    ))
    .await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let error = pane.start_refused(&tag).await;
    assert_eq!(error["code"], "browser_failed", "{error}");
    assert!(labelled_containers(&tag).is_empty());
    assert!(
        !volume_exists(&volume(&tag)),
        "the new volume is rolled back"
    );
    assert!(daemon.log().contains("start_rolled_back"));
    drop(pane);
    drop(daemon);

    // An extension dir that vanished: a clear error naming it, nothing created.
    let dir = porthole_tests::TempDir::new("extension");
    let extension = dir.path().join("gone");
    write_extension(&extension);
    let daemon =
        TestDaemon::start_with(docker::options(&tag, json!({"extensions": [extension]}))).await;
    std::fs::remove_dir_all(&extension).unwrap();
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let error = pane.start_refused(&tag).await;
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains(&extension.display().to_string()),
        "{message}"
    );
    assert!(labelled_containers(&tag).is_empty());
}

/// `docker create` of a container that only exits (`porthole-base`, no sidecar) with `labels`.
fn create_exited(name: &str, labels: &[String]) {
    let mut args = vec!["create".to_string(), "--name".to_string(), name.to_string()];
    for label in labels {
        args.push("--label".into());
        args.push(label.clone());
    }
    args.extend(["porthole-base:bookworm".to_string(), "true".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert!(docker(&args).0, "docker create {name}");
}

/// A start creates its container in one Engine API call and deals with a name in the way only
/// when the engine says so: a container of another daemon's is refused and left alone (the
/// volume that start made is rolled back), one of this daemon's stopped outside it is replaced.
#[tokio::test]
async fn a_channels_container_name_taken_is_refused_when_foreign_and_replaced_when_ours() {
    ensure_image().await;
    let tag = unique("dk-taken");
    let _cleanup = DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;

    let foreign = format!("{tag}-foreign");
    create_exited(&container(&foreign), &[format!("porthole.test={tag}")]);
    let foreign_id = inspect_container(&container(&foreign)).unwrap()["Id"].clone();
    let error = pane.start_refused(&foreign).await;
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("does not belong to this Porthole daemon"),
        "{error}"
    );
    assert_eq!(
        inspect_container(&container(&foreign)).unwrap()["Id"],
        foreign_id,
        "the foreign container is left alone"
    );
    assert!(
        !volume_exists(&volume(&foreign)),
        "the volume this start made is rolled back"
    );

    // Created after the daemon started, so its reaper has not seen it.
    let daemon_id = std::fs::read_to_string(daemon.data.path().join("daemon_id"))
        .unwrap()
        .trim()
        .to_string();
    let own = format!("{tag}-own");
    create_exited(
        &container(&own),
        &[
            format!("porthole.daemon={daemon_id}"),
            format!("porthole.channel={own}"),
            format!("porthole.test={tag}"),
        ],
    );
    let stale_id = inspect_container(&container(&own)).unwrap()["Id"].clone();
    pane.start(&own).await;
    let running = inspect_container(&container(&own)).unwrap();
    assert_ne!(running["Id"], stale_id, "a new container");
    assert_eq!(running["State"]["Running"], true);
    assert!(daemon.log().contains("stale_sidecar_removed"));
}

#[tokio::test]
async fn stale_sidecars_are_reaped_running_ones_adopted_and_foreign_ones_left_alone() {
    ensure_image().await;
    let tag = unique("dk-reap");
    let mut cleanup = DockerCleanup::new(&tag);
    let mut daemon = TestDaemon::start_with(docker::options(&tag, json!({}))).await;
    let kept = format!("{tag}-kept");
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&kept).await;
    drop(pane);
    let kept_id = inspect_container(&container(&kept)).unwrap()["Id"].clone();
    let daemon_id = std::fs::read_to_string(daemon.data.path().join("daemon_id"))
        .unwrap()
        .trim()
        .to_string();
    // A daemon killed outright leaves its sidecar running.
    daemon.kill_hard().await;

    let stale = format!("{tag}-stale");
    let create = create_exited;
    create(
        &container(&stale),
        &[
            format!("porthole.daemon={daemon_id}"),
            format!("porthole.channel={stale}"),
            format!("porthole.test={tag}"),
        ],
    );
    let other_daemon = format!("porthole-test-other-{tag}");
    create(
        &other_daemon,
        &[
            "porthole.daemon=someone-else".to_string(),
            format!("porthole.test={tag}"),
        ],
    );
    let foreign = format!("porthole-test-foreign-{tag}");
    cleanup.names.push(foreign.clone());
    create(&foreign, &[]);

    let data = std::mem::replace(
        &mut daemon.data,
        porthole_tests::TempDir(Default::default()),
    );
    drop(daemon);
    let daemon = TestDaemon::start_in(data, docker::options(&tag, json!({}))).await;
    // The reaper ran before the daemon printed its URL.
    assert!(
        inspect_container(&container(&stale)).is_none(),
        "stale one reaped"
    );
    assert!(
        inspect_container(&foreign).is_some(),
        "foreign one untouched"
    );
    assert!(
        inspect_container(&other_daemon).is_some(),
        "another daemon's untouched"
    );
    let adopted = inspect_container(&container(&kept)).expect("running sidecar adopted");
    assert_eq!(adopted["Id"], kept_id);

    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&kept).await;
    pane.watch().await;
    assert_eq!(
        inspect_container(&container(&kept)).unwrap()["Id"],
        kept_id,
        "the adopted container serves the channel"
    );
    assert!(daemon.log().contains("sidecar_adopted"));
}

#[tokio::test]
async fn a_killed_sidecar_is_reported_and_the_next_start_brings_a_new_one_on_the_same_profile() {
    ensure_image().await;
    let tag = unique("dk-kill");
    let _cleanup = DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    let first = inspect_container(&container(&tag)).unwrap()["Id"].clone();
    let mark = pane.mark();
    assert!(docker(&["kill", &container(&tag)]).0);
    let error = pane.next_of("error", mark).await;
    assert_eq!(error["code"], "browser_gone", "{error}");
    pane.next_of("stopped", mark).await;
    pane.start(&tag).await;
    pane.watch().await;
    let second = inspect_container(&container(&tag)).unwrap();
    assert_ne!(second["Id"], first);
    assert_eq!(second["Mounts"][0]["Name"], volume(&tag).as_str());
}

#[tokio::test]
async fn without_an_engine_the_daemon_falls_back_to_local_mode() {
    let daemon = TestDaemon::start_with(DaemonOptions {
        mode: "docker",
        env: vec![(
            "DOCKER_HOST".to_string(),
            "unix:///nonexistent/docker.sock".to_string(),
        )],
        ..Default::default()
    })
    .await;
    let (_, health) = daemon.get("/api/health").await;
    assert_eq!(health["docker"], false, "{health}");
    assert_eq!(health["default_mode"], "local");
    let (status, body) = daemon.get("/api/browser/image").await;
    assert_eq!(status, 409, "{body}");
    assert!(daemon.log().contains("docker_unavailable"));
}

#[tokio::test]
async fn a_missing_image_is_built_with_progress_to_the_pane() {
    ensure_image().await;
    let tag = unique("dk-build");
    let _cleanup = DockerCleanup::new(&tag);
    let image = format!("porthole-chrome-test-{tag}:latest");
    // image_pull on: no registry answers here, so the build falls back to the local bases.
    let mut options = docker::options(&tag, json!({"chrome_image": image}));
    options.config["browser"]["image_pull"] = json!(true);
    let daemon = TestDaemon::start_with(options).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let mark = pane.mark();
    pane.send(json!({"type": "start", "channel_id": tag}));
    pane.message_where("build progress", mark, |m| {
        m["type"] == "progress" && m["stage"] == "building_image"
    })
    .await;
    let (_, status) = daemon.get("/api/browser/image").await;
    assert_eq!(status["building"], true, "{status}");
    pane.wait("the build and start", Duration::from_secs(600), |r| {
        r.messages
            .iter()
            .skip(mark)
            .find(|m| m["type"] == "started" || m["type"] == "error")
            .cloned()
    })
    .await;
    let started = pane.next_of("started", mark).await;
    assert_eq!(started["channel_id"], tag.as_str());
    pane.watch().await;
    let (_, status) = daemon.get("/api/browser/image").await;
    assert_eq!(status["present"], true, "{status}");
    assert_eq!(status["building"], false);
    assert_eq!(
        status["labels"]["porthole.version"],
        env!("CARGO_PKG_VERSION")
    );
    assert!(status["labels"]["porthole.built_at"].is_string());
    assert!(daemon.log().contains("base_image_fallback"));
    // The container runs the new image.
    let info = inspect_container(&container(&tag)).unwrap();
    assert_eq!(info["Config"]["Image"], image.as_str());
    drop(pane);
    drop(daemon);
    // The guard removes the image (it carries porthole.test); containers first.
    for name in labelled_containers(&tag) {
        docker(&["rm", "-f", &name]);
    }
}

#[tokio::test]
async fn an_image_build_is_token_protected_and_a_missing_base_is_a_clear_error() {
    let tag = unique("dk-nobase");
    let _cleanup = DockerCleanup::new(&tag);
    let image = format!("porthole-chrome-test-{tag}:latest");
    let daemon = TestDaemon::start_with(DaemonOptions {
        mode: "local",
        ..docker::options(
            &tag,
            json!({
                "chrome_image": image,
                "base_image": format!("porthole-test-missing-{tag}:none"),
                "local_base_image": format!("porthole-test-missing-local-{tag}:none"),
            }),
        )
    })
    .await;
    let (status, _) = porthole_tests::pages::http_request(
        "POST",
        &daemon.addr,
        "/api/browser/image/build",
        &[],
        Some(String::new()),
    )
    .await;
    assert_eq!(status, 401);
    let (status, body) = daemon.post("/api/browser/image/build", &json!({})).await;
    assert_eq!(status, 202, "{body}");
    let failed =
        porthole_tests::eventually("the build to fail", Duration::from_secs(60), || async {
            let (_, status) = daemon.get("/api/browser/image").await;
            (status["building"] == false && status["last_error"].is_string()).then_some(status)
        })
        .await;
    let message = failed["last_error"].as_str().unwrap();
    assert!(message.contains("base-images.sh"), "{message}");
    assert_eq!(failed["present"], false);
    let (_, doc) = daemon.get("/api/openapi.json").await;
    assert!(doc["paths"]["/api/browser/image"].is_object());
    assert!(doc["paths"]["/api/browser/image/build"].is_object());
}

/// Sets a persistent cookie through a second CDP connection to the channel's browser.
async fn set_cookie(channel: &str) {
    let probe = docker::probe(&container(channel)).await;
    probe.set_cookie("kept", "yes", "keep.example", true).await;
}

/// Whether the channel's browser has the cookie of [`set_cookie`].
async fn has_cookie(channel: &str) -> bool {
    let probe = docker::probe(&container(channel)).await;
    probe.has_cookie("kept", "yes").await
}

/// A sidecar the daemon stopped (idle) is kept and started again — the same container, the
/// same profile — while its spec matches, also by the next daemon on the same data dir; a
/// changed spec (another memory cap) replaces it on the same profile volume. The image check
/// and the sandbox probe run once per daemon, not once per start.
#[tokio::test]
async fn a_kept_sidecar_restarts_while_its_spec_matches_and_is_replaced_when_it_changes() {
    ensure_image().await;
    let tag = unique("dk-keep");
    let _cleanup = DockerCleanup::new(&tag);
    let options = DaemonOptions {
        idle_timeout_secs: 1,
        ..docker::options(&tag, json!({"idle_pause_secs": 0}))
    };
    let daemon = TestDaemon::start_with(options.clone()).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    set_cookie(&tag).await;
    let first_id = inspect_container(&container(&tag)).unwrap()["Id"].clone();
    drop(pane);
    let kept = stopped_and_kept(container(&tag)).await;
    assert_eq!(kept["Id"], first_id);

    // Same daemon, same spec: the kept container starts again, profile and all.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    let again = inspect_container(&container(&tag)).unwrap();
    assert_eq!(again["Id"], first_id, "the kept container, started again");
    assert_eq!(again["State"]["Running"], true);
    assert!(has_cookie(&tag).await, "the profile is kept");
    let log = daemon.log();
    assert!(log.contains("sidecar_restarted"), "{log}");
    // Two starts, one image check and one sandbox probe.
    assert_eq!(log.matches("sidecar_image_checked").count(), 1, "{log}");
    assert_eq!(log.matches("sidecar_sandbox").count(), 1, "{log}");
    drop(pane);
    stopped_and_kept(container(&tag)).await;

    // The next daemon on the same data dir, same config: still the same container.
    let data = daemon.stop().await;
    let daemon = TestDaemon::start_in(data, options.clone()).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    assert_eq!(
        inspect_container(&container(&tag)).unwrap()["Id"],
        first_id,
        "kept across a daemon restart"
    );
    drop(pane);
    stopped_and_kept(container(&tag)).await;

    // Another memory cap: the kept container no longer matches and is replaced; the profile
    // volume (and the cookie in it) stays.
    let data = daemon.stop().await;
    let changed = DaemonOptions {
        idle_timeout_secs: 1,
        ..docker::options(&tag, json!({"memory_mb": 1536, "idle_pause_secs": 0}))
    };
    let daemon = TestDaemon::start_in(data, changed).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    let replaced = inspect_container(&container(&tag)).unwrap();
    assert_ne!(replaced["Id"], first_id, "a new container for the new spec");
    assert_eq!(
        replaced["HostConfig"]["Memory"],
        1536u64 * 1024 * 1024,
        "{replaced}"
    );
    assert!(has_cookie(&tag).await, "the profile volume is kept");
    let log = daemon.log();
    assert!(log.contains("sidecar_spec_changed"), "{log}");
}
