//! Approvals (issue 36, DESIGN.md §20): an agent whose `confirm` kinds hold an act waits for
//! the person. Panes get `approval`; only a pane answers (`approval_answer`), and every pane
//! then gets `approval_closed`. A form post or a script's POST is held at the network layer
//! until allowed, and a declined or timed-out one never reaches the site; a new site waits the
//! same way, and "always on this site" covers that kind there; `evaluate` shows its script;
//! with nobody watching the agent is told at once. The timeline records both ends.

use std::time::Duration;

use porthole_tests::action::Caller;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::eventually;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const CHANNEL: &str = "approvals";

/// Creates an agent held to `confirm`; its id and token.
async fn agent_confirming(daemon: &TestDaemon, confirm: Value) -> (String, String) {
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": CHANNEL, "name": "shopper", "confirm": confirm}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["confirm"], confirm, "{body}");
    (
        body["agent_id"].as_str().unwrap().to_string(),
        body["token"].as_str().unwrap().to_string(),
    )
}

/// A pane attached to the channel.
async fn pane_on(daemon: &TestDaemon) -> Pane {
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    pane
}

/// Clicks the middle of the agent's page in a task of its own (the call may wait for the
/// person); the task's answer is `(isError, text)`.
fn click(agent: &Caller) -> tokio::task::JoinHandle<(bool, String)> {
    let agent = agent.clone();
    tokio::spawn(async move {
        agent
            .act_text(
                "computer",
                json!({"action": "left_click", "coordinate": [200, 200]}),
            )
            .await
    })
}

/// How many requests `pages` received that contain `needle`.
fn received(pages: &PageServer, needle: &str) -> usize {
    pages
        .requests()
        .iter()
        .filter(|r| r.contains(needle))
        .count()
}

/// Waits until `pages` received `n` requests containing `needle`.
async fn received_at_least(pages: &PageServer, needle: &str, n: usize) {
    eventually(
        &format!("{n} requests {needle}"),
        Duration::from_secs(10),
        || async move { (received(pages, needle) >= n).then_some(()) },
    )
    .await
}

/// The channel's `approval` events, as `(action, summary)`, once there are `n` of them (the
/// timeline writes off the caller's path).
async fn approval_events(daemon: &TestDaemon, n: usize) -> Vec<(String, String)> {
    let path = format!("/api/browser/channels/{CHANNEL}/timeline?since_seq=0&limit=200");
    eventually(
        &format!("{n} approval events"),
        Duration::from_secs(15),
        || {
            let path = path.clone();
            async move {
                let (status, page) = daemon.get(&path).await;
                assert_eq!(status, 200, "{page}");
                let events: Vec<(String, String)> = page["events"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|e| e["kind"] == "approval")
                    .map(|e| {
                        (
                            e["action"].as_str().unwrap_or_default().to_string(),
                            e["summary"].as_str().unwrap_or_default().to_string(),
                        )
                    })
                    .collect();
                (events.len() >= n).then_some(events)
            }
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_waits_for_the_person_and_a_declined_one_never_leaves() {
    let pages = PageServer::area("approvals").await;
    let daemon = TestDaemon::start().await;
    let (agent_id, token) = agent_confirming(&daemon, json!(["submit"])).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon).await;
    let other = Pane::connect(&daemon.addr, &daemon.token).await;
    other.start(CHANNEL).await;

    // A GET is no submit: the form page loads without asking.
    let mark = pane.mark();
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let clicked = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "submit", "{asked}");
    assert_eq!(asked["agent_id"], agent_id.as_str(), "{asked}");
    assert_eq!(asked["name"], "shopper", "{asked}");
    let detail = asked["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("POST ") && detail.contains("/submitted?by=form"),
        "{asked}"
    );
    assert!(
        asked["url"].as_str().unwrap().contains("/submitted"),
        "{asked}"
    );
    // Held: the site has not been asked while the person has not answered.
    assert_eq!(
        received(&pages, "POST /submitted"),
        0,
        "{:?}",
        pages.requests()
    );
    let id = asked["id"].as_str().unwrap().to_string();
    pane.send(json!({"type": "approval_answer", "id": id, "allow": true}));
    received_at_least(&pages, "POST /submitted?by=form", 1).await;
    for p in [&pane, &other] {
        let closed = p
            .message_where("approval_closed", mark, |m| {
                m["type"] == "approval_closed" && m["id"] == id.as_str()
            })
            .await;
        assert_eq!(closed["outcome"], "allowed", "{closed}");
        assert_eq!(closed["by"], "person", "{closed}");
    }
    clicked.await.unwrap();
    // An answer to a closed approval is an error and changes nothing.
    let mark_error = pane.mark();
    pane.send(json!({"type": "approval_answer", "id": id, "allow": true}));
    let error = pane.next_of("error", mark_error).await;
    assert_eq!(error["code"], "no_approval", "{error}");

    // The next post asks again (an allow covers only what it showed); declined, it never
    // leaves, and the agent is told.
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let mark = pane.mark();
    let clicked = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    let closed = pane.next_of("approval_closed", mark).await;
    assert_eq!(closed["outcome"], "declined", "{closed}");
    let (_, text) = clicked.await.unwrap();
    let (_, next) = agent.act_text("page_info", json!({})).await;
    assert!(
        format!("{text}\n{next}").contains("the person declined"),
        "{text}\n{next}"
    );
    assert_eq!(
        received(&pages, "POST /submitted"),
        1,
        "{:?}",
        pages.requests()
    );

    // A script's POST is held the same way: declined, it fails in the page; allowed, it goes.
    agent
        .act_ok("navigate", json!({"url": pages.url("/xhr.html")}))
        .await;
    let mark = pane.mark();
    let clicked = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    assert!(
        asked["detail"]
            .as_str()
            .unwrap()
            .contains("/submitted?by=fetch"),
        "{asked}"
    );
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    clicked.await.unwrap();
    pane.title_is(mark, "failed").await;
    assert_eq!(received(&pages, "by=fetch"), 0, "{:?}", pages.requests());
    let mark = pane.mark();
    let clicked = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
    clicked.await.unwrap();
    received_at_least(&pages, "POST /submitted?by=fetch", 1).await;

    // The timeline has both ends of each.
    let events = approval_events(&daemon, 8).await;
    let actions: Vec<&str> = events.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(
        actions.iter().filter(|a| **a == "asked").count(),
        4,
        "{events:?}"
    );
    assert_eq!(
        actions.iter().filter(|a| **a == "allowed").count(),
        2,
        "{events:?}"
    );
    assert_eq!(
        actions.iter().filter(|a| **a == "declined").count(),
        2,
        "{events:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn nobody_watching_or_answering_declines_and_only_a_pane_can_answer() {
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"agents": {"approval_timeout_secs": 2}}),
        ..DaemonOptions::default()
    })
    .await;
    let (agent_id, token) = agent_confirming(&daemon, json!(["evaluate"])).await;
    let agent = daemon.caller(&token);

    // No pane: refused at once, saying nobody is watching.
    let (is_error, text) = agent
        .act_text("evaluate", json!({"expression": "6 * 7"}))
        .await;
    assert!(is_error, "{text}");
    assert!(text.contains("nobody is watching"), "{text}");

    // A pane sees the script; unanswered, it times out and is declined.
    let pane = pane_on(&daemon).await;
    let mark = pane.mark();
    let waiting = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text("evaluate", json!({"expression": "6 * 7 /* sum */"}))
                .await
        })
    };
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "evaluate", "{asked}");
    assert_eq!(asked["detail"], "6 * 7 /* sum */", "{asked}");
    let closed = pane.next_of("approval_closed", mark).await;
    assert_eq!(closed["outcome"], "timed_out", "{closed}");
    assert_eq!(closed["by"], "timeout", "{closed}");
    let (is_error, text) = waiting.await.unwrap();
    assert!(is_error && text.contains("nobody answered"), "{text}");
    // A late answer is an error.
    let mark_error = pane.mark();
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
    assert_eq!(
        pane.next_of("error", mark_error).await["code"],
        "no_approval"
    );

    // The agent has no way to answer: no tool, no route, and its token opens no pane.
    let mark = pane.mark();
    let waiting = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text("evaluate", json!({"expression": "6 * 7"}))
                .await
        })
    };
    let asked = pane.next_of("approval", mark).await;
    let id = asked["id"].as_str().unwrap().to_string();
    let (_, out) = agent
        .call("approval_answer", json!({"id": id, "allow": true}))
        .await;
    assert!(
        out.to_string().to_lowercase().contains("unknown tool"),
        "{out}"
    );
    for path in [
        format!("/api/browser/approvals/{id}"),
        format!("/api/browser/channels/{CHANNEL}/approvals/{id}"),
    ] {
        let (status, _) = daemon
            .request_as(Some(&token), "POST", &path, Some(&json!({"allow": true})))
            .await;
        assert!(status == 404 || status == 403, "{path}: {status}");
    }
    let mut request = format!("ws://{}/api/ws/browser", daemon.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("Authorization", format!("Bearer {token}").parse().unwrap());
    assert!(
        Pane::connect_request(request).await.is_err(),
        "an agent token opened a pane"
    );
    // The person allows; the script runs.
    pane.send(json!({"type": "approval_answer", "id": id, "allow": true}));
    let (is_error, text) = waiting.await.unwrap();
    assert!(!is_error && text.contains("42"), "{text}");

    // Bad input changes nothing: an unknown kind, and an agent patching itself.
    let path = format!("/api/browser/agents/{agent_id}");
    let (status, body) = daemon
        .request_as(
            Some(&daemon.token),
            "PATCH",
            &path,
            Some(&json!({"confirm": ["evaluate", "everything"]})),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "bad_approval_kind", "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("everything"));
    let (status, _) = daemon
        .request_as(Some(&token), "PATCH", &path, Some(&json!({"confirm": []})))
        .await;
    assert_eq!(status, 403);
    let (_, me) = daemon
        .request_as(Some(&token), "GET", "/api/browser/agents/me", None)
        .await;
    assert_eq!(me["confirm"]["own"], json!(["evaluate"]), "{me}");
    // The owner lifts it: the next call runs without asking.
    let (status, body) = daemon
        .request_as(
            Some(&daemon.token),
            "PATCH",
            &path,
            Some(&json!({"confirm": []})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let text = agent
        .act_ok("evaluate", json!({"expression": "6 * 7"}))
        .await
        .to_string();
    assert!(text.contains("42"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_site_waits_for_the_person_and_always_covers_that_site() {
    let pages = PageServer::area("approvals").await;
    let other = PageServer::start().await;
    // Another site: the same loopback, by another name.
    let other_base = format!("http://localhost:{}", other.port());
    pages.set("OTHER", &other_base);
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_confirming(&daemon, json!(["new_site"])).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon).await;

    // The first site: the navigate waits; "always on this site".
    let mark = pane.mark();
    let going = {
        let agent = agent.clone();
        let url = pages.url("/link.html");
        tokio::spawn(async move { agent.act_text("navigate", json!({"url": url})).await })
    };
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "new_site", "{asked}");
    assert!(
        asked["detail"].as_str().unwrap().contains("/link.html"),
        "{asked}"
    );
    assert_eq!(received(&pages, "/link.html"), 0, "sent before the answer");
    pane.send(
        json!({"type": "approval_answer", "id": asked["id"], "allow": true, "remember": "site"}),
    );
    let (is_error, text) = going.await.unwrap();
    assert!(!is_error, "{text}");
    assert_eq!(received(&pages, "GET /link.html"), 1);

    // The page's own link to another site waits too; declined, that site is never asked.
    let mark = pane.mark();
    let clicked = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    assert!(
        asked["url"].as_str().unwrap().starts_with(&other_base),
        "{asked}"
    );
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    let (_, text) = clicked.await.unwrap();
    let (_, next) = agent.act_text("page_info", json!({})).await;
    let told = format!("{text}\n{next}");
    assert!(told.contains("the person declined"), "{told}");
    assert!(
        next.contains("/link.html"),
        "the tab stayed where it was: {next}"
    );
    assert!(other.requests().is_empty(), "{:?}", other.requests());

    // A navigate the person declines is the call's error.
    let mark = pane.mark();
    let going = {
        let agent = agent.clone();
        let url = format!("{other_base}/second.html");
        tokio::spawn(async move { agent.act_text("navigate", json!({"url": url})).await })
    };
    let asked = pane.next_of("approval", mark).await;
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    let (is_error, text) = going.await.unwrap();
    assert!(is_error && text.contains("the person declined"), "{text}");
    assert!(other.requests().is_empty(), "{:?}", other.requests());

    // The remembered site loads in a new tab without asking.
    let mark = pane.mark();
    agent
        .act_ok("new_tab", json!({"url": pages.url("/form.html")}))
        .await;
    received_at_least(&pages, "GET /form.html", 1).await;
    let (_, page) = agent.act_text("page_info", json!({})).await;
    assert!(page.contains("/form.html"), "{page}");
    let messages = pane
        .wait("messages", Duration::from_secs(1), |r| {
            Some(
                r.messages
                    .iter()
                    .skip(mark)
                    .cloned()
                    .collect::<Vec<Value>>(),
            )
        })
        .await;
    assert!(
        !messages.iter().any(|m| m["type"] == "approval"),
        "asked again: {messages:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_nobody_answers_times_out_and_never_leaves() {
    let pages = PageServer::area("approvals").await;
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"agents": {"approval_timeout_secs": 2}}),
        ..DaemonOptions::default()
    })
    .await;
    let (_, token) = agent_confirming(&daemon, json!(["submit"])).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon).await;
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let mark = pane.mark();
    let clicked = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "submit", "{asked}");
    let closed = pane.next_of("approval_closed", mark).await;
    assert_eq!(closed["outcome"], "timed_out", "{closed}");
    let (_, text) = clicked.await.unwrap();
    let (_, next) = agent.act_text("page_info", json!({})).await;
    let told = format!("{text}\n{next}");
    assert!(told.contains("nobody answered"), "{told}");
    // The page stayed where it was, and the site never got the post.
    assert!(next.contains("/form.html"), "{next}");
    assert_eq!(received(&pages, "POST"), 0, "{:?}", pages.requests());
}
