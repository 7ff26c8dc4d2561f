//! The three ways a channel's browser can run (DESIGN.md §1).

use serde::{Deserialize, Serialize};

/// Who runs a channel's browser.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Headless Chromium in a sidecar container per channel.
    Docker,
    /// The user's own running Chrome.
    Host,
    /// Headless Chromium launched by the daemon as a child process.
    Local,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Docker => "docker",
            Mode::Host => "host",
            Mode::Local => "local",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
