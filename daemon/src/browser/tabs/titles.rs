//! Titles a page sets from script (`document.title = …`), which Chrome reports neither as a
//! `Target.targetInfoChanged` nor as a page event (verified on Chromium 156: a title set after
//! load never reached the tab list). A tiny observer in an isolated world of every tracked tab
//! watches `<head>` and calls a CDP binding when the title changes; the page cannot see either.

use serde_json::{json, Value};

use crate::cdp::CdpConnection;

/// The binding the observer calls, and the isolated world it lives in.
pub const TITLE_BINDING: &str = "__portholeTitle";
const WORLD: &str = "porthole-titles";

/// Runs in the isolated world at every document's start; Chrome runs it in a tab's same-origin
/// frames too, which have titles of their own: only the top document's is the tab's.
const OBSERVER: &str = include_str!("js/title-observer.js");

/// Starts watching the titles of the tab behind flat CDP `session` (best effort: a tab that
/// refuses keeps the titles its load events give).
pub async fn watch(cdp: &CdpConnection, session: &str) {
    // Sent together: one round trip to a browser far away.
    let (binding, script) = tokio::join!(
        biased;
        cdp.call_on(
            session,
            "Runtime.addBinding",
            json!({"name": TITLE_BINDING, "executionContextName": WORLD}),
        ),
        cdp.call_on(
            session,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": OBSERVER, "worldName": WORLD, "runImmediately": true}),
        )
    );
    if let Err(error) = binding.and(script) {
        tracing::debug!(event = "title_watch_failed", %error);
    }
}

/// The title in a `Runtime.bindingCalled` from a tab's title observer; `None` for another
/// binding's call or an empty title (which leaves Chrome's own, the URL, in place, as a load
/// does).
pub(in crate::browser) fn reported_title(params: &Value) -> Option<&str> {
    if params["name"] != TITLE_BINDING {
        return None;
    }
    params["payload"].as_str().filter(|t| !t.trim().is_empty())
}
