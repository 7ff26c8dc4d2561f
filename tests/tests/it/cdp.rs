//! The CDP connection actor against a real Chromium: replies by id, deadlines, typed `Lost`,
//! events with their flat session, unknown events ignored.

// The CDP door (DESIGN.md §21): real Playwright and Puppeteer, the door's rules, its confined
// methods (cookies, downloads, file inputs), the vault's rule, its life (agent or channel
// deleted, `server.agent_listen`), `porthole-mcp cdp --listen` (a port's root forwarded to the
// door), MCP servers on the door (chrome-devtools-mcp, browser-use), and the door's wire under
// a steady stream.
mod door_clients;
mod door_confined;
mod door_forwarder;
mod door_lifecycle;
mod door_rules;
mod door_tools;
mod door_turns;
mod door_vault;
mod door_warm;
mod door_wire;

use std::time::Duration;

use porthole::cdp::{CdpConnection, CdpError};
use porthole_tests::chromium::BareChromium;
use porthole_tests::raw_cdp;
use serde_json::json;

#[tokio::test]
async fn replies_are_matched_to_concurrent_calls() {
    let chromium = BareChromium::launch().await;
    let cdp = CdpConnection::connect(&chromium.ws_url, Duration::from_secs(10))
        .await
        .unwrap();
    let version = cdp.call("Browser.getVersion", json!({})).await.unwrap();
    assert!(version["product"].as_str().unwrap().contains("Chrome"));
    let (a, b, c) = tokio::join!(
        cdp.call("Target.getTargets", json!({})),
        cdp.call("Browser.getVersion", json!({})),
        cdp.call("Target.getTargets", json!({})),
    );
    assert!(a.unwrap()["targetInfos"].is_array());
    assert!(b.unwrap()["product"].is_string());
    assert!(c.unwrap()["targetInfos"].is_array());
    let error = cdp.call("No.suchMethod", json!({})).await.unwrap_err();
    assert!(
        matches!(error, CdpError::Protocol { ref method, .. } if method == "No.suchMethod"),
        "{error}"
    );
}

#[tokio::test]
async fn a_call_past_its_deadline_fails_with_timeout_and_the_connection_lives_on() {
    let chromium = BareChromium::launch().await;
    let cdp = CdpConnection::connect(&chromium.ws_url, Duration::from_secs(10))
        .await
        .unwrap();
    let (_, session) = raw_cdp::open(&cdp, "about:blank").await;
    // A promise that never settles: Chrome never answers this call.
    let never = json!({"expression": "new Promise(() => {})", "awaitPromise": true});
    let error = cdp
        .call_with(
            "Runtime.evaluate",
            never,
            Some(&session),
            Duration::from_millis(300),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(error, CdpError::Timeout { ref method, .. } if method == "Runtime.evaluate"),
        "{error}"
    );
    let alive = cdp
        .call_on(
            &session,
            "Runtime.evaluate",
            json!({"expression": "1 + 1", "returnByValue": true}),
        )
        .await
        .unwrap();
    assert_eq!(alive["result"]["value"], 2);
}

#[tokio::test]
async fn a_dead_browser_turns_pending_and_later_calls_into_lost() {
    let mut chromium = BareChromium::launch().await;
    let cdp = CdpConnection::connect(&chromium.ws_url, Duration::from_secs(10))
        .await
        .unwrap();
    let (_, session) = raw_cdp::open(&cdp, "about:blank").await;
    let pending = {
        let cdp = cdp.clone();
        tokio::spawn(async move {
            let never = json!({"expression": "new Promise(() => {})", "awaitPromise": true});
            cdp.call_with(
                "Runtime.evaluate",
                never,
                Some(&session),
                Duration::from_secs(60),
            )
            .await
        })
    };
    // Make sure the call is in flight before the browser dies.
    tokio::task::yield_now().await;
    cdp.call("Browser.getVersion", json!({})).await.unwrap();
    chromium.kill();
    let error = tokio::time::timeout(Duration::from_secs(10), pending)
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert!(error.is_lost(), "{error}");
    tokio::time::timeout(Duration::from_secs(10), cdp.lost())
        .await
        .unwrap();
    let later = cdp.call("Browser.getVersion", json!({})).await.unwrap_err();
    assert!(later.is_lost(), "{later}");
}

#[tokio::test]
async fn events_carry_their_session_and_nobody_listening_is_fine() {
    let chromium = BareChromium::launch().await;
    let cdp = CdpConnection::connect(&chromium.ws_url, Duration::from_secs(10))
        .await
        .unwrap();
    let mut events = cdp.subscribe();
    let (_, session) = raw_cdp::open(&cdp, "about:blank").await;
    cdp.call_on(&session, "Runtime.enable", json!({}))
        .await
        .unwrap();
    let event = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let event = events.recv().await.unwrap();
            if event.method == "Runtime.executionContextCreated" {
                return event;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(event.session_id.as_deref(), Some(session.as_str()));
    // Many events with no subscriber left: calls still work.
    drop(events);
    cdp.call_on(&session, "Page.enable", json!({}))
        .await
        .unwrap();
    cdp.call_on(&session, "Page.reload", json!({}))
        .await
        .unwrap();
    cdp.call("Browser.getVersion", json!({})).await.unwrap();
}
