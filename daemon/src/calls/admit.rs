//! The first layer: may this caller act here at all? The token names the caller (the owner, or
//! an agent of one channel); an agent acts only on its own channel, and only on one that exists
//! (an agent never creates one); never with a denied tool (`agents.deny_tools`, its
//! `deny_tools`); not in a channel in host mode unless it has `allow_host_mode` (§16; the
//! owner may), checked again once the browser runs, since a pane may switch the mode
//! meanwhile; and at most `agents.max_calls_in_flight` calls at once ([`call_slot`], taken
//! before the request's body is read).
//!
//! Refusals that concern the request itself (another channel, no such channel, too many calls)
//! are [`Refusal`]s the entry point turns into its own error (an HTTP status, a CDP error);
//! refusals of the act (a denied tool, host mode) are error results the agent reads.
//!
//! Also the call's bookkeeping at the door: the agent whose tabs went away since its last call
//! (idle stop, crash, reset, daemon restart) is told so first, and the agent's "has tabs" mark
//! follows its last call.

use std::sync::Arc;

use porthole_mcp::{Content, ToolOutput};

use crate::agents::{host_mode_refusal, AgentIdentity, Agents, CallSlot, TooManyCalls};
use crate::browser::{Actor, BrowserSession};
use crate::channel_id::{ChannelId, InvalidChannelId};
use crate::channels::{ChannelError, ChannelService};
use crate::mode::Mode;

/// A request refused before it became an act.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The owner token must name a channel.
    ChannelRequired,
    /// Not a channel id.
    BadChannel(InvalidChannelId),
    /// An agent token naming another channel than its own.
    OtherChannel { own: ChannelId, asked: String },
    /// The channel does not exist, or could not be looked up.
    Channel(ChannelError),
}

impl Refusal {
    /// What the caller reads.
    pub(crate) fn message(&self) -> String {
        match self {
            Refusal::ChannelRequired => "channel_id is required with the owner token".into(),
            Refusal::BadChannel(e) => e.to_string(),
            Refusal::OtherChannel { own, asked } => format!(
                "this agent token belongs to channel {own}; it cannot act on channel {asked}"
            ),
            Refusal::Channel(e) => e.to_string(),
        }
    }
}

/// A caller admitted to a channel.
pub(crate) struct Admitted {
    pub(crate) channel: ChannelId,
    pub(crate) actor: Actor,
    /// The agent's record (`None` for the owner token).
    pub(crate) agent: Option<AgentIdentity>,
    /// Whether it may act in host mode.
    host_ok: bool,
}

/// Admits `agent` (the owner when `None`) to the channel it `asked` for.
pub(crate) fn admit(
    agents: &Agents,
    channels: &ChannelService,
    agent: Option<&AgentIdentity>,
    asked: Option<&str>,
) -> Result<Admitted, Refusal> {
    let host_ok = agents.may_use_host_mode(agent);
    let Some(agent) = agent else {
        let asked = asked.ok_or(Refusal::ChannelRequired)?;
        let channel = ChannelId::parse(asked).map_err(Refusal::BadChannel)?;
        return Ok(Admitted {
            channel,
            actor: Actor::Owner,
            agent: None,
            host_ok,
        });
    };
    let own = ChannelId::parse(&agent.channel_id).map_err(Refusal::BadChannel)?;
    if let Some(asked) = asked {
        if asked != own.as_str() {
            return Err(Refusal::OtherChannel {
                own,
                asked: asked.to_string(),
            });
        }
    }
    if !channels.exists(&own) {
        return Err(Refusal::Channel(ChannelError::UnknownChannel(own)));
    }
    Ok(Admitted {
        channel: own,
        actor: Actor::Agent {
            id: agent.agent_id.clone(),
            name: agent.name.clone(),
        },
        agent: Some(agent.clone()),
        host_ok,
    })
}

/// One of `agent`'s slots in `agents.max_calls_in_flight` (none for the owner token).
pub(crate) fn call_slot(
    agents: &Agents,
    agent: Option<&AgentIdentity>,
) -> Result<Option<CallSlot>, TooManyCalls> {
    match agent {
        None => Ok(None),
        Some(agent) => agents.begin_call(&agent.agent_id).map(Some),
    }
}

impl Admitted {
    /// The refusal of `tool` before anything runs: a denied tool, or host mode without
    /// `allow_host_mode`.
    pub(crate) fn refusal(
        &self,
        agents: &Agents,
        channels: &ChannelService,
        tool: &str,
    ) -> Option<ToolOutput> {
        if let Some(denied) = agents.denied(self.agent.as_ref(), tool) {
            tracing::info!(event = "tool_denied", channel_id = %self.channel, agent_id = self.actor.id(), tool = %logged_tool(tool));
            return Some(ToolOutput::error(denied.message(tool)));
        }
        if !self.host_ok && channels.mode_of(&self.channel) == Mode::Host {
            return Some(self.refuse_host_mode(tool));
        }
        None
    }

    /// The channel's running session, its browser started when needed (an agent's call never
    /// creates the channel). `Ok(Err(answer))`: the act is refused with `answer` (the browser
    /// could not start, or the channel went to host mode meanwhile).
    pub(crate) async fn start(
        &self,
        channels: &ChannelService,
        tool: &str,
    ) -> Result<Result<Arc<BrowserSession>, ToolOutput>, Refusal> {
        let progress_channel = self.channel.clone();
        let progress: crate::providers::ProgressFn = Arc::new(move |stage: &str, message: &str| {
            tracing::info!(event = "progress", channel_id = %progress_channel, stage, message);
        });
        let started = match &self.actor {
            Actor::Agent { .. } => channels.start_existing(&self.channel, progress).await,
            _ => channels.start(&self.channel, None, progress).await,
        };
        let session = match started {
            Ok(session) => session,
            Err(error @ ChannelError::UnknownChannel(_)) => return Err(Refusal::Channel(error)),
            Err(error) => {
                return Ok(Err(ToolOutput::error(format!(
                    "The browser of channel {} could not be started: {error}",
                    self.channel
                ))))
            }
        };
        // Checked again on the session itself: a pane may have switched the channel to host
        // mode since the check before the start.
        if !self.host_ok && session.mode() == Mode::Host {
            return Ok(Err(self.refuse_host_mode(tool)));
        }
        Ok(Ok(session))
    }

    /// After the call: the agent's "has tabs" mark, and what it reads first when its tabs
    /// went away since its last call (`lost`, taken before the call ran).
    pub(crate) fn close(
        &self,
        agents: &Agents,
        session: &BrowserSession,
        lost: Option<String>,
        output: &mut ToolOutput,
    ) {
        if let Actor::Agent { id, .. } = &self.actor {
            let has_tabs = session
                .agent_tabs()
                .agents_with_tabs()
                .iter()
                .any(|a| a == id);
            agents.set_tabs_open(id, has_tabs);
        }
        if let Some(reason) = lost {
            output.content.insert(
                0,
                Content::Text {
                    text: lost_tabs_notice(&reason),
                },
            );
        }
    }

    fn refuse_host_mode(&self, tool: &str) -> ToolOutput {
        tracing::info!(event = "host_mode_refused", channel_id = %self.channel, agent_id = self.actor.id(), tool);
        ToolOutput::error(host_mode_refusal(self.channel.as_str()))
    }
}

/// A tool name as the log keeps it: a known name whole, anything else cut (an agent may send
/// a megabyte as a tool name; the timeline records it as "unknown tool" the same way).
pub(crate) fn logged_tool(tool: &str) -> String {
    match tool.chars().count() {
        0..=64 => tool.to_string(),
        n => format!(
            "{}… ({n} characters)",
            tool.chars().take(32).collect::<String>()
        ),
    }
}

/// What an agent reads when its tabs went away since its last call.
fn lost_tabs_notice(reason: &str) -> String {
    let why = match reason {
        "idle" => "the channel's browser was stopped because nobody used it for the idle timeout",
        "browser_gone" => "the channel's browser crashed or was killed",
        "profile_reset" => "the channel's profile was reset",
        "channel_deleted" => "the channel was deleted",
        "stopped_by_pane" => "the person at the browser pane stopped the browser",
        "daemon_shutdown" | "daemon_restart" => "the Porthole daemon was restarted",
        _ => "the channel's browser was stopped",
    };
    format!(
        "Note: your tabs in this channel are gone: {why} ({reason}). This call ran in a fresh \
         browser; pages you had open, their form input and scroll positions are lost, so \
         navigate again to where you were. Cookies and logins in the profile were kept unless \
         the profile was reset."
    )
}
