//! `GET /api/events` (DESIGN.md §20a): what needs the person on every channel, as Server-Sent
//! Events, for a desktop app or page that has no pane open — `approval`, `approval_closed`,
//! `handoff`, `handoff_ended`, `vault_locked`, `auth_prompt`, `auth_prompt_closed`, each the
//! JSON a pane gets plus `channel_id`. The owner token only (admission refuses agents and
//! foreign origins). While one stream is open an approval waits for the person instead of
//! failing at once. Nothing here answers: only a pane does.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::error::RecvError;

use super::AppState;

/// How often an idle stream gets a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `GET /api/events`.
#[utoipa::path(
    get,
    path = "/api/events",
    responses((status = 200, content_type = "text/event-stream", description = "Server-Sent Events, one per message a pane gets that needs the person: `event:` is its `type` (approval, approval_closed, handoff, handoff_ended, vault_locked, auth_prompt, auth_prompt_closed), `data:` its JSON (the pane's message with `channel_id`). A comment line every 15 s keeps it alive; `event: lagged` (`data: {\"missed\": n}`) says a slow reader missed some. Only a pane (GET /api/ws/browser) answers an approval; while a stream is open, approvals wait for that answer instead of failing at once.")),
    security(("token" = []))
)]
pub async fn events(
    State(state): State<AppState>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let receiver = state.inner.channels.reach().subscribe();
    let shutdown = state.inner.shutdown.clone();
    tracing::info!(event = "events_stream_opened");
    let events = stream::unfold(
        (receiver, shutdown),
        |(mut receiver, shutdown)| async move {
            let event = tokio::select! {
                _ = shutdown.cancelled() => return None,
                received = receiver.recv() => match received {
                    Ok(event) => Event::default().event(event.kind).data(event.json.to_string()),
                    Err(RecvError::Lagged(missed)) => Event::default()
                        .event("lagged")
                        .data(serde_json::json!({"missed": missed}).to_string()),
                    Err(RecvError::Closed) => return None,
                },
            };
            Some((Ok(event), (receiver, shutdown)))
        },
    );
    Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
}
