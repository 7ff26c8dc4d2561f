//! Find in page for the person (DESIGN.md §15): `find {query, backwards?}` searches the text
//! of the tab a pane watches (case-insensitive, main frame), highlights every match, selects
//! and scrolls to the current one, and answers `find_result {target_id, query, index, count}`
//! (`index` counts from 1; 0 when nothing matched). The same query again moves to the next
//! match (the previous one with `backwards`); an empty query clears the highlights.
//!
//! Chrome's own find bar is browser UI that CDP does not reach, so this runs in the pane's
//! isolated world (see `pane_world`); the page sees only the selection and, while a search is
//! shown, one adopted style sheet for the `::highlight(porthole-find)` colours.

use serde_json::{json, Value};

use crate::browser::error::SessionError;
use crate::browser::protocol::PaneMessage;
use crate::browser::session::handle::BrowserSession;
use crate::cdp::CdpError;

/// Part of the pane world's script: `window.__portholeFind(query, backwards)`.
pub(in crate::browser) const SCRIPT: &str = r#"
 const FIND_MAX = 1000;
 let found = {query: '', ranges: [], index: -1};
 let findSheet = null;
 const findRanges = (query) => {
   const ranges = [], q = query.toLowerCase();
   const root = document.body || document.documentElement;
   if (!root) return ranges;
   const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode: (n) => {
     const p = n.parentElement;
     if (!p || /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(p.tagName)) return NodeFilter.FILTER_REJECT;
     return p.getClientRects().length ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
   }});
   for (let n = walker.nextNode(); n && ranges.length < FIND_MAX; n = walker.nextNode()) {
     const text = n.data.toLowerCase();
     for (let i = text.indexOf(q); i >= 0 && ranges.length < FIND_MAX; i = text.indexOf(q, i + q.length)) {
       const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + q.length); ranges.push(r);
     }
   }
   return ranges;
 };
 const paintFound = () => {
   const all = typeof CSS !== 'undefined' && CSS.highlights && typeof Highlight === 'function';
   if (!found.ranges.length) {
     if (all) { CSS.highlights.delete('porthole-find'); CSS.highlights.delete('porthole-find-current'); }
     if (findSheet) { document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== findSheet); findSheet = null; }
     return;
   }
   const current = found.ranges[found.index];
   if (all) {
     if (!findSheet) {
       findSheet = new CSSStyleSheet();
       findSheet.replaceSync('::highlight(porthole-find){background:#fde047;color:inherit}::highlight(porthole-find-current){background:#f97316;color:#000}');
       document.adoptedStyleSheets = [...document.adoptedStyleSheets, findSheet];
     }
     CSS.highlights.set('porthole-find', new Highlight(...found.ranges));
     CSS.highlights.set('porthole-find-current', new Highlight(current));
   }
   const selection = getSelection();
   selection.removeAllRanges(); selection.addRange(current.cloneRange());
   const box = current.getBoundingClientRect();
   if (box.top < 0 || box.bottom > innerHeight || box.left < 0 || box.right > innerWidth) {
     scrollBy({left: box.left - innerWidth / 2, top: box.top - innerHeight / 2, behavior: 'instant'});
   }
 };
 window.__portholeFind = (query, backwards) => {
   if (!query) {
     found = {query: '', ranges: [], index: -1};
     paintFound();
     return {index: 0, count: 0};
   }
   if (query === found.query && found.ranges.length && found.ranges.every((r) => r.startContainer.isConnected)) {
     const n = found.ranges.length;
     found.index = (found.index + (backwards ? n - 1 : 1)) % n;
   } else {
     found = {query, ranges: findRanges(query), index: 0};
     if (backwards && found.ranges.length) found.index = found.ranges.length - 1;
   }
   paintFound();
   return {index: found.ranges.length ? found.index + 1 : 0, count: found.ranges.length};
 };
"#;

/// Longest query taken (characters).
pub const MAX_QUERY: usize = 1000;

impl BrowserSession {
    /// Finds `query` in the tab behind flat CDP `session` (target `target_id`); returns the
    /// `find_result` for the pane.
    pub(crate) async fn find_in_page(
        &self,
        target_id: &str,
        session: &str,
        query: &str,
        backwards: bool,
    ) -> Result<PaneMessage, SessionError> {
        let tree = self
            .cdp
            .call_on(session, "Page.getFrameTree", json!({}))
            .await?;
        let frame = tree["frameTree"]["frame"]["id"]
            .as_str()
            .unwrap_or_default();
        // The world already made for this frame (same name: Chrome returns its context).
        let world = self
            .cdp
            .call_on(
                session,
                "Page.createIsolatedWorld",
                json!({"frameId": frame, "worldName": super::pane_world::WORLD}),
            )
            .await?;
        let context = world["executionContextId"].clone();
        let expression = format!(
            "window.__portholeFind ? window.__portholeFind({}, {backwards}) : null",
            Value::String(query.to_string())
        );
        let result = &self.evaluate_in(session, &context, &expression).await?;
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
