//! `list_tabs`, `new_tab`, `switch_tab`, `close_tab` through the session, so every pane of the
//! channel hears about the change. An agent sees and numbers only its own tabs; the owner sees
//! all. Tabs are numbered from 1 as `list_tabs` prints them.

use std::sync::Arc;

use porthole_mcp::vocabulary::{CloseTabArgs, NewTabArgs, SwitchTabArgs, TabRef};
use porthole_mcp::ToolOutput;

use crate::browser::check_url_for;
use crate::browser::{Actor, BrowserSession, SessionError, UrlPolicy};
use crate::tools::act::waits;
use crate::tools::error::ToolError;
use crate::tools::tab::driver::Tab;

/// `list_tabs`.
pub fn list_tabs(browser: &BrowserSession, actor: &Actor) -> ToolOutput {
    ToolOutput::text(listing(browser, actor))
}

fn listing(browser: &BrowserSession, actor: &Actor) -> String {
    let tabs = browser.agent_tabs().visible(actor);
    let current = browser.agent_tabs().current(actor);
    let mut lines = vec![match actor {
        Actor::Owner => format!("{} tab(s):", tabs.len()),
        Actor::Agent { .. } => format!("{} tab(s) of yours:", tabs.len()),
    }];
    for (i, t) in tabs.iter().enumerate() {
        let mark = if current.as_deref() == Some(t.target_id.as_str()) {
            " (active)"
        } else {
            ""
        };
        let owner = match actor {
            Actor::Owner if t.owner != crate::browser::HUMAN => {
                format!(" (agent {})", t.owner_name)
            }
            _ => String::new(),
        };
        let title = if t.title.is_empty() {
            "(untitled)"
        } else {
            &t.title
        };
        lines.push(format!(
            "[{}] {title} — {} [id={}]{mark}{owner}",
            i + 1,
            t.url,
            t.target_id
        ));
    }
    lines.join("\n")
}

/// The target id a [`TabRef`] names: an index into the actor's tabs, or a target id (which
/// may name another owner's tab; the caller checks access).
fn resolve(browser: &BrowserSession, actor: &Actor, tab: &TabRef) -> Result<String, ToolError> {
    let visible = browser.agent_tabs().visible(actor);
    let found = match tab {
        TabRef::Index(n) => n
            .checked_sub(1)
            .and_then(|i| visible.get(i as usize))
            .map(|t| t.target_id.clone()),
        TabRef::Id(id) => browser.resolve_tab(id).ok(),
    };
    found.ok_or_else(|| {
        let reference = match tab {
            TabRef::Index(n) => n.to_string(),
            TabRef::Id(id) => id.clone(),
        };
        ToolError::msg(format!(
            "There is no tab {reference}: {} tab(s) are yours. Call list_tabs for their numbers.",
            visible.len()
        ))
    })
}

/// `new_tab`: opens about:blank, then navigates, so the tab's logs cover its first load.
pub async fn new_tab(
    browser: &Arc<BrowserSession>,
    actor: &Actor,
    args: &NewTabArgs,
) -> Result<ToolOutput, ToolError> {
    // Refused before anything opens (a blob: must be of the page the agent is on now).
    let opener = browser.agent_tabs().current(actor).and_then(|id| {
        let tabs = browser.agent_tabs().visible(actor);
        tabs.into_iter().find(|t| t.target_id == id).map(|t| t.url)
    });
    if let Some(url) = &args.url {
        check_url_for(url, UrlPolicy::Agent, opener.as_deref())?;
    }
    let target_id = browser.agent_tabs().open(actor).await?;
    if let Some(url) = &args.url {
        let tab = Tab::for_actor(browser, actor).await?;
        let before = waits::before_navigation(&tab);
        let navigated = browser
            .navigation()
            .navigate_with(&tab.session_id, url, UrlPolicy::Agent, opener.as_deref())
            .await;
        if let Err(e) = navigated {
            return Err(ToolError::msg(format!(
                "Opened a new tab ({target_id}) but loading {url} failed: {}",
                ToolError::from(e)
            )));
        }
        waits::settle_navigation(&tab, before).await;
    }
    Ok(ToolOutput::text(format!(
        "Opened a new tab and made it active.\n{}",
        listing(browser, actor)
    )))
}

/// `switch_tab`.
pub async fn switch_tab(
    browser: &BrowserSession,
    actor: &Actor,
    args: &SwitchTabArgs,
) -> Result<ToolOutput, ToolError> {
    let id = resolve(browser, actor, &args.tab)?;
    browser
        .agent_tabs()
        .use_tab(actor, &id)
        .await
        .map_err(not_found_hint)?;
    Ok(ToolOutput::text(format!(
        "Switched to the tab and brought it to the front.\n{}",
        listing(browser, actor)
    )))
}

/// `close_tab`.
pub async fn close_tab(
    browser: &BrowserSession,
    actor: &Actor,
    args: &CloseTabArgs,
) -> Result<ToolOutput, ToolError> {
    let id = match &args.tab {
        Some(tab) => resolve(browser, actor, tab)?,
        None => browser
            .agent_tabs()
            .current(actor)
            .ok_or_else(|| ToolError::msg("You have no tab open to close."))?,
    };
    browser
        .agent_tabs()
        .close(actor, &id)
        .await
        .map_err(not_found_hint)?;
    Ok(ToolOutput::text(format!(
        "Closed the tab.\n{}",
        listing(browser, actor)
    )))
}

fn not_found_hint(error: SessionError) -> ToolError {
    match error {
        SessionError::UnknownTab(id) => ToolError::msg(format!(
            "There is no tab {id}. Call list_tabs to see your tabs."
        )),
        other => other.into(),
    }
}
