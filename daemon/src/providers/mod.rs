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

/// What a session over a provider's browsers must know, so the channel service never asks
/// which mode it is in: one home per mode for its policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrowserTerms {
    /// The browser is the user's own (host mode): a session shows, drives and closes only the
    /// tabs Porthole opened; its profile is never reset, deleted or imported into; its CDP
    /// socket is dialled once per start, never redialled on our own (each dial may raise a
    /// permission prompt in the user's Chrome).
    pub users_own: bool,
    /// How long the CDP handshake of a browser started just now (or of the user's, which may
    /// hold it until they allow it) may take.
    pub connect_deadline: std::time::Duration,
}

impl BrowserTerms {
    /// A browser Porthole starts and owns (docker, local).
    pub(crate) const OWNED: BrowserTerms = BrowserTerms {
        users_own: false,
        connect_deadline: std::time::Duration::from_secs(20),
    };
}

/// Where a channel's browser saves downloads, and how the daemon reads them back.
#[derive(Clone)]
pub enum DownloadPlace {
    /// On the daemon's own filesystem: the channel's directory under the data dir (local mode).
    Daemon,
    /// On the browser's own filesystem (a container, maybe on another machine): saved under
    /// `dir` there and read back through `files`. The list stays in the daemon's data dir.
    Browser {
        dir: String,
        files: std::sync::Arc<dyn BrowserFiles>,
    },
    /// Where the browser has always saved them (the user's own Chrome keeps its download
    /// folder and its setting): followed through events, for the session's own tabs only, each
    /// file where the browser reports it.
    Watch,
    /// Not the daemon's to follow; the text says why, for the agent that asks.
    Off(String),
}

impl std::fmt::Debug for DownloadPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DownloadPlace::Daemon => f.write_str("Daemon"),
            DownloadPlace::Browser { dir, .. } => write!(f, "Browser({dir})"),
            DownloadPlace::Watch => f.write_str("Watch"),
            DownloadPlace::Off(why) => write!(f, "Off({why})"),
        }
    }
}

/// A file's bytes as they arrive, read from wherever the file is.
pub type FileReader = Box<dyn tokio::io::AsyncRead + Send + Unpin>;

/// Files on a browser's own filesystem, read from the daemon.
#[async_trait]
pub trait BrowserFiles: Send + Sync {
    /// Reads the file at `path` (as the browser sees it); refuses one over `limit` bytes.
    async fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, ProviderError>;

    /// Opens the file at `path` to be read as it arrives, with its size: nothing of it is
    /// held beyond what the reader has not yet taken. Refuses one over `limit` bytes.
    async fn open(&self, path: &str, limit: u64) -> Result<(FileReader, u64), ProviderError>;
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
pub(crate) type ProgressFn = std::sync::Arc<dyn Fn(&str, &str) + Send + Sync>;

/// What kind of step failed; the API's status follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderErrorKind {
    /// The browser binary, engine or Chrome instance is not there.
    Unavailable,
    /// The browser started but did not come up, or the engine failed a step.
    Failed,
    /// The operation makes no sense for this provider (e.g. removing the user's own profile).
    Refused,
    /// Host mode: no Chrome of the user's with remote debugging answers. The client's
    /// environment, not a fault of the daemon (HTTP 409 `host_browser_not_found`).
    HostBrowserNotFound,
}

/// A failed lifecycle step. `Display` is the message for a person (what happened, what to do)
/// and never carries engine text; the cause (a Docker engine answer, an OS error) is kept as
/// `source()` for the log ([`ProviderError::detail`]). dropshot's `HttpError { external_message,
/// internal_message }` is the model.
#[derive(Debug, Clone)]
pub struct ProviderError {
    pub kind: ProviderErrorKind,
    message: String,
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl ProviderError {
    fn new(kind: ProviderErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// The browser binary, engine or Chrome instance is not there.
    pub(crate) fn unavailable(message: impl Into<String>) -> Self {
        Self::new(ProviderErrorKind::Unavailable, message)
    }

    /// The browser started but did not come up, or the engine failed a step.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(ProviderErrorKind::Failed, message)
    }

    /// No Chrome of the user's with remote debugging answers (host mode).
    pub(crate) fn host_browser_not_found(message: impl Into<String>) -> Self {
        Self::new(ProviderErrorKind::HostBrowserNotFound, message)
    }

    /// The operation makes no sense for this provider.
    pub fn refused(message: impl Into<String>) -> Self {
        Self::new(ProviderErrorKind::Refused, message)
    }

    /// Keeps `cause` for the log.
    pub(crate) fn caused_by(
        mut self,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(std::sync::Arc::new(cause));
        self
    }

    /// The message for a person.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The chain of causes, for the log only (`None` without a cause).
    pub(crate) fn detail(&self) -> Option<String> {
        let mut cause = std::error::Error::source(self)?;
        let mut parts = vec![cause.to_string()];
        while let Some(next) = cause.source() {
            parts.push(next.to_string());
            cause = next;
        }
        Some(parts.join(": "))
    }
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ProviderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A cause known only as text (e.g. an engine's build output), kept for the log.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Detail(pub String);

/// What an OS error means, in words for a person (the raw text goes to the log as the cause).
pub(crate) fn io_reason(error: &std::io::Error) -> &'static str {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::NotFound => "it is not there",
        ErrorKind::PermissionDenied => "permission denied",
        ErrorKind::AlreadyExists => "something else is in the way",
        ErrorKind::StorageFull => "the disk is full",
        ErrorKind::ReadOnlyFilesystem => "the file system is read-only",
        ErrorKind::NotADirectory => "a file is in the way of a directory",
        ErrorKind::IsADirectory => "a directory is in the way",
        _ => "the system refused",
    }
}

/// Starts and stops the browser of a channel in one mode.
#[async_trait]
pub trait BrowserProvider: Send + Sync + 'static {
    /// The mode this provider serves.
    fn mode(&self) -> Mode;

    /// What sessions over this provider's browsers must know (default: Porthole's own browser).
    fn terms(&self) -> BrowserTerms {
        BrowserTerms::OWNED
    }

    /// Where the channel's browser saves downloads (default: the daemon's own directory).
    fn downloads(&self, _channel: &ChannelId) -> DownloadPlace {
        DownloadPlace::Daemon
    }

    /// Makes sure the channel's browser runs and returns its endpoint.
    async fn ensure_browser(
        &self,
        channel: &ChannelId,
        progress: ProgressFn,
    ) -> Result<Endpoint, ProviderError>;

    /// Stops the channel's browser (host mode: forgets it, never stops the user's Chrome).
    async fn stop_browser(&self, channel: &ChannelId) -> Result<Stopped, ProviderError>;

    /// Whether the idle stop pauses this provider's browsers instead of stopping them (the
    /// caller leaves the browser on one blank tab first). Default: no.
    fn pauses_when_idle(&self) -> bool {
        false
    }

    /// The idle stop: pauses the channel's browser where this provider does (see
    /// [`BrowserProvider::pauses_when_idle`]), else stops it.
    async fn idle_browser(&self, channel: &ChannelId) -> Result<Stopped, ProviderError> {
        self.stop_browser(channel).await
    }

    /// Channels whose browser has been paused for the provider's whole pause window: the
    /// idle monitor stops them with [`BrowserProvider::stop_paused`].
    fn paused_too_long(&self) -> Vec<ChannelId> {
        Vec::new()
    }

    /// Stops the channel's browser if it is still paused (a start since then resumed it:
    /// nothing to do).
    async fn stop_paused(&self, _channel: &ChannelId) -> Result<Stopped, ProviderError> {
        Ok(Stopped::NotRunning)
    }

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
