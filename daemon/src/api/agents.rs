//! Agent identity endpoints (DESIGN.md §12, §20): create (the token is in this answer only),
//! list, change its sites and approvals (owner only), remove (the token stops working at once), and `me` for
//! the calling agent.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};

use super::auth::Caller;
use super::error::{ApiError, ApiJson};
use super::AppState;
use crate::agents::{AgentError, AgentIdentity, Confirm, Sites};
use crate::browser::OWNER_AGENT;
use crate::channel_id::ChannelId;
use crate::mode::Mode;

/// `POST /api/browser/agents` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct NewAgentRequest {
    /// The one channel the agent may act on.
    #[schema(pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    pub channel_id: String,
    /// A name people see in the pane (default `agent`).
    #[serde(default)]
    pub name: Option<String>,
    /// Tools this agent may not call (canonical names).
    #[serde(default)]
    pub deny_tools: Vec<String>,
    /// May act while the channel is in host mode, in the user's own Chrome (default false;
    /// `agents.allow_host_mode` in the config allows every agent).
    #[serde(default)]
    pub allow_host_mode: bool,
    /// The sites it may open: `allow` (only these), `deny` (never these). A pattern is a host
    /// (`github.com`), a host with its subdomains (`*.github.com`) or an origin
    /// (`http://127.0.0.1:8080`). Default: none (only `agents.sites` applies).
    #[serde(default)]
    pub sites: Sites,
    /// The acts it must ask the person about: `submit`, `new_site`, `upload`, `download`,
    /// `evaluate`, `login`. Default: none (only `agents.confirm` applies).
    #[serde(default)]
    pub confirm: Confirm,
}

/// `PATCH /api/browser/agents/{agent_id}` body: what changes (absent: unchanged).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentPatch {
    /// Replaces the agent's sites (from its next call on).
    #[serde(default)]
    pub sites: Option<Sites>,
    /// Replaces the acts it must ask the person about (from its next call on).
    #[serde(default)]
    pub confirm: Option<Confirm>,
}

/// `POST /api/browser/agents` answer: the only time the token is shown.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CreatedAgent {
    pub agent_id: String,
    pub channel_id: String,
    pub name: String,
    pub deny_tools: Vec<String>,
    pub allow_host_mode: bool,
    pub sites: Sites,
    pub confirm: Confirm,
    /// The agent's token; only its hash is stored, so keep it now.
    pub token: String,
}

/// `GET /api/browser/agents` answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AgentList {
    pub agents: Vec<AgentIdentity>,
}

/// `GET /api/browser/agents/me` answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Me {
    /// The agent's id (`owner` for the owner token).
    pub agent_id: String,
    /// Its channel (null for the owner token, which may act on any).
    pub channel_id: Option<String>,
    pub name: String,
    /// Every tool refused to this caller: the config's `agents.deny_tools` and its own.
    pub deny_tools: Vec<String>,
    /// The sites it may open: its own lists (`own`) and the config's `agents.sites` for every
    /// agent (`all_agents`); a URL must pass both.
    pub sites: MeSites,
    /// The acts it must ask the person about: its own kinds (`own`) and the config's
    /// `agents.confirm` for every agent (`all_agents`).
    pub confirm: MeConfirm,
}

/// The approval kinds a caller is held to.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MeConfirm {
    pub own: Confirm,
    pub all_agents: Confirm,
}

/// The site lists a caller is held to.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MeSites {
    pub own: Sites,
    pub all_agents: Sites,
}

impl From<AgentError> for ApiError {
    fn from(error: AgentError) -> Self {
        match &error {
            AgentError::State(state) => {
                ApiError::internal("state_unavailable", "the daemon could not save its state; check the data directory (disk full, permissions) and try again", state.to_string())
            }
            AgentError::BadChannel(e) => e.clone().into(),
            AgentError::BadSites(_) => {
                ApiError::new(StatusCode::BAD_REQUEST, "bad_site_pattern", error.to_string())
            }
            AgentError::BadConfirm(_) => {
                ApiError::new(StatusCode::BAD_REQUEST, "bad_approval_kind", error.to_string())
            }
            AgentError::CaseClash { .. } => {
                ApiError::new(StatusCode::CONFLICT, "channel_id_case_clash", error.to_string())
            }
            other => ApiError::new(StatusCode::BAD_REQUEST, "bad_request", other.to_string()),
        }
    }
}

/// Creates an agent bound to one channel; the token in the answer is never shown again.
#[utoipa::path(post, path = "/api/browser/agents", request_body = NewAgentRequest, responses((status = 201, body = CreatedAgent), (status = 400, description = "bad channel id, name or tool name"), (status = 401, description = "no or unknown token"), (status = 403, description = "an agent token"), (status = 409, description = "the channel id differs from an existing channel's only in case"), (status = 503, description = "state not writable")), security(("token" = [])))]
pub async fn create(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<NewAgentRequest>,
) -> Result<(StatusCode, Json<CreatedAgent>), ApiError> {
    let new = state.inner.agents.add(
        &request.channel_id,
        request.name.as_deref(),
        &request.deny_tools,
        request.allow_host_mode,
        request.sites,
        request.confirm,
    )?;
    // The channel exists from now on; the daemon's list shows it.
    if let Ok(channel) = crate::channel_id::ChannelId::parse(&new.identity.channel_id) {
        state.inner.channels.exists(&channel);
    }
    Ok((
        StatusCode::CREATED,
        Json(CreatedAgent {
            agent_id: new.identity.agent_id,
            channel_id: new.identity.channel_id,
            name: new.identity.name,
            deny_tools: new.identity.deny_tools,
            allow_host_mode: new.identity.allow_host_mode,
            sites: new.identity.sites,
            confirm: new.identity.confirm,
            token: new.token,
        }),
    ))
}

/// Every agent (never a token).
#[utoipa::path(get, path = "/api/browser/agents", responses((status = 200, body = AgentList), (status = 401, description = "no or unknown token"), (status = 403, description = "an agent token"), (status = 503, description = "state not readable")), security(("token" = [])))]
pub async fn list(State(state): State<AppState>) -> Result<Json<AgentList>, ApiError> {
    Ok(Json(AgentList {
        agents: state.inner.agents.list()?,
    }))
}

/// Removes an agent; its token stops working at once (calls in flight finish).
#[utoipa::path(delete, path = "/api/browser/agents/{agent_id}", params(("agent_id" = String, Path)), responses((status = 204), (status = 404, description = "no such agent"), (status = 401, description = "no or unknown token"), (status = 403, description = "an agent token"), (status = 503, description = "state not writable")), security(("token" = [])))]
pub async fn remove(
    State(state): State<AppState>,
    Path(agent_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if state.inner.agents.remove(&agent_id)? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(unknown_agent(&agent_id))
    }
}

/// Changes an agent (owner token only: an agent can never widen its own sites or drop its own
/// approvals). The change applies at once, to its tabs' requests in flight on the channel's
/// browser too; a bad field changes nothing.
#[utoipa::path(patch, path = "/api/browser/agents/{agent_id}", params(("agent_id" = String, Path)), request_body = AgentPatch, responses((status = 200, body = AgentIdentity), (status = 400, description = "a malformed site pattern, an unknown approval kind or an unknown field"), (status = 404, description = "no such agent"), (status = 401, description = "no or unknown token"), (status = 403, description = "an agent token"), (status = 503, description = "state not writable")), security(("token" = [])))]
pub async fn patch(
    State(state): State<AppState>,
    Path(agent_id): Path<String>,
    ApiJson(request): ApiJson<AgentPatch>,
) -> Result<Json<AgentIdentity>, ApiError> {
    let agents = &state.inner.agents;
    // Both checked before either is written.
    if let Some(confirm) = &request.confirm {
        confirm.normalized().map_err(AgentError::from)?;
    }
    if let Some(sites) = &request.sites {
        sites.check().map_err(AgentError::from)?;
        if !agents.set_sites(&agent_id, sites)? {
            return Err(unknown_agent(&agent_id));
        }
    }
    if let Some(confirm) = &request.confirm {
        if !agents.set_confirm(&agent_id, confirm)? {
            return Err(unknown_agent(&agent_id));
        }
    }
    let changed = agents
        .list()?
        .into_iter()
        .find(|a| a.agent_id == agent_id)
        .ok_or_else(|| unknown_agent(&agent_id))?;
    apply_now(&state, &changed).await;
    Ok(Json(changed))
}

/// Holds `agent`'s tabs to its record as it is now, in every live browser of its channel.
async fn apply_now(state: &AppState, agent: &AgentIdentity) {
    let Ok(channel) = ChannelId::parse(&agent.channel_id) else {
        return;
    };
    let channels = &state.inner.channels;
    for mode in [Mode::Docker, Mode::Local, Mode::Host] {
        if let Some(session) = channels.session(&channel, mode) {
            crate::calls::apply_rules(&state.inner.agents, &session, agent).await;
        }
    }
}

fn unknown_agent(agent_id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "unknown_agent",
        format!("there is no agent {agent_id}; GET /api/browser/agents lists them"),
    )
}

/// Who the token belongs to and which tools it may not call.
#[utoipa::path(get, path = "/api/browser/agents/me", responses((status = 200, body = Me), (status = 401, description = "no or unknown token")), security(("token" = [])))]
pub async fn me(State(state): State<AppState>, Extension(caller): Extension<Caller>) -> Json<Me> {
    let agents = &state.inner.agents;
    Json(match caller {
        Caller::Owner => Me {
            agent_id: OWNER_AGENT.to_string(),
            channel_id: None,
            name: OWNER_AGENT.to_string(),
            deny_tools: agents.denied_tools(None),
            sites: MeSites {
                own: Sites::default(),
                all_agents: agents.sites_for_all().clone(),
            },
            confirm: MeConfirm {
                own: Confirm::default(),
                all_agents: agents.confirm_for_all().clone(),
            },
        },
        Caller::Agent(agent) => Me {
            agent_id: agent.agent_id.clone(),
            channel_id: Some(agent.channel_id.clone()),
            name: agent.name.clone(),
            deny_tools: agents.denied_tools(Some(&agent)),
            sites: MeSites {
                own: agent.sites.clone(),
                all_agents: agents.sites_for_all().clone(),
            },
            confirm: MeConfirm {
                own: agent.confirm.clone(),
                all_agents: agents.confirm_for_all().clone(),
            },
        },
    })
}
