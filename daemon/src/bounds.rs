//! Process-wide bounds on what agents and pages may make the daemon hold (DESIGN.md §16),
//! read from the configuration once at start ([`set`]) and read everywhere else ([`get`]);
//! their defaults apply until then (unit tests, `mcp-host-browser` before it sets them).
//!
//! Each bound is a setting, and every refusal it causes names that setting (the `*_KEY`
//! constants). Owns no state beyond the values; imports nothing of the crate. Also sets the
//! allocator to return large freed buffers ([`release_large_buffers`]).

use std::sync::OnceLock;

/// `agents.max_tabs`: the most tabs one agent may have open in a channel.
pub(crate) const MAX_TABS_KEY: &str = "agents.max_tabs";
/// `browser.cdp_message_max_mb`: the largest message the daemon takes from a browser.
pub(crate) const CDP_MESSAGE_KEY: &str = "browser.cdp_message_max_mb";

/// Default of [`MAX_TABS_KEY`].
pub(crate) const DEFAULT_MAX_TABS: usize = 20;
/// Default of [`CDP_MESSAGE_KEY`], in MiB.
pub(crate) const DEFAULT_CDP_MESSAGE_MAX_MB: usize = 64;

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

/// Asks the allocator to hand large buffers back to the system when they are freed: a page
/// that sends megabyte events (URLs, log lines) makes the daemon parse each in a transient
/// buffer, and glibc's default raises its mmap threshold to the largest freed buffer, after
/// which such buffers come from heaps that are never returned and fragment. A fixed
/// threshold keeps every buffer of 256 KiB or more mmapped, so the daemon's memory follows
/// what it holds, not what passed through. Call once at start, before threads are spawned.
#[allow(unsafe_code)]
pub fn release_large_buffers() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only changes glibc's allocation parameters; it is called at start,
    // before any other thread allocates.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1024 * 1024);
    }
}

/// `bytes` in MiB for messages, rounded up (so "over 64 MB" never reads "64 MB of 64 MB").
pub(crate) fn mib(bytes: usize) -> usize {
    bytes.div_ceil(1024 * 1024)
}
