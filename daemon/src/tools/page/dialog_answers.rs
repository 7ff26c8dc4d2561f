//! `handle_dialog`, and naming the dialog open in the agent's tab in every result on that tab
//! (a page blocked by a dialog looks frozen otherwise).

use std::future::Future;
use std::time::Duration;

use porthole_mcp::vocabulary::HandleDialogArgs;
use porthole_mcp::{Content, ToolOutput};
use tokio::sync::broadcast::error::RecvError;

use crate::tools::error::ToolError;
use crate::tools::tab::driver::Tab;

/// How long a tool may still take after its page opened a dialog (an input event's dispatch,
/// for one, does not return until the dialog is answered).
const AFTER_DIALOG: Duration = Duration::from_millis(300);

/// Runs `work` on `tab`, but when the page opens a dialog meanwhile and `work` does not end
/// soon after (it is blocked by it), ends with a result saying the action ran and what opened.
pub async fn unless_blocked<F>(tab: &Tab, work: F) -> Result<ToolOutput, ToolError>
where
    F: Future<Output = Result<ToolOutput, ToolError>>,
{
    let mut events = tab.cdp().subscribe();
    tokio::pin!(work);
    let opened = loop {
        tokio::select! {
            out = &mut work => return out,
            event = events.recv() => match event {
                Ok(event)
                    if event.method == "Page.javascriptDialogOpening"
                        && event.session_id.as_deref() == Some(tab.session_id.as_str()) =>
                {
                    break event;
                }
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return (&mut work).await,
            },
        }
    };
    if let Ok(out) = tokio::time::timeout(AFTER_DIALOG, &mut work).await {
        return out;
    }
    let kind = opened.params["type"].as_str().unwrap_or("alert");
    let message = opened.params["message"].as_str().unwrap_or_default();
    Ok(ToolOutput::text(format!(
        "Done; the page then opened a {kind} dialog saying {message:?}. It is still open and \
         the page waits for it: answer it with handle_dialog {{accept: true or false}} (the \
         person at the browser may answer it too)."
    )))
}

/// `handle_dialog`: answers the dialog open in the agent's tab.
pub async fn handle_dialog(tab: &Tab, args: &HandleDialogArgs) -> Result<ToolOutput, ToolError> {
    let dialog = tab
        .browser
        .dialogs()
        .answer(&tab.target_id, args.accept, args.text.as_deref())
        .await
        .map_err(|e| match e {
            crate::browser::SessionError::NoDialog(_) => ToolError::msg(
                "No dialog is open in your tab (it may have been answered by the person at the \
                 browser).",
            ),
            other => other.into(),
        })?;
    let answer = if args.accept { "OK" } else { "Cancel" };
    Ok(ToolOutput::text(format!(
        "Answered the {} dialog {:?} with {answer}{}.",
        dialog.kind.as_str(),
        dialog.message,
        args.text
            .as_deref()
            .map(|t| format!(" and the text {t:?}"))
            .unwrap_or_default()
    )))
}

/// Adds a line naming the dialog open in the tab, unless the result already does.
pub fn mention_open_dialog(tab: &Tab, mut output: ToolOutput) -> ToolOutput {
    let Some(dialog) = tab.browser.dialogs().open(&tab.target_id) else {
        return output;
    };
    let mentioned = output.content.iter().any(|c| match c {
        Content::Text { text } => text.contains("dialog"),
        _ => false,
    });
    if !mentioned {
        output.content.push(Content::Text {
            text: dialog.describe(),
        });
    }
    output
}
