//! What a pane does through the whole session, beside its view (`pane_view`): its input reaches
//! a tab through the input room's pipeline ([`InputTarget`]), and its print becomes a download of
//! the person's (the files room's `print`).

use super::handle::BrowserSession;
use crate::browser::files::download::Download;
use crate::browser::files::print::print_to_pdf;
use crate::browser::floor::SessionError;
use crate::browser::input::events::{dispatch, InputEvent};
use crate::browser::input::pipeline::{Dispatched, InputTarget};

impl InputTarget for BrowserSession {
    async fn input_on(&self, tab: &str, event: &InputEvent) -> Dispatched {
        if !self.is_alive() {
            return Err(SessionError::Closed);
        }
        let scale = self.core.pixel_scale(tab);
        Ok(dispatch(self.core.cdp(), tab, event, scale).await?)
    }
}

/// A pane's `print` (DESIGN.md §15): tab `target_id` (flat session `tab`) of `session` as a PDF,
/// stored as a download of the person's.
pub(crate) async fn print_to_download(
    session: &BrowserSession,
    target_id: &str,
    tab: &str,
) -> Result<Download, SessionError> {
    print_to_pdf(&session.core, &session.tools.files, target_id, tab).await
}
