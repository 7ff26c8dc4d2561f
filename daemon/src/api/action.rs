//! `POST /api/browser/action` `{channel_id?, tool, args}` → an MCP tool result: the body
//! parsed, then one act through the call pipeline ([`crate::calls`], every layer), which
//! decides who may run what. Tool failures and refusals are `isError` results (HTTP 200);
//! only a bad body or channel are HTTP errors: an agent token naming another channel → 403,
//! a channel that does not exist → 404 `unknown_channel` (an agent never creates one), and
//! one call more than `agents.max_calls_in_flight` → 429 at once, before its body is read.

use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::{Extension, Json};
use porthole_mcp::{ActionRequest, ToolOutput};

use super::auth::Caller;
use super::error::{ApiError, ApiJson};
use super::AppState;
use crate::agents::CallSlot;
use crate::calls::{self, Refusal};

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
    let agent = match &caller {
        Caller::Owner => None,
        Caller::Agent(agent) => Some(agent.as_ref()),
    };
    let parts = state.call_parts();
    let asked = request.channel_id.as_deref();
    match calls::channel_call(&parts, agent, asked, &request.tool, request.args).await {
        Ok(output) => Ok(Json(output)),
        Err(refusal) => Err(refused(refusal)),
    }
}

/// The HTTP error of a request refused before it became an act.
fn refused(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::ChannelRequired => {
            ApiError::new(StatusCode::BAD_REQUEST, "bad_request", refusal.message())
        }
        Refusal::BadChannel(e) => e.into(),
        Refusal::OtherChannel { .. } => {
            ApiError::new(StatusCode::FORBIDDEN, "agent_forbidden", refusal.message())
        }
        Refusal::Channel(e) => e.into(),
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
        match calls::call_slot(&state.inner.agents, Some(agent)) {
            Ok(slot) => Ok(Self(slot)),
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
