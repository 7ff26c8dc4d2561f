//! Importing cookies from the user's own browsers into a channel's running browser.
//!
//! Owns: which profiles the daemon searches (`browser.cookie_import.home`), listing their
//! scopes for the API, resolving a source id, reading the chosen scopes off the async runtime,
//! installing them with CDP `Storage.setCookies` (`install.rs`), remembering a channel's chosen
//! source and scope list (names only) in the state database, and the auto replay into every
//! freshly started browser (`browser.cookie_import.auto`).
//!
//! Must not: log, return or store a cookie value (only counts, names and scopes ever leave
//! this module); touch a browser profile's files (that is `cookies`' job, which only reads
//! private copies); import into host mode (the caller refuses it: the profile is the user's).
//!
//! Decisions:
//! - An import asked for through the API is strict: every requested scope must exist in the
//!   source, else nothing is read ([`crate::cookies::CookieError::UnknownScopes`]).
//! - The auto replay is lenient about scopes that have since disappeared from the source (the
//!   user signed out of a site): it imports the rest and warns naming the missing ones.
//! - The auto replay uses the channel's own last import when there is one, else the configured
//!   `source`/`domains`; with neither it does nothing.

mod install;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures_util::FutureExt;

use crate::browser::BrowserSession;
use crate::cdp::CdpError;
use crate::channels::StartHook;
use crate::config::CookieImportConfig;
use crate::cookies::{
    discover_sources, list_scopes, read_cookies, CookieError, CookieSource, Discovery, Platform,
    ReadOutcome, ScopeCount,
};
use crate::providers::ProgressFn;
use crate::state::{CookieChoice, StateDb};

/// Longest an auto replay may hold up a browser start (keyring prompts time out at 15 s).
const REPLAY_DEADLINE: Duration = Duration::from_secs(45);

/// A cookie Chrome would not take, named without its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Cookie name.
    pub name: String,
    /// The scope it was read from.
    pub scope: String,
    /// What Chrome said.
    pub reason: String,
}

/// Why an import failed. Messages name the source and say what to do; none carries a value.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The source id is not among the profiles found.
    #[error(
        "no browser profile {source_id:?} was found on this computer; GET \
         /api/browser/cookies/sources lists the profiles Porthole can read"
    )]
    UnknownSource {
        /// The id asked for.
        source_id: String,
    },
    /// The daemon cannot tell where the user's browser profiles live.
    #[error(
        "the daemon does not know its user's home directory, so it finds no browser profiles; \
         set browser.cookie_import.home"
    )]
    NoHome,
    /// No scope was chosen.
    #[error("{source_id}: no cookie scopes chosen; tick at least one scope to import")]
    NoScopes {
        /// Source id.
        source_id: String,
    },
    /// Reading the source failed (missing, locked, corrupt, keyring, …).
    #[error(transparent)]
    Read(#[from] CookieError),
    /// Chrome refused some cookies; the others went in.
    #[error(
        "{source_id}: the browser refused {} of {total} cookies ({}); the other {installed} \
         were installed — leave those scopes out, or import them again after fixing them in \
         the source browser",
        refused.len(),
        describe(refused)
    )]
    Refused {
        /// Source id.
        source_id: String,
        /// Each refused cookie.
        refused: Vec<Refusal>,
        /// How many were installed.
        installed: usize,
        /// How many were sent.
        total: usize,
    },
    /// The browser went away or stopped answering in the middle of the import.
    #[error(
        "{source_id}: installing cookies stopped after {installed} of {total} ({error}); open \
         the channel again and repeat the import"
    )]
    Install {
        /// Source id.
        source_id: String,
        /// How many were installed before.
        installed: usize,
        /// How many were to be installed.
        total: usize,
        /// The CDP failure.
        error: CdpError,
    },
    /// The blocking reader task died (a bug).
    #[error("reading cookies was interrupted ({0})")]
    Task(String),
}

/// Why replaying a channel's cookie choice into its new browser failed (a warning in the log
/// and a `cookies_failed` notice to the pane, never an error for the channel).
#[derive(Debug, thiserror::Error)]
enum ReplayError {
    /// The import itself failed.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The import took longer than [`REPLAY_DEADLINE`].
    #[error("{source_id}: the import did not finish within {REPLAY_DEADLINE:?}")]
    TimedOut {
        /// Source id.
        source_id: String,
    },
}

fn describe(refused: &[Refusal]) -> String {
    refused
        .iter()
        .map(|r| format!("{:?} on {}: {}", r.name, r.scope, r.reason))
        .collect::<Vec<_>>()
        .join("; ")
}

impl ImportError {
    /// A stable snake_case code for the API.
    pub fn code(&self) -> &'static str {
        match self {
            ImportError::UnknownSource { .. } => "unknown_cookie_source",
            ImportError::NoHome => "no_home_directory",
            ImportError::NoScopes { .. } => "no_scopes",
            ImportError::Read(e) => e.code(),
            ImportError::Refused { .. } => "cookies_refused",
            ImportError::Install { .. } => "cookie_install_failed",
            ImportError::Task(_) => "internal",
        }
    }
}

/// What an import did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImportOutcome {
    /// Cookies installed into the channel's browser.
    pub imported: usize,
    /// Session cookies left out.
    pub skipped_session: usize,
    /// Expired cookies left out.
    pub skipped_expired: usize,
}

/// One profile and its scopes (or why they could not be listed).
#[derive(Debug)]
pub struct SourceListing {
    /// The profile.
    pub source: CookieSource,
    /// Its scopes, folded and busiest first; an error for this profile alone.
    pub scopes: Result<Vec<ScopeCount>, CookieError>,
}

/// The cookie importer of a daemon.
pub struct CookieImporter {
    /// `None` when the home directory is unknown.
    discovery: Option<Discovery>,
    /// `browser.cookie_import.source` / `domains`, when both are set.
    configured: Option<CookieChoice>,
    auto: bool,
    state: Arc<StateDb>,
}

impl CookieImporter {
    /// Builds the importer from `browser.cookie_import`.
    pub fn new(config: &CookieImportConfig, state: Arc<StateDb>) -> Self {
        let discovery = match &config.home {
            Some(home) => Some(Discovery::for_home(Platform::current(), home)),
            None => Discovery::from_env(),
        };
        let configured = config
            .source
            .as_ref()
            .filter(|_| !config.domains.is_empty())
            .map(|source| CookieChoice {
                source: source.clone(),
                domains: config.domains.clone(),
            });
        Self {
            discovery,
            configured,
            auto: config.auto,
            state,
        }
    }

    /// True when imports replay into every freshly started browser.
    pub fn auto(&self) -> bool {
        self.auto
    }

    /// Every profile found, with its scopes. Never reads a value.
    pub async fn sources(&self) -> Result<Vec<SourceListing>, ImportError> {
        let discovery = self.discovery.clone().ok_or(ImportError::NoHome)?;
        blocking(move || {
            discover_sources(&discovery)
                .into_iter()
                .map(|source| {
                    let scopes = list_scopes(&source);
                    if let Err(error) = &scopes {
                        tracing::info!(event = "cookie_source_unreadable", source = %source.id, %error);
                    }
                    SourceListing { source, scopes }
                })
                .collect()
        })
        .await
    }

    async fn find_source(&self, source_id: &str) -> Result<CookieSource, ImportError> {
        let discovery = self.discovery.clone().ok_or(ImportError::NoHome)?;
        let id = source_id.to_owned();
        blocking(move || {
            discover_sources(&discovery)
                .into_iter()
                .find(|s| s.id == id)
        })
        .await?
        .ok_or_else(|| ImportError::UnknownSource {
            source_id: source_id.to_owned(),
        })
    }

    /// Imports exactly `scopes` of `source_id` into `session`'s browser and remembers the
    /// choice (names only) for the channel. Every scope must exist in the source.
    pub async fn import(
        &self,
        session: &BrowserSession,
        source_id: &str,
        scopes: &[String],
    ) -> Result<ImportOutcome, ImportError> {
        let scopes = dedup(scopes);
        if scopes.is_empty() {
            return Err(ImportError::NoScopes {
                source_id: source_id.to_owned(),
            });
        }
        let source = self.find_source(source_id).await?;
        let read = {
            let (source, scopes) = (source.clone(), scopes.clone());
            blocking(move || read_cookies(&source, &scopes, SystemTime::now())).await??
        };
        let outcome = self.install(session, &source, read).await?;
        let choice = CookieChoice {
            source: source.id.clone(),
            domains: scopes,
        };
        if let Err(error) = self.state.set_cookie_choice(session.channel(), &choice) {
            tracing::warn!(event = "state_write_failed", %error);
        }
        Ok(outcome)
    }

    async fn install(
        &self,
        session: &BrowserSession,
        source: &CookieSource,
        read: ReadOutcome,
    ) -> Result<ImportOutcome, ImportError> {
        let imported = install::install(session.cdp(), &source.id, &read.cookies).await?;
        let outcome = ImportOutcome {
            imported,
            skipped_session: read.skipped_session,
            skipped_expired: read.skipped_expired,
        };
        tracing::info!(
            event = "cookies_imported",
            channel_id = %session.channel(),
            source = %source.id,
            imported = outcome.imported,
            skipped_session = outcome.skipped_session,
            skipped_expired = outcome.skipped_expired,
        );
        Ok(outcome)
    }

    /// The choice the auto replay uses for `session`'s channel.
    fn replay_choice(&self, session: &BrowserSession) -> Option<CookieChoice> {
        let stored = match self.state.cookie_choice(session.channel()) {
            Ok(stored) => stored,
            Err(error) => {
                tracing::warn!(event = "state_unreadable", %error);
                None
            }
        };
        stored
            .filter(|c| !c.domains.is_empty())
            .or_else(|| self.configured.clone())
    }

    /// Replays the channel's choice into a freshly started browser. Never fails: problems are
    /// a warning in the log and a `progress` notice (stage `cookies_failed`) to the pane.
    pub async fn replay(&self, session: Arc<BrowserSession>, progress: ProgressFn) {
        // The user's own browser keeps its own cookies.
        if session.ownership() == crate::browser::Ownership::OwnTabs {
            return;
        }
        let Some(choice) = self.replay_choice(&session) else {
            tracing::debug!(event = "cookie_replay_nothing_chosen");
            return;
        };
        progress(
            "cookies",
            &format!("Importing cookies from {}", choice.source),
        );
        let run = self.replay_choice_into(&session, &choice);
        let result = match tokio::time::timeout(REPLAY_DEADLINE, run).await {
            Ok(result) => result,
            Err(_) => Err(ReplayError::TimedOut {
                source_id: choice.source.clone(),
            }),
        };
        match result {
            Ok(message) => progress("cookies", &message),
            Err(message) => {
                tracing::warn!(event = "cookie_replay_failed", source = %choice.source, error = %message);
                progress(
                    "cookies_failed",
                    &format!("Cookie import skipped: {message}. The browser started without them."),
                );
            }
        }
    }

    /// Returns the line for the pane on success, the error message otherwise.
    async fn replay_choice_into(
        &self,
        session: &BrowserSession,
        choice: &CookieChoice,
    ) -> Result<String, ReplayError> {
        let source = self.find_source(&choice.source).await?;
        let wanted = choice.domains.clone();
        let (read, missing) = {
            let source = source.clone();
            blocking(move || -> Result<(ReadOutcome, Vec<String>), CookieError> {
                let present: BTreeSet<String> =
                    list_scopes(&source)?.into_iter().map(|r| r.scope).collect();
                let (here, missing): (Vec<String>, Vec<String>) =
                    wanted.into_iter().partition(|s| present.contains(s));
                let read = if here.is_empty() {
                    ReadOutcome::default()
                } else {
                    read_cookies(&source, &here, SystemTime::now())?
                };
                Ok((read, missing))
            })
            .await?
            .map_err(ImportError::Read)?
        };
        if !missing.is_empty() {
            tracing::warn!(event = "cookie_replay_scopes_missing", source = %source.id, missing = %missing.join(", "));
        }
        let outcome = self.install(session, &source, read).await?;
        let mut line = format!(
            "Imported {} cookies from {} ({} session, {} expired skipped)",
            outcome.imported, source.id, outcome.skipped_session, outcome.skipped_expired
        );
        if !missing.is_empty() {
            line.push_str(&format!(
                "; no longer in the source: {}",
                missing.join(", ")
            ));
        }
        Ok(line)
    }

    /// The hook `ChannelService` runs after every fresh browser start (auto replay).
    pub fn start_hook(self: &Arc<Self>) -> StartHook {
        let importer = self.clone();
        Arc::new(move |session, progress| {
            let importer = importer.clone();
            async move { importer.replay(session, progress).await }.boxed()
        })
    }
}

/// Order kept, duplicates dropped.
fn dedup(scopes: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    scopes
        .iter()
        .filter(|s| seen.insert(s.as_str()))
        .cloned()
        .collect()
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ImportError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ImportError::Task(e.to_string()))
}

#[cfg(all(test, target_os = "linux"))]
mod tests;
