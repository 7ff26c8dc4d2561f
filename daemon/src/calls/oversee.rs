//! The person outranks every agent (DESIGN.md §12): `agent_activity` start and end to every
//! pane; refusals while she holds control (`stop_agents`, `takeover`), while she is using the
//! acting tab (the human-activity guard), or when the agent keeps reopening a page (the reopen
//! loop); cancellation by `stop_agents` while the call runs; `request_human` (the handoff);
//! and what she changed in the tab, told on the agent's next read of it.
//!
//! The state all this reads (who holds control, her last input per tab, the loops, the open
//! handoff) is `crate::oversight`'s; this layer only applies it to one call.

use std::future::Future;
use std::sync::Arc;

use porthole_mcp::vocabulary::{RequestHumanArgs, TabRef, ToolCall};
use porthole_mcp::{Content, ToolName, ToolOutput};

use crate::browser::{ActivityPhase, Actor, BrowserSession, PaneMessage};
use crate::oversight::{acts_in_tab, may_run_while_held, page_state, ChannelOversight};

/// The person's oversight of one channel, for one call.
pub(crate) struct Oversee {
    oversight: Arc<ChannelOversight>,
}

/// What [`Oversee::admit`] saw before the call ran, for [`Oversee::after`].
pub(crate) struct Watched {
    /// The URL of the tab the call acts in, before it ran.
    url_before: Option<String>,
}

impl Oversee {
    pub(crate) fn new(oversight: Arc<ChannelOversight>) -> Self {
        Self { oversight }
    }

    /// Tells every pane that `actor`'s `call` starts (`ok: None`) or ended.
    pub(crate) fn announce(
        &self,
        session: &BrowserSession,
        actor: &Actor,
        call: &ToolCall,
        phase: ActivityPhase,
        ok: Option<bool>,
    ) {
        session.announce(PaneMessage::AgentActivity {
            agent_id: actor.id().to_string(),
            name: actor.name().to_string(),
            tool: call.name().as_str().to_string(),
            target_id: session.agent_tabs().current(actor),
            phase,
            ok,
        });
    }

    /// Refuses `call` while the person holds control, is using the acting tab, or the agent
    /// keeps reopening the page.
    pub(crate) fn admit(
        &self,
        session: &BrowserSession,
        actor: &Actor,
        call: &ToolCall,
    ) -> Result<Watched, ToolOutput> {
        let tool = call.name();
        if let Some(refusal) = self.oversight.refusal(tool) {
            return Err(ToolOutput::error(refusal));
        }
        let target = acted_tab(session, actor, call);
        if acts_in_tab(tool) {
            let quiet = self.oversight.human_quiet();
            if let Some(left) = target
                .as_deref()
                .and_then(|t| self.oversight.activity.quiet_left(t, quiet))
            {
                return Err(ToolOutput::error(format!(
                    "Refused: the person at the browser is using this tab; agents' input, \
                     navigation, reload and close here wait until {} s after their last input \
                     ({} s from now). Read the page meanwhile (your next read says what they \
                     changed), or work in another tab.",
                    quiet.as_secs(),
                    left.as_secs().max(1)
                )));
            }
        }
        let url_before = target.as_deref().and_then(|t| tab_url(session, t));
        if let Some(refusal) = self.reopen_refusal(actor, call, url_before.as_deref()) {
            return Err(ToolOutput::error(refusal));
        }
        Ok(Watched { url_before })
    }

    /// The refusal of a CDP door command standing for `tool` (`computer`, `navigate`,
    /// `reload`, `close_tab`) in tab `target_id`: the person holds control (Stop, takeover,
    /// a handoff) or is using that tab. The same rules as [`Self::admit`], for a command that
    /// names its tab instead of acting in the agent's current one.
    pub(crate) fn door_refusal(&self, tool: ToolName, target_id: &str) -> Option<String> {
        if let Some(refusal) = self.oversight.refusal(tool) {
            return Some(refusal);
        }
        if !acts_in_tab(tool) {
            return None;
        }
        let quiet = self.oversight.human_quiet();
        let left = self.oversight.activity.quiet_left(target_id, quiet)?;
        Some(format!(
            "Refused: the person at the browser is using this tab; agents' input, navigation, \
             reload and close here wait until {} s after their last input ({} s from now).",
            quiet.as_secs(),
            left.as_secs().max(1)
        ))
    }

    /// Runs `work`, unless the person presses Stop agents first.
    pub(crate) async fn unless_stopped(
        &self,
        work: impl Future<Output = ToolOutput>,
    ) -> ToolOutput {
        let stop = self.oversight.stop_token();
        tokio::select! {
            output = work => output,
            _ = stop.cancelled() => ToolOutput::error(
                "Stopped: the person at the browser pressed Stop agents while this call ran, so \
                 it was cancelled. Changing tools are refused for a while; do not retry in a loop."
            ),
        }
    }

    /// After the call ran: a close or reload counts toward the reopen loop, and a read says
    /// what the person changed in the tab since the agent was last told.
    pub(crate) async fn after(
        &self,
        session: &BrowserSession,
        actor: &Actor,
        call: &ToolCall,
        watched: &Watched,
        output: &mut ToolOutput,
    ) {
        let tool = call.name();
        if !output.is_error && matches!(tool, ToolName::CloseTab | ToolName::Reload) {
            if let Some(url) = &watched.url_before {
                self.oversight.loops.cycled(actor.id(), url);
            }
        }
        if !output.is_error && may_run_while_held(tool) {
            if let Some(note) = self.human_changes(session, actor).await {
                output.content.insert(0, Content::Text { text: note });
            }
        }
    }

    /// `request_human`: shows the reason to every pane (and on `/api/events`, and runs the
    /// notifier), gives the person control, and waits for Done from a pane, one opened later
    /// too. Fails at once only when nothing can reach the person. `Ok` carries the answer's
    /// first line (the page as it is now follows it).
    pub(crate) async fn handoff(
        &self,
        session: &BrowserSession,
        actor: &Actor,
        request: &RequestHumanArgs,
    ) -> Result<String, ToolOutput> {
        let oversight = &self.oversight;
        if !session.person_reachable() {
            return Err(ToolOutput::error(
                "Nobody is watching this channel's browser right now (no pane is open, and \
                 nothing else reaches the person: no event stream, no notifier), so nobody can \
                 help. Carry on without, or tell the user in your conversation what you need.",
            ));
        }
        let (id, done) = oversight
            .begin_handoff(
                actor.id(),
                actor.name(),
                &request.reason,
                session.agent_tabs().current(actor),
            )
            .map_err(|refusal| ToolOutput::error(refusal.to_string()))?;
        session.tell_notifier(&id, "handoff", actor);
        // A caller that goes away (its connection closed) must not leave the handoff open: it
        // would hold control, and refuse the agent's next request_human, until its pane's Done.
        let _abandon = AbandonOnDrop {
            oversight: oversight.clone(),
            id: id.clone(),
        };
        let stop = oversight.stop_token();
        let answer = tokio::select! {
            answer = tokio::time::timeout(request.timeout(), done) => answer,
            _ = stop.cancelled() => {
                oversight.abandon_handoff(&id, "cancelled");
                return Err(ToolOutput::error(
                    "The person at the browser pressed Stop agents; the request was cancelled.",
                ));
            }
        };
        match answer {
            Ok(Ok(note)) => {
                let said = note
                    .filter(|n| !n.trim().is_empty())
                    .map(|n| format!(" Their note: {n:?}."))
                    .unwrap_or_default();
                Ok(format!(
                    "The person at the browser is done.{said} The page as it is now:"
                ))
            }
            Ok(Err(_)) => {
                oversight.abandon_handoff(&id, "cancelled");
                Err(ToolOutput::error(
                    "The request was cancelled before the person answered.",
                ))
            }
            Err(_) => {
                oversight.abandon_handoff(&id, "timeout");
                Err(ToolOutput::error(format!(
                    "Nobody pressed Done within {} s. Carry on without, or ask again with a \
                     clearer reason (or a longer timeout_ms).",
                    request.timeout().as_secs()
                )))
            }
        }
    }

    /// The reopen-loop refusal for a call that opens or reloads a page the agent keeps
    /// cycling.
    fn reopen_refusal(
        &self,
        actor: &Actor,
        call: &ToolCall,
        url_before: Option<&str>,
    ) -> Option<String> {
        let url = match call {
            ToolCall::Navigate(a) => Some(a.url.as_str()),
            ToolCall::NewTab(a) => a.url.as_deref(),
            ToolCall::Reload(_) => url_before,
            _ => None,
        }?;
        self.oversight.loops.refusal(actor.id(), url)
    }

    /// What the person changed in the actor's tab since it was last told, once (a read while
    /// nothing has changed yet keeps the report for a later read).
    async fn human_changes(&self, session: &BrowserSession, actor: &Actor) -> Option<String> {
        let target = session.agent_tabs().current(actor)?;
        let before = self.oversight.activity.before(&target)?;
        let tab_session = session.tab_session(&target)?;
        let after = page_state::read(session, &tab_session).await?;
        let note = page_state::describe_changes(&before, &after)?;
        self.oversight.activity.told(&target);
        Some(note)
    }
}

/// The tab a call acts in: the one `close_tab`/`switch_tab` names, else the actor's.
fn acted_tab(session: &BrowserSession, actor: &Actor, call: &ToolCall) -> Option<String> {
    let named = match call {
        ToolCall::CloseTab(a) => a.tab.as_ref(),
        ToolCall::SwitchTab(a) => Some(&a.tab),
        _ => None,
    };
    match named {
        Some(TabRef::Index(n)) => n
            .checked_sub(1)
            .and_then(|i| session.agent_tabs().visible(actor).get(i as usize).cloned())
            .map(|t| t.target_id),
        Some(TabRef::Id(id)) => Some(id.clone()),
        None => session.agent_tabs().current(actor),
    }
}

fn tab_url(session: &BrowserSession, target_id: &str) -> Option<String> {
    session
        .tab_infos()
        .0
        .into_iter()
        .find(|t| t.target_id == target_id)
        .map(|t| t.url)
}

/// Abandons handoff `id` when dropped (a no-op once it has ended).
struct AbandonOnDrop {
    oversight: Arc<ChannelOversight>,
    id: String,
}

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        self.oversight.abandon_handoff(&self.id, "cancelled");
    }
}
