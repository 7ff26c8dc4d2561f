//! Waiting for a page (DESIGN.md §7): `wait_for_selector` / `wait_for_text` /
//! `wait_timeout_ms` on `navigate`, `screenshot`, `save_screenshot` and `computer`.
//!
//! The argument structs carry the three raw fields (not flattened, so a mistyped value is
//! reported by name); this module resolves them into one [`WaitFor`] and holds the limits.
//! The polling itself is the backend's job.

use std::time::Duration;

use super::args::{check_not_blank, check_range, Problem};

/// `wait_timeout_ms` when none is given.
pub const DEFAULT_WAIT_TIMEOUT_MS: u64 = 10_000;
/// The largest `wait_timeout_ms` accepted.
pub const MAX_WAIT_TIMEOUT_MS: u64 = 60_000;
/// How often a backend polls the page while waiting.
pub const WAIT_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// What a tool must wait for before it succeeds. A timeout is an error result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitFor {
    /// A CSS selector that must match an element.
    pub selector: Option<String>,
    /// Text that must appear in the page's visible text.
    pub text: Option<String>,
    /// How long to poll before giving up.
    pub timeout: Duration,
}

/// An argument struct with the three wait fields.
pub trait HasWait {
    /// `(wait_for_selector, wait_for_text, wait_timeout_ms)` as given.
    fn wait_fields(&self) -> (Option<&str>, Option<&str>, Option<u64>);

    /// The wait to perform, or `None` when neither a selector nor a text was given.
    fn wait(&self) -> Option<WaitFor> {
        let (selector, text, timeout_ms) = self.wait_fields();
        if selector.is_none() && text.is_none() {
            return None;
        }
        Some(WaitFor {
            selector: selector.map(str::to_owned),
            text: text.map(str::to_owned),
            timeout: Duration::from_millis(timeout_ms.unwrap_or(DEFAULT_WAIT_TIMEOUT_MS)),
        })
    }

    /// Checks the three fields: non-empty selector/text, timeout within 1..=60000 ms.
    fn validate_wait(&self) -> Result<(), Problem> {
        let (selector, text, timeout_ms) = self.wait_fields();
        check_not_blank("wait_for_selector", selector)?;
        check_not_blank("wait_for_text", text)?;
        check_range("wait_timeout_ms", timeout_ms, 1, MAX_WAIT_TIMEOUT_MS)
    }
}

/// Implements [`HasWait`] for a struct with `wait_for_selector`, `wait_for_text` and
/// `wait_timeout_ms` fields.
macro_rules! impl_has_wait {
    ($t:ty) => {
        impl $crate::vocabulary::wait::HasWait for $t {
            fn wait_fields(&self) -> (Option<&str>, Option<&str>, Option<u64>) {
                (
                    self.wait_for_selector.as_deref(),
                    self.wait_for_text.as_deref(),
                    self.wait_timeout_ms,
                )
            }
        }
    };
}
pub(crate) use impl_has_wait;
