//! `handle_dialog`, and naming the dialog open in the agent's tab in every result on that tab
//! (a page blocked by a dialog looks frozen otherwise).

use porthole_mcp::vocabulary::HandleDialogArgs;
use porthole_mcp::{Content, ToolOutput};

use super::driver::Tab;
use super::error::ToolError;

/// `handle_dialog`: answers the dialog open in the agent's tab.
pub async fn handle_dialog(tab: &Tab, args: &HandleDialogArgs) -> Result<ToolOutput, ToolError> {
    let dialog = tab
        .browser
        .answer_dialog(&tab.target_id, args.accept, args.text.as_deref())
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
    let Some(dialog) = tab.browser.open_dialog(&tab.target_id) else {
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
