//! Docker mode, a channel's start step by step (issue 21): every part of a start → first
//! frame is logged — the provider's steps, the lifecycle lock wait, the CDP connect, the
//! session's opening, the start hook, the cast's start to its first frame — for a new
//! container and for a kept one started again, as `porthole-bench docker` reads them; and the
//! session's opening and the cast's start wait on few CDP replies one after another (each a
//! round trip to an engine far away). Counts and names, never times.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::docker::{self, ensure_image, inspect_container, unique, DockerCleanup};
use porthole_tests::pane::Pane;
use porthole_tests::start_log::{start_log, StartLog};
use serde_json::json;

/// Every part the bench adds up, in the order of a start.
const PARTS: [&str; 6] = [
    "lock wait",
    "provider other",
    "CDP connect",
    "session open",
    "start hook",
    "cast asked → first frame",
];

/// Most CDP replies the session's opening waits on one after another: discovery with the tab
/// list, the attach (beside the activation), the tab's preparation.
const OPEN_WAITS: f64 = 3.0;

/// Starts `channel` on a new pane up to its first frame; what the daemon logged about it.
async fn start(daemon: &TestDaemon, channel: &str) -> (Pane, StartLog) {
    let from = daemon.log().len();
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    pane.watch().await;
    // The first frame's line is written as the frame is published; wait for it to be logged.
    porthole_tests::eventually(
        "the first frame's log line",
        Duration::from_secs(10),
        || async {
            daemon.log()[from..]
                .contains("screencast_first_frame")
                .then_some(())
        },
    )
    .await;
    (pane, start_log(&daemon.log()[from..]))
}

fn check(case: &str, log: &StartLog) {
    let names: Vec<&str> = log.parts.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, PARTS, "{case}: {log:?}");
    let steps: Vec<&str> = log.steps.iter().map(|(name, _)| name.as_str()).collect();
    for step in ["image", "sandbox_probe", "attach", "start", "chrome_ready"] {
        assert!(steps.contains(&step), "{case}: no {step} step in {steps:?}");
    }
    assert!(
        log.open_waits.is_some_and(|waits| waits <= OPEN_WAITS),
        "{case}: the session's opening waited on {:?} CDP replies in turn, more than {OPEN_WAITS}",
        log.open_waits
    );
    assert_eq!(
        log.cast_waits,
        Some(1.0),
        "{case}: the cast's start (activate, start, repaint) waits on one reply"
    );
}

#[tokio::test]
async fn a_docker_start_logs_each_step_to_the_first_frame_new_and_kept() {
    ensure_image().await;
    let tag = unique("dk-steps");
    let _cleanup = DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(DaemonOptions {
        idle_timeout_secs: 1,
        ..docker::options(&tag, json!({"idle_pause_secs": 0}))
    })
    .await;

    let (pane, new) = start(&daemon, &tag).await;
    check("a new container", &new);
    assert!(!new.reused, "{new:?}");
    assert!(new
        .steps
        .iter()
        .any(|(name, _)| name == "volume_and_create"));
    drop(pane);
    let name = format!("porthole-chrome-{tag}");
    porthole_tests::eventually("the idle stop", Duration::from_secs(30), || async {
        inspect_container(&name)
            .filter(|info| info["State"]["Running"] == false)
            .map(drop)
    })
    .await;

    let (_pane, kept) = start(&daemon, &tag).await;
    check("the kept container started again", &kept);
    assert!(kept.reused, "{kept:?}");
}
