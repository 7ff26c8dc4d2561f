//! The one match from a parsed call to the tool that does it. A tool runs either on the actor's
//! view of the browser (its tab list, its downloads) or in the tab it acts in; which one is
//! [`scope`]'s answer. Everything around a tool (who may, the person, the vault, the timeline)
//! is the call pipeline's (`calls`), never this file's.

use std::sync::Arc;

use porthole_mcp::vocabulary::ToolCall;
use porthole_mcp::ToolOutput;

use crate::browser::{Actor, BrowserSession};
use crate::tools::act::{computer, forms};
use crate::tools::error::ToolError;
use crate::tools::page::{browse, dialog_answers, evaluate, tab_list};
use crate::tools::read::{page_logs, snapshot};
use crate::tools::tab::driver::Tab;
use crate::tools::transfer::file_tools;

/// Where a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// On the actor's view of the browser: no tab needs to exist first.
    Browser,
    /// In the tab the actor acts in.
    Tab,
    /// Not a tool of this room: the call pipeline does it (the vault's tools, `request_human`,
    /// `save_screenshot` and the second half of `get_download`).
    Pipeline,
}

/// Where `call` runs.
pub fn scope(call: &ToolCall) -> Scope {
    match call {
        ToolCall::ListTabs(_)
        | ToolCall::NewTab(_)
        | ToolCall::SwitchTab(_)
        | ToolCall::CloseTab(_)
        | ToolCall::ListDownloads(_) => Scope::Browser,
        ToolCall::RequestHuman(_)
        | ToolCall::SaveScreenshot(_)
        | ToolCall::GetDownload(_)
        | ToolCall::ListLogins(_)
        | ToolCall::FillLogin(_)
        | ToolCall::FillTotp(_) => Scope::Pipeline,
        _ => Scope::Tab,
    }
}

/// Runs `call` as `actor`: in `tab` when its [`scope`] is [`Scope::Tab`], else on the browser.
pub async fn run(
    browser: &Arc<BrowserSession>,
    actor: &Actor,
    tab: Option<&Tab>,
    call: &ToolCall,
) -> Result<ToolOutput, ToolError> {
    let in_tab =
        || tab.ok_or_else(|| ToolError::msg(format!("{} runs in a tab", call.name().as_str())));
    match call {
        ToolCall::ListTabs(_) => Ok(tab_list::list_tabs(browser, actor)),
        ToolCall::NewTab(a) => tab_list::new_tab(browser, actor, a).await,
        ToolCall::SwitchTab(a) => tab_list::switch_tab(browser, actor, a).await,
        ToolCall::CloseTab(a) => tab_list::close_tab(browser, actor, a).await,
        ToolCall::ListDownloads(_) => Ok(file_tools::list_downloads(browser, actor)),
        ToolCall::Navigate(a) => browse::navigate(in_tab()?, a).await,
        ToolCall::ReadPage(a) => snapshot::read_page(in_tab()?, a).await,
        ToolCall::Find(a) => snapshot::find(in_tab()?, a).await,
        ToolCall::Computer(a) => computer::computer(in_tab()?, a).await,
        ToolCall::FormInput(a) => forms::form_input(in_tab()?, a).await,
        ToolCall::Screenshot(a) => browse::screenshot(in_tab()?, a).await,
        ToolCall::GoBack(_) => browse::history(in_tab()?, -1).await,
        ToolCall::GoForward(_) => browse::history(in_tab()?, 1).await,
        ToolCall::Reload(_) => browse::reload(in_tab()?).await,
        ToolCall::Evaluate(a) => evaluate::evaluate(in_tab()?, a).await,
        ToolCall::PageInfo(_) => browse::page_info(in_tab()?).await,
        ToolCall::GetPageText(a) => browse::page_text(in_tab()?, a).await,
        ToolCall::ReadConsoleMessages(a) => Ok(page_logs::console(in_tab()?, a)),
        ToolCall::ReadNetworkRequests(a) => Ok(page_logs::network(in_tab()?, a)),
        ToolCall::ResizeWindow(a) => browse::resize_window(in_tab()?, a).await,
        ToolCall::UploadFile(a) => file_tools::upload_file(in_tab()?, a).await,
        ToolCall::HandleDialog(a) => dialog_answers::handle_dialog(in_tab()?, a).await,
        ToolCall::RequestHuman(_)
        | ToolCall::SaveScreenshot(_)
        | ToolCall::GetDownload(_)
        | ToolCall::ListLogins(_)
        | ToolCall::FillLogin(_)
        | ToolCall::FillTotp(_) => Err(ToolError::msg(format!(
            "{} is run by the call pipeline, not as a tool on a tab",
            call.name().as_str()
        ))),
    }
}

/// Tools that do not run in the page, so they work while a dialog blocks it (a screenshot
/// with badges asks the page where its elements are, so it does not).
pub fn works_during_dialog(call: &ToolCall) -> bool {
    matches!(
        call,
        ToolCall::ReadConsoleMessages(_)
            | ToolCall::ReadNetworkRequests(_)
            | ToolCall::ListDownloads(_)
            | ToolCall::GetDownload(_)
    ) || matches!(call, ToolCall::Screenshot(a) if !a.badges())
}
