//! A pane's `vault_fill` (DESIGN.md §19): the person fills an item of her vault into the tab
//! the pane watches (or the tab she names), in a task of its own so typing never stalls the
//! pane's reading. Every `vault_fill` gets one `vault_result` (what was filled and where, or why
//! nothing was; never a value), after a `vault_locked` when the item's source is locked. The
//! fill itself, its checks and its timeline event are the call pipeline's
//! (`calls::fill_for_person`).

use std::sync::Arc;

use tokio::sync::mpsc;

use super::Outgoing;
use crate::api::AppState;
use crate::browser::{PaneMessage, PaneView};
use crate::calls::{self, PersonFill};

/// Fills `item` into `target_id` (else the watched tab) and answers on `out`.
pub(super) fn spawn(
    state: &AppState,
    view: &Arc<PaneView>,
    out: mpsc::Sender<Outgoing>,
    item: String,
    target_id: Option<String>,
) {
    let (state, view) = (state.clone(), view.clone());
    tokio::spawn(async move {
        for message in answer(&state, &view, &item, target_id).await {
            let _ = out.send(Outgoing::Json(message)).await;
        }
    });
}

async fn answer(
    state: &AppState,
    view: &PaneView,
    item: &str,
    target_id: Option<String>,
) -> Vec<PaneMessage> {
    let session = view.session().clone();
    let result = |ok: bool, message: String| PaneMessage::VaultResult {
        item: item.chars().take(200).collect(),
        ok,
        message,
    };
    let tab = match target_id {
        Some(target) => match session.tab_session(&target) {
            Some(tab_session) => Ok((target, tab_session)),
            None => Err(format!(
                "there is no tab {:?} in this channel; nothing was typed",
                target.chars().take(80).collect::<String>()
            )),
        },
        None => view.watched_tab().map_err(|e| e.to_string()),
    };
    let tab = match tab {
        Ok(tab) => tab,
        Err(why) => return vec![result(false, why)],
    };
    // The channel's agents: where one ran `evaluate` the fill is refused, and after it their
    // `evaluate` is held off the filled page.
    let agents: Vec<String> = match state.inner.agents.list() {
        Ok(all) => all
            .into_iter()
            .filter(|a| a.channel_id == session.channel().as_str())
            .map(|a| a.agent_id)
            .collect(),
        Err(error) => {
            tracing::warn!(event = "state_unreadable", %error);
            return vec![result(
                false,
                "the daemon cannot read its agent list right now, so it cannot check the page \
                 for agents' scripts; nothing was typed. Try again."
                    .into(),
            )];
        }
    };
    let parts = state.call_parts();
    match calls::fill_for_person(&parts, &session, tab, item, &agents).await {
        PersonFill::Filled(what) => vec![result(true, what)],
        PersonFill::Refused(why) => vec![result(false, why)],
        PersonFill::Locked { source, message } => {
            vec![PaneMessage::VaultLocked { source }, result(false, message)]
        }
    }
}
