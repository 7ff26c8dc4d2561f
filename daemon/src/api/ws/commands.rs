//! A pane's navigation and tab commands, run one at a time in order on the tab the pane
//! watches, and the `error` a failed one earns.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::protocol::ClientMessage;
use super::Outgoing;
use crate::browser::{PaneMessage, PaneView, SessionError};
use crate::cdp::CdpError;

/// Runs a pane's navigation and tab commands one at a time, in order, on the tab the pane
/// watches. Opening or switching to a tab moves this pane's view (and makes it the session's
/// active tab), never another pane's or an agent's.
pub(super) async fn run_commands(
    view: Arc<PaneView>,
    mut commands: mpsc::UnboundedReceiver<ClientMessage>,
    out: mpsc::Sender<Outgoing>,
) {
    while let Some(command) = commands.recv().await {
        let result = run_command(&view, command).await;
        if let Some(message) = result.err().as_ref().and_then(error_for_pane) {
            let _ = out.send(Outgoing::Json(message)).await;
        }
    }
}

async fn run_command(view: &PaneView, command: ClientMessage) -> Result<(), SessionError> {
    let session = view.session();
    match command {
        ClientMessage::NewTab { url } => {
            let tab = session.new_tab(url.as_deref()).await?;
            view.show(&tab.target_id).map(drop)
        }
        ClientMessage::SwitchTab { target_id } => {
            session.switch_tab(&target_id).await?;
            view.show(&target_id).map(drop)
        }
        ClientMessage::CloseTab { target_id } => session.close_tab(&target_id).await,
        ClientMessage::Navigate { url } => {
            let (_, tab) = view.watched_tab()?;
            session.navigation().navigate_on(&tab, &url).await
        }
        ClientMessage::Back {} | ClientMessage::Forward {} => {
            let step = if matches!(command, ClientMessage::Back {}) {
                -1
            } else {
                1
            };
            let (_, tab) = view.watched_tab()?;
            session
                .navigation()
                .go_history_on(&tab, step)
                .await
                .map(drop)
        }
        ClientMessage::Reload {} => {
            let (_, tab) = view.watched_tab()?;
            session.navigation().reload_on(&tab).await
        }
        ClientMessage::Print {} => {
            let (target, tab) = view.watched_tab()?;
            crate::browser::print_to_download(session, &target, &tab)
                .await
                .map(drop)
        }
        _ => Ok(()),
    }
}

/// The `error` a failed command earns. A lost browser is left out: the session itself tells
/// every pane once, with what to do about it.
pub(super) fn error_for_pane(error: &SessionError) -> Option<PaneMessage> {
    match error {
        SessionError::Cdp(CdpError::Lost { .. }) => None,
        _ => Some(PaneMessage::error(error.code(), error.to_string())),
    }
}
