//! The browser providers a daemon offers (local, host, and docker where an engine answers)
//! and the mode new channels get when the configured one is not available.

use std::path::Path;
use std::sync::Arc;

use crate::config::Config;
use crate::mode::Mode;
use crate::providers::docker::DockerProvider;
use crate::providers::host::{HostProvider, HostSettings};
use crate::providers::local::{LocalProvider, LocalSettings};
use crate::providers::BrowserProvider;

/// The providers, started.
pub(super) struct Browsers {
    pub providers: Vec<Arc<dyn BrowserProvider>>,
    pub docker: Option<Arc<DockerProvider>>,
    /// Why docker mode is off, when it is.
    pub docker_unavailable: Option<String>,
    /// The configured default mode, or local mode when that is docker and no engine answers.
    pub default_mode: Mode,
}

impl Browsers {
    /// Makes every provider; connects to the Docker engine (building the sidecar image now when
    /// docker is the default mode).
    pub async fn start(config: &Config, data_dir: &Path, screen: (u32, u32)) -> Self {
        let local: Arc<dyn BrowserProvider> = Arc::new(LocalProvider::new(LocalSettings {
            chromium_path: config.browser.chromium_path.clone(),
            profiles_dir: super::Paths {
                data_dir: data_dir.to_path_buf(),
            }
            .profiles_dir(),
            persist_profile: config.browser.persist_profile,
            screen,
            extra_args: config.browser.chromium_args.clone(),
        }));
        let host: Arc<dyn BrowserProvider> = Arc::new(HostProvider::new(HostSettings {
            user_data_dirs: config.browser.host.user_data_dirs.clone(),
            port: config.browser.host.port,
        }));
        let build_now = config.browser.default_mode == Mode::Docker;
        let (docker, docker_unavailable) = match crate::providers::docker::start_provider(
            &config.browser,
            data_dir,
            screen,
            build_now,
        )
        .await
        {
            Ok(provider) => (Some(provider), None),
            Err(why) => (None, Some(why)),
        };
        let mut providers = vec![local, host];
        if let Some(provider) = &docker {
            providers.push(provider.clone());
        }
        let default_mode = match config.browser.default_mode {
            Mode::Docker if docker.is_none() => {
                tracing::warn!(
                    event = "docker_unavailable",
                    "docker mode is not available (no Docker engine answers); channels run in local mode"
                );
                Mode::Local
            }
            mode => mode,
        };
        Self {
            providers,
            docker,
            docker_unavailable,
            default_mode,
        }
    }
}
