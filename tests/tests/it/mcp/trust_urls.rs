//! Agents open only http, https, data, blob (of their own page) and about:blank (DESIGN.md
//! §16): every browser-internal page (`about:history` → `chrome://history` …), `file:`,
//! `view-source:`, `javascript:` … is refused through `navigate` and `new_tab` with the page
//! unchanged, and neither a server redirect, a page script nor a popup gets an agent there: a
//! tab of an agent's that lands on one anyway is closed and the agent told in its next result.
//! The person in a pane may still open `about:` pages.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::json;

use super::harness::{agent_proxy, call, err, is_error, ok, text, Client};

/// The test's pages (`tests/pages/mcp/trust_urls/`) on 127.0.0.1:0: `/start`, `/to?u=` (a
/// redirect to `u`), `/script-nav?u=` (its script goes to `u`), `/script-popup?u=` (its script
/// opens `u` as a popup).
async fn serve_pages() -> String {
    PageServer::area("mcp/trust_urls").await.base()
}

/// Every URL an agent is refused, with the word its refusal must carry.
fn refused_urls(base: &str) -> Vec<String> {
    [
        "about:history",
        "about:settings",
        "about:inspect",
        "about:password-manager",
        "about:version",
        "ABOUT:HISTORY",
        "chrome://history",
        "chrome://settings/passwords",
        "chrome-untrusted://print/",
        "devtools://devtools/bundled/inspector.html",
        "file:///etc/passwd",
        "javascript:document.title='pwned'",
        "blob:https://elsewhere.test/0b0e7c1a-1111-2222-3333-444455556666",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("view-source:{base}/start"),
        format!("filesystem:{base}/temporary/x"),
    ])
    .collect()
}

/// A refusal naming what agents may open (`javascript:` is refused by porthole-mcp's own
/// argument check, pointing at `evaluate`).
fn refused_as_it_should(refusal: &str) -> bool {
    refusal.contains("agents may open only")
        || refusal.contains("not a blob of")
        || refusal.contains("must not be a javascript: URL")
}

/// What a page of the browser itself would show an agent (never allowed in a result).
fn looks_internal(t: &str) -> bool {
    [
        "chrome://",
        "chrome-untrusted://",
        "devtools://",
        "file:///etc",
        "view-source:",
        "root:x:0:0",
    ]
    .iter()
    .any(|needle| t.contains(needle))
}

/// Every tab of the channel as the owner sees them (the agent's and any popups).
async fn all_tab_urls(daemon: &TestDaemon, channel: &str) -> String {
    let out = daemon.owner_on(channel).act("list_tabs", json!({})).await;
    out["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The agent's page: its URL and text, through the tools.
async fn agent_page(agent: &Client) -> String {
    ok(agent, "page_info", json!({})).await
}

#[tokio::test]
async fn agents_are_refused_internal_pages_through_navigate_and_new_tab() {
    let base = serve_pages().await;
    let daemon = TestDaemon::start().await;
    let (_, token) = daemon.add_agent("trust-urls-a", "urls", &[]).await;
    let agent = agent_proxy(&daemon, &token).await;
    let start = format!("{base}/start");
    ok(&agent, "navigate", json!({"url": start})).await;
    let tabs_before = ok(&agent, "list_tabs", json!({})).await;
    // What agents may open still works.
    ok(&agent, "navigate", json!({"url": "about:blank"})).await;
    ok(
        &agent,
        "navigate",
        json!({"url": "data:text/html,<title>D</title>"}),
    )
    .await;
    ok(&agent, "navigate", json!({"url": start})).await;

    for url in refused_urls(&base) {
        let refusal = err(&agent, "navigate", json!({"url": url})).await;
        assert!(refused_as_it_should(&refusal), "navigate {url}: {refusal}");
        let page = agent_page(&agent).await;
        assert!(
            page.contains(&start),
            "navigate {url} changed the page: {page}"
        );

        let refusal = err(&agent, "new_tab", json!({"url": url})).await;
        assert!(refused_as_it_should(&refusal), "new_tab {url}: {refusal}");
        let tabs = ok(&agent, "list_tabs", json!({})).await;
        assert_eq!(tabs, tabs_before, "new_tab {url} opened or changed a tab");
    }
    let everything = all_tab_urls(&daemon, "trust-urls-a").await;
    assert!(!looks_internal(&everything), "{everything}");
}

/// A redirect, a page script and a popup aiming at internal pages: the agent never sees one,
/// and any tab of its that got there is closed and the agent told.
#[tokio::test]
async fn redirects_scripts_and_popups_never_show_an_agent_an_internal_page() {
    let base = serve_pages().await;
    let daemon = TestDaemon::start().await;
    let (_, token) = daemon.add_agent("trust-urls-b", "urls", &[]).await;
    let agent = agent_proxy(&daemon, &token).await;
    let start = format!("{base}/start");
    ok(&agent, "navigate", json!({"url": start})).await;

    let targets = [
        "about:history",
        "about:settings",
        "chrome://history",
        "file:///etc/passwd",
        "view-source:http://127.0.0.1/",
    ];
    for target in targets {
        let q = urlencode(target);
        for path in [
            format!("/to?u={q}"),
            format!("/script-nav?u={q}"),
            format!("/script-popup?u={q}"),
        ] {
            let result = call(&agent, "navigate", json!({"url": format!("{base}{path}")})).await;
            let said = text(&result);
            assert!(!looks_internal_content(&said), "{path}: {said}");
            // Whatever Chrome made of it, no tab of the channel is on an internal page.
            let everything = all_tab_urls(&daemon, "trust-urls-b").await;
            assert!(!looks_internal(&everything), "{path}: {everything}");
            // The agent's tab (or the fresh one after a close) shows no internal content.
            for tool in ["get_page_text", "page_info"] {
                let page = ok(&agent, tool, json!({})).await;
                assert!(!looks_internal_content(&page), "{path} {tool}: {page}");
            }
            eprintln!(
                "measured: {path}: navigate isError={} said {:?}",
                is_error(&result),
                said.lines().next().unwrap_or_default()
            );
        }
        // window.open from the agent's own code, with a user gesture.
        ok(&agent, "navigate", json!({"url": start})).await;
        let opened = call(
            &agent,
            "evaluate",
            json!({"expression": format!("String(window.open({target:?}))")}),
        )
        .await;
        eprintln!("measured: window.open({target}) said {}", text(&opened));
        let everything = all_tab_urls(&daemon, "trust-urls-b").await;
        assert!(
            !looks_internal(&everything),
            "window.open {target}: {everything}"
        );
        // Location set by the agent's own code.
        let set = call(
            &agent,
            "evaluate",
            json!({"expression": format!("location.href = {target:?}; 'set'")}),
        )
        .await;
        eprintln!("measured: location = {target} said {}", text(&set));
        let page = ok(&agent, "get_page_text", json!({})).await;
        assert!(!looks_internal_content(&page), "location {target}: {page}");
        let everything = all_tab_urls(&daemon, "trust-urls-b").await;
        assert!(
            !looks_internal(&everything),
            "location {target}: {everything}"
        );
    }
}

/// Text only a browser-internal page (or the file) would put in a result; Porthole's own
/// notes (which name the URL a closed tab reached) left out.
fn looks_internal_content(t: &str) -> bool {
    let without_notes: Vec<&str> = t
        .lines()
        .filter(|l| !l.starts_with("Note: your tab"))
        .collect();
    let t = without_notes.join("\n");
    looks_internal(&t)
        || [
            "Clear browsing data",
            "root:x:0:0",
            "Executable Path",
            "Command Line",
            "You and Google",
            "Autofill and passwords",
        ]
        .iter()
        .any(|needle| t.contains(needle))
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The person may open `about:` pages from a pane (Porthole passes them to Chrome; this
/// Chromium itself shows `about:blank#blocked` for most), where an agent is refused.
#[tokio::test]
async fn the_person_may_open_about_pages_from_a_pane() {
    let daemon = TestDaemon::start().await;
    let channel = "trust-urls-c";
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let own_tab = pane.start(channel).await;
    for url in ["about:version", "about:history"] {
        let mark = pane.mark();
        pane.send(json!({"type": "navigate", "url": url}));
        pane.send(json!({"type": "navigate", "url": "data:text/html,<title>after</title>"}));
        // Both commands ran in order, and the first was not refused.
        let after = pane
            .wait(
                &format!("{url} then data:"),
                std::time::Duration::from_secs(30),
                |r| {
                    let seen = &r.messages[mark..];
                    seen.iter()
                        .find(|m| m["type"] == "page_info" && m["title"] == "after")?;
                    Some(seen.to_vec())
                },
            )
            .await;
        let refused: Vec<_> = after.iter().filter(|m| m["type"] == "error").collect();
        assert!(
            refused.is_empty(),
            "the pane's {url} was refused: {refused:?}"
        );
        let info = after.iter().find(|m| m["type"] == "page_info").unwrap();
        assert_eq!(info["target_id"], own_tab.as_str(), "{info}");
        eprintln!(
            "measured: the pane's {url} showed {}",
            after
                .iter()
                .filter(|m| m["type"] == "page_info")
                .map(|m| m["url"].to_string())
                .collect::<Vec<_>>()
                .join(" then ")
        );
    }
    let (_, token) = daemon.add_agent(channel, "urls", &[]).await;
    let agent = agent_proxy(&daemon, &token).await;
    let refusal = err(&agent, "navigate", json!({"url": "about:version"})).await;
    assert!(refusal.contains("agents may open only"), "{refusal}");
}

/// An agent's tab that reaches an internal page anyway (here the test sends it there over the
/// browser's own DevTools port, as the user can in host mode, or a Chrome that lets a
/// navigation through would) is closed, and the agent's next result says so, once.
#[tokio::test]
async fn an_agents_tab_on_an_internal_page_is_closed_and_the_agent_told() {
    let base = serve_pages().await;
    let daemon = TestDaemon::start().await;
    let channel = "trust-urls-d";
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    let (_, token) = daemon.add_agent(channel, "urls", &[]).await;
    let agent = agent_proxy(&daemon, &token).await;
    ok(&agent, "navigate", json!({"url": format!("{base}/start")})).await;
    let listing = ok(&agent, "list_tabs", json!({})).await;
    let agent_tab = listing
        .split("[id=")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("the agent's tab id")
        .to_string();

    let probe = porthole_tests::devtools_port::Probe::connect(&daemon.profile_dir(channel)).await;
    let session = porthole_tests::raw_cdp::attach(&probe.cdp, &agent_tab).await;
    let mark = pane.mark();
    let _ = probe
        .cdp
        .call_on(
            &session,
            "Page.navigate",
            json!({"url": "chrome://version"}),
        )
        .await;
    pane.message_where("the agent's tab closed", mark, |m| {
        m["type"] == "tab_closed" && m["target_id"] == agent_tab.as_str()
    })
    .await;
    let result = call(&agent, "get_page_text", json!({})).await;
    let said = text(&result);
    assert!(
        said.contains("Porthole closed that tab") && said.contains(&agent_tab),
        "the agent was not told: {said}"
    );
    assert!(!looks_internal_content(&said), "{said}");
    // Told once; the closed tab is gone from its list.
    let again = ok(&agent, "list_tabs", json!({})).await;
    assert!(!again.contains("Porthole closed that tab"), "{again}");
    assert!(!again.contains(&agent_tab), "{again}");
}

/// `porthole mcp-host-browser` on a stand-in user Chrome: the same refusals, and its tab sent
/// to an internal page by the user (in their own Chrome) is closed, with a note next call,
/// and the calls after it run in a new tab.
#[tokio::test]
async fn mcp_host_browser_keeps_its_tabs_off_internal_pages() {
    let base = serve_pages().await;
    let chrome = super::host::UserChrome::start(&format!("{base}/start?user")).await;
    let probe = porthole_tests::devtools_port::Probe::connect(chrome.profile.path()).await;
    let home = porthole_tests::TempDir::new("trust-urls-home");
    let (args, env) = super::host::host_args(&home, &[chrome.profile.path()], &[]);
    let mcp = super::harness::connect("porthole", &args, &env).await;
    let start = format!("{base}/start");
    ok(&mcp, "navigate", json!({"url": start})).await;
    for url in ["about:history", "chrome://history", "file:///etc/passwd"] {
        let refusal = err(&mcp, "navigate", json!({"url": url})).await;
        assert!(refused_as_it_should(&refusal), "{url}: {refusal}");
        let refusal = err(&mcp, "new_tab", json!({"url": url})).await;
        assert!(refused_as_it_should(&refusal), "{url}: {refusal}");
    }
    let page = agent_page(&mcp).await;
    assert!(page.contains(&start), "{page}");

    // The user sends the server's tab to chrome://history from their own Chrome.
    let ours = probe
        .pages()
        .await
        .into_iter()
        .find(|p| p["url"] == start.as_str())
        .expect("the server's tab in Chrome");
    let ours = ours["targetId"].as_str().unwrap().to_string();
    let session = porthole_tests::raw_cdp::attach(&probe.cdp, &ours).await;
    let _ = probe
        .cdp
        .call_on(
            &session,
            "Page.navigate",
            json!({"url": "chrome://history"}),
        )
        .await;
    porthole_tests::eventually(
        "the tab closed",
        std::time::Duration::from_secs(20),
        || async {
            let pages = probe.pages().await;
            (!pages.iter().any(|p| p["targetId"] == ours.as_str())).then_some(())
        },
    )
    .await;
    let said = text(&call(&mcp, "get_page_text", json!({})).await);
    assert!(said.contains("Porthole closed that tab"), "{said}");
    assert!(!looks_internal_content(&said), "{said}");
    // As the note says, the calls go on in a new tab (the closed one was the server's last).
    ok(&mcp, "navigate", json!({"url": start})).await;
    let page = agent_page(&mcp).await;
    assert!(page.contains(&start), "{page}");
}
