//! The person without a pane (issue 52, DESIGN.md §20a): `GET /api/events` carries what needs
//! her on every channel, `notify.command` runs once per approval, and an approval then waits
//! for her answer from a pane opened later instead of failing at once. With nobody to reach it
//! still fails at once.

mod cards;
mod events;
mod notifier;

use porthole_tests::daemon::TestDaemon;
use porthole_tests::events::EventStream;
use serde_json::{json, Value};

const CHANNEL: &str = "reach";

/// Creates an agent named `shopper` held to `confirm`; its id and token.
async fn agent_confirming(daemon: &TestDaemon, confirm: Value) -> (String, String) {
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": CHANNEL, "name": "shopper", "confirm": confirm}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    (
        body["agent_id"].as_str().unwrap().to_string(),
        body["token"].as_str().unwrap().to_string(),
    )
}

/// The owner's `/api/events` stream.
async fn owner_stream(daemon: &TestDaemon) -> EventStream {
    let auth = format!("Bearer {}", daemon.token);
    match EventStream::open(&daemon.addr, &[("Authorization", &auth)]).await {
        Ok(stream) => stream,
        Err(refused) => panic!("the owner's stream was refused: {refused:?}"),
    }
}
