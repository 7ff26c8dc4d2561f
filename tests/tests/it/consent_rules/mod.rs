//! Consent, round two: the rules and the answers (issue 52, DESIGN.md §20a), through the real
//! daemon and Chromium. Every spelling of a host is that host (`spellings`); an act whose
//! request the person declined answers as an error, "always" is kept by origin and leaves a
//! timeline event, and a post the agent's script left behind is held (`answers`); the owner's
//! change of an agent's rules holds its tabs at once, approval ids never repeat across a
//! restart, and a channel survives a restart and a profile reset (`changes`); the kinds the
//! first round never tested (`login`, `upload`, `download`), the config file's rules, leaving
//! routes toward a refused site, and the timeline's approval events (`kinds`); the network
//! layer: every request of an agent's page, its popups' frames, shared workers, frames to a new
//! site and OPTIONS with a body (`network`).

mod answers;
mod changes;
mod kinds;
mod network;
mod spellings;

use porthole_tests::daemon::TestDaemon;
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

/// Creates an agent on `channel` with `fields` (`sites`, `confirm`); its id and token.
pub(crate) async fn agent_with(
    daemon: &TestDaemon,
    channel: &str,
    fields: Value,
) -> (String, String) {
    let mut body = json!({"channel_id": channel, "name": "kept"});
    for (key, value) in fields.as_object().expect("fields are an object") {
        body[key] = value.clone();
    }
    let (status, created) = daemon.post("/api/browser/agents", &body).await;
    assert_eq!(status, 201, "{created}");
    (
        created["agent_id"].as_str().unwrap().to_string(),
        created["token"].as_str().unwrap().to_string(),
    )
}

/// A pane attached to `channel`.
pub(crate) async fn pane_on(daemon: &TestDaemon, channel: &str) -> Pane {
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    pane
}
