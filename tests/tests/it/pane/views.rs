//! Each pane watches a tab of its own (DESIGN.md §12, "Tabs per agent"): its switch, input,
//! navigation, `tabs`/`page_info` messages and frames are about that tab; "follow agents" is
//! per pane; a pane's view never moves an agent.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::{data_url, decode_blocks, page_with, PageServer};
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

/// Whether a JPEG frame shows the animated page's red box.
fn has_red(jpeg: &[u8]) -> bool {
    let Ok(image) = image::load_from_memory_with_format(jpeg, image::ImageFormat::Jpeg) else {
        return false;
    };
    image
        .to_rgb8()
        .pixels()
        .any(|p| p.0[0] > 150 && p.0[1] < 90 && p.0[2] < 90)
}

/// The `active_target_id` of the last `tabs` message a pane got.
fn last_active(pane: &Pane) -> Value {
    let received = pane.received.lock().unwrap();
    received
        .messages
        .iter()
        .rev()
        .find(|m| m["type"] == "tabs")
        .map(|m| m["active_target_id"].clone())
        .unwrap_or(Value::Null)
}

/// Messages of `kind` a pane got after `mark`.
fn messages_since(pane: &Pane, mark: usize, kind: &str) -> Vec<Value> {
    let received = pane.received.lock().unwrap();
    received.messages[mark..]
        .iter()
        .filter(|m| m["type"] == kind)
        .cloned()
        .collect()
}

#[tokio::test]
async fn two_panes_watch_two_tabs_with_their_own_frames_input_and_page_info() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let a = Pane::connect(&daemon.addr, &daemon.token).await;
    let b = Pane::connect(&daemon.addr, &daemon.token).await;
    a.start("views").await;
    b.start("views").await;
    let first = last_active(&b);
    assert!(first.is_string(), "b starts on the channel's tab: {first}");
    a.watch().await;
    b.watch().await;

    // A opens a tab with the clock page; B stays where it was.
    let (mark_a, mark_b) = (a.mark(), b.mark());
    a.send(json!({"type": "new_tab", "url": pages.url("/clock")}));
    let switched = a.next_of("tab_switched", mark_a).await;
    let clock_tab = switched["target_id"].clone();
    assert_ne!(clock_tab, first);
    a.message_where("a's page_info of the clock", mark_a, |m| {
        m["type"] == "page_info" && m["title"] == "Clock" && m["target_id"] == clock_tab
    })
    .await;
    b.message_where("b's tab list with the new tab", mark_b, |m| {
        m["type"] == "tabs" && m["tabs"].as_array().is_some_and(|t| t.len() == 2)
    })
    .await;
    assert_eq!(last_active(&b), first, "b still watches its tab");
    assert_eq!(last_active(&a), clock_tab);

    // B drives its own tab: a key pressed there reaches B's page, not A's clock.
    let mark_b = b.mark();
    let mark_b_own = mark_b;
    b.send(json!({"type": "navigate", "url": pages.url("/key-title")}));
    b.message_where("b's page loaded", mark_b, |m| {
        m["type"] == "page_info" && m["title"] == "no key"
    })
    .await;
    let mark_b = b.mark();
    b.key("q", "KeyQ", 0);
    // The title the page set from script reaches B's tab list (no load event tells of it).
    b.message_where("the key's title in b's list", mark_b, |m| {
        m["type"] == "tabs"
            && m["tabs"].as_array().is_some_and(|t| {
                t.iter()
                    .any(|t| t["title"] == "key q" && t["target_id"] == first)
            })
    })
    .await;
    // Read back independently of the daemon: the key reached B's tab, not A's.
    let probe = Probe::connect(&daemon.profile_dir("views")).await;
    let first_id = first.as_str().unwrap();
    probe
        .eval_until(first_id, "document.title", json!("key q"))
        .await;
    assert_eq!(
        probe
            .eval(clock_tab.as_str().unwrap(), "document.title")
            .await,
        json!("Clock")
    );
    // Each pane heard the page_info of its own tab only.
    assert!(
        messages_since(&a, mark_a, "page_info")
            .iter()
            .all(|m| m["target_id"] == clock_tab),
        "a got another tab's page_info"
    );
    // Over a window that holds B's own page_info ("no key"), so the check is never vacuous.
    let b_infos = messages_since(&b, mark_b_own, "page_info");
    assert!(!b_infos.is_empty(), "b heard its own page_info");
    assert!(
        b_infos.iter().all(|m| m["target_id"] == first),
        "b got another tab's page_info"
    );
    assert!(messages_since(&b, 0, "tab_switched").is_empty());

    // Both tabs stream at once, each pane its own: A's frames carry the clock (grey blocks),
    // B's the animated page's red box.
    let fa = a.frame_count();
    let clock_frame = a.frames_at_least(fa + 5).await;
    assert!(decode_blocks(&clock_frame).is_some(), "a sees the clock");
    assert!(!has_red(&clock_frame), "a's frame shows b's page");
    b.send(json!({"type": "navigate", "url": pages.url("/animated")}));
    b.wait(
        "a red frame in b",
        std::time::Duration::from_secs(20),
        |r| r.frames.last().filter(|f| has_red(f)).map(drop),
    )
    .await;
    let (fa, fb) = (a.frame_count(), b.frame_count());
    let (from_a, from_b) = tokio::join!(a.frames_at_least(fa + 5), b.frames_at_least(fb + 5));
    assert!(!has_red(&from_a) && decode_blocks(&from_a).is_some());
    assert!(has_red(&from_b), "b's frames are its own tab's");

    // A closes its tab: A falls back to a remaining tab; B never moves.
    let mark_a = a.mark();
    a.send(json!({"type": "close_tab", "target_id": clock_tab}));
    let back = a.next_of("tab_switched", mark_a).await;
    assert_eq!(back["target_id"], first);
    assert_eq!(last_active(&b), first);
}

#[tokio::test]
async fn follow_agents_is_per_pane_and_a_pane_never_moves_an_agent() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let following = Pane::connect(&daemon.addr, &daemon.token).await;
    let still = Pane::connect(&daemon.addr, &daemon.token).await;
    following.start("follow").await;
    still.start("follow").await;
    let human_tab = last_active(&still);
    still.send(json!({"type": "follow_agents", "on": false}));
    let (agent_id, token) = daemon.add_agent("follow", "walker", &[]).await;
    let agent = daemon.caller(&token);
    let act = |tool: &'static str, args: Value| {
        let agent = &agent;
        async move { agent.act_ok(tool, args).await.to_string() }
    };

    let (mark_f, mark_s) = (following.mark(), still.mark());
    act("navigate", json!({"url": pages.url("/second")})).await;
    let tabs = following
        .message_where("the agent's tab in the list", mark_f, |m| {
            m["type"] == "tabs"
                && m["tabs"]
                    .as_array()
                    .is_some_and(|t| t.iter().any(|t| t["owner"] == agent_id.as_str()))
        })
        .await;
    let agent_tab = tabs["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["owner"] == agent_id.as_str())
        .unwrap()["target_id"]
        .clone();
    // The following pane moved to where the agent acts; the other stayed.
    following
        .message_where("the follower moved", mark_f, |m| {
            m["type"] == "tab_switched" && m["target_id"] == agent_tab
        })
        .await;
    let mark = following.mark();
    act("page_info", json!({})).await;
    following.next_of("agent_activity", mark).await;
    assert!(messages_since(&still, mark_s, "tab_switched").is_empty());
    assert_eq!(last_active(&still), human_tab);

    // A pane switching away (and navigating its tab) does not move the agent.
    let mark_f = following.mark();
    following.send(json!({"type": "follow_agents", "on": false}));
    following.send(json!({"type": "switch_tab", "target_id": human_tab}));
    following.next_of("tab_switched", mark_f).await;
    following.send(json!({"type": "navigate", "url": pages.url("/input")}));
    following
        .message_where("the person's tab navigated", mark_f, |m| {
            m["type"] == "page_info" && m["target_id"] == human_tab
        })
        .await;
    let mark_act = following.mark();
    let info = act("page_info", json!({})).await;
    assert!(
        info.contains("/second"),
        "the agent is still on its page: {info}"
    );
    // The agent's activity has reached the pane before the view is checked.
    following
        .message_where("the agent's activity ended", mark_act, |m| {
            m["type"] == "agent_activity" && m["phase"] == "end"
        })
        .await;
    // With following off, the agent's activity leaves the view alone.
    assert!(messages_since(&following, mark_f, "tab_switched")
        .iter()
        .all(|m| m["target_id"] == human_tab));
}

/// The size of a JPEG frame.
fn size_of(jpeg: &[u8]) -> Option<(u32, u32)> {
    let image = image::load_from_memory_with_format(jpeg, image::ImageFormat::Jpeg).ok()?;
    Some((image.width(), image.height()))
}

#[tokio::test]
async fn each_pane_sees_its_tab_at_its_own_size() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let a = Pane::connect(&daemon.addr, &daemon.token).await;
    let b = Pane::connect(&daemon.addr, &daemon.token).await;
    a.start("sizes").await;
    b.start("sizes").await;
    let mark = a.mark();
    a.send(json!({"type": "navigate", "url": pages.url("/clock")}));
    a.message_where("the clock", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Clock"
    })
    .await;
    a.send(json!({"type": "screencast", "width": 640, "height": 480}));
    let wait = std::time::Duration::from_secs(20);
    a.wait("a 640x480 frame in a", wait, |r| {
        r.frames
            .last()
            .filter(|f| size_of(f) == Some((640, 480)))
            .map(drop)
    })
    .await;

    // B opens a tab of its own and asks for a smaller size there.
    let mark = b.mark();
    b.send(json!({"type": "new_tab", "url": pages.url("/animated")}));
    b.next_of("tab_switched", mark).await;
    b.send(json!({"type": "screencast", "width": 400, "height": 300}));
    b.wait("a 400x300 frame in b", wait, |r| {
        r.frames
            .last()
            .filter(|f| size_of(f) == Some((400, 300)))
            .map(drop)
    })
    .await;
    // A's frames keep A's size: B's size is B's tab's, not the channel's.
    for _ in 0..5 {
        let frame = a.frames_at_least(a.frame_count() + 1).await;
        assert_eq!(size_of(&frame), Some((640, 480)));
    }
}

#[tokio::test]
async fn a_link_that_opens_a_tab_takes_the_pane_watching_its_page_there() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let a = Pane::connect(&daemon.addr, &daemon.token).await;
    let b = Pane::connect(&daemon.addr, &daemon.token).await;
    a.start("popups").await;
    b.start("popups").await;
    let opener = last_active(&a);
    // B looks at a tab of its own.
    let mark_b = b.mark();
    b.send(json!({"type": "new_tab"}));
    let b_tab = b.next_of("tab_switched", mark_b).await["target_id"].clone();
    // A's page is one big link that opens a new tab.
    let page = data_url(&page_with(
        "pane_views/opener.html",
        &[("HREF", &pages.url("/second"))],
    ));
    let mark = a.mark();
    a.send(json!({"type": "navigate", "url": page}));
    a.message_where("the opener page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Opener"
    })
    .await;
    let mark = a.mark();
    let mark_b = b.mark();
    a.click((200.0, 200.0));
    let switched = a.next_of("tab_switched", mark).await;
    let popup = switched["target_id"].clone();
    assert_ne!(popup, opener);
    assert_ne!(popup, b_tab);
    a.message_where("the new tab's page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Second page" && m["target_id"] == popup
    })
    .await;
    let created = a.next_of("tab_created", mark).await;
    assert_eq!(created["opener_id"], opener, "{created}");
    // B, on another tab, stays there.
    b.message_where("b's list with the new tab", mark_b, |m| {
        m["type"] == "tabs"
            && m["tabs"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t["target_id"] == popup))
    })
    .await;
    assert!(messages_since(&b, mark_b, "tab_switched").is_empty());
    assert_eq!(last_active(&b), b_tab);
}
