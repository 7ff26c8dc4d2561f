//! The CDP door's way through the layers (DESIGN.md §21): the door is an entry point like the
//! action endpoint, and a CDP connection passes the same layers, once per connection or once
//! per command:
//! - admit, once: the agent's own channel, `cdp` or `evaluate` in `deny_tools` closes the
//!   door, host mode without `allow_host_mode` too, and the channel's browser is started;
//! - consent, for the connection's life: the agent's sites and confirm kinds are held on the
//!   session (so the network layer refuses and asks for its tabs as for its tool calls), and
//!   its tabs' requests count as its acts while the connection is open;
//! - calls in flight, per command: at most `agents.max_calls_in_flight` commands of one
//!   agent's door connections run at once ([`crate::agents::Agents::door_turns`]); the rest wait their turn (a CDP client sends its commands in
//!   bursts — Playwright opens a page with twenty at once — and refusing them would break
//!   it); they do not take the agent's tool-call slots ([`super::call_slot`]), so a busy client never
//!   starves the agent's MCP calls;
//! - oversee, per input, navigation, reload and close command: [`Oversee::door_refusal`];
//! - the URL guard and sites, per navigation: the check MCP `navigate` makes before anything
//!   is sent (`browser`'s `Navigation::admit_url`);
//! - record, per act (navigation, a click or key press, script, a tab opened or closed): a
//!   `tool` event named `cdp:<Method>` ([`Record::door_act`]);
//! - secrets, per command that runs or reads script (`Runtime`, `DOM.resolveNode`, snapshots):
//!   refused in a document a login was filled into, else the document counts as scripted
//!   ([`Secrets::door_script`], the rule MCP `evaluate` follows);
//! - the agent's life: deleting the agent ends its connections ([`DoorEntry::agent_deleted`]).
//!
//! This file owns none of those rules; it only applies them to the door.

use std::sync::Arc;

use porthole_mcp::ToolName;

use super::admit::{self, Refusal};
use super::consent;
use super::oversee::Oversee;
use super::record::{DoorAct, Record};
use super::secrets::Secrets;
use super::Parts;
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::agents::AgentIdentity;
use crate::browser::{ActivityPhase, Actor, BrowserSession, CallGuard, PaneMessage, UrlPolicy};
use crate::channel_id::ChannelId;

/// Why the door stays shut for an agent.
#[derive(Debug)]
pub(crate) enum DoorShut {
    /// The agent's channel is gone, or its id is bad (`Refusal::message` says which).
    Request(Refusal),
    /// `cdp` or `evaluate` is denied to the agent, or the channel is in host mode and the
    /// agent may not use it (403 `agent_forbidden`).
    Forbidden(String),
    /// The channel's browser could not be started, or its network checks are not on.
    Unavailable(String),
}

impl DoorShut {
    /// What the client reads (never the token).
    pub(crate) fn message(&self) -> String {
        match self {
            DoorShut::Request(refusal) => refusal.message(),
            DoorShut::Forbidden(message) | DoorShut::Unavailable(message) => message.clone(),
        }
    }
}

/// An agent let through the door: its channel's running browser and the layers its commands
/// pass. Dropping it ends the connection's hold on the agent's sites and acts.
pub(crate) struct DoorEntry {
    pub(crate) channel: ChannelId,
    pub(crate) actor: Actor,
    pub(crate) session: Arc<BrowserSession>,
    oversee: Oversee,
    record: Record,
    secrets: Secrets,
    /// `agents.max_calls_in_flight` permits, shared by all the agent's door connections.
    in_flight: Arc<Semaphore>,
    /// Cancelled when the agent is deleted: the connection ends.
    gone: tokio_util::sync::CancellationToken,
    _acting: CallGuard,
}

/// The tools the door stands for: either one denied closes it.
const DOOR_TOOLS: [&str; 2] = [crate::agents::CDP_DOOR_TOOL, "evaluate"];

/// Lets `agent` through the door without starting anything: `Err` when the door is shut to
/// it (its channel is gone, `cdp`/`evaluate` denied, host mode).
pub(crate) fn may_enter(parts: &Parts<'_>, agent: &AgentIdentity) -> Result<(), DoorShut> {
    let admitted =
        admit::admit(parts.agents, parts.channels, Some(agent), None).map_err(DoorShut::Request)?;
    for tool in DOOR_TOOLS {
        if let Some(refused) = admitted.refusal(parts.agents, parts.channels, tool) {
            return Err(DoorShut::Forbidden(text_of(&refused)));
        }
    }
    Ok(())
}

/// Lets `agent` through the door: every check of [`may_enter`], then its channel's browser
/// (started when needed) with its sites and kinds held on it.
pub(crate) async fn enter(parts: &Parts<'_>, agent: &AgentIdentity) -> Result<DoorEntry, DoorShut> {
    // Taken first: a deletion from here on ends the connection.
    let gone = parts.agents.gone(&agent.agent_id);
    may_enter(parts, agent)?;
    let admitted =
        admit::admit(parts.agents, parts.channels, Some(agent), None).map_err(DoorShut::Request)?;
    let session = match admitted
        .start(parts.channels, "cdp")
        .await
        .map_err(DoorShut::Request)?
    {
        Ok(session) => session,
        Err(refused) if session_refused_for_mode(&refused) => {
            return Err(DoorShut::Forbidden(text_of(&refused)))
        }
        Err(refused) => return Err(DoorShut::Unavailable(text_of(&refused))),
    };
    // Held to its rules, or shut: a browser whose network checks are off never runs the
    // client's commands unchecked.
    let acting = consent::hold(parts.agents, &session, &admitted.actor, Some(agent))
        .await
        .map_err(DoorShut::Unavailable)?;
    consent::read_scripted_from(&session, parts.vault);
    let oversee = Oversee::new(parts.oversight.channel(&admitted.channel));
    Ok(DoorEntry {
        channel: admitted.channel.clone(),
        actor: admitted.actor.clone(),
        session,
        oversee,
        record: Record::new(parts.timeline.clone()),
        secrets: Secrets::new(parts.vault.clone()),
        in_flight: parts.agents.door_turns(&agent.agent_id),
        gone,
        _acting: acting,
    })
}

impl DoorEntry {
    /// Resolves when the agent is deleted (its connection then ends; its token already fails).
    pub(crate) async fn agent_deleted(&self) {
        self.gone.cancelled().await
    }

    /// A turn for one command: it waits while `agents.max_calls_in_flight` commands of the
    /// agent's door connections run.
    pub(crate) async fn command_turn(&self) -> SemaphorePermit<'_> {
        self.in_flight
            .acquire()
            .await
            .expect("the door's semaphore is never closed")
    }

    /// Tells every pane that the door's act `method` in tab `target_id` starts (`ok: None`)
    /// or ended, as a tool call's `agent_activity` (the tool named `cdp:<Method>`): the pill
    /// names the agent driving, and panes that follow agents go to its tab.
    pub(crate) fn announce_act(
        &self,
        method: &str,
        target_id: Option<&str>,
        phase: ActivityPhase,
        ok: Option<bool>,
    ) {
        self.session.announce(PaneMessage::AgentActivity {
            agent_id: self.actor.id().to_string(),
            name: self.actor.name().to_string(),
            tool: format!("cdp:{method}"),
            target_id: target_id.map(str::to_string),
            phase,
            ok,
        });
    }

    /// Records the door's act `method` in tab `target_id` that took `ms` (`summary`: never a
    /// typed value), with a frame of its tab when `frame`.
    pub(crate) fn record_act(
        &self,
        method: &str,
        target_id: Option<&str>,
        ok: bool,
        ms: u64,
        summary: String,
        frame: bool,
    ) {
        let act = DoorAct {
            tool: format!("cdp:{method}"),
            target_id: target_id.map(str::to_string),
            ok,
            ms,
            summary,
            frame,
        };
        self.record.door_act(&self.session, &self.actor, act);
    }

    /// The refusal of a command standing for `tool` in tab `target_id` while the person holds
    /// control or uses that tab.
    pub(crate) fn control_refusal(&self, tool: ToolName, target_id: &str) -> Option<String> {
        self.oversee.door_refusal(tool, target_id)
    }

    /// A command `send` (on the client's own session `client_session`) that runs or reads
    /// script in the agent's tab `target_id`: refused while a login filled there lives, else
    /// its document counts as scripted from the moment it is sent (the vault's rule, as for
    /// MCP `evaluate`; [`Secrets::door_script`]); `Err` says why not, and nothing was sent.
    pub(crate) async fn run_script<T>(
        &self,
        target_id: &str,
        client_session: &str,
        send: impl std::future::Future<Output = T>,
    ) -> Result<T, String> {
        let Some(session_id) = self.session.tab_session(target_id) else {
            return Err("No target with given id found".to_string());
        };
        let tab = crate::tools::Tab {
            browser: self.session.clone(),
            target_id: target_id.to_string(),
            session_id,
            actor: self.actor.clone(),
            redact: crate::tools::Redact::none(),
        };
        self.secrets.door_script(&tab, client_session, send).await
    }

    /// `url` checked as MCP `navigate` checks it for the agent's tab `target_id` (the URL
    /// guard, its sites, the person's approval of a new site); `Err` says why not.
    pub(crate) async fn admit_url(&self, target_id: &str, url: &str) -> Result<String, String> {
        let Some(tab_session) = self.session.tab_session(target_id) else {
            return Err("No target with given id found".to_string());
        };
        self.session
            .navigation()
            .admit_url(&tab_session, url, UrlPolicy::Agent, None)
            .await
            .map_err(|e| crate::tools::ToolError::from(e).to_string())
    }
}

/// Whether a refusal from the start is the host-mode rule (a door refusal) rather than a
/// browser that would not start.
fn session_refused_for_mode(refused: &porthole_mcp::ToolOutput) -> bool {
    text_of(refused).contains("host mode")
}

fn text_of(output: &porthole_mcp::ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|c| match c {
            porthole_mcp::Content::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
