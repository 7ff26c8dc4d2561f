//! Frames of the timeline: taking a JPEG of a tab (`Page.captureScreenshot` at the viewport,
//! quality 60, or the person's view: the screencast's last frame) and reading a kept one back
//! by its id. Never a capture while a popup is open in the tab: `Page.captureScreenshot` can
//! close Chrome's open date or time picker (Chromium 156), so the screencast's last frame is
//! kept instead, or none.

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use serde_json::json;

use crate::browser::BrowserSession;

/// JPEG quality of kept frames.
const QUALITY: u8 = 60;
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
pub async fn capture(session: &BrowserSession, target_id: &str) -> Option<Vec<u8>> {
    if !session.is_alive() {
        return None;
    }
    if source(session.popup_open_in(target_id)) == Source::View {
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
}

/// A JPEG of watched tab `target_id` as the person sees it: the screencast's last frame, or
/// none when no pane casts it. For the person's input: `Page.captureScreenshot` closes a picker
/// Chrome has open (a time or colour picker the person is using, Chromium 156), and a watched
/// tab's last frame is what the person just acted on.
pub fn of_view(session: &BrowserSession, target_id: &str) -> Option<Vec<u8>> {
    session
        .screencast()
        .last_frame(target_id)
        .map(|frame| frame.jpeg.to_vec())
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
