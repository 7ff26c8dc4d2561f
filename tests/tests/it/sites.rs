//! Sites per agent (issue 36, DESIGN.md §20): an agent's tabs load only the sites its record
//! and `agents.sites` allow, whichever way the page is asked for (navigate, new_tab, a link, a
//! redirect, a page script, a popup, a frame, a form post), and the refused site receives no
//! request at all. The person's tabs are never filtered. Only the owner sets an agent's sites,
//! and a bad pattern changes nothing.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use porthole_tests::action::Caller;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use porthole_tests::{eventually, TempDir};
use serde_json::{json, Value};

const CHANNEL: &str = "sites";

/// Creates an agent with `sites`; its token.
async fn agent_with_sites(daemon: &TestDaemon, sites: Value) -> (String, String) {
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": CHANNEL, "name": "kept", "sites": sites}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["sites"], sites, "{body}");
    (
        body["agent_id"].as_str().unwrap().to_string(),
        body["token"].as_str().unwrap().to_string(),
    )
}

/// Calls `page_info` until an answer (each takes the notes waiting) mentions `needle`; every
/// text seen on the way, `first` included.
async fn told(agent: &Caller, first: String, needle: &str) -> String {
    if first.contains(needle) {
        return first;
    }
    let seen = Arc::new(Mutex::new(first));
    eventually(
        &format!("a note naming {needle}"),
        Duration::from_secs(10),
        || {
            let (agent, seen) = (agent.clone(), seen.clone());
            async move {
                let (_, text) = agent.act_text("page_info", json!({})).await;
                let mut seen = seen.lock().unwrap();
                seen.push('\n');
                seen.push_str(&text);
                seen.contains(needle).then(|| seen.clone())
            }
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_site_gets_no_request_by_any_route_and_the_persons_tab_is_not_filtered() {
    let allowed = PageServer::area("sites").await;
    let refused = PageServer::start().await;
    allowed.set("REFUSED", &refused.base());
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with_sites(&daemon, json!({"allow": [allowed.base()]})).await;
    let agent = daemon.caller(&token);

    // Asked for directly: refused before anything is sent, naming the URL and the rule.
    let direct = refused.url("/landing?by=navigate");
    let (is_error, text) = agent.act_text("navigate", json!({"url": direct})).await;
    assert!(is_error, "{text}");
    assert!(
        text.contains(&direct) && text.contains("allow only"),
        "{text}"
    );
    let (is_error, text) = agent
        .act_text(
            "new_tab",
            json!({"url": refused.url("/landing?by=new_tab")}),
        )
        .await;
    assert!(is_error, "{text}");
    assert!(
        text.contains("by=new_tab") && text.contains("allow only"),
        "{text}"
    );

    // Every way a page can take the tab there: the answer, or the next one, says so.
    let to = format!("/to?u={}", url_escape(&refused.url("/landing?by=redirect")));
    let routes: [(&str, String, bool); 6] = [
        ("link", allowed.url("/link.html"), true),
        ("redirect", allowed.url(&to), false),
        ("script", allowed.url("/script.html"), false),
        ("popup", allowed.url("/popup.html"), true),
        ("frame", allowed.url("/frame.html"), false),
        ("form", allowed.url("/form.html"), true),
    ];
    for (route, page, click) in routes {
        // An allowed page loads (the redirect's first hop is on the allowed site).
        let (_, mut text) = agent.act_text("navigate", json!({"url": page})).await;
        if click {
            let (_, clicked) = agent
                .act_text(
                    "computer",
                    json!({"action": "left_click", "coordinate": [200, 200]}),
                )
                .await;
            text = format!("{text}\n{clicked}");
        }
        let all = told(&agent, text, &format!("by={route}")).await;
        assert!(all.contains("Porthole refused"), "{route}: {all}");
        assert!(all.contains("allow only"), "{route}: {all}");
    }
    assert!(
        refused.requests().is_empty(),
        "the refused site was asked: {:?}",
        refused.requests()
    );
    // The allowed site was reached all along (the test would pass vacuously otherwise).
    assert!(
        allowed.requests().iter().any(|r| r.contains("/form.html")),
        "{:?}",
        allowed.requests()
    );

    // The person's tab is never filtered: the owner acts in the tab the pane shows.
    daemon
        .owner_on(CHANNEL)
        .act_ok(
            "navigate",
            json!({"url": refused.url("/landing?by=person")}),
        )
        .await;
    let asked = refused.requests();
    assert_eq!(
        asked.first().map(String::as_str),
        Some("GET /landing?by=person")
    );
    // Chrome may ask for the site's icon after the page.
    assert!(
        asked
            .iter()
            .all(|r| r.contains("by=person") || r.contains("favicon")),
        "{asked:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn only_the_owner_sets_sites_and_a_bad_pattern_changes_nothing() {
    let pages = PageServer::start().await;
    let daemon = TestDaemon::start().await;
    let (agent_id, token) = agent_with_sites(&daemon, json!({})).await;
    let agent = daemon.caller(&token);
    let path = format!("/api/browser/agents/{agent_id}");

    // Malformed patterns are refused with a clear error, on create and on change.
    for bad in ["git hub.com", "https://a.test/path", "ftp://a.test", "*."] {
        let (status, body) = daemon
            .post(
                "/api/browser/agents",
                &json!({"channel_id": CHANNEL, "sites": {"deny": [bad]}}),
            )
            .await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(body["error"]["code"], "bad_site_pattern", "{bad}: {body}");
        let (status, body) = daemon
            .request_as(
                Some(&daemon.token),
                "PATCH",
                &path,
                Some(&json!({"sites": {"allow": [bad]}})),
            )
            .await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    let (_, list) = daemon.get("/api/browser/agents").await;
    assert_eq!(list["agents"].as_array().unwrap().len(), 1, "{list}");
    let (_, me) = agent_me(&daemon, &token).await;
    assert_eq!(me["sites"]["own"], json!({}), "{me}");

    // An agent token cannot change its own sites (or anyone's).
    let (status, _) = daemon
        .request_as(
            Some(&token),
            "PATCH",
            &path,
            Some(&json!({"sites": {"allow": ["*"]}})),
        )
        .await;
    assert_eq!(status, 403);
    let (status, body) = daemon
        .request_as(
            Some(&daemon.token),
            "PATCH",
            "/api/browser/agents/ag_000000000000",
            Some(&json!({"sites": {}})),
        )
        .await;
    assert_eq!(status, 404, "{body}");
    let (status, body) = daemon
        .request_as(
            Some(&daemon.token),
            "PATCH",
            &path,
            Some(&json!({"sites": {}, "confirmm": []})),
        )
        .await;
    assert_eq!(status, 422, "{body}");

    // The page loads; then the owner denies its host (any port) and it no longer does.
    agent
        .act_ok("navigate", json!({"url": pages.url("/second.html")}))
        .await;
    let (status, body) = daemon
        .request_as(
            Some(&daemon.token),
            "PATCH",
            &path,
            Some(&json!({"sites": {"deny": ["127.0.0.1"]}})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["sites"]["deny"], json!(["127.0.0.1"]), "{body}");
    let (_, me) = agent_me(&daemon, &token).await;
    assert_eq!(me["sites"]["own"]["deny"], json!(["127.0.0.1"]), "{me}");
    let before = pages.requests().len();
    let (is_error, text) = agent
        .act_text("navigate", json!({"url": pages.url("/index.html")}))
        .await;
    assert!(is_error, "{text}");
    assert!(text.contains("deny \"127.0.0.1\""), "{text}");
    assert_eq!(pages.requests().len(), before, "{:?}", pages.requests());
}

#[tokio::test(flavor = "multi_thread")]
async fn agent_add_takes_sites_and_a_bad_one_adds_no_agent() {
    let data = TempDir::new("sites-cli");
    std::fs::write(data.path().join("config.json"), "{}").unwrap();
    let run = |args: &[&str]| {
        let mut command = porthole_tests::cli::porthole_in(data.path());
        command.args(args);
        async move { command.output().await.expect("porthole runs") }
    };
    let bad = run(&["agent", "add", CHANNEL, "--deny-site", "git hub.com"]).await;
    assert!(!bad.status.success());
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(said.contains("site pattern"), "{said}");
    let added = run(&[
        "agent",
        "add",
        CHANNEL,
        "--allow-site",
        "*.example.com,http://127.0.0.1:8080",
        "--deny-site",
        "bad.example.com",
    ])
    .await;
    assert!(added.status.success(), "{added:?}");
    let list = run(&["agent", "list"]).await;
    let listed = String::from_utf8_lossy(&list.stdout);
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert!(
        listed.contains("sites allowed: *.example.com,http://127.0.0.1:8080")
            && listed.contains("sites denied: bad.example.com"),
        "{listed}"
    );
}

async fn agent_me(daemon: &TestDaemon, token: &str) -> (u16, Value) {
    daemon
        .request_as(Some(token), "GET", "/api/browser/agents/me", None)
        .await
}

/// Percent-encodes a URL for a query value.
fn url_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
