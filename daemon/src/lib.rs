//! Porthole: each channel of an agent desktop app gets its own shared, persistent browser.
//!
//! Layers, bottom up: [`cdp`] (raw CDP connection actor), [`browser`] (per-channel CDP state:
//! tabs, screencast hub, input), [`providers`] (browser lifecycle per mode), [`channels`]
//! (sessions per channel and mode, idle monitor), `tools` (one tool on a tab), `calls` (an
//! agent's act start to end: admit, oversee, gate, secrets, consent, record), [`api`] (HTTP +
//! WebSocket, auth).

pub mod agents;
pub(crate) mod api;
pub mod approvals;
pub mod bench_hooks;
pub mod bounds;
pub mod browser;
pub(crate) mod calls;
pub mod cdp;
pub(crate) mod cdp_door;
pub mod channel_id;
pub(crate) mod channels;
pub mod config;
pub(crate) mod cookie_import;
pub(crate) mod cookies;
pub mod daemon;
pub mod host_browser;
pub mod logging;
pub mod mode;
pub(crate) mod oversight;
pub mod providers;
pub mod reach;
pub mod sites;
#[cfg(test)]
mod source_checks;
pub mod state;
pub(crate) mod timeline;
pub(crate) mod timeline_event;
pub mod token;
pub mod tools;
pub mod vault;
