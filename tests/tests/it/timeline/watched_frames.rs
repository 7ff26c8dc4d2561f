//! Frames of a watched tab while it changes (DESIGN.md §17, issue 19): taken from the pane's
//! screencast at most one a second per channel, as `frame` events with distinct JPEGs; a still
//! watched page and a changing page nobody watches add none.

use std::time::Duration;

use porthole_tests::daemon::TestDaemon;
use porthole_tests::eventually;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

use super::{events, frame, owner_act};

/// The counter page (`tests/pages/timeline/counter.html`) on the one page server.
async fn serve_counter() -> String {
    PageServer::area("timeline").await.url("/counter")
}

/// Navigates the pane's tab and waits for a title matching `check`; returns it.
async fn pane_goes(pane: &Pane, url: &str, what: &str, check: impl Fn(&str) -> bool) -> String {
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": url}));
    let info = pane
        .message_where(what, mark, |m| {
            m["type"] == "page_info" && m["title"].as_str().is_some_and(&check)
        })
        .await;
    info["title"].as_str().unwrap().to_string()
}

/// Makes a tool call and waits until its event is listed: every event queued before it is
/// written by then (the recorder keeps order). Returns the channel's events.
async fn settle(daemon: &TestDaemon, channel: &str) -> Vec<Value> {
    let before = events(daemon, channel)
        .await
        .last()
        .map_or(0, |e| e["seq"].as_u64().unwrap());
    owner_act(daemon, channel, "page_info", json!({})).await;
    eventually(
        "the settling call listed",
        Duration::from_secs(30),
        || async {
            let all = events(daemon, channel).await;
            all.iter()
                .any(|e| {
                    e["kind"] == "tool"
                        && e["tool"] == "page_info"
                        && e["seq"].as_u64().unwrap() > before
                })
                .then_some(all)
        },
    )
    .await
}

fn frames_of(events: &[Value], after_seq: u64) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["kind"] == "frame" && e["seq"].as_u64().unwrap() > after_seq)
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_watched_tab_that_changes_is_kept_once_a_second_and_a_still_or_unwatched_one_not() {
    let counter = serve_counter().await;
    let daemon = TestDaemon::start().await;
    let channel = "tl-frames";
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    pane_goes(&pane, &counter, "the counter page", |t| t == "Counter").await;
    pane.watch().await;

    // Still, watched: two seconds by the page's clock and a few calls add no frame.
    pane_goes(&pane, &format!("{counter}#wait"), "the page's wait", |t| {
        t == "waited"
    })
    .await;
    let still = settle(&daemon, channel).await;
    assert!(
        frames_of(&still, 0).is_empty(),
        "a still page added frames: {:#?}",
        frames_of(&still, 0)
    );
    let before_run = still.last().unwrap()["seq"].as_u64().unwrap();

    // Changing, watched: 15 ticks 200 ms apart.
    let mark = pane.mark();
    let done = pane_goes(&pane, &format!("{counter}#run"), "the count to end", |t| {
        t.starts_with("done ")
    })
    .await;
    let ticking_ms: u64 = done["done ".len()..].parse().unwrap();
    let all = settle(&daemon, channel).await;
    let kept = frames_of(&all, before_run);
    // At most one a second while it changed (and one more after its last change).
    let most = ticking_ms.div_ceil(1000) as usize + 2;
    assert!(
        (2..=most).contains(&kept.len()),
        "{} frames over {ticking_ms} ms of ticking (want 2..={most}): {kept:#?}",
        kept.len()
    );
    let mut jpegs = Vec::new();
    for e in &kept {
        assert_eq!(e["actor"]["kind"], "page", "{e}");
        assert!(e["target_id"].is_string(), "{e}");
        assert!(
            e["url"].as_str().is_some_and(|u| u.contains("/counter")),
            "{e}"
        );
        let (status, jpeg) = frame(&daemon, channel, e["frame_id"].as_str().unwrap()).await;
        assert_eq!(status, 200, "{e}");
        assert!(image::load_from_memory(&jpeg).is_ok(), "{e}");
        assert!(
            !jpegs.contains(&jpeg),
            "two frame events kept the same picture"
        );
        jpegs.push(jpeg);
    }
    // Live to the pane too.
    pane.message_where("a live frame event", mark, |m| {
        m["type"] == "timeline_event" && m["kind"] == "frame"
    })
    .await;

    // Changing, unwatched: a channel no pane watches keeps only its calls' frames.
    let unwatched = "tl-frames-unwatched";
    owner_act(
        &daemon,
        unwatched,
        "navigate",
        json!({"url": format!("{counter}#run")}),
    )
    .await;
    eventually(
        "the unwatched count to end",
        Duration::from_secs(30),
        || async {
            let info = owner_act(&daemon, unwatched, "page_info", json!({})).await;
            info.to_string().contains("done ").then_some(())
        },
    )
    .await;
    let all = settle(&daemon, unwatched).await;
    assert!(
        frames_of(&all, 0).is_empty(),
        "an unwatched tab added frames: {:#?}",
        frames_of(&all, 0)
    );
}
