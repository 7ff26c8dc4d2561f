//! What a card shows the person (DESIGN.md §20a): a held POST's body (its start, with its whole
//! size), and an agent's script whole, never cut; a script too long to show whole is refused
//! without asking.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::json;

use super::{agent_confirming, CHANNEL};

#[tokio::test(flavor = "multi_thread")]
async fn a_card_shows_a_posts_body_and_the_whole_script() {
    let pages = PageServer::area("approvals").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_confirming(&daemon, json!(["submit", "evaluate"])).await;
    let agent = daemon.caller(&token);
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;

    // A form post: the card has what it sends.
    let mark = pane.mark();
    let clicking = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text(
                    "computer",
                    json!({"action": "left_click", "coordinate": [200, 200]}),
                )
                .await
        })
    };
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "submit", "{asked}");
    assert_eq!(asked["body"], "item=tea", "{asked}");
    assert_eq!(asked["body_size"], 8, "{asked}");
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    clicking.await.unwrap();

    // A script past the old 2000-character cut is shown whole, its end included.
    let long = format!(
        "document.title /*{}*/ + 'tail-marker-51'",
        "\n".repeat(2100)
    );
    let mark = pane.mark();
    let running = {
        let agent = agent.clone();
        let long = long.clone();
        tokio::spawn(async move {
            agent
                .act_text("evaluate", json!({"expression": long}))
                .await
        })
    };
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["detail"], long.as_str(), "the script was cut");
    assert!(asked.get("body").is_none(), "{asked}");
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    let (is_error, _) = running.await.unwrap();
    assert!(is_error);

    // One too long to show whole is refused at once, and the person is not asked.
    let mark = pane.mark();
    let huge = format!("1 /*{}*/", "x".repeat(100_001));
    let (is_error, text) = agent
        .act_text("evaluate", json!({"expression": huge}))
        .await;
    assert!(is_error && text.contains("did not run"), "{text}");
    assert!(text.contains("100000"), "{text}");
    // A short one after it is asked about (the pane would have seen the long one's card).
    let running = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text("evaluate", json!({"expression": "'after'"}))
                .await
        })
    };
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(
        asked["detail"], "'after'",
        "the long script was asked about"
    );
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
    let (is_error, text) = running.await.unwrap();
    assert!(!is_error && text.contains("after"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_script_allowed_for_one_page_never_runs_in_the_next() {
    let pages = PageServer::area("approvals").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_confirming(&daemon, json!(["evaluate"])).await;
    let agent = daemon.caller(&token);
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    agent
        .act_ok("navigate", json!({"url": pages.url("/form.html")}))
        .await;
    let evaluate = || {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text(
                    "evaluate",
                    json!({"expression": "'ran on ' + document.title"}),
                )
                .await
        })
    };

    // The card names the order form; while the person reads it, the page goes elsewhere.
    let mark = pane.mark();
    let running = evaluate();
    let asked = pane.next_of("approval", mark).await;
    assert!(
        asked["url"].as_str().unwrap().ends_with("/form.html"),
        "{asked}"
    );
    let target = asked["target_id"].as_str().unwrap().to_string();
    let probe = porthole_tests::devtools_port::Probe::connect(&daemon.profile_dir(CHANNEL)).await;
    probe
        .eval(&target, "location.href = location.origin + '/link.html'")
        .await;
    probe
        .eval_until(&target, "document.title", json!("Link"))
        .await;
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
    let (is_error, text) = running.await.unwrap();
    assert!(is_error, "the script ran in the next page: {text}");
    assert!(
        text.contains("did not run") && text.contains("/form.html"),
        "{text}"
    );

    // The control: allowed for the page the tab still shows, it runs.
    let mark = pane.mark();
    let running = evaluate();
    let asked = pane.next_of("approval", mark).await;
    assert!(
        asked["url"].as_str().unwrap().ends_with("/link.html"),
        "{asked}"
    );
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
    let (is_error, text) = running.await.unwrap();
    assert!(!is_error && text.contains("ran on Link"), "{text}");
}
