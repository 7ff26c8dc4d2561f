//! Arguments of `resize_window`: the browser window size, which is the viewport pages lay out
//! for.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_range, Problem, Validate};

/// The smallest width or height accepted, in CSS pixels.
pub const MIN_WINDOW_SIDE: u32 = 100;
/// The largest width or height accepted, in CSS pixels.
pub const MAX_WINDOW_SIDE: u32 = 8192;

/// `resize_window`: set the window size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResizeWindowArgs {
    /// CSS pixels.
    #[schemars(range(min = 100, max = 8192))]
    pub width: u32,
    /// CSS pixels.
    #[schemars(range(min = 100, max = 8192))]
    pub height: u32,
}

impl Validate for ResizeWindowArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_range("width", Some(self.width), MIN_WINDOW_SIDE, MAX_WINDOW_SIDE)?;
        check_range(
            "height",
            Some(self.height),
            MIN_WINDOW_SIDE,
            MAX_WINDOW_SIDE,
        )
    }
}
