//! Process-wide bounds on what agents and pages may make the daemon hold (DESIGN.md §16),
//! read from the configuration once at start ([`set`]) and read everywhere else ([`get`]);
//! their defaults apply until then (unit tests, `mcp-host-browser` before it sets them).
//!
//! Each bound is a setting, and every refusal it causes names that setting (the `*_KEY`
//! constants). Owns no state beyond the values; imports nothing of the crate.

use std::sync::OnceLock;

/// `agents.max_tabs`: the most tabs one agent may have open in a channel.
pub const MAX_TABS_KEY: &str = "agents.max_tabs";
/// `browser.cdp_message_max_mb`: the largest message the daemon takes from a browser.
pub const CDP_MESSAGE_KEY: &str = "browser.cdp_message_max_mb";

/// Default of [`MAX_TABS_KEY`].
pub const DEFAULT_MAX_TABS: usize = 20;
/// Default of [`CDP_MESSAGE_KEY`], in MiB.
pub const DEFAULT_CDP_MESSAGE_MAX_MB: usize = 64;

/// The bounds in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Tabs per agent per channel (its popups included).
    pub max_tabs: usize,
    /// Bytes of one CDP message (a reply or an event); a larger reply fails its call only.
    pub cdp_message_max_bytes: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            max_tabs: DEFAULT_MAX_TABS,
            cdp_message_max_bytes: DEFAULT_CDP_MESSAGE_MAX_MB * 1024 * 1024,
        }
    }
}

static BOUNDS: OnceLock<Bounds> = OnceLock::new();

/// Sets the bounds for the life of the process; a second call changes nothing (false).
pub fn set(bounds: Bounds) -> bool {
    BOUNDS.set(bounds).is_ok()
}

/// The bounds in force (the defaults until [`set`]).
pub fn get() -> Bounds {
    BOUNDS.get().copied().unwrap_or_default()
}

/// `bytes` in MiB for messages, rounded up (so "over 64 MB" never reads "64 MB of 64 MB").
pub fn mib(bytes: usize) -> usize {
    bytes.div_ceil(1024 * 1024)
}
