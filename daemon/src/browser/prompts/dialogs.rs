//! JavaScript dialogs (alert, confirm, prompt, beforeunload) of a session's tabs: which one is
//! open in which tab, told to every pane, and answered only when a person (`dialog_answer`)
//! or an agent (`handle_dialog`) says so — never on anyone's behalf.
//!
//! While a dialog is open its page is blocked: nothing evaluates there until it is answered.

use serde_json::json;

use crate::browser::floor::{DialogKind, OpenDialog, PaneMessage, SessionCore, SessionError};
use crate::cdp::CdpEvent;

/// The events dialogs are followed by.
pub(in crate::browser) const DIALOG_EVENTS: &[&str] = &[
    "Page.javascriptDialogOpening",
    "Page.javascriptDialogClosed",
];

/// The dialogs of one session's tabs (borrowed from the session: `session.dialogs()`).
pub(crate) struct Dialogs<'s> {
    core: &'s SessionCore,
}

impl<'s> Dialogs<'s> {
    pub(in crate::browser) fn new(core: &'s SessionCore) -> Self {
        Self { core }
    }

    /// Records dialogs opening and closing (from the session's event loop: [`DIALOG_EVENTS`]).
    pub(in crate::browser) fn follow(&self, event: &CdpEvent) {
        let opening = event.method == "Page.javascriptDialogOpening";
        let closed = event.method == "Page.javascriptDialogClosed";
        if !opening && !closed {
            return;
        }
        let Some(target_id) = event
            .session_id
            .as_deref()
            .and_then(|session| self.core.tabs().target_of_session(session))
        else {
            return;
        };
        if opening {
            let dialog = OpenDialog {
                kind: DialogKind::from_cdp(event.params["type"].as_str().unwrap_or("alert")),
                message: event.params["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                default_prompt: event.params["defaultPrompt"]
                    .as_str()
                    .filter(|p| !p.is_empty())
                    .map(str::to_string),
            };
            tracing::info!(event = "dialog_opened", channel_id = %self.core.channel(), %target_id, kind = dialog.kind.as_str());
            self.core.tabs().set_dialog(&target_id, dialog.clone());
            self.core.notify(PaneMessage::Dialog {
                target_id,
                kind: dialog.kind,
                message: dialog.message,
                default_prompt: dialog.default_prompt,
            });
        } else {
            self.forget(&target_id);
        }
    }

    fn forget(&self, target_id: &str) {
        let was_open = self.core.tabs().take_dialog(target_id);
        if was_open {
            self.core.notify(PaneMessage::DialogClosed {
                target_id: target_id.to_string(),
            });
        }
    }

    /// The dialog open in a tab, if any.
    pub(crate) fn open(&self, target_id: &str) -> Option<OpenDialog> {
        self.core.tabs().dialog(target_id)
    }

    /// Every open dialog, by tab (for a pane that attaches while one is open).
    pub(crate) fn all(&self) -> Vec<(String, OpenDialog)> {
        self.core.tabs().dialogs()
    }

    /// Answers the dialog open in `target_id` (`text` goes into a prompt).
    pub(crate) async fn answer(
        &self,
        target_id: &str,
        accept: bool,
        text: Option<&str>,
    ) -> Result<OpenDialog, SessionError> {
        let dialog = self
            .open(target_id)
            .ok_or_else(|| SessionError::NoDialog(target_id.to_string()))?;
        let session = self
            .core
            .tab_session(target_id)
            .ok_or_else(|| SessionError::UnknownTab(target_id.to_string()))?;
        let mut params = json!({ "accept": accept });
        if let Some(text) = text.or(dialog.default_prompt.as_deref()) {
            params["promptText"] = json!(text);
        }
        self.core
            .cdp()
            .call_on(&session, "Page.handleJavaScriptDialog", params)
            .await?;
        tracing::info!(event = "dialog_answered", channel_id = %self.core.channel(), %target_id, accept);
        self.forget(target_id);
        Ok(dialog)
    }
}
