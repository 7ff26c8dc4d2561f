//! `make bench`, agents part: the 8-step MCP script of [`crate::bench_mcp`] through the real
//! `porthole-mcp` with an agent token, over the agent Unix socket vs over TCP (same daemon,
//! same agent, taking turns), and with 4 agents running it at once on one channel, each in
//! its own tab, against one agent alone. Medians of [`RUNS`] runs after a warm-up.

use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;

use crate::bench_mcp::{mcp_run, median, serve_pages, Client};
use crate::daemon::{DaemonOptions, TestDaemon};

/// Measured runs (after one warm-up run).
const RUNS: usize = 5;
/// Agents running the script at once.
const CONCURRENT: usize = 4;
const CHANNEL: &str = "bench-agents";

async fn spawn_proxy(api: &str, token: &str) -> Client {
    let command =
        tokio::process::Command::new(crate::workspace_binary("porthole-mcp")).configure(|c| {
            c.args(["--api", api, "--token", token])
                .env("RUST_LOG", "warn");
        });
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn porthole-mcp");
    tokio::time::timeout(Duration::from_secs(20), ().serve(transport))
        .await
        .expect("MCP handshake within 20 s")
        .expect("MCP handshake")
}

fn total(run: [f64; 8]) -> f64 {
    run.iter().sum()
}

/// Runs the agents part of the bench and prints it.
pub async fn run() {
    let base = serve_pages().await;
    let daemon = TestDaemon::start_with(DaemonOptions {
        rust_log: "info",
        ..Default::default()
    })
    .await;
    let socket = format!("unix://{}", daemon.agent_socket().display());

    // One agent, two ways in, taking turns.
    let (_, token) = daemon.add_agent(CHANNEL, "bench", &[]).await;
    let over_socket = spawn_proxy(&socket, &token).await;
    let over_tcp = spawn_proxy(&daemon.base, &token).await;
    mcp_run(&over_socket, &base).await;
    mcp_run(&over_tcp, &base).await;
    let (mut unix, mut tcp) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        unix.push(total(mcp_run(&over_socket, &base).await));
        tcp.push(total(mcp_run(&over_tcp, &base).await));
    }
    let _ = over_socket.cancel().await;
    let _ = over_tcp.cancel().await;

    // Four agents on one channel, each in its own tab: alone first, then all at once.
    let mut agents = Vec::new();
    for i in 0..CONCURRENT {
        let (_, token) = daemon.add_agent(CHANNEL, &format!("bench-{i}"), &[]).await;
        agents.push(spawn_proxy(&socket, &token).await);
    }
    for agent in &agents {
        mcp_run(agent, &base).await;
    }
    let mut alone = Vec::new();
    for _ in 0..RUNS {
        alone.push(total(mcp_run(&agents[0], &base).await));
    }
    let mut together = Vec::new();
    let mut wall = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let runs = futures_util::future::join_all(agents.iter().map(|a| mcp_run(a, &base))).await;
        wall.push(started.elapsed().as_secs_f64() * 1000.0);
        together.extend(runs.into_iter().map(total));
    }
    for agent in agents {
        let _ = agent.cancel().await;
    }

    let (u, t) = (median(&unix), median(&tcp));
    println!(
        "Agents: the 8-step script through porthole-mcp with an agent token, median of {RUNS} \
         runs after a warm-up:"
    );
    println!(
        "  agent socket (unix) {u:7.1} ms   TCP loopback {t:7.1} ms   ratio {:5.2}",
        u / t.max(0.01)
    );
    let (one, each) = (median(&alone), median(&together));
    println!(
        "  {CONCURRENT} agents at once on one channel (own tabs): {each:7.1} ms per agent vs \
         {one:7.1} ms alone, ratio {:5.2}; wall time for all {CONCURRENT}: {:7.1} ms",
        each / one.max(0.01),
        median(&wall)
    );
}
