//! `porthole-bench timeline` (issue 19): what recording costs. Ten busy channels — each with
//! a pane watching a page that changes 10 times a second and an agent calling tools back to
//! back (`read_page`, then a scroll) — measured once with `timeline.enabled` off and once on,
//! in one run: the daemon's CPU (% of a core; goal ≤ 5 points more with recording on), the
//! tool calls done in the window, and the bytes the timeline wrote per hour per channel.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::daemon::{DaemonOptions, TestDaemon};
use crate::pane::Pane;
use crate::stream_stats::{cpu_seconds, median};

/// Busy channels at once.
const CHANNELS: usize = 10;
/// The measuring window.
const WINDOW: Duration = Duration::from_secs(10);
/// Windows measured per setting (the median is printed).
const RUNS: usize = 3;

/// A page whose text changes 10 times a second, long enough to scroll
/// (`tests/pages/bench/ticker-tall.html`).
fn ticker_url() -> String {
    crate::pages::data_url(&crate::pages::page("bench/ticker-tall.html"))
}

/// One stage's running totals: name, wall µs, count, CPU µs (of the stages that never wait).
type Stage = (String, u64, u64, u64);
/// The daemon's running totals of the timeline's stages (its `timeline_stages` log line), see
/// `porthole::timeline::stages`.
type Totals = Vec<Stage>;

/// The totals of one `timeline_stages` line (`totals=name=wall/count/cpu,…`).
fn totals_of(line: &str) -> Option<Totals> {
    let at = line.find("totals=")? + "totals=".len();
    let field = line[at..].split_whitespace().next()?.trim_matches('"');
    field
        .split(',')
        .map(|stage| {
            let (name, value) = stage.split_once('=')?;
            let mut numbers = value.split('/').map(str::parse::<u64>);
            let wall = numbers.next()?.ok()?;
            let count = numbers.next()?.ok()?;
            let cpu = numbers.next().unwrap_or(Ok(0)).ok()?;
            Some((name.to_string(), wall, count, cpu))
        })
        .collect()
}

/// The last `timeline_stages` totals in `log` (zeros before the first line).
fn last_totals(log: &str) -> Totals {
    log.lines()
        .rev()
        .filter(|l| l.contains("timeline_stages"))
        .find_map(totals_of)
        .unwrap_or_default()
}

/// What each stage took from `before` to `after`.
fn stage_spent(before: &Totals, after: &Totals) -> Totals {
    after
        .iter()
        .map(|(name, us, n, cpu)| {
            let (us0, n0, cpu0) = before
                .iter()
                .find(|(b, ..)| b == name)
                .map_or((0, 0, 0), |(_, us, n, cpu)| (*us, *n, *cpu));
            (
                name.clone(),
                us.saturating_sub(us0),
                n.saturating_sub(n0),
                cpu.saturating_sub(cpu0),
            )
        })
        .collect()
}

/// What one window measured.
struct Window {
    /// Daemon CPU, % of one core.
    cpu: f64,
    /// Tool calls answered in the window, all channels.
    calls: usize,
}

/// Calls tools on `channel` with the owner token until `stop`; counts answered calls.
fn busy_agent(
    daemon: &TestDaemon,
    channel: String,
    stop: Arc<AtomicBool>,
    calls: Arc<AtomicUsize>,
) -> tokio::task::JoinHandle<()> {
    let addr = daemon.addr.clone();
    let auth = format!("Bearer {}", daemon.token);
    tokio::spawn(async move {
        let steps = [
            json!({"tool": "read_page", "args": {}}),
            json!({"tool": "computer", "args": {"action": "scroll", "coordinate": [400, 300],
                   "scroll_direction": "down", "scroll_amount": 2}}),
        ];
        let mut i = 0;
        while !stop.load(Ordering::Relaxed) {
            let mut body = steps[i % steps.len()].clone();
            body["channel_id"] = json!(channel);
            let (status, _) = crate::pages::http_request(
                "POST",
                &addr,
                "/api/browser/action",
                &[("Authorization", &auth)],
                Some(body.to_string()),
            )
            .await;
            if status == 200 {
                calls.fetch_add(1, Ordering::Relaxed);
            }
            i += 1;
        }
    })
}

/// Starts a daemon with `timeline.enabled` = `recording`, ten watched busy channels, and
/// measures [`RUNS`] windows; returns them and the timeline's bytes per hour per channel.
async fn measure(recording: bool) -> (Vec<Window>, f64, Totals, usize) {
    let daemon = TestDaemon::start_with(DaemonOptions {
        idle_timeout_secs: 600,
        probe_port: false,
        config: json!({"timeline": {"enabled": recording}}),
        // The timeline's stage totals (and the frame stages) in the log.
        env: vec![(
            porthole::browser::frame_stages::ENV.to_string(),
            "1".to_string(),
        )],
        ..DaemonOptions::default()
    })
    .await;
    let mut panes = Vec::new();
    let mut channels = Vec::new();
    for n in 0..CHANNELS {
        let channel = format!("bench-tl-{n}");
        let pane = Pane::connect(&daemon.addr, &daemon.token).await;
        pane.start(&channel).await;
        let mark = pane.mark();
        pane.send(json!({"type": "navigate", "url": ticker_url()}));
        pane.message_where("the ticker page", mark, |m| {
            m["type"] == "page_info" && m["title"] == "Ticker"
        })
        .await;
        pane.watch().await;
        panes.push(pane);
        channels.push(channel);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicUsize::new(0));
    let agents: Vec<_> = channels
        .iter()
        .map(|c| busy_agent(&daemon, c.clone(), stop.clone(), calls.clone()))
        .collect();
    let daemon_pid = daemon.child.as_ref().and_then(|c| c.id()).unwrap();
    let timeline_dir = daemon.data.path().join("timeline");
    // Warm up: every agent has had at least one call answered.
    crate::eventually("every agent's first call", Duration::from_secs(60), || {
        let warm = calls.load(Ordering::Relaxed) >= CHANNELS;
        async move { warm.then_some(()) }
    })
    .await;
    let bytes_before = dir_bytes(&timeline_dir);
    let stages_before = last_totals(&daemon.log());
    let calls_from = calls.load(Ordering::Relaxed);
    let measured_from = Instant::now();
    let mut windows = Vec::new();
    for _ in 0..RUNS {
        let cpu_before = cpu_seconds(daemon_pid);
        let calls_before = calls.load(Ordering::Relaxed);
        let started = Instant::now();
        tokio::time::sleep(WINDOW).await;
        let secs = started.elapsed().as_secs_f64();
        windows.push(Window {
            cpu: (cpu_seconds(daemon_pid) - cpu_before) / secs * 100.0,
            calls: calls.load(Ordering::Relaxed) - calls_before,
        });
    }
    let secs = measured_from.elapsed().as_secs_f64();
    let measured_calls = calls.load(Ordering::Relaxed) - calls_from;
    let stages = stage_spent(&stages_before, &last_totals(&daemon.log()));
    let per_hour = (dir_bytes(&timeline_dir).saturating_sub(bytes_before)) as f64 / secs * 3600.0
        / CHANNELS as f64;
    stop.store(true, Ordering::Relaxed);
    for agent in agents {
        let _ = agent.await;
    }
    drop(panes);
    daemon.stop().await;
    (windows, per_hour, stages, measured_calls)
}

/// Bytes of every file under `dir`.
fn dir_bytes(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(_) => total += entry.metadata().map_or(0, |m| m.len()),
                Err(_) => {}
            }
        }
    }
    total
}

/// The machine's load average over the last minute (`/proc/loadavg`), or `?`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
}

/// Runs the timeline part of the bench and prints it.
pub async fn run() {
    println!(
        "timeline: {CHANNELS} channels, each watched by a pane (page changing 10×/s) with an agent \
         calling read_page / scroll back to back; daemon CPU over {} × {:.0} s windows",
        RUNS,
        WINDOW.as_secs_f64()
    );
    let load_before = load_average();
    let (off, ..) = measure(false).await;
    let (on, per_hour, stages, measured_calls) = measure(true).await;
    // A shared machine's other work moves these figures: the ratios are of one run.
    println!(
        "  machine load average (1 min) before / after the run: {load_before} / {}",
        load_average()
    );
    let summary = |w: &[Window]| {
        let mut cpu: Vec<f64> = w.iter().map(|w| w.cpu).collect();
        let mut calls: Vec<f64> = w.iter().map(|w| w.calls as f64).collect();
        (median(&mut cpu), median(&mut calls))
    };
    let (cpu_off, calls_off) = summary(&off);
    let (cpu_on, calls_on) = summary(&on);
    let per_call = |cpu: f64, calls: f64| cpu / (calls / WINDOW.as_secs_f64()).max(f64::EPSILON);
    println!(
        "  recording off: daemon {cpu_off:5.1}% of a core, {calls_off:.0} tool calls per window \
         (all windows: {})",
        off.iter()
            .map(|w| format!("{:.1}%", w.cpu))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "  recording on:  daemon {cpu_on:5.1}% of a core, {calls_on:.0} tool calls per window \
         (all windows: {})",
        on.iter()
            .map(|w| format!("{:.1}%", w.cpu))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "  recording adds {:+.1} points of a core (goal ≤ +5.0), {:.2}× the CPU per tool call; \
         the timeline grows {:.1} MB per hour per busy channel (capped by timeline.max_mb)",
        cpu_on - cpu_off,
        per_call(cpu_on, calls_on) / per_call(cpu_off, calls_off),
        per_hour / 1e6,
    );
    println!(
        "  ratios on / off: CPU per tool call {:.2}× (goal ≤ 1.10×), tool calls per window {:.2}× \
         (goal ≥ 0.90×)",
        per_call(cpu_on, calls_on) / per_call(cpu_off, calls_off),
        calls_on / calls_off.max(1.0),
    );
    print_stages(&stages, measured_calls);
}

/// Where recording's time goes, per tool call answered: each stage's wall µs (wherever it
/// ran), the CPU µs of the stages that never wait, and how often each ran per call.
fn print_stages(stages: &Totals, calls: usize) {
    if stages.is_empty() || calls == 0 {
        println!("  stages: no timeline_stages lines in the daemon's log");
        return;
    }
    let calls = calls as f64;
    let get = |name: &str| -> (f64, f64, f64) {
        stages
            .iter()
            .find(|(n, ..)| n == name)
            .map_or((0.0, 0.0, 0.0), |(_, us, n, cpu)| {
                (*us as f64, *n as f64, *cpu as f64)
            })
    };
    let (write, writes, write_cpu) = get("write");
    let (file, files, file_cpu) = get("frame_file");
    let (hash, _, hash_cpu) = get("hash");
    let sqlite = (
        (write - file - hash).max(0.0),
        writes,
        (write_cpu - file_cpu - hash_cpu).max(0.0),
    );
    let waits = |label: &str, (us, n, _): (f64, f64, f64)| {
        format!("{label} {:.0} µs wall ({:.2}×)", us / calls, n / calls)
    };
    let works = |label: &str, (us, n, cpu): (f64, f64, f64)| {
        format!(
            "{label} {:.1} µs CPU / {:.0} wall ({:.2}×)",
            cpu / calls,
            us / calls,
            n / calls
        )
    };
    // Frame files and hashes run inside the write: counted once.
    let cpu_total: f64 =
        stages.iter().map(|(.., cpu)| *cpu as f64).sum::<f64>() - file_cpu - hash_cpu;
    println!(
        "  stages per tool call (how many per call): {}, {}, {}, {}, {}, {}, {}, {}; CPU of \
         the stages that never wait {:.1} µs per call",
        waits("capture", get("capture")),
        waits("view frame", get("view_frame")),
        works("frame compare", get("compare")),
        works("frame hash", get("hash")),
        works("SQLite write", sqlite),
        works("frame file", (file, files, file_cpu)),
        works("live timeline_event", get("live")),
        works("queue on the call's path", get("queue")),
        cpu_total / calls,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_stage_totals_and_their_difference() {
        let line = |totals: &str| {
            format!(
                "2026 INFO porthole::timeline::stages: running totals \
                 event=\"timeline_stages\" totals={totals}"
            )
        };
        let log = format!(
            "x\n{}\nnoise\n{}\n",
            line("capture=10/2/0,write=5/1/3"),
            line("capture=25/3/0,write=9/2/7,live=4/1/2")
        );
        let first = totals_of(log.lines().nth(1).unwrap()).unwrap();
        assert_eq!(
            first,
            vec![("capture".into(), 10, 2, 0), ("write".into(), 5, 1, 3)]
        );
        let spent = stage_spent(&first, &last_totals(&log));
        assert_eq!(
            spent,
            vec![
                ("capture".into(), 15, 1, 0),
                ("write".into(), 4, 1, 4),
                ("live".into(), 4, 1, 2)
            ]
        );
        // The older form without CPU reads as CPU 0.
        assert_eq!(
            totals_of(&line("queue=7/1")).unwrap(),
            vec![("queue".into(), 7, 1, 0)]
        );
        assert!(last_totals("no lines").is_empty());
    }
}
