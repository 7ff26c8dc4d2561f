//! The door's wire under a steady stream (DESIGN.md §21): a client whose every command brings an
//! event just before its answer (`Runtime.evaluate` of a `console.log` with `Runtime` on) gets
//! every answer, each after its event, however Chrome's messages and the door's task interleave.
//! Found by `porthole-bench cdp`: an answer complete but read after the event being passed used
//! to wait for a next message that never came.

use std::time::Duration;

use porthole::cdp::CdpConnection;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use serde_json::json;

/// Round trips, each one a chance for the event and the answer to land together.
const ROUND_TRIPS: usize = 300;

#[tokio::test(flavor = "multi_thread")]
async fn every_answer_arrives_when_an_event_comes_just_before_it() {
    let pages = PageServer::area("cdp").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = daemon.add_agent("door-wire", "wire", &[]).await;
    let door = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
    let cdp = CdpConnection::connect(&door, Duration::from_secs(20))
        .await
        .expect("the door's browser socket");
    let mut events = cdp.subscribe();
    let created = cdp
        .call(
            "Target.createTarget",
            json!({"url": pages.url("/door.html?wire")}),
        )
        .await
        .expect("createTarget");
    let attached = cdp
        .call(
            "Target.attachToTarget",
            json!({"targetId": created["targetId"], "flatten": true}),
        )
        .await
        .expect("attachToTarget");
    let session = attached["sessionId"].as_str().expect("sessionId");
    cdp.call_on(session, "Runtime.enable", json!({}))
        .await
        .expect("Runtime.enable");

    for i in 0..ROUND_TRIPS {
        let expression = format!("console.log('tick', {i}); {i}");
        let answer = cdp
            .call_with(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
                Some(session),
                Duration::from_secs(10),
            )
            .await
            .unwrap_or_else(|e| panic!("round trip {i} of {ROUND_TRIPS}: {e}"));
        assert_eq!(answer["result"]["value"], i, "{answer}");
    }
    // Every event came too (the positive control that each command brought one).
    let mut ticks = 0;
    while let Ok(event) = events.try_recv() {
        if event.method == "Runtime.consoleAPICalled" && event.params["args"][0]["value"] == "tick"
        {
            ticks += 1;
        }
    }
    assert_eq!(ticks, ROUND_TRIPS);
}
