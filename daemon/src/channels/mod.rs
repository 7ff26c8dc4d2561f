//! Channels: a BrowserSession per (channel, mode), pane counting and the idle monitor.

mod idle;
mod service;

pub use idle::run_idle_monitor;
pub(crate) use service::{close_session, connect_users_chrome};
pub use service::{
    ownership_of, ChannelError, ChannelService, ChannelSettings, ChannelSummary, PaneGuard,
    StartHook,
};
