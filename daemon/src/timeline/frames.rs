//! Frames of the timeline: taking a JPEG of a tab (`Page.captureScreenshot` at the viewport,
//! quality 60, or the person's view: the screencast's last frame) and reading a kept one back
//! by its id. A tool call's tab that a pane watches is not captured: the screencast already
//! sends its picture, and a frame it sent after the call shows the page after the call
//! ([`after_call`]; a capture makes Chrome encode the whole viewport again, issue 35). Never a
//! capture while a popup is open in the tab: `Page.captureScreenshot` can close Chrome's open
//! date or time picker (Chromium 156), so the screencast's last frame is kept instead, or none.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use serde_json::json;

use crate::browser::{BrowserSession, Frame};

/// JPEG quality of kept frames.
const QUALITY: u8 = 60;
/// How long a watched tab's screencast is given to send a frame newer than the call's end
/// before its last frame is taken as the page after the call: a page the call changed paints
/// within a few frames, and one that paints nothing in this time looks as its last frame.
const FRESH_WAIT: Duration = Duration::from_millis(250);
/// The longest a capture may take before the event is kept without a frame.
const CAPTURE_DEADLINE: Duration = Duration::from_secs(5);

/// Where the frame of a tool call comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// `Page.captureScreenshot` of the tab.
    Capture,
    /// The screencast's last frame (none when no pane casts the tab).
    View,
}

/// A capture unless a popup is open in the tab: a capture can close it.
fn source(popup_open: bool) -> Source {
    if popup_open {
        Source::View
    } else {
        Source::Capture
    }
}

/// A JPEG of tab `target_id` as it is now; `None` when the tab is gone or does not answer.
/// With a popup open in the tab, the person's view instead (see [`of_view`]).
pub async fn capture(session: &BrowserSession, target_id: &str) -> Option<bytes::Bytes> {
    if !session.is_alive() {
        return None;
    }
    if source(session.popups().open_in(target_id)) == Source::View {
        tracing::debug!(event = "timeline_frame_from_view", channel_id = %session.channel(), target_id, reason = "popup_open");
        return of_view(session, target_id);
    }
    let tab_session = session.tab_session(target_id)?;
    let reply = session
        .cdp()
        .call_with(
            "Page.captureScreenshot",
            json!({"format": "jpeg", "quality": QUALITY, "optimizeForSpeed": true}),
            Some(&tab_session),
            CAPTURE_DEADLINE,
        )
        .await
        .inspect_err(|error| {
            tracing::debug!(event = "timeline_frame_failed", channel_id = %session.channel(), %error);
        })
        .ok()?;
    base64::engine::general_purpose::STANDARD
        .decode(reply["data"].as_str()?)
        .ok()
        .map(bytes::Bytes::from)
}

/// The screencast's frame number of tab `target_id` (taken as a tool call ends, for
/// [`after_call`], which uses it only when a pane watches the tab); `None` when no cast runs.
/// One lookup on the call's path: no list of the watched tabs is made.
pub fn seen(session: &BrowserSession, target_id: &str) -> Option<u64> {
    session
        .screencast()
        .last_frame(target_id)
        .map(|frame| frame.seq)
}

/// The last frame of tab `target_id` when some pane watches it.
fn watched_frame(session: &BrowserSession, target_id: &str) -> Option<Arc<Frame>> {
    session
        .screencast()
        .watched_frames()
        .into_iter()
        .find(|(id, _)| id == target_id)
        .map(|(_, frame)| frame)
}

/// A JPEG of tab `target_id` after a tool call that ended when the tab's screencast was at
/// frame `seen` (see [`seen`]). A watched tab gives its screencast's frame: the first one
/// after `seen`, waiting up to [`FRESH_WAIT`] for it, else the last one (nothing painted: the
/// page looks as it did). Otherwise a [`capture`]. Also says which it was.
pub async fn after_call(
    session: &BrowserSession,
    target_id: &str,
    seen: Option<u64>,
) -> (Option<bytes::Bytes>, bool) {
    if !session.is_alive() {
        return (None, false);
    }
    let mut published = session.screencast().frames_published();
    published.borrow_and_update();
    let Some(mut frame) = watched_frame(session, target_id) else {
        return (capture(session, target_id).await, false);
    };
    let deadline = tokio::time::Instant::now() + FRESH_WAIT;
    while seen == Some(frame.seq) {
        match tokio::time::timeout_at(deadline, published.changed()).await {
            Ok(Ok(())) => {}
            // No newer frame in time, or the hub closed: the last one shows the page.
            _ => break,
        }
        published.borrow_and_update();
        match watched_frame(session, target_id) {
            Some(newer) => frame = newer,
            // No longer watched: as a tab nobody watches.
            None => return (capture(session, target_id).await, false),
        }
    }
    (Some(frame.jpeg.clone()), true)
}

/// A JPEG of watched tab `target_id` as the person sees it: the screencast's last frame, or
/// none when no pane casts it. For the person's input: `Page.captureScreenshot` closes a picker
/// Chrome has open (a time or colour picker the person is using, Chromium 156), and a watched
/// tab's last frame is what the person just acted on.
pub fn of_view(session: &BrowserSession, target_id: &str) -> Option<bytes::Bytes> {
    session
        .screencast()
        .last_frame(target_id)
        .map(|frame| frame.jpeg.clone())
}

/// Whether `id` is a frame id (32 hex digits) and nothing else.
pub fn is_frame_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The kept JPEG `frame_id` of the timeline in `dir`.
pub fn read(dir: &Path, frame_id: &str) -> Option<Vec<u8>> {
    if !is_frame_id(frame_id) {
        return None;
    }
    std::fs::read(dir.join("frames").join(format!("{frame_id}.jpg"))).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_popup_is_never_captured() {
        assert_eq!(source(true), Source::View);
        assert_eq!(source(false), Source::Capture);
    }

    #[test]
    fn frame_ids_are_32_hex_digits() {
        assert!(is_frame_id(&"0a".repeat(16)));
        assert!(!is_frame_id("../../token"));
        assert!(!is_frame_id(&"0".repeat(31)));
    }
}
