//! Answers that say what happened (issue 52): a click whose form post the person declined
//! answers as an error; "always" is kept by origin (another port of the same host asks again),
//! never for an opaque one (`about:blank` allows once), and each act it lets through is a
//! timeline event (`by remembered`); a post the agent's script left behind (a listener, a
//! timer) is held whenever it fires.

use std::time::Duration;

use porthole_tests::action::Caller;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::devtools_port::Probe;
use porthole_tests::eventually;
use porthole_tests::pages::PageServer;
use serde_json::json;

use super::{agent_with, pane_on};

const CHANNEL: &str = "answers";

/// Clicks the form's button in a task of its own (the call may wait for the person); the
/// task's answer is `(isError, text)`.
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

/// The answer that tells the agent about its click: the click's own, or (when the post was
/// held after it answered) the next call's.
async fn answer_telling(agent: &Caller, clicked: (bool, String), needle: &str) -> (bool, String) {
    if clicked.1.contains(needle) {
        return clicked;
    }
    agent.act_text("page_info", json!({})).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_click_whose_post_the_person_declined_is_an_error_and_an_allowed_one_is_not() {
    let pages = PageServer::area("approvals").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"confirm": ["submit"]})).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon, CHANNEL).await;

    // Declined: the click went through, the post did not; the answer is an error saying so.
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let mark = pane.mark();
    let clicking = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "submit", "{asked}");
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    let clicked = clicking.await.unwrap();
    let (is_error, text) = answer_telling(&agent, clicked, "the person declined").await;
    assert!(text.contains("the person declined"), "{text}");
    assert!(is_error, "a declined post answered as a success: {text}");
    assert_eq!(
        received(&pages, "POST /submitted"),
        0,
        "{:?}",
        pages.requests()
    );
    // Told once: the next answer is a plain success.
    let (is_error, text) = agent.act_text("page_info", json!({})).await;
    assert!(!is_error && !text.contains("declined"), "{text}");

    // Control: allowed, the same click is no error and the post arrives.
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let mark = pane.mark();
    let clicking = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
    let (is_error, text) = clicking.await.unwrap();
    assert!(!is_error, "{text}");
    eventually("the allowed post", Duration::from_secs(10), || async {
        (received(&pages, "POST /submitted") == 1).then_some(())
    })
    .await;
    let (is_error, text) = agent.act_text("page_info", json!({})).await;
    assert!(!is_error, "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn always_is_kept_by_origin_and_each_act_it_allows_is_on_the_timeline() {
    let pages = PageServer::area("approvals").await;
    // The same host on another port: another origin.
    let other = PageServer::area("approvals").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"confirm": ["submit"]})).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon, CHANNEL).await;

    // "Always" for the first origin.
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let mark = pane.mark();
    let clicking = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    pane.send(
        json!({"type": "approval_answer", "id": asked["id"], "allow": true, "remember": "site"}),
    );
    let closed = pane.next_of("approval_closed", mark).await;
    assert_eq!(closed["outcome"], "allowed_on_site", "{closed}");
    clicking.await.unwrap();

    // The same origin again: not asked, the post goes, and the timeline says why.
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let mark = pane.mark();
    let (is_error, text) = click(&agent).await.unwrap();
    assert!(!is_error, "{text}");
    eventually("both posts", Duration::from_secs(10), || async {
        (received(&pages, "POST /submitted") == 2).then_some(())
    })
    .await;
    assert!(
        pane.message_within(Duration::from_millis(500), mark, |m| m["type"]
            == "approval")
            .await
            .is_none(),
        "asked again on a remembered origin"
    );
    // Another port of the same host is another origin: asked again.
    agent
        .act_ok("navigate", json!({"url": other.url("/form.html")}))
        .await;
    let mark = pane.mark();
    let clicking = click(&agent);
    let asked = pane.next_of("approval", mark).await;
    assert!(
        asked["url"]
            .as_str()
            .unwrap()
            .contains(&other.port().to_string()),
        "{asked}"
    );
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    clicking.await.unwrap();
    assert_eq!(
        received(&other, "POST /submitted"),
        0,
        "{:?}",
        other.requests()
    );

    // The act the remembered origin let through is on the timeline, naming the origin.
    let remembered = eventually("a remembered event", Duration::from_secs(10), || async {
        let (_, events) = daemon.timeline_of(CHANNEL, "approval").await;
        events.into_iter().find(|e| e["action"] == "remembered")
    })
    .await;
    let summary = remembered["summary"].as_str().unwrap();
    assert!(
        summary.contains("by remembered") && summary.contains(&format!(":{}", pages.port())),
        "{remembered}"
    );
}

/// Posts `message` to the page `target` from outside (no agent call): what sets off a
/// listener the page or the agent left there.
async fn message_from_outside(probe: &Probe, target: &str, message: &str) {
    probe
        .eval(target, &format!("postMessage({message:?}, '*'); 1"))
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_the_agents_script_left_behind_is_held_after_its_calls_end() {
    let pages = PageServer::area("approvals").await;
    // No settling time after a call (`agents.act_settle_ms`): once a call has answered,
    // only the scripted document can make a post the agent's.
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"agents": {"act_settle_ms": 0}}),
        ..DaemonOptions::default()
    })
    .await;
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"confirm": ["submit"]})).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon, CHANNEL).await;
    let probe = Probe::connect(&daemon.profile_dir(CHANNEL)).await;
    let page = pages.url("/on-message.html");

    // Control: in a page the agent never scripted, the page's own post after the agent's
    // calls is not asked about, and the outside trigger does set it off.
    agent.act_ok("navigate", json!({"url": page})).await;
    let tab = target_showing(&probe, "/on-message.html").await;
    let mark = pane.mark();
    message_from_outside(&probe, &tab, "page").await;
    eventually("the page's own post", Duration::from_secs(10), || async {
        (received(&pages, "POST /submitted?by=message") == 1).then_some(())
    })
    .await;
    assert!(
        pane.message_within(Duration::from_millis(200), mark, |m| m["type"]
            == "approval")
            .await
            .is_none(),
        "the page's own post was asked about"
    );

    // The agent's script leaves a listener that posts later: held, and declined it never
    // leaves.
    agent.act_ok("navigate", json!({"url": page})).await;
    agent
        .act_ok(
            "evaluate",
            json!({"expression": "addEventListener('message', (e) => { if (e.data === 'agent') document.forms[0].requestSubmit(); }); 1"}),
        )
        .await;
    let tab = target_showing(&probe, "/on-message.html").await;
    let mark = pane.mark();
    message_from_outside(&probe, &tab, "agent").await;
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "submit", "{asked}");
    assert!(
        asked["detail"].as_str().unwrap().contains("ran script in"),
        "{asked}"
    );
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    pane.next_of("approval_closed", mark).await;
    assert_eq!(
        received(&pages, "POST /submitted?by=message"),
        1,
        "{:?}",
        pages.requests()
    );
    let (is_error, told) = agent.act_text("page_info", json!({})).await;
    assert!(is_error && told.contains("the person declined"), "{told}");
}

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

/// Asks for an `evaluate` in the agent's tab, has the person answer `answer`; the
/// `approval_closed` message.
async fn evaluate_answered(
    agent: &Caller,
    pane: &porthole_tests::pane::Pane,
    answer: serde_json::Value,
) -> serde_json::Value {
    let mark = pane.mark();
    let asking = {
        let agent = agent.clone();
        tokio::spawn(async move { agent.act_text("evaluate", json!({"expression": "1"})).await })
    };
    let asked = pane.next_of("approval", mark).await;
    let mut answer = answer;
    answer["type"] = json!("approval_answer");
    answer["id"] = asked["id"].clone();
    pane.send(answer);
    let closed = pane.next_of("approval_closed", mark).await;
    let (is_error, text) = asking.await.unwrap();
    assert!(!is_error, "{text}");
    closed
}

#[tokio::test(flavor = "multi_thread")]
async fn always_on_an_opaque_origin_allows_once_and_says_so() {
    let pages = PageServer::area("approvals").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"confirm": ["evaluate"]})).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon, CHANNEL).await;

    // The agent's fresh tab shows about:blank: "always" there is kept nowhere.
    agent.act_ok("new_tab", json!({"url": "about:blank"})).await;
    let closed = evaluate_answered(&agent, &pane, json!({"allow": true, "remember": "site"})).await;
    assert_eq!(closed["outcome"], "allowed", "{closed}");
    let closed = evaluate_answered(&agent, &pane, json!({"allow": true})).await;
    assert_eq!(closed["outcome"], "allowed", "asked again: {closed}");

    // Control: on a real origin the same answer is kept ("allowed_on_site").
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let closed = evaluate_answered(&agent, &pane, json!({"allow": true, "remember": "site"})).await;
    assert_eq!(closed["outcome"], "allowed_on_site", "{closed}");
}
