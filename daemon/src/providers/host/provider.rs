//! HostProvider: gives a channel a session on the user's own running Chrome.
//!
//! Owns only discovery and a record of which channels it served. It never starts, stops or
//! restarts Chrome and never touches its profile: stopping a channel forgets it here, and the
//! channel's `BrowserSession` closes the tabs Porthole opened (never the user's).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Mutex;

use async_trait::async_trait;

use super::discovery::{discover, DiscoveryError};
use crate::channel_id::ChannelId;
use crate::mode::Mode;
use crate::providers::{
    BrowserProvider, BrowserTerms, CdpAddress, DownloadPlace, Endpoint, ProgressFn, ProviderError,
    Removed, Stopped,
};

/// The user's own Chrome: own tabs only, one dial, and a minute for the user to allow it
/// (Chrome 144+ may hold the handshake until they click Allow).
pub const USERS_CHROME: BrowserTerms = BrowserTerms {
    users_own: true,
    connect_deadline: std::time::Duration::from_secs(60),
};

/// Where to look for the user's Chrome (`browser.host.*`).
#[derive(Debug, Clone, Default)]
pub struct HostSettings {
    /// User-data dirs searched for `DevToolsActivePort` before the well-known ones.
    pub user_data_dirs: Vec<PathBuf>,
    /// Remote-debugging port dialled when no `DevToolsActivePort` is found.
    pub port: Option<u16>,
}

/// The provider of `host` mode.
pub struct HostProvider {
    settings: HostSettings,
    /// Channels that got an endpoint and were not stopped since. Short lock.
    served: Mutex<HashSet<ChannelId>>,
}

impl HostProvider {
    pub fn new(settings: HostSettings) -> Self {
        Self {
            settings,
            served: Mutex::new(HashSet::new()),
        }
    }

    async fn find(&self) -> Result<super::discovery::HostChrome, ProviderError> {
        discover(&self.settings.user_data_dirs, self.settings.port)
            .await
            .map_err(|DiscoveryError::NotFound { searched }| {
                tracing::info!(event = "host_chrome_not_found", %searched);
                ProviderError::host_browser_not_found(not_found_message(&searched))
            })
    }
}

/// What a person reads when no Chrome with remote debugging answers.
fn not_found_message(searched: &str) -> String {
    format!(
        "Host mode needs your Chrome running with remote debugging on, and none answered. \
         In Chrome, open chrome://inspect/#remote-debugging and turn on remote debugging \
         (Chrome then writes DevToolsActivePort), keep Chrome open, and try again. \
         Searched: {searched}"
    )
}

#[async_trait]
impl BrowserProvider for HostProvider {
    fn mode(&self) -> Mode {
        Mode::Host
    }

    fn terms(&self) -> BrowserTerms {
        USERS_CHROME
    }

    /// The user's Chrome saves where it always does; only the downloads of our own tabs are
    /// listed, with the path Chrome reports.
    fn downloads(&self, _channel: &ChannelId) -> DownloadPlace {
        DownloadPlace::Watch
    }

    /// Finds the user's Chrome; the session connects to the URL it names directly (never
    /// through `/json`, which Chrome 144+ answers with 404).
    async fn ensure_browser(
        &self,
        channel: &ChannelId,
        progress: ProgressFn,
    ) -> Result<Endpoint, ProviderError> {
        progress(
            "discovering",
            "Looking for your Chrome (DevToolsActivePort)",
        );
        let chrome = self.find().await?;
        tracing::info!(
            event = "host_chrome_found",
            channel_id = %channel,
            user_data_dir = ?chrome.user_data_dir,
        );
        progress(
            "connecting",
            "Connecting to your Chrome; if Chrome asks whether to allow remote debugging, allow it",
        );
        self.served
            .lock()
            .expect("host registry lock")
            .insert(channel.clone());
        Ok(Endpoint {
            address: CdpAddress::WebSocket(chrome.ws_url),
            fresh: false,
        })
    }

    /// Forgets the channel. Chrome keeps running: it is the user's.
    async fn stop_browser(&self, channel: &ChannelId) -> Result<Stopped, ProviderError> {
        let was = self
            .served
            .lock()
            .expect("host registry lock")
            .remove(channel);
        Ok(if was {
            Stopped::Stopped
        } else {
            Stopped::NotRunning
        })
    }

    /// Refused: the profile is the user's own.
    async fn remove_profile(&self, channel: &ChannelId) -> Result<Removed, ProviderError> {
        Err(ProviderError::refused(format!(
            "channel {channel} is in host mode: its profile is your own Chrome's and Porthole never deletes it"
        )))
    }

    /// Nothing to stop: Chrome is the user's. (Sessions close their own tabs.)
    async fn shutdown(&self) {
        self.served.lock().expect("host registry lock").clear();
    }

    async fn check_available(&self) -> Result<(), ProviderError> {
        self.find().await.map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::ProviderErrorKind;

    fn channel(name: &str) -> ChannelId {
        ChannelId::parse(name).unwrap()
    }

    fn empty_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("porthole-host-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[tokio::test]
    async fn missing_chrome_says_what_to_enable() {
        let dir = empty_dir();
        let provider = HostProvider::new(HostSettings {
            user_data_dirs: vec![dir.clone()],
            port: None,
        });
        let progress: ProgressFn = std::sync::Arc::new(|_: &str, _: &str| {});
        let error = provider
            .ensure_browser(&channel("a"), progress)
            .await
            .unwrap_err();
        assert_eq!(
            error.kind,
            ProviderErrorKind::HostBrowserNotFound,
            "{error:?}"
        );
        let message = error.message();
        assert!(
            message.contains("chrome://inspect/#remote-debugging"),
            "{message}"
        );
        assert!(message.contains(&dir.display().to_string()), "{message}");
        assert!(provider.check_available().await.is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn stop_only_forgets_and_profiles_are_never_removed() {
        let provider = HostProvider::new(HostSettings::default());
        provider.served.lock().unwrap().insert(channel("a"));
        assert_eq!(
            provider.stop_browser(&channel("a")).await.unwrap(),
            Stopped::Stopped
        );
        assert_eq!(
            provider.stop_browser(&channel("a")).await.unwrap(),
            Stopped::NotRunning
        );
        assert!(matches!(
            provider.remove_profile(&channel("a")).await,
            Err(ProviderError {
                kind: ProviderErrorKind::Refused,
                ..
            })
        ));
    }
}
