//! The tab an act happens in, and what keeps it out: the acting tab (an agent's first call
//! opens one of its own), never a browser-internal page (the URL guard closes an agent's tab
//! there), a page blocked by a dialog answers nothing that runs in it, and a page asking for a
//! login waits for the person (`browser::prompts::auth`), also when it starts asking while the
//! tool runs. And the notes the browser left for the agent since its last answer (a tab closed
//! on an internal page, a refused site), and what the page's script threw while it handled an
//! input act (a click whose handler failed did not do what it meant to).

use std::future::Future;
use std::sync::Arc;

use porthole_mcp::vocabulary::ToolCall;
use porthole_mcp::{Content, ToolOutput};

use crate::browser::{Actor, BrowserSession};
use crate::tools::{self, Tab, ToolError};

/// The tab `actor` acts in, checked for `call`.
pub(crate) async fn enter(
    session: &Arc<BrowserSession>,
    actor: &Actor,
    call: &ToolCall,
) -> Result<Tab, ToolError> {
    let tab = acting_tab(session, actor).await?;
    if matches!(call, ToolCall::HandleDialog(_)) {
        return Ok(tab);
    }
    let exempt = tools::works_during_dialog(call);
    // A page blocked by a dialog answers nothing that runs in it.
    if let Some(dialog) = session.dialogs().open(&tab.target_id) {
        if !exempt {
            return Err(ToolError::msg(dialog.describe()));
        }
    }
    // A page that asks for a login waits for a person.
    if let Some(prompt) = session.auth().prompt_in(&tab.target_id) {
        if !exempt {
            return Err(ToolError::msg(prompt.describe_for_agent()));
        }
    }
    Ok(tab)
}

/// The tab `actor` acts in for a vault fill or `list_logins`: the same checks, but a login
/// prompt does not refuse it (the vault fills the page's own fields).
pub(crate) async fn enter_for_vault(
    session: &Arc<BrowserSession>,
    actor: &Actor,
) -> Result<Tab, ToolError> {
    let tab = acting_tab(session, actor).await?;
    if let Some(dialog) = session.dialogs().open(&tab.target_id) {
        return Err(ToolError::msg(dialog.describe()));
    }
    Ok(tab)
}

/// The tab `actor` acts in, never on a browser-internal page (an agent's tab there is closed),
/// with the tools' helper world in each of its new documents from now on.
async fn acting_tab(session: &Arc<BrowserSession>, actor: &Actor) -> Result<Tab, ToolError> {
    let tab = Tab::for_actor(session, actor).await?;
    session.url_guard().check_tab(&tab.target_id).await?;
    tools::in_new_documents(session, &tab.session_id);
    Ok(tab)
}

/// A tab the person named for her own fill: the helper's world, and no fill while a dialog
/// blocks the page.
pub(crate) fn enter_for_person(tab: &Tab) -> Result<(), ToolError> {
    tools::in_new_documents(&tab.browser, &tab.session_id);
    if let Some(dialog) = tab.browser.dialogs().open(&tab.target_id) {
        return Err(ToolError::msg(dialog.describe()));
    }
    Ok(())
}

/// Runs `work` in `tab`: a dialog it opens ends the wait with a result saying so, a login
/// prompt that opens meanwhile refuses it (the person answers those), and what the page's
/// script threw while it handled an input act is said with its answer.
pub(crate) async fn guarded(
    tab: &Tab,
    call: &ToolCall,
    work: impl Future<Output = Result<ToolOutput, ToolError>>,
) -> Result<ToolOutput, ToolError> {
    if matches!(call, ToolCall::HandleDialog(_)) {
        return work.await;
    }
    let input = matches!(call, ToolCall::Computer(_) | ToolCall::FormInput(_));
    let thrown_before = input.then(|| tab.browser.logs().thrown_mark(&tab.session_id));
    let work = tools::unless_blocked(tab, work);
    let auth = tab.browser.auth();
    let mut output = tokio::select! {
        output = work => output?,
        prompt = auth.prompt_opens(&tab.target_id), if !tools::works_during_dialog(call) => {
            return Err(ToolError::msg(prompt.describe_for_agent()));
        }
    };
    if let Some(mark) = thrown_before {
        if let Some(text) = page_threw(tab, mark) {
            output.content.push(Content::Text { text });
        }
    }
    Ok(tools::mention_open_dialog(tab, output))
}

/// The note for an act during which the page's script threw (uncaught) after `mark`: what it
/// was to do may not have happened (a download its handler meant to start, a form it meant to
/// send), and the agent would otherwise not know why.
fn page_threw(tab: &Tab, mark: u64) -> Option<String> {
    const SHOWN: usize = 3;
    const CHARS: usize = 300;
    let (thrown, count) = tab.browser.logs().thrown_since(&tab.session_id, mark);
    if count == 0 {
        return None;
    }
    let mut note = String::from(
        "The page's script threw while it handled this action (uncaught), so what it was \
         meant to do may not have happened:",
    );
    for entry in thrown.iter().rev().take(SHOWN).rev() {
        let text: String = entry.text.chars().take(CHARS).collect();
        let first_line = text.lines().next().unwrap_or_default();
        note.push_str(&format!("\n- {first_line}"));
        if let Some(source) = &entry.source {
            note.push_str(&format!(" ({source})"));
        }
    }
    if count > SHOWN as u64 {
        note.push_str(&format!(
            "\n… and {} more (read_console_messages).",
            count - SHOWN as u64
        ));
    }
    Some(note)
}

/// Puts the notes the browser left for `actor` since its last answer before `output`. A
/// request of its act that Porthole held back (declined, unanswered, nobody watching) makes the
/// answer an error: the act did not do all it meant to, even when its click went through.
pub(crate) fn notes(session: &BrowserSession, actor: &Actor, output: &mut ToolOutput) {
    for note in session.agent_notes().take(actor.id()).into_iter().rev() {
        output.is_error |= note.held_back;
        output.content.insert(0, Content::Text { text: note.text });
    }
}
