//! `make bench`: measures Porthole against a baseline run in the same invocation and prints
//! ratios (these machines are shared and noisy; absolute numbers mean little alone).
//!
//! 1. Screencast through the daemon vs a raw CDP screencast on the same tab, same time: frames
//!    per second, and paint-to-client latency (the page paints the wall clock into each frame).
//! 2. Daemon CPU with 1 and with 20 panes watching one channel.
//! 3. Local mode start-to-first-frame vs a bare Chromium launch + CDP + first frame.
//! 4. A 2 s, 120 Hz wheel stream: last event to the frame that shows the final scroll, through
//!    the daemon, by stage, vs one event alone through raw CDP (the floor) and raw CDP
//!    dispatching every event ([`crate::bench_wheel`]).
//! 5. The MCP tools: an 8-step agent script through `porthole mcp-host-browser` vs the same
//!    steps in raw CDP ([`crate::bench_mcp`]).
//! 6. Agents: the same script through `porthole-mcp` with an agent token over the agent Unix
//!    socket vs TCP, and 4 agents at once on one channel vs one alone
//!    ([`crate::bench_agents`]).
//! 7. Docker mode start-to-first-frame (container absent; second start after an idle stop;
//!    container stopped) vs a bare `docker run` of the sidecar image + CDP + first frame
//!    ([`crate::bench_docker`]); skipped when no Docker engine answers.
//! 8. Remote engine: CDP through the Docker API (exec stream, local and over TLS to a second
//!    engine) vs the published port: start to first frame, frames per second, added latency
//!    ([`crate::bench_remote`]).
//! 9. Capacity: 1, 5 and 10 channels streaming a page that changes 10×/s, local and docker
//!    mode: daemon RSS/CPU, Chromium memory/CPU per channel, frames per second per pane
//!    ([`crate::bench_capacity`]).
//! 10. Distance (`porthole-bench distance`, not part of the full run): the MCP script, the
//!     first call and pane input → frame with the remote engine 0, 25 and 50 ms away
//!     ([`crate::bench_distance`]).
//! 11. Vault (`porthole-bench vault`, not part of the full run): `fill_login` against
//!     `form_input` typing the same two values, and the scan of answers per KB
//!     ([`crate::bench_vault`]).
//! 12. The CDP door (`porthole-bench cdp`, also in the full run): a Playwright script, one
//!     message's round trip and a burst of `Network` events through the door vs on a plain
//!     Chromium's own debugging port ([`crate::bench_cdp`]).

mod bench_agents;
mod bench_bandwidth;
mod bench_capacity;
mod bench_cdp;
mod bench_consent;
mod bench_distance;
mod bench_docker;
mod bench_fanout;
mod bench_mcp;
mod bench_nav_cpu;
mod bench_peers;
mod bench_remote;
mod bench_scale;
mod bench_scale_flip;
mod bench_soak;
mod bench_stages;
mod bench_timeline;
mod bench_vault;
mod bench_wheel;
mod bench_wheel_raw;
mod page_scroll;
mod probe_retina;
mod raw_screencast;
mod stream_stats;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use porthole::bench_hooks::cdp::CdpConnection;
use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use porthole_tests::raw_cdp;
use serde_json::json;

use crate::bench_fanout::Spoke;
use crate::stream_stats::{cpu_by_thread, median, pane_stream, threads_spent, Arrivals, Stream};

const WINDOW: Duration = Duration::from_secs(4);
/// One CPU sample, and how many samples of each kind (alternating 1 and 20 panes).
const CPU_WINDOW: Duration = Duration::from_secs(5);
const CPU_ROUNDS: usize = 5;
/// Turns each of the daemon's and the raw screencast take within [`WINDOW`].
const TURNS: usize = 4;

/// A raw CDP screencast on `target` of the browser behind `cdp`, and the median time from
/// Chrome's frame swap to the raw client's read (ms).
async fn raw_stream(cdp: CdpConnection, target: String, window: Duration) -> (Stream, f64) {
    let params = json!({"format": "jpeg", "quality": 60, "maxWidth": 8192, "maxHeight": 8192, "everyNthFrame": 1});
    let (frames, mut from_swap) =
        raw_screencast::screencast_frames(&cdp, &target, params, window).await;
    (Arrivals(frames).into_stream(), median(&mut from_swap))
}

async fn screencast_and_cpu(daemon: &TestDaemon, pages: &PageServer) {
    let driver = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = driver.start("bench").await;
    driver.open_page(&pages.url("/clock"), "Clock").await;
    let probe = Probe::connect(&daemon.profile_dir("bench")).await;
    // Taking turns, never at once: Chrome encodes each cast of a tab in turn, so a second cast
    // running beside the first delays it (measured: the daemon's frames read 13 ms later after
    // Chrome's swap with a raw cast beside them than alone).
    let (addr, token) = (daemon.addr.clone(), daemon.token.clone());
    let log_from = daemon.log().len();
    let (mut through, mut raw) = (Stream::default(), Stream::default());
    let mut raw_from_swap = Vec::new();
    let turn = WINDOW / TURNS as u32;
    for _ in 0..TURNS {
        let daemon_turn = pane_stream(&addr, &token, "bench", turn).await;
        let (raw_turn, from_swap) = raw_stream(probe.cdp.clone(), tab.clone(), turn).await;
        through.add(daemon_turn);
        raw.add(raw_turn);
        raw_from_swap.push(from_swap);
    }
    let secs = WINDOW.as_secs_f64();
    let (fps_d, fps_r) = (through.frames as f64 / secs, raw.frames as f64 / secs);
    let (lat_d, lat_r) = (median(&mut through.latencies), median(&mut raw.latencies));
    println!("screencast, same tab, taking turns {TURNS}× over {secs:.0} s each:");
    println!(
        "  frames/s      daemon {fps_d:7.1}   raw CDP {fps_r:7.1}   ratio {:.2}",
        fps_d / fps_r
    );
    println!(
        "  paint→client  daemon {lat_d:7.1} ms raw CDP {lat_r:7.1} ms added {:.1} ms (median; goal ≤ 2)",
        lat_d - lat_r
    );
    crate::bench_stages::print(&daemon.log(), log_from);
    println!(
        "  raw CDP client: Chrome's swap → read {:.2} ms (median)",
        median(&mut raw_from_swap)
    );

    let pid = daemon.child.as_ref().and_then(|c| c.id()).unwrap();
    fanout_cpu(daemon, pid).await;
}

/// Panes watching the channel "bench": each one connected, started and watching.
async fn watching_panes(daemon: &TestDaemon, n: usize) -> Vec<Pane> {
    let mut panes = Vec::new();
    for _ in 0..n {
        let pane = Pane::connect(&daemon.addr, &daemon.token).await;
        pane.start("bench").await;
        pane.watch().await;
        panes.push(pane);
    }
    panes
}

/// Daemon CPU seconds and frames delivered over one window with `panes` watching, opened once
/// the panes just connected settled into the stream (as the floor's clients do, see
/// `bench_fanout::SETTLE`).
async fn cpu_window(pid: u32, panes: &[&Pane]) -> (f64, usize, BTreeMap<String, f64>) {
    tokio::time::sleep(bench_fanout::SETTLE).await;
    let before = cpu_by_thread(pid);
    let counted: usize = panes.iter().map(|p| p.frame_count()).sum();
    tokio::time::sleep(CPU_WINDOW).await;
    let spent = threads_spent(&before, &cpu_by_thread(pid));
    let delivered: usize = panes.iter().map(|p| p.frame_count()).sum::<usize>() - counted;
    let by_thread: BTreeMap<String, f64> = spent
        .into_iter()
        .map(|(name, (ns, _))| (name, ns as f64 / 1e9))
        .collect();
    (by_thread.values().sum(), delivered, by_thread)
}

/// The daemon's CPU with 1 and with 20 panes on one tab, against the floor: a bare WebSocket
/// fan-out of the same frame at the same rate ([`crate::bench_fanout`]) to clients
/// that, as panes do, sent two short messages first. Each of [`CPU_ROUNDS`] rounds measures
/// the daemon with 1 and 20 panes, then the floor with 1 and 20 clients, then the floor with
/// clients that never sent a byte (printed beside, not the goal's floor: see
/// [`Spoke`]), one after the other, so the floors share the daemon's stretch of time; the
/// ratio of the medians is printed, and each round's own (noisier: a difference of two short
/// windows). Then the daemon's per-pane cost by thread.
async fn fanout_cpu(daemon: &TestDaemon, pid: u32) {
    const MANY: usize = 20;
    let secs = CPU_WINDOW.as_secs_f64();
    let first = watching_panes(daemon, 1).await;
    let frame = Bytes::from(first[0].frames_at_least(first[0].frame_count()).await);
    let (mut one, mut many, mut bare1, mut bare20) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut ratios = Vec::new();
    let mut by_thread: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut silent = Vec::new();
    let per_pane_us = |extra_cpu: f64, frames: f64| extra_cpu / frames.max(1.0) * 1e6;
    for round in 0..CPU_ROUNDS {
        let log_from = daemon.log().len();
        let alone = cpu_window(pid, &[&first[0]]).await;
        if round == 0 {
            println!("  one pane alone, no raw cast beside it:");
            crate::bench_stages::print(&daemon.log(), log_from);
        }
        let more = watching_panes(daemon, MANY - 1).await;
        let all: Vec<&Pane> = first.iter().chain(&more).collect();
        let crowd = cpu_window(pid, &all).await;
        drop(all);
        drop(more);
        let fps = (alone.1 as f64 / secs).round().max(1.0) as u32;
        let floor = |clients, spoke| {
            bench_fanout::server_cpu(frame.clone(), fps, clients, spoke, CPU_WINDOW)
        };
        let (floor1, floor20) = (
            floor(1, Spoke::AsPanes).await,
            floor(MANY, Spoke::AsPanes).await,
        );
        let (silent1, silent20) = (
            floor(1, Spoke::Never).await,
            floor(MANY, Spoke::Never).await,
        );
        let extra_frames = crowd.1.saturating_sub(alone.1) as f64;
        let daemon_each = per_pane_us(crowd.0 - alone.0, extra_frames);
        for (name, spent) in &crowd.2 {
            let alone_spent = alone.2.get(name).copied().unwrap_or(0.0);
            let each = per_pane_us(spent - alone_spent, extra_frames);
            by_thread.entry(name.clone()).or_default().push(each);
        }
        let floor_frames = f64::from(fps) * secs * (MANY - 1) as f64;
        let floor_each = per_pane_us(floor20 - floor1, floor_frames);
        ratios.push(daemon_each / floor_each);
        silent.push(per_pane_us(silent20 - silent1, floor_frames));
        one.push((alone.0, alone.1));
        many.push((crowd.0, crowd.1));
        bare1.push(floor1);
        bare20.push(floor20);
    }
    let median_of = |runs: &[(f64, usize)], pick: fn(&(f64, usize)) -> f64| {
        median(&mut runs.iter().map(pick).collect::<Vec<_>>())
    };
    let (cpu1, cpu20) = (median_of(&one, |r| r.0), median_of(&many, |r| r.0));
    let (frames1, frames20) = (
        median_of(&one, |r| r.1 as f64),
        median_of(&many, |r| r.1 as f64),
    );
    for (panes, cpu, frames) in [(1, cpu1, frames1), (MANY, cpu20, frames20)] {
        println!(
            "  daemon CPU with {panes:2} pane(s): {:5.1}% of a core, {:.0} frames/s delivered in total (median of {CPU_ROUNDS})",
            cpu / secs * 100.0,
            frames / secs
        );
    }
    let fps = (frames1 / secs).round().max(1.0) as u32;
    let (bare1, bare20) = (median(&mut bare1), median(&mut bare20));
    let daemon_each = per_pane_us(cpu20 - cpu1, (frames20 - frames1).max(1.0));
    let bare_each = per_pane_us(bare20 - bare1, f64::from(fps) * secs * (MANY - 1) as f64);
    println!(
        "  per pane and frame beyond the first: daemon {daemon_each:5.1} µs, bare WebSocket \
         fan-out of the same {} KiB frame {bare_each:5.1} µs (floor; {:.1} µs to clients \
         that never sent a byte)",
        frame.len() / 1024,
        median(&mut silent)
    );
    println!(
        "  per pane and frame, daemon / floor: {:.2}× (goal ≤ 1.20×; of the medians above; by \
         round {})",
        daemon_each / bare_each,
        ratios
            .iter()
            .map(|r| format!("{r:.2}×"))
            .collect::<Vec<_>>()
            .join(" "),
    );
    let threads: Vec<String> = by_thread
        .iter_mut()
        .map(|(name, each)| (name, median(each)))
        .filter(|(_, each)| each.abs() >= 0.05)
        .map(|(name, each)| format!("{name} {each:.1}"))
        .collect();
    println!(
        "  daemon per pane and frame beyond the first, by thread (µs, median): {}",
        threads.join(", ")
    );
    let floor_ratio = (cpu1 + (bare20 - bare1) * frames1 / (f64::from(fps) * secs)) / cpu1;
    println!(
        "  CPU ratio {MANY} panes / 1 pane: {:.2}; with the bare fan-out's per-pane cost it would \
         be {floor_ratio:.2}",
        cpu20 / cpu1.max(1e-6)
    );
}

async fn start_to_first_frame(daemon: &TestDaemon) {
    let started = Instant::now();
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("coldstart").await;
    pane.watch().await;
    let through = started.elapsed();

    let started = Instant::now();
    let chromium = BareChromium::launch().await;
    let cdp = CdpConnection::connect(&chromium.ws_url, Duration::from_secs(10))
        .await
        .unwrap();
    let target = raw_screencast::first_page(&cdp).await;
    let session = raw_cdp::attach(&cdp, &target).await;
    let mut events =
        raw_screencast::start_screencast(&cdp, &session, json!({"format": "jpeg", "quality": 60}))
            .await;
    raw_screencast::first_frame(&mut events, Duration::from_secs(60)).await;
    let bare = started.elapsed();
    println!("local mode start → first frame:");
    println!(
        "  daemon {:6.0} ms   bare Chromium + CDP {:6.0} ms   ratio {:.2}",
        through.as_secs_f64() * 1000.0,
        bare.as_secs_f64() * 1000.0,
        through.as_secs_f64() / bare.as_secs_f64()
    );
}

/// The daemon as a user runs it: at `info` (debug logging costs milliseconds per frame), with
/// the bench-only frame stage log on (one flag load per stage when off; a short lock when on).
fn bench_daemon() -> porthole_tests::daemon::DaemonOptions {
    porthole_tests::daemon::DaemonOptions {
        rust_log: "info",
        env: vec![(
            porthole::bench_hooks::frame_stages::ENV.to_string(),
            "1".to_string(),
        )],
        ..Default::default()
    }
}

/// One part alone (`porthole-bench wheel`, `porthole-bench screencast`) on a local-mode daemon
/// at `info`.
async fn with_local_daemon(
    part: impl for<'a> FnOnce(
        &'a TestDaemon,
        &'a PageServer,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + 'a>>,
) {
    let pages = PageServer::start().await;
    let daemon = TestDaemon::start_with(bench_daemon()).await;
    part(&daemon, &pages).await;
    daemon.stop().await;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() {
    // `porthole-bench <part>` runs one part alone.
    match std::env::args().nth(1).as_deref() {
        Some("mcp") => return crate::bench_mcp::run().await,
        Some("agents") => return crate::bench_agents::run().await,
        Some("remote") => return crate::bench_remote::run().await,
        Some("capacity") => return crate::bench_capacity::run().await,
        Some("consent") => return crate::bench_consent::run().await,
        Some("cdp") => return crate::bench_cdp::run().await,
        Some("soak") => return crate::bench_soak::run().await,
        Some("distance") => return crate::bench_distance::run().await,
        Some("bandwidth") => return crate::bench_bandwidth::run().await,
        Some("peers") => return crate::bench_peers::run().await,
        Some("docker") => return crate::bench_docker::run().await,
        Some("scale") => return crate::bench_scale::run().await,
        Some("retina-probe") => return crate::probe_retina::run().await,
        Some("timeline") => return crate::bench_timeline::run().await,
        Some("vault") => return crate::bench_vault::run().await,
        Some("wheel") => {
            return with_local_daemon(|d, p| Box::pin(crate::bench_wheel::run(d, p))).await
        }
        Some("screencast") => {
            return with_local_daemon(|d, p| Box::pin(screencast_and_cpu(d, p))).await
        }
        Some(other) => {
            eprintln!(
                "porthole-bench: unknown part {other:?}; use `mcp`, `agents`, `docker`, `remote`, `capacity`, `consent`, `cdp`, `soak`, `distance`, `peers`, `wheel`, `screencast`, `scale`, `retina-probe`, `timeline`, `vault` or nothing"
            );
            std::process::exit(2);
        }
        None => {}
    }
    let pages = PageServer::start().await;
    // The daemon as a user runs it: at `info` (debug logging costs milliseconds per frame).
    let daemon = TestDaemon::start_with(bench_daemon()).await;
    println!("Porthole bench — ratios against a baseline measured in the same run\n");
    screencast_and_cpu(&daemon, &pages).await;
    start_to_first_frame(&daemon).await;
    crate::bench_wheel::run(&daemon, &pages).await;
    daemon.stop().await;
    println!();
    crate::bench_mcp::run().await;
    crate::bench_agents::run().await;
    println!();
    crate::bench_cdp::run().await;
    println!();
    crate::bench_docker::run().await;
    println!();
    crate::bench_remote::run().await;
    println!();
    crate::bench_capacity::run().await;
}
