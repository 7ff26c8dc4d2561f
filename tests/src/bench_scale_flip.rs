//! A design for pixel density measured on raw CDP, not used by the daemon (issue 35): the tab
//! keeps `devicePixelRatio` 2 (`deviceScaleFactor` 2, so the page lays out and loads images as
//! it does now) while its view renders at scale 1 as long as the cast sends frames; once the
//! cast was quiet for [`SETTLE`] the view flips to scale 2 for one full-size frame (the sharp
//! one) and back at once, so the next motion starts at scale 1. The frame of the flip back
//! is dropped when it is the same JPEG as the last scale-1 frame (the page did not change).
//!
//! Measured on Chromium 156 headless (`porthole-bench scale`): motion as fast as scale 1 and
//! sharp within ~110–140 ms. What keeps it out of the daemon: a flip is two calls
//! (`setDeviceMetricsOverride`, then `setVisibleSize`), and Chrome may cast a frame between
//! them, of the old surface at the new size (the page drawn at half size, or a quarter of it
//! at twice): the bench counts such frames (their painted clock is nonsense). And input
//! coordinates are view pixels, so they would change with every flip.

use std::time::Duration;

use porthole::cdp::CdpConnection;
use serde_json::json;
use tokio::time::Instant;

use crate::raw_cdp;
use crate::stream_stats::now_ms24;

/// How long the cast sends nothing before the view flips to scale 2 (as the daemon's settle).
const SETTLE: Duration = Duration::from_millis(50);

/// What the flips did over a window.
#[derive(Debug, Default)]
pub struct Flips {
    /// Flips to scale 2 and back.
    pub ups: usize,
    pub downs: usize,
    /// Frames of the flip back dropped as the same JPEG as the last scale-1 frame.
    pub dropped: usize,
    /// Frames of the flip back that differed from it (published).
    pub differed: usize,
}

/// The view of the tab behind `session` at `scale` (800×600 CSS px, `devicePixelRatio` 2).
async fn view(cdp: &CdpConnection, session: &str, scale: u32, css: (u32, u32)) {
    let metrics = json!({"width": css.0, "height": css.1, "deviceScaleFactor": 2,
                         "scale": scale, "mobile": false, "dontSetVisibleSize": true});
    let visible = json!({"width": css.0 * scale, "height": css.1 * scale});
    let (a, b) = tokio::join!(
        biased;
        cdp.call_on(session, "Emulation.setDeviceMetricsOverride", metrics),
        cdp.call_on(session, "Emulation.setVisibleSize", visible)
    );
    a.expect("setDeviceMetricsOverride");
    b.expect("setVisibleSize");
}

/// A raw cast of `target` (CSS size `css`) for `window` with the view flipped as the module
/// doc says: the frames it would publish, stamped on arrival (JPEG), and what the flips did.
/// The tab is left at view scale 2 (overrides are the tab's, not the session's: they replace the
/// daemon's layout of it).
pub async fn frames(
    cdp: &CdpConnection,
    target: &str,
    css: (u32, u32),
    window: Duration,
) -> (Vec<(i64, Vec<u8>)>, Flips) {
    let session = raw_cdp::attach(cdp, target).await;
    view(cdp, &session, 1, css).await;
    let params = json!({"format": "jpeg", "quality": 60});
    let mut events = raw_cdp::start_screencast(cdp, &session, params).await;
    let mut flips = Flips::default();
    let mut published: Vec<(i64, String)> = Vec::new();
    let (mut high, mut flipped_back, mut still) = (false, false, false);
    let mut last_low: Option<String> = None;
    let end = Instant::now() + window;
    while Instant::now() < end {
        let event = match tokio::time::timeout(SETTLE, events.recv()).await {
            Ok(Ok(event)) => event,
            Ok(Err(_)) => break,
            Err(_) => {
                if !high && !still {
                    view(cdp, &session, 2, css).await;
                    (high, flips.ups) = (true, flips.ups + 1);
                }
                continue;
            }
        };
        let arrived = now_ms24();
        if !raw_cdp::ack_frame(cdp, &event, &session) {
            continue;
        }
        let data = event.params["data"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let full = event.params["metadata"]["deviceWidth"].as_f64() >= Some(f64::from(css.0 * 2));
        if high && full {
            // The sharp frame: published, and straight back to scale 1.
            published.push((arrived, data));
            view(cdp, &session, 1, css).await;
            (high, flipped_back, still) = (false, true, true);
            flips.downs += 1;
            continue;
        }
        if flipped_back && !full {
            flipped_back = false;
            if last_low.as_ref() == Some(&data) {
                flips.dropped += 1;
                continue;
            }
            flips.differed += 1;
        }
        still = false;
        if !full {
            last_low = Some(data.clone());
        }
        published.push((arrived, data));
    }
    let _ = cdp
        .call_on(&session, "Page.stopScreencast", json!({}))
        .await;
    view(cdp, &session, 2, css).await;
    let _ = cdp
        .call("Target.detachFromTarget", json!({ "sessionId": session }))
        .await;
    (raw_cdp::decoded(published), flips)
}
