//! The JSON shapes shared with the daemon's `POST /api/browser/action` (DESIGN.md §6): the
//! request body ([`ActionRequest`]), the MCP tool result every tool returns ([`ToolOutput`]) and
//! the daemon's error body ([`ApiErrorBody`]).
//!
//! These are plain serde types with no transport attached: the proxy sends and reads them, the
//! daemon's action endpoint reads and answers them, and [`crate::server`] turns a
//! [`ToolOutput`] into rmcp's `CallToolResult`. Nothing here talks to a browser.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The body of `POST /api/browser/action`: run one canonical tool on a channel's browser.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionRequest {
    /// The channel whose browser runs the tool. An agent token may leave it out (its own
    /// channel is meant); the owner token must give it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<String>,
    /// A canonical tool name (see [`crate::ToolName`]); aliases are never sent.
    pub tool: String,
    /// The tool's arguments, already validated by the MCP server.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub args: Value,
}

/// An MCP tool result as it travels on the wire:
/// `{"content":[{"type":"text","text":…} | {"type":"image","data":base64,"mimeType":…}],"isError":bool}`.
///
/// A failed tool is still a `ToolOutput` (with `is_error` set and a text saying what happened
/// and what to do), never a transport error: the model reads it and can recover.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolOutput {
    /// Text and image blocks, in order.
    pub content: Vec<Content>,
    /// True when the tool failed; the text blocks say why.
    #[serde(rename = "isError", default)]
    pub is_error: bool,
}

/// One block of a [`ToolOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Content {
    /// Text for the model.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded (standard alphabet, padded).
    Image {
        /// The image bytes, base64.
        data: String,
        /// `image/png` or `image/jpeg`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A file's bytes (MCP embedded resource with a base64 `blob`).
    Resource {
        /// The file.
        resource: BlobResource,
    },
}

/// The inside of [`Content::Resource`]: `{"uri","mimeType","blob"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BlobResource {
    /// Names the file, e.g. `file:///…/report.pdf`.
    pub uri: String,
    /// Its MIME type.
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    /// The bytes, base64.
    pub blob: String,
}

impl ToolOutput {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::Text { text: text.into() }],
            is_error: false,
        }
    }

    /// A failed result with one text block saying what happened and what to do.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::Text { text: text.into() }],
            is_error: true,
        }
    }

    /// A successful result with one image block (`data` already base64).
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            content: vec![Content::Image {
                data: data.into(),
                mime_type: mime_type.into(),
            }],
            is_error: false,
        }
    }

    /// Appends a text block.
    #[must_use]
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.content.push(Content::Text { text: text.into() });
        self
    }

    /// All text blocks joined by newlines (images left out).
    pub fn joined_text(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text.as_str()),
                Content::Image { .. } | Content::Resource { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The first image block, as `(base64 data, mime type)`.
    pub fn first_image(&self) -> Option<(&str, &str)> {
        self.content.iter().find_map(|c| match c {
            Content::Image { data, mime_type } => Some((data.as_str(), mime_type.as_str())),
            Content::Text { .. } | Content::Resource { .. } => None,
        })
    }
}

/// The daemon's error body: `{"error":{"code":"snake_case_code","message":"for a person"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApiErrorBody {
    /// The error.
    pub error: ApiErrorDetail,
}

/// The inside of [`ApiErrorBody`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApiErrorDetail {
    /// A stable snake_case code, e.g. `unknown_channel`.
    pub code: String,
    /// A sentence for a person.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_output_wire_shape() {
        let out = ToolOutput::text("hi").with_text("there");
        assert_eq!(
            serde_json::to_value(&out).unwrap(),
            json!({"content":[{"type":"text","text":"hi"},{"type":"text","text":"there"}],"isError":false})
        );
        let img: ToolOutput = serde_json::from_value(
            json!({"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}),
        )
        .unwrap();
        assert_eq!(img.first_image(), Some(("AAAA", "image/png")));
        assert!(!img.is_error);
    }
}
