//! Real clients no one here wrote, through the CDP door (DESIGN.md §21): Playwright's
//! `connectOverCDP` (the http form) and Puppeteer's `connect` (the WebSocket form, as
//! chrome-devtools-mcp's `--wsEndpoint`) open a page, read its title and click, and see only
//! the agent's own tabs while the person's and another agent's tabs exist in the channel;
//! a refused method and a refused site get their errors; Puppeteer's `browser.close()` closes
//! the tabs it opened and leaves the browser and the person's tab alive; the agent's token
//! never reaches the daemon's log.

use porthole_tests::cdp_clients;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use serde_json::{json, Value};

const CHANNEL: &str = "door";

/// A daemon whose channel holds the person's tab on `?person` and another agent's tab on
/// `?other-agent` (both seen by the owner: the positive control that they exist); the door
/// agent (allowed only `pages`' site) and its token.
async fn channel_with_neighbours(pages: &PageServer) -> (TestDaemon, String) {
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
            &json!({"channel_id": CHANNEL, "name": "scripted", "sites": {"allow": [pages.base()]}}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let token = body["token"].as_str().expect("token").to_string();
    let (_, tabs) = owner.act_text("list_tabs", json!({})).await;
    for neighbour in ["?person", "?other-agent"] {
        assert!(tabs.contains(neighbour), "{neighbour} is not open: {tabs}");
    }
    (daemon, token)
}

fn urls(seen: &Value, key: &str) -> Vec<String> {
    seen[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} in {seen}"))
        .iter()
        .map(|u| u.as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn playwright_drives_its_own_tabs_only_and_refused_things_stay_refused() {
    let pages = PageServer::area("cdp").await;
    let elsewhere = PageServer::area("cdp").await;
    let (daemon, token) = channel_with_neighbours(&pages).await;
    let door = format!("http://{}/cdp/{token}", daemon.addr);
    let args = json!({
        "page": pages.url("/door.html?playwright"),
        "denied": elsewhere.url("/door.html?denied"),
    });
    let seen = cdp_clients::run("playwright-drive.js", &door, &args).await;

    assert_eq!(seen["title"], "Door page", "{seen}");
    assert_eq!(seen["clicked"], "clicked ?playwright", "{seen}");
    // A popup of its page is its own, and reaches it.
    assert_eq!(seen["popup"]["title"], "Door page", "{seen}");
    assert!(
        seen["popup"]["url"]
            .as_str()
            .unwrap_or_default()
            .ends_with("?popup"),
        "{seen}"
    );
    let pages_seen = urls(&seen, "pages");
    assert!(
        pages_seen.iter().any(|u| u.ends_with("?playwright")),
        "{seen}"
    );
    for url in urls(&seen, "pagesAtStart").iter().chain(&pages_seen) {
        assert!(
            !url.contains("?person") && !url.contains("?other-agent"),
            "a tab not the agent's showed through the door: {seen}"
        );
    }
    let refused = seen["refused"]["error"].as_str().unwrap_or_default();
    assert!(
        refused.contains("Porthole refused Network.clearBrowserCookies"),
        "{seen}"
    );
    let denied = seen["denied"]["error"].as_str().unwrap_or_default();
    assert!(denied.contains("allow only"), "{seen}");
    assert!(
        elsewhere.requests().is_empty(),
        "{:?}",
        elsewhere.requests()
    );
    assert!(
        pages.requests().iter().any(|r| r.contains("?playwright")),
        "the positive control: the allowed site got the page"
    );
    // The door's acts are the agent's `tool` events, named by their method; reads are not.
    let recorded = porthole_tests::eventually(
        "the door's navigation and click on the timeline",
        std::time::Duration::from_secs(10),
        || async {
            let (_, tools) = daemon.timeline_of(CHANNEL, "tool").await;
            let door: Vec<Value> = tools
                .into_iter()
                .filter(|e| e["tool"].as_str().unwrap_or_default().starts_with("cdp:"))
                .collect();
            let named = |tool: &str| door.iter().any(|e| e["tool"] == tool);
            (named("cdp:Page.navigate") && named("cdp:Input.dispatchMouseEvent")).then_some(door)
        },
    )
    .await;
    for event in &recorded {
        assert_eq!(event["actor"]["name"], "scripted", "{event}");
        assert_ne!(event["tool"], "cdp:Runtime.callFunctionOn", "{event}");
        assert_ne!(event["tool"], "cdp:Page.getFrameTree", "{event}");
    }
    // The door's traffic is in the log, its token is not.
    assert!(daemon.logged("cdp_door_connected"));
    assert!(
        !daemon.log().contains(&token),
        "the agent token reached the log"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn puppeteer_sees_only_its_tabs_and_browser_close_leaves_the_browser_and_the_persons_tab() {
    let pages = PageServer::area("cdp").await;
    let (daemon, token) = channel_with_neighbours(&pages).await;
    let door = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
    let args = json!({ "page": pages.url("/door.html?puppeteer") });
    let seen = cdp_clients::run("puppeteer-drive.js", &door, &args).await;

    assert_eq!(seen["title"], "Door page", "{seen}");
    assert_eq!(seen["clicked"], "clicked ?puppeteer", "{seen}");
    assert!(
        urls(&seen, "pages")
            .iter()
            .any(|u| u.ends_with("?puppeteer")),
        "{seen}"
    );
    for url in urls(&seen, "pages").iter().chain(&urls(&seen, "targets")) {
        assert!(
            !url.contains("?person") && !url.contains("?other-agent"),
            "a tab not the agent's showed through the door: {seen}"
        );
    }
    let refused = seen["refused"]["error"].as_str().unwrap_or_default();
    assert!(refused.contains("Porthole refused Tracing.start"), "{seen}");

    // Browser.close closed the tab the client opened, and only that.
    let owner = daemon.owner_on(CHANNEL);
    let (is_error, tabs) = owner.act_text("list_tabs", json!({})).await;
    assert!(!is_error, "the browser is gone: {tabs}");
    assert!(tabs.contains("?person"), "the person's tab went: {tabs}");
    assert!(
        tabs.contains("?other-agent"),
        "another agent's tab went: {tabs}"
    );
    assert!(
        !tabs.contains("?puppeteer"),
        "the client's tab stayed: {tabs}"
    );
    assert!(
        !daemon.log().contains(&token),
        "the agent token reached the log"
    );
}
