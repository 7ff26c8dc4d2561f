//! The mouse cursor under the person's pointer (DESIGN.md §15 "Cursor"). Frames carry no cursor, so
//! the pane's world (see the floor's `pane_world`) reads the computed CSS `cursor` of the element
//! under each mousemove (its `auto` resolved as a browser would: `pointer` on links, `text` on
//! editable fields and text) and reports it when it changes (read at each move, never by a timer:
//! see the script); panes get `{"type":"cursor","target_id","cursor"}` with a CSS cursor name.
//!
//! Owns the cursor part of the world's script and turning its reports into messages.

use serde_json::Value;

use crate::browser::floor::{PaneMessage, SessionCore};

/// Part of the pane world's script (`report` is in scope).
pub(in crate::browser) const SCRIPT: &str = include_str!("js/cursor.js");

/// Longest cursor value passed on (CSS cursor names are short; `url(…)` values are cut off).
const MAX_CURSOR: usize = 64;

/// The cursor of one session's tabs (borrowed from the session by the pane's world).
pub(in crate::browser) struct Cursor<'s> {
    core: &'s SessionCore,
}

impl<'s> Cursor<'s> {
    pub(in crate::browser) fn new(core: &'s SessionCore) -> Self {
        Self { core }
    }

    /// The world saw the cursor under the pointer change.
    pub(in crate::browser) fn changed(&self, target_id: &str, report: &Value) {
        let Some(cursor) = report["cursor"].as_str() else {
            return;
        };
        // An image cursor (`url(…) x y, pointer`) is reduced to its fallback by the script;
        // anything still long or odd becomes `default`.
        let cursor = if cursor.len() <= MAX_CURSOR
            && cursor
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            cursor
        } else {
            "default"
        };
        self.core.notify(PaneMessage::Cursor {
            target_id: target_id.to_string(),
            cursor: cursor.to_string(),
        });
    }
}
