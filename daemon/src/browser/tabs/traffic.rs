//! Tabs coming and going, beside the tab list: a version bumped on every change (so a call can
//! wait for a target to be tracked), the tabs being created right now and the targets Chrome
//! made for us that are not tracked yet (what a host-mode stop must wait for and close), and
//! which new targets a call of ours is tracking itself (`adoption`). The tabs room's own state,
//! held by the session and lent with `TabLife`.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::adoption::Adopting;

/// Tabs coming and going: waiting for a target to be tracked, and what a host-mode stop must
/// close.
#[derive(Debug)]
pub(in crate::browser) struct TabTraffic {
    /// Bumped on every tab-list change, so callers can wait for a target to be tracked.
    pub version: watch::Sender<u64>,
    /// Set when Porthole itself is closing the session's tabs (host-mode stop): a tab list
    /// that empties then is not refilled.
    pub winding_down: Arc<AtomicBool>,
    /// Tabs being created right now (`Target.createTarget` in flight or being attached): a
    /// host-mode stop waits for them so none is left behind in the user's Chrome.
    pub creating: Arc<watch::Sender<usize>>,
    /// Targets Chrome created for us that are not tracked yet (their creator may have been
    /// cancelled mid-way): a host-mode stop closes them too. Short lock.
    pub opening: Arc<Mutex<HashSet<String>>>,
    /// Targets whose creating call is tracking them now: the event loop leaves them to it.
    pub adopting: Adopting,
}

impl Default for TabTraffic {
    fn default() -> Self {
        Self {
            version: watch::channel(0).0,
            winding_down: Arc::default(),
            creating: Arc::new(watch::channel(0).0),
            opening: Arc::default(),
            adopting: Adopting::default(),
        }
    }
}
