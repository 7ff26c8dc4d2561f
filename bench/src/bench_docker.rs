//! `make bench`, docker part: docker-mode start → first frame through the daemon, with the
//! sidecar image present, beside a bare create + start of the same image through the same
//! Engine API (bollard, with the daemon's own container spec; no `docker` CLI process in the
//! timed region) + CDP connect through the sidecar's gate + first screencast frame, in the same
//! run; median of [`RUNS`] each, the cases taking turns so the machine's noise falls on all of
//! them alike.
//!
//! Cases through the daemon:
//! - container absent: a new channel (no container, no profile volume yet), which takes over
//!   the daemon's warm spare (`browser.warm_spare`: a sidecar booted and paused ahead) when
//!   one is ready;
//! - second start after an idle stop: the daemon left the browser on one blank tab and paused
//!   the sidecar (`browser.idle_pause_secs`), so this thaws the same running container;
//! - after an explicit stop (the pane's `stop`, or the end of the pause window): the daemon
//!   stopped the sidecar and kept it, so this starts the same container again (its spec
//!   unchanged);
//! - container stopped outside the daemon (`docker stop`): the daemon finds it stopped without
//!   having asked, removes it and creates a new one.
//!
//! Also printed for reference: a bare start (Engine API) of a stopped container + CDP + frame,
//! what restarting a kept container costs without the daemon; and for each case the Engine API
//! requests the daemon's start made (its `sidecar_start_steps` line) and every part of the
//! start → first frame, from the daemon's log: the provider's steps, the lifecycle lock wait,
//! the CDP connect, the session's opening (with the CDP replies it waited on in sequence), the
//! start hook, the cast from its request to its first frame, and what is left (the pane's
//! messages until it asks for frames, the frame's way to the pane) — per part as medians, and
//! the median run part by part, which adds up to its total.
//!
//! Everything created carries `porthole.test=<tag>` and is removed by a [`DockerCleanup`] guard,
//! also when the bench panics. Skipped with one line when no Docker engine answers.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bollard::query_parameters::StopContainerOptionsBuilder;
use bollard::Docker;
use porthole::bench_hooks::cdp::CdpConnection;
use porthole::bench_hooks::docker::container::{self, Network, SidecarSpec};
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::docker::{
    self, docker, ensure_image, inspect_container, unique, DockerCleanup,
};
use porthole_tests::pane::Pane;
use porthole_tests::raw_cdp;
use porthole_tests::start_log::{start_log, StartLog};
use serde_json::json;

use crate::raw_screencast;
use crate::stream_stats::{median_of as median, ms};

/// Measured runs per case.
const RUNS: usize = 3;

/// The engine's version when `docker version` reaches a daemon, else why not.
fn engine() -> Result<String, String> {
    match std::process::Command::new("docker")
        .args(["version", "--format", "{{.Server.Version}}"])
        .output()
    {
        Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).trim().into()),
        Ok(out) => Err(String::from_utf8_lossy(&out.stderr)
            .lines()
            .next()
            .unwrap_or("docker version failed")
            .to_string()),
        Err(e) => Err(format!("the docker CLI does not run: {e}")),
    }
}

fn container(channel: &str) -> String {
    format!("porthole-chrome-{channel}")
}

/// Waits until the container `name` no longer runs (paused, stopped and kept, or removed).
async fn stopped(name: &str) {
    porthole_tests::eventually(
        &format!("container {name} to stop"),
        Duration::from_secs(60),
        || async {
            inspect_container(name)
                .is_none_or(|info| {
                    info["State"]["Running"] != true || info["State"]["Paused"] == true
                })
                .then_some(())
        },
    )
    .await;
}

/// Start → first frame through the daemon on a pane.
async fn through_daemon(pane: &Pane, channel: &str) -> f64 {
    let started = Instant::now();
    pane.start(channel).await;
    pane.watch().await;
    ms(started.elapsed())
}

/// Connects through the gate of a running bare container (its address read through the
/// Engine API, as the daemon does) and waits for the first screencast frame of its page.
async fn bare_first_frame(engine: &Docker, name: &str) {
    let info = container::inspect(engine, name)
        .await
        .expect("inspect the bare container")
        .expect("the bare container exists");
    let url = container::gate_addr(&info)
        .expect("the bare container publishes its gate")
        .ws_url();
    let cdp = porthole_tests::eventually("bare CDP", Duration::from_secs(45), || {
        let url = url.clone();
        async move {
            CdpConnection::connect(&url, Duration::from_secs(2))
                .await
                .ok()
        }
    })
    .await;
    let target = raw_screencast::first_page(&cdp).await;
    let session = raw_cdp::attach(&cdp, &target).await;
    let mut events =
        raw_screencast::start_screencast(&cdp, &session, json!({"format": "jpeg", "quality": 60}))
            .await;
    raw_screencast::first_frame(&mut events, Duration::from_secs(20)).await;
}

/// A bare start through the same Engine API calls the daemon makes (bollard: create with the
/// daemon's own container spec — same image, limits, gate on 127.0.0.1, window — but no
/// profile volume, then start) + CDP + first frame; then stopped (not removed) and started
/// again + CDP + frame. No `docker` CLI process in the timed region. Returns (run, start) in
/// ms; removes the container.
async fn bare(engine: &Docker, sandbox: bool, tag: &str, name: &str) -> (f64, f64) {
    let defaults = porthole::config::Config::default().browser;
    let spec = SidecarSpec {
        name: name.to_string(),
        image: docker::IMAGE.to_string(),
        labels: HashMap::from([("porthole.test".to_string(), tag.to_string())]),
        secret: "benchsecret".to_string(),
        network: Network::Bridge,
        host_port: None,
        volume: None,
        volume_labels: HashMap::new(),
        extensions: Vec::new(),
        screen: (800, 600),
        memory_mb: defaults.memory_mb,
        cpus: defaults.cpus,
        sandbox,
        publish: true,
    };
    let started = Instant::now();
    let id = container::create(engine, &spec)
        .await
        .expect("create the bare container");
    container::start(engine, &id, name)
        .await
        .expect("start the bare container");
    bare_first_frame(engine, name).await;
    let run = ms(started.elapsed());
    engine
        .stop_container(name, Some(StopContainerOptionsBuilder::new().t(10).build()))
        .await
        .expect("stop the bare container");
    let started = Instant::now();
    container::start(engine, &id, name)
        .await
        .expect("start the bare container again");
    bare_first_frame(engine, name).await;
    let start = ms(started.elapsed());
    let _ = container::remove_force(engine, name).await;
    (run, start)
}

/// Runs the docker part of the bench and prints it.
pub async fn run() {
    let version = match engine() {
        Ok(version) => version,
        Err(why) => {
            println!(
                "docker mode start → first frame: skipped, no Docker engine answers ({why}); \
                 start dockerd (scripts/setup/docker.sh) to measure it"
            );
            return;
        }
    };
    ensure_image().await;
    let (engine, _) = porthole::bench_hooks::docker::engine::connect(
        &porthole::config::Config::default().browser.docker,
        Duration::from_secs(10),
    )
    .await
    .expect("connect to the Docker engine");
    let tag = unique("bench-dk");
    // The bare containers run Chromium's sandbox exactly when the daemon's would (its probe,
    // outside the timed region).
    let sandbox = porthole::bench_hooks::docker::sandbox::probe(
        &engine,
        docker::IMAGE,
        HashMap::from([("porthole.test".to_string(), tag.clone())]),
    )
    .await
    .is_on();
    // Declared before the daemon so it runs after the daemon is dropped (locals drop in
    // reverse order), also when a step panics.
    let _cleanup = DockerCleanup::new(&tag);
    // `PORTHOLE_BENCH_RUST_LOG` widens what the daemon logs (e.g. `porthole::cdp=trace`);
    // `PORTHOLE_BENCH_LOGS` names a directory its log is copied to.
    let defaults = DaemonOptions::default();
    let rust_log: &'static str = match std::env::var("PORTHOLE_BENCH_RUST_LOG") {
        Ok(extra) => Box::leak(format!("{},{extra}", defaults.rust_log).into_boxed_str()),
        Err(_) => defaults.rust_log,
    };
    let daemon = TestDaemon::start_with(DaemonOptions {
        idle_timeout_secs: 1,
        rust_log,
        ..docker::options(&tag, json!({"warm_spare": true}))
    })
    .await;

    // Warm-up: the first start of the daemon's life (engine connection, image check).
    let warm = format!("{tag}-warm");
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    through_daemon(&pane, &warm).await;
    drop(pane);
    stopped(&container(&warm)).await;

    let idle = format!("{tag}-idle");
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    through_daemon(&pane, &idle).await;
    drop(pane);
    stopped(&container(&idle)).await;

    let (mut absent, mut after_idle, mut stopped_outside) = (Vec::new(), Vec::new(), Vec::new());
    let (mut after_stop, mut stop_steps) = (Vec::new(), Vec::new());
    let (mut bare_run, mut bare_start) = (Vec::new(), Vec::new());
    let mut stopped_found = 0;
    let (mut absent_steps, mut idle_steps, mut outside_steps) =
        (Vec::new(), Vec::new(), Vec::new());
    for i in 0..RUNS {
        // Container absent: a new channel, one pane that leaves after the frame; the idle stop
        // stops the container.
        let channel = format!("{tag}-new{i}");
        let pane = Pane::connect(&daemon.addr, &daemon.token).await;
        let from = daemon.log().len();
        let total = through_daemon(&pane, &channel).await;
        absent.push(total);
        absent_steps.push((total, start_log(&daemon.log()[from..])));
        drop(pane);
        stopped(&container(&channel)).await;

        // Second start after an idle stop: same channel, its kept container, profile kept.
        let pane = Pane::connect(&daemon.addr, &daemon.token).await;
        let from = daemon.log().len();
        let total = through_daemon(&pane, &idle).await;
        after_idle.push(total);
        idle_steps.push((total, start_log(&daemon.log()[from..])));

        // Container stopped outside the daemon: the pane sees the browser go, then starts again.
        let mark = pane.mark();
        assert!(
            docker(&["stop", "-t", "10", &container(&idle)]).0,
            "docker stop"
        );
        pane.next_of("stopped", mark).await;
        if inspect_container(&container(&idle)).is_some() {
            stopped_found += 1;
        }
        let from = daemon.log().len();
        let total = through_daemon(&pane, &idle).await;
        stopped_outside.push(total);
        outside_steps.push((total, start_log(&daemon.log()[from..])));

        // Stopped by the daemon and kept (a pane's stop; the end of a pause window alike).
        let mark = pane.mark();
        pane.send(json!({"type": "stop", "channel_id": idle}));
        pane.next_of("stopped", mark).await;
        let from = daemon.log().len();
        let total = through_daemon(&pane, &idle).await;
        after_stop.push(total);
        stop_steps.push((total, start_log(&daemon.log()[from..])));
        drop(pane);
        stopped(&container(&idle)).await;

        let (run, start) = bare(&engine, sandbox, &tag, &format!("{tag}-bare{i}")).await;
        bare_run.push(run);
        bare_start.push(start);
    }
    if let Ok(dir) = std::env::var("PORTHOLE_BENCH_LOGS") {
        let path = std::path::Path::new(&dir).join("docker.log");
        if let Err(e) = std::fs::write(&path, daemon.log()) {
            println!("  could not write {}: {e}", path.display());
        }
    }
    daemon.stop().await;

    let b = median(&bare_run);
    println!(
        "docker mode start → first frame, image present (engine {version}), median of {RUNS} \
         each, cases taking turns; baseline: bare create + start of {} through the same Engine API \
         (bollard, the daemon's container spec, no volume) + CDP through its gate + first frame:",
        docker::IMAGE
    );
    for (case, runs, steps) in [
        ("container absent (new channel)", &absent, &absent_steps),
        ("second start after an idle stop", &after_idle, &idle_steps),
        ("after a stop (kept container)", &after_stop, &stop_steps),
        (
            "container stopped by `docker stop`",
            &stopped_outside,
            &outside_steps,
        ),
    ] {
        let d = median(runs);
        println!(
            "  {case:<36} daemon {d:6.0} ms   bare start {b:6.0} ms   ratio {:.2}   goal ≤ 0.85   \
             engine requests {}",
            d / b,
            requests(steps)
        );
    }
    print_steps("container absent", &absent_steps);
    print_steps("after an idle stop", &idle_steps);
    print_steps("after a stop", &stop_steps);
    print_steps("after `docker stop`", &outside_steps);
    println!(
        "  an idle stop leaves the browser on one blank tab and pauses the sidecar, the next \
         start thaws it; an explicit stop (or the end of the pause window) keeps the sidecar \
         stopped and the next start starts it again while its spec hash (image id and create \
         request) matches; one stopped outside the daemon, killed or crashed is removed and \
         created anew; the bare start makes 3 requests (create, start, inspect) and polls its \
         gate for CDP"
    );
    println!(
        "  after `docker stop` the stopped container was still there at the next start in \
         {stopped_found} of {RUNS} runs"
    );
    let s = median(&bare_start);
    println!(
        "  for reference, bare start (Engine API) of a stopped container + CDP + frame: {s:.0} ms \
         ({:.2} of a bare create + start)",
        s / b
    );
}

/// The Engine API requests of each start, e.g. `5, 5, 5 (3 restarts)`.
fn requests(runs: &[(f64, StartLog)]) -> String {
    let counts: Vec<String> = runs
        .iter()
        .map(|(_, log)| log.requests.map_or("?".to_string(), |n| n.to_string()))
        .collect();
    let reused = runs.iter().filter(|(_, log)| log.reused).count();
    let spares = runs
        .iter()
        .filter(|(_, log)| log.steps.iter().any(|(name, _)| name == "spare_claimed"))
        .count();
    format!(
        "{} ({reused} of {} restarted or resumed a kept container, {spares} took the warm spare)",
        counts.join(", "),
        runs.len()
    )
}

/// Each step's median over `runs`: the provider's steps, then the rest of the channel's
/// start (lock wait, CDP connect, session open, start hook), the pane's messages until it asks
/// for frames (`pane reply → cast`: the `started` and `tabs` messages, the resize to the
/// pane's size, the pane's `screencast`), the cast's start and its first frame; and the sum of
/// the medians beside the median total, so nothing is unattributed.
fn print_steps(case: &str, runs: &[(f64, StartLog)]) {
    let Some((_, first)) = runs.first() else {
        return;
    };
    let mut names: Vec<String> = first.steps.iter().map(|(n, _)| n.clone()).collect();
    let value = |log: &StartLog, name: &str| -> Option<f64> {
        log.steps
            .iter()
            .map(|(n, v)| (n.as_str(), *v))
            .chain(log.parts.iter().map(|(n, v)| (*n, *v)))
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    };
    names.extend(first.parts.iter().map(|(n, _)| n.to_string()));
    // What the daemon did not account for: the pane's messages between the start and its
    // request for frames, and the frame's way to the pane.
    let rest = |total: f64, log: &StartLog| {
        total
            - log.steps.iter().map(|(_, v)| v).sum::<f64>()
            - log.parts.iter().map(|(_, v)| v).sum::<f64>()
    };
    let mut parts = Vec::new();
    let mut sum = 0.0;
    for name in &names {
        let values: Vec<f64> = runs
            .iter()
            .filter_map(|(_, log)| value(log, name))
            .collect();
        let m = median(&values);
        sum += m;
        parts.push(format!("{name} {m:.0}"));
    }
    let rests: Vec<f64> = runs.iter().map(|(total, log)| rest(*total, log)).collect();
    let m = median(&rests);
    sum += m;
    parts.push(format!("pane reply → cast and frame to pane {m:.0}"));
    let totals: Vec<f64> = runs.iter().map(|(total, _)| *total).collect();
    let waits: Vec<f64> = runs.iter().filter_map(|(_, l)| l.open_waits).collect();
    println!(
        "  {case}, per step (median ms): {}; sum of these medians {sum:.0}, median total {:.0}; \
         session open waited on {} CDP replies in sequence",
        parts.join(", "),
        median(&totals),
        if waits.is_empty() {
            "?".to_string()
        } else {
            format!("{:.0}", median(&waits))
        }
    );
    // Medians of parts need not add up to the median total (each part's median can come
    // from another run): the run whose total is the median, part by part, adds up exactly.
    let mut order: Vec<&(f64, StartLog)> = runs.iter().collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (total, log) = order[order.len() / 2];
    let mut parts: Vec<String> = names
        .iter()
        .filter_map(|name| Some(format!("{name} {:.0}", value(log, name)?)))
        .collect();
    parts.push(format!(
        "pane reply → cast and frame to pane {:.0}",
        rest(*total, log)
    ));
    let each: Vec<String> = totals.iter().map(|t| format!("{t:.0}")).collect();
    println!(
        "    its median run ({total:.0} ms; runs {}): {}",
        each.join(", "),
        parts.join(", ")
    );
}
