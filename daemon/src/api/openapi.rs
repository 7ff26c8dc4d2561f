//! The OpenAPI document of the HTTP API, generated from the handlers' annotations.

use axum::Json;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::{action, agents, cookies, http, image};

#[derive(OpenApi)]
#[openapi(
    info(title = "Porthole", description = "A shared, persistent browser per channel for agents and their humans. WebSocket protocol: GET /api/ws/browser (see DESIGN.md §6).\n\nWhere to reach it: the owner's listener on loopback (server.listen, default 127.0.0.1:7878); for agent containers the same API on a Unix socket (server.agent_socket, default $XDG_RUNTIME_DIR/porthole/agents.sock: mount its directory into the container and run `porthole-mcp --api unix:///run/porthole/agents.sock`), and optionally on TCP (server.agent_listen, e.g. the Docker bridge gateway 172.17.0.1:7879, which accepts Host: host.docker.internal).\n\nTokens: the owner token (<data_dir>/token) may call everything. An agent token (POST /api/browser/agents, or `porthole agent add <channel>`) may only call POST /api/browser/action on its own channel, GET /api/browser/agents/me and GET /api/health; anything else answers 403 agent_forbidden."),
    paths(http::health, http::list_channels, http::set_mode, http::reset_profile, http::delete_channel, action::action, agents::create, agents::list, agents::remove, agents::me, cookies::sources, cookies::import, image::status, image::build),
    components(schemas(crate::browser::PaneMessage, crate::api::ClientMessage)),
    modifiers(&TokenScheme)
)]
struct ApiDoc;

struct TokenScheme;

impl Modify for TokenScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "token",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// `GET /api/openapi.json`.
pub async fn document() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
