//! The size each tab is laid out at, applied in the order the sizes were asked for.
//!
//! Several parties size a tab: a pane moving to it or resizing, the channel switching its
//! active tab, an agent opening its tab. Some do it from spawned tasks. Sent as independent
//! CDP calls, an earlier request could run last and undo a pane's resize. Here a request
//! records the wanted size at once (in call order) and then applies the tab's latest wanted
//! size under the tab's own lock, so a tab always ends at the size asked for last.
//!
//! Pixel density (DESIGN.md §15): a channel's tabs lay out at their CSS size with
//! `devicePixelRatio` = the scale its panes asked for last (`screencast {scale}`, 1–3; several
//! panes on one channel share it: the last one asked wins, and every pane is told the CSS size
//! in `viewport` and gets the same frames, which it draws at that CSS size), so frames carry
//! scale× the pixels while every coordinate stays in CSS px.
//!
//! How (measured on Chromium 156 headless, local and in the docker image): a screencast frame
//! is the view's visible surface, whose pixels follow the browser's real device scale factor,
//! not an emulated `deviceScaleFactor` (alone it changes `devicePixelRatio`, frames stay CSS
//! size). Emulation's `scale` (the view image scale) alone makes the content larger but keeps
//! the visible surface at the CSS size, so frames show the top-left quarter; a screencast
//! restart, a repaint nudge or a larger window do not change that (a larger window gives
//! frames of the window's size with browser UI rows below the page). What works:
//! `Emulation.setDeviceMetricsOverride {width, height, deviceScaleFactor: scale, scale,
//! dontSetVisibleSize: true}` then `Emulation.setVisibleSize {width·scale, height·scale}`:
//! the page lays out at `width`×`height` CSS px with `devicePixelRatio` = scale, and the next
//! frames (painted because the surface changed size, even on a still page, with no cast
//! restart) are `width·scale`×`height·scale` with metadata `deviceWidth`/`deviceHeight` the
//! same. Under the view scale `Input.dispatchMouseEvent` takes view pixels (CSS × scale)
//! while its wheel deltas and `Input.dispatchDragEvent` stay CSS px, so `input::dispatch`
//! multiplies coordinates by the tab's [`AppliedScales`] entry; `Page.captureScreenshot`
//! gives scale× the pixels. The screencast hub reports frames in CSS px by matching their
//! size against the layouts sent ([`AppliedScales::css_size`]).
//! `--force-device-scale-factor=2` also gives 2× frames with CSS input, but for the whole
//! browser and all scales alike (a 1× pane would cost 2× rendering), so it is not used.
//! Page zoom (`zoom {factor}`) rides on the same calls: see `size_viewport`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::cdp::{CdpConnection, CdpError};

/// Smallest and largest page size a tab is laid out at (CSS px, each side).
const SIDE: std::ops::RangeInclusive<u32> = 100..=8192;

/// The pixel densities a pane may ask for (`screencast {scale}`).
pub const SCALES: std::ops::RangeInclusive<f64> = 1.0..=3.0;

/// The page zoom factors a pane may ask for (`zoom {factor}`, like Chrome's 25 %–500 %).
pub const ZOOMS: std::ops::RangeInclusive<f64> = 0.25..=5.0;

/// Called with a flat session whose scale changed, or whose size changed at a scale above 1.
type OnChange = Box<dyn Fn(&str) + Send + Sync>;

/// The scale Chrome was last told for each tab, by flat CDP session (absent: 1). Shared
/// with the screencast hub, which restarts a tab's cast when its scale changes (Chrome sizes
/// its capture on the next painted frame, and a still page paints none), or when its size
/// changes at a scale above 1 (such a cast is capped at the tab's CSS size, see
/// `screencast`). Short locks, never held across an await.
#[derive(Clone, Default)]
pub struct AppliedScales(Arc<ScalesInner>);

#[derive(Default)]
struct ScalesInner {
    /// Scale and CSS size last applied, by session (absent: scale 1).
    by_session: Mutex<HashMap<String, Applied>>,
    /// The layouts last sent to each tab, newest last.
    sent: Mutex<HashMap<String, Vec<SentLayout>>>,
    on_change: Mutex<Option<OnChange>>,
}

/// A tab's applied scale and CSS size.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Applied {
    scale: f64,
    css: (u32, u32),
}

/// A layout sent to a tab: its frame size in device px, and its scale.
type SentLayout = ((u32, u32), f64);

/// How many of a tab's latest layouts frames are matched against (frames of an older one
/// may still arrive while a newer one is sent).
const RECENT_LAYOUTS: usize = 3;

impl std::fmt::Debug for AppliedScales {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("AppliedScales")
            .field(&self.0.by_session.lock().expect("scales lock"))
            .finish()
    }
}

impl AppliedScales {
    /// The scale of the tab behind `session` (1 unless laid out otherwise).
    pub fn of(&self, session: &str) -> f64 {
        let scales = self.0.by_session.lock().expect("scales lock");
        scales.get(session).map_or(1.0, |applied| applied.scale)
    }

    /// The CSS size the tab behind `session` was last laid out at, when its scale is above 1.
    pub fn scaled_css(&self, session: &str) -> Option<(u32, u32)> {
        let scales = self.0.by_session.lock().expect("scales lock");
        scales.get(session).map(|applied| applied.css)
    }

    /// The CSS size of a frame of `device` pixels (Chrome's `deviceWidth`/`deviceHeight`) of
    /// the tab behind `session`: divided by the scale of the newest layout sent of that frame
    /// size, else by the tab's scale (a frame may arrive between a layout's call and its
    /// answer, or just after, still of the one before).
    pub fn css_size(&self, session: &str, device: (u32, u32)) -> (u32, u32) {
        let scale = {
            let sent = self.0.sent.lock().expect("sent lock");
            sent.get(session)
                .and_then(|recent| recent.iter().rev().find(|(size, _)| *size == device))
                .map(|(_, scale)| *scale)
        }
        .unwrap_or_else(|| self.of(session));
        let css = |side: u32| (f64::from(side) / scale).round() as u32;
        (css(device.0), css(device.1))
    }

    /// Records that the tab behind `session` is being laid out at `size` CSS px and `scale`.
    fn sending(&self, session: &str, size: (u32, u32), scale: f64) {
        let device = scaled(size, scale);
        let mut sent = self.0.sent.lock().expect("sent lock");
        let recent = sent.entry(session.to_string()).or_default();
        recent.retain(|(d, s)| (*d, *s) != (device, scale));
        recent.push((device, scale));
        if recent.len() > RECENT_LAYOUTS {
            recent.remove(0);
        }
    }

    /// Calls `on_change` with each session whose scale changes from now on.
    pub fn on_change(&self, on_change: OnChange) {
        *self.0.on_change.lock().expect("on_change lock") = Some(on_change);
    }

    /// Records the tab behind `session` as laid out at `css` px and `scale`.
    fn set(&self, session: &str, css: (u32, u32), scale: f64) {
        let now = Applied { scale, css };
        let before = {
            let mut scales = self.0.by_session.lock().expect("scales lock");
            if scale == 1.0 {
                scales.remove(session)
            } else {
                scales.insert(session.to_string(), now)
            }
        };
        let changed = match before {
            Some(before) => before != now,
            None => scale != 1.0,
        };
        if changed {
            if let Some(on_change) = self.0.on_change.lock().expect("on_change lock").as_ref() {
                on_change(session);
            }
        }
    }
}

/// The tabs' layouts by flat CDP session. Short locks, never held across an await.
#[derive(Debug)]
pub struct Layouts {
    by_session: Mutex<HashMap<String, Arc<Layout>>>,
    /// The device pixel ratio every tab is laid out with.
    scale: Mutex<f64>,
    applied: AppliedScales,
}

impl Default for Layouts {
    fn default() -> Self {
        Self {
            by_session: Mutex::default(),
            scale: Mutex::new(1.0),
            applied: AppliedScales::default(),
        }
    }
}

#[derive(Debug, Default)]
struct Layout {
    /// The size (CSS px) and device pixel ratio asked for last. Short lock.
    wanted: Mutex<((u32, u32), f64)>,
    /// The page zoom the person chose for this tab (`None`: 100 %). Short lock.
    zoom: Mutex<Option<f64>>,
    /// Held while a size is sent, so calls reach Chrome one at a time.
    sending: tokio::sync::Mutex<()>,
}

/// A size recorded for a tab, to be sent with [`Requested::apply`].
#[must_use = "the size is only recorded; apply() lays the tab out"]
pub struct Requested {
    layout: Arc<Layout>,
    session: String,
    applied: AppliedScales,
}

impl Layouts {
    /// Records `size` (clamped to 100..=8192 a side) as the one the tab behind `session`
    /// should end at.
    pub fn request(&self, session: &str, size: (u32, u32)) -> Requested {
        let size = clamp(size);
        let scale = *self.scale.lock().expect("scale lock");
        let layout = self
            .by_session
            .lock()
            .expect("layouts lock")
            .entry(session.to_string())
            .or_default()
            .clone();
        *layout.wanted.lock().expect("wanted lock") = (size, scale);
        Requested {
            layout,
            session: session.to_string(),
            applied: self.applied.clone(),
        }
    }

    /// Sets the device pixel ratio tabs are laid out with from now on (checked against
    /// [`SCALES`] by the caller); true when it changed.
    pub fn set_scale(&self, scale: f64) -> bool {
        let mut now = self.scale.lock().expect("scale lock");
        let changed = *now != scale;
        *now = scale;
        changed
    }

    /// Sets the page zoom of the tab behind `session` (checked against [`ZOOMS`] by the
    /// caller), keeping its size (or `size` when it has none yet).
    pub fn zoom(&self, session: &str, factor: f64, size: (u32, u32)) -> Requested {
        let size = self.wanted_size(session).unwrap_or(size);
        let requested = self.request(session, size);
        *requested.layout.zoom.lock().expect("zoom lock") = Some(factor);
        requested
    }

    /// The size last asked for the tab behind `session`, if any.
    pub(in crate::browser) fn wanted_size(&self, session: &str) -> Option<(u32, u32)> {
        let layout = self
            .by_session
            .lock()
            .expect("layouts lock")
            .get(session)
            .cloned()?;
        let (size, _) = *layout.wanted.lock().expect("wanted lock");
        Some(size)
    }

    /// The scales Chrome was told, for the screencast hub and input.
    pub fn applied(&self) -> &AppliedScales {
        &self.applied
    }

    /// Forgets the layout of a session that ended (its tab closed).
    pub fn forget(&self, session: &str) {
        self.applied.set(session, (0, 0), 1.0);
        self.applied
            .0
            .sent
            .lock()
            .expect("sent lock")
            .remove(session);
        self.by_session
            .lock()
            .expect("layouts lock")
            .remove(session);
    }
}

/// `size` brought within 100..=8192 CSS px a side.
pub fn clamp(size: (u32, u32)) -> (u32, u32) {
    (
        size.0.clamp(*SIDE.start(), *SIDE.end()),
        size.1.clamp(*SIDE.start(), *SIDE.end()),
    )
}

impl Requested {
    /// Lays the tab out at its latest wanted size (this request's, or a later one's).
    pub async fn apply(self, cdp: &CdpConnection) -> Result<(), CdpError> {
        let _one_at_a_time = self.layout.sending.lock().await;
        let (size, scale) = *self.layout.wanted.lock().expect("wanted lock");
        let zoom = self.layout.zoom.lock().expect("zoom lock").unwrap_or(1.0);
        self.applied.sending(&self.session, size, scale);
        size_viewport(cdp, &self.session, size, scale, zoom).await?;
        // Input is scaled from now on; a changed scale (or size at a scale above 1) restarts
        // the tab's cast (see `AppliedScales`), so a fresh capture starts at the new size.
        self.applied.set(&self.session, size, scale);
        Ok(())
    }
}

/// Makes a still page paint once more, so a cast just started sends a first frame. Setting
/// the default background to what it is and clearing it again changes nothing a person or
/// page can see.
pub(in crate::browser) async fn repaint(cdp: &CdpConnection, session: &str) {
    let white = json!({"color": {"r": 255, "g": 255, "b": 255, "a": 1}});
    let method = "Emulation.setDefaultBackgroundColorOverride";
    // Both sent at once (in order): one round trip.
    let _ = tokio::join!(
        biased;
        cdp.call_on(session, method, white),
        cdp.call_on(session, method, json!({}))
    );
}

/// `size` CSS px in device px at `scale`.
fn scaled(size: (u32, u32), scale: f64) -> (u32, u32) {
    let side = |css: u32| (f64::from(css) * scale).round() as u32;
    (side(size.0), side(size.1))
}

/// Makes the tab behind `session` show `size` pane px with `scale` device pixels per pane px,
/// its frames `size`·`scale` pixels (see the module doc), and the page zoomed by `zoom` as
/// Chrome's own zoom does it: layout at `size`/`zoom` CSS px with `devicePixelRatio`
/// `scale`·`zoom` (verified on Chromium 156: zoom 2 of an 800×600 pane gives `innerWidth`
/// 400, `devicePixelRatio` 2, 800×600 frames, and pane (500, 200) lands on CSS (250, 100)),
/// so input and frames stay in pane px. (In Chromium 156 headless the window carries ~140 px
/// of invisible browser UI, so window bounds are not the viewport.)
async fn size_viewport(
    cdp: &CdpConnection,
    session: &str,
    size: (u32, u32),
    scale: f64,
    zoom: f64,
) -> Result<(), CdpError> {
    let layout = |side: u32| (f64::from(side) / zoom).round().max(1.0) as u32;
    let (width, height) = scaled(size, scale);
    // Both sent at once, in order (one round trip).
    let (metrics, visible) = tokio::join!(
        biased;
        cdp.call_on(
            session,
            "Emulation.setDeviceMetricsOverride",
            json!({"width": layout(size.0), "height": layout(size.1),
                   "deviceScaleFactor": scale * zoom, "scale": scale * zoom, "mobile": false,
                   "dontSetVisibleSize": true}),
        ),
        cdp.call_on(
            session,
            "Emulation.setVisibleSize",
            json!({"width": width, "height": height}),
        )
    );
    metrics?;
    visible?;
    Ok(())
}

/// A pane asked for a layout outside what a tab can take; nothing changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LayoutError {
    /// A device pixel ratio outside [`SCALES`].
    #[error(
        "scale {scale} is out of range: send a device pixel ratio from {min} to {max}",
        min = SCALES.start(),
        max = SCALES.end()
    )]
    Scale { scale: f64 },
    /// A zoom factor outside [`ZOOMS`].
    #[error(
        "zoom factor {factor} is out of range: send a factor from {min} to {max} (1 is 100 %)",
        min = ZOOMS.start(),
        max = ZOOMS.end()
    )]
    Zoom { factor: f64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_range_to_send() {
        assert_eq!(
            LayoutError::Scale { scale: 4.0 }.to_string(),
            "scale 4 is out of range: send a device pixel ratio from 1 to 3"
        );
        assert_eq!(
            LayoutError::Zoom { factor: 0.1 }.to_string(),
            "zoom factor 0.1 is out of range: send a factor from 0.25 to 5 (1 is 100 %)"
        );
    }

    #[test]
    fn the_last_request_is_what_every_pending_apply_sends() {
        let layouts = Layouts::default();
        let first = layouts.request("s1", (800, 600));
        let second = layouts.request("s1", (400, 300));
        assert_eq!(*first.layout.wanted.lock().unwrap(), ((400, 300), 1.0));
        assert!(Arc::ptr_eq(&first.layout, &second.layout));
    }

    #[test]
    fn sizes_are_clamped_and_tabs_kept_apart() {
        let layouts = Layouts::default();
        let tiny = layouts.request("s1", (1, 99_999));
        assert_eq!(*tiny.layout.wanted.lock().unwrap(), ((100, 8192), 1.0));
        assert!(layouts.set_scale(2.0));
        let other = layouts.request("s2", (640, 480));
        assert_eq!(*other.layout.wanted.lock().unwrap(), ((640, 480), 2.0));
        layouts.forget("s1");
        assert!(!layouts.by_session.lock().unwrap().contains_key("s1"));
    }
}
