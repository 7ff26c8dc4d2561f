//! `porthole-bench distance` (issue 22, DESIGN.md §18): what distance to the Docker engine
//! costs. The second dockerd (scripts/setup/remote-dockerd.sh) is reached through a
//! [`DelayProxy`] adding 0, 25 and 50 ms each way; the local engine (published port) is the
//! baseline. One daemon per case, all in one run, the cases taking turns:
//!
//! - the 8-step MCP script of [`crate::bench_mcp`] through the real `porthole-mcp` with an
//!   agent token (pages travel as `data:` URLs: the remote engine's containers cannot reach
//!   this machine's loopback), per step, median of [`RUNS`] after a warm-up;
//! - the first call: an agent's `navigate` on a channel whose browser is not running yet
//!   (channel start + navigate), median of [`FIRST_RUNS`];
//! - pane input → frame: a click (press and release, as the web panel sends it) on a page that
//!   repaints on each `click` event, to the first frame after it, median of [`INPUT_RUNS`];
//! - CDP per tool call, from the daemon's `tool_run` log lines: commands sent and replies
//!   waited on one after another (each a round trip to the engine;
//!   `porthole::bench_hooks::cdp::tallied`), and where each navigation's time went (commit,
//!   load, DOM-quiet wait).

use std::time::{Duration, Instant};

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::delay_proxy::{self, DelayProxy, Link};
use porthole_tests::docker::{self, DockerCleanup};
use porthole_tests::pages::{data_url, page};
use porthole_tests::pane::Pane;
use porthole_tests::remote::{self, RemoteTest};
use porthole_tests::tool_runs::{cdp_counts, field};
use serde_json::json;

use crate::bench_mcp::{call, median, ref_of, text, Client, DONE, DONE_VALUE, STEPS};
use crate::stream_stats::{load_average, ms};

/// Measured script runs per case (after one warm-up run).
const RUNS: usize = 3;
/// First calls per case (each starts a new channel's browser); three, so the median is not
/// an average of two when one start stalls.
const FIRST_RUNS: usize = 3;
/// Clicks per case for input → frame: fifteen, as a frame waits for Chrome's next paint (up
/// to a 60 Hz frame, 17 ms) and a median of five moved by half that between runs.
const INPUT_RUNS: usize = 15;
/// What the daemons log: the per-call CDP counts the table prints.
const LOG_FILTER: &str = "info,porthole::calls=debug";
/// One-way delays of the remote cases, in ms.
const DELAYS: [u64; 3] = [0, 25, 50];

struct Case {
    name: String,
    /// One-way delay; `None` for the local engine.
    one_way_ms: Option<u64>,
    daemon: TestDaemon,
    steps: Vec<Vec<f64>>,
    first: Vec<f64>,
    /// What each first call waited on, by kind.
    first_counts: Vec<FirstCounts>,
    input: Vec<f64>,
    /// `(tool, commands, sequential waits)` per call of one counted run.
    counts: Vec<(String, u64, u64)>,
    /// `[commit, load, quiet]` ms of the counted run's navigations (navigate, navigate p2,
    /// go back).
    phases: Vec<[u64; 3]>,
}

async fn spawn_agent(daemon: &TestDaemon, channel: &str, name: &str) -> Client {
    let (_, token) = daemon.add_agent(channel, name, &[]).await;
    let api = format!("unix://{}", daemon.agent_socket().display());
    porthole_tests::mcp::Server::binary("porthole-mcp")
        .args(&["--api", &api, "--token", &token])
        .quiet()
        .connect()
        .await
}

/// The 8-step script of `bench_mcp::mcp_run` on `data:` pages; the time of each step.
async fn script(client: &Client, form: &str, page2: &str) -> [f64; 8] {
    let mut times = [0.0; 8];
    let mut since = Instant::now();
    let mut lap = |step: usize, since: &mut Instant| {
        times[step] = ms(since.elapsed());
        *since = Instant::now();
    };
    call(client, "navigate", json!({ "url": form })).await;
    lap(0, &mut since);
    let snap = text(&call(client, "read_page", json!({})).await);
    lap(1, &mut since);
    let button = ref_of(&snap, "button \"Change\"");
    let field = ref_of(&snap, "textbox \"Name\"");
    let select = ref_of(&snap, "combobox \"Color\"");
    since = Instant::now();
    call(
        client,
        "computer",
        json!({"action": "left_click", "ref": button}),
    )
    .await;
    lap(2, &mut since);
    call(
        client,
        "computer",
        json!({"action": "type", "ref": field, "text": "hello"}),
    )
    .await;
    lap(3, &mut since);
    call(
        client,
        "form_input",
        json!({"ref": select, "value": "Green"}),
    )
    .await;
    lap(4, &mut since);
    let done = text(&call(client, "evaluate", json!({ "expression": DONE })).await);
    assert!(
        done.contains(DONE_VALUE),
        "the script left the form as {done}"
    );
    since = Instant::now();
    call(client, "navigate", json!({ "url": page2 })).await;
    lap(5, &mut since);
    call(client, "go_back", json!({})).await;
    lap(6, &mut since);
    call(client, "screenshot", json!({})).await;
    lap(7, &mut since);
    times
}

/// Where each explicit navigation's time went, in order: `[commit, load, quiet]` in ms —
/// `Page.navigate` answered (commit), then its load event, then the DOM-quiet wait (its round
/// trip included) — from the `navigation_committed` and `navigation_settled` lines (a history
/// step logs no commit: 0).
fn navigation_phases(log: &str) -> Vec<[u64; 3]> {
    let mut phases = Vec::new();
    let mut commit = 0;
    for line in log.lines() {
        let number = |name: &str| field(line, name).and_then(|v| v.parse().ok()).unwrap_or(0);
        if line.contains("event=\"navigation_committed\"") {
            commit = number("commit_ms");
        } else if line.contains("event=\"navigation_settled\"") {
            phases.push([
                std::mem::take(&mut commit),
                number("load_ms"),
                number("quiet_ms"),
            ]);
        }
    }
    phases
}

/// What one first call waited on, by kind: Engine API requests of the sidecar's start (its
/// `sidecar_start_steps` line), TCP connections opened to the engine (counted by the delay
/// proxy: each also a TLS handshake), CDP replies waited on in sequence while the session
/// opened and while the `navigate` ran (each a round trip to the engine).
#[derive(Debug, Default, Clone, Copy)]
struct FirstCounts {
    engine_requests: Option<u64>,
    connections: Option<u64>,
    open_waits: Option<u64>,
    navigate_waits: Option<u64>,
}

impl FirstCounts {
    fn read(log: &str, connections: Option<u64>) -> Self {
        let last = |event: &str| log.lines().rev().find(|l| l.contains(event));
        let number =
            |line: Option<&str>, name: &str| -> Option<u64> { field(line?, name)?.parse().ok() };
        Self {
            engine_requests: number(last("sidecar_start_steps"), "engine_requests"),
            connections,
            open_waits: number(last("event=\"session_started\""), "open_sequential_waits"),
            navigate_waits: cdp_counts(log)
                .into_iter()
                .find(|(tool, _, _)| tool == "navigate")
                .map(|(_, _, waits)| waits),
        }
    }
}

/// The median of each count over `runs`, as `E engine requests, C connections, S + N CDP
/// waits (session open + navigate)`.
fn first_counts_text(runs: &[FirstCounts]) -> String {
    let med = |pick: fn(&FirstCounts) -> Option<u64>| {
        let values: Vec<f64> = runs
            .iter()
            .filter_map(|c| pick(c).map(|v| v as f64))
            .collect();
        if values.is_empty() {
            "?".to_string()
        } else {
            format!("{:.0}", median(&values))
        }
    };
    format!(
        "{} req, {} conn, {}+{} CDP waits",
        med(|c| c.engine_requests),
        med(|c| c.connections),
        med(|c| c.open_waits),
        med(|c| c.navigate_waits)
    )
}

/// An agent's first call on a channel whose browser is not running: start + navigate, in ms,
/// and what it waited on (`proxy`: the delay proxy to the engine, which counts connections).
/// The channel is deleted afterwards (container and volume go).
async fn first_call(
    daemon: &TestDaemon,
    proxy: Option<&DelayProxy>,
    channel: &str,
    url: &str,
) -> (Option<f64>, FirstCounts) {
    let client = spawn_agent(daemon, channel, "first").await;
    let seen = daemon.log().len();
    let connections = proxy.map(DelayProxy::connections);
    let started = Instant::now();
    // A start slower than the tool call's deadline (a loaded engine) is printed, not fatal.
    let result = porthole_tests::mcp::request(&client, "navigate", json!({ "url": url })).await;
    let took = match result {
        Ok(r) if r.is_error != Some(true) => Some(ms(started.elapsed())),
        other => {
            println!("  first call on {channel} failed: {other:?}");
            None
        }
    };
    let connections = proxy
        .zip(connections)
        .map(|(p, before)| p.connections() - before);
    let counts = FirstCounts::read(&daemon.log()[seen..], connections);
    let _ = client.cancel().await;
    let (status, body) = daemon
        .delete(&format!("/api/browser/channels/{channel}"))
        .await;
    assert!(status < 300, "delete {channel}: {status} {body}");
    (took, counts)
}

/// A pane on `channel` watching the flip page.
async fn flip_pane(daemon: &TestDaemon, channel: &str) -> Pane {
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    pane.open_page(&data_url(&page("bench/flip.html")), "Flip")
        .await;
    pane.watch().await;
    pane
}

/// One click as the web panel sends it (a press and a release) → the first frame after it, in
/// ms. The page repaints on `click`, which fires at the release, as most pages' buttons do.
async fn input_to_frame(pane: &Pane) -> f64 {
    let before = pane.frame_count();
    let sent = Instant::now();
    let at = json!({"x": 200, "y": 200, "button": "left", "click_count": 1});
    pane.input("mousedown", at.clone());
    pane.input("mouseup", at);
    let arrived = pane
        .wait("a frame after the click", Duration::from_secs(30), |r| {
            (r.frame_count > before).then(|| *r.frame_times.last().expect("a frame time"))
        })
        .await;
    ms(arrived.saturating_duration_since(sent))
}

/// Runs the distance bench and prints it.
pub async fn run() {
    if !docker::docker(&["info"]).0 {
        println!(
            "distance: skipped, the local Docker engine does not answer (scripts/setup/docker.sh)"
        );
        return;
    }
    docker::ensure_image().await;
    let remote_test = RemoteTest::with_image("bench-dist", None).await;
    let (engine, tag) = (&remote_test.engine, remote_test.tag.clone());
    let _local_cleanup = DockerCleanup::new(&tag);
    let target = delay_proxy::tcp_addr(&engine.host);
    let mut proxies = Vec::new();
    for one_way in DELAYS {
        proxies.push(DelayProxy::start(target, Link::delay_ms(one_way)).await);
    }
    // `PORTHOLE_BENCH_RUST_LOG` widens what the daemons log (e.g. `porthole::cdp=trace` for
    // every command sent); `PORTHOLE_BENCH_LOGS` names a directory their logs are copied to.
    let rust_log: &'static str = match std::env::var("PORTHOLE_BENCH_RUST_LOG") {
        Ok(extra) => Box::leak(format!("{LOG_FILTER},{extra}").into_boxed_str()),
        Err(_) => LOG_FILTER,
    };
    let logged = |options: DaemonOptions| DaemonOptions {
        rust_log,
        ..options
    };
    let mut cases = vec![Case {
        name: "local engine (published port)".into(),
        one_way_ms: None,
        daemon: TestDaemon::start_with(logged(docker::options(&tag, json!({})))).await,
        steps: vec![Vec::new(); 8],
        first: Vec::new(),
        first_counts: Vec::new(),
        input: Vec::new(),
        counts: Vec::new(),
        phases: Vec::new(),
    }];
    for proxy in &proxies {
        let via = delay_proxy::via(engine, proxy);
        cases.push(Case {
            name: format!("remote, {} ms each way", proxy.link.one_way.as_millis()),
            one_way_ms: Some(proxy.link.one_way.as_millis() as u64),
            daemon: TestDaemon::start_with(logged(remote::options(&via, &tag, json!({})))).await,
            steps: vec![Vec::new(); 8],
            first: Vec::new(),
            first_counts: Vec::new(),
            input: Vec::new(),
            counts: Vec::new(),
            phases: Vec::new(),
        });
    }
    // The remote engines cannot reach this machine's page server: pages travel in the URL.
    let (form, page2) = (
        data_url(&page("bench/form.html")),
        data_url(&page("bench/page2.html")),
    );

    // Warm-up: each daemon's first start (engine connection, image check, sandbox probe) from
    // a pane, which waits longer than a tool call's deadline.
    for (i, case) in cases.iter().enumerate() {
        let channel = format!("{tag}-w{i}");
        Pane::connect(&case.daemon.addr, &case.daemon.token)
            .await
            .start(&channel)
            .await;
        case.daemon
            .delete(&format!("/api/browser/channels/{channel}"))
            .await;
    }
    for run in 0..FIRST_RUNS {
        for (i, case) in cases.iter_mut().enumerate() {
            let proxy = i.checked_sub(1).map(|p| &proxies[p]);
            let channel = format!("{tag}-f{i}-{run}");
            let (took, counts) = first_call(&case.daemon, proxy, &channel, &form).await;
            case.first.extend(took);
            case.first_counts.push(counts);
        }
    }

    // The script: one agent per case, warm-up, a counted run, then RUNS runs taking turns.
    let mut clients = Vec::new();
    for (i, case) in cases.iter_mut().enumerate() {
        // The browser started by a pane first (a loaded engine can take longer than a tool
        // call's deadline to start a container).
        let channel = format!("{tag}-s{i}");
        let pane = Pane::connect(&case.daemon.addr, &case.daemon.token).await;
        pane.start(&channel).await;
        let client = spawn_agent(&case.daemon, &channel, "script").await;
        drop(pane);
        script(&client, &form, &page2).await;
        let seen = case.daemon.log().len();
        script(&client, &form, &page2).await;
        case.counts = cdp_counts(&case.daemon.log()[seen..]);
        case.phases = navigation_phases(&case.daemon.log()[seen..]);
        clients.push(client);
    }
    for _ in 0..RUNS {
        for (case, client) in cases.iter_mut().zip(&clients) {
            for (i, t) in script(client, &form, &page2).await.into_iter().enumerate() {
                case.steps[i].push(t);
            }
        }
    }
    for client in clients {
        let _ = client.cancel().await;
    }

    // Pane input → frame.
    let mut panes = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let pane = flip_pane(&case.daemon, &format!("{tag}-p{i}")).await;
        input_to_frame(&pane).await;
        panes.push(pane);
    }
    for _ in 0..INPUT_RUNS {
        for (case, pane) in cases.iter_mut().zip(&panes) {
            case.input.push(input_to_frame(pane).await);
        }
    }
    drop(panes);

    print(&mut cases);
    if let Ok(dir) = std::env::var("PORTHOLE_BENCH_LOGS") {
        for (i, case) in cases.iter().enumerate() {
            let path = std::path::Path::new(&dir).join(format!("distance-{i}.log"));
            if let Err(e) = std::fs::write(&path, case.daemon.log()) {
                println!("  could not write {}: {e}", path.display());
            }
        }
    }
    for case in cases {
        case.daemon.stop().await;
    }
}

fn print(cases: &mut [Case]) {
    println!(
        "Distance to the Docker engine (issue 22): the local engine, and the second engine \
         through a delaying proxy at {DELAYS:?} ms each way; medians (script {RUNS} runs, first \
         call {FIRST_RUNS}, input {INPUT_RUNS}); load average at the end {}:",
        load_average()
    );
    let header: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
    println!(
        "  {:<22} {}",
        "",
        header
            .iter()
            .map(|h| format!("{h:>32}"))
            .collect::<String>()
    );
    // The remote case at 0 ms is "local" for the targets.
    let base = cases
        .iter()
        .position(|c| c.one_way_ms == Some(0))
        .unwrap_or(0);
    let row = |name: &str, values: Vec<(f64, Option<(u64, u64)>)>| {
        let cells: String = values
            .iter()
            .map(|(v, c)| match c {
                Some((cmds, rounds)) => {
                    format!("{:>32}", format!("{v:.0} ms ({cmds} cmd, {rounds} waits)"))
                }
                None => format!("{:>32}", format!("{v:.0} ms")),
            })
            .collect();
        println!("  {name:<22} {cells}");
    };
    // Counted calls: the script's 9 calls (the check `evaluate` between select and navigate p2).
    let step_call = |step: usize| if step >= 5 { step + 1 } else { step };
    let mut totals = vec![0.0; cases.len()];
    for (step, name) in STEPS.iter().enumerate() {
        let values = cases
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let m = median(&c.steps[step]);
                totals[i] += m;
                let counts = c
                    .counts
                    .get(step_call(step))
                    .map(|(_, cmds, r)| (*cmds, *r));
                (m, counts)
            })
            .collect();
        row(name, values);
    }
    let sums: Vec<(u64, u64)> = cases
        .iter()
        .map(|c| {
            c.counts
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != 5)
                .fold((0, 0), |(a, b), (_, (_, x, y))| (a + x, b + y))
        })
        .collect();
    row(
        "total (8 steps)",
        totals
            .iter()
            .zip(&sums)
            .map(|(t, s)| (*t, Some(*s)))
            .collect(),
    );
    for (i, name) in ["navigate", "navigate p2", "go back"].iter().enumerate() {
        let cells: String = cases
            .iter()
            .map(|c| match c.phases.get(i) {
                Some([commit, load, quiet]) => {
                    format!("{:>32}", format!("{commit}+{load}+{quiet} ms"))
                }
                None => format!("{:>32}", "?"),
            })
            .collect();
        println!("  {:<22} {cells}", format!("{name}: commit+load+quiet"));
    }
    row(
        "first call",
        cases.iter().map(|c| (median(&c.first), None)).collect(),
    );
    let cells: String = cases
        .iter()
        .map(|c| format!("{:>32}", first_counts_text(&c.first_counts)))
        .collect();
    println!("  {:<22} {cells}", "first call waited on");
    row(
        "pane input → frame",
        cases.iter().map(|c| (median(&c.input), None)).collect(),
    );
    let local_total = totals[base];
    let local_first = median(&cases[base].first);
    let local_input = median(&cases[base].input);
    println!("  targets against the remote engine at 0 ms (issue 22):");
    for (i, case) in cases.iter().enumerate() {
        let Some(one_way) = case.one_way_ms.filter(|ms| *ms > 0) else {
            continue;
        };
        let rtt = 2.0 * one_way as f64;
        let verdict = |value: f64, limit: f64| if value <= limit { "met" } else { "NOT met" };
        let script_limit = local_total + 2.0 * rtt * 8.0;
        let first_limit = local_first + 10.0 * rtt;
        let input_limit = local_input + rtt;
        println!(
            "    {:<24} script {:.0} ms ≤ {script_limit:.0} ({}); first call {:.0} ms ≤ {first_limit:.0} ({}); input→frame {:.0} ms ≤ {input_limit:.0} ({}); {:.1} round trips per step",
            case.name,
            totals[i],
            verdict(totals[i], script_limit),
            median(&case.first),
            verdict(median(&case.first), first_limit),
            median(&case.input),
            verdict(median(&case.input), input_limit),
            (totals[i] - local_total) / rtt / 8.0,
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_navigation_phases() {
        let log = "x event=\"navigation_committed\" commit_ms=40\n\
                   x event=\"navigation_settled\" first_event_ms=0 load_ms=30 quiet_ms=20 located=true\n\
                   x event=\"navigation_settled\" first_event_ms=0 load_ms=5 quiet_ms=9 located=true\n";
        assert_eq!(super::navigation_phases(log), vec![[40, 30, 20], [0, 5, 9]]);
    }
}
