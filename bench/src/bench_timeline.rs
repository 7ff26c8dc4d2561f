//! `porthole-bench timeline` (issue 19): what recording costs. Ten busy channels — each with
//! a pane watching a page that changes 10 times a second and an agent calling tools back to
//! back (`read_page`, then a scroll) — on two daemons started side by side, one with
//! `timeline.enabled` off and one with it on. Their agents take turns: windows of the off
//! daemon and of the on daemon alternate (off-on, on-off, off-on, …), so both see the same
//! machine (a shared machine's load drifts over a minute; two runs one after the other compared
//! that drift, not recording). Printed: the daemon's CPU (% of a core; goal ≤ 5 points more
//! with recording on), the tool calls done per window, their ratios per pair of neighbouring
//! windows and the median of those, the bytes the timeline wrote per hour per channel, and
//! where recording's time goes, stage by stage, and by thread (CPU and times scheduled in per
//! tool call of each daemon's threads).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pane::Pane;
use serde_json::json;

use crate::stream_stats::{cpu_by_thread, median_of, threads_spent, Threads};

/// Busy channels per daemon.
const CHANNELS: usize = 10;
/// The measuring window.
const WINDOW: Duration = Duration::from_secs(10);
/// Each daemon's unmeasured turn before the first pair.
const WARM_UP: Duration = Duration::from_secs(3);
/// Pairs of windows (one off, one on) measured; the median of their ratios is printed.
const PAIRS: usize = 3;

/// A page whose text changes 10 times a second, long enough to scroll
/// (`tests/pages/bench/ticker-tall.html`).
fn ticker_url() -> String {
    porthole_tests::pages::data_url(&porthole_tests::pages::page("bench/ticker-tall.html"))
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
#[derive(Clone)]
struct Window {
    /// Daemon CPU, % of one core.
    cpu: f64,
    /// Tool calls answered in the window, all channels.
    calls: usize,
    /// CPU ns and times scheduled in, by thread name, over the window.
    threads: Threads,
}

impl Window {
    /// Daemon CPU seconds per tool call answered.
    fn per_call(&self) -> f64 {
        self.cpu / 100.0 * WINDOW.as_secs_f64() / (self.calls.max(1) as f64)
    }
}

/// Calls tools on `channel` with the owner token while `active`, until `stop`; counts
/// answered calls.
fn busy_agent(daemon: &TestDaemon, channel: String, turn: Turn) -> tokio::task::JoinHandle<()> {
    let addr = daemon.addr.clone();
    let auth = format!("Bearer {}", daemon.token);
    tokio::spawn(async move {
        let steps = [
            json!({"tool": "read_page", "args": {}}),
            json!({"tool": "computer", "args": {"action": "scroll", "coordinate": [400, 300],
                   "scroll_direction": "down", "scroll_amount": 2}}),
        ];
        let mut i = 0;
        while !turn.stop.load(Ordering::Relaxed) {
            if !turn.active.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            let mut body = steps[i % steps.len()].clone();
            body["channel_id"] = json!(channel);
            let (status, _) = porthole_tests::pages::http_request(
                "POST",
                &addr,
                "/api/browser/action",
                &[("Authorization", &auth)],
                Some(body.to_string()),
            )
            .await;
            if status == 200 {
                turn.calls.fetch_add(1, Ordering::Relaxed);
            }
            i += 1;
        }
    })
}

/// The switches and counter a daemon's agents share.
#[derive(Clone)]
struct Turn {
    /// The agents call tools only while set.
    active: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    calls: Arc<AtomicUsize>,
}

/// One daemon with ten watched channels and an agent on each.
struct Busy {
    daemon: TestDaemon,
    _panes: Vec<Pane>,
    agents: Vec<tokio::task::JoinHandle<()>>,
    turn: Turn,
}

impl Busy {
    /// Starts a daemon with `timeline.enabled` = `recording`, ten watched channels and their
    /// agents, and lets every agent have one call answered; the agents then wait for a turn.
    async fn start(recording: bool) -> Busy {
        let daemon = TestDaemon::start_with(DaemonOptions {
            idle_timeout_secs: 600,
            probe_port: false,
            config: json!({"timeline": {"enabled": recording}}),
            // The timeline's stage totals (and the frame stages) in the log.
            env: vec![(
                porthole::bench_hooks::frame_stages::ENV.to_string(),
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
        let turn = Turn {
            active: Arc::new(AtomicBool::new(true)),
            stop: Arc::new(AtomicBool::new(false)),
            calls: Arc::new(AtomicUsize::new(0)),
        };
        let agents = channels
            .iter()
            .map(|c| busy_agent(&daemon, c.clone(), turn.clone()))
            .collect();
        // Warm up: every agent has had at least one call answered.
        let calls = turn.calls.clone();
        porthole_tests::eventually("every agent's first call", Duration::from_secs(60), || {
            let warm = calls.load(Ordering::Relaxed) >= CHANNELS;
            async move { warm.then_some(()) }
        })
        .await;
        turn.active.store(false, Ordering::Relaxed);
        Busy {
            daemon,
            _panes: panes,
            agents,
            turn,
        }
    }

    fn pid(&self) -> u32 {
        self.daemon.child.as_ref().and_then(|c| c.id()).unwrap()
    }

    /// One window of this daemon's agents calling tools (the other daemon's wait).
    async fn window(&self) -> Window {
        self.turn.active.store(true, Ordering::Relaxed);
        // The first calls of the turn are under way before the window opens.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let threads_before = cpu_by_thread(self.pid());
        let calls_before = self.turn.calls.load(Ordering::Relaxed);
        let started = Instant::now();
        tokio::time::sleep(WINDOW).await;
        let secs = started.elapsed().as_secs_f64();
        let threads = threads_spent(&threads_before, &cpu_by_thread(self.pid()));
        let ns: u64 = threads.values().map(|(ns, _)| ns).sum();
        let window = Window {
            cpu: ns as f64 / 1e9 / secs * 100.0,
            calls: ((self.turn.calls.load(Ordering::Relaxed) - calls_before) as f64
                * WINDOW.as_secs_f64()
                / secs) as usize,
            threads,
        };
        self.turn.active.store(false, Ordering::Relaxed);
        window
    }

    /// A short unmeasured turn.
    async fn warm_up(&self) {
        self.turn.active.store(true, Ordering::Relaxed);
        tokio::time::sleep(WARM_UP).await;
        self.turn.active.store(false, Ordering::Relaxed);
    }

    async fn stop(self) {
        self.turn.stop.store(true, Ordering::Relaxed);
        for agent in self.agents {
            let _ = agent.await;
        }
        self.daemon.stop().await;
    }
}

/// What the recording daemon's windows added up to.
#[derive(Default)]
struct Recorded {
    stages: Totals,
    calls: usize,
    bytes: u64,
    secs: f64,
}

impl Recorded {
    /// Adds one window's stage totals, calls, timeline bytes and time.
    fn add(&mut self, before: &Totals, after: &Totals, calls: usize, bytes: u64, secs: f64) {
        self.stages = sum_totals(&self.stages, &stage_spent(before, after));
        self.calls += calls;
        self.bytes += bytes;
        self.secs += secs;
    }
}

/// `a` and `b` added stage by stage (stages only in `b` come after).
fn sum_totals(a: &Totals, b: &Totals) -> Totals {
    let mut sum = a.clone();
    for (name, us, n, cpu) in b {
        match sum.iter_mut().find(|(s, ..)| s == name) {
            Some(stage) => {
                stage.1 += us;
                stage.2 += n;
                stage.3 += cpu;
            }
            None => sum.push((name.clone(), *us, *n, *cpu)),
        }
    }
    sum
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
         calling read_page / scroll back to back; two daemons side by side (recording off, on) \
         taking turns in {} pairs of {:.0} s windows; daemon CPU in its own windows",
        PAIRS,
        WINDOW.as_secs_f64()
    );
    let load_before = load_average();
    let off = Busy::start(false).await;
    let on = Busy::start(true).await;
    let timeline_dir = on.daemon.data.path().join("timeline");
    // One unmeasured turn each first: the second daemon's start and the first daemon's long
    // pause leave both out of step (seen: a first window with a tenth of the calls).
    off.warm_up().await;
    on.warm_up().await;
    let mut pairs: Vec<(Window, Window)> = Vec::new();
    let mut recorded = Recorded::default();
    for pair in 0..PAIRS {
        // Alternate which goes first, so a drift of the machine's load favours neither.
        let on_first = pair % 2 == 1;
        let (mut w_off, mut w_on) = (None, None);
        for on_turn in [on_first, !on_first] {
            if on_turn {
                let stages_before = last_totals(&on.daemon.log());
                let bytes_before = dir_bytes(&timeline_dir);
                let started = Instant::now();
                let window = on.window().await;
                recorded.add(
                    &stages_before,
                    &last_totals(&on.daemon.log()),
                    window.calls,
                    dir_bytes(&timeline_dir).saturating_sub(bytes_before),
                    started.elapsed().as_secs_f64(),
                );
                w_on = Some(window);
            } else {
                w_off = Some(off.window().await);
            }
        }
        pairs.push((w_off.expect("off window"), w_on.expect("on window")));
    }
    on.stop().await;
    off.stop().await;
    // A shared machine's other work moves these figures: the ratios are of neighbouring windows.
    println!(
        "  machine load average (1 min) before / after the run: {load_before} / {}",
        load_average()
    );
    let all =
        |pick: fn(&(Window, Window)) -> Window| -> Vec<Window> { pairs.iter().map(pick).collect() };
    let (offs, ons) = (all(|p| p.0.clone()), all(|p| p.1.clone()));
    let medians = |w: &[Window]| {
        let cpu: Vec<f64> = w.iter().map(|w| w.cpu).collect();
        let calls: Vec<f64> = w.iter().map(|w| w.calls as f64).collect();
        (median_of(&cpu), median_of(&calls))
    };
    let windows = |w: &[Window]| {
        w.iter()
            .map(|w| format!("{:.1}%/{}", w.cpu, w.calls))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (cpu_off, calls_off) = medians(&offs);
    let (cpu_on, calls_on) = medians(&ons);
    println!(
        "  recording off: daemon {cpu_off:5.1}% of a core, {calls_off:.0} tool calls per window \
         (windows, CPU/calls: {})",
        windows(&offs)
    );
    println!(
        "  recording on:  daemon {cpu_on:5.1}% of a core, {calls_on:.0} tool calls per window \
         (windows, CPU/calls: {})",
        windows(&ons)
    );
    let cpu_ratios: Vec<f64> = pairs
        .iter()
        .map(|(off, on)| on.per_call() / off.per_call())
        .collect();
    let call_ratios: Vec<f64> = pairs
        .iter()
        .map(|(off, on)| on.calls as f64 / off.calls.max(1) as f64)
        .collect();
    let listed = |r: &[f64]| {
        r.iter()
            .map(|r| format!("{r:.2}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let per_hour =
        recorded.bytes as f64 / recorded.secs.max(f64::EPSILON) * 3600.0 / CHANNELS as f64;
    println!(
        "  recording adds {:+.1} points of a core (goal ≤ +5.0); the timeline grows {:.1} MB per \
         hour per busy channel (capped by timeline.max_mb)",
        cpu_on - cpu_off,
        per_hour / 1e6,
    );
    println!(
        "  ratios on / off, per pair of neighbouring windows: CPU per tool call {}, tool calls per \
         window {}",
        listed(&cpu_ratios),
        listed(&call_ratios)
    );
    println!(
        "  ratios on / off (median of the pairs): CPU per tool call {:.2}× (goal ≤ 1.10×), tool \
         calls per window {:.2}× (goal ≥ 0.90×)",
        median_of(&cpu_ratios),
        median_of(&call_ratios),
    );
    print_stages(&recorded.stages, recorded.calls);
    print_threads(&offs, &ons);
}

/// CPU µs and times scheduled in per tool call, by thread name, of each daemon over all its
/// windows: which threads recording's extra time runs on, and how often they wake for it.
fn print_threads(offs: &[Window], ons: &[Window]) {
    let per_call = |windows: &[Window], name: &str| {
        let calls = windows.iter().map(|w| w.calls).sum::<usize>().max(1) as f64;
        let (ns, slices) = windows
            .iter()
            .filter_map(|w| w.threads.get(name))
            .fold((0u64, 0u64), |(n, s), (ns, sl)| (n + ns, s + sl));
        (ns as f64 / 1e3 / calls, slices as f64 / calls)
    };
    let names: std::collections::BTreeSet<&String> = offs
        .iter()
        .chain(ons)
        .flat_map(|w| w.threads.keys())
        .collect();
    let listed = names
        .iter()
        .map(|name| {
            let (off_us, off_wakes) = per_call(offs, name);
            let (on_us, on_wakes) = per_call(ons, name);
            format!(
                "{name} {off_us:.0} / {on_us:.0} µs, {off_wakes:.2} / {on_wakes:.2} times scheduled in"
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    println!("  per tool call by thread, off / on: {listed}");
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
    let (commit, commits, commit_cpu) = get("commit");
    let sqlite = (
        (write - file - hash - commit).max(0.0),
        writes,
        (write_cpu - file_cpu - hash_cpu - commit_cpu).max(0.0),
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
    // Frame files, hashes and commits run inside the write: counted once.
    let cpu_total: f64 =
        stages.iter().map(|(.., cpu)| *cpu as f64).sum::<f64>() - file_cpu - hash_cpu - commit_cpu;
    println!(
        "  stages per tool call (how many per call): {}, {}, {}, {}, {}, {}, {}, {}, {}; CPU of \
         the stages that never wait {:.1} µs per call",
        waits("capture", get("capture")),
        waits("view frame", get("view_frame")),
        works("frame compare", get("compare")),
        works("frame hash", get("hash")),
        works("SQLite write", sqlite),
        works(
            "SQLite commit (WAL checkpoints)",
            (commit, commits, commit_cpu)
        ),
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
        // Windows add up stage by stage; a stage first seen later is added at the end.
        assert_eq!(
            sum_totals(&first, &spent),
            vec![
                ("capture".into(), 25, 3, 0),
                ("write".into(), 9, 2, 7),
                ("live".into(), 4, 1, 2)
            ]
        );
    }
}
