//! The pane's isolated world in every tracked tab: a small script that watches what
//! Chrome's screencast cannot show a person — a `<select>` popup opening and closing (see
//! `select_popup`), an `<input>`'s suggestions or picker (see `pickers`), the mouse cursor
//! under the pointer (see `cursor`), the person's right click (see `context_menu`) — and
//! reports it through one CDP binding, and offers find in page (see `find`). The page sees
//! neither the world nor the binding.
//!
//! Owns installing the script and routing its reports; what each report means lives in the
//! modules named above.

use serde_json::{json, Value};

use super::cursor::Cursor;
use crate::browser::floor::SessionCore;
use crate::browser::prompts::context_menu::ContextMenus;
use crate::browser::prompts::select_popup::Popups;
use crate::cdp::CdpConnection;

/// The binding the script calls with a JSON report, and the isolated world it lives in.
pub const BINDING: &str = "__portholePane";
pub const WORLD: &str = "porthole-pane";

/// The world's frame: a function of the binding's name, the parts in its scope.
const PANE_WORLD: &str = include_str!("js/pane-world.js");
/// Where the parts go in [`PANE_WORLD`].
const PARTS: &str = "/* parts */";

/// Runs in the isolated world of every frame at every document's start.
fn script() -> String {
    let parts = [
        crate::browser::prompts::select_popup::SCRIPT,
        crate::browser::prompts::pickers::SCRIPT,
        super::cursor::SCRIPT,
        // Find in page: `window.__portholeFind(query, backwards)` (see `find`).
        include_str!("js/find.js"),
        &crate::browser::prompts::context_menu::script(),
    ]
    .join("\n");
    let world = PANE_WORLD.replacen(PARTS, &parts, 1);
    let binding = serde_json::to_string(BINDING).expect("a string serializes");
    format!("({world})({binding});")
}

/// Installs the world's script and binding in the tab behind flat CDP `session` (best effort:
/// a tab that refuses shows no popups and no cursor, and works otherwise).
pub async fn watch(cdp: &CdpConnection, session: &str) {
    // Sent together: one round trip to a browser far away.
    let (binding, script) = tokio::join!(
        biased;
        cdp.call_on(
            session,
            "Runtime.addBinding",
            json!({"name": BINDING, "executionContextName": WORLD}),
        ),
        cdp.call_on(
            session,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": script(), "worldName": WORLD, "runImmediately": true}),
        )
    );
    if let Err(error) = binding.and(script) {
        tracing::debug!(event = "pane_world_failed", %error);
    }
}

/// The reports of the pane's world in one session's tabs, routed to the rooms they concern
/// (borrowed from the session: `session.pane_world()`).
pub(in crate::browser) struct PaneWorld<'s> {
    core: &'s SessionCore,
    popups: Popups<'s>,
    menus: ContextMenus<'s>,
    cursor: Cursor<'s>,
}

impl<'s> PaneWorld<'s> {
    pub(in crate::browser) fn new(
        core: &'s SessionCore,
        popups: Popups<'s>,
        menus: ContextMenus<'s>,
        cursor: Cursor<'s>,
    ) -> Self {
        Self {
            core,
            popups,
            menus,
            cursor,
        }
    }

    /// A `Runtime.bindingCalled` from the pane's world: routes the report by its `kind`.
    pub(in crate::browser) fn reported(&self, session: Option<&str>, params: &Value) {
        if params["name"] != BINDING {
            return;
        }
        let Some(session) = session else { return };
        let Some(report) = params["payload"]
            .as_str()
            .and_then(|p| serde_json::from_str::<Value>(p).ok())
        else {
            return;
        };
        let target_id = { self.core.tabs().target_of_session(session) };
        let Some(target_id) = target_id else { return };
        let context = params["executionContextId"].as_i64().unwrap_or_default();
        match report["kind"].as_str() {
            Some("select_open") => self.popups.opened(&target_id, session, context, &report),
            Some("select_closed") => self.popups.closed(session, context, &report),
            Some("cursor") => self.cursor.changed(&target_id, &report),
            Some("context_menu") => self.menus.opened(&target_id, session, context, &report),
            _ => {}
        }
    }
}
