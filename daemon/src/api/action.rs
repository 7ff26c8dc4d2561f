//! `POST /api/browser/action` `{channel_id?, tool, args}` → an MCP tool result: runs one tool
//! on the channel's BrowserSession (starting its browser when needed) as the calling agent, so
//! every pane of the channel sees what the agent does.
//!
//! Who may run what is decided here: an agent token only on its own channel (another → 403),
//! never a denied tool (an error result naming the setting), and not in a channel that is in
//! host mode unless the agent has `allow_host_mode` (§16; the owner token may). The call
//! counts as activity for the idle rule, and an agent whose tabs went away since its last call
//! (idle stop, crash, reset, daemon restart) is told so first. Tool failures and refusals are `isError` results
//! (HTTP 200); only a bad body or channel are HTTP errors.
//!
//! An agent's call never creates a channel: one that does not exist (deleted, or never made
//! by the owner) answers 404 `unknown_channel`. One agent may have at most
//! `agents.max_calls_in_flight` calls running; one more is answered 429 at once, before its
//! body is read.

use std::sync::Arc;

use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::{Extension, Json};
use porthole_mcp::{ActionRequest, Content, ToolOutput};
use tracing::Instrument;

use super::auth::Caller;
use super::error::{ApiError, ApiJson};
use super::AppState;
use crate::agents::{host_mode_refusal, CallSlot};
use crate::browser::{Actor, ConsentRules};
use crate::channel_id::ChannelId;
use crate::channels::ChannelError;
use crate::mode::Mode;
use crate::tools::{EngineBackend, ReadySession};

/// The largest action body: upload_file's files (10 MiB) as base64, plus room for the rest.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Runs one MCP browser tool on a channel's browser.
#[utoipa::path(
    post,
    path = "/api/browser/action",
    request_body = ActionRequest,
    responses(
        (status = 200, description = "the tool's result (isError set when the tool failed or was refused)", body = ToolOutput),
        (status = 400, description = "bad channel id or body"),
        (status = 401, description = "no or unknown token"),
        (status = 403, description = "an agent token naming another channel"),
        (status = 404, description = "an agent token whose channel does not exist (an agent never creates one)"),
        (status = 429, description = "the agent already has agents.max_calls_in_flight calls running"),
    ),
    security(("token" = []))
)]
pub async fn action(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    _slot: AgentCallSlot,
    ApiJson(request): ApiJson<ActionRequest>,
) -> Result<Json<ToolOutput>, ApiError> {
    let (channel, actor, agent) = match &caller {
        Caller::Owner => {
            let Some(channel_id) = request.channel_id.as_deref() else {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_request",
                    "channel_id is required with the owner token",
                ));
            };
            (ChannelId::parse(channel_id)?, Actor::Owner, None)
        }
        Caller::Agent(agent) => {
            let own = ChannelId::parse(&agent.channel_id)?;
            if let Some(asked) = request.channel_id.as_deref() {
                if asked != own.as_str() {
                    return Err(ApiError::new(
                        StatusCode::FORBIDDEN,
                        "agent_forbidden",
                        format!(
                            "this agent token belongs to channel {own}; it cannot act on channel {asked}"
                        ),
                    ));
                }
            }
            if !state.inner.channels.exists(&own) {
                return Err(ChannelError::UnknownChannel(own).into());
            }
            let actor = Actor::Agent {
                id: agent.agent_id.clone(),
                name: agent.name.clone(),
            };
            (own, actor, Some(agent.clone()))
        }
    };
    if let Some(denied) = state.inner.agents.denied(agent.as_deref(), &request.tool) {
        tracing::info!(event = "tool_denied", channel_id = %channel, agent_id = actor.id(), tool = %logged_tool(&request.tool));
        return Ok(Json(ToolOutput::error(denied.message(&request.tool))));
    }
    let host_ok = state.inner.agents.may_use_host_mode(agent.as_deref());
    if !host_ok && state.inner.channels.mode_of(&channel) == Mode::Host {
        return Ok(Json(refuse_host_mode(&channel, &actor, &request.tool)));
    }
    let span = tracing::info_span!("agent_action", channel_id = %channel, agent_id = actor.id(), tool = %logged_tool(&request.tool));
    let agents = &state.inner.agents;
    let rules = agent.as_deref().map(|a| AgentRules {
        sites: agents.site_rules(a),
        consent: ConsentRules {
            name: a.name.clone(),
            kinds: agents.confirm_kinds(a),
            remembered: agents.remembered().clone(),
            timeout: agents.approval_timeout(),
        },
    });
    run(&state, channel, host_ok, actor, rules, request)
        .instrument(span)
        .await
        .map(Json)
}

/// What an agent's tabs are held to during its call.
struct AgentRules {
    sites: crate::sites::SiteRules,
    consent: ConsentRules,
}

async fn run(
    state: &AppState,
    channel: ChannelId,
    host_ok: bool,
    actor: Actor,
    rules: Option<AgentRules>,
    request: ActionRequest,
) -> Result<ToolOutput, ApiError> {
    let channels = &state.inner.channels;
    let _activity = channels.agent_call(&channel);
    let progress_channel = channel.clone();
    let progress: crate::providers::ProgressFn = Arc::new(move |stage: &str, message: &str| {
        tracing::info!(event = "progress", channel_id = %progress_channel, stage, message);
    });
    let started = match &actor {
        Actor::Agent { .. } => channels.start_existing(&channel, progress).await,
        _ => channels.start(&channel, None, progress).await,
    };
    let session = match started {
        Ok(session) => session,
        Err(error @ ChannelError::UnknownChannel(_)) => return Err(error.into()),
        Err(error) => {
            return Ok(ToolOutput::error(format!(
                "The browser of channel {channel} could not be started: {error}"
            )))
        }
    };
    // Checked again on the session itself: a pane may have switched the channel to host mode
    // since the check before the start.
    if !host_ok && session.mode() == Mode::Host {
        return Ok(refuse_host_mode(&channel, &actor, &request.tool));
    }
    // The agent's tabs are held to its sites and approvals as they are now (a change applies
    // from here on), and its tab's requests count as its acts while the call runs.
    if let Some(rules) = rules {
        session.sites().set(actor.id(), rules.sites);
        session
            .approvals()
            .set_rules(actor.id(), rules.consent)
            .await;
    }
    let _acting = session.approvals().call_begins(actor.id());
    let lost = channels.take_lost_tabs(&channel, actor.id());
    let timeline = state.inner.timeline.clone();
    let backend = EngineBackend::for_actor(
        Arc::new(ReadySession(session.clone())),
        false,
        actor.clone(),
    )
    .with_vault(crate::tools::VaultHooks {
        vault: state.inner.vault.clone(),
        record: Arc::new(move |session, actor, fill| timeline.vault_fill(session, actor, fill)),
    });
    let oversight = state.inner.oversight.channel(&channel);
    let panes = channels.pane_count(&channel);
    let summary = crate::timeline::summary::of_call(&request.tool, &request.args);
    let began = std::time::Instant::now();
    let mut output = crate::oversight::supervise::run(
        &oversight,
        &session,
        &actor,
        &backend,
        &request.tool,
        request.args,
        panes,
    )
    .await;
    scrub_secrets(&state.inner.vault, &channel, &mut output);
    state.inner.timeline.tool_call(
        &session,
        &actor,
        crate::timeline::ToolRecord {
            tool: request.tool.clone(),
            target_id: session.agent_tabs().current(&actor),
            ok: !output.is_error,
            ms: began.elapsed().as_millis() as u64,
            summary,
        },
    );
    if let Actor::Agent { id, .. } = &actor {
        let has_tabs = session
            .agent_tabs()
            .agents_with_tabs()
            .iter()
            .any(|a| a == id);
        state.inner.agents.set_tabs_open(id, has_tabs);
    }
    if let Some(reason) = lost {
        output.content.insert(
            0,
            Content::Text {
                text: lost_tabs_notice(&reason),
            },
        );
    }
    Ok(output)
}

/// Replaces every secret filled in this channel by `[secret]` in the answer's text, and says
/// that it did (DESIGN.md §19).
fn scrub_secrets(vault: &crate::vault::Vault, channel: &ChannelId, output: &mut ToolOutput) {
    let mut replaced = false;
    for content in &mut output.content {
        if let Content::Text { text } = content {
            if let Some(clean) = vault.filled.scrub(channel.as_str(), text) {
                *text = clean;
                replaced = true;
            }
        }
    }
    if replaced {
        output.content.push(Content::Text {
            text: format!(
                "Note: a secret filled in this channel was replaced by {} in this answer.",
                crate::vault::scan::MARK
            ),
        });
    }
}

/// One of the calling agent's slots in `agents.max_calls_in_flight` (none for the owner
/// token), taken before the body is read and held until the answer is made.
pub struct AgentCallSlot(#[allow(dead_code)] Option<CallSlot>);

impl FromRequestParts<AppState> for AgentCallSlot {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(Caller::Agent(agent)) = parts.extensions.get::<Caller>() else {
            return Ok(Self(None));
        };
        match state.inner.agents.begin_call(&agent.agent_id) {
            Ok(slot) => Ok(Self(Some(slot))),
            Err(refused) => {
                tracing::info!(event = "agent_calls_in_flight_refused", agent_id = %agent.agent_id, channel_id = %agent.channel_id, max = refused.max);
                Err(ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_calls_in_flight",
                    refused.to_string(),
                ))
            }
        }
    }
}

/// A tool name as the log keeps it: a known name whole, anything else cut (an agent may send
/// a megabyte as a tool name; the timeline records it as "unknown tool" the same way).
fn logged_tool(tool: &str) -> String {
    match tool.chars().count() {
        0..=64 => tool.to_string(),
        n => format!(
            "{}… ({n} characters)",
            tool.chars().take(32).collect::<String>()
        ),
    }
}

/// The refusal of an agent without `allow_host_mode` in a channel in host mode.
fn refuse_host_mode(channel: &ChannelId, actor: &Actor, tool: &str) -> ToolOutput {
    tracing::info!(event = "host_mode_refused", channel_id = %channel, agent_id = actor.id(), tool);
    ToolOutput::error(host_mode_refusal(channel.as_str()))
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
