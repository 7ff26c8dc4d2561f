//! The timeline routes (DESIGN.md §17), owner token only (the admission middleware answers
//! agent tokens 403): list a channel's events with paging and an actor filter, fetch a kept
//! frame, export a span as one self-contained HTML file, delete the whole timeline. Bad
//! parameters are 400 naming the parameter; a channel the daemon never saw is 404.

use std::collections::{BTreeMap, HashMap};

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::error::ApiError;
use super::AppState;
use crate::channel_id::ChannelId;
use crate::timeline::event::TimelineEvent;

/// The most events one list answers.
const LIMIT_MAX: usize = 1000;
/// Events one list answers when `limit` is not given.
const LIMIT_DEFAULT: usize = 100;
/// The most events one export holds.
const EXPORT_MAX: usize = 5000;

/// A page of events.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct TimelinePage {
    pub events: Vec<TimelineEvent>,
    /// Pass as `since_seq` for the next page (the last event's `seq`; `since_seq` itself when
    /// there was none).
    pub next_seq: u64,
}

/// A channel's timeline events in order.
#[utoipa::path(
    get,
    path = "/api/browser/channels/{channel_id}/timeline",
    params(
        ("channel_id" = String, Path, description = "the channel"),
        ("since_seq" = Option<u64>, Query, description = "only events after this seq (default 0)"),
        ("limit" = Option<u32>, Query, description = "at most this many events, 1–1000 (default 100)"),
        ("actor" = Option<String>, Query, description = "only this actor's events: `human`, `page` or an agent id (`owner` for the owner token)"),
    ),
    responses(
        (status = 200, description = "the events and where the next page starts", body = TimelinePage),
        (status = 400, description = "a bad channel id, seq, limit or actor"),
        (status = 403, description = "an agent token"),
        (status = 404, description = "the daemon knows no such channel"),
    ),
    security(("token" = []))
)]
pub async fn list(
    State(state): State<AppState>,
    Path(channel_id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<TimelinePage>, ApiError> {
    let channel = known_channel(&state, &channel_id)?;
    let since = seq_param(&query, "since_seq")?.unwrap_or(0);
    let limit = match query.get("limit") {
        None => LIMIT_DEFAULT,
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=LIMIT_MAX).contains(&n) => n,
            _ => {
                return Err(bad(format!(
                    "limit must be a whole number from 1 to {LIMIT_MAX}, not {raw:?}"
                )))
            }
        },
    };
    let actor = match query.get("actor") {
        None => None,
        Some(a)
            if !a.is_empty()
                && a.len() <= 128
                && a.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            Some(a.clone())
        }
        Some(a) => {
            return Err(bad(format!(
                "actor must be human, page or an agent id, not {a:?}"
            )))
        }
    };
    let timeline = state.inner.timeline.clone();
    let events =
        blocking(move || timeline.list(&channel, since, None, limit, actor.as_deref())).await?;
    let next_seq = events.last().map(|e| e.seq).unwrap_or(since);
    Ok(Json(TimelinePage { events, next_seq }))
}

/// One kept frame of a channel's timeline.
#[utoipa::path(
    get,
    path = "/api/browser/channels/{channel_id}/timeline/frames/{frame_id}",
    params(
        ("channel_id" = String, Path, description = "the channel"),
        ("frame_id" = String, Path, description = "an event's `frame_id`"),
    ),
    responses(
        (status = 200, description = "the JPEG", content_type = "image/jpeg", body = Vec<u8>),
        (status = 400, description = "a bad channel or frame id"),
        (status = 403, description = "an agent token"),
        (status = 404, description = "no such frame (never kept, or dropped by the timeline's bounds)"),
    ),
    security(("token" = []))
)]
pub async fn frame(
    State(state): State<AppState>,
    Path((channel_id, frame_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let channel = ChannelId::parse(&channel_id)?;
    if !crate::timeline::frames::is_frame_id(&frame_id) {
        return Err(bad(format!(
            "{frame_id:?} is not a frame id (32 hex digits, from an event's frame_id)"
        )));
    }
    let timeline = state.inner.timeline.clone();
    let id = frame_id.clone();
    let jpeg = tokio::task::spawn_blocking(move || timeline.frame(&channel, &id))
        .await
        .ok()
        .flatten()
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "frame_not_found",
                format!("no frame {frame_id} in this channel's timeline (it may have been dropped by timeline.max_mb or timeline.keep_days)"),
            )
        })?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/jpeg"),
            (header::CACHE_CONTROL, "private, max-age=86400"),
        ],
        jpeg,
    )
        .into_response())
}

/// A span of a channel's timeline as one HTML file that plays it back.
#[utoipa::path(
    get,
    path = "/api/browser/channels/{channel_id}/timeline/export",
    params(
        ("channel_id" = String, Path, description = "the channel"),
        ("since_seq" = Option<u64>, Query, description = "events after this seq (default 0)"),
        ("until_seq" = Option<u64>, Query, description = "events up to and with this seq (default: the last)"),
    ),
    responses(
        (status = 200, description = "a self-contained HTML page (frames inline)", content_type = "text/html", body = String),
        (status = 400, description = "a bad channel id or seq"),
        (status = 403, description = "an agent token"),
        (status = 404, description = "the daemon knows no such channel"),
    ),
    security(("token" = []))
)]
pub async fn export(
    State(state): State<AppState>,
    Path(channel_id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let channel = known_channel(&state, &channel_id)?;
    let since = seq_param(&query, "since_seq")?.unwrap_or(0);
    let until = seq_param(&query, "until_seq")?;
    if until.is_some_and(|u| u < since) {
        return Err(bad("until_seq must not be less than since_seq"));
    }
    let timeline = state.inner.timeline.clone();
    let page = blocking(move || {
        let events = timeline.list(&channel, since, until, EXPORT_MAX, None)?;
        let frames: BTreeMap<String, Vec<u8>> = events
            .iter()
            .filter_map(|e| e.frame_id.clone())
            .filter_map(|id| timeline.frame(&channel, &id).map(|jpeg| (id, jpeg)))
            .collect();
        Ok(crate::timeline::export::html(
            channel.as_str(),
            &events,
            &frames,
        ))
    })
    .await?;
    let name = format!("attachment; filename=\"porthole-timeline-{channel_id}.html\"");
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, name),
        ],
        page,
    )
        .into_response())
}

/// Deletes a channel's whole timeline (recording goes on with the next event).
#[utoipa::path(
    delete,
    path = "/api/browser/channels/{channel_id}/timeline",
    params(("channel_id" = String, Path, description = "the channel")),
    responses(
        (status = 204, description = "deleted (or there was none)"),
        (status = 400, description = "a bad channel id"),
        (status = 403, description = "an agent token"),
        (status = 404, description = "the daemon knows no such channel"),
    ),
    security(("token" = []))
)]
pub async fn delete(
    State(state): State<AppState>,
    Path(channel_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let channel = known_channel(&state, &channel_id)?;
    let timeline = state.inner.timeline.clone();
    blocking(move || timeline.remove(&channel)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The channel, when the daemon knows it (it has a mode or a timeline).
fn known_channel(state: &AppState, raw: &str) -> Result<ChannelId, ApiError> {
    let channel = ChannelId::parse(raw)?;
    let known = state.inner.timeline.exists(&channel)
        || state.inner.channels.exists(&channel)
        || state
            .inner
            .channels
            .list()
            .iter()
            .any(|c| c.channel_id == channel.as_str());
    if !known {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_channel",
            format!("there is no channel {channel} (start it from a pane or an agent first)"),
        ));
    }
    Ok(channel)
}

fn seq_param(query: &HashMap<String, String>, name: &str) -> Result<Option<u64>, ApiError> {
    query
        .get(name)
        .map(|raw| {
            raw.parse::<u64>().map_err(|_| {
                bad(format!(
                    "{name} must be a whole number (an event's seq), not {raw:?}"
                ))
            })
        })
        .transpose()
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
}

/// Runs a store call on a blocking thread.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, crate::timeline::store::StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    let failed = |internal: String| {
        ApiError::internal(
            "timeline_unavailable",
            "the channel's timeline could not be read or changed; check the data directory (disk full, permissions) and try again",
            internal,
        )
    };
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(failed(error.to_string())),
        Err(error) => Err(failed(error.to_string())),
    }
}
