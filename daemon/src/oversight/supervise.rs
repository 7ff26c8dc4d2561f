//! One agent tool call under the person's oversight: `agent_activity` start/end to every pane,
//! refusals (control held, the person active in the tab, a reopen loop), cancellation by
//! `stop_agents`, handoffs (`request_human`), and what the person changed, told on the
//! agent's next read of that tab.

use std::sync::Arc;

use porthole_mcp::vocabulary::{RequestHumanArgs, TabRef, ToolCall};
use porthole_mcp::{Content, ToolBackend, ToolName, ToolOutput};
use serde_json::Value;

use super::{acts_in_tab, may_run_while_held, page_state, ChannelOversight};
use crate::browser::{ActivityPhase, Actor, BrowserSession, PaneMessage};

/// Runs `tool` for `actor` through `backend`, under `oversight`; `panes` is how many panes
/// watch the channel now.
pub async fn run(
    oversight: &Arc<ChannelOversight>,
    session: &Arc<BrowserSession>,
    actor: &Actor,
    backend: &dyn ToolBackend,
    tool: &str,
    args: Value,
    panes: usize,
) -> ToolOutput {
    let call = match ToolCall::from_name(tool, &args) {
        Ok(call) => call,
        Err(e) => return ToolOutput::error(e.to_string()),
    };
    let activity = |phase, ok| PaneMessage::AgentActivity {
        agent_id: actor.id().to_string(),
        name: actor.name().to_string(),
        tool: tool.to_string(),
        target_id: session.agent_tabs().current(actor),
        phase,
        ok,
    };
    session.announce(activity(ActivityPhase::Start, None));
    let output = guarded(oversight, session, actor, backend, &call, args, panes).await;
    session.announce(activity(ActivityPhase::End, Some(!output.is_error)));
    output
}

async fn guarded(
    oversight: &Arc<ChannelOversight>,
    session: &Arc<BrowserSession>,
    actor: &Actor,
    backend: &dyn ToolBackend,
    call: &ToolCall,
    args: Value,
    panes: usize,
) -> ToolOutput {
    let tool = call.name();
    if let Some(refusal) = oversight.refusal(tool) {
        return ToolOutput::error(refusal);
    }
    let target = acted_tab(session, actor, call);
    if acts_in_tab(tool) {
        if let Some(left) = target
            .as_deref()
            .and_then(|t| oversight.activity.quiet_left(t, oversight.human_quiet()))
        {
            return ToolOutput::error(format!(
                "Refused: the person at the browser is using this tab; agents' input, \
                 navigation, reload and close here wait until {} s after their last input \
                 ({} s from now). Read the page meanwhile (your next read says what they \
                 changed), or work in another tab.",
                oversight.human_quiet().as_secs(),
                left.as_secs().max(1)
            ));
        }
    }
    let url_now = target.as_deref().and_then(|t| tab_url(session, t));
    if let Some(refusal) = reopen_refusal(oversight, actor, call, url_now.as_deref()) {
        return ToolOutput::error(refusal);
    }
    if let ToolCall::RequestHuman(request) = call {
        return handoff(oversight, session, actor, backend, request, panes).await;
    }
    let stop = oversight.stop_token();
    let mut output = tokio::select! {
        output = backend.call(tool.as_str(), args) => output,
        _ = stop.cancelled() => ToolOutput::error(
            "Stopped: the person at the browser pressed Stop agents while this call ran, so it \
             was cancelled. Changing tools are refused for a while; do not retry in a loop."
        ),
    };
    if !output.is_error && matches!(tool, ToolName::CloseTab | ToolName::Reload) {
        if let Some(url) = &url_now {
            oversight.loops.cycled(actor.id(), url);
        }
    }
    if !output.is_error && may_run_while_held(tool) {
        if let Some(note) = human_changes(oversight, session, actor).await {
            output.content.insert(0, Content::Text { text: note });
        }
    }
    output
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

/// The reopen-loop refusal for a call that opens or reloads a page the agent keeps cycling.
fn reopen_refusal(
    oversight: &ChannelOversight,
    actor: &Actor,
    call: &ToolCall,
    url_now: Option<&str>,
) -> Option<String> {
    let url = match call {
        ToolCall::Navigate(a) => Some(a.url.as_str()),
        ToolCall::NewTab(a) => a.url.as_deref(),
        ToolCall::Reload(_) => url_now,
        _ => None,
    }?;
    oversight.loops.refusal(actor.id(), url)
}

/// What the person changed in the actor's tab since it was last told, once (a read while
/// nothing has changed yet keeps the report for a later read).
async fn human_changes(
    oversight: &ChannelOversight,
    session: &BrowserSession,
    actor: &Actor,
) -> Option<String> {
    let target = session.agent_tabs().current(actor)?;
    let before = oversight.activity.before(&target)?;
    let tab_session = session.tab_session(&target)?;
    let after = page_state::read(session, &tab_session).await?;
    let note = page_state::describe_changes(&before, &after)?;
    oversight.activity.told(&target);
    Some(note)
}

/// `request_human`: shows the reason to every pane, gives them control, and waits for Done.
async fn handoff(
    oversight: &Arc<ChannelOversight>,
    session: &Arc<BrowserSession>,
    actor: &Actor,
    backend: &dyn ToolBackend,
    request: &RequestHumanArgs,
    panes: usize,
) -> ToolOutput {
    if panes == 0 {
        return ToolOutput::error(
            "Nobody is watching this channel's browser right now (no pane is open), so nobody \
             can help. Carry on without, or tell the user in your conversation what you need.",
        );
    }
    let (id, done) = match oversight.begin_handoff(
        actor.id(),
        actor.name(),
        &request.reason,
        session.agent_tabs().current(actor),
    ) {
        Ok(opened) => opened,
        Err(refusal) => return ToolOutput::error(refusal.to_string()),
    };
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
            return ToolOutput::error("The person at the browser pressed Stop agents; the request was cancelled.");
        }
    };
    match answer {
        Ok(Ok(note)) => {
            let mut output = backend
                .call(
                    ToolName::PageInfo.as_str(),
                    Value::Object(Default::default()),
                )
                .await;
            let said = note
                .filter(|n| !n.trim().is_empty())
                .map(|n| format!(" Their note: {n:?}."))
                .unwrap_or_default();
            output.content.insert(
                0,
                Content::Text {
                    text: format!(
                        "The person at the browser is done.{said} The page as it is now:"
                    ),
                },
            );
            output.is_error = false;
            output
        }
        Ok(Err(_)) => {
            oversight.abandon_handoff(&id, "cancelled");
            ToolOutput::error("The request was cancelled before the person answered.")
        }
        Err(_) => {
            oversight.abandon_handoff(&id, "timeout");
            ToolOutput::error(format!(
                "Nobody pressed Done within {} s. Carry on without, or ask again with a clearer \
                 reason (or a longer timeout_ms).",
                request.timeout().as_secs()
            ))
        }
    }
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
