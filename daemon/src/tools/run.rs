//! [`EngineBackend`]: porthole-mcp's `ToolBackend` on the engine, over a [`SessionSource`]
//! (a channel's session for the action endpoint, the user's Chrome for mcp-host-browser), and
//! [`run`], which dispatches one validated call to its tool.

use std::sync::Arc;

use async_trait::async_trait;
use porthole_mcp::screenshot_file::save_screenshot;
use porthole_mcp::vocabulary::ToolCall;
use porthole_mcp::{ToolBackend, ToolOutput};
use serde_json::Value;

use crate::browser::{Actor, BrowserSession};
use crate::tools::act::{computer as actions, forms};
use crate::tools::error::ToolError;
use crate::tools::page::{browse as page, dialog_answers as dialogs, tab_list as tabs};
use crate::tools::read::{page_logs as logs, snapshot};
use crate::tools::tab::driver::Tab;
use crate::tools::transfer::file_tools as files;

/// Where the tools find their browser session (started on demand).
#[async_trait]
pub trait SessionSource: Send + Sync + 'static {
    /// The running session, or a message saying what to do.
    async fn session(&self) -> Result<Arc<BrowserSession>, String>;
}

/// A [`SessionSource`] that is already resolved (the action endpoint: the session was
/// started before the call, so the caller can count the call as activity on it).
pub struct ReadySession(pub Arc<BrowserSession>);

#[async_trait]
impl SessionSource for ReadySession {
    async fn session(&self) -> Result<Arc<BrowserSession>, String> {
        Ok(self.0.clone())
    }
}

/// Runs the tools on the engine.
pub struct EngineBackend {
    source: Arc<dyn SessionSource>,
    /// Who runs the calls.
    actor: Actor,
    /// True when this process is where the MCP client runs (mcp-host-browser): it writes
    /// `save_screenshot` files itself. The action endpoint refuses them instead; the proxy
    /// writes them inside the agent's container.
    saves_files: bool,
    /// The vault, for `list_logins` / `fill_login` / `fill_totp` (the daemon's action
    /// endpoint; none in mcp-host-browser).
    vault: Option<crate::tools::login::vault_tools::VaultHooks>,
}

impl EngineBackend {
    /// Tools run by the owner (every tab; the tab the panes show).
    pub fn new(source: Arc<dyn SessionSource>, saves_files: bool) -> Self {
        Self::for_actor(source, saves_files, Actor::Owner)
    }

    /// Tools run by `actor`.
    pub fn for_actor(source: Arc<dyn SessionSource>, saves_files: bool, actor: Actor) -> Self {
        Self {
            source,
            actor,
            saves_files,
            vault: None,
        }
    }

    /// With the vault's tools.
    pub fn with_vault(mut self, hooks: crate::tools::login::vault_tools::VaultHooks) -> Self {
        self.vault = Some(hooks);
        self
    }
}

#[async_trait]
impl ToolBackend for EngineBackend {
    async fn call(&self, tool: &str, args: Value) -> ToolOutput {
        let call = match ToolCall::from_name(tool, &args) {
            Ok(call) => call,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        // upload_file's paths are read where the MCP client runs: here for mcp-host-browser;
        // porthole-mcp sends the files inline, and the action endpoint reads no paths.
        let call = match call {
            ToolCall::UploadFile(a) if a.files.is_none() && self.saves_files => {
                match porthole_mcp::upload::with_inline_files(a).await {
                    Ok(a) => ToolCall::UploadFile(a),
                    Err(e) => return ToolOutput::error(e.to_string()),
                }
            }
            other => other,
        };
        if let ToolCall::SaveScreenshot(a) = &call {
            if !self.saves_files {
                return ToolOutput::error(
                    "save_screenshot writes the file where the MCP server runs, so the daemon \
                     does not run it: call it through porthole-mcp, or call screenshot here.",
                );
            }
            return save_screenshot(self, a).await;
        }
        let session = match self.source.session().await {
            Ok(session) => session,
            Err(message) => return ToolOutput::error(message),
        };
        let mut output = match &call {
            ToolCall::ListLogins(_) | ToolCall::FillLogin(_) | ToolCall::FillTotp(_) => {
                crate::tools::login::vault_tools::run(
                    &session,
                    &call,
                    &self.actor,
                    self.vault.as_ref(),
                )
                .await
            }
            ToolCall::Evaluate(_) if self.vault.is_some() => {
                let hooks = self.vault.as_ref().expect("checked");
                crate::tools::script_guard::evaluate(&session, &call, &self.actor, hooks).await
            }
            _ => run(&session, &call, &self.actor).await,
        };
        // The person's answers to what the call's page sent (a form post, a new site) come
        // with its answer.
        session.approvals().settled(self.actor.id()).await;
        // A tab of this agent's was closed on a browser-internal page since its last result.
        for note in session
            .agent_notes()
            .take(self.actor.id())
            .into_iter()
            .rev()
        {
            output
                .content
                .insert(0, porthole_mcp::Content::Text { text: note });
        }
        output
    }
}

/// Runs one validated call as `actor` in the tab it acts in (or on its tab list).
pub async fn run(browser: &Arc<BrowserSession>, call: &ToolCall, actor: &Actor) -> ToolOutput {
    let started = std::time::Instant::now();
    // The commands the call sent and how many replies it waited on one after another (each
    // a round trip to a browser far away).
    let (result, cdp) = crate::cdp::tallied(dispatch(browser, call, actor)).await;
    tracing::debug!(
        event = "tool_run",
        channel_id = %browser.channel(),
        agent_id = actor.id(),
        tool = call.name().as_str(),
        ok = result.is_ok(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        commands = cdp.commands,
        sequential_waits = cdp.rounds
    );
    result.unwrap_or_else(|e| ToolOutput::error(e.to_string()))
}

async fn dispatch(
    browser: &Arc<BrowserSession>,
    call: &ToolCall,
    actor: &Actor,
) -> Result<ToolOutput, ToolError> {
    match call {
        ToolCall::ListTabs(_) => return Ok(tabs::list_tabs(browser, actor)),
        ToolCall::NewTab(a) => return tabs::new_tab(browser, actor, a).await,
        ToolCall::SwitchTab(a) => return tabs::switch_tab(browser, actor, a).await,
        ToolCall::CloseTab(a) => return tabs::close_tab(browser, actor, a).await,
        ToolCall::RequestHuman(_) => {
            return Err(ToolError::msg(
                "request_human needs a person watching a Porthole pane; nobody watches this \
                 browser. Ask the user in your conversation instead.",
            ))
        }
        ToolCall::ListDownloads(_) => return Ok(files::list_downloads(browser, actor)),
        ToolCall::ListLogins(_) | ToolCall::FillLogin(_) | ToolCall::FillTotp(_) => {
            return Ok(crate::tools::login::vault_tools::run(browser, call, actor, None).await)
        }
        ToolCall::GetDownload(a) => return files::get_download(browser, actor, a).await,
        _ => {}
    }
    let tab = Tab::for_actor(browser, actor).await?;
    // Never on a browser-internal page (an agent's tab there is closed).
    browser.url_guard().check_tab(&tab.target_id).await?;
    // Tools use this tab: the helper's world in each of its new documents from now on.
    crate::tools::tab::world::in_new_documents(browser, &tab.session_id);
    if let ToolCall::HandleDialog(a) = call {
        return dialogs::handle_dialog(&tab, a).await;
    }
    // A page blocked by a dialog answers nothing that runs in it.
    if let Some(dialog) = browser.dialogs().open(&tab.target_id) {
        if !works_during_dialog(call) {
            return Err(ToolError::msg(dialog.describe()));
        }
    }
    // A page that asks for a login waits for a person (`browser::auth`).
    if let Some(prompt) = browser.auth().prompt_in(&tab.target_id) {
        if !works_during_dialog(call) {
            return Err(ToolError::msg(prompt.describe_for_agent()));
        }
    }
    // An act the agent must ask the person about waits for the answer.
    crate::tools::approvals::gate(browser, actor, &tab.target_id, call).await?;
    let work = dialogs::unless_blocked(&tab, run_on_tab(&tab, call));
    let auth = browser.auth();
    let output = tokio::select! {
        output = work => output?,
        prompt = auth.prompt_opens(&tab.target_id), if !works_during_dialog(call) => {
            return Err(ToolError::msg(prompt.describe_for_agent()));
        }
    };
    Ok(dialogs::mention_open_dialog(&tab, output))
}

/// Tools that do not run in the page, so they work while a dialog blocks it (a screenshot
/// with badges asks the page where its elements are, so it does not).
fn works_during_dialog(call: &ToolCall) -> bool {
    matches!(
        call,
        ToolCall::ReadConsoleMessages(_)
            | ToolCall::ReadNetworkRequests(_)
            | ToolCall::ListDownloads(_)
            | ToolCall::GetDownload(_)
    ) || matches!(call, ToolCall::Screenshot(a) if !a.badges())
}

async fn run_on_tab(tab: &Tab, call: &ToolCall) -> Result<ToolOutput, ToolError> {
    match call {
        ToolCall::Navigate(a) => page::navigate(tab, a).await,
        ToolCall::ReadPage(a) => snapshot::read_page(tab, a).await,
        ToolCall::Find(a) => snapshot::find(tab, a).await,
        ToolCall::Computer(a) => actions::computer(tab, a).await,
        ToolCall::FormInput(a) => forms::form_input(tab, a).await,
        ToolCall::Screenshot(a) => page::screenshot(tab, a).await,
        ToolCall::GoBack(_) => page::history(tab, -1).await,
        ToolCall::GoForward(_) => page::history(tab, 1).await,
        ToolCall::Reload(_) => page::reload(tab).await,
        ToolCall::Evaluate(a) => page::evaluate(tab, a).await,
        ToolCall::PageInfo(_) => page::page_info(tab).await,
        ToolCall::GetPageText(a) => page::page_text(tab, a).await,
        ToolCall::ReadConsoleMessages(a) => Ok(logs::console(tab, a)),
        ToolCall::ReadNetworkRequests(a) => Ok(logs::network(tab, a)),
        ToolCall::ResizeWindow(a) => page::resize_window(tab, a).await,
        ToolCall::SaveScreenshot(_) => Err(ToolError::msg(
            "save_screenshot is written by the MCP server; call screenshot here",
        )),
        ToolCall::UploadFile(a) => files::upload_file(tab, a).await,
        ToolCall::ListDownloads(_) | ToolCall::GetDownload(_) => {
            unreachable!("download tools are handled above")
        }
        ToolCall::ListTabs(_)
        | ToolCall::NewTab(_)
        | ToolCall::SwitchTab(_)
        | ToolCall::CloseTab(_)
        | ToolCall::HandleDialog(_)
        | ToolCall::RequestHuman(_)
        | ToolCall::ListLogins(_)
        | ToolCall::FillLogin(_)
        | ToolCall::FillTotp(_) => {
            unreachable!("tab, dialog, handoff and vault tools are handled above")
        }
    }
}
