//! Arguments of `screenshot` and `save_screenshot`, and the image formats they produce.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_not_blank, Problem, Validate};
use super::wait::{impl_has_wait, HasWait};

/// An image format a screenshot can be taken in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum ImageFormat {
    /// Lossless PNG.
    Png,
    /// JPEG (smaller).
    #[serde(alias = "jpg")]
    Jpeg,
}

impl ImageFormat {
    /// `image/png` or `image/jpeg`.
    pub fn mime_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
        }
    }

    /// The format a MIME type names, if any.
    pub fn from_mime_type(mime: &str) -> Option<Self> {
        match mime.trim().to_ascii_lowercase().as_str() {
            "image/png" => Some(ImageFormat::Png),
            "image/jpeg" | "image/jpg" => Some(ImageFormat::Jpeg),
            _ => None,
        }
    }

    /// The format a file name's extension names: `Ok(None)` without an extension, `Err` for
    /// another extension.
    pub fn from_path(path: &Path) -> Result<Option<Self>, Problem> {
        let Some(ext) = path.extension() else {
            return Ok(None);
        };
        match ext.to_string_lossy().to_ascii_lowercase().as_str() {
            "png" => Ok(Some(ImageFormat::Png)),
            "jpg" | "jpeg" => Ok(Some(ImageFormat::Jpeg)),
            other => {
                Err(format!("argument `path` must end in .png, .jpg or .jpeg, not .{other}").into())
            }
        }
    }
}

/// `screenshot`: the visible viewport of the active tab as an image.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScreenshotArgs {
    /// Image format (default jpeg).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ImageFormat>,
    /// Label clickable things (canvas regions too) with refs for computer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub badges: Option<bool>,
    /// CSS selector to wait for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_selector: Option<String>,
    /// Text to wait for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_text: Option<String>,
    /// Wait limit in ms (default 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 60000))]
    pub wait_timeout_ms: Option<u64>,
}
impl_has_wait!(ScreenshotArgs);

impl ScreenshotArgs {
    /// Whether refs are drawn on the image.
    pub fn badges(&self) -> bool {
        self.badges == Some(true)
    }
}

impl Validate for ScreenshotArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        self.validate_wait()
    }
}

/// `save_screenshot`: write the viewport to an image file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SaveScreenshotArgs {
    /// File to write (.png, .jpg); folders are created.
    pub path: String,
    /// Image format (default: from the extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ImageFormat>,
    /// CSS selector to wait for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_selector: Option<String>,
    /// Text to wait for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_text: Option<String>,
    /// Wait limit in ms (default 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 60000))]
    pub wait_timeout_ms: Option<u64>,
}
impl_has_wait!(SaveScreenshotArgs);

impl SaveScreenshotArgs {
    /// The format to write: `format`, else the extension's, else PNG.
    pub fn resolved_format(&self) -> ImageFormat {
        self.format
            .or_else(|| ImageFormat::from_path(Path::new(&self.path)).ok().flatten())
            .unwrap_or(ImageFormat::Png)
    }

    /// The `screenshot` arguments that capture what this call saves.
    pub fn screenshot_args(&self) -> ScreenshotArgs {
        ScreenshotArgs {
            format: Some(self.resolved_format()),
            badges: None,
            wait_for_selector: self.wait_for_selector.clone(),
            wait_for_text: self.wait_for_text.clone(),
            wait_timeout_ms: self.wait_timeout_ms,
        }
    }
}

impl Validate for SaveScreenshotArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_not_blank("path", Some(&self.path))?;
        if let (Some(f), Some(ext)) = (self.format, ImageFormat::from_path(Path::new(&self.path))?)
        {
            if f != ext {
                return Err(format!(
                    "argument `format` ({f:?}) does not match the extension of `path` ({})",
                    self.path
                )
                .into());
            }
        }
        self.validate_wait()
    }
}
