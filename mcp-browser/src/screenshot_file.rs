//! `save_screenshot` done where the MCP server runs: take a `screenshot` through any
//! [`ToolBackend`] and write the image to a local file.
//!
//! The proxy uses it so the file lands inside the agent's container, not on the daemon's host;
//! a direct backend can use it too. It owns only the file writing; capturing is the backend's.

use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::backend::ToolBackend;
use crate::vocabulary::{ImageFormat, SaveScreenshotArgs, ToolName};
use crate::wire::ToolOutput;

/// Takes a screenshot with `backend` (passing the wait arguments and the format) and writes it
/// to `args.path`, returning the absolute path and size, or an error result saying what failed.
pub async fn save_screenshot(backend: &dyn ToolBackend, args: &SaveScreenshotArgs) -> ToolOutput {
    let shot_args = serde_json::to_value(args.screenshot_args())
        .unwrap_or_else(|e| panic!("screenshot arguments always serialise: {e}"));
    let shot = backend.call(ToolName::Screenshot.as_str(), shot_args).await;
    write_screenshot(args, shot).await
}

/// Writes the image of `shot` (a `screenshot` result taken with `args.screenshot_args()`) to
/// `args.path`, returning the absolute path and size, or an error result saying what failed.
pub async fn write_screenshot(args: &SaveScreenshotArgs, shot: ToolOutput) -> ToolOutput {
    let format = args.resolved_format();
    if shot.is_error {
        return shot;
    }
    let Some((data, mime)) = shot.first_image() else {
        return ToolOutput::error(format!(
            "save_screenshot: the screenshot returned no image, so nothing was written to {}. {}",
            args.path,
            shot.joined_text()
        ));
    };
    if ImageFormat::from_mime_type(mime) != Some(format) {
        return ToolOutput::error(format!(
            "save_screenshot: the browser returned {mime}, but {} asks for {}; nothing was written. \
             Use a path ending in the matching extension.",
            args.path,
            format.mime_type()
        ));
    }
    let bytes = match base64::engine::general_purpose::STANDARD.decode(data) {
        Ok(b) => b,
        Err(e) => {
            return ToolOutput::error(format!(
                "save_screenshot: the screenshot's image data is not valid base64 ({e})"
            ))
        }
    };
    let path = absolute(Path::new(&args.path));
    if let Err(e) = write(&path, &bytes).await {
        return ToolOutput::error(format!(
            "save_screenshot: could not write {}: {e}. Choose a writable path.",
            path.display()
        ));
    }
    let size = match png_size(&bytes) {
        Some((w, h)) => format!("{w}x{h}, "),
        None => String::new(),
    };
    let kind = match format {
        ImageFormat::Png => "PNG",
        ImageFormat::Jpeg => "JPEG",
    };
    let mut out = ToolOutput::text(format!(
        "Saved screenshot to {} ({kind}, {size}{} bytes)",
        path.display(),
        bytes.len()
    ));
    let notes = shot.joined_text();
    if !notes.is_empty() {
        out = out.with_text(notes);
    }
    out
}

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_owned();
    }
    std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .unwrap_or_else(|_| path.to_owned())
}

async fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        tokio::fs::create_dir_all(parent).await?;
    }
    tokio::fs::write(path, bytes).await
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
    Some((w, h))
}

#[cfg(test)]
mod tests {
    //! The format check needs a backend that answers PNG whatever was asked (the real daemon
    //! never does), so it is proven here, with the tests package covering the real path.

    use super::*;

    /// A backend whose screenshot is always a PNG (the bytes need not be a real image).
    struct AlwaysPng;

    #[async_trait::async_trait]
    impl ToolBackend for AlwaysPng {
        async fn call(&self, _tool: &str, _args: serde_json::Value) -> ToolOutput {
            let data = base64::engine::general_purpose::STANDARD.encode(b"\x89PNG not really");
            ToolOutput::image(data, "image/png")
        }
    }

    #[tokio::test]
    async fn a_format_the_browser_did_not_produce_is_refused_and_nothing_written() {
        let dir = std::env::temp_dir().join(format!("porthole-shot-{}", std::process::id()));
        let path = dir.join("page.jpg");
        let args: SaveScreenshotArgs =
            serde_json::from_value(serde_json::json!({"path": path.to_str().unwrap()})).unwrap();
        let out = save_screenshot(&AlwaysPng, &args).await;
        assert!(out.is_error);
        assert!(
            out.joined_text().contains("returned image/png"),
            "{}",
            out.joined_text()
        );
        assert!(!path.exists());
    }
}
