//! The docker-mode image endpoints: `GET /api/browser/image` and
//! `POST /api/browser/image/build`. The work is the `ImageManager`'s.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

use super::error::ApiError;
use super::AppState;
use crate::providers::docker::{ImageManager, ImageStatus};

fn manager(state: &AppState) -> Result<Arc<ImageManager>, ApiError> {
    state.inner.images.clone().ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            "docker_unavailable",
            "docker mode is not available: no Docker engine answered when Porthole started",
        )
    })
}

fn engine_error(error: crate::providers::docker::DockerError) -> ApiError {
    ApiError {
        internal: error.detail(),
        ..ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "docker_error",
            error.to_string(),
        )
    }
}

/// The sidecar image: present, its labels (`porthole.version`, `porthole.built_at`), building.
#[utoipa::path(get, path = "/api/browser/image", responses((status = 200, body = ImageStatus), (status = 409, description = "no Docker engine")), security(("token" = [])))]
pub async fn status(State(state): State<AppState>) -> Result<Json<ImageStatus>, ApiError> {
    let images = manager(&state)?;
    Ok(Json(images.status().await.map_err(engine_error)?))
}

/// Starts a rebuild of the sidecar image (no cache, current Chromium); answers once the build
/// has begun, with the status. Poll `GET /api/browser/image` for the outcome.
#[utoipa::path(post, path = "/api/browser/image/build", responses((status = 202, body = ImageStatus), (status = 409, description = "no Docker engine")), security(("token" = [])))]
pub async fn build(
    State(state): State<AppState>,
) -> Result<(StatusCode, Json<ImageStatus>), ApiError> {
    let images = manager(&state)?;
    let (started, ready) = tokio::sync::oneshot::channel::<()>();
    let building = images.clone();
    tokio::spawn(async move {
        let started = std::sync::Mutex::new(Some(started));
        let progress: crate::providers::ProgressFn = Arc::new(move |_: &str, _: &str| {
            if let Some(started) = started.lock().expect("started lock").take() {
                let _ = started.send(());
            }
        });
        let _ = building.rebuild(progress).await;
    });
    // Answer once the build has said its first word (or failed at once), so the status shows it.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), ready).await;
    let status = images.status().await.map_err(engine_error)?;
    Ok((StatusCode::ACCEPTED, Json(status)))
}
