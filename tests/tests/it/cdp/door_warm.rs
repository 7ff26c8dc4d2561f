//! The agent tab opened ahead (`browser/tabs/warm.rs`): once a door client has opened a tab and
//! gone quiet, the channel's browser holds a blank tab in a window of its own that nobody sees
//! — no pane's tab list, no `json/list`, no `Target.getTargets` of the client, no attach by its
//! id — and the client's next `createTarget` takes it: the tab it gets is that one, listed as
//! the agent's and laid out as every agent tab is. The positive control is Chrome's own list (a probe on
//! the channel's browser), where the tab opened ahead is.

use std::time::Duration;

use porthole::cdp::CdpConnection;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::{http_request, PageServer};
use porthole_tests::pane::Pane;
use porthole_tests::raw_cdp;
use serde_json::{json, Value};

const CHANNEL: &str = "door-warm";

/// The target id of the `n`th tab opened ahead that the daemon logged (waits up to 20 s).
async fn warm_tab(daemon: &TestDaemon, n: usize) -> String {
    for _ in 0..200 {
        if let Some(line) = daemon.events_logged("warm_tab_ready").get(n) {
            let id = line
                .split("target_id=")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .expect("the ready tab's id");
            return id.trim_matches('"').to_string();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no tab was opened ahead; log:\n{}", daemon.log());
}

/// The viewport of the client's tab `target`, read through a session of its own.
async fn viewport(cdp: &CdpConnection, target: &str) -> String {
    let size = raw_cdp::by_value("innerWidth + 'x' + innerHeight");
    let read = raw_cdp::evaluate_in(cdp, target, size).await;
    read.as_str().unwrap_or_default().to_string()
}

/// The target ids of a list of `targetInfo`s (Chrome's, or the client's `getTargets`).
fn target_ids(infos: &[Value]) -> Vec<String> {
    infos
        .iter()
        .filter_map(|t| t["targetId"].as_str().map(str::to_string))
        .collect()
}

/// The client's `Target.getTargets`, as target ids.
async fn listed(cdp: &CdpConnection) -> Vec<String> {
    let targets = cdp.call("Target.getTargets", json!({})).await.unwrap();
    target_ids(
        targets["targetInfos"]
            .as_array()
            .map_or(&[], |a| a.as_slice()),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_door_clients_next_tab_is_opened_ahead_unseen_and_taken_by_its_next_new_page() {
    let pages = PageServer::area("cdp").await;
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    daemon
        .owner_on(CHANNEL)
        .act("navigate", json!({"url": pages.url("/door.html?person")}))
        .await;
    let (_, token) = daemon.add_agent(CHANNEL, "warm", &[]).await;
    let socket = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
    let cdp = CdpConnection::connect(&socket, Duration::from_secs(10))
        .await
        .expect("the door's socket");

    let first = cdp
        .call("Target.createTarget", json!({"url": "about:blank"}))
        .await
        .expect("a first tab")["targetId"]
        .as_str()
        .expect("its id")
        .to_string();
    let mark = pane.mark();
    // Quiet now: the next tab is opened ahead.
    let warm = warm_tab(&daemon, 0).await;
    assert_ne!(warm, first);
    let probe = Probe::connect(&daemon.profile_dir(CHANNEL)).await;
    let in_chrome = target_ids(&probe.pages().await);
    assert!(in_chrome.contains(&warm), "not in Chrome: {in_chrome:?}");

    // Nobody sees it: no pane message names it, nor the client's lists.
    let told = pane
        .message_within(Duration::from_millis(1500), mark, |m| {
            m.to_string().contains(&warm)
        })
        .await;
    assert!(
        told.is_none(),
        "a pane was told of the tab opened ahead: {told:?}"
    );
    assert_eq!(listed(&cdp).await, vec![first.clone()]);
    let (status, list) = http_request(
        "GET",
        &daemon.addr,
        &format!("/cdp/{token}/json/list"),
        &[],
        None,
    )
    .await;
    assert_eq!(status, 200, "{list}");
    assert!(!list.to_string().contains(&warm), "{list}");
    // Named by its id, it is no tab of the client's.
    let refused = cdp
        .call(
            "Target.attachToTarget",
            json!({"targetId": warm, "flatten": true}),
        )
        .await
        .expect_err("attached to the tab opened ahead");
    assert!(
        refused
            .to_string()
            .contains("No target with given id found"),
        "{refused}"
    );

    // The next new page is that tab: the agent's, in the pane's list, laid out as the first.
    let second = cdp
        .call("Target.createTarget", json!({"url": "about:blank"}))
        .await
        .expect("a second tab")["targetId"]
        .as_str()
        .expect("its id")
        .to_string();
    assert_eq!(second, warm, "the second tab was not the one opened ahead");
    pane.message_where("the taken tab in the pane's list", mark, |m| {
        m["type"] == "tabs" && m.to_string().contains(&warm)
    })
    .await;
    let mut now_listed = listed(&cdp).await;
    now_listed.sort();
    let mut both = vec![first.clone(), second.clone()];
    both.sort();
    assert_eq!(now_listed, both);
    let (first_size, second_size) = (viewport(&cdp, &first).await, viewport(&cdp, &second).await);
    assert_eq!(second_size, first_size, "laid out as every agent tab");
}
