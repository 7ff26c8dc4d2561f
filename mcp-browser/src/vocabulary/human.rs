//! Arguments of the tools that involve the person at the browser: `handle_dialog` (answer the
//! JavaScript dialog open in the agent's tab) and `request_human` (ask the person for help and
//! wait for their answer).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_not_blank, check_range, Problem, Validate};

/// How long `request_human` waits by default, in milliseconds (5 minutes).
pub const DEFAULT_HANDOFF_TIMEOUT_MS: u64 = 300_000;
/// The longest `request_human` may wait, in milliseconds (30 minutes).
pub const MAX_HANDOFF_TIMEOUT_MS: u64 = 1_800_000;

/// `handle_dialog`: answer the open alert/confirm/prompt/beforeunload dialog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HandleDialogArgs {
    /// true = OK / Leave, false = Cancel / Stay.
    pub accept: bool,
    /// The answer typed into a prompt dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Validate for HandleDialogArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        Ok(())
    }
}

/// `request_human`: hand the browser to the person and wait until they press Done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestHumanArgs {
    /// What you need the person to do (shown to them), e.g. "Log in to the bank".
    pub reason: String,
    /// How long to wait, ms (default 300000, max 1800000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1000, max = 1800000))]
    pub timeout_ms: Option<u64>,
}

impl RequestHumanArgs {
    /// How long this call waits for the person.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_HANDOFF_TIMEOUT_MS))
    }
}

impl Validate for RequestHumanArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_not_blank("reason", Some(&self.reason))?;
        if self.reason.chars().count() > 2000 {
            return Err("argument `reason` must be at most 2000 characters".into());
        }
        check_range("timeout_ms", self.timeout_ms, 1000, MAX_HANDOFF_TIMEOUT_MS)
    }
}
