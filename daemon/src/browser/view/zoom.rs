//! How large a pane's tab is drawn: the channel's pixel ratio (`screencast {scale}`), a tab's
//! page zoom (`zoom {factor}`), and laying a tab out again at them. Checks what a pane asks
//! against [`SCALES`] and [`ZOOMS`] and hands the sizes to the session's `Layouts` (see
//! the floor's `layouts` for how Chrome is told).

use crate::browser::floor::{LayoutError, SessionCore, SessionError, SCALES, ZOOMS};

/// The pixel ratio and page zoom of one session's tabs (borrowed from the session:
/// `session.zoom()`).
pub(crate) struct Zoom<'s> {
    core: &'s SessionCore,
}

impl<'s> Zoom<'s> {
    pub(in crate::browser) fn new(core: &'s SessionCore) -> Self {
        Self { core }
    }

    /// Lays this channel's tabs out with `scale` device pixels per CSS px from now on (1–3);
    /// the caller re-lays the tab it shows. Refused outside 1–3, nothing changed.
    pub(crate) fn set_pixel_ratio(&self, scale: f64) -> Result<bool, LayoutError> {
        if !scale.is_finite() || !SCALES.contains(&scale) {
            return Err(LayoutError::Scale { scale });
        }
        Ok(self.core.layouts().set_scale(scale))
    }

    /// Refuses a zoom factor outside [`ZOOMS`], saying what to send.
    pub(crate) fn check(&self, factor: f64) -> Result<(), LayoutError> {
        if factor.is_finite() && ZOOMS.contains(&factor) {
            return Ok(());
        }
        Err(LayoutError::Zoom { factor })
    }

    /// Zooms the page of the tab behind flat CDP `session` by `factor` (checked with
    /// `check`; 1: 100 %), as Chrome's Ctrl +/- does.
    pub(crate) async fn set(&self, session: &str, factor: f64) -> Result<(), SessionError> {
        let requested = self
            .core
            .layouts()
            .zoom(session, factor, self.core.viewport());
        requested.apply(self.core.cdp()).await?;
        Ok(())
    }

    /// Device pixels per pane px of the tab behind flat CDP `session` (input coordinates are
    /// multiplied by it).
    pub(crate) fn pixel_scale(&self, session: &str) -> f64 {
        self.core.pixel_scale(session)
    }

    /// Lays the tab behind flat CDP `session` out again at the size it was last given (or the
    /// channel's), with the channel's current pixel ratio.
    pub(crate) async fn relayout(&self, session: &str) -> Result<(), SessionError> {
        let size = self
            .core
            .layouts()
            .wanted_size(session)
            .unwrap_or(self.core.viewport());
        self.core.size_tab_to(session, size).await
    }
}
