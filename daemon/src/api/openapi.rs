//! The OpenAPI document of the HTTP API, generated from the handlers' annotations.

use axum::Json;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, Ref, RefOr, Response};
use utoipa::{Modify, OpenApi};

use super::{action, agents, cookies, downloads, events, http, image, timeline, vault};

#[derive(OpenApi)]
#[openapi(
    info(title = "Porthole", description = "A shared, persistent browser per channel for agents and their humans. WebSocket protocol: GET /api/ws/browser (see DESIGN.md §6).\n\nWhere to reach it: the owner's listener on loopback (server.listen, default 127.0.0.1:7878); for agent containers the same API on a Unix socket (server.agent_socket, default $XDG_RUNTIME_DIR/porthole/<short hash of the data dir>/agents.sock: mount its directory read-only into the container (`-v <dir>:/run/porthole:ro`) and run `porthole-mcp --api unix:///run/porthole/agents.sock`), and optionally on TCP (server.agent_listen, e.g. the Docker bridge gateway 172.17.0.1:7879, which accepts Host: host.docker.internal).\n\nTokens: the owner token (<data_dir>/token) may call everything. An agent token (POST /api/browser/agents, or `porthole agent add <channel>`) may only call POST /api/browser/action on its own channel, GET /api/browser/agents/me and GET /api/health; anything else answers 403 agent_forbidden."),
    paths(http::health, events::events, http::list_channels, http::set_mode, http::reset_profile, http::delete_channel, action::action, agents::create, agents::list, agents::remove, agents::patch, agents::me, cookies::sources, cookies::import, image::status, image::build, downloads::download, timeline::list, timeline::frame, timeline::export, timeline::delete, vault::overview, vault::unlock, vault::lock, vault::shares, vault::set_shares),
    components(schemas(crate::browser::PaneMessage, crate::api::ClientMessage, super::error::ErrorBody, super::error::ErrorDetail)),
    modifiers(&TokenScheme, &CommonRefusals)
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

/// The refusals every operation shares, documented in one place rather than on each handler:
/// the admission middleware's (401 no or unknown token; 403 a foreign Host or Origin, or an
/// agent token where the owner's is needed; 503 the agent list unreadable) on every operation
/// that needs a token, the JSON body's (400 bad field values such as a channel id, 415 not JSON,
/// 422 a missing or mistyped field) on every operation with a body, and 400 on every operation
/// with parameters. Every error answer is given the `{"error":{"code","message"}}` schema.
struct CommonRefusals;

impl CommonRefusals {
    fn add(operation: &mut Operation, status: &str, description: &str) {
        operation
            .responses
            .responses
            .entry(status.to_string())
            .or_insert_with(|| RefOr::T(Response::new(description)));
    }

    fn apply(operation: &mut Operation) {
        if operation.security.is_some() {
            Self::add(operation, "401", "no or unknown token");
            Self::add(
                operation,
                "403",
                "refused: a Host or Origin that is not the daemon's, or an agent token where the owner token is needed",
            );
            Self::add(
                operation,
                "503",
                "the daemon cannot read its agent list right now",
            );
        }
        if operation.request_body.is_some() {
            Self::add(
                operation,
                "400",
                "a field has a bad value (e.g. the channel id)",
            );
            Self::add(
                operation,
                "415",
                "the body is not JSON (Content-Type: application/json)",
            );
            Self::add(
                operation,
                "422",
                "the body lacks a field or has one of the wrong type",
            );
        }
        if operation.parameters.as_ref().is_some_and(|p| !p.is_empty()) {
            Self::add(
                operation,
                "400",
                "a parameter has a bad value (e.g. the channel id)",
            );
        }
        for (status, response) in operation.responses.responses.iter_mut() {
            let is_error = status.starts_with('4') || status.starts_with('5');
            if let (true, RefOr::T(response)) = (is_error, response) {
                if response.content.is_empty() {
                    response.content.insert(
                        "application/json".to_string(),
                        Content::new(Some(Ref::from_schema_name("ErrorBody"))),
                    );
                }
            }
        }
    }
}

impl Modify for CommonRefusals {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            for operation in [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.patch,
            ]
            .into_iter()
            .flatten()
            {
                Self::apply(operation);
            }
        }
    }
}

/// `GET /api/openapi.json`.
pub async fn document() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
