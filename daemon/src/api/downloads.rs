//! `GET /api/browser/channels/{channel_id}/downloads/{download_id}` (DESIGN.md §15): a
//! finished download's bytes for the person, with its name (`Content-Disposition`, RFC 6266
//! with an RFC 5987 `filename*`) and a content type. Owner token only (the admission
//! middleware refuses agent tokens). The bytes come from where the session's files say:
//! streamed from the daemon's disk (local mode, prints), or streamed back through the engine's
//! archive API as it arrives (docker mode, a local or remote engine).

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::AppState;
use crate::browser::DownloadState;
use crate::channel_id::ChannelId;

/// A finished download's bytes.
#[utoipa::path(
    get,
    path = "/api/browser/channels/{channel_id}/downloads/{download_id}",
    params(
        ("channel_id" = String, Path, description = "the channel"),
        ("download_id" = String, Path, description = "the download's id from a `download` message (`d1`, …)"),
    ),
    responses(
        (status = 200, description = "the bytes, with Content-Disposition naming the file", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 404, description = "no such download, or the channel's browser is not running"),
        (status = 409, description = "the download is still running or was canceled"),
        (status = 502, description = "the file could not be read back from the browser"),
    ),
    security(("token" = []))
)]
pub async fn download(
    State(state): State<AppState>,
    Path((channel_id, download_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let channel = ChannelId::parse(&channel_id)?;
    let Some(session) = state.inner.channels.current_session(&channel) else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "download_not_found",
            format!("channel {channel} has no running browser; start it from a pane and try again"),
        ));
    };
    let files = session.files();
    let Some(d) = files.download(&download_id) else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "download_not_found",
            format!("channel {channel} has no download {download_id:?}"),
        ));
    };
    match d.state {
        DownloadState::Completed => {}
        DownloadState::InProgress => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "download_running",
                format!(
                    "download {} ({}) is still running ({} bytes so far); wait for its completed message",
                    d.id, d.name, d.received
                ),
            ))
        }
        DownloadState::Canceled => {
            let why = d.why.as_deref().unwrap_or("canceled");
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "download_canceled",
                format!("download {} ({}) has no bytes: {why}", d.id, d.name),
            ));
        }
    }
    let body = files.open_download(&d).await.map_err(|error| {
        tracing::warn!(event = "download_unreadable", channel_id = %channel, id = %d.id, %error);
        ApiError::new(
            StatusCode::BAD_GATEWAY,
            "download_unreadable",
            error.to_string(),
        )
    })?;
    let length = body.size;
    let body = Body::from_stream(tokio_util::io::ReaderStream::new(body.reader));
    let mime = crate::tools::mime_type(&d.name);
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(mime)),
            (header::CONTENT_DISPOSITION, content_disposition(&d.name)),
            (header::CONTENT_LENGTH, HeaderValue::from(length)),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        body,
    )
        .into_response())
}

/// `attachment; filename="<ASCII stand-in>"; filename*=UTF-8''<percent-encoded>` (RFC 6266,
/// RFC 5987): every client gets a usable name, and those that read `filename*` the exact one.
fn content_disposition(name: &str) -> HeaderValue {
    let fallback: String = name
        .chars()
        .map(|c| match c {
            ' '..='~' if c != '"' && c != '\\' => c,
            _ => '_',
        })
        .collect();
    let mut encoded = String::new();
    for byte in name.bytes() {
        let plain = byte.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&byte);
        if plain {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    let value = format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}");
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("attachment"))
}

#[cfg(test)]
mod tests {
    use super::content_disposition;

    #[test]
    fn names_are_quoted_and_encoded() {
        assert_eq!(
            content_disposition("report 1.pdf"),
            "attachment; filename=\"report 1.pdf\"; filename*=UTF-8''report%201.pdf"
        );
        assert_eq!(
            content_disposition("日本\"x\".txt"),
            "attachment; filename=\"___x_.txt\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%22x%22.txt"
        );
    }
}
