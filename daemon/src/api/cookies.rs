//! Cookie import endpoints (DESIGN.md §6): `GET /api/browser/cookies/sources` lists the user's
//! browser profiles and their cookie scopes (never a value); `POST /api/browser/cookies/import`
//! copies the chosen scopes into a channel's running browser. Both answer 409 in host mode.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};

use super::error::{ApiError, ApiJson};
use super::AppState;
use crate::channel_id::ChannelId;
use crate::cookie_import::ImportError;
use crate::cookies::CookieError;
use crate::mode::Mode;

/// `GET /api/browser/cookies/sources` query.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct SourcesQuery {
    /// The channel the dialog imports into: a host-mode channel is refused with 409.
    #[param(pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    pub channel_id: Option<String>,
}

/// `GET /api/browser/cookies/sources` answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CookieSources {
    pub sources: Vec<CookieSourceInfo>,
}

/// One browser profile.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CookieSourceInfo {
    /// `chrome:Default`, `chromium:Profile 1`, `firefox:<profile dir>`.
    pub id: String,
    /// `chrome`, `chromium`, `edge`, `brave` or `firefox`.
    pub browser: String,
    /// The profile directory's name.
    pub profile: String,
    /// The name the person gave the profile.
    pub name: String,
    /// One row per cookie scope, busiest first.
    pub scopes: Vec<CookieScope>,
    /// Why the scopes could not be listed (this profile only); absent when they could.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<SourceError>,
}

/// One cookie scope: the cookie's own host as stored.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CookieScope {
    /// e.g. `.github.com` or `gist.github.com`.
    pub scope: String,
    /// The nearest other scope of the same jar this one sits beneath, or null.
    pub parent: Option<String>,
    /// Cookies an import of this scope examines (session and expired ones included).
    pub count: usize,
}

/// A profile whose scopes could not be listed.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SourceError {
    pub code: String,
    pub message: String,
}

/// `POST /api/browser/cookies/import` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct CookieImportRequest {
    #[schema(pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    pub channel_id: String,
    /// A source id from the listing.
    pub source: String,
    /// The ticked scopes, exactly as listed.
    pub domains: Vec<String>,
}

/// `POST /api/browser/cookies/import` answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CookieImportResult {
    /// Cookies installed into the channel's browser.
    pub imported: usize,
    /// Session cookies left out.
    pub skipped_session: usize,
    /// Expired cookies left out.
    pub skipped_expired: usize,
}

/// Refuses host mode: the channel's profile is the user's own browser.
fn refuse_host(state: &AppState, channel: &ChannelId) -> Result<Mode, ApiError> {
    state.inner.channels.check_profile_is_ours(channel)?;
    Ok(state.inner.channels.mode_of(channel))
}

/// The user's browser profiles and their cookie scopes, folded under parent scopes, busiest
/// first. Never returns a value; never needs a keychain.
#[utoipa::path(get, path = "/api/browser/cookies/sources", params(SourcesQuery),
    responses((status = 200, body = CookieSources), (status = 409, description = "the channel is in host mode")),
    security(("token" = [])))]
pub async fn sources(
    State(state): State<AppState>,
    Query(query): Query<SourcesQuery>,
) -> Result<Json<CookieSources>, ApiError> {
    if let Some(channel) = &query.channel_id {
        refuse_host(&state, &ChannelId::parse(channel)?)?;
    }
    let listings = state.inner.cookies.sources().await.map_err(import_error)?;
    let sources = listings
        .into_iter()
        .map(|listing| {
            let (scopes, error) = match listing.scopes {
                Ok(rows) => (
                    rows.into_iter()
                        .map(|r| CookieScope {
                            scope: r.scope,
                            parent: r.parent,
                            count: r.count,
                        })
                        .collect(),
                    None,
                ),
                Err(e) => (
                    Vec::new(),
                    Some(SourceError {
                        code: e.code().to_string(),
                        message: e.to_string(),
                    }),
                ),
            };
            CookieSourceInfo {
                id: listing.source.id,
                browser: listing.source.browser.id_prefix().to_string(),
                profile: listing.source.profile,
                name: listing.source.name,
                scopes,
                error,
            }
        })
        .collect();
    Ok(Json(CookieSources { sources }))
}

/// Copies exactly the chosen scopes of a source into the channel's running browser (CDP
/// `Storage.setCookies`, browser-wide); session and expired cookies are skipped. Remembers the
/// source and scope names (never a value) for the channel.
#[utoipa::path(post, path = "/api/browser/cookies/import", request_body = CookieImportRequest,
    responses(
        (status = 200, body = CookieImportResult),
        (status = 400, description = "no scopes, or scopes the source does not hold"),
        (status = 404, description = "unknown source, or its cookie database is gone"),
        (status = 409, description = "host mode, the channel's browser is not running, or the database is locked"),
        (status = 422, description = "corrupt or newer-schema database, undecryptable values, or cookies the browser refused"),
        (status = 503, description = "the keyring holding the browser's cookie key is unavailable")),
    security(("token" = [])))]
pub async fn import(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<CookieImportRequest>,
) -> Result<Json<CookieImportResult>, ApiError> {
    let channel = ChannelId::parse(&request.channel_id)?;
    let mode = refuse_host(&state, &channel)?;
    let session = state
        .inner
        .channels
        .session(&channel, mode)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::CONFLICT,
                "channel_not_running",
                format!(
                    "channel {channel} has no running browser; open the channel first (cookies \
                     go into its running browser), then import"
                ),
            )
        })?;
    let outcome = state
        .inner
        .cookies
        .import(&session, &request.source, &request.domains)
        .await
        .map_err(import_error)?;
    Ok(Json(CookieImportResult {
        imported: outcome.imported,
        skipped_session: outcome.skipped_session,
        skipped_expired: outcome.skipped_expired,
    }))
}

fn import_error(error: ImportError) -> ApiError {
    let status = match &error {
        ImportError::UnknownSource { .. } => StatusCode::NOT_FOUND,
        ImportError::NoHome => StatusCode::SERVICE_UNAVAILABLE,
        ImportError::NoScopes { .. } => StatusCode::BAD_REQUEST,
        ImportError::Read(read) => match read {
            CookieError::Missing { .. } => StatusCode::NOT_FOUND,
            CookieError::Locked { .. } => StatusCode::CONFLICT,
            CookieError::UnknownScopes { .. } => StatusCode::BAD_REQUEST,
            CookieError::KeyringUnavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            CookieError::Unsupported { .. } => StatusCode::NOT_IMPLEMENTED,
            CookieError::Corrupt { .. }
            | CookieError::FutureSchema { .. }
            | CookieError::Decrypt { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            CookieError::Snapshot { .. } | CookieError::Sqlite { .. } => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        },
        ImportError::Refused { .. } => StatusCode::UNPROCESSABLE_ENTITY,
        ImportError::Install { .. } => StatusCode::BAD_GATEWAY,
        ImportError::Task(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    if !status.is_server_error() {
        tracing::info!(event = "cookie_import_refused", code = error.code(), %error);
    }
    ApiError::new(status, error.code(), error.to_string())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use tower::ServiceExt;

    use crate::api::{app, AppState};
    use crate::channels::{ChannelService, ChannelSettings};
    use crate::config::CookieImportConfig;
    use crate::cookie_import::CookieImporter;
    use crate::mode::Mode;
    use crate::state::StateDb;

    /// Host mode (the profile is the user's own Chrome) refuses both endpoints with 409.
    #[tokio::test]
    async fn host_mode_refuses_listing_and_import() {
        let state = Arc::new(StateDb::in_memory().unwrap());
        let host: Arc<dyn crate::providers::BrowserProvider> =
            Arc::new(crate::providers::host::HostProvider::new(Default::default()));
        let channels = Arc::new(ChannelService::new(
            vec![host],
            ChannelSettings {
                default_mode: Mode::Host,
                screen: (800, 600),
                idle_timeout: Duration::from_secs(60),
                docker_unavailable: None,
                downloads_root: None,
                download_limits: Default::default(),
                settle: Default::default(),
                reach: Default::default(),
            },
            state.clone(),
        ));
        let importer = Arc::new(CookieImporter::new(
            &CookieImportConfig::default(),
            state.clone(),
        ));
        let agents = Arc::new(crate::agents::Agents::new(state, Vec::new()));
        let oversight = Arc::new(crate::oversight::Oversight::new(
            crate::oversight::OversightSettings {
                stop: Duration::from_secs(30),
                human_quiet: Duration::from_secs(20),
            },
            channels.clone(),
        ));
        let router = app(AppState::new(
            channels,
            crate::api::ApiSettings {
                token: "tok".into(),
                allowed_origins: Vec::new(),
                docker: false,
                max_ws_message_bytes: 1 << 20,
                pane_upload_max_bytes: 1 << 20,
            },
            Default::default(),
            importer,
            agents,
            oversight,
        ));
        let request = |method: &str, uri: &str, body: &str| {
            Request::builder()
                .method(method)
                .uri(uri)
                .header("host", "127.0.0.1:7878")
                .header("authorization", "Bearer tok")
                .header("content-type", "application/json")
                .body(Body::from(body.to_owned()))
                .unwrap()
        };
        for req in [
            request("GET", "/api/browser/cookies/sources?channel_id=mine", ""),
            request(
                "POST",
                "/api/browser/cookies/import",
                r#"{"channel_id":"mine","source":"chrome:Default","domains":[".github.com"]}"#,
            ),
        ] {
            let response = router.clone().oneshot(req).await.unwrap();
            assert_eq!(response.status(), StatusCode::CONFLICT);
            let body = axum::body::to_bytes(response.into_body(), 1 << 16)
                .await
                .unwrap();
            let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(body["error"]["code"], "host_mode", "{body}");
            assert!(body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("host mode"));
        }
    }
}
