//! Channels' lifetimes and agents' bounds (issue 38): deleting a channel ends its agents'
//! tokens and an agent's call never makes a channel; one agent's calls in flight are bounded
//! (`agents.max_calls_in_flight`); ids differing only in case are refused; and asking for host
//! mode with no Chrome of the user's is the client's conflict (409), not a server fault.

use std::time::Duration;

use porthole_tests::action::result_text;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::{eventually, TempDir};
use serde_json::{json, Value};

/// A tool call with an agent token: the status and the body.
async fn act(daemon: &TestDaemon, token: &str, tool: &str, args: Value) -> (u16, Value) {
    daemon.caller(token).call(tool, args).await
}

/// A tool call that must succeed: HTTP 200 and not `isError`; its text.
async fn act_ok(daemon: &TestDaemon, token: &str, tool: &str, args: Value) -> String {
    result_text(&daemon.caller(token).act_ok(tool, args).await)
}

async fn channel_ids(daemon: &TestDaemon) -> Vec<String> {
    let (status, body) = daemon.get("/api/browser/channels").await;
    assert_eq!(status, 200, "{body}");
    body["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["channel_id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn deleting_a_channel_ends_its_agents_tokens_and_an_agents_call_never_makes_a_channel() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let (gone_id, gone) = daemon.add_agent("tc-gone", "old", &[]).await;
    let (kept_id, kept) = daemon.add_agent("tc-kept", "other", &[]).await;
    // Adding an agent makes its channel: it is listed, and the agent's first call runs.
    assert!(channel_ids(&daemon).await.contains(&"tc-gone".to_string()));
    act_ok(
        &daemon,
        &gone,
        "navigate",
        json!({"url": pages.url("/input")}),
    )
    .await;
    assert!(daemon.profile_dir("tc-gone").exists());

    let (status, body) = daemon.delete("/api/browser/channels/tc-gone").await;
    assert_eq!(status, 204, "{body}");

    // The deleted channel's agent is gone with it: its token answers 401 everywhere, and its
    // call brings nothing back.
    let (status, body) = act(&daemon, &gone, "page_info", json!({})).await;
    assert_eq!(status, 401, "{body}");
    let (status, _) = daemon
        .socket_request(Some(&gone), "GET", "/api/browser/agents/me", None)
        .await;
    assert_eq!(status, 401);
    assert!(!channel_ids(&daemon).await.contains(&"tc-gone".to_string()));
    assert!(!daemon.profile_dir("tc-gone").exists());
    let (_, agents) = daemon.get("/api/browser/agents").await;
    let ids: Vec<&str> = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["agent_id"].as_str())
        .collect();
    assert_eq!(ids, vec![kept_id.as_str()], "{agents}");
    assert!(!ids.contains(&gone_id.as_str()));
    // Another channel's agent is untouched.
    act_ok(&daemon, &kept, "page_info", json!({})).await;

    // An agent whose channel is not recorded (a state left by an older daemon, which deleted
    // channels but kept their agents): its calls are refused and never make the channel.
    let (_, legacy) = daemon.add_agent("tc-legacy", "legacy", &[]).await;
    let data = daemon.stop().await;
    {
        let db = rusqlite::Connection::open(data.path().join("state.sqlite3")).unwrap();
        db.execute(
            "DELETE FROM channel_mode WHERE channel_id = 'tc-legacy'",
            [],
        )
        .unwrap();
    }
    let daemon = TestDaemon::start_in(data, DaemonOptions::default()).await;
    let (status, body) = act(
        &daemon,
        &legacy,
        "navigate",
        json!({"url": pages.url("/input")}),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], "unknown_channel", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("does not exist"), "{message}");
    assert!(!channel_ids(&daemon)
        .await
        .contains(&"tc-legacy".to_string()));
    assert!(!daemon.profile_dir("tc-legacy").exists());
    assert!(
        !daemon.log().contains("session_started"),
        "no browser was started"
    );
}

#[tokio::test]
async fn one_agents_calls_in_flight_are_bounded_and_another_agent_is_not_affected() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let (_, busy) = daemon.add_agent("tc-busy", "busy", &[]).await;
    let (_, other) = daemon.add_agent("tc-busy", "other", &[]).await;
    act_ok(
        &daemon,
        &busy,
        "navigate",
        json!({"url": pages.url("/input")}),
    )
    .await;
    // The busy agent's waits end when another tab of the same origin writes localStorage.
    act_ok(
        &daemon,
        &busy,
        "evaluate",
        json!({"expression": "addEventListener('storage', () => document.body.append('released-now')); true"}),
    )
    .await;

    // Eight slow calls from one agent: each waits for text that is not there yet.
    let waits: Vec<_> = (0..8)
        .map(|_| {
            let daemon = &daemon;
            let busy = busy.clone();
            async move {
                act(
                    daemon,
                    &busy,
                    "computer",
                    json!({"action": "wait", "wait_for_text": "released-now", "wait_timeout_ms": 60000}),
                )
                .await
            }
        })
        .collect();
    let waits = futures_util::future::join_all(waits);
    let check = async {
        // Once all eight run, a ninth is refused at once, naming the setting.
        let refused = eventually(
            "a ninth call to be refused",
            Duration::from_secs(30),
            || async {
                let (status, body) = act(&daemon, &busy, "list_tabs", json!({})).await;
                (status != 200).then_some((status, body))
            },
        )
        .await;
        let (status, body) = refused;
        assert_eq!(status, 429, "{body}");
        assert_eq!(body["error"]["code"], "too_many_calls_in_flight", "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("agents.max_calls_in_flight"), "{message}");
        // Another agent of the same channel is not affected; it releases the waits.
        act_ok(
            &daemon,
            &other,
            "navigate",
            json!({"url": pages.url("/input")}),
        )
        .await;
        act_ok(
            &daemon,
            &other,
            "evaluate",
            json!({"expression": "localStorage.setItem('go', String(Date.now())); true"}),
        )
        .await;
    };
    let (results, ()) = tokio::join!(waits, check);
    for (status, body) in results {
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["isError"], false, "{body}");
    }
    // The slots are free again.
    act_ok(&daemon, &busy, "list_tabs", json!({})).await;
}

#[tokio::test]
async fn a_channel_id_differing_only_in_case_from_an_existing_one_is_refused() {
    let daemon = TestDaemon::start().await;
    let (status, body) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": "tc-work", "mode": "local"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": "TC-Work", "mode": "local"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "channel_id_case_clash", "{body}");
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": "TC-WORK", "name": "clash"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "channel_id_case_clash", "{body}");
    assert_eq!(channel_ids(&daemon).await, vec!["tc-work".to_string()]);
}

#[tokio::test]
async fn host_mode_without_the_users_chrome_is_a_409_naming_it() {
    // No Chrome of "the user's" anywhere discovery looks.
    let home = TempDir::new("no-chrome-home");
    let empty = TempDir::new("no-chrome");
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"browser": {"host": {"user_data_dirs": [empty.path()]}}}),
        env: vec![
            ("HOME".into(), home.path().display().to_string()),
            ("XDG_CONFIG_HOME".into(), home.path().display().to_string()),
        ],
        ..DaemonOptions::default()
    })
    .await;
    let (status, body) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": "tc-host", "mode": "host"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "host_browser_not_found", "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("chrome://inspect/#remote-debugging"));
    let (_, channels) = daemon.get("/api/browser/channels").await;
    assert!(!channels.to_string().contains("\"host\""), "{channels}");
    let (_, doc) = daemon.get("/api/openapi.json").await;
    let responses = &doc["paths"]["/api/browser/mode"]["post"]["responses"];
    assert!(responses["409"].is_object(), "{responses}");
}
