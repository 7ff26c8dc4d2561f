//! Porthole: each channel of an agent desktop app gets its own shared, persistent browser.
//!
//! Layers, bottom up: [`cdp`] (raw CDP connection actor), [`browser`] (per-channel CDP state:
//! tabs, screencast hub, input), [`providers`] (browser lifecycle per mode), [`channels`]
//! (sessions per channel and mode, idle monitor), [`api`] (HTTP + WebSocket, auth).

pub mod agents;
pub mod api;
pub mod bounds;
pub mod browser;
pub mod cdp;
pub mod channel_id;
pub mod channels;
pub mod config;
pub mod cookie_import;
pub mod cookies;
pub mod daemon;
pub mod host_browser;
pub mod logging;
pub mod mode;
pub mod oversight;
pub mod providers;
pub mod state;
pub mod timeline;
pub mod timeline_event;
pub mod token;
pub mod tools;
