//! What one tab's cast hands to panes: the frame, the latest-frame slot per tab, the casts'
//! state the hub shares with its tasks (which casts run where, at what cap), and publishing a
//! frame Chrome sent into its tab's slot — from the tab's own cast or a sharp capture (see
//! `sharp`). Knows nothing of starting or stopping casts (`screencast`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::frame_stages;

/// One JPEG frame of a tab.
#[derive(Debug)]
pub struct Frame {
    /// Raw JPEG bytes, sent to panes as one binary message.
    pub jpeg: Bytes,
    /// Page viewport in CSS pixels when the frame was taken.
    pub width: u32,
    pub height: u32,
    /// Increases by one per frame received from Chrome for this tab.
    pub seq: u64,
    /// When it passed each stage (bench only, see `frame_stages`).
    pub stamps: Option<super::frame_stages::Stamps>,
}

pub(super) type FrameSlot = watch::Sender<Option<Arc<Frame>>>;

/// JPEG quality of every cast of a channel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Params {
    pub(super) quality: u8,
}

/// The largest frame asked of Chrome. Frames come at the size each tab is laid out at (the
/// viewport its pane asked for, see `BrowserSession::set_viewport_on`), so this only bounds
/// them; a per-channel cap would shrink one pane's frames to another pane's size. A tab at a
/// pixel scale above 1 is cast capped at its CSS size instead (see `sharp`).
pub(super) const FRAME_CAP: (u32, u32) = (8192, 8192);

/// What one tab's cast should be doing.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Wanted {
    pub(super) watchers: usize,
    pub(super) params: Params,
    /// Bumped to restart the cast (a cross-process navigation can end it silently).
    pub(super) generation: u64,
}

/// One tab's cast.
pub(super) struct Cast {
    pub(super) session_id: String,
    pub(super) frames: FrameSlot,
    pub(super) wanted: watch::Sender<Wanted>,
    /// Ends the tab's reconcile task (the tab is gone or the session closed).
    pub(super) ended: CancellationToken,
}

/// A cast running now, as the frame task sees it.
pub(super) struct Running {
    pub(super) frames: FrameSlot,
    /// The largest frame asked of Chrome: [`FRAME_CAP`], or the tab's CSS size at a pixel
    /// scale above 1.
    pub(super) cap: (u32, u32),
    /// Chrome's paint time (`metadata.timestamp`) of the newest frame published: an older
    /// frame arriving later (a capped one behind a sharp one) is not shown.
    pub(super) newest: Option<f64>,
    /// Counts the capped frames published, for the tab's settle task (see `sharp`); dropping
    /// it ends that task.
    pub(super) settle: Option<watch::Sender<u64>>,
}

/// State the hub shares with its tasks. Short locks, never held across an await.
pub(super) struct Shared {
    /// Casts by target id.
    pub(super) casts: Mutex<HashMap<String, Cast>>,
    /// Every cast running now, by flat session: frames from any other session are stale.
    pub(super) casting: Mutex<HashMap<String, Running>>,
    /// The second sessions that take sharp frames (see `sharp`), each with the capture
    /// waiting for its first frame, if one is. Their frames are never acked.
    pub(super) sharp_sessions: Mutex<HashMap<String, Option<oneshot::Sender<Value>>>>,
    /// Counts frames published of any tab (see `ScreencastHub::frames_published`).
    pub(super) published: watch::Sender<u64>,
    /// Each tab's pixel scale and CSS size.
    pub(super) scales: crate::browser::floor::AppliedScales,
}

impl Shared {
    pub(super) fn new(scales: crate::browser::floor::AppliedScales) -> Self {
        Self {
            casts: Mutex::default(),
            casting: Mutex::default(),
            sharp_sessions: Mutex::default(),
            published: watch::channel(0).0,
            scales,
        }
    }
}

/// Which cast a frame came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Sent {
    /// The tab's own cast.
    Cast,
    /// A sharp frame of a still page (see `sharp`).
    Sharp,
}

/// Decodes a `Page.screencastFrame`'s JPEG and puts it in the slot of the cast running on
/// `session`, unless no cast runs there or a newer frame is in the slot already. Returns the
/// frame's sizes and the running cast's cap when published.
pub(super) fn publish(
    shared: &Shared,
    session: &str,
    params: &Value,
    sent: Sent,
    stamps: impl FnOnce() -> Option<frame_stages::Stamps>,
) -> Option<(Sizes, (u32, u32))> {
    let data = params["data"].as_str()?;
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    let metadata = &params["metadata"];
    let sizes = Sizes {
        view: (
            metadata["deviceWidth"].as_f64().unwrap_or(0.0).round() as u32,
            metadata["deviceHeight"].as_f64().unwrap_or(0.0).round() as u32,
        ),
        jpeg: jpeg_size(&jpeg),
    };
    let painted = metadata["timestamp"].as_f64();
    let (slot, cap, settle) = {
        let mut casting = shared.casting.lock().expect("casting lock");
        let running = casting.get_mut(session)?;
        if painted.zip(running.newest).is_some_and(|(p, n)| p < n) {
            return None;
        }
        running.newest = painted.or(running.newest);
        let settle = (sent == Sent::Cast)
            .then(|| running.settle.clone())
            .flatten();
        (running.frames.clone(), running.cap, settle)
    };
    // The view's size, scaled up by the tab's pixel scale: CSS px once divided.
    let (width, height) = shared.scales.css_size(session, sizes.view);
    let seq = slot.borrow().as_ref().map_or(0, |f| f.seq) + 1;
    let stamps = stamps();
    if let Some(stamps) = &stamps {
        frame_stages::published(stamps);
    }
    slot.send_replace(Some(Arc::new(Frame {
        jpeg: Bytes::from(jpeg),
        width,
        height,
        seq,
        stamps,
    })));
    shared.published.send_modify(|n| *n += 1);
    if let Some(settle) = settle {
        settle.send_modify(|n| *n += 1);
    }
    Some((sizes, cap))
}

/// The sizes of one frame: the view's (as Chrome's metadata says) and the JPEG's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Sizes {
    pub(super) view: (u32, u32),
    jpeg: Option<(u32, u32)>,
}

/// Whether Chrome's capture kept its old size while the view changed size. Chrome sizes its
/// capture from the next frame painted after the change, and a still page paints none (seen
/// on Chromium 156 after a pixel-scale change): restarting the cast sizes it afresh. Two
/// signs, each looked at only when the view is new (a session's first frame, or a changed
/// view), so a cast is restarted at most once per size: the JPEG kept the last frame's size,
/// or it is not of the view's shape (a cast started while a resize was still being laid out
/// sent its one frame of a still page at the old size under the new metadata: seen once in
/// `make test`, a 640×480 view in a frame of the old size and no frame after it). A frame of
/// the size the cast's `cap` makes of the view is never stale.
pub(super) fn stale_capture(before: Option<&Sizes>, now: &Sizes, cap: (u32, u32)) -> bool {
    let Some(jpeg) = now.jpeg else { return false };
    if capped(now.view, cap).is_some_and(|fit| near(fit, jpeg)) {
        return false;
    }
    match before {
        Some(before) if before.view == now.view => false,
        Some(before) if before.jpeg == now.jpeg => true,
        _ => !same_shape(now.view, jpeg),
    }
}

/// The size Chrome makes of a `view` capped at `cap` (aspect kept), when the cap shrinks it.
fn capped(view: (u32, u32), cap: (u32, u32)) -> Option<(u32, u32)> {
    if view.0 == 0 || view.1 == 0 {
        return None;
    }
    let shrink = (f64::from(cap.0) / f64::from(view.0)).min(f64::from(cap.1) / f64::from(view.1));
    if shrink >= 1.0 {
        return None;
    }
    let side = |s: u32| (f64::from(s) * shrink).round() as u32;
    Some((side(view.0), side(view.1)))
}

/// Whether two sizes are within 2 px a side (Chrome rounds scaled captures to even sizes).
fn near(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0.abs_diff(b.0) <= 2 && a.1.abs_diff(b.1) <= 2
}

/// Whether `jpeg` has the aspect ratio of `view`, within 2 % (rounding of scaled sizes).
fn same_shape(view: (u32, u32), jpeg: (u32, u32)) -> bool {
    if view.0 == 0 || view.1 == 0 || jpeg.0 == 0 || jpeg.1 == 0 {
        return true;
    }
    let across = u64::from(jpeg.0) * u64::from(view.1);
    let down = u64::from(jpeg.1) * u64::from(view.0);
    across.abs_diff(down) * 50 <= across.max(down)
}

/// Width and height from a JPEG's start-of-frame header.
fn jpeg_size(jpeg: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    while at + 9 <= jpeg.len() {
        if jpeg[at] != 0xFF {
            at += 1;
            continue;
        }
        let marker = jpeg[at + 1];
        if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            let height = u16::from_be_bytes([jpeg[at + 5], jpeg[at + 6]]);
            let width = u16::from_be_bytes([jpeg[at + 7], jpeg[at + 8]]);
            return Some((u32::from(width), u32::from(height)));
        }
        let length = u16::from_be_bytes([jpeg[at + 2], jpeg[at + 3]]) as usize;
        at += 2 + length;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_that_changed_size_under_an_unchanged_capture_is_stale() {
        let frame = |view, jpeg| Sizes {
            view,
            jpeg: Some(jpeg),
        };
        let before = frame((800, 600), (800, 600));
        assert!(stale_capture(
            Some(&before),
            &frame((1600, 1200), (800, 600)),
            FRAME_CAP
        ));
        assert!(!stale_capture(
            Some(&before),
            &frame((1600, 1200), (1600, 1200)),
            FRAME_CAP
        ));
        assert!(!stale_capture(
            Some(&before),
            &frame((800, 600), (800, 600)),
            FRAME_CAP
        ));
        assert!(!stale_capture(
            None,
            &frame((1600, 1200), (800, 600)),
            FRAME_CAP
        ));
    }

    #[test]
    fn a_first_frame_not_of_the_views_shape_is_stale_once() {
        let frame = |view, jpeg| Sizes {
            view,
            jpeg: Some(jpeg),
        };
        // A 640×480 view whose one frame still has the old 1280×720 capture.
        let first = frame((640, 480), (1280, 720));
        assert!(stale_capture(None, &first, FRAME_CAP));
        // Not again at the same view: a cast is restarted at most once per size.
        assert!(!stale_capture(
            Some(&first),
            &frame((640, 480), (1280, 720)),
            FRAME_CAP
        ));
        // Frames of the view's shape, scaled or rounded, are not stale.
        assert!(!stale_capture(
            None,
            &frame((640, 480), (1280, 960)),
            FRAME_CAP
        ));
        assert!(!stale_capture(
            None,
            &frame((641, 481), (962, 722)),
            FRAME_CAP
        ));
        assert!(!stale_capture(None, &frame((0, 0), (1280, 720)), FRAME_CAP));
        assert!(!stale_capture(
            None,
            &Sizes {
                view: (640, 480),
                jpeg: None
            },
            FRAME_CAP
        ));
        // A changed view whose new frame is of another shape.
        assert!(stale_capture(
            Some(&frame((800, 800), (800, 800))),
            &frame((640, 480), (1280, 720)),
            FRAME_CAP
        ));
    }

    #[test]
    fn a_frame_of_the_capped_size_is_never_stale() {
        let frame = |view, jpeg| Sizes {
            view,
            jpeg: Some(jpeg),
        };
        let css = (800, 600);
        // Scale 1 → 2 under a cast capped at the CSS size: the JPEG keeps its size.
        let before = frame((800, 600), (800, 600));
        assert!(!stale_capture(
            Some(&before),
            &frame((1600, 1200), (800, 600)),
            css
        ));
        assert!(!stale_capture(None, &frame((1601, 1201), (800, 600)), css));
        // Uncapped, the same frames are stale (the capture kept its old size).
        assert!(stale_capture(
            Some(&before),
            &frame((1600, 1200), (800, 600)),
            FRAME_CAP
        ));
        // Capped, a frame of another size is judged as before.
        assert!(stale_capture(
            Some(&frame((1280, 720), (640, 360))),
            &frame((1600, 1200), (640, 360)),
            css
        ));
        assert_eq!(capped((1600, 1200), css), Some((800, 600)));
        assert_eq!(capped((800, 600), css), None);
        assert_eq!(capped((0, 0), css), None);
    }

    #[test]
    fn jpeg_sizes_are_read_from_the_frame_header() {
        let mut jpeg = image::RgbImage::new(40, 30);
        jpeg.put_pixel(0, 0, image::Rgb([255, 0, 0]));
        let mut bytes = std::io::Cursor::new(Vec::new());
        jpeg.write_to(&mut bytes, image::ImageFormat::Jpeg).unwrap();
        assert_eq!(jpeg_size(bytes.get_ref()), Some((40, 30)));
        assert_eq!(jpeg_size(&[0xFF, 0xD8, 0xFF]), None);
    }
}
