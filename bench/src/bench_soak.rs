//! `porthole-bench soak` (issue 38 item 11): does the daemon's memory grow while the timeline
//! records? Two daemons side by side under the same load — recording on and recording off —
//! so the machine's noise falls on both: 3 channels each, 2 panes per channel watching a page
//! that repaints 20 times a second and logs each tick, and one agent per channel calling
//! `read_page`, `screenshot` and `read_console_messages` every second. Prints both daemons'
//! RSS at intervals and the least-squares slope (MiB per hour) over the second half.
//! `PORTHOLE_SOAK_SECS` sets the length (default 1200: 20 minutes). Goal: the slope with
//! recording on within 1 MiB per hour of the slope with it off.

use std::time::{Duration, Instant};

use porthole_tests::action::Caller;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::json;

use crate::stream_stats::rss_mib;

const CHANNELS: usize = 3;
const PANES_PER_CHANNEL: usize = 2;
/// How often RSS is read.
const SAMPLE_EVERY: Duration = Duration::from_secs(10);

/// One daemon under load: its panes (kept open) and its pid.
struct Loaded {
    daemon: TestDaemon,
    _panes: Vec<Pane>,
    agents: Vec<tokio::task::JoinHandle<()>>,
    pid: u32,
}

impl Loaded {
    async fn stop(self) {
        for agent in &self.agents {
            agent.abort();
        }
        self.daemon.stop().await;
    }
}

async fn loaded(pages: &PageServer, timeline: bool) -> Loaded {
    let daemon = TestDaemon::start_with(DaemonOptions {
        rust_log: "info",
        config: json!({"timeline": {"enabled": timeline}}),
        ..Default::default()
    })
    .await;
    let pid = daemon.child.as_ref().and_then(|c| c.id()).expect("pid");
    let (mut panes, mut agents) = (Vec::new(), Vec::new());
    for c in 0..CHANNELS {
        let channel = format!("soak-{c}");
        let (_, token) = daemon.add_agent(&channel, "soaker", &[]).await;
        let agent = daemon.caller(&token);
        agent
            .act_ok("navigate", json!({"url": pages.url("/soak.html")}))
            .await;
        for _ in 0..PANES_PER_CHANNEL {
            let pane = Pane::connect(&daemon.addr, &daemon.token).await;
            pane.start(&channel).await;
            pane.watch().await;
            panes.push(pane);
        }
        agents.push(tokio::spawn(agent_loop(agent)));
    }
    Loaded {
        daemon,
        _panes: panes,
        agents,
        pid,
    }
}

/// An agent reading its page every second until the process ends.
async fn agent_loop(agent: Caller) {
    let calls = [
        ("read_page", json!({})),
        ("screenshot", json!({})),
        ("read_console_messages", json!({"limit": 20})),
    ];
    loop {
        for (tool, args) in &calls {
            let _ = agent.act(tool, args.clone()).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Least-squares slope of `(seconds, MiB)` samples, in MiB per hour.
pub fn slope_mib_per_hour(samples: &[(f64, f64)]) -> f64 {
    let n = samples.len() as f64;
    if n < 2.0 {
        return f64::NAN;
    }
    let mean_t = samples.iter().map(|s| s.0).sum::<f64>() / n;
    let mean_m = samples.iter().map(|s| s.1).sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for (t, m) in samples {
        num += (t - mean_t) * (m - mean_m);
        den += (t - mean_t) * (t - mean_t);
    }
    num / den * 3600.0
}

/// Runs the soak and prints it.
pub async fn run() {
    let length = std::env::var("PORTHOLE_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Duration::from_secs)
        .unwrap_or(Duration::from_secs(1200));
    let pages = PageServer::area("bench").await;
    let on = loaded(&pages, true).await;
    let off = loaded(&pages, false).await;
    println!(
        "Soak (issue 38 item 11): {CHANNELS} channels x {PANES_PER_CHANNEL} panes and an agent each, {} s; daemon RSS in MiB\n",
        length.as_secs()
    );
    println!("{:>7}  {:>12}  {:>12}", "s", "recording", "not");
    let started = Instant::now();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    while started.elapsed() < length {
        tokio::time::sleep(SAMPLE_EVERY).await;
        let t = started.elapsed().as_secs_f64();
        let (a, b) = (rss_mib(on.pid), rss_mib(off.pid));
        println!("{t:>7.0}  {a:>12.2}  {b:>12.2}");
        with.push((t, a));
        without.push((t, b));
    }
    let half = |s: &[(f64, f64)]| s[s.len() / 2..].to_vec();
    let (slope_on, slope_off) = (
        slope_mib_per_hour(&half(&with)),
        slope_mib_per_hour(&half(&without)),
    );
    println!(
        "\nslope over the second half: recording {slope_on:.2} MiB/h, not recording {slope_off:.2} MiB/h, difference {:.2} MiB/h (goal <= 1)",
        slope_on - slope_off
    );
    on.stop().await;
    off.stop().await;
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_slope_of_a_straight_line_is_its_rise_per_hour() {
        let line: Vec<(f64, f64)> = (0..10)
            .map(|i| (i as f64 * 60.0, 10.0 + i as f64))
            .collect();
        assert!((super::slope_mib_per_hour(&line) - 60.0).abs() < 1e-9);
    }
}
