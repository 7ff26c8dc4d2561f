//! `make bench`, capacity part (issue 13): how many channels one host holds. For N = 1, 5, 10
//! channels, each with a pane watching a page that changes 10 times a second, in local and in
//! docker mode: the daemon's RSS and CPU, each channel's Chromium memory (PSS summed over its
//! processes, so shared pages are not counted twice) and CPU, and frames per second per pane.
//! Then the same 10 channels with no pane watching (the page still changes).
//!
//! Chromium's processes are found per channel: local mode, every process whose command line
//! names the channel's profile dir; docker mode, the sidecar (the container's PID 1 on this
//! host) and all its descendants. Everything is labelled `porthole.test=<tag>` and removed
//! even when the bench panics. Docker mode is skipped with one line when no engine answers.

use std::time::{Duration, Instant};

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::docker::{self, unique, DockerCleanup};
use porthole_tests::pane::Pane;
use serde_json::json;

use crate::stream_stats::{cpu_seconds, median, processes, rss_mib, tree};

/// Channel counts measured.
const COUNTS: [usize; 3] = [1, 5, 10];
/// The measuring window.
const WINDOW: Duration = Duration::from_secs(5);

/// A page whose text changes 10 times a second.
fn ticker_url() -> String {
    porthole_tests::pages::data_url(&porthole_tests::pages::page("bench/ticker.html"))
}

/// Proportional set size of a process in MiB (0 when it is gone).
fn pss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Local,
    Docker,
}

/// The processes of one channel's browser.
fn browser_pids(kind: Kind, daemon: &TestDaemon, channel: &str) -> Vec<u32> {
    let all = processes();
    match kind {
        Kind::Local => {
            let marker = format!("--user-data-dir={}", daemon.profile_dir(channel).display());
            all.iter()
                .filter(|(_, (_, cmd))| cmd.contains(&marker))
                .map(|(pid, _)| *pid)
                .collect()
        }
        Kind::Docker => {
            let name = format!("porthole-chrome-{channel}");
            let (_, pid) = docker::docker(&["inspect", "-f", "{{.State.Pid}}", &name]);
            match pid.parse::<u32>() {
                Ok(root) if root > 0 => tree(root, &all),
                _ => Vec::new(),
            }
        }
    }
}

struct Sample {
    daemon_rss: f64,
    daemon_cpu: f64,
    /// Per channel: (PSS MiB, CPU % of a core).
    browsers: Vec<(f64, f64)>,
    /// Frames per second per watching pane.
    fps: Vec<f64>,
}

/// Measures the daemon and every channel's browser over [`WINDOW`].
async fn sample(kind: Kind, daemon: &TestDaemon, channels: &[String], panes: &[Pane]) -> Sample {
    let daemon_pid = daemon.child.as_ref().and_then(|c| c.id()).unwrap();
    let pids: Vec<Vec<u32>> = channels
        .iter()
        .map(|c| browser_pids(kind, daemon, c))
        .collect();
    let cpu = |pids: &[u32]| pids.iter().map(|&p| cpu_seconds(p)).sum::<f64>();
    let daemon_before = cpu_seconds(daemon_pid);
    let before: Vec<f64> = pids.iter().map(|p| cpu(p)).collect();
    let frames_before: Vec<usize> = panes.iter().map(Pane::frame_count).collect();
    let started = Instant::now();
    tokio::time::sleep(WINDOW).await;
    let secs = started.elapsed().as_secs_f64();
    let frames_after: Vec<usize> = panes.iter().map(Pane::frame_count).collect();
    let browsers = pids
        .iter()
        .zip(&before)
        .map(|(p, b)| {
            (
                p.iter().map(|&pid| pss_mib(pid)).sum::<f64>(),
                (cpu(p) - b) / secs * 100.0,
            )
        })
        .collect();
    Sample {
        daemon_rss: rss_mib(daemon_pid),
        daemon_cpu: (cpu_seconds(daemon_pid) - daemon_before) / secs * 100.0,
        browsers,
        fps: frames_after
            .iter()
            .zip(&frames_before)
            .map(|(a, b)| (a - b) as f64 / secs)
            .collect(),
    }
}

fn print_row(label: &str, n: usize, s: &Sample) {
    let mut pss: Vec<f64> = s.browsers.iter().map(|b| b.0).collect();
    let mut cpu: Vec<f64> = s.browsers.iter().map(|b| b.1).collect();
    let total_cpu: f64 = cpu.iter().sum();
    let mut fps = s.fps.clone();
    let min_fps = fps.iter().copied().fold(f64::INFINITY, f64::min);
    let fps_text = if fps.is_empty() {
        "     no pane".to_string()
    } else {
        format!("{:5.1} (min {:4.1})", median(&mut fps), min_fps)
    };
    println!(
        "  {label:<7} {n:>2} ch │ daemon {:5.1} MiB {:5.1}% │ Chromium/ch {:6.0} MiB {:5.1}% (all: {:6.1}% of a core) │ fps/pane {fps_text}",
        s.daemon_rss,
        s.daemon_cpu,
        median(&mut pss),
        median(&mut cpu),
        total_cpu,
    );
}

/// Opens `channel` on the ticker page and returns a pane watching it.
async fn watching(daemon: &TestDaemon, channel: &str) -> Pane {
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    pane.open_page(&ticker_url(), "Ticker").await;
    pane.watch().await;
    pane
}

async fn measure(kind: Kind, label: &str, options: DaemonOptions, tag: &str) {
    let daemon = TestDaemon::start_with(DaemonOptions {
        idle_timeout_secs: 600,
        probe_port: false,
        ..options
    })
    .await;
    let mut channels = Vec::new();
    let mut panes = Vec::new();
    for n in COUNTS {
        while channels.len() < n {
            let channel = format!("{tag}-{}", channels.len());
            panes.push(watching(&daemon, &channel).await);
            channels.push(channel);
        }
        let s = sample(kind, &daemon, &channels, &panes).await;
        print_row(label, n, &s);
    }
    // Nobody watching: the pages still change, no screencast runs.
    drop(panes);
    let s = sample(kind, &daemon, &channels, &[]).await;
    print_row(&format!("{label}·idle"), channels.len(), &s);
    daemon.stop().await;
}

/// Runs the capacity part of the bench and prints it.
pub async fn run() {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem_gib = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "capacity: N channels, one pane each watching a page that changes 10×/s, {:.0} s window; \
         this machine: {cores} cores, {mem_gib:.0} GiB, load average at start {}",
        WINDOW.as_secs_f64(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let tag = unique("bench-cap");
    measure(
        Kind::Local,
        "local",
        DaemonOptions::default(),
        &format!("{tag}-l"),
    )
    .await;
    if !docker::docker(&["info"]).0 {
        println!("  docker: skipped, no Docker engine answers (scripts/setup/docker.sh)");
        return;
    }
    docker::ensure_image().await;
    let _cleanup = DockerCleanup::new(&tag);
    measure(
        Kind::Docker,
        "docker",
        docker::options(&tag, json!({})),
        &format!("{tag}-d"),
    )
    .await;
}
