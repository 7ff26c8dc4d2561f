//! The pane's world put together (its frame is the floor's `pane_world`): the script parts each
//! room adds — `<select>` and `<input>` popups, the cursor, find in page, the context menu — and
//! its reports, routed by kind to the room they concern.

use serde_json::Value;

use super::handle::BrowserSession;
use crate::browser::floor::{pane_report, pane_world_script};
use crate::browser::prompts::{context_menu, pickers, select_popup};
use crate::browser::view::cursor::{self, Cursor};
use crate::browser::view::find;

/// The pane world's script, with every room's part in the order their scopes need
/// (`pickers` uses what `select_popup` declares).
pub(in crate::browser) fn script() -> String {
    pane_world_script(&[
        select_popup::SCRIPT,
        pickers::SCRIPT,
        cursor::SCRIPT,
        find::SCRIPT,
        &context_menu::script(),
    ])
}

impl BrowserSession {
    /// A `Runtime.bindingCalled` of flat CDP `session`: a report of the pane's world, routed
    /// by its `kind` (another binding's call is left alone).
    pub(in crate::browser) fn pane_reported(&self, session: Option<&str>, params: &Value) {
        let Some(report) = pane_report(session, params) else {
            return;
        };
        let Some(target_id) = self.core.tabs().target_of_session(report.session) else {
            return;
        };
        let (session, context, report) = (report.session, report.context, &report.report);
        match report["kind"].as_str() {
            Some("select_open") => self.popups().opened(&target_id, session, context, report),
            Some("select_closed") => self.popups().closed(session, context, report),
            Some("cursor") => Cursor::new(&self.core).changed(&target_id, report),
            Some("context_menu") => self
                .context_menus()
                .opened(&target_id, session, context, report),
            _ => {}
        }
    }
}
