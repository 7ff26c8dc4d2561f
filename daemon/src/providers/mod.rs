//! Browser providers: lifecycle only (start, stop, where is its CDP endpoint, remove its
//! profile). They hold no CDP state; tabs and screencasts belong to `browser::BrowserSession`.

pub mod docker;
pub mod host;
pub mod local;

use async_trait::async_trait;

use crate::cdp::CdpConnection;
use crate::channel_id::ChannelId;
use crate::mode::Mode;

/// How to reach a running browser's browser-level CDP.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub address: CdpAddress,
    /// True when the browser was started by this call (false: it was already running).
    pub fresh: bool,
}

/// A WebSocket to dial, or a connection the provider already holds.
#[derive(Debug, Clone)]
pub enum CdpAddress {
    /// `ws://127.0.0.1:<port>/devtools/browser/<id>` (or the sidecar's secret path).
    WebSocket(String),
    /// Already open (local mode: Chromium's `--remote-debugging-pipe`; no port to dial).
    Connected(CdpConnection),
}

/// Outcome of a stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    Stopped,
    NotRunning,
}

/// Outcome of a profile removal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removed {
    Removed,
    NotFound,
}

/// A progress line for slow work (image builds, first start), shown in the log and to panes.
pub type ProgressFn = std::sync::Arc<dyn Fn(&str, &str) + Send + Sync>;

/// A failed lifecycle step; the message is for a person.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProviderError {
    /// The browser binary, engine or Chrome instance is not there.
    #[error("{0}")]
    Unavailable(String),
    /// The browser started but did not come up.
    #[error("{0}")]
    Failed(String),
    /// The operation makes no sense for this provider (e.g. removing the user's own profile).
    #[error("{0}")]
    Refused(String),
}

/// Starts and stops the browser of a channel in one mode.
#[async_trait]
pub trait BrowserProvider: Send + Sync + 'static {
    /// The mode this provider serves.
    fn mode(&self) -> Mode;

    /// Makes sure the channel's browser runs and returns its endpoint.
    async fn ensure_browser(
        &self,
        channel: &ChannelId,
        progress: ProgressFn,
    ) -> Result<Endpoint, ProviderError>;

    /// Stops the channel's browser (host mode: forgets it, never stops the user's Chrome).
    async fn stop_browser(&self, channel: &ChannelId) -> Result<Stopped, ProviderError>;

    /// Deletes the channel's persistent profile; the browser must be stopped first.
    async fn remove_profile(&self, channel: &ChannelId) -> Result<Removed, ProviderError>;

    /// Stops every browser this provider started (daemon shutdown).
    async fn shutdown(&self);

    /// Cheap check that this mode can run now (host mode: a Chrome with remote debugging
    /// answers), so a mode switch can be refused before it changes anything.
    async fn check_available(&self) -> Result<(), ProviderError> {
        Ok(())
    }
}
