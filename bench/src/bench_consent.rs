//! `porthole-bench consent` (issues 36 and 52): what consent costs an agent, each figure against
//! its baseline in the same run (agents taking turns, each in its own tab):
//! - a page load (`navigate`) by an agent held to a site list, against one held to none, of a
//!   page with one subresource and of a page with 50 (25 images and 25 scripts of its own site,
//!   fetched anew on every load): with a site list every request of the channel is paused at
//!   `Fetch` and decided, without one only documents are. The agent without rules is alone in
//!   a channel of its own (a channel where any agent has sites pauses every request);
//! - a click that posts a form, by an agent whose `confirm` holds `submit` (allowed at once by
//!   a scripted pane), against one whose does not: from the click to the server receiving
//!   the POST.
//!
//! Medians of [`RUNS`] runs after a warm-up. Goal: interception adds ≤ 5 % to the load.
//! Measured 2026-12-07 (release, Chromium 156, 2 cores at load average 4–8 from other builds),
//! five runs of the 50-subresource figure: 1.18×, 0.99×, 1.03×, 0.97×, 1.12× (median 1.03×);
//! each paused request costs a round trip to the daemon (about 0.6 ms, `prompts::auth`), which
//! the run-to-run noise of a loaded machine mostly hides.

use std::time::{Duration, Instant};

use porthole_tests::action::Caller;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

use crate::stream_stats::median_of;

const CHANNEL: &str = "bench-consent";
/// The channel of the agent held to no rules (documents-only pauses).
const OPEN_CHANNEL: &str = "bench-consent-open";
/// Measured runs of each figure (after one warm-up).
const RUNS: usize = 15;

/// Adds an agent on `channel` with `extra` fields (`sites`, `confirm`); its caller.
async fn agent(daemon: &TestDaemon, channel: &str, name: &str, extra: Value) -> Caller {
    let mut body = json!({"channel_id": channel, "name": name});
    for (k, v) in extra.as_object().expect("fields") {
        body[k] = v.clone();
    }
    let (status, created) = daemon.post("/api/browser/agents", &body).await;
    assert_eq!(status, 201, "{created}");
    daemon.caller(created["token"].as_str().expect("token"))
}

/// One `navigate` of `agent` to `url`, in ms.
async fn load(agent: &Caller, url: &str) -> f64 {
    let started = Instant::now();
    agent.act_ok("navigate", json!({"url": url})).await;
    started.elapsed().as_secs_f64() * 1000.0
}

/// Medians of `url`'s loads by `open` and by `listed`, taking turns after a warm-up each.
async fn loads(open: &Caller, listed: &Caller, url: &str) -> (f64, f64) {
    load(open, url).await;
    load(listed, url).await;
    let (mut without, mut with) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        without.push(load(open, url).await);
        with.push(load(listed, url).await);
    }
    (median_of(&without), median_of(&with))
}

/// One click on the order form by `agent`, until the server received its POST, in ms.
async fn post(agent: &Caller, pages: &PageServer) -> f64 {
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let before = posts(pages);
    let started = Instant::now();
    agent
        .act_ok(
            "computer",
            json!({"action": "left_click", "coordinate": [200, 200]}),
        )
        .await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while posts(pages) == before {
        assert!(Instant::now() < deadline, "the POST never arrived");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    started.elapsed().as_secs_f64() * 1000.0
}

fn posts(pages: &PageServer) -> usize {
    pages
        .requests()
        .iter()
        .filter(|r| r.starts_with("POST /submitted"))
        .count()
}

/// Answers every approval the pane sees with allow (the person clicking Allow at once).
fn allow_everything(pane: std::sync::Arc<Pane>) {
    tokio::spawn(async move {
        let mut seen = 0;
        loop {
            let asked = pane.next_of("approval", seen).await;
            seen = pane.mark();
            pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
        }
    });
}

/// Runs the consent part and prints it.
pub async fn run() {
    let pages = PageServer::area("approvals").await;
    let daemon = TestDaemon::start_with(DaemonOptions {
        rust_log: "info",
        ..Default::default()
    })
    .await;
    let heavy = PageServer::area("bench").await;
    let open = agent(&daemon, OPEN_CHANNEL, "open", json!({})).await;
    let listed = agent(
        &daemon,
        CHANNEL,
        "listed",
        json!({"sites": {"allow": [pages.base(), heavy.base()], "deny": ["*.example.com"]}}),
    )
    .await;
    let plain = agent(&daemon, CHANNEL, "plain", json!({})).await;
    let asking = agent(&daemon, CHANNEL, "asking", json!({"confirm": ["submit"]})).await;
    let pane = std::sync::Arc::new(Pane::connect(&daemon.addr, &daemon.token).await);
    pane.start(CHANNEL).await;
    allow_everything(pane.clone());

    let (without, with) = loads(&open, &listed, &pages.url("/form.html")).await;
    let (without_50, with_50) = loads(&open, &listed, &heavy.url("/fifty.html")).await;
    post(&plain, &pages).await;
    post(&asking, &pages).await;
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        off.push(post(&plain, &pages).await);
        on.push(post(&asking, &pages).await);
    }
    let (off, on) = (median_of(&off), median_of(&on));
    println!("Consent (issues 36, 52) — medians of {RUNS} runs, taking turns\n");
    println!(
        "page load (navigate), 1 subresource: sites listed {with:.1} ms / none {without:.1} ms = {:.2}x (goal <= 1.05x)",
        with / without
    );
    println!(
        "page load (navigate), 50 subresources: sites listed {with_50:.1} ms / none {without_50:.1} ms = {:.2}x (goal <= 1.05x)",
        with_50 / without_50
    );
    println!(
        "click that posts, to the POST received: confirm submit, allowed by a scripted pane {on:.1} ms / confirm off {off:.1} ms = {:.2}x",
        on / off
    );
    daemon.stop().await;
}
