//! The OpenAPI document of the HTTP API, generated from the handlers' annotations.

use axum::Json;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::{action, cookies, http, image};

#[derive(OpenApi)]
#[openapi(
    info(title = "Porthole", description = "A shared, persistent browser per channel for agents and their humans. WebSocket protocol: GET /api/ws/browser (see DESIGN.md §6)."),
    paths(http::health, http::list_channels, http::set_mode, http::reset_profile, http::delete_channel, action::action, cookies::sources, cookies::import, image::status, image::build),
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
