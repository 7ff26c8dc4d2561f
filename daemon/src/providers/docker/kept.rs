//! Stopped sidecars kept for their channel's next start: a clean stop (or the reaper, for one
//! found stopped at daemon start) keeps the container, and the next start of its channel
//! starts it again while its spec hash label still equals the hash of what a new one would be.
//! This module owns only the registry; the engine calls are the provider's and the reaper's.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::channel_id::ChannelId;

/// A sidecar this daemon stopped cleanly (or found stopped at its start) and kept: started
/// again by the next start of its channel while `spec` equals that start's spec hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kept {
    pub id: String,
    /// Its spec hash label (`porthole.spec`).
    pub spec: String,
}

/// Which channel's stopped sidecar is kept. Short lock, never held across an await.
#[derive(Debug, Default)]
pub(crate) struct KeptSidecars {
    kept: Mutex<HashMap<ChannelId, Kept>>,
}

impl KeptSidecars {
    pub fn insert(&self, channel: ChannelId, kept: Kept) {
        self.lock().insert(channel, kept);
    }

    /// Takes the channel's kept sidecar out of the registry (to start or remove it).
    pub fn take(&self, channel: &ChannelId) -> Option<Kept> {
        self.lock().remove(channel)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ChannelId, Kept>> {
        self.kept.lock().expect("kept lock")
    }
}
