//! Tabs coming and going, beside the tab list: a version bumped on every change (so a call can
//! wait for a target to be tracked), the tabs being created right now and the targets Chrome
//! made for us that are not tracked yet (what a host-mode stop must wait for and close), and
//! which new targets a call of ours is tracking itself (`adoption`), and the targets Chrome
//! destroyed while a host-mode stop closes them (followed in a queue of the session's
//! dispatch), and the agent tab opened ahead (`warm`). The tabs room's own state, held by the session and lent with `TabLife`.

use std::collections::HashSet;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::adoption::Adopting;
use super::warm::WarmTab;
use crate::browser::floor::RoomEvents;

/// Tabs coming and going: waiting for a target to be tracked, and what a host-mode stop must
/// close.
#[derive(Debug)]
pub(in crate::browser) struct TabTraffic {
    /// Bumped on every tab-list change, so callers can wait for a target to be tracked.
    pub(super) version: watch::Sender<u64>,
    /// Set when Porthole itself is closing the session's tabs (host-mode stop): a tab list
    /// that empties then is not refilled.
    pub(super) winding_down: Arc<AtomicBool>,
    /// Tabs being created right now (`Target.createTarget` in flight or being attached): a
    /// host-mode stop waits for them so none is left behind in the user's Chrome.
    pub(super) creating: Arc<watch::Sender<usize>>,
    /// Targets Chrome created for us that are not tracked yet (their creator may have been
    /// cancelled mid-way): a host-mode stop closes them too. Short lock.
    pub(super) opening: Arc<Mutex<HashSet<String>>>,
    /// Targets whose creating call is tracking them now: the event loop leaves them to it.
    pub(super) adopting: Adopting,
    /// Targets Chrome reported destroyed while the session winds down (what a host-mode stop
    /// waits for), recorded by [`TabTraffic::follow`].
    pub(super) gone: Arc<watch::Sender<HashSet<String>>>,
    /// The agent tab opened ahead.
    pub(super) warm: WarmTab,
}

impl Default for TabTraffic {
    fn default() -> Self {
        Self {
            version: watch::channel(0).0,
            winding_down: Arc::default(),
            creating: Arc::new(watch::channel(0).0),
            opening: Arc::default(),
            adopting: Adopting::default(),
            gone: Arc::new(watch::channel(HashSet::new()).0),
            warm: WarmTab::default(),
        }
    }
}

/// The events tabs going are followed by, for a host-mode stop.
pub(in crate::browser) const GONE_EVENTS: &[&str] = &["Target.targetDestroyed"];

impl TabTraffic {
    /// Records the targets Chrome destroys while the session winds down, for a host-mode stop
    /// to wait on (`events`: the session's [`GONE_EVENTS`]); ends with the session.
    pub(in crate::browser) fn follow(
        &self,
        mut events: RoomEvents,
    ) -> impl Future<Output = ()> + Send + 'static {
        let (winding_down, gone) = (self.winding_down.clone(), self.gone.clone());
        async move {
            while let Some(event) = events.next().await {
                if !winding_down.load(Ordering::SeqCst) {
                    continue;
                }
                if let Some(id) = event.params["targetId"].as_str() {
                    gone.send_modify(|gone| {
                        gone.insert(id.to_string());
                    });
                }
            }
        }
    }
}
