//! The idle monitor: one task that stops browsers nobody has watched for `idle_timeout_secs`.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::service::ChannelService;

/// Runs until `shutdown` is cancelled.
pub async fn run_idle_monitor(channels: Arc<ChannelService>, shutdown: CancellationToken) {
    let mut tick = tokio::time::interval(channels.idle_check_interval());
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tick.tick() => channels.stop_idle().await,
        }
    }
}
