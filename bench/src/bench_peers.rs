//! `porthole-bench peers`: the fixed 8-step MCP script of [`crate::bench_mcp`] (navigate,
//! read_page, click, type, select, navigate to page 2, go back, screenshot) through
//! `porthole-mcp` (agent token, agent Unix socket, local daemon), `porthole mcp-host-browser`
//! and the peers installed by `scripts/setup/bench-peers.sh` under `target/bench-peers/`
//! (Playwright MCP, chrome-devtools-mcp, agent-browser's `mcp` server), all over MCP stdio, in
//! one run, each on the system Chromium with the closed-network flags; per step the median of
//! [`RUNS`] runs after a warm-up, the servers taking turns. Every run is checked (the form's
//! [`DONE`] value, the page after each navigation, an image from the screenshot): a server whose
//! step did not do its job is reported as failed, never timed. Also the bytes of each one's
//! snapshot of the shared complex page (each written to `$PORTHOLE_BENCH_SNAPSHOTS/<server>-complex.txt`
//! when that is set), the bytes per page of the generated family of complex pages
//! ([`porthole_tests::page_family`]), and the ratios issue 21 asks for. `PORTHOLE_BENCH_SIZES_ONLY=1`
//! skips the timed rounds (the snapshot sizes only).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use porthole_tests::chromium::{BareChromium, BASE_FLAGS};
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::mcp::{call_within, image, is_error, text, Server};
use porthole_tests::page_family::BENCH_PAGES;
use porthole_tests::TempDir;
use rmcp::model::CallToolResult;
use serde_json::{json, Value};

use crate::bench_mcp::{median, serve_pages, Client, Laps, DONE, DONE_VALUE, STEPS};

/// Measured runs per step (after one warm-up run).
const RUNS: usize = 5;
/// The longest a single tool call may take (a peer's first call launches its browser).
const CALL: Duration = Duration::from_secs(60);
/// The agent's channel on the bench daemon.
const CHANNEL: &str = "bench-peers";
/// The goal of issue 21: porthole-mcp's total at most this share of agent-browser's.
const GOAL: f64 = 0.35;
/// A generated page has loaded with its frames (the nested one too).
const FAMILY_READY: &str = "document.readyState === 'complete' && [...document.querySelectorAll('iframe')]\
     .every(f => f.contentDocument?.readyState === 'complete' && [...f.contentDocument.querySelectorAll('iframe')]\
     .every(g => g.contentDocument?.readyState === 'complete'))";

/// How a server names the script's steps.
#[derive(Clone, Copy, PartialEq)]
enum Dialect {
    /// `porthole-mcp` and `porthole mcp-host-browser`.
    Porthole,
    Playwright,
    DevTools,
    AgentBrowser,
}

/// One MCP server under test.
struct Peer {
    name: &'static str,
    dialect: Dialect,
    client: Option<Client>,
    /// chrome-devtools-mcp's page id (its page-scoped tools require one).
    page: u64,
    /// Why it is not measured (not installed, or a step failed).
    failed: Option<String>,
    times: Vec<Vec<f64>>,
    /// Bytes of the snapshot of the bench form (last run) and of the complex page.
    form_bytes: usize,
    complex_bytes: Option<usize>,
    /// Bytes of the snapshot of each generated page (seeds `0..BENCH_PAGES`), or why not.
    family_bytes: Vec<Result<usize, String>>,
}

impl Peer {
    fn new(name: &'static str, dialect: Dialect, client: Client) -> Self {
        Self {
            client: Some(client),
            ..Self::blank(name, dialect)
        }
    }

    fn absent(name: &'static str, dialect: Dialect, why: String) -> Self {
        Self {
            failed: Some(why),
            ..Self::blank(name, dialect)
        }
    }

    fn blank(name: &'static str, dialect: Dialect) -> Self {
        Self {
            name,
            dialect,
            client: None,
            page: 1,
            failed: None,
            times: vec![Vec::new(); 8],
            form_bytes: 0,
            complex_bytes: None,
            family_bytes: Vec::new(),
        }
    }

    fn client(&self) -> &Client {
        self.client.as_ref().expect("a running peer")
    }

    /// Calls `tool`; an error result (or a peer's error text) is a failed step.
    async fn call(&self, tool: &str, args: Value) -> Result<CallToolResult, String> {
        let result = call_within(self.client(), tool, args.clone(), CALL).await;
        let said = text(&result);
        let failed = is_error(&result)
            || (self.dialect == Dialect::Playwright && said.contains("### Error"))
            || (self.dialect == Dialect::AgentBrowser && said.contains("\"success\": false"));
        if failed {
            return Err(format!("{tool} {args} failed: {}", cut(&said)));
        }
        Ok(result)
    }

    async fn navigate(&self, url: &str) -> Result<(), String> {
        match self.dialect {
            Dialect::Porthole => self.call("navigate", json!({ "url": url })).await,
            Dialect::Playwright => self.call("browser_navigate", json!({ "url": url })).await,
            Dialect::DevTools => {
                let args = json!({"pageId": self.page, "type": "url", "url": url});
                self.call("navigate_page", args).await
            }
            Dialect::AgentBrowser => self.call("agent_browser_open", json!({ "url": url })).await,
        }
        .map(drop)
    }

    /// The peer's default snapshot (what an agent reads to find refs), as text.
    async fn snapshot(&self) -> Result<String, String> {
        let result = match self.dialect {
            Dialect::Porthole => self.call("read_page", json!({})).await,
            Dialect::Playwright => self.call("browser_snapshot", json!({})).await,
            Dialect::DevTools => {
                self.call("take_snapshot", json!({"pageId": self.page}))
                    .await
            }
            Dialect::AgentBrowser => self.call("agent_browser_snapshot", json!({})).await,
        }?;
        Ok(text(&result))
    }

    async fn click(&self, target: &str) -> Result<(), String> {
        match self.dialect {
            Dialect::Porthole => {
                let args = json!({"action": "left_click", "ref": target});
                self.call("computer", args).await
            }
            Dialect::Playwright => {
                let args = json!({"element": "Change button", "target": target});
                self.call("browser_click", args).await
            }
            Dialect::DevTools => {
                let args = json!({"pageId": self.page, "uid": target});
                self.call("click", args).await
            }
            Dialect::AgentBrowser => {
                let args = json!({ "selector": format!("@{target}") });
                self.call("agent_browser_click", args).await
            }
        }
        .map(drop)
    }

    async fn type_text(&self, target: &str, text: &str) -> Result<(), String> {
        match self.dialect {
            Dialect::Porthole => {
                let args = json!({"action": "type", "ref": target, "text": text});
                self.call("computer", args).await
            }
            Dialect::Playwright => {
                let args = json!({"element": "Name textbox", "target": target, "text": text});
                self.call("browser_type", args).await
            }
            // Its tool for typing into an element (`type_text` types into the focused one).
            Dialect::DevTools => {
                let args = json!({"pageId": self.page, "uid": target, "value": text});
                self.call("fill", args).await
            }
            Dialect::AgentBrowser => {
                let args = json!({"selector": format!("@{target}"), "text": text});
                self.call("agent_browser_type", args).await
            }
        }
        .map(drop)
    }

    async fn select(&self, target: &str, label: &str) -> Result<(), String> {
        match self.dialect {
            Dialect::Porthole => {
                let args = json!({"ref": target, "value": label});
                self.call("form_input", args).await
            }
            Dialect::Playwright => {
                let args = json!({"element": "Color select", "target": target, "values": [label]});
                self.call("browser_select_option", args).await
            }
            Dialect::DevTools => {
                let args = json!({"pageId": self.page, "uid": target, "value": label});
                self.call("fill", args).await
            }
            Dialect::AgentBrowser => {
                let args = json!({"selector": format!("@{target}"), "values": [label]});
                self.call("agent_browser_select", args).await
            }
        }
        .map(drop)
    }

    async fn back(&self) -> Result<(), String> {
        match self.dialect {
            Dialect::Porthole => self.call("go_back", json!({})).await,
            Dialect::Playwright => self.call("browser_navigate_back", json!({})).await,
            Dialect::DevTools => {
                let args = json!({"pageId": self.page, "type": "back"});
                self.call("navigate_page", args).await
            }
            Dialect::AgentBrowser => self.call("agent_browser_back", json!({})).await,
        }
        .map(drop)
    }

    /// The screenshot step: its result must carry an image.
    async fn screenshot(&self) -> Result<(), String> {
        let result = match self.dialect {
            Dialect::Porthole => self.call("screenshot", json!({})).await,
            Dialect::Playwright => self.call("browser_take_screenshot", json!({})).await,
            Dialect::DevTools => {
                let args = json!({"pageId": self.page});
                self.call("take_screenshot", args).await
            }
            Dialect::AgentBrowser => self.call("agent_browser_screenshot", json!({})).await,
        }?;
        match image(&result) {
            Some((data, _)) if data.len() > 1000 => Ok(()),
            _ => Err(format!("screenshot gave no image: {}", cut(&text(&result)))),
        }
    }

    /// Evaluates `expression` in the page; the tool's text (which holds the value).
    async fn eval(&self, expression: &str) -> Result<String, String> {
        let function = format!("() => ({expression})");
        let result = match self.dialect {
            Dialect::Porthole => {
                self.call("evaluate", json!({ "expression": expression }))
                    .await
            }
            Dialect::Playwright => {
                self.call("browser_evaluate", json!({ "function": function }))
                    .await
            }
            Dialect::DevTools => {
                let args = json!({"pageId": self.page, "function": function});
                self.call("evaluate_script", args).await
            }
            Dialect::AgentBrowser => {
                self.call("agent_browser_eval", json!({ "script": expression }))
                    .await
            }
        }?;
        Ok(text(&result))
    }

    /// Fails unless the page's path is `path` (checks a navigation really happened).
    async fn expect_path(&self, step: &str, path: &str) -> Result<(), String> {
        let said = self.eval("'at:' + location.pathname").await?;
        if said.contains(&format!("at:{path}")) {
            Ok(())
        } else {
            Err(format!(
                "after {step} the page is not {path}: {}",
                cut(&said)
            ))
        }
    }

    /// The ref (uid for chrome-devtools-mcp) on the first snapshot line containing `needle`.
    fn find_ref(&self, snapshot: &str, needle: &str) -> Result<String, String> {
        let line = snapshot
            .lines()
            .find(|l| l.contains(needle))
            .ok_or_else(|| format!("no {needle:?} in the snapshot: {}", cut(snapshot)))?;
        let (key, ends): (&str, &[char]) = match self.dialect {
            Dialect::DevTools => ("uid=", &[' ']),
            _ => ("ref=", &[']', ',', ' ']),
        };
        let start = line
            .find(key)
            .ok_or_else(|| format!("no {key} on the line {line:?}"))?
            + key.len();
        let rest = &line[start..];
        Ok(rest[..rest.find(ends).unwrap_or(rest.len())].to_string())
    }

    /// One checked run of the script; the time of each step.
    async fn run(&mut self, base: &str) -> Result<[f64; 8], String> {
        let mut laps = Laps::start();
        self.navigate(&format!("{base}/form")).await?;
        laps.lap(0);
        let snap = self.snapshot().await?;
        laps.lap(1);
        self.form_bytes = snap.len();
        let button = self.find_ref(&snap, "button \"Change\"")?;
        let field = self.find_ref(&snap, "textbox \"Name\"")?;
        let select = self.find_ref(&snap, "combobox \"Color\"")?;
        laps.restart();
        self.click(&button).await?;
        laps.lap(2);
        self.type_text(&field, "hello").await?;
        laps.lap(3);
        self.select(&select, "Green").await?;
        laps.lap(4);
        let done = self.eval(DONE).await?;
        if !done.contains(DONE_VALUE) {
            return Err(format!(
                "click, type and select left the form as {} (wanted {DONE_VALUE})",
                cut(&done)
            ));
        }
        laps.restart();
        self.navigate(&format!("{base}/page2")).await?;
        laps.lap(5);
        self.expect_path("navigate p2", "/page2").await?;
        laps.restart();
        self.back().await?;
        laps.lap(6);
        self.expect_path("go back", "/form").await?;
        laps.restart();
        self.screenshot().await?;
        laps.lap(7);
        Ok(laps.times)
    }

    /// One run, recorded (when `keep`) or turned into the peer's failure.
    async fn turn(&mut self, base: &str, keep: bool) {
        if self.failed.is_some() {
            return;
        }
        match self.run(base).await {
            Ok(times) if keep => {
                for (i, t) in times.into_iter().enumerate() {
                    self.times[i].push(t);
                }
            }
            Ok(_) => {}
            Err(why) => self.failed = Some(why),
        }
    }

    /// The bytes of the snapshot of the shared complex page (iframe, shadow root, 100 rows).
    async fn complex(&mut self, base: &str) {
        if self.failed.is_some() {
            return;
        }
        let measured = async {
            self.navigate(&format!("{base}/complex")).await?;
            let end = Instant::now() + Duration::from_secs(10);
            let ready = "document.body.innerText.includes('Product 100') \
                 && document.getElementById('frame').contentDocument?.readyState === 'complete'";
            while !self.eval(ready).await?.contains("true") {
                if Instant::now() > end {
                    return Err("the complex page did not finish loading".to_string());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let snapshot = self.snapshot().await?;
            // To compare what each format holds, not only its size.
            if let Some(dir) = std::env::var_os("PORTHOLE_BENCH_SNAPSHOTS") {
                let file = Path::new(&dir).join(format!("{}-complex.txt", self.name));
                let _ = std::fs::write(file, &snapshot);
            }
            Ok::<_, String>(snapshot.len())
        };
        match measured.await {
            Ok(bytes) => self.complex_bytes = Some(bytes),
            Err(why) => self.failed = Some(format!("complex page: {why}")),
        }
    }

    /// The bytes of the snapshot of each generated page (`porthole_tests::page_family`), each written to
    /// `$PORTHOLE_BENCH_SNAPSHOTS/<server>-family-<seed>.txt` when that is set.
    async fn family(&mut self, base: &str) {
        if self.client.is_none() || self.failed.as_deref().is_some_and(|f| f.starts_with("not")) {
            return;
        }
        for seed in 0..BENCH_PAGES {
            let measured = async {
                self.navigate(&format!("{base}/family/{seed}")).await?;
                let end = Instant::now() + Duration::from_secs(10);
                while !self.eval(FAMILY_READY).await?.contains("true") {
                    if Instant::now() > end {
                        return Err("the page did not finish loading".to_string());
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                // The whole snapshot: ours is cut at 12 KB by default.
                let snapshot = match self.dialect {
                    Dialect::Porthole => {
                        let args = json!({"max_bytes": 50_000});
                        text(&self.call("read_page", args).await?)
                    }
                    _ => self.snapshot().await?,
                };
                if snapshot.contains("\n[Cut:") {
                    return Err(format!("cut at 50000 bytes ({} bytes)", snapshot.len()));
                }
                if let Some(dir) = std::env::var_os("PORTHOLE_BENCH_SNAPSHOTS") {
                    let file = Path::new(&dir).join(format!("{}-family-{seed}.txt", self.name));
                    let _ = std::fs::write(file, &snapshot);
                }
                Ok::<_, String>(snapshot.len())
            };
            let got = measured.await;
            self.family_bytes.push(got);
        }
    }

    fn total(&self) -> Option<f64> {
        if self.failed.is_some() || self.times[0].is_empty() {
            return None;
        }
        Some(self.times.iter().map(|t| median(t)).sum())
    }

    async fn close(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        // agent-browser's browser lives in a daemon that outlives the MCP server.
        if self.dialect == Dialect::AgentBrowser {
            let _ = call_within(&client, "agent_browser_close", json!({}), CALL).await;
        }
        let _ = client.cancel().await;
    }
}

/// The first 300 characters of a tool's answer, for an error message.
fn cut(said: &str) -> String {
    let mut end = said.len().min(300);
    while !said.is_char_boundary(end) {
        end -= 1;
    }
    said[..end].replace('\n', " ")
}

/// Where `scripts/setup/bench-peers.sh` installs the peers.
fn peers_dir() -> PathBuf {
    porthole_tests::workspace_root().join("target/bench-peers/node_modules")
}

/// The closed-network Chromium flags the project uses (DESIGN.md §10), minus headless (each
/// peer sets its own), plus `--no-sandbox` (root).
fn chromium_flags() -> Vec<String> {
    BASE_FLAGS
        .iter()
        .filter(|f| !f.starts_with("--headless"))
        .map(|f| f.to_string())
        .chain(["--no-sandbox".to_string()])
        .collect()
}

/// `program` when installed, else why not.
fn installed(path: PathBuf) -> Result<PathBuf, String> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "not installed ({} missing): run scripts/setup/bench-peers.sh",
            path.display()
        ))
    }
}

async fn spawn(program: &Path, args: &[String], env: &[(&str, String)]) -> Client {
    env.iter()
        .fold(Server::program(program).args(args).quiet(), |s, (k, v)| {
            s.env(k, v.clone())
        })
        .connect()
        .await
}

/// Playwright MCP on the system Chromium, headless, isolated, via a config file in `scratch`.
async fn playwright(scratch: &Path) -> Peer {
    let name = "Playwright MCP";
    let program = match installed(peers_dir().join("@playwright/mcp/cli.js")) {
        Ok(p) => p,
        Err(why) => return Peer::absent(name, Dialect::Playwright, why),
    };
    let config = scratch.join("playwright-mcp.json");
    let body = json!({
        "browser": {
            "isolated": true,
            "launchOptions": {
                "executablePath": "/usr/bin/chromium",
                "headless": true,
                "args": chromium_flags(),
            }
        },
        "outputDir": scratch.join("playwright-out"),
    });
    std::fs::write(&config, body.to_string()).expect("write the Playwright MCP config");
    let args = vec![
        program.display().to_string(),
        "--config".into(),
        config.display().to_string(),
    ];
    let client = spawn(Path::new("node"), &args, &[]).await;
    Peer::new(name, Dialect::Playwright, client)
}

/// chrome-devtools-mcp on the system Chromium (puppeteer), headless, isolated, no usage
/// statistics or CrUX look-ups (the network is closed).
async fn devtools() -> Peer {
    let name = "chrome-devtools-mcp";
    let program = match installed(
        peers_dir().join("chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"),
    ) {
        Ok(p) => p,
        Err(why) => return Peer::absent(name, Dialect::DevTools, why),
    };
    let mut args = vec![
        program.display().to_string(),
        "--executablePath=/usr/bin/chromium".into(),
        "--headless".into(),
        "--isolated".into(),
        "--usageStatistics=false".into(),
        "--performanceCrux=false".into(),
    ];
    args.extend(
        chromium_flags()
            .into_iter()
            .map(|f| format!("--chromeArg={f}")),
    );
    let client = spawn(Path::new("node"), &args, &[]).await;
    let mut peer = Peer::new(name, Dialect::DevTools, client);
    // Its page-scoped tools want the selected page's id ("1: about:blank [selected]").
    match peer.call("list_pages", json!({})).await {
        Ok(pages) => {
            let pages = text(&pages);
            let id = pages
                .lines()
                .find(|l| l.contains("[selected]"))
                .and_then(|l| l.split(':').next()?.trim().parse().ok());
            match id {
                Some(id) => peer.page = id,
                None => peer.failed = Some(format!("no selected page in {}", cut(&pages))),
            }
        }
        Err(why) => peer.failed = Some(why),
    }
    peer
}

/// agent-browser's MCP server (`agent-browser mcp`, the native binary the npm package ships)
/// on the system Chromium, in a session of its own, its state (sockets, screenshots) under
/// `scratch` rather than the user's home.
async fn agent_browser(scratch: &Path) -> Peer {
    let name = "agent-browser";
    let dir = peers_dir().join("agent-browser/bin");
    let native = dir.join(format!("agent-browser-linux-{}", native_arch()));
    let program = match installed(native) {
        Ok(p) => p,
        Err(why) => return Peer::absent(name, Dialect::AgentBrowser, why),
    };
    let env = [
        ("HOME", scratch.display().to_string()),
        (
            "AGENT_BROWSER_EXECUTABLE_PATH",
            "/usr/bin/chromium".to_string(),
        ),
        ("AGENT_BROWSER_ARGS", chromium_flags().join(",")),
        (
            "AGENT_BROWSER_SESSION",
            format!("porthole_bench_{}", std::process::id()),
        ),
        // Its daemon outlives the MCP server; it goes when idle should the bench die.
        ("AGENT_BROWSER_IDLE_TIMEOUT_MS", "300000".to_string()),
    ];
    let client = spawn(&program, &["mcp".to_string()], &env).await;
    Peer::new(name, Dialect::AgentBrowser, client)
}

fn native_arch() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "arm64",
        _ => "x64",
    }
}

/// A local daemon with `config` merged in, and `porthole-mcp` on it with an agent's token.
async fn porthole_proxy(config: Value) -> (TestDaemon, Client) {
    let daemon = TestDaemon::start_with(DaemonOptions {
        rust_log: "info",
        config,
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent(CHANNEL, "bench", &[]).await;
    let socket = format!("unix://{}", daemon.agent_socket().display());
    let proxy = Server::binary("porthole-mcp")
        .args(&["--api", &socket, "--token", &token])
        .quiet()
        .connect()
        .await;
    (daemon, proxy)
}

/// Runs the peers bench and prints it.
pub async fn run() {
    let base = serve_pages().await;
    let scratch = TempDir::new("bench-peers");
    let (daemon, proxy) = porthole_proxy(json!({})).await;
    // The same without the timeline: what recording each call (a capture a second) costs.
    let (quiet_daemon, quiet_proxy) = porthole_proxy(json!({"timeline": {"enabled": false}})).await;
    let chromium = BareChromium::launch().await;
    let host = Server::binary("porthole")
        .arg("mcp-host-browser")
        .arg("--user-data-dir")
        .arg(chromium.profile.path())
        .quiet()
        .connect()
        .await;

    let mut peers = vec![
        Peer::new("porthole-mcp", Dialect::Porthole, proxy),
        Peer::new("mcp, no timeline", Dialect::Porthole, quiet_proxy),
        Peer::new("mcp-host-browser", Dialect::Porthole, host),
        agent_browser(scratch.path()).await,
        playwright(scratch.path()).await,
        devtools().await,
    ];

    // Warm-up (each server's first call starts its browser), then RUNS rounds, taking turns;
    // with PORTHOLE_BENCH_SIZES_ONLY set, only the warm-up and the snapshot sizes.
    let rounds = if std::env::var_os("PORTHOLE_BENCH_SIZES_ONLY").is_some() {
        0
    } else {
        RUNS
    };
    for round in 0..=rounds {
        for peer in &mut peers {
            peer.turn(&base, round > 0).await;
        }
    }
    for peer in &mut peers {
        peer.complex(&base).await;
        peer.family(&base).await;
    }
    for peer in &mut peers {
        peer.close().await;
    }
    drop(chromium);
    daemon.stop().await;
    quiet_daemon.stop().await;
    print(&peers);
    print_family(&peers);
}

/// Bytes per generated page for every server, and per page ours / the smallest peer's.
fn print_family(peers: &[Peer]) {
    let shown: Vec<&Peer> = peers
        .iter()
        .filter(|p| !p.family_bytes.is_empty())
        .collect();
    println!("Generated pages (tests/src/page_family.rs, seeds 0..{BENCH_PAGES}), snapshot bytes:");
    let mut header = format!("  {:<8}", "seed");
    for peer in &shown {
        header.push_str(&format!(" {:>20}", peer.name));
    }
    header.push_str(&format!(" {:>22}", "porthole / smallest"));
    println!("{header}");
    let mut worst: Option<f64> = None;
    let mut failures = Vec::new();
    // The shared complex page first (also shown when the timed rounds were skipped).
    let mut line = format!("  {:<8}", "complex");
    for peer in &shown {
        let bytes = peer.complex_bytes.map_or("-".into(), |b| b.to_string());
        line.push_str(&format!(" {bytes:>20}"));
    }
    let ours = shown
        .iter()
        .find(|p| p.name == "porthole-mcp")
        .and_then(|p| p.complex_bytes);
    let smallest = shown
        .iter()
        .filter(|p| p.dialect != Dialect::Porthole)
        .filter_map(|p| p.complex_bytes)
        .min();
    if let (Some(ours), Some(theirs)) = (ours, smallest) {
        line.push_str(&format!(" {:>21.2}×", ours as f64 / theirs.max(1) as f64));
    }
    println!("{line}");
    for seed in 0..BENCH_PAGES as usize {
        let mut line = format!("  {seed:<8}");
        for peer in &shown {
            match peer.family_bytes.get(seed) {
                Some(Ok(b)) => line.push_str(&format!(" {b:>20}")),
                Some(Err(why)) => {
                    line.push_str(&format!(" {:>20}", "failed"));
                    failures.push(format!("{} seed {seed}: {}", peer.name, cut(why)));
                }
                None => line.push_str(&format!(" {:>20}", "-")),
            }
        }
        let bytes = |p: &Peer| {
            p.family_bytes
                .get(seed)
                .and_then(|b| b.as_ref().ok())
                .copied()
        };
        let ours = shown
            .iter()
            .find(|p| p.name == "porthole-mcp")
            .and_then(|p| bytes(p));
        let smallest = shown
            .iter()
            .filter(|p| p.dialect != Dialect::Porthole)
            .filter_map(|p| bytes(p))
            .min();
        match (ours, smallest) {
            (Some(ours), Some(theirs)) => {
                let ratio = ours as f64 / theirs.max(1) as f64;
                worst = Some(worst.map_or(ratio, |w: f64| w.max(ratio)));
                line.push_str(&format!(" {ratio:>21.2}×"));
            }
            _ => line.push_str(&format!(" {:>22}", "-")),
        }
        println!("{line}");
    }
    for failure in failures {
        println!("  {failure}");
    }
    match worst {
        Some(w) => println!(
            "  generated pages: porthole-mcp / smallest peer, worst page {w:.2}× (goal ≤ 1.0× on \
             every page{})",
            if w <= 1.0 { ", met" } else { ", NOT met" }
        ),
        None => println!("  generated pages: no ratio (porthole-mcp or every peer failed)"),
    }
}

fn print(peers: &[Peer]) {
    println!(
        "MCP peers, the 8-step script over MCP stdio, same system Chromium, median of {RUNS} runs \
         after a warm-up, taking turns (every run checked: the form's values, the page after each \
         navigation, an image from the screenshot):"
    );
    let measured: Vec<&Peer> = peers.iter().filter(|p| p.total().is_some()).collect();
    let mut header = format!("  {:<12}", "step");
    for peer in &measured {
        header.push_str(&format!(" {:>20}", peer.name));
    }
    println!("{header}");
    for (i, step) in STEPS.iter().enumerate() {
        let mut line = format!("  {step:<12}");
        for peer in &measured {
            line.push_str(&format!(" {:>17.1} ms", median(&peer.times[i])));
        }
        println!("{line}");
    }
    let mut line = format!("  {:<12}", "total");
    for peer in &measured {
        line.push_str(&format!(" {:>17.1} ms", peer.total().unwrap_or_default()));
    }
    println!("{line}");
    let mut line = format!("  {:<12}", "form snap");
    for peer in &measured {
        line.push_str(&format!(" {:>14} bytes", peer.form_bytes));
    }
    println!("{line}");
    let mut line = format!("  {:<12}", "complex snap");
    for peer in &measured {
        let bytes = peer.complex_bytes.map_or("-".into(), |b| b.to_string());
        line.push_str(&format!(" {bytes:>14} bytes"));
    }
    println!("{line}");
    for peer in peers.iter().filter(|p| p.total().is_none()) {
        println!(
            "  {}: NOT MEASURED — {}",
            peer.name,
            peer.failed.as_deref().unwrap_or("no runs")
        );
    }

    let ours = |name: &str| measured.iter().find(|p| p.name == name).copied();
    let others: Vec<&&Peer> = measured
        .iter()
        .filter(|p| p.dialect != Dialect::Porthole)
        .collect();
    let Some(porthole) = ours("porthole-mcp") else {
        println!("  porthole-mcp was not measured: no ratios");
        return;
    };
    let total = porthole.total().unwrap_or_default();
    let against = ours("agent-browser").or_else(|| {
        others
            .iter()
            .min_by(|a, b| a.total().partial_cmp(&b.total()).unwrap())
            .map(|p| **p)
    });
    match against {
        Some(peer) => {
            let ratio = total / peer.total().unwrap_or(f64::MAX).max(0.01);
            println!(
                "  porthole-mcp total / {} total: {ratio:.2}× (goal ≤ {GOAL}×{})",
                peer.name,
                if ratio <= GOAL { ", met" } else { ", NOT met" }
            );
        }
        None => println!("  no peer measured: no ratio"),
    }
    if let Some(fastest) = others
        .iter()
        .min_by(|a, b| a.total().partial_cmp(&b.total()).unwrap())
    {
        println!(
            "  fastest peer: {} ({:.0} ms); porthole-mcp / fastest peer: {:.2}×",
            fastest.name,
            fastest.total().unwrap_or_default(),
            total / fastest.total().unwrap_or(f64::MAX).max(0.01)
        );
    }
    if let Some(host) = ours("mcp-host-browser") {
        println!(
            "  mcp-host-browser total: {:.0} ms ({:.2}× porthole-mcp)",
            host.total().unwrap_or_default(),
            host.total().unwrap_or_default() / total.max(0.01)
        );
    }
    let smallest = others
        .iter()
        .filter_map(|p| Some((p.name, p.complex_bytes?)))
        .min_by_key(|(_, b)| *b);
    match (porthole.complex_bytes, smallest) {
        (Some(ours), Some((name, theirs))) => println!(
            "  complex-page snapshot: porthole-mcp {ours} bytes vs the smallest peer's ({name}) \
             {theirs}: {:.2}× (goal ≤ 1.0×{})",
            ours as f64 / theirs.max(1) as f64,
            if ours <= theirs { ", met" } else { ", NOT met" }
        ),
        _ => println!("  complex-page snapshot: no peer's bytes to compare"),
    }
}
