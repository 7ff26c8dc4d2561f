//! The network layer (issue 52, DESIGN.md §20a; docs/measured-network.md): a refused site gets
//! no request of any kind from an agent's page (images, scripts, stylesheets, fonts, `fetch`,
//! XHR GET and POST, beacons, `EventSource`, prefetch), a blank popup's frames written before
//! Porthole tracks the popup are the agent's (finding 2), a shared worker's post is held while
//! the agent is held to `submit` (finding 3a), a service worker the person's tab registered
//! never answers an agent's page load (finding 3b), a frame to a new site asks (finding 8) and
//! an OPTIONS with a body is a `submit` (finding 11). Each negative check has its control: the same
//! page, in a channel whose agent has no rules, reaches the site. WebSocket handshakes are not
//! here: Chromium 156 never pauses them (documented in docs/security.md).

use std::time::Duration;

use porthole_tests::action::Caller;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::eventually;
use porthole_tests::pages::PageServer;
use serde_json::{json, Value};

use super::{agent_with, pane_on};

const CHANNEL: &str = "network";
/// Where the controls run: an agent with no rules, alone in its channel (a channel's rules
/// also refuse requests no tab can be told for).
const OPEN_CHANNEL: &str = "network-open";

/// The kinds of request `subresources.html` makes (a beacon has no outcome to wait for).
const KINDS: [&str; 9] = [
    "image",
    "script",
    "stylesheet",
    "prefetch",
    "fetch",
    "xhr-get",
    "xhr-post",
    "eventsource",
    "font",
];

/// The requests `pages` received that contain `needle`.
fn received(pages: &PageServer, needle: &str) -> Vec<String> {
    pages
        .requests()
        .into_iter()
        .filter(|r| r.contains(needle))
        .collect()
}

/// Waits until `pages` received a request containing `needle`.
async fn arrives(pages: &PageServer, needle: &str) {
    eventually(
        &format!("a request with {needle}"),
        Duration::from_secs(15),
        || async { (!received(pages, needle).is_empty()).then_some(()) },
    )
    .await;
}

/// Clicks the middle of the page in a task of its own (the call may wait for the person).
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

/// An agent on `channel` with `fields`, as a caller.
async fn agent_on(daemon: &TestDaemon, channel: &str, fields: Value) -> Caller {
    let (_, token) = agent_with(daemon, channel, fields).await;
    daemon.caller(&token)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_site_gets_no_request_of_any_kind_from_an_agents_page() {
    let home = PageServer::area("consent_net").await;
    let refused = PageServer::start().await;
    home.set("TO", &refused.base());
    let daemon = TestDaemon::start().await;
    let page = home.url("/subresources.html");

    // Control: an agent with no rules, the same page: every kind reaches the site.
    let open = agent_on(&daemon, OPEN_CHANNEL, json!({})).await;
    open.act_ok("navigate", json!({ "url": page })).await;
    for kind in KINDS.into_iter().chain(["beacon"]) {
        arrives(&refused, &format!("by={kind}")).await;
    }
    let reached = refused.requests().len();

    let held = agent_on(
        &daemon,
        CHANNEL,
        json!({"sites": {"deny": [refused.base()]}}),
    )
    .await;
    let first = home.requests().len();
    let (is_error, loaded) = held.act_text("navigate", json!({ "url": page })).await;
    assert!(!is_error, "{loaded}");
    // Every kind was tried (the page reports each one's outcome), and each one failed.
    for kind in KINDS {
        eventually(
            &format!("the outcome of {kind}"),
            Duration::from_secs(15),
            || async {
                home.requests()[first..]
                    .iter()
                    .find(|r| r.contains(&format!("/outcome?by={kind}&")))
                    .cloned()
            },
        )
        .await;
    }
    let outcomes: Vec<String> = home.requests()[first..]
        .iter()
        .filter(|r| r.contains("/outcome"))
        .cloned()
        .collect();
    assert!(
        outcomes
            .iter()
            .all(|r| r.contains("ok=0") || r.contains("by=font")),
        "a request to the refused site succeeded: {outcomes:?}"
    );
    assert_eq!(
        refused.requests()[reached..],
        [] as [String; 0],
        "the refused site was asked"
    );
    // Told once per site, not once per request (on the navigation's answer or the next).
    let (_, next) = held.act_text("page_info", json!({})).await;
    let text = format!("{loaded}\n{next}");
    assert_eq!(
        text.matches("Porthole refused requests of the page")
            .count(),
        1,
        "{text}"
    );
    assert!(text.contains(&refused.base()), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_blank_popups_written_frames_are_the_agents() {
    let home = PageServer::area("consent_net").await;
    let refused = PageServer::start().await;
    home.set("TO", &refused.base());
    let daemon = TestDaemon::start().await;
    let page = home.url("/popup-frames.html");

    // Control: an agent with no rules: the written frame reaches the site, twice, and the
    // frame's form posts.
    let open = agent_on(&daemon, OPEN_CHANNEL, json!({})).await;
    open.act_ok("navigate", json!({ "url": page })).await;
    click(&open).await.unwrap();
    arrives(&refused, "GET /first").await;
    eventually("the popup tracked", Duration::from_secs(10), || async {
        let (_, tabs) = open.act_text("list_tabs", json!({})).await;
        tabs.contains("[2]").then_some(())
    })
    .await;
    open.act_ok("switch_tab", json!({"tab": 1})).await;
    click(&open).await.unwrap();
    arrives(&refused, "GET /later").await;
    arrives(&home, "POST /posted").await;
    let reached = refused.requests().len();
    let posted = received(&home, "POST /posted").len();

    let held = agent_on(
        &daemon,
        CHANNEL,
        json!({"sites": {"deny": [refused.base()]}, "confirm": ["submit"]}),
    )
    .await;
    let pane = pane_on(&daemon, CHANNEL).await;
    held.act_ok("navigate", json!({ "url": page })).await;
    click(&held).await.unwrap();
    eventually("the popup tracked", Duration::from_secs(10), || async {
        let (_, tabs) = held.act_text("list_tabs", json!({})).await;
        tabs.contains("[2]").then_some(())
    })
    .await;
    held.act_ok("switch_tab", json!({"tab": 1})).await;
    // The second click sends the frame to the refused site and posts its form: the post is
    // held for the person (a card), and declined it never leaves.
    let mark = pane.mark();
    let clicking = click(&held);
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "submit", "{asked}");
    assert!(
        asked["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("/posted"),
        "{asked}"
    );
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    // Told as an error: by the click when the post left during it, else by the next call
    // (a post that leaves after the click's answer is held all the same).
    let (is_error, text) = match clicking.await.unwrap() {
        (true, text) => (true, text),
        (false, _) => held.act_text("list_tabs", json!({})).await,
    };
    assert!(is_error, "a declined post answered as a success: {text}");
    assert!(text.contains("declined"), "{text}");
    assert_eq!(received(&home, "POST /posted").len(), posted);
    assert_eq!(
        refused.requests()[reached..],
        [] as [String; 0],
        "the refused site was asked"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_shared_workers_post_is_held_for_an_agent_held_to_submit() {
    let home = PageServer::area("consent_net").await;
    let daemon = TestDaemon::start().await;
    let page = home.url("/shared-worker.html");

    // Control: an agent with no rules: the worker's post goes out.
    let open = agent_on(&daemon, OPEN_CHANNEL, json!({})).await;
    open.act_ok("navigate", json!({ "url": page })).await;
    click(&open).await.unwrap();
    arrives(&home, "POST /collect").await;
    arrives(&home, "/outcome?by=shared&ok=1").await;

    let held = agent_on(&daemon, CHANNEL, json!({"confirm": ["submit"]})).await;
    let _pane = pane_on(&daemon, CHANNEL).await;
    held.act_ok("navigate", json!({ "url": page })).await;
    click(&held).await.unwrap();
    arrives(&home, "/outcome?by=shared&ok=0").await;
    assert_eq!(
        received(&home, "POST /collect").len(),
        1,
        "the shared worker posted for a held agent: {:?}",
        home.requests()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_frame_to_a_new_site_asks_first() {
    let home = PageServer::area("consent_net").await;
    let other = PageServer::start().await;
    let daemon = TestDaemon::start().await;
    let agent = agent_on(&daemon, CHANNEL, json!({"confirm": ["new_site"]})).await;
    let pane = pane_on(&daemon, CHANNEL).await;

    // The first page is a new site too: allowed.
    let mark = pane.mark();
    let navigating = {
        let agent = agent.clone();
        let url = home.url("/shared-worker.html");
        tokio::spawn(async move { agent.act_text("navigate", json!({ "url": url })).await })
    };
    let asked = pane.next_of("approval", mark).await;
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
    let (is_error, text) = navigating.await.unwrap();
    assert!(!is_error, "{text}");

    let frame = |n: u32| {
        format!(
            "document.body.insertAdjacentHTML('beforeend', '<iframe src=\"{}/framed?n={n}\"></iframe>'); 1",
            other.base()
        )
    };
    // Declined: the frame's site gets nothing, and the script's answer says what was held.
    let framing = |n: u32| {
        let agent = agent.clone();
        let args = json!({ "expression": frame(n) });
        tokio::spawn(async move { agent.act_text("evaluate", args).await })
    };
    let mark = pane.mark();
    let evaluating = framing(1);
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "new_site", "{asked}");
    assert!(
        asked["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("in a frame"),
        "{asked}"
    );
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": false}));
    // The script's answer, or the next one when the script answered before the frame's load
    // was decided, says what was held, as an error.
    let mut answer = evaluating.await.unwrap();
    if !answer.1.contains("the person declined") {
        answer = agent.act_text("page_info", json!({})).await;
    }
    let (is_error, text) = answer;
    assert!(is_error && text.contains("the person declined"), "{text}");
    // Control: allowed, the same frame loads (so the site would have logged the first).
    let mark = pane.mark();
    let evaluating = framing(2);
    let asked = pane.next_of("approval", mark).await;
    assert_eq!(asked["kind"], "new_site", "{asked}");
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": true}));
    let (is_error, text) = evaluating.await.unwrap();
    assert!(!is_error, "{text}");
    arrives(&other, "/framed?n=2").await;
    assert!(
        received(&other, "/framed?n=1").is_empty(),
        "a declined frame loaded: {:?}",
        other.requests()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_options_request_with_a_body_is_a_submit() {
    let home = PageServer::area("consent_net").await;
    let daemon = TestDaemon::start().await;
    let agent = agent_on(&daemon, CHANNEL, json!({"confirm": ["submit"]})).await;
    let pane = pane_on(&daemon, CHANNEL).await;
    agent
        .act_ok("navigate", json!({"url": home.url("/shared-worker.html")}))
        .await;
    let send = |n: u32| {
        json!({ "expression": format!(
            "fetch('/opt?n={n}', {{method: 'OPTIONS', body: 'secret'}}).then(() => 1, () => 0)"
        )})
    };
    for allow in [false, true] {
        let n = u32::from(allow);
        let mark = pane.mark();
        let sending = {
            let agent = agent.clone();
            let args = send(n);
            tokio::spawn(async move { agent.act_text("evaluate", args).await })
        };
        let asked = pane.next_of("approval", mark).await;
        assert_eq!(asked["kind"], "submit", "{asked}");
        assert!(
            asked["detail"]
                .as_str()
                .unwrap_or_default()
                .starts_with("OPTIONS"),
            "{asked}"
        );
        pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": allow}));
        sending.await.unwrap();
    }
    // Control: allowed, it arrives (so the declined one would have been seen).
    arrives(&home, "OPTIONS /opt?n=1").await;
    assert!(
        received(&home, "OPTIONS /opt?n=0").is_empty(),
        "{:?}",
        home.requests()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_service_worker_never_answers_an_agents_page_load() {
    let home = PageServer::area("consent_net").await;
    let refused = PageServer::area("consent_net").await;
    let daemon = TestDaemon::start().await;
    // The person's tab registers a service worker on the site before any agent has rules.
    let person = daemon.owner_on(CHANNEL);
    person
        .act_ok("navigate", json!({"url": refused.url("/sw.html")}))
        .await;
    let text_of = |caller: &Caller| {
        let caller = caller.clone();
        async move {
            let script = json!({"expression": "document.title + ' ' + document.body.innerText"});
            caller.act_text("evaluate", script).await.1
        }
    };
    eventually(
        "the worker controls the site",
        Duration::from_secs(15),
        || async { text_of(&person).await.contains("ready").then_some(()) },
    )
    .await;
    // Control: in the person's tab the worker answers a page load of its site itself.
    person
        .act_ok("navigate", json!({"url": refused.url("/x?by=person")}))
        .await;
    let shown = text_of(&person).await;
    assert!(shown.contains("from the service worker"), "{shown}");

    let agent = agent_on(
        &daemon,
        CHANNEL,
        json!({"sites": {"deny": [refused.base()]}}),
    )
    .await;
    agent
        .act_ok("navigate", json!({"url": home.url("/shared-worker.html")}))
        .await;
    let leave = format!("location.href = '{}/x?by=agent'; 1", refused.base());
    let (_, mut told) = agent
        .act_text("evaluate", json!({ "expression": leave }))
        .await;
    if !told.contains("Porthole refused a page load") {
        told = eventually("the refusal told", Duration::from_secs(10), || async {
            let (_, text) = agent.act_text("page_info", json!({})).await;
            text.contains("Porthole refused a page load")
                .then_some(text)
        })
        .await;
    }
    assert!(told.contains("by=agent"), "{told}");
    let shown = text_of(&agent).await;
    assert!(
        !shown.contains("from the service worker"),
        "the worker answered the agent's page load: {shown}"
    );
    assert!(received(&refused, "by=agent").is_empty());
}
