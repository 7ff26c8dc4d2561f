//! `GET /api/events`: only the owner opens it, and while it is open an agent's approval, or
//! its request for help, waits for a pane that attaches later.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::events::EventStream;
use porthole_tests::pane::Pane;
use serde_json::json;

use super::{agent_confirming, owner_stream, CHANNEL};

/// Request headers, as `EventStream::open` takes them.
type Headers<'a> = &'a [(&'a str, &'a str)];

#[tokio::test(flavor = "multi_thread")]
async fn only_the_owner_opens_the_event_stream() {
    let daemon = TestDaemon::start().await;
    let (_, agent_token) = agent_confirming(&daemon, json!([])).await;
    let owner = format!("Bearer {}", daemon.token);
    let agent = format!("Bearer {agent_token}");
    let refusals: [(Headers, u16, &str); 4] = [
        (&[], 401, "no token"),
        (
            &[("Authorization", "Bearer not-a-token")],
            401,
            "a wrong token",
        ),
        (&[("Authorization", &agent)], 403, "an agent token"),
        (
            &[("Authorization", &owner), ("Origin", "http://evil.example")],
            403,
            "a foreign origin",
        ),
    ];
    for (headers, status, what) in refusals {
        match EventStream::open(&daemon.addr, headers).await {
            Ok(_) => panic!("{what} opened the event stream"),
            Err(refused) => assert_eq!(refused.status, status, "{what}: {refused:?}"),
        }
    }
    // The control: the owner's token, from the daemon's own origin, opens it.
    let own_origin = format!("http://{}", daemon.addr);
    EventStream::open(
        &daemon.addr,
        &[("Authorization", &owner), ("Origin", &own_origin)],
    )
    .await
    .expect("the owner's stream");
    // It is in the API document.
    let (status, doc) = daemon.get("/api/openapi.json").await;
    assert_eq!(status, 200);
    assert!(doc["paths"]["/api/events"]["get"].is_object(), "{doc}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approval_waits_on_the_event_stream_and_a_pane_opened_later_answers() {
    let daemon = TestDaemon::start().await;
    let (agent_id, token) = agent_confirming(&daemon, json!(["evaluate"])).await;
    let agent = daemon.caller(&token);

    // The control: nothing attached and no notifier, so it fails at once as before.
    let (is_error, text) = agent
        .act_text("evaluate", json!({"expression": "6 * 7"}))
        .await;
    assert!(is_error, "{text}");
    assert!(text.contains("nobody is watching"), "{text}");

    // An event stream held open, no pane: the approval goes out on it and waits.
    let stream = owner_stream(&daemon).await;
    let mark = stream.mark();
    let waiting = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text("evaluate", json!({"expression": "6 * 7 /* no pane yet */"}))
                .await
        })
    };
    let asked = stream.next_of("approval", mark).await;
    assert_eq!(asked["type"], "approval", "{asked}");
    assert_eq!(asked["channel_id"], CHANNEL, "{asked}");
    assert_eq!(asked["kind"], "evaluate", "{asked}");
    assert_eq!(asked["agent_id"], agent_id.as_str(), "{asked}");
    assert_eq!(asked["detail"], "6 * 7 /* no pane yet */", "{asked}");
    assert!(
        !waiting.is_finished(),
        "the call did not wait for the person"
    );

    // A pane opened later is shown the open card and answers it; the call goes on.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    let shown = pane.next_of("approval", 0).await;
    assert_eq!(shown["id"], asked["id"], "{shown}");
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
    let (is_error, text) = waiting.await.unwrap();
    assert!(!is_error && text.contains("42"), "{text}");
    let closed = stream.next_of("approval_closed", mark).await;
    assert_eq!(closed["id"], asked["id"], "{closed}");
    assert_eq!(closed["outcome"], "allowed", "{closed}");
    assert_eq!(closed["channel_id"], CHANNEL, "{closed}");
    // An agent's request for help goes out on the stream too, and its end.
    let asking = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text("request_human", json!({"reason": "solve the puzzle"}))
                .await
        })
    };
    let handoff = stream.next_of("handoff", mark).await;
    assert_eq!(handoff["channel_id"], CHANNEL, "{handoff}");
    assert_eq!(handoff["reason"], "solve the puzzle", "{handoff}");
    pane.send(json!({"type": "handoff_done", "id": handoff["id"]}));
    let (is_error, text) = asking.await.unwrap();
    assert!(!is_error, "{text}");
    let ended = stream.next_of("handoff_ended", mark).await;
    assert_eq!(ended["id"], handoff["id"], "{ended}");
    // The pane's own messages that are not the person's business stay off the stream.
    assert!(
        stream
            .all()
            .iter()
            .all(|e| e.name != "tabs" && e.name != "started"),
        "{:?}",
        stream.all()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_for_help_waits_on_the_event_stream_and_a_pane_opened_later_answers() {
    let daemon = TestDaemon::start().await;
    let (agent_id, token) = agent_confirming(&daemon, json!([])).await;
    let agent = daemon.caller(&token);

    // The control: nothing attached and no notifier, so nobody can help and it fails at once.
    let (is_error, text) = agent
        .act_text("request_human", json!({"reason": "nobody to ask"}))
        .await;
    assert!(is_error, "{text}");
    assert!(text.contains("Nobody is watching"), "{text}");

    // An event stream held open, no pane: the request goes out on it and waits.
    let stream = owner_stream(&daemon).await;
    let mark = stream.mark();
    let asking = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text("request_human", json!({"reason": "solve the puzzle"}))
                .await
        })
    };
    let handoff = stream.next_of("handoff", mark).await;
    assert_eq!(handoff["channel_id"], CHANNEL, "{handoff}");
    assert_eq!(handoff["agent_id"], agent_id.as_str(), "{handoff}");
    assert_eq!(handoff["reason"], "solve the puzzle", "{handoff}");
    assert!(
        !asking.is_finished(),
        "the call did not wait for the person"
    );

    // A pane opened later is shown the open request; the person's Done and note answer it.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    let shown = pane.next_of("handoff", 0).await;
    assert_eq!(shown["id"], handoff["id"], "{shown}");
    pane.send(json!({"type": "handoff_done", "id": handoff["id"], "note": "solved it"}));
    let (is_error, text) = asking.await.unwrap();
    assert!(!is_error, "{text}");
    assert!(text.contains("solved it"), "{text}");
}
