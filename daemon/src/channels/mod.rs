//! Channels: a BrowserSession per (channel, mode), pane counting and the idle monitor.

mod idle;
mod service;

pub use idle::run_idle_monitor;
pub use service::{
    ownership_of, AgentCallGuard, ChannelError, ChannelService, ChannelSettings, ChannelSummary,
    PaneGuard, StartHook,
};
