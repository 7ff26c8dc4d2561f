//! An agent's act, start to end: the one path every tool call takes, whoever makes it. The act
//! is parsed once ([`call`]) and passes named layers, each one type or set of functions in one
//! file, so "why was my call refused" has one answer per layer:
//!
//! | layer | owns | file |
//! |---|---|---|
//! | admit | token → channel, denied tools, host mode, calls in flight, lost tabs | [`admit`] |
//! | oversee | control, the person active in the tab, reopen loops, `request_human`, Stop | [`oversee`] |
//! | gate | the acting tab, the URL guard, dialogs, login prompts, the browser's notes | [`gate`] |
//! | secrets | script and secrets never share a document; origins of a fill; the scrub | [`secrets`] |
//! | consent | sites and confirm kinds held on the session, approvals of the tools' own acts | [`consent`] |
//! | record | the timeline's `tool` and `vault` events | [`record`] |
//!
//! Inside, a tool runs on its tab through `crate::tools` (one match). The order within a call:
//! admit → oversee → gate → consent → secrets → the tool → consent's wait for the page's
//! approvals → gate's notes → secrets' scrub → record. Secrets come right before the tool, so
//! the document's state is checked after any approval wait, on the tab the tool runs in, and
//! a script counts from the moment it may start.
//!
//! Entry points, each with the layers that apply to it:
//! - the action endpoint (`POST /api/browser/action`, agents in containers and the owner
//!   token): [`channel_call`], every layer;
//! - the pane's `vault_fill` (the person's own fill): [`fill_for_person`]: the gate, secrets
//!   and record; no admission, oversight or approval (she is the one who approves);
//! - `porthole mcp-host-browser` (the user's own Chrome, no channel): [`Pipeline::standalone`],
//!   the gate and consent only (no person, no vault, no timeline), and files read and written
//!   where the MCP client runs.
//!
//! How the CDP door (DESIGN.md §21) uses each layer, one CDP command class at a time:
//! - admit: the door's URL carries the agent token; the same [`admit::admit`] decides the
//!   channel, `cdp` (or `evaluate`) in `deny_tools` closes the door, host mode is refused the
//!   same way, and each WebSocket message counts against the same calls in flight;
//! - oversee: input, navigation, reload and close commands pass [`oversee::Oversee::admit`]
//!   with the tool they stand for (`computer`, `navigate`, `reload`, `close_tab`), so control,
//!   the human-activity guard and Stop refuse them with a CDP error; a burst is announced once
//!   as `agent_activity`;
//! - gate: a command names its target; the gate's acting tab becomes "a target of this agent"
//!   (a foreign id answers Chrome's own "No target with given id found") and the URL guard and
//!   dialog checks apply to page commands;
//! - secrets: `Runtime`/`DOM` script commands pass [`secrets::Secrets::before_script`] like
//!   `evaluate` (refused in a filled document) and mark their document scripted after;
//! - consent: the session already holds the agent's sites and kinds at the network layer
//!   (`browser::guard`), so a Playwright navigation is held like a tool's; `Runtime.evaluate`
//!   asks as `evaluate` does, `DOM.setFileInputFiles` as `upload_file`;
//! - record: acts are `tool` events named `cdp:<Method>`, reads are not recorded one by one.
//!
//! The door's side of this is [`door`]: admit, consent held for the connection, calls in
//! flight, oversee and the URL checks of navigation, the vault's script rule
//! ([`secrets::Secrets::door_script`]) and the timeline's `cdp:` events.

mod admit;
mod call;
mod consent;
mod door;
mod fill;
mod gate;
mod oversee;
mod person_fill;
mod record;
mod secrets;

use std::sync::Arc;

use porthole_mcp::screenshot_file::write_screenshot;
use porthole_mcp::vocabulary::ToolCall;
use porthole_mcp::{ToolName, ToolOutput};
use serde_json::Value;
use tracing::Instrument;

use crate::agents::{AgentIdentity, Agents};
use crate::browser::{ActivityPhase, Actor, BrowserSession};
use crate::channels::ChannelService;
use crate::oversight::Oversight;
use crate::timeline::Timeline;
use crate::tools::{self, Scope, ToolError};
use crate::vault::Vault;

pub(crate) use admit::{call_slot, Refusal};
pub(crate) use consent::apply_rules;
pub(crate) use door::{enter as enter_door, DoorEntry, DoorShut};
pub(crate) use person_fill::PersonFill;

use fill::FillLayers;
use oversee::Oversee;
use record::Record;
use secrets::Secrets;

/// The daemon's parts an act on a channel is admitted by, overseen, checked and recorded in.
pub(crate) struct Parts<'a> {
    pub(crate) agents: &'a Agents,
    pub(crate) channels: &'a ChannelService,
    pub(crate) oversight: &'a Oversight,
    pub(crate) timeline: &'a Arc<Timeline>,
    pub(crate) vault: &'a Arc<Vault>,
}

/// One act on a channel's browser by `agent` (the owner token when `None`) on the channel it
/// `asked` for: every layer. `Err` is a request refused before it became an act.
pub(crate) async fn channel_call(
    parts: &Parts<'_>,
    agent: Option<&AgentIdentity>,
    asked: Option<&str>,
    tool: &str,
    args: Value,
) -> Result<ToolOutput, Refusal> {
    let admitted = admit::admit(parts.agents, parts.channels, agent, asked)?;
    if let Some(refusal) = admitted.refusal(parts.agents, parts.channels, tool) {
        return Ok(refusal);
    }
    let channel = admitted.channel.clone();
    let span = tracing::info_span!("agent_action", channel_id = %channel, agent_id = admitted.actor.id(), tool = %admit::logged_tool(tool));
    async move {
        let _activity = parts.channels.agent_call(&channel);
        let session = match admitted.start(parts.channels, tool).await? {
            Ok(session) => session,
            Err(answer) => return Ok(answer),
        };
        let actor = &admitted.actor;
        let _acting =
            match consent::hold(parts.agents, &session, actor, admitted.agent.as_ref()).await {
                Ok(acting) => acting,
                Err(refusal) => return Ok(ToolOutput::error(refusal)),
            };
        consent::read_scripted_from(&session, parts.vault);
        let lost = parts.channels.take_lost_tabs(&channel, actor.id());
        let pipeline = Pipeline {
            oversee: Some(Oversee::new(parts.oversight.channel(&channel))),
            secrets: Some(Secrets::new(parts.vault.clone())),
            record: Some(Record::new(parts.timeline.clone())),
            files_here: false,
        };
        let mut output = pipeline.run(&session, actor, tool, args).await;
        admitted.close(parts.agents, &session, lost, &mut output);
        Ok(output)
    }
    .instrument(span)
    .await
}

/// The person's own fill of `item` into tab `(target_id, session_id)` (a pane's
/// `vault_fill`); `agents`: the ids of the channel's agents.
pub(crate) async fn fill_for_person(
    parts: &Parts<'_>,
    session: &Arc<BrowserSession>,
    tab: (String, String),
    item: &str,
    agents: &[String],
) -> PersonFill {
    let secrets = Secrets::new(parts.vault.clone());
    let record = Record::new(parts.timeline.clone());
    person_fill::fill_for_person(session, &secrets, &record, tab, item, agents).await
}

/// The layers one entry point's calls pass (admission is the entry point's own, before it has
/// a session).
pub(crate) struct Pipeline {
    oversee: Option<Oversee>,
    secrets: Option<Secrets>,
    record: Option<Record>,
    /// The MCP client runs in this process (mcp-host-browser): `save_screenshot` writes its
    /// file here and `upload_file` reads its paths here. Elsewhere the proxy does both in the
    /// agent's container.
    files_here: bool,
}

impl Pipeline {
    /// `porthole mcp-host-browser`: the gate and consent only, with files where it runs.
    pub(crate) fn standalone() -> Self {
        Self {
            oversee: None,
            secrets: None,
            record: None,
            files_here: true,
        }
    }

    /// Runs `tool` with `args` as `actor` in `session`.
    pub(crate) async fn run(
        &self,
        session: &Arc<BrowserSession>,
        actor: &Actor,
        tool: &str,
        args: Value,
    ) -> ToolOutput {
        let started = self.record.as_ref().map(|_| Record::start(tool, &args));
        let mut output = match call::parse(tool, &args) {
            Ok(call) => self.overseen(session, actor, &call).await,
            Err(refusal) => refusal,
        };
        if let Some(secrets) = &self.secrets {
            secrets.scrub(session.channel(), &mut output);
        }
        if let (Some(record), Some(started)) = (&self.record, started) {
            record.tool_call(session, actor, tool, started, &output);
        }
        output
    }

    /// The call under the person's oversight, when this entry point has it.
    async fn overseen(
        &self,
        session: &Arc<BrowserSession>,
        actor: &Actor,
        call: &ToolCall,
    ) -> ToolOutput {
        let Some(oversee) = &self.oversee else {
            return self.act(session, actor, call).await;
        };
        oversee.announce(session, actor, call, ActivityPhase::Start, None);
        let output = match (oversee.admit(session, actor, call), call) {
            (Err(refusal), _) => refusal,
            (Ok(_), ToolCall::RequestHuman(request)) => {
                match oversee.handoff(session, actor, request).await {
                    Ok(done) => self.page_after_handoff(session, actor, done).await,
                    Err(refusal) => refusal,
                }
            }
            (Ok(watched), _) => {
                let mut output = oversee.unless_stopped(self.act(session, actor, call)).await;
                oversee
                    .after(session, actor, call, &watched, &mut output)
                    .await;
                output
            }
        };
        let ok = Some(!output.is_error);
        oversee.announce(session, actor, call, ActivityPhase::End, ok);
        output
    }

    /// The page as it is after the person pressed Done, under the line saying so.
    async fn page_after_handoff(
        &self,
        session: &Arc<BrowserSession>,
        actor: &Actor,
        done: String,
    ) -> ToolOutput {
        let page_info = call::parse(
            ToolName::PageInfo.as_str(),
            &Value::Object(Default::default()),
        )
        .expect("page_info takes no arguments");
        let mut output = self.act(session, actor, &page_info).await;
        output
            .content
            .insert(0, porthole_mcp::Content::Text { text: done });
        output.is_error = false;
        output
    }

    /// The act itself: the tool behind the gate, the vault's rules and consent, then the
    /// person's answers about what its page sent and the browser's notes.
    async fn act(
        &self,
        session: &Arc<BrowserSession>,
        actor: &Actor,
        call: &ToolCall,
    ) -> ToolOutput {
        let started = std::time::Instant::now();
        // The commands the call sent and how many replies it waited on one after another (each
        // a round trip to a browser far away).
        let (result, cdp) = crate::cdp::tallied(self.in_browser(session, actor, call)).await;
        tracing::debug!(
            event = "tool_run",
            channel_id = %session.channel(),
            agent_id = actor.id(),
            tool = call.name().as_str(),
            ok = result.is_ok(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            commands = cdp.commands,
            sequential_waits = cdp.rounds
        );
        let mut output = result.unwrap_or_else(|e| ToolOutput::error(e.to_string()));
        // The person's answers to what the call's page sent (a form post, a new site) come
        // with its answer.
        consent::settled(session, actor).await;
        gate::notes(session, actor, &mut output);
        output
    }

    async fn in_browser(
        &self,
        session: &Arc<BrowserSession>,
        actor: &Actor,
        call: &ToolCall,
    ) -> Result<ToolOutput, ToolError> {
        match tools::scope(call) {
            Scope::Browser => tools::run(session, actor, None, call).await,
            Scope::Tab => self.in_tab(session, actor, call).await,
            Scope::Pipeline => self.by_pipeline(session, actor, call).await,
        }
    }

    async fn in_tab(
        &self,
        session: &Arc<BrowserSession>,
        actor: &Actor,
        call: &ToolCall,
    ) -> Result<ToolOutput, ToolError> {
        let inlined;
        let call = match call {
            // upload_file's paths are read where the MCP client runs: here for
            // mcp-host-browser; porthole-mcp sends the files inline.
            ToolCall::UploadFile(a) if a.files.is_none() && self.files_here => {
                let a = porthole_mcp::upload::with_inline_files(a.clone())
                    .await
                    .map_err(|e| ToolError::msg(e.to_string()))?;
                inlined = ToolCall::UploadFile(a);
                &inlined
            }
            other => other,
        };
        // One tab for the whole call: the checks and the tool see the same one.
        let mut tab = gate::enter(session, actor, call).await?;
        consent::approve(&tab, call).await?;
        if let Some(secrets) = &self.secrets {
            secrets.before_script(&tab, call).await?;
            tab.redact = secrets.redact(session.channel());
        }
        gate::guarded(&tab, call, tools::run(session, actor, Some(&tab), call)).await
    }

    /// The tools the pipeline itself runs: they need a layer between their halves (a
    /// download's approval, a fill's checks) or run where the client is.
    async fn by_pipeline(
        &self,
        session: &Arc<BrowserSession>,
        actor: &Actor,
        call: &ToolCall,
    ) -> Result<ToolOutput, ToolError> {
        match call {
            ToolCall::GetDownload(a) => {
                let download = tools::finished_download(session, actor, a).await?;
                consent::approve_download(session, actor, &download).await?;
                tools::download_answer(session, &download).await
            }
            ToolCall::ListLogins(_) | ToolCall::FillLogin(_) | ToolCall::FillTotp(_) => {
                let Some(secrets) = &self.secrets else {
                    return Err(ToolError::msg(
                        "The vault's tools run in the Porthole daemon (porthole serve), where \
                         the person keeps their vault; this browser server has none.",
                    ));
                };
                let layers = FillLayers {
                    secrets,
                    record: self.record.as_ref(),
                };
                fill::vault_tool(&layers, session, actor, call).await
            }
            ToolCall::SaveScreenshot(a) if self.files_here => {
                // The screenshot passes the same layers as the call; the file is written here.
                let shot = ToolCall::Screenshot(a.screenshot_args());
                let shot = Box::pin(self.act(session, actor, &shot)).await;
                Ok(write_screenshot(a, shot).await)
            }
            ToolCall::SaveScreenshot(_) => Err(ToolError::msg(
                "save_screenshot writes the file where the MCP server runs, so the daemon does \
                 not run it: call it through porthole-mcp, or call screenshot here.",
            )),
            ToolCall::RequestHuman(_) => Err(ToolError::msg(
                "request_human needs a person watching a Porthole pane; nobody watches this \
                 browser. Ask the user in your conversation instead.",
            )),
            other => tools::run(session, actor, None, other).await,
        }
    }
}
