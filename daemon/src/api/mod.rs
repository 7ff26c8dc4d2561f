//! The HTTP and WebSocket API (DESIGN.md §6): routes, shared state, admission, errors, the
//! OpenAPI document and the embedded web panel. Handlers translate; the work happens in
//! `channels` and `browser`.

mod action;
mod agents;
mod auth;
mod cookies;
mod downloads;
mod error;
mod events;
mod http;
mod image;
mod openapi;
mod panel;
mod timeline;
mod vault;
mod ws;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post};
use axum::Router;
use tokio_util::sync::CancellationToken;

pub use auth::Listener;
pub use ws::ClientMessage;

use crate::agents::Agents;
use crate::channels::ChannelService;
use crate::cookie_import::CookieImporter;
use crate::mode::Mode;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub(crate) inner: Arc<StateInner>,
}

pub(crate) struct StateInner {
    pub channels: Arc<ChannelService>,
    pub token: String,
    pub allowed_origins: Vec<String>,
    pub docker: bool,
    pub default_mode: Mode,
    pub max_ws_message_bytes: usize,
    /// `browser.pane_upload_max_mb` in bytes: most a pane may hand a page at once.
    pub pane_upload_max_bytes: u64,
    pub shutdown: CancellationToken,
    pub cookies: Arc<CookieImporter>,
    /// The docker-mode image manager, when a Docker engine answers.
    pub images: Option<Arc<crate::providers::docker::ImageManager>>,
    /// Agent identities and tool policy.
    pub agents: Arc<Agents>,
    /// Who holds control of each channel, guards, handoffs.
    pub oversight: Arc<crate::oversight::Oversight>,
    /// Each channel's recorded history.
    pub timeline: Arc<crate::timeline::Timeline>,
    /// The person's password managers and shares (DESIGN.md §19).
    pub vault: Arc<crate::vault::Vault>,
}

/// How the API admits and bounds requests.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// The owner token.
    pub token: String,
    /// Origins besides the daemon's own that may call it.
    pub allowed_origins: Vec<String>,
    /// True when a Docker engine answers.
    pub docker: bool,
    /// Largest pane message.
    pub max_ws_message_bytes: usize,
    /// Most a pane may hand a page at once, in bytes (`browser.pane_upload_max_mb`).
    pub pane_upload_max_bytes: u64,
}

impl crate::cdp_door::DoorHost for AppState {
    fn agents(&self) -> &Agents {
        &self.inner.agents
    }

    fn call_parts(&self) -> crate::calls::Parts<'_> {
        AppState::call_parts(self)
    }
}

impl AppState {
    /// The daemon's parts an act on a channel passes through (`crate::calls`).
    pub(crate) fn call_parts(&self) -> crate::calls::Parts<'_> {
        let inner = &self.inner;
        crate::calls::Parts {
            agents: &inner.agents,
            channels: &inner.channels,
            oversight: &inner.oversight,
            timeline: &inner.timeline,
            vault: &inner.vault,
        }
    }

    pub fn new(
        channels: Arc<ChannelService>,
        settings: ApiSettings,
        shutdown: CancellationToken,
        cookies: Arc<CookieImporter>,
        agents: Arc<Agents>,
        oversight: Arc<crate::oversight::Oversight>,
    ) -> Self {
        let ApiSettings {
            token,
            allowed_origins,
            docker,
            max_ws_message_bytes,
            pane_upload_max_bytes,
        } = settings;
        let default_mode = channels.default_mode();
        Self {
            inner: Arc::new(StateInner {
                channels,
                token,
                allowed_origins,
                docker,
                default_mode,
                max_ws_message_bytes,
                pane_upload_max_bytes,
                shutdown,
                cookies,
                images: None,
                agents,
                oversight,
                timeline: crate::timeline::Timeline::new(
                    std::path::PathBuf::new(),
                    crate::timeline::TimelineSettings {
                        enabled: false,
                        max_mb: 1,
                        keep_days: 1,
                    },
                ),
                vault: crate::vault::Vault::new(&Default::default()),
            }),
        }
    }

    /// Adds the timeline (before the state is shared).
    pub fn with_timeline(mut self, timeline: Arc<crate::timeline::Timeline>) -> Self {
        Arc::get_mut(&mut self.inner)
            .expect("with_timeline is called before the state is shared")
            .timeline = timeline;
        self
    }

    /// Adds the vault (before the state is shared).
    pub fn with_vault(mut self, vault: Arc<crate::vault::Vault>) -> Self {
        Arc::get_mut(&mut self.inner)
            .expect("with_vault is called before the state is shared")
            .vault = vault;
        self
    }

    /// Adds the docker-mode image manager (before the state is shared).
    pub fn with_images(
        mut self,
        images: Option<Arc<crate::providers::docker::ImageManager>>,
    ) -> Self {
        Arc::get_mut(&mut self.inner)
            .expect("with_images is called before the state is shared")
            .images = images;
        self
    }
}

/// The whole router, for the owner's loopback listener.
pub fn app(state: AppState) -> Router {
    app_on(state, Listener::Loopback)
}

/// The router for one listener (the agent socket and TCP listener serve the same API; tokens
/// decide what a caller may do, the listener only how its Host is checked).
pub fn app_on(state: AppState, listener: Listener) -> Router {
    Router::new()
        .route("/api/health", get(http::health))
        .route("/api/openapi.json", get(openapi::document))
        .route("/api/events", get(events::events))
        .route("/api/browser/channels", get(http::list_channels))
        .route(
            "/api/browser/channels/{channel_id}",
            delete(http::delete_channel),
        )
        .route(
            "/api/browser/channels/{channel_id}/downloads/{download_id}",
            get(downloads::download),
        )
        .route("/api/browser/mode", post(http::set_mode))
        .route(
            "/api/browser/action",
            post(action::action).layer(DefaultBodyLimit::max(action::MAX_BODY_BYTES)),
        )
        .route(
            "/api/browser/agents",
            get(agents::list).post(agents::create),
        )
        .route("/api/browser/agents/me", get(agents::me))
        .route(
            "/api/browser/agents/{agent_id}",
            delete(agents::remove).patch(agents::patch),
        )
        .route("/api/browser/profile/reset", post(http::reset_profile))
        .route("/api/browser/cookies/sources", get(cookies::sources))
        .route("/api/browser/cookies/import", post(cookies::import))
        .route("/api/ws/browser", get(ws::upgrade))
        .route("/api/browser/image", get(image::status))
        .route("/api/browser/image/build", post(image::build))
        .route(
            "/api/browser/channels/{channel_id}/timeline",
            get(timeline::list).delete(timeline::delete),
        )
        .route(
            "/api/browser/channels/{channel_id}/timeline/frames/{frame_id}",
            get(timeline::frame),
        )
        .route(
            "/api/browser/channels/{channel_id}/timeline/export",
            get(timeline::export),
        )
        .route("/api/browser/vault", get(vault::overview))
        .route(
            "/api/browser/vault/shares",
            get(vault::shares).put(vault::set_shares),
        )
        .route("/api/browser/vault/{source}/unlock", post(vault::unlock))
        .route("/api/browser/vault/{source}/lock", post(vault::lock))
        .route("/", get(panel::index))
        .route("/panel/{*path}", get(panel::asset))
        .merge(crate::cdp_door::routes())
        .fallback(http::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::admit,
        ))
        .layer(axum::Extension(listener))
        // 1 MiB for every JSON body but the action's (upload_file carries files inline).
        .layer(DefaultBodyLimit::max(1024 * 1024))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            action::MAX_BODY_BYTES,
        ))
        .with_state(state)
}
