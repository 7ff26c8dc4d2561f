//! Trust, round three, bounds (issue 38 items 7 and 9): a download's URL is kept cut in the
//! channel's list, two daemons on two data directories get two default agent sockets, and the
//! `evaluate` size guard cannot be fooled by a page that patches what it could measure with.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::{unix_http_request, PageServer};
use porthole_tests::{eventually, TempDir};
use serde_json::{json, Value};

use crate::mcp::harness::{agent_proxy, err, ok, ref_of};

#[tokio::test]
async fn a_downloads_long_url_is_kept_cut_in_the_list() {
    const CHANNEL: &str = "bounds-download-url";
    let pages = PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = daemon.add_agent(CHANNEL, "fetcher", &[]).await;
    let agent = agent_proxy(&daemon, &token).await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/downloads")}),
    )
    .await;
    // A download whose URL carries a 10 000-character query, by the page's own link.
    ok(
        &agent,
        "evaluate",
        json!({"expression": "(document.getElementById('att').href += '?q=' + 'a'.repeat(10000), 'ok')"}),
    )
    .await;
    let snap = ok(&agent, "read_page", json!({})).await;
    let link = ref_of(&snap, "link \"Get report\"");
    ok(
        &agent,
        "computer",
        json!({"action": "left_click", "ref": link}),
    )
    .await;
    eventually("the download listed", Duration::from_secs(20), || async {
        let t = ok(&agent, "list_downloads", json!({})).await;
        t.contains("report.bin — 3008 bytes").then_some(t)
    })
    .await;
    let index = daemon
        .data
        .path()
        .join("downloads")
        .join(CHANNEL)
        .join("index.json");
    let list: Value = serde_json::from_slice(&std::fs::read(&index).expect("index.json")).unwrap();
    let url = list[0]["url"].as_str().expect("a url");
    assert_eq!(url.chars().count(), 2048, "{}", &url[..200.min(url.len())]);
    assert!(url.ends_with('…'), "not marked as cut");
    assert!(
        url.contains("/download/report.bin?q=aaaa"),
        "{}",
        &url[..200]
    );
}

#[tokio::test]
async fn two_data_dirs_get_two_default_agent_sockets_each_answering_for_its_own_daemon() {
    // One runtime directory for both, as on a desktop where one user runs two daemons.
    let runtime = TempDir::new("xdg");
    let options = DaemonOptions {
        default_agent_socket: true,
        env: vec![(
            "XDG_RUNTIME_DIR".into(),
            runtime.path().display().to_string(),
        )],
        ..DaemonOptions::default()
    };
    let a = TestDaemon::start_with(options.clone()).await;
    let b = TestDaemon::start_with(options).await;
    // Every agent socket under the runtime directory's porthole/, one level down or two.
    let porthole = runtime.path().join("porthole");
    let mut sockets: Vec<_> = std::fs::read_dir(&porthole)
        .expect("the runtime directory holds porthole's")
        .map(|e| e.unwrap().path())
        .flat_map(|p| [p.clone(), p.join("agents.sock")])
        .filter(|p| p.file_name().is_some_and(|n| n == "agents.sock") && p.exists())
        .collect();
    sockets.sort();
    assert_eq!(sockets.len(), 2, "one socket for both daemons: {sockets:?}");
    let (_, token_a) = a.add_agent("sock-a", "a", &[]).await;
    let (_, token_b) = b.add_agent("sock-b", "b", &[]).await;
    let auth = |t: &str| format!("Bearer {t}");
    let mut answered = Vec::new();
    for socket in &sockets {
        let mut statuses = Vec::new();
        for token in [&token_a, &token_b] {
            let header = auth(token);
            let (status, body) = unix_http_request(
                socket,
                "GET",
                "/api/browser/agents/me",
                &[("Authorization", header.as_str())],
                None,
            )
            .await;
            statuses.push(status);
            if status == 200 {
                answered.push(body["channel_id"].clone());
            }
        }
        // Each socket is one daemon's: the other daemon's agent is a stranger there.
        statuses.sort();
        assert_eq!(statuses, vec![200, 401], "{}", socket.display());
    }
    answered.sort_by_key(|v| v.to_string());
    assert_eq!(answered, vec![json!("sock-a"), json!("sock-b")]);
    assert!(!a.log().contains("agent_socket_replaced"), "{}", a.log());
}

#[tokio::test]
async fn the_evaluate_guard_is_not_fooled_by_a_page_that_patches_what_it_measures_with() {
    const CHANNEL: &str = "bounds-liar";
    let pages = PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = daemon.add_agent(CHANNEL, "reader", &[]).await;
    let agent = agent_proxy(&daemon, &token).await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/bounds/liar.html")}),
    )
    .await;
    // JSON.stringify answers "{}": the 80 MB object is still refused by the guard itself,
    // with its own error (not the transport's skip of an 80 MB reply).
    let refused = err(&agent, "evaluate", json!({"expression": "window.big"})).await;
    assert!(
        refused.starts_with("The result is at least")
            && refused.contains("browser.cdp_message_max_mb"),
        "{refused}"
    );
    // A getter small once and large after is read once: what was measured is what comes back.
    let shifty = ok(&agent, "evaluate", json!({"expression": "window.shifty"})).await;
    assert!(shifty.contains("\"data\": \"small\""), "{shifty}");
    // Arrays stay arrays though Array.isArray and the array index setters lie.
    let list = ok(
        &agent,
        "evaluate",
        json!({"expression": "[1, 'two', {three: [3]}, null]"}),
    )
    .await;
    let list: Value = serde_json::from_str(&list).unwrap_or_else(|e| panic!("{e}: {list}"));
    assert_eq!(list, json!([1, "two", {"three": [3]}, null]));
    // The channel's browser lives on.
    let info = ok(&agent, "page_info", json!({})).await;
    assert!(info.contains("liar"), "{info}");
    assert!(
        !daemon.log().contains("browser_lost"),
        "the browser was lost"
    );
}
