//! The pane's isolated world in every tracked tab: a small script that watches what Chrome's
//! screencast cannot show a person — a `<select>` popup opening and closing, an `<input>`'s
//! suggestions or picker, the mouse cursor under the pointer, the person's right click — and
//! reports it through one CDP binding, and offers find in page. The page sees neither the world
//! nor the binding.
//!
//! Owns the world's frame: its name and its binding's, the script around the parts, installing
//! it, and reading a report. The parts and what each report means are the rooms'
//! (`prompts::select_popup`, `prompts::pickers`, `prompts::context_menu`, `view::cursor`,
//! `view::find`); the session puts them together (`session/pane_reports.rs`).

use serde_json::{json, Value};

use crate::cdp::CdpConnection;

/// The binding the script calls with a JSON report.
pub const PANE_BINDING: &str = "__portholePane";
/// The isolated world the script lives in.
pub const PANE_WORLD: &str = "porthole-pane";

/// The world's frame: a function of the binding's name, the parts in its scope.
const FRAME: &str = include_str!("js/pane-world.js");
/// Where the parts go in [`FRAME`].
const PARTS: &str = "/* parts */";

/// The script that runs in the isolated world of every frame at every document's start, with
/// `parts` (each a part of the rooms', in one scope with `report`) in this order.
pub fn pane_world_script(parts: &[&str]) -> String {
    let world = FRAME.replacen(PARTS, &parts.join("\n"), 1);
    let binding = serde_json::to_string(PANE_BINDING).expect("a string serializes");
    format!("({world})({binding});")
}

/// Installs `script` (see [`pane_world_script`]) and the world's binding in the tab behind flat
/// CDP `session` (best effort: a tab that refuses shows no popups and no cursor, and works
/// otherwise).
pub async fn install_pane_world(cdp: &CdpConnection, session: &str, script: String) {
    // Sent together: one round trip to a browser far away.
    let (binding, script) = tokio::join!(
        biased;
        cdp.call_on(
            session,
            "Runtime.addBinding",
            json!({"name": PANE_BINDING, "executionContextName": PANE_WORLD}),
        ),
        cdp.call_on(
            session,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": script, "worldName": PANE_WORLD, "runImmediately": true}),
        )
    );
    if let Err(error) = binding.and(script) {
        tracing::debug!(event = "pane_world_failed", %error);
    }
}

/// One report of the pane's world.
#[derive(Debug)]
pub struct PaneReport<'a> {
    /// The flat CDP session of the tab it came from.
    pub session: &'a str,
    /// The world's execution context in the frame it came from.
    pub context: i64,
    /// What the script reported (its `kind` says which room it concerns).
    pub report: Value,
}

/// The report in a `Runtime.bindingCalled` of flat CDP `session`; `None` for another binding's
/// call or a report that is no JSON.
pub fn pane_report<'a>(session: Option<&'a str>, params: &Value) -> Option<PaneReport<'a>> {
    if params["name"] != PANE_BINDING {
        return None;
    }
    let session = session?;
    let report = params["payload"]
        .as_str()
        .and_then(|p| serde_json::from_str::<Value>(p).ok())?;
    let context = params["executionContextId"].as_i64().unwrap_or_default();
    Some(PaneReport {
        session,
        context,
        report,
    })
}
