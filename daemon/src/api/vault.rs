//! The vault routes (DESIGN.md §19), owner token only (the admission middleware answers agent
//! tokens 403 `agent_forbidden` on every one): what the sources are and hold (never a secret),
//! unlock and lock a source, and the person's shares. An unlock password goes from the body
//! into a zeroizing buffer and to the source; it is never logged or kept on disk.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use super::error::{ApiError, ApiJson};
use super::AppState;
use crate::config::VaultShare;
use crate::vault::{Overview, VaultError};

/// `POST /api/browser/vault/{source}/unlock`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UnlockRequest {
    /// The database's password (kept in memory until the daemon stops or the source is
    /// locked).
    #[schema(value_type = String)]
    password: Zeroizing<String>,
}

/// A source's state after unlock or lock.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SourceAnswer {
    pub source: String,
    /// `locked` or `unlocked`.
    pub state: String,
}

/// `GET`/`PUT /api/browser/vault/shares`.
#[derive(Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Shares {
    pub shares: Vec<VaultShare>,
}

impl From<VaultError> for ApiError {
    fn from(error: VaultError) -> Self {
        let (status, code) = match &error {
            VaultError::UnknownSource(_) => (StatusCode::NOT_FOUND, "unknown_vault_source"),
            VaultError::WrongPassword(_) => (StatusCode::BAD_REQUEST, "wrong_password"),
            VaultError::Unreadable { .. } => (StatusCode::CONFLICT, "vault_unreadable"),
            VaultError::NoUnlock(_) => (StatusCode::CONFLICT, "vault_no_unlock"),
            VaultError::BadShare(_) => (StatusCode::BAD_REQUEST, "bad_share"),
            VaultError::Locked { .. } => (StatusCode::CONFLICT, "vault_locked"),
            VaultError::UnknownItem(_) | VaultError::Missing { .. } => {
                (StatusCode::NOT_FOUND, "unknown_vault_item")
            }
        };
        ApiError::new(status, code, error.to_string())
    }
}

/// The sources, the items of the unlocked ones (never a password or a seed) and the shares.
#[utoipa::path(
    get,
    path = "/api/browser/vault",
    responses(
        (status = 200, description = "sources with their state, items of unlocked sources, shares", body = Overview),
        (status = 403, description = "an agent token"),
    ),
    security(("token" = []))
)]
pub async fn overview(State(state): State<AppState>) -> Json<Overview> {
    Json(state.inner.vault.overview().await)
}

/// Unlocks a source with its password (memory only).
#[utoipa::path(
    post,
    path = "/api/browser/vault/{source}/unlock",
    params(("source" = String, Path, description = "the source's name (vault.sources)")),
    request_body = UnlockRequest,
    responses(
        (status = 200, description = "unlocked", body = SourceAnswer),
        (status = 400, description = "wrong password: the source stays locked"),
        (status = 403, description = "an agent token"),
        (status = 404, description = "no such source"),
        (status = 409, description = "the source cannot be read (missing or corrupt database), or is a pass store (gpg-agent unlocks it)"),
    ),
    security(("token" = []))
)]
pub async fn unlock(
    State(state): State<AppState>,
    Path(source): Path<String>,
    ApiJson(request): ApiJson<UnlockRequest>,
) -> Result<Json<SourceAnswer>, ApiError> {
    state.inner.vault.unlock(&source, request.password).await?;
    Ok(Json(SourceAnswer {
        source,
        state: "unlocked".into(),
    }))
}

/// Locks a source: its password and what was decrypted are forgotten.
#[utoipa::path(
    post,
    path = "/api/browser/vault/{source}/lock",
    params(("source" = String, Path, description = "the source's name (vault.sources)")),
    responses(
        (status = 200, description = "locked", body = SourceAnswer),
        (status = 403, description = "an agent token"),
        (status = 404, description = "no such source"),
    ),
    security(("token" = []))
)]
pub async fn lock(
    State(state): State<AppState>,
    Path(source): Path<String>,
) -> Result<Json<SourceAnswer>, ApiError> {
    state.inner.vault.lock(&source)?;
    Ok(Json(SourceAnswer {
        source,
        state: "locked".into(),
    }))
}

/// The person's shares: which agent may use which item.
#[utoipa::path(
    get,
    path = "/api/browser/vault/shares",
    responses(
        (status = 200, description = "the shares", body = Shares),
        (status = 403, description = "an agent token"),
    ),
    security(("token" = []))
)]
pub async fn shares(State(state): State<AppState>) -> Json<Shares> {
    Json(Shares {
        shares: state.inner.vault.shares(),
    })
}

/// Replaces the shares (all or nothing; nothing changes when one is bad).
#[utoipa::path(
    put,
    path = "/api/browser/vault/shares",
    request_body = Shares,
    responses(
        (status = 200, description = "the shares now", body = Shares),
        (status = 400, description = "a bad share (named): nothing changed"),
        (status = 403, description = "an agent token"),
    ),
    security(("token" = []))
)]
pub async fn set_shares(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<Shares>,
) -> Result<Json<Shares>, ApiError> {
    state.inner.vault.set_shares(request.shares)?;
    tracing::info!(
        event = "vault_shares_set",
        count = state.inner.vault.shares().len()
    );
    Ok(Json(Shares {
        shares: state.inner.vault.shares(),
    }))
}
