//! Element refs (`e12`) bound to their document.
//!
//! `page.js` keeps the ref → element map inside each document, so a navigation forgets every
//! ref. Numbers are never reused in a tab: each snapshot starts where the tab's last one ended
//! (the [`RefBook`] here), so a ref from an older document cannot name an element of a newer
//! one — it fails with "call read_page again" instead of clicking the wrong element. The books
//! live on the session, one per tab ([`crate::browser::refs_store`]). Refs of an
//! out-of-process (cross-origin) iframe live in that frame's own document; the book remembers
//! which ranges belong to which frame and the one CDP session kept open to it, reused by every
//! later `read_page` while the frame lives (a document keeps the refs it issued, so a frame's
//! refs can come from any of its earlier ranges).

use serde_json::Value;

pub(crate) use crate::browser::{FrameRefs, RefBook};
use crate::tools::error::ToolError;
use crate::tools::tab::driver::Tab;

/// The tab's book (kept on the session, per tab).
pub fn book(tab: &Tab) -> RefBook {
    tab.browser.refs().get(&tab.target_id)
}

/// Raises a tab's next ref number to `next` (after `find`, which may issue refs).
pub fn advance(tab: &Tab, next: u64) {
    tab.browser.refs().advance(&tab.target_id, next);
}

/// The number in `e12`.
pub fn number(r: &str) -> Option<u64> {
    r.strip_prefix('e')?.parse().ok()
}

/// Where to run a helper call for `r`: the frame session, and the frame when the ref lives in
/// an out-of-process frame.
pub fn locate(tab: &Tab, r: &str) -> Result<(String, Option<FrameRefs>), ToolError> {
    let Some(n) = number(r.trim()) else {
        return Err(ToolError::msg(format!(
            "`{r}` is not an element ref: refs look like e12 and come from read_page or find."
        )));
    };
    let book = book(tab);
    Ok(book
        .frames
        .iter()
        .find(|f| f.issued(n))
        .map(|f| (f.session_id.clone(), Some(f.clone())))
        .unwrap_or_else(|| (tab.session_id.clone(), None)))
}

/// Turns a helper's `{error: …}` answer about `r` into the message for the model.
pub fn ref_error(tab: &Tab, r: &str, answer: &Value) -> Option<ToolError> {
    let kind = answer.get("error")?.as_str()?;
    let issued = number(r).is_some_and(|n| n < book(tab).next);
    Some(ToolError::msg(match kind {
        "unknown" if issued => format!(
            "Ref {r} is from an earlier version of this page (it navigated or was reloaded since \
             read_page). Call read_page again and use the new refs."
        ),
        "unknown" => format!(
            "Unknown ref {r}: this page never issued it. Refs come from read_page or find on the \
             current page; call read_page."
        ),
        "stale" => format!(
            "Ref {r} points at an element that is no longer in the page (it changed since \
             read_page). Call read_page again and use the new refs."
        ),
        "invisible" => format!(
            "Ref {r} ({}) has no size on screen, so it cannot be clicked; it may be hidden. Call \
             read_page to see what is visible.",
            answer["what"].as_str().unwrap_or("the element")
        ),
        "covered" => format!(
            "Ref {r} ({}) is covered by {} at its centre, so a click would hit that instead. \
             Close or scroll away what covers it (a dialog or banner?) and try again.",
            answer["what"].as_str().unwrap_or("the element"),
            answer["by"].as_str().unwrap_or("another element")
        ),
        "refused" => answer["message"]
            .as_str()
            .unwrap_or("the element refused the value")
            .to_string(),
        other => format!("Ref {r}: {other}"),
    }))
}

/// A helper call in an out-of-process frame failed: the frame is most likely gone.
pub fn frame_gone(r: &str, iframe: &Option<FrameRefs>, error: ToolError) -> ToolError {
    match iframe {
        Some(_) => ToolError::msg(format!(
            "Ref {r} belongs to a cross-origin frame that is no longer there ({error}). Call \
             read_page again."
        )),
        None => error,
    }
}
