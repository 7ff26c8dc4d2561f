//! A design for pixel density measured on raw CDP, not used by the daemon (issue 35): the tab
//! keeps `devicePixelRatio` 2 (`deviceScaleFactor` 2, so the page lays out and loads images as
//! it does now) while its view renders at scale 1 as long as the cast sends frames; once the
//! cast was quiet for [`SETTLE`] the view flips to scale 2 for one full-size frame (the sharp
//! one) and back at once, so the next motion starts at scale 1. The frame of the flip back
//! is dropped when it is the same JPEG as the last scale-1 frame (the page did not change).
//!
//! The flip up is two calls (`setDeviceMetricsOverride` with `dontSetVisibleSize`, then
//! `setVisibleSize`), and Chrome may cast a frame between them, of the old surface at the new
//! size (the page drawn at half size): frames narrower than full size while flipped up are
//! held, never published. The flip back is one call (`setDeviceMetricsOverride` at the CSS
//! size, which sets the visible size too): with two calls there, Chrome cast such frames at
//! full size as well, which would be published as the sharp one.
//!
//! Measured on Chromium 156 headless (`porthole-bench scale`, three runs): motion 11–12 ms
//! against raw scale 1's 8–9 (1.33–1.50×), no frame held or of neither layout, but 1 to 5 of
//! 8 still periods never sharp: after some flips up Chrome casts nothing until the page paints
//! again (seen: the first full-size frame ~500 ms after the flip, of the next period's motion),
//! so the still page stays blurry. Tried against it, neither helped (2 runs each, late 1–3 of
//! 8–9): a second session's cast started right after the flip up (the daemon's way of getting a
//! frame of a still page; some of its frames were of neither layout), and toggling
//! `Emulation.setDefaultBackgroundColorOverride` at each flip up. The sharp frames that come
//! take 108–119 ms median. What else keeps it out of the daemon: input coordinates are view
//! pixels, so they would change with every flip (a click racing a flip lands at half or twice
//! its place).

use std::time::Duration;

use porthole::bench_hooks::cdp::CdpConnection;
use porthole_tests::raw_cdp;
use serde_json::json;
use tokio::time::Instant;

use crate::raw_screencast;
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
    /// Frames narrower than full size cast while flipped up (held, not published).
    pub held: usize,
}

/// Flips the view of the tab behind `session` to scale 2 (800×600 CSS px at 1600×1200 view px,
/// `devicePixelRatio` 2): two calls, as the daemon lays out a scale.
async fn view_up(cdp: &CdpConnection, session: &str, css: (u32, u32)) {
    let metrics = json!({"width": css.0, "height": css.1, "deviceScaleFactor": 2,
                         "scale": 2, "mobile": false, "dontSetVisibleSize": true});
    let visible = json!({"width": css.0 * 2, "height": css.1 * 2});
    let (a, b) = tokio::join!(
        biased;
        cdp.call_on(session, "Emulation.setDeviceMetricsOverride", metrics),
        cdp.call_on(session, "Emulation.setVisibleSize", visible)
    );
    a.expect("setDeviceMetricsOverride");
    b.expect("setVisibleSize");
}

/// Flips the view back to scale 1 (`devicePixelRatio` still 2) in one call: the metrics set the
/// visible size to the CSS size.
async fn view_down(cdp: &CdpConnection, session: &str, css: (u32, u32)) {
    let metrics = json!({"width": css.0, "height": css.1, "deviceScaleFactor": 2,
                         "scale": 1, "mobile": false});
    cdp.call_on(session, "Emulation.setDeviceMetricsOverride", metrics)
        .await
        .expect("setDeviceMetricsOverride");
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
    view_down(cdp, &session, css).await;
    let params = json!({"format": "jpeg", "quality": 60});
    let mut events = raw_screencast::start_screencast(cdp, &session, params).await;
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
                    view_up(cdp, &session, css).await;
                    (high, flips.ups) = (true, flips.ups + 1);
                }
                continue;
            }
        };
        let arrived = now_ms24();
        if !raw_screencast::ack_frame(cdp, &event, &session) {
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
            view_down(cdp, &session, css).await;
            (high, flipped_back, still) = (false, true, true);
            flips.downs += 1;
            continue;
        }
        if high {
            // Between the flip's two calls, or a frame of scale 1 already on its way.
            flips.held += 1;
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
    view_up(cdp, &session, css).await;
    let _ = cdp
        .call("Target.detachFromTarget", json!({ "sessionId": session }))
        .await;
    (raw_screencast::decoded(published), flips)
}
