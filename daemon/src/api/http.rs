//! Plain HTTP handlers: health, channel list, mode, profile reset, channel delete.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};

use super::error::{ApiError, ApiJson};
use super::AppState;
use crate::channel_id::ChannelId;
use crate::channels::ChannelSummary;
use crate::mode::Mode;
use crate::providers::Removed;

/// `GET /api/health`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Health {
    pub status: &'static str,
    pub version: &'static str,
    /// True when a Docker engine answers and docker mode is available.
    pub docker: bool,
    pub default_mode: Mode,
}

/// Liveness and what this daemon can do. No token needed.
#[utoipa::path(get, path = "/api/health", responses((status = 200, body = Health)))]
pub async fn health(State(state): State<AppState>) -> Json<Health> {
    Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        docker: state.inner.docker,
        default_mode: state.inner.default_mode,
    })
}

/// `GET /api/browser/channels`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ChannelList {
    pub channels: Vec<ChannelSummary>,
}

/// Every channel the daemon knows, with mode, running state, panes and tabs.
#[utoipa::path(get, path = "/api/browser/channels", responses((status = 200, body = ChannelList)), security(("token" = [])))]
pub async fn list_channels(State(state): State<AppState>) -> Json<ChannelList> {
    Json(ChannelList {
        channels: state.inner.channels.list(),
    })
}

/// `{channel_id, mode}`.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ModeChange {
    #[schema(pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    pub channel_id: String,
    pub mode: Mode,
}

/// Switches the mode a channel's panes and agents use from now on.
#[utoipa::path(post, path = "/api/browser/mode", request_body = ModeChange, responses((status = 200, body = ModeChange), (status = 400, description = "bad channel id or body"), (status = 409, description = "mode not available (mode_unavailable); host mode: no Chrome of yours with remote debugging answers (host_browser_not_found); the channel id differs from an existing one's only in case (channel_id_case_clash)"), (status = 503, description = "the mode's browser engine does not answer")), security(("token" = [])))]
pub async fn set_mode(
    State(state): State<AppState>,
    ApiJson(change): ApiJson<ModeChange>,
) -> Result<Json<ModeChange>, ApiError> {
    let channel = ChannelId::parse(&change.channel_id)?;
    state
        .inner
        .channels
        .switch_mode(&channel, change.mode)
        .await?;
    Ok(Json(change))
}

/// `{channel_id}`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ChannelRef {
    #[schema(pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    pub channel_id: String,
}

/// `POST /api/browser/profile/reset` answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ResetResult {
    pub channel_id: String,
    /// False when there was no profile to delete.
    pub removed: bool,
}

/// Stops the channel's browser and deletes its profile (signs it out of everything).
#[utoipa::path(post, path = "/api/browser/profile/reset", request_body = ChannelRef, responses((status = 200, body = ResetResult), (status = 409, description = "host mode")), security(("token" = [])))]
pub async fn reset_profile(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<ChannelRef>,
) -> Result<Json<ResetResult>, ApiError> {
    let channel = ChannelId::parse(&request.channel_id)?;
    let removed = state.inner.channels.reset_profile(&channel).await?;
    // Signed out of everything: the secrets filled there and the documents touched go too.
    state.inner.vault.forget_channel(channel.as_str());
    Ok(Json(ResetResult {
        channel_id: channel.to_string(),
        removed: removed == Removed::Removed,
    }))
}

/// Stops the channel's browsers, deletes its profile and forgets it.
#[utoipa::path(delete, path = "/api/browser/channels/{channel_id}", params(("channel_id" = String, Path)), responses((status = 204, description = "the channel, its profiles and its agents are gone (their tokens answer 401)"), (status = 409, description = "host mode"), (status = 503, description = "state not writable")), security(("token" = [])))]
pub async fn delete_channel(
    State(state): State<AppState>,
    Path(channel_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let channel = ChannelId::parse(&channel_id)?;
    state.inner.channels.delete(&channel).await?;
    state.inner.vault.forget_channel(channel.as_str());
    Ok(StatusCode::NO_CONTENT)
}

/// Any other path.
pub async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint")
}
