//! Find in page for the person (DESIGN.md §15): `find {query, backwards?}` searches the text
//! of the tab a pane watches (case-insensitive, main frame), highlights every match, selects
//! and scrolls to the current one, and answers `find_result {target_id, query, index, count}`
//! (`index` counts from 1; 0 when nothing matched). The same query again moves to the next
//! match (the previous one with `backwards`); an empty query clears the highlights.
//!
//! Chrome's own find bar is browser UI that CDP does not reach, so this runs in the pane's isolated
//! world (see the floor's `pane_world`); the page sees only the selection and, while a search is
//! shown, one adopted style sheet for the `::highlight(porthole-find)` colours.

use serde_json::{json, Value};

use crate::browser::floor::{PaneMessage, SessionCore, SessionError, PANE_WORLD};
use crate::cdp::CdpError;

/// Part of the pane world's script: `window.__portholeFind(query, backwards)`.
pub(in crate::browser) const SCRIPT: &str = include_str!("js/find.js");

/// One find: `(query, backwards)`, null before the world's script is there.
const FIND_CALL: &str = include_str!("js/find-call.js");

/// Longest query taken (characters).
pub const MAX_QUERY: usize = 1000;

/// Find in page in one session's tabs (borrowed from the session: `session.find()`).
pub(crate) struct Find<'s> {
    core: &'s SessionCore,
}

impl<'s> Find<'s> {
    pub(in crate::browser) fn new(core: &'s SessionCore) -> Self {
        Self { core }
    }

    /// Finds `query` in the tab behind flat CDP `session` (target `target_id`); returns the
    /// `find_result` for the pane.
    pub(crate) async fn in_page(
        &self,
        target_id: &str,
        session: &str,
        query: &str,
        backwards: bool,
    ) -> Result<PaneMessage, SessionError> {
        let tree = self
            .core
            .cdp()
            .call_on(session, "Page.getFrameTree", json!({}))
            .await?;
        let frame = tree["frameTree"]["frame"]["id"]
            .as_str()
            .unwrap_or_default();
        // The world already made for this frame (same name: Chrome returns its context).
        let world = self
            .core
            .cdp()
            .call_on(
                session,
                "Page.createIsolatedWorld",
                json!({"frameId": frame, "worldName": PANE_WORLD}),
            )
            .await?;
        let context = world["executionContextId"].clone();
        let expression = format!(
            "({FIND_CALL})({}, {backwards})",
            Value::String(query.to_string())
        );
        let result = &self
            .core
            .evaluate_in(session, &context, &expression)
            .await?;
        if result.is_null() {
            return Err(SessionError::Cdp(CdpError::Shape {
                method: "find".into(),
                detail: "the page is still loading; try again".into(),
            }));
        }
        Ok(PaneMessage::FindResult {
            target_id: target_id.to_string(),
            query: query.to_string(),
            index: result["index"].as_u64().unwrap_or(0) as u32,
            count: result["count"].as_u64().unwrap_or(0) as u32,
        })
    }
}
