//! Changes that hold at once (issue 52): the owner's change of an agent's sites holds its tab's
//! next request with no call of the agent in between; approval ids never repeat across a
//! daemon restart; and after a restart a profile reset clears the profile and the timeline,
//! never the channel.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::devtools_port::Probe;
use porthole_tests::eventually;
use porthole_tests::pages::PageServer;
use porthole_tests::raw_cdp;
use serde_json::{json, Value};

use super::{agent_with, pane_on};

const CHANNEL: &str = "changes";

/// The page target whose URL contains `needle`.
async fn target_showing(probe: &Probe, needle: &str) -> String {
    eventually(
        &format!("a tab on {needle}"),
        Duration::from_secs(10),
        || async {
            probe
                .pages()
                .await
                .into_iter()
                .find(|p| p["url"].as_str().unwrap_or_default().contains(needle))
                .map(|p| p["targetId"].as_str().unwrap().to_string())
        },
    )
    .await
}

/// Navigates the page `target` to `url` from outside (the probe: no agent call); Chrome's
/// answer comes once the load committed or failed, and is its error text, if any.
async fn navigated_from_outside(probe: &Probe, target: &str, url: &str) -> Option<String> {
    let session = raw_cdp::attach(&probe.cdp, target).await;
    let answer = raw_cdp::call(&probe.cdp, &session, "Page.navigate", json!({"url": url})).await;
    let _ = probe
        .cdp
        .call("Target.detachFromTarget", json!({"sessionId": session}))
        .await;
    answer["errorText"].as_str().map(str::to_string)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sites_change_holds_the_agents_tab_before_its_next_call() {
    let allowed = PageServer::area("sites").await;
    let refused = PageServer::start().await;
    let daemon = TestDaemon::start().await;
    let (agent_id, token) = agent_with(&daemon, CHANNEL, json!({})).await;
    let agent = daemon.caller(&token);
    agent
        .act_ok("navigate", json!({"url": allowed.url("/allowed.html")}))
        .await;
    let probe = Probe::connect(&daemon.profile_dir(CHANNEL)).await;
    let tab = target_showing(&probe, "/allowed.html").await;

    // Control: the agent's tab, driven from outside (no agent call), reaches the other site.
    let before = navigated_from_outside(&probe, &tab, &refused.url("/landing?by=before")).await;
    assert_eq!(before, None);
    assert!(
        refused.requests().iter().any(|r| r.contains("by=before")),
        "{:?}",
        refused.requests()
    );

    // The owner denies that site; the tab's next load is refused with no agent call between
    // (Chrome answers the navigation only once the network layer decided it).
    let (status, body) = daemon
        .request_as(
            Some(&daemon.token),
            "PATCH",
            &format!("/api/browser/agents/{agent_id}"),
            Some(&json!({"sites": {"deny": [refused.base()]}})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let after = navigated_from_outside(&probe, &tab, &refused.url("/landing?by=after")).await;
    assert!(
        after.as_deref().is_some_and(|e| e.contains("ABORTED")),
        "the load went through: {after:?}"
    );
    assert!(
        !refused.requests().iter().any(|r| r.contains("by=after")),
        "{:?}",
        refused.requests()
    );
    let (_, told) = agent.act_text("page_info", json!({})).await;
    assert!(
        told.contains("Porthole refused") && told.contains("by=after"),
        "{told}"
    );
}

/// Asks the person for an `evaluate` of the agent and declines it; the approval's id.
async fn declined_evaluate_id(daemon: &TestDaemon, token: &str) -> String {
    let pane = pane_on(daemon, CHANNEL).await;
    let agent = daemon.caller(token);
    let mark = pane.mark();
    let asking =
        tokio::spawn(async move { agent.act_text("evaluate", json!({"expression": "1"})).await });
    let asked = pane.next_of("approval", mark).await;
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    let (is_error, text) = asking.await.unwrap();
    assert!(is_error && text.contains("declined"), "{text}");
    asked["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn after_a_restart_ids_are_new_and_a_profile_reset_keeps_the_channel() {
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"confirm": ["evaluate"]})).await;
    let first = declined_evaluate_id(&daemon, &token).await;
    let data = daemon.stop().await;
    let daemon = TestDaemon::start_in(data, DaemonOptions::default()).await;

    // A reset right after the restart: the profile and timeline go, the channel stays.
    let (status, body) = daemon
        .post(
            "/api/browser/profile/reset",
            &json!({"channel_id": CHANNEL}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["removed"], true, "{body}");
    let timeline = format!("/api/browser/channels/{CHANNEL}/timeline");
    let (status, body) = daemon.get(&timeline).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = daemon.delete(&timeline).await;
    assert_eq!(status, 204, "{body}");
    let (_, channels) = daemon.get("/api/browser/channels").await;
    let listed: Vec<&Value> = channels["channels"].as_array().unwrap().iter().collect();
    assert!(
        listed.iter().any(|c| c["channel_id"] == CHANNEL),
        "{channels}"
    );
    // Control: an unknown channel is still unknown.
    let (status, _) = daemon
        .get("/api/browser/channels/never-made/timeline")
        .await;
    assert_eq!(status, 404);

    // The agent's token still acts there, and its next approval has an id never used.
    let second = declined_evaluate_id(&daemon, &token).await;
    assert_ne!(first, second, "an approval id came back after a restart");
}
