//! Agent tools no one here wrote, on the CDP door (DESIGN.md §21), each in a channel that
//! also holds the person's tab and another agent's (the owner sees them: the positive control):
//! - Google's `chrome-devtools-mcp` (npm, pinned in `tests/cdp-clients/`), started as a real
//!   stdio MCP server with `--wsEndpoint <the door's browser socket>`, as an agent would
//!   configure it: its `list_pages` shows the agent's own tab and none of the others; its
//!   `new_page` opens a tab of the agent's on a site the agent may open, and the next
//!   `list_pages` shows it. Kept on this machine: no usage statistics, no update check, no
//!   config discovery, no CrUX look-ups (each off by its own flag or variable).
//! - browser-use (PyPI, every package pinned, in the venv `scripts/setup/browser-use.sh`
//!   makes): its `BrowserSession` on the door's http URL, without an LLM, sees only the
//!   agent's tabs, opens a page, reads it, clicks; its `stop()` leaves the person's tab. Its
//!   telemetry is off.
//! - chrome-remote-interface (npm, pinned) builds its whole API from the door's
//!   `json/protocol`, as it does by default: the methods the door forwards are in it, the
//!   ones it refuses are not (and sent anyway get the door's refusal); it lists only the
//!   agent's tabs, opens one with `json/new` and loads a page in it through that API.

use std::path::PathBuf;

use porthole_tests::cdp_clients;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::mcp::{self, Client, Server};
use porthole_tests::pages::PageServer;
use serde_json::json;

const CHANNEL: &str = "door-tools";

/// A daemon whose channel holds the person's tab (`?person`), another agent's
/// (`?other-agent`) and the tab of the agent `name` (`?agent-own`), the owner seeing all
/// three; that agent (allowed only `pages`' site) and its token.
async fn channel_with_neighbours(pages: &PageServer, name: &str) -> (TestDaemon, String) {
    let daemon = TestDaemon::start().await;
    let owner = daemon.owner_on(CHANNEL);
    owner
        .act("navigate", json!({"url": pages.url("/door.html?person")}))
        .await;
    let (_, other) = daemon.add_agent(CHANNEL, "other", &[]).await;
    daemon
        .act(
            &other,
            "navigate",
            json!({"url": pages.url("/door.html?other-agent")}),
        )
        .await;
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": CHANNEL, "name": name, "sites": {"allow": [pages.base()]}}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let token = body["token"].as_str().expect("token").to_string();
    daemon
        .act(
            &token,
            "navigate",
            json!({"url": pages.url("/door.html?agent-own")}),
        )
        .await;
    let (_, tabs) = owner.act_text("list_tabs", json!({})).await;
    for tab in ["?person", "?other-agent", "?agent-own"] {
        assert!(tabs.contains(tab), "{tab} is not open: {tabs}");
    }
    (daemon, token)
}

/// `chrome-devtools-mcp`'s entry point, installed by `scripts/setup/cdp-clients.sh`.
fn devtools_mcp() -> PathBuf {
    let bin = cdp_clients::clients_dir()
        .join("node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js");
    assert!(
        bin.is_file(),
        "chrome-devtools-mcp is not installed: run scripts/setup/cdp-clients.sh (make setup-test)"
    );
    bin
}

/// `chrome-devtools-mcp --wsEndpoint <endpoint>` over stdio, MCP handshake done.
async fn devtools_mcp_on(endpoint: &str) -> Client {
    Server::program(std::path::Path::new("node"))
        .arg(devtools_mcp())
        .args(&[
            "--wsEndpoint",
            endpoint,
            "--no-usage-statistics",
            "--no-performance-crux",
        ])
        .env("CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS", "1")
        .env("CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS", "1")
        .env("CHROME_DEVTOOLS_MCP_NO_CONFIG_DISCOVERY", "1")
        .connect()
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn chrome_devtools_mcp_lists_only_the_agents_pages_and_opens_its_own() {
    let pages = PageServer::area("cdp").await;
    let (daemon, token) = channel_with_neighbours(&pages, "devtools").await;
    let owner = daemon.owner_on(CHANNEL);
    let endpoint = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
    let client = devtools_mcp_on(&endpoint).await;
    let listed = mcp::ok(&client, "list_pages", json!({})).await;
    assert!(listed.contains("?agent-own"), "{listed}");
    for foreign in ["?person", "?other-agent"] {
        assert!(
            !listed.contains(foreign),
            "a tab not the agent's showed through the door: {listed}"
        );
    }

    let opened = mcp::ok(
        &client,
        "new_page",
        json!({"url": pages.url("/door.html?devtools-mcp")}),
    )
    .await;
    assert!(opened.contains("?devtools-mcp"), "{opened}");
    let listed = mcp::ok(&client, "list_pages", json!({})).await;
    assert!(
        listed.contains("?devtools-mcp") && listed.contains("?agent-own"),
        "{listed}"
    );
    assert!(
        !listed.contains("?person") && !listed.contains("?other-agent"),
        "{listed}"
    );
    assert!(
        pages.requests().iter().any(|r| r.contains("?devtools-mcp")),
        "the site never got the page chrome-devtools-mcp opened"
    );
    // The tab it opened is the agent's: the owner sees it in the channel, among the rest.
    let (_, tabs) = owner.act_text("list_tabs", json!({})).await;
    assert!(tabs.contains("?devtools-mcp"), "{tabs}");
    assert!(tabs.contains("?person"), "{tabs}");
    drop(client);
    assert!(
        !daemon.log().contains(&token),
        "the agent token reached the log"
    );
}

/// The venv with the pinned browser-use (`scripts/setup/browser-use.sh`).
fn browser_use_python() -> PathBuf {
    let venv = std::env::var_os("PORTHOLE_BROWSER_USE_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| porthole_tests::workspace_root().join("target/browser-use-venv"));
    let python = venv.join("bin/python");
    assert!(
        python.is_file(),
        "browser-use is not installed: run scripts/setup/browser-use.sh (make setup-test)"
    );
    python
}

/// Runs `browser-use-drive.py` on `door` and returns the one JSON line it printed; panics
/// with its output when it fails.
async fn browser_use_on(door: &str, args: &serde_json::Value) -> serde_json::Value {
    let run = tokio::process::Command::new(browser_use_python())
        .arg("browser-use-drive.py")
        .arg(door)
        .arg(args.to_string())
        .current_dir(cdp_clients::clients_dir())
        .env("ANONYMIZED_TELEMETRY", "false")
        .env("BROWSER_USE_CLOUD_SYNC", "false")
        .env("BROWSER_USE_LOGGING_LEVEL", "warning")
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(120), run)
        .await
        .expect("browser-use finished within 120 s")
        .expect("run browser-use");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let seen = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<serde_json::Value>(line).ok());
    match seen {
        Some(seen) if output.status.success() => seen,
        _ => panic!(
            "browser-use failed ({}):\nstdout: {stdout}\nstderr: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn browser_use_sees_only_the_agents_tabs_and_drives_its_page() {
    let pages = PageServer::area("cdp").await;
    let (daemon, token) = channel_with_neighbours(&pages, "browser-use").await;
    let door = format!("http://{}/cdp/{token}", daemon.addr);
    let seen = browser_use_on(&door, &json!({"page": pages.url("/door.html?browser-use")})).await;

    assert!(
        seen["url"]
            .as_str()
            .unwrap_or_default()
            .ends_with("?browser-use"),
        "{seen}"
    );
    assert!(
        seen["text"]
            .as_str()
            .unwrap_or_default()
            .contains("Click me"),
        "{seen}"
    );
    assert_eq!(seen["clicked"], "clicked ?browser-use", "{seen}");
    let mut urls = Vec::new();
    for key in ["tabsAtStart", "tabs"] {
        let tabs = seen[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {seen}"));
        urls.extend(
            tabs.iter()
                .map(|u| u.as_str().unwrap_or_default().to_string()),
        );
    }
    assert!(urls.iter().any(|u| u.ends_with("?agent-own")), "{seen}");
    for url in &urls {
        assert!(
            !url.contains("?person") && !url.contains("?other-agent"),
            "a tab not the agent's showed through the door: {seen}"
        );
    }
    assert!(
        pages.requests().iter().any(|r| r.contains("?browser-use")),
        "the site never got the page browser-use opened"
    );
    // Its stop() left the browser and the person's tab.
    let (is_error, tabs) = daemon
        .owner_on(CHANNEL)
        .act_text("list_tabs", json!({}))
        .await;
    assert!(!is_error, "the browser is gone: {tabs}");
    assert!(tabs.contains("?person"), "the person's tab went: {tabs}");
    assert!(
        !daemon.log().contains(&token),
        "the agent token reached the log"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn chrome_remote_interface_builds_its_api_from_the_doors_protocol() {
    let pages = PageServer::area("cdp").await;
    let (daemon, token) = channel_with_neighbours(&pages, "cri").await;
    let door = format!("http://{}/cdp/{token}", daemon.addr);
    let seen = cdp_clients::run(
        "cri-drive.js",
        &door,
        &json!({ "page": pages.url("/door.html?cri") }),
    )
    .await;
    let listed = |key: &str| -> Vec<String> {
        seen["listed"][key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {seen}"))
            .iter()
            .map(|c| c.as_str().unwrap_or_default().to_string())
            .collect()
    };
    // Chrome's own description, cut to the table: what a client may send is there in full.
    let page = listed("page");
    for command in [
        "navigate",
        "captureScreenshot",
        "addScriptToEvaluateOnNewDocument",
    ] {
        assert!(page.iter().any(|c| c == command), "Page.{command}: {seen}");
    }
    assert!(
        listed("target").iter().any(|c| c == "createTarget"),
        "{seen}"
    );
    assert!(listed("storageClears").is_empty(), "{seen}");
    // Its API came from that listing: it drove the page with it.
    assert_eq!(seen["title"], "Door page", "{seen}");
    assert_eq!(seen["refusedInApi"], "undefined", "{seen}");
    let refusal = seen["refusal"].as_str().unwrap_or_default();
    assert!(refusal.contains("Storage.clearDataForOrigin"), "{seen}");
    // Its list is the agent's own tab only.
    let tabs = seen["tabs"].to_string();
    assert!(tabs.contains("?agent-own"), "{seen}");
    for foreign in ["?person", "?other-agent"] {
        assert!(
            !tabs.contains(foreign),
            "{foreign} reached the client: {seen}"
        );
    }
}
