//! Docker mode's idle pause against the real engine: an idle stop leaves the browser on one
//! blank tab and freezes its sidecar (`docker pause`); the next start thaws the same running
//! container (Chrome never restarted: a session cookie is still there) over the published gate
//! and over an exec; past `browser.idle_pause_secs` the sidecar is stopped and kept; a paused
//! sidecar is thawed and removed at daemon shutdown, and found paused again by the next daemon
//! after a killed one.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::docker::container;
use porthole_tests::docker::{self, ensure_image, inspect_container, unique, DockerCleanup};
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

/// Waits until the container `name` is paused.
async fn paused(name: &str) -> Value {
    porthole_tests::eventually(
        &format!("container {name} to be paused"),
        Duration::from_secs(30),
        || async { inspect_container(name).filter(|info| info["State"]["Paused"] == true) },
    )
    .await
}

/// Starts the channel on a new pane; returns the pane and its first `tabs` message.
async fn start(daemon: &TestDaemon, channel: &str) -> (Pane, Value) {
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let mark = pane.mark();
    pane.start(channel).await;
    let tabs = pane.next_of("tabs", mark).await;
    pane.watch().await;
    (pane, tabs)
}

/// A session cookie (no expiry): it lives only as long as this Chrome runs.
async fn set_session_cookie(channel: &str) {
    let probe = docker::probe(&container(channel)).await;
    probe
        .set_cookie("session", "live", "pause.example", false)
        .await;
}

async fn has_session_cookie(channel: &str) -> bool {
    let probe = docker::probe(&container(channel)).await;
    probe.has_cookie("session", "live").await
}

/// The host PID of the sidecar's Chrome browser process (the one on the DevTools pipe; its
/// renderers and helpers carry `--type=`): a restarted Chrome is another process.
fn chrome_pid(name: &str) -> String {
    let (ok, out) = docker::docker(&["top", name, "-o", "pid,args"]);
    assert!(ok, "docker top {name}: {out}");
    out.lines()
        .skip(1)
        .find(|l| l.contains("--remote-debugging-pipe") && !l.contains("--type="))
        .and_then(|l| l.split_whitespace().next())
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no Chrome browser process in {name}:\n{out}"))
}

/// Pause at the idle stop, resume at the next start, over `transport`.
async fn paused_and_resumed(transport: &str) {
    ensure_image().await;
    let tag = unique(&format!("dk-pause-{transport}"));
    let _cleanup = DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(DaemonOptions {
        idle_timeout_secs: 1,
        ..docker::options(&tag, json!({"docker": {"cdp_transport": transport}}))
    })
    .await;
    let name = container(&tag);
    let (pane, _) = start(&daemon, &tag).await;
    let port = transport == "port";
    if port {
        set_session_cookie(&tag).await;
    }
    // A second tab, that the idle stop must close.
    let mark = pane.mark();
    pane.send(json!({"type": "new_tab"}));
    pane.message_where("two tabs", mark, |m| {
        m["type"] == "tabs" && m["tabs"].as_array().is_some_and(|t| t.len() == 2)
    })
    .await;
    let first = inspect_container(&name).unwrap();
    let chrome = chrome_pid(&name);

    drop(pane);
    let frozen = paused(&name).await;
    assert_eq!(frozen["State"]["Running"], true, "paused, not stopped");
    assert_eq!(frozen["Id"], first["Id"]);
    let (_, list) = daemon.get("/api/browser/channels").await;
    let row = list["channels"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["channel_id"] == tag.as_str()))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        row["running"], false,
        "a paused channel is not running: {list}"
    );

    let (_pane, tabs) = start(&daemon, &tag).await;
    let again = inspect_container(&name).unwrap();
    assert_eq!(again["State"]["Paused"], false);
    assert_eq!(again["Id"], first["Id"], "the same container");
    assert_eq!(
        again["State"]["StartedAt"], first["State"]["StartedAt"],
        "resumed, never restarted"
    );
    let tabs = tabs["tabs"].as_array().cloned().unwrap_or_default();
    assert_eq!(tabs.len(), 1, "one tab left: {tabs:?}");
    assert_eq!(tabs[0]["url"], "about:blank", "{tabs:?}");
    // Chrome kept running, whatever the transport: the same process, and (through the gate)
    // its session cookie.
    assert_eq!(chrome_pid(&name), chrome, "the same Chrome process");
    if port {
        assert!(has_session_cookie(&tag).await, "Chrome kept running");
    }
    assert!(daemon.logged("sidecar_paused"), "{}", daemon.log());
    assert!(daemon.logged("sidecar_resumed"), "{}", daemon.log());
    // The tabs closed for the pause are nobody's doing: the timeline does not show them.
    let (status, timeline) = daemon
        .get(&format!(
            "/api/browser/channels/{tag}/timeline?since_seq=0&limit=500"
        ))
        .await;
    assert_eq!(status, 200, "{timeline}");
    let events = timeline["events"].as_array().cloned().unwrap_or_default();
    assert!(
        events.iter().any(|e| e["kind"] == "tab_opened"),
        "the timeline follows the channel: {timeline}"
    );
    assert!(
        !events.iter().any(|e| e["kind"] == "tab_closed"),
        "{timeline}"
    );
}

#[tokio::test]
async fn an_idle_sidecar_is_paused_on_one_blank_tab_and_resumed_through_its_gate() {
    paused_and_resumed("port").await;
}

#[tokio::test]
async fn an_idle_sidecar_is_paused_and_resumed_over_an_exec() {
    paused_and_resumed("exec").await;
}

/// The pause window ends in a stop (kept: the next start starts the same container again);
/// shutdown thaws and removes a paused sidecar; a killed daemon's paused sidecar is resumed by
/// the next daemon, or replaced when the next daemon's config makes another spec.
#[tokio::test]
async fn a_paused_sidecar_is_stopped_after_its_window_removed_at_shutdown_and_found_again() {
    ensure_image().await;
    let tag = unique("dk-pause-end");
    let _cleanup = DockerCleanup::new(&tag);
    let name = container(&tag);
    let short = DaemonOptions {
        idle_timeout_secs: 1,
        ..docker::options(&tag, json!({"idle_pause_secs": 2}))
    };
    let daemon = TestDaemon::start_with(short).await;
    let (pane, _) = start(&daemon, &tag).await;
    let first = inspect_container(&name).unwrap();
    drop(pane);
    paused(&name).await;
    porthole_tests::eventually(
        "the paused sidecar to be stopped",
        Duration::from_secs(30),
        || async { inspect_container(&name).filter(|info| info["State"]["Running"] == false) },
    )
    .await;
    let (pane, _) = start(&daemon, &tag).await;
    assert!(daemon.logged("sidecar_pause_ended"), "{}", daemon.log());
    assert!(
        daemon.logged("sidecar_restarted"),
        "the kept container: {}",
        daemon.log()
    );
    assert_eq!(inspect_container(&name).unwrap()["Id"], first["Id"]);
    drop(pane);

    // Paused at shutdown: thawed, stopped and removed.
    paused(&name).await;
    let data = daemon.stop().await;
    assert!(
        inspect_container(&name).is_none(),
        "the paused sidecar outlived the daemon"
    );

    // A killed daemon leaves its paused sidecar paused; the next daemon resumes it.
    let long = DaemonOptions {
        idle_timeout_secs: 1,
        ..docker::options(&tag, json!({}))
    };
    let mut daemon = TestDaemon::start_in(data, long.clone()).await;
    let (pane, _) = start(&daemon, &tag).await;
    drop(pane);
    let frozen = paused(&name).await;
    daemon.kill_hard().await;
    let data = daemon.stop().await;
    let mut daemon = TestDaemon::start_in(data, long).await;
    let (pane, tabs) = start(&daemon, &tag).await;
    let again = inspect_container(&name).unwrap();
    assert_eq!(again["State"]["StartedAt"], frozen["State"]["StartedAt"]);
    assert_eq!(tabs["tabs"].as_array().map(Vec::len), Some(1), "{tabs}");
    assert!(daemon.logged("sidecar_paused_found"), "{}", daemon.log());
    assert!(daemon.logged("sidecar_resumed"), "{}", daemon.log());

    // A paused sidecar whose spec no longer matches the config (another memory cap) is
    // replaced, as a kept one would be.
    drop(pane);
    paused(&name).await;
    daemon.kill_hard().await;
    let data = daemon.stop().await;
    let changed = DaemonOptions {
        idle_timeout_secs: 1,
        ..docker::options(&tag, json!({"memory_mb": 1536}))
    };
    let daemon = TestDaemon::start_in(data, changed).await;
    start(&daemon, &tag).await;
    let replaced = inspect_container(&name).unwrap();
    assert_ne!(
        replaced["Id"], frozen["Id"],
        "a new container for the new spec"
    );
    assert_eq!(replaced["HostConfig"]["Memory"], 1536u64 * 1024 * 1024);
    assert!(daemon.logged("sidecar_spec_changed"), "{}", daemon.log());
}
