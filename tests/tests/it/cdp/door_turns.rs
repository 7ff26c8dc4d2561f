//! `agents.max_calls_in_flight` bounds an agent's CDP door commands across all its connections
//! (DESIGN.md §21): with a bound of 1, a quick command on a second connection of the same agent
//! waits for a slow one on the first (its answer comes after the slow one's), while another
//! agent's quick command in the same channel does not wait (the control: the bound is per
//! agent, and the slow command really was still running).

use std::time::{Duration, Instant};

use porthole::cdp::CdpConnection;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::raw_cdp;
use serde_json::json;

const CHANNEL: &str = "door-turns";

/// A connection to `token`'s door and a flat session on its only tab.
async fn on_its_tab(daemon: &TestDaemon, token: &str) -> (CdpConnection, String) {
    let socket = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
    let cdp = CdpConnection::connect(&socket, Duration::from_secs(10))
        .await
        .expect("the door's socket");
    let session = raw_cdp::attach(&cdp, &raw_cdp::only_tab(&cdp).await).await;
    (cdp, session)
}

/// Evaluates `expression` (awaiting a promise) on `session`; when its answer came.
async fn answered(cdp: &CdpConnection, session: &str, expression: &str) -> Instant {
    let reply = cdp
        .call_on(
            session,
            "Runtime.evaluate",
            json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        )
        .await
        .unwrap_or_else(|e| panic!("{expression}: {e}"));
    assert!(reply["exceptionDetails"].is_null(), "{reply}");
    Instant::now()
}

#[tokio::test(flavor = "multi_thread")]
async fn one_agents_door_commands_share_its_calls_in_flight_across_connections() {
    let pages = PageServer::area("cdp").await;
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"agents": {"max_calls_in_flight": 1}}),
        ..Default::default()
    })
    .await;
    daemon.owner_on(CHANNEL).act("page_info", json!({})).await;
    let (_, token) = daemon.add_agent(CHANNEL, "bounded", &[]).await;
    let (_, other) = daemon.add_agent(CHANNEL, "other", &[]).await;
    for (agent, page) in [(&token, "?bounded"), (&other, "?other")] {
        daemon
            .act(
                agent,
                "navigate",
                json!({"url": pages.url(&format!("/door.html{page}"))}),
            )
            .await;
    }
    let (first, first_session) = on_its_tab(&daemon, &token).await;
    let (second, second_session) = on_its_tab(&daemon, &token).await;
    let (elsewhere, elsewhere_session) = on_its_tab(&daemon, &other).await;

    let slow = answered(
        &first,
        &first_session,
        "new Promise((done) => setTimeout(() => done('slow'), 2000))",
    );
    let quick_after_slow = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        tokio::join!(
            answered(&second, &second_session, "'quick'"),
            answered(&elsewhere, &elsewhere_session, "'quick'"),
        )
    };
    let (slow_done, (same_agent_done, other_agent_done)) = tokio::join!(slow, quick_after_slow);
    assert!(
        other_agent_done < slow_done,
        "another agent's command waited for this agent's slow one"
    );
    assert!(
        same_agent_done > slow_done,
        "the agent's second connection ran a command while its first held the only turn"
    );
}
