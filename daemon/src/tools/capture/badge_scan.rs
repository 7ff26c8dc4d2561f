//! `screenshot {badges: true}`: what gets a badge and where, then the capture it is drawn on.
//!
//! The main document's helper finds what is clickable there (same-origin iframes included).
//! Cross-origin frames run in other processes, so each is asked through its own session (kept
//! in the tab's ref book, [`crate::tools::tab::iframes`]; frames inside them too); its boxes come in the
//! frame's coordinates and are moved to where the frame sits in the viewport, cut to the part
//! of it that shows, and kept only where the hit test of each document on the way down lands on
//! the `<iframe>` it holds (a dialog over the frame, or over a frame around it, hides its
//! badges). The refs a frame issues are recorded as that frame's, so
//! `computer {ref}` clicks there like a ref from `read_page` or `find`.

use std::time::Duration;

use porthole_mcp::vocabulary::ImageFormat;
use porthole_mcp::ToolOutput;
use serde_json::{json, Value};

use crate::tools::capture::badges::Badge;
use crate::tools::error::ToolError;
use crate::tools::tab::driver::{helper_on, Tab};
use crate::tools::tab::element_refs::{self as refs, FrameRefs};
use crate::tools::tab::iframes as frames;

/// The most badges drawn on one screenshot.
const MAX_BADGES: u64 = 150;

/// A badge and its line in the listing (`e12 button "Send"`).
struct Found {
    badge: Badge,
    what: String,
}

/// The viewport with each clickable thing's ref drawn on it, and the refs listed.
pub async fn capture_with_badges(
    tab: &Tab,
    format: Option<ImageFormat>,
) -> Result<ToolOutput, ToolError> {
    use base64::Engine as _;
    let base = refs::book(tab).next;
    let main = tab
        .helper("badges", &[Value::from(base), Value::from(MAX_BADGES)])
        .await?;
    refs::advance(tab, main["next"].as_u64().unwrap_or(base));
    let mut found = parse(&main, (0.0, 0.0));
    let viewport = (
        main["width"].as_f64().unwrap_or(0.0),
        main["height"].as_f64().unwrap_or(0.0),
    );
    if (found.len() as u64) < MAX_BADGES {
        for frame in frames::sessions(tab).await {
            let left = MAX_BADGES.saturating_sub(found.len() as u64);
            if left == 0 {
                break;
            }
            found.extend(in_frame(tab, &frame, left, viewport).await);
        }
    }
    let shot = tab
        .cdp()
        .call_with(
            "Page.captureScreenshot",
            json!({"format": "jpeg", "quality": 90}),
            Some(&tab.session_id),
            Duration::from_secs(15),
        )
        .await?;
    let engine = base64::engine::general_purpose::STANDARD;
    let bytes = shot["data"]
        .as_str()
        .and_then(|d| engine.decode(d).ok())
        .ok_or_else(|| ToolError::msg("the browser returned no screenshot data; try again"))?;
    let mut img = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
        .map_err(|e| ToolError::msg(format!("the screenshot could not be read ({e}); try again")))?
        .to_rgb8();
    let css_width = Some(viewport.0).filter(|w| *w > 0.0).unwrap_or(1.0);
    let scale = f64::from(img.width()) / css_width;
    let badges: Vec<Badge> = found.iter().map(|f| f.badge.clone()).collect();
    crate::tools::capture::badges::draw(&mut img, &badges, scale);
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 80)
        .encode_image(&img)
        .map_err(|e| ToolError::msg(format!("the badges could not be drawn ({e})")))?;
    let (w, h) = tab.browser.viewport();
    let mut text = format!(
        "Screenshot of the {w}x{h} viewport with {} badge(s); act on one with computer {{ref}}:",
        found.len()
    );
    if format == Some(ImageFormat::Png) {
        text.push_str(" (JPEG: badges come as JPEG)");
    }
    if found.is_empty() {
        text.push_str("\n(nothing clickable in view)");
    }
    for f in &found {
        text.push('\n');
        text.push_str(&f.badge.label);
        text.push(' ');
        text.push_str(&f.what);
    }
    Ok(ToolOutput::image(engine.encode(&jpeg), ImageFormat::Jpeg.mime_type()).with_text(text))
}

/// The badges of a helper's `badges()` answer, moved by `offset` (CSS px).
fn parse(answer: &Value, offset: (f64, f64)) -> Vec<Found> {
    let number = |b: &Value, k: &str| b[k].as_f64().unwrap_or(0.0);
    answer["badges"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| Found {
            badge: Badge {
                label: b["ref"].as_str().unwrap_or_default().to_string(),
                x: number(b, "x") + offset.0,
                y: number(b, "y") + offset.1,
                w: number(b, "w"),
                h: number(b, "h"),
            },
            what: b["what"].as_str().unwrap_or_default().to_string(),
        })
        .collect()
}

/// Up to `left` badges of one cross-origin frame, in viewport coordinates; none when the frame
/// does not answer or is out of view.
async fn in_frame(tab: &Tab, frame: &FrameRefs, left: u64, viewport: (f64, f64)) -> Vec<Found> {
    let placed = match frames::place(tab, frame, &refs::book(tab).frames).await {
        Ok(placed) => placed,
        Err(error) => {
            tracing::debug!(event = "frame_not_placed", target_id = %frame.target_id, %error);
            return Vec::new();
        }
    };
    let (ox, oy) = (placed.x, placed.y);
    let shown = Rect {
        x0: placed.shown.0.max(0.0),
        y0: placed.shown.1.max(0.0),
        x1: placed.shown.2.min(viewport.0),
        y1: placed.shown.3.min(viewport.1),
    };
    if shown.x1 - shown.x0 < 2.0 || shown.y1 - shown.y0 < 2.0 {
        return Vec::new();
    }
    let lo = refs::book(tab).next;
    let args = [Value::from(lo), Value::from(left)];
    let answer = match helper_on(&tab.browser, &frame.session_id, "badges", &args).await {
        Ok(answer) => answer,
        Err(error) => {
            tracing::debug!(event = "frame_badges_failed", target_id = %frame.target_id, %error);
            return Vec::new();
        }
    };
    frames::record(tab, frame, lo, answer["next"].as_u64().unwrap_or(lo));
    let cut: Vec<Found> = parse(&answer, (ox, oy))
        .into_iter()
        .filter_map(|f| shown.cut(f))
        .collect();
    // Keep only badges the frame shows: at each badge's centre, the hit test of every document
    // on the way down (in its own coordinates) must land on the <iframe> it holds.
    let mut shown_at = vec![true; cut.len()];
    for holder in &placed.holders {
        let (dx, dy) = holder.doc_origin;
        let centres: Vec<Value> = cut
            .iter()
            .map(|f| {
                json!([
                    f.badge.x + f.badge.w / 2.0 - dx,
                    f.badge.y + f.badge.h / 2.0 - dy
                ])
            })
            .collect();
        let shows = helper_on(
            &tab.browser,
            &holder.doc_session,
            "frameShows",
            &[
                Value::from(holder.iframe_ref.as_str()),
                Value::from(centres),
            ],
        )
        .await
        .unwrap_or(Value::Null);
        for (i, keep) in shown_at.iter_mut().enumerate() {
            *keep &= shows[i].as_bool() == Some(true);
        }
    }
    cut.into_iter()
        .zip(shown_at)
        .filter(|(_, shown)| *shown)
        .map(|(f, _)| f)
        .collect()
}

/// The part of the viewport a frame shows in (CSS px).
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    /// `found` cut to this rectangle; `None` when less than 2 px of it is left either way.
    fn cut(&self, mut found: Found) -> Option<Found> {
        let b = &mut found.badge;
        let (x0, y0) = (b.x.max(self.x0), b.y.max(self.y0));
        let (x1, y1) = ((b.x + b.w).min(self.x1), (b.y + b.h).min(self.y1));
        if x1 - x0 < 2.0 || y1 - y0 < 2.0 {
            return None;
        }
        (b.x, b.y, b.w, b.h) = (x0, y0, x1 - x0, y1 - y0);
        Some(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(x: f64, y: f64, w: f64, h: f64) -> Found {
        Found {
            badge: Badge {
                label: "e1".into(),
                x,
                y,
                w,
                h,
            },
            what: "button".into(),
        }
    }

    #[test]
    fn a_frame_badge_is_cut_to_the_part_of_the_frame_that_shows() {
        let shown = Rect {
            x0: 100.0,
            y0: 50.0,
            x1: 300.0,
            y1: 150.0,
        };
        let inside = shown.cut(found(120.0, 60.0, 40.0, 20.0)).expect("inside");
        assert_eq!((inside.badge.x, inside.badge.w), (120.0, 40.0));
        let across = shown.cut(found(280.0, 140.0, 40.0, 40.0)).expect("across");
        assert_eq!(
            (
                across.badge.x,
                across.badge.y,
                across.badge.w,
                across.badge.h
            ),
            (280.0, 140.0, 20.0, 10.0)
        );
        assert!(shown.cut(found(299.0, 60.0, 40.0, 20.0)).is_none());
        assert!(shown.cut(found(10.0, 10.0, 40.0, 20.0)).is_none());
    }

    #[test]
    fn parsed_badges_move_by_the_frame_offset() {
        let answer = json!({"badges": [{"ref": "e4", "x": 1, "y": 2, "w": 3, "h": 4, "what": "link \"A\""}]});
        let parsed = parse(&answer, (10.0, 20.0));
        assert_eq!(parsed.len(), 1);
        assert_eq!((parsed[0].badge.x, parsed[0].badge.y), (11.0, 22.0));
        assert_eq!(parsed[0].what, "link \"A\"");
        assert!(parse(&json!({}), (0.0, 0.0)).is_empty());
    }
}
