//! The web panel, embedded at build time from `web-panel/` and served without a token (it holds
//! no secret: the token reaches it in the URL fragment).

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

include!(concat!(env!("OUT_DIR"), "/panel_files.rs"));

fn file(path: &str) -> Option<&'static [u8]> {
    PANEL_FILES
        .iter()
        .find(|(name, _)| *name == path)
        .map(|(_, bytes)| *bytes)
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

fn serve(path: &str) -> Response {
    match file(path) {
        Some(bytes) => (
            [
                (header::CONTENT_TYPE, content_type(path)),
                (header::CACHE_CONTROL, "no-cache"),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                (header::REFERRER_POLICY, "no-referrer"),
            ],
            bytes,
        )
            .into_response(),
        None => {
            super::error::ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such panel file")
                .into_response()
        }
    }
}

/// `GET /`: the panel page.
pub async fn index() -> Response {
    serve("index.html")
}

/// `GET /panel/{path}`: its scripts and styles.
pub async fn asset(Path(path): Path<String>) -> Response {
    serve(&path)
}
