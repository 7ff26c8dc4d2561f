//! `list_tabs`, `new_tab`, `switch_tab`, `close_tab` through the session, so every pane of the
//! channel hears about the change. Tabs are numbered from 1 as `list_tabs` prints them.

use porthole_mcp::vocabulary::{CloseTabArgs, NewTabArgs, SwitchTabArgs, TabRef};
use porthole_mcp::ToolOutput;

use super::driver::Tab;
use super::error::ToolError;
use super::waits;
use crate::browser::{BrowserSession, SessionError};

/// `list_tabs`.
pub fn list_tabs(browser: &BrowserSession) -> ToolOutput {
    ToolOutput::text(listing(browser))
}

fn listing(browser: &BrowserSession) -> String {
    let (tabs, active) = browser.tab_infos();
    let mut lines = vec![format!("{} tab(s):", tabs.len())];
    for (i, t) in tabs.iter().enumerate() {
        let mark = if active.as_deref() == Some(t.target_id.as_str()) {
            " (active)"
        } else {
            ""
        };
        let title = if t.title.is_empty() {
            "(untitled)"
        } else {
            &t.title
        };
        lines.push(format!(
            "[{}] {title} — {} [id={}]{mark}",
            i + 1,
            t.url,
            t.target_id
        ));
    }
    lines.join("\n")
}

/// The target id a [`TabRef`] names.
fn resolve(browser: &BrowserSession, tab: &TabRef) -> Result<String, ToolError> {
    let reference = match tab {
        TabRef::Index(n) => n.to_string(),
        TabRef::Id(id) => id.clone(),
    };
    browser.resolve_tab(&reference).map_err(|e| match e {
        SessionError::UnknownTab(_) => ToolError::msg(format!(
            "There is no tab {reference}: {} tab(s) are open. Call list_tabs for their numbers.",
            browser.tab_count()
        )),
        other => other.into(),
    })
}

/// `new_tab`: opens about:blank, then navigates, so the tab's logs cover its first load.
pub async fn new_tab(
    browser: &std::sync::Arc<BrowserSession>,
    args: &NewTabArgs,
) -> Result<ToolOutput, ToolError> {
    if let Some(url) = &args.url {
        crate::browser::check_url(url)?;
    }
    let info = browser.new_tab(None).await?;
    if let Some(url) = &args.url {
        let tab = Tab::active(browser)?;
        let before = waits::before(&tab).await;
        if let Err(e) = browser.navigate(url).await {
            return Err(ToolError::msg(format!(
                "Opened a new tab ({}) but loading {url} failed: {}",
                info.target_id,
                ToolError::from(e)
            )));
        }
        waits::settle_navigation(&tab, before).await;
    }
    Ok(ToolOutput::text(format!(
        "Opened a new tab and made it active.\n{}",
        listing(browser)
    )))
}

/// `switch_tab`.
pub async fn switch_tab(
    browser: &BrowserSession,
    args: &SwitchTabArgs,
) -> Result<ToolOutput, ToolError> {
    let id = resolve(browser, &args.tab)?;
    browser.switch_tab(&id).await?;
    Ok(ToolOutput::text(format!(
        "Switched to the tab and brought it to the front.\n{}",
        listing(browser)
    )))
}

/// `close_tab`.
pub async fn close_tab(
    browser: &BrowserSession,
    args: &CloseTabArgs,
) -> Result<ToolOutput, ToolError> {
    let id = match &args.tab {
        Some(tab) => resolve(browser, tab)?,
        None => browser.active_tab()?.0,
    };
    browser.close_tab(&id).await?;
    Ok(ToolOutput::text(format!(
        "Closed the tab.\n{}",
        listing(browser)
    )))
}
