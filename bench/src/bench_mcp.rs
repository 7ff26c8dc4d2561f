//! `make bench`, MCP part: the fixed 8-step agent script (navigate, read_page, click, type,
//! select, navigate to page 2, go back, screenshot) through the real `porthole
//! mcp-host-browser` binary driven by an rmcp client, beside the same steps done with raw CDP
//! calls on the same Chromium in the same run (a minimal client doing less: no settle waits,
//! no hit testing, a DOM walk for `read_page`; printed as such); per step the median of
//! [`RUNS`] runs after a warm-up. Also: spawn → `tools/list` answered, and the size of `read_page` on the bench form.

use std::time::{Duration, Instant};

use crate::stream_stats::ms;
use porthole::bench_hooks::cdp::{CdpConnection, CdpEvent};
use porthole_tests::chromium::BareChromium;
use porthole_tests::mcp::{is_error, Server};
pub(crate) use porthole_tests::mcp::{ref_of, text};
use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use tokio::sync::broadcast;

/// Measured runs per step (after one warm-up run).
pub const RUNS: usize = 5;

/// The script's steps, in order.
pub(crate) const STEPS: [&str; 8] = [
    "navigate",
    "read_page",
    "click",
    "type",
    "select",
    "navigate p2",
    "go back",
    "screenshot",
];

/// The raw client's stand-in for `read_page`: one walk of the DOM listing interactive
/// elements with a ref-like index, their name and their centre.
const RAW_WALK: &str = r#"(() => {
  const out = [];
  const walk = (node, depth) => {
    for (const el of node.children) {
      if (['script', 'style', 'head'].includes(el.localName)) continue;
      const hit = ['a', 'button', 'input', 'select', 'textarea'].includes(el.localName);
      if (hit) {
        const r = el.getBoundingClientRect();
        const name = ((el.labels && el.labels[0]) ? el.labels[0].textContent : el.textContent).replace(/\s+/g, ' ').trim().slice(0, 80);
        out.push('  '.repeat(depth) + '- ' + el.localName + (el.id ? '#' + el.id : '') + ' ' + JSON.stringify(name) + ' [ref=e' + (out.length + 1) + '] @' + Math.round(r.left + r.width / 2) + ',' + Math.round(r.top + r.height / 2));
      }
      walk(el, hit ? depth + 1 : depth);
    }
  };
  walk(document.documentElement, 0);
  return out.join('\n');
})()"#;

/// What the form shows after click, type and select (checked outside the timed steps).
pub(crate) const DONE: &str = "[document.getElementById('status').textContent, \
     document.getElementById('name').value, document.getElementById('color').value].join('|')";
pub(crate) const DONE_VALUE: &str = "Changed!|hello|g";

pub(crate) use crate::stream_stats::median_of as median;

/// Step times of one run: each lap ends a step and starts the next.
pub(crate) struct Laps {
    pub(crate) times: [f64; 8],
    since: Instant,
}

impl Laps {
    pub(crate) fn start() -> Self {
        Self {
            times: [0.0; 8],
            since: Instant::now(),
        }
    }

    pub(crate) fn lap(&mut self, step: usize) {
        self.times[step] = ms(self.since.elapsed());
        self.since = Instant::now();
    }

    /// Leaves out what happened since the last lap (the bench's own parsing).
    pub(crate) fn restart(&mut self) {
        self.since = Instant::now();
    }
}

/// The bench's pages (`tests/pages/bench/`: `/form`, a small real page with a text field, a
/// select, a checkbox, a button that changes text, a link, prose and a list; `/page2`; and the
/// shared `/complex`) on 127.0.0.1; returns the base URL.
pub(crate) async fn serve_pages() -> String {
    porthole_tests::pages::PageServer::area("bench")
        .await
        .base()
}

pub(crate) use porthole_tests::mcp::Client;

/// Spawns `porthole mcp-host-browser` on the Chromium whose profile is `profile`.
async fn spawn_host(profile: &std::path::Path) -> Client {
    Server::binary("porthole")
        .arg("mcp-host-browser")
        .arg("--user-data-dir")
        .arg(profile)
        .quiet()
        .connect()
        .await
}

/// Calls `tool` and asserts success (a bench step may take up to 60 s).
pub(crate) async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let result =
        porthole_tests::mcp::call_within(client, tool, args, Duration::from_secs(60)).await;
    assert!(!is_error(&result), "{tool} failed: {}", text(&result));
    result
}

/// One run of the script through MCP; the time of each step.
pub(crate) async fn mcp_run(client: &Client, base: &str) -> [f64; 8] {
    let mut laps = Laps::start();
    call(client, "navigate", json!({"url": format!("{base}/form")})).await;
    laps.lap(0);
    let snap = text(&call(client, "read_page", json!({})).await);
    laps.lap(1);
    let button = ref_of(&snap, "button \"Change\"");
    let field = ref_of(&snap, "textbox \"Name\"");
    let select = ref_of(&snap, "combobox \"Color\"");
    laps.restart();
    call(
        client,
        "computer",
        json!({"action": "left_click", "ref": button}),
    )
    .await;
    laps.lap(2);
    call(
        client,
        "computer",
        json!({"action": "type", "ref": field, "text": "hello"}),
    )
    .await;
    laps.lap(3);
    call(
        client,
        "form_input",
        json!({"ref": select, "value": "Green"}),
    )
    .await;
    laps.lap(4);
    let done = text(&call(client, "evaluate", json!({ "expression": DONE })).await);
    assert!(
        done.contains(DONE_VALUE),
        "the MCP script left the form as {done}"
    );
    laps.restart();
    call(client, "navigate", json!({"url": format!("{base}/page2")})).await;
    laps.lap(5);
    call(client, "go_back", json!({})).await;
    laps.lap(6);
    call(client, "screenshot", json!({})).await;
    laps.lap(7);
    laps.times
}

/// A tab of the same Chromium driven with raw CDP calls.
struct RawTab {
    cdp: CdpConnection,
    session: String,
    events: broadcast::Receiver<CdpEvent>,
}

impl RawTab {
    async fn open(cdp: &CdpConnection, viewport: (u32, u32)) -> Self {
        let created = cdp
            .call(
                "Target.createTarget",
                json!({"url": "about:blank", "newWindow": true}),
            )
            .await
            .unwrap();
        let session =
            porthole_tests::raw_cdp::attach(cdp, created["targetId"].as_str().unwrap()).await;
        let events = cdp.subscribe();
        cdp.call_on(&session, "Page.enable", json!({}))
            .await
            .unwrap();
        cdp.call_on(
            &session,
            "Emulation.setDeviceMetricsOverride",
            json!({"width": viewport.0, "height": viewport.1, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await
        .unwrap();
        Self {
            cdp: cdp.clone(),
            session,
            events,
        }
    }

    async fn call(&self, method: &str, params: Value) -> Value {
        porthole_tests::raw_cdp::call(&self.cdp, &self.session, method, params).await
    }

    async fn eval(&self, expression: &str) -> Value {
        let params = porthole_tests::raw_cdp::by_value(expression);
        porthole_tests::raw_cdp::evaluate(&self.cdp, &self.session, params).await
    }

    /// Drops events seen so far (they belong to earlier steps).
    fn drain(&mut self) {
        while self.events.try_recv().is_ok() {}
    }

    /// Waits for the main frame's load (or a back/forward-cache restore).
    async fn loaded(&mut self) {
        let end = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let event = tokio::time::timeout_at(end, self.events.recv())
                .await
                .expect("page loaded within 20 s")
                .expect("event stream");
            if event.session_id.as_deref() != Some(&self.session) {
                continue;
            }
            let restored = event.method == "Page.frameNavigated"
                && event.params["type"] == "BackForwardCacheRestore"
                && event.params["frame"]["parentId"].is_null();
            if event.method == "Page.loadEventFired" || restored {
                return;
            }
        }
    }

    async fn navigate(&mut self, url: &str) {
        self.drain();
        self.call("Page.navigate", json!({ "url": url })).await;
        self.loaded().await;
    }

    async fn click(&self, (x, y): (f64, f64)) {
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )
            .await;
        }
    }
}

/// The centre printed by [`RAW_WALK`] on the line for `#id`.
fn centre(walk: &str, id: &str) -> (f64, f64) {
    let line = walk
        .lines()
        .find(|l| l.contains(&format!("#{id} ")))
        .unwrap_or_else(|| panic!("no #{id} in:\n{walk}"));
    let (x, y) = line.rsplit_once('@').unwrap().1.split_once(',').unwrap();
    (x.parse().unwrap(), y.parse().unwrap())
}

/// One run of the script with raw CDP; the time of each step.
async fn raw_run(tab: &mut RawTab, base: &str) -> [f64; 8] {
    let mut laps = Laps::start();
    tab.navigate(&format!("{base}/form")).await;
    laps.lap(0);
    let walk = tab.eval(RAW_WALK).await;
    laps.lap(1);
    let walk = walk.as_str().unwrap_or_default().to_string();
    let (button, field) = (centre(&walk, "change"), centre(&walk, "name"));
    laps.restart();
    tab.click(button).await;
    laps.lap(2);
    tab.click(field).await;
    tab.call("Input.insertText", json!({"text": "hello"})).await;
    laps.lap(3);
    tab.eval(
        "(() => { const s = document.getElementById('color'); s.value = 'g'; \
         s.dispatchEvent(new Event('input', {bubbles: true})); \
         s.dispatchEvent(new Event('change', {bubbles: true})); return s.value; })()",
    )
    .await;
    laps.lap(4);
    let done = tab.eval(DONE).await;
    assert_eq!(
        done,
        json!(DONE_VALUE),
        "the raw script left the form as {done}"
    );
    laps.restart();
    tab.navigate(&format!("{base}/page2")).await;
    laps.lap(5);
    let history = tab.call("Page.getNavigationHistory", json!({})).await;
    let current = history["currentIndex"].as_u64().unwrap() as usize;
    let entry = history["entries"][current - 1]["id"].clone();
    tab.drain();
    tab.call("Page.navigateToHistoryEntry", json!({ "entryId": entry }))
        .await;
    tab.loaded().await;
    laps.lap(6);
    tab.call(
        "Page.captureScreenshot",
        json!({"format": "jpeg", "quality": 80}),
    )
    .await;
    laps.lap(7);
    laps.times
}

/// Runs the MCP part of the bench and prints it.
pub async fn run() {
    let base = serve_pages().await;
    let chromium = BareChromium::launch().await;

    // Start-up: spawn → tools/list answered (Chrome is only looked for on the first call).
    let mut startup = Vec::new();
    let mut tools_list_bytes = 0;
    for i in 0..=RUNS {
        let started = Instant::now();
        let client = spawn_host(chromium.profile.path()).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        assert!(tools.len() >= 20, "{} tools", tools.len());
        tools_list_bytes = serde_json::to_string(&json!({ "tools": tools })).map_or(0, |s| s.len());
        if i > 0 {
            startup.push(ms(started.elapsed()));
        }
        let _ = client.cancel().await;
    }

    let client = spawn_host(chromium.profile.path()).await;
    let started = Instant::now();
    call(&client, "navigate", json!({"url": format!("{base}/form")})).await;
    let first_call = ms(started.elapsed());
    let shot = text(&call(&client, "screenshot", json!({})).await);
    // "Screenshot of the WxH viewport." — the raw tab gets the same size.
    let viewport = shot
        .split_whitespace()
        .find_map(|w| {
            let (w, h) = w.split_once('x')?;
            Some((w.parse().ok()?, h.parse().ok()?))
        })
        .unwrap_or((1280, 720));
    let cdp = CdpConnection::connect(&chromium.ws_url, Duration::from_secs(10))
        .await
        .unwrap();
    let mut raw = RawTab::open(&cdp, viewport).await;

    // Warm-up, then RUNS measured runs, the two clients taking turns.
    mcp_run(&client, &base).await;
    raw_run(&mut raw, &base).await;
    let (mut through, mut direct) = (vec![Vec::new(); 8], vec![Vec::new(); 8]);
    for _ in 0..RUNS {
        for (i, t) in mcp_run(&client, &base).await.into_iter().enumerate() {
            through[i].push(t);
        }
        for (i, t) in raw_run(&mut raw, &base).await.into_iter().enumerate() {
            direct[i].push(t);
        }
    }

    call(&client, "navigate", json!({"url": format!("{base}/form")})).await;
    let snapshot = text(&call(&client, "read_page", json!({})).await);
    let snapshot_all = text(&call(&client, "read_page", json!({"filter": "all"})).await);
    let walk = raw.eval(RAW_WALK).await;
    call(
        &client,
        "navigate",
        json!({"url": format!("{base}/complex"), "wait_for_text": "Product 100"}),
    )
    .await;
    let complex = text(&call(&client, "read_page", json!({})).await);
    let _ = client.cancel().await;

    println!(
        "MCP tools, 8-step script: porthole mcp-host-browser (rmcp client, stdio) vs a minimal \
         raw-CDP client, same Chromium, median of {RUNS} runs after a warm-up:"
    );
    println!(
        "  the raw client is a floor, not the same work: no settle wait after an action, no hit \
         test of the click point, one page-world DOM walk instead of the accessibility snapshot \
         in an isolated world, select set by one eval; read the ratios as the price of those"
    );
    let (mut total_mcp, mut total_raw) = (0.0, 0.0);
    for (i, name) in STEPS.iter().enumerate() {
        let (m, r) = (median(&through[i]), median(&direct[i]));
        total_mcp += m;
        total_raw += r;
        println!(
            "  {name:<12} mcp {m:7.1} ms   raw CDP {r:7.1} ms   ratio {:6.2}",
            m / r.max(0.01)
        );
    }
    println!(
        "  {:<12} mcp {total_mcp:7.1} ms   raw CDP {total_raw:7.1} ms   ratio {:6.2}",
        "total",
        total_mcp / total_raw.max(0.01)
    );
    println!(
        "  start-up, spawn → tools/list answered: {:.1} ms (median of {RUNS}); first call \
         (finds Chrome, connects, opens its tab, navigates): {first_call:.0} ms",
        median(&startup)
    );
    println!(
        "  read_page on the bench form: {} bytes (filter \"interactive\"), {} bytes (\"all\"); \
         the raw walk's list: {} bytes",
        snapshot.len(),
        snapshot_all.len(),
        walk.as_str().map_or(0, str::len)
    );
    println!(
        "  token budget: tools/list {tools_list_bytes} bytes of JSON (budget 12000); read_page \
         of the complex page (iframe, shadow root, 100 rows): {} bytes (the peers' bytes of it: \
         porthole-bench peers)",
        complex.len()
    );
    println!(
        "  the peers (agent-browser, Playwright MCP, chrome-devtools-mcp) on this script in the \
         same run: porthole-bench peers (after scripts/setup/bench-peers.sh); porthole here \
         {total_mcp:.0} ms"
    );
}
