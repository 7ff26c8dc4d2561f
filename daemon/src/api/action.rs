//! `POST /api/browser/action` `{channel_id, tool, args}` → an MCP tool result: runs one tool
//! on the channel's BrowserSession (starting its browser when needed), so every pane of the
//! channel sees what the agent does. Tool failures are `isError` results (HTTP 200); only a
//! bad channel id or a browser that cannot start are HTTP errors.

use std::sync::Arc;

use async_trait::async_trait;
use axum::extract::State;
use axum::Json;
use porthole_mcp::{ActionRequest, ToolBackend as _, ToolOutput};
use tracing::Instrument;

use super::error::{ApiError, ApiJson};
use super::AppState;
use crate::browser::BrowserSession;
use crate::channel_id::ChannelId;
use crate::channels::ChannelService;
use crate::tools::{EngineBackend, SessionSource};

/// The largest action body: upload_file's files (10 MiB) as base64, plus room for the rest.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The channel's session in its current mode, started on demand.
struct ChannelSource {
    channels: Arc<ChannelService>,
    channel: ChannelId,
}

#[async_trait]
impl SessionSource for ChannelSource {
    async fn session(&self) -> Result<Arc<BrowserSession>, String> {
        let channel = self.channel.clone();
        let progress: crate::providers::ProgressFn = Arc::new(move |stage: &str, message: &str| {
            tracing::info!(event = "progress", channel_id = %channel, stage, message);
        });
        self.channels
            .start(&self.channel, None, progress)
            .await
            .map_err(|e| {
                format!(
                    "The browser of channel {} could not be started: {e}",
                    self.channel
                )
            })
    }
}

/// Runs one MCP browser tool on a channel's browser.
#[utoipa::path(
    post,
    path = "/api/browser/action",
    request_body = ActionRequest,
    responses(
        (status = 200, description = "the tool's result (isError set when the tool failed)", body = ToolOutput),
        (status = 400, description = "bad channel id or body"),
    ),
    security(("token" = []))
)]
pub async fn action(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<ActionRequest>,
) -> Result<Json<ToolOutput>, ApiError> {
    let channel = ChannelId::parse(&request.channel_id)?;
    let span = tracing::info_span!("agent_action", channel_id = %channel, tool = %request.tool);
    let source = ChannelSource {
        channels: state.inner.channels.clone(),
        channel,
    };
    let backend = EngineBackend::new(Arc::new(source), false);
    Ok(Json(
        backend
            .call(&request.tool, request.args)
            .instrument(span)
            .await,
    ))
}
