//! ChannelService: one BrowserSession per (channel, mode), started on demand through the
//! mode's provider, counted panes, stop/reset/delete, and the channel list.
//!
//! Slow start work is serialised per (channel, mode) with its own async lock, so one channel's
//! start never stalls another; the registry itself sits behind a short std mutex.
//!
//! A channel exists while it is recorded in the state database (`channel_mode`): a pane or the
//! owner token starting it, a mode switch, or an agent added to it records it; `delete` forgets
//! it with its agents. An agent's call never records one ([`ChannelService::start_existing`]),
//! and a new channel whose id differs from a recorded one only in case is refused (the two
//! would share directories on a case-insensitive file system).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::Serialize;
use tracing::Instrument;

use crate::browser::{BrowserSession, Ownership, SessionError};
use crate::cdp::CdpConnection;
use crate::channel_id::ChannelId;
use crate::mode::Mode;
use crate::providers::{
    BrowserProvider, BrowserTerms, CdpAddress, ProgressFn, ProviderError, Removed,
};
use crate::state::StateDb;

/// A failed channel operation; the message is for a person.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ChannelError {
    #[error("{mode} mode is not available here: {why}")]
    ModeUnavailable { mode: Mode, why: String },
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("channel {0} is in host mode: its profile is your own Chrome's, so Porthole will not reset, delete or import into it; switch the channel to docker mode first")]
    HostProfile(ChannelId),
    #[error("channel {0} does not exist: it was deleted, or nobody opened it or added an agent to it. An agent cannot create a channel; ask the person who runs Porthole to open it (or add the agent again)")]
    UnknownChannel(ChannelId),
    #[error("channel {asked} differs from the existing channel {existing} only in case; on a case-insensitive file system the two would share one profile, so use {existing} or another name")]
    CaseClash {
        asked: ChannelId,
        existing: ChannelId,
    },
    #[error("the daemon could not save its state; check the data directory (disk full, permissions) and try again")]
    State(#[source] Arc<crate::state::StateError>),
}

/// One row of `GET /api/browser/channels`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ChannelSummary {
    pub channel_id: String,
    pub mode: Mode,
    pub running: bool,
    pub panes: usize,
    pub tabs: usize,
}

#[derive(Default)]
struct Entry {
    /// Serialises start/stop of this (channel, mode).
    lifecycle: tokio::sync::Mutex<()>,
    /// Short lock, never held across an await.
    session: Mutex<Option<Arc<BrowserSession>>>,
    panes: AtomicUsize,
    /// Agent tool calls in flight (they keep the channel alive like panes).
    agent_calls: AtomicUsize,
    /// When the last pane left (or the session started without one). Short lock.
    idle_since: Mutex<Option<Instant>>,
}

impl Entry {
    fn live_session(&self) -> Option<Arc<BrowserSession>> {
        self.session
            .lock()
            .expect("session slot lock")
            .clone()
            .filter(|s| s.is_alive())
    }
}

/// Settings the service needs from the config.
#[derive(Debug, Clone)]
pub struct ChannelSettings {
    /// Mode of a channel that never chose one (already resolved to an available mode).
    pub default_mode: Mode,
    pub screen: (u32, u32),
    pub idle_timeout: Duration,
    /// Why docker mode is off, for a person (the engine did not answer at start, or
    /// `browser.docker` is wrong); `None` when it is on or was never tried.
    pub docker_unavailable: Option<String>,
    /// Where channels' download directories go (`<data_dir>/downloads`).
    pub downloads_root: Option<std::path::PathBuf>,
    /// `browser.downloads_max_mb`.
    pub download_limits: crate::browser::DownloadLimits,
    /// How long the tools' settle waits (`tools.*`).
    pub settle: crate::browser::SettleLimits,
    /// How the person is reached without a pane (`/api/events`, `notify.command`).
    pub reach: crate::reach::Reach,
}

/// Work run after every fresh browser start, before the session is handed out (the cookie
/// auto replay). It must not fail the start: it reports through the progress callback.
pub type StartHook = Arc<
    dyn Fn(Arc<BrowserSession>, ProgressFn) -> futures_util::future::BoxFuture<'static, ()>
        + Send
        + Sync,
>;

/// Owns every channel's browser sessions.
pub struct ChannelService {
    providers: HashMap<Mode, Arc<dyn BrowserProvider>>,
    settings: ChannelSettings,
    /// Short lock, never held across an await.
    entries: Mutex<HashMap<(ChannelId, Mode), Arc<Entry>>>,
    /// The mode each known channel is in. Short lock.
    modes: Mutex<BTreeMap<ChannelId, Mode>>,
    /// Where modes survive a restart.
    state: Arc<StateDb>,
    /// Run after each fresh start (see [`StartHook`]); set once at assembly.
    start_hook: OnceLock<StartHook>,
    /// Agents whose tabs went away with their browser, and why (told on their next call).
    /// Short lock.
    lost_tabs: Mutex<HashMap<(ChannelId, String), String>>,
    /// Each channel's recorded history (set once at assembly): told of new sessions and mode
    /// switches, removed with the profile.
    timeline: OnceLock<Arc<crate::timeline::Timeline>>,
}

/// Held while an agent's tool call runs; dropping it starts the idle count anew.
pub struct AgentCallGuard {
    entry: Arc<Entry>,
}

impl Drop for AgentCallGuard {
    fn drop(&mut self) {
        self.entry.agent_calls.fetch_sub(1, Ordering::SeqCst);
        *self.entry.idle_since.lock().expect("idle lock") = Some(Instant::now());
    }
}

/// Held while a pane watches a channel; dropping it lets the idle monitor count down.
pub struct PaneGuard {
    entry: Arc<Entry>,
}

impl Drop for PaneGuard {
    fn drop(&mut self) {
        if self.entry.panes.fetch_sub(1, Ordering::SeqCst) == 1 {
            *self.entry.idle_since.lock().expect("idle lock") = Some(Instant::now());
        }
    }
}

/// How long a browser that was already running has to answer before it is replaced.
const STALE_BROWSER_DEADLINE: Duration = Duration::from_secs(2);
/// How long closing Porthole's tabs in the user's Chrome may take at stop.
const CLOSE_TABS_DEADLINE: Duration = Duration::from_secs(5);

impl ChannelService {
    /// Creates the service; channels remembered in `state` come back in their saved mode (or
    /// the default mode, for those that follow it), so a restart forgets none.
    pub fn new(
        providers: Vec<Arc<dyn BrowserProvider>>,
        settings: ChannelSettings,
        state: Arc<StateDb>,
    ) -> Self {
        let modes = match state.recorded_channels() {
            Ok(recorded) => recorded
                .into_iter()
                .map(|(channel, mode)| (channel, mode.unwrap_or(settings.default_mode)))
                .collect(),
            Err(error) => {
                tracing::warn!(event = "state_unreadable", %error);
                BTreeMap::new()
            }
        };
        Self {
            providers: providers.into_iter().map(|p| (p.mode(), p)).collect(),
            settings,
            entries: Mutex::new(HashMap::new()),
            modes: Mutex::new(modes),
            state,
            start_hook: OnceLock::new(),
            lost_tabs: Mutex::new(HashMap::new()),
            timeline: OnceLock::new(),
        }
    }

    /// Counts an agent's tool call on the channel (in its current mode) until the guard
    /// drops: a channel is idle only when no pane is attached and no agent has acted for the
    /// idle timeout.
    pub fn agent_call(&self, channel: &ChannelId) -> AgentCallGuard {
        let entry = self.entry(channel, self.mode_of(channel));
        entry.agent_calls.fetch_add(1, Ordering::SeqCst);
        AgentCallGuard { entry }
    }

    /// Remembers that `agent_id` lost its tabs on `channel` (for example at a daemon
    /// restart), unless a more precise reason is already known.
    pub fn note_lost_tabs(&self, channel: &ChannelId, agent_id: &str, reason: &str) {
        self.lost_tabs
            .lock()
            .expect("lost tabs lock")
            .entry((channel.clone(), agent_id.to_string()))
            .or_insert_with(|| reason.to_string());
    }

    /// Why `agent_id`'s tabs on `channel` went away since its last call, once.
    pub fn take_lost_tabs(&self, channel: &ChannelId, agent_id: &str) -> Option<String> {
        self.lost_tabs
            .lock()
            .expect("lost tabs lock")
            .remove(&(channel.clone(), agent_id.to_string()))
    }

    /// Records, for every agent with tabs in an ended session, why they are gone.
    fn retire(&self, session: &BrowserSession, reason: &str) {
        for agent_id in session.agent_tabs().agents_with_tabs() {
            tracing::info!(event = "agent_tabs_lost", channel_id = %session.channel(), %agent_id, reason);
            self.note_lost_tabs(session.channel(), &agent_id, reason);
        }
    }

    /// Installs the hook run after every fresh browser start (once; later calls are ignored).
    pub fn set_start_hook(&self, hook: StartHook) {
        let _ = self.start_hook.set(hook);
    }

    /// Installs the timeline (once; later calls are ignored).
    pub fn set_timeline(&self, timeline: Arc<crate::timeline::Timeline>) {
        let _ = self.timeline.set(timeline);
    }

    /// Removes the channel's timeline (with its profile).
    fn forget_timeline(&self, channel: &ChannelId) {
        if let Some(Err(error)) = self.timeline.get().map(|t| t.remove(channel)) {
            tracing::warn!(event = "timeline_not_removed", channel_id = %channel, %error);
        }
    }

    /// The daemon's durable state.
    pub fn state(&self) -> &Arc<StateDb> {
        &self.state
    }

    fn remember_mode(&self, channel: &ChannelId, mode: Mode) {
        let previous = self
            .modes
            .lock()
            .expect("modes lock")
            .insert(channel.clone(), mode);
        if let (Some(previous), Some(timeline)) = (previous, self.timeline.get()) {
            if previous != mode {
                timeline.mode_changed(channel, mode);
            }
        }
        if previous != Some(mode) {
            if let Err(error) = self.state.set_mode(channel, mode) {
                tracing::warn!(event = "state_write_failed", %error);
            }
        }
    }

    /// The mode used for channels that never chose one.
    pub fn default_mode(&self) -> Mode {
        self.settings.default_mode
    }

    /// Modes this daemon can run.
    pub fn has_mode(&self, mode: Mode) -> bool {
        self.providers.contains_key(&mode)
    }

    /// The mode a channel is in.
    pub fn mode_of(&self, channel: &ChannelId) -> Mode {
        self.modes
            .lock()
            .expect("modes lock")
            .get(channel)
            .copied()
            .unwrap_or(self.settings.default_mode)
    }

    /// Records the mode a channel uses from now on.
    pub fn set_mode(&self, channel: &ChannelId, mode: Mode) -> Result<(), ChannelError> {
        self.provider(mode)?;
        self.check_new_id(channel)?;
        self.remember_mode(channel, mode);
        Ok(())
    }

    /// True when the channel exists (see the module doc): recorded by this daemon, or in the
    /// state database by `porthole agent add` since the daemon started.
    pub fn exists(&self, channel: &ChannelId) -> bool {
        if self.modes.lock().expect("modes lock").contains_key(channel) {
            return true;
        }
        let recorded = self.state.is_recorded(channel).and_then(|recorded| {
            Ok(match recorded {
                true => Some(self.state.mode_of(channel)?),
                false => None,
            })
        });
        match recorded {
            Ok(Some(mode)) => {
                let mode = mode.unwrap_or(self.settings.default_mode);
                self.modes
                    .lock()
                    .expect("modes lock")
                    .entry(channel.clone())
                    .or_insert(mode);
                true
            }
            Ok(None) => false,
            Err(error) => {
                tracing::warn!(event = "state_unreadable", %error);
                false
            }
        }
    }

    /// Refuses a channel that does not exist yet when its id differs from an existing one's
    /// only in case.
    fn check_new_id(&self, channel: &ChannelId) -> Result<(), ChannelError> {
        if self.exists(channel) {
            return Ok(());
        }
        let known = self
            .modes
            .lock()
            .expect("modes lock")
            .keys()
            .find(|k| k.clashes_with(channel))
            .cloned();
        let existing = match known {
            Some(known) => Some(known),
            None => self.state.case_clash(channel).unwrap_or_else(|error| {
                tracing::warn!(event = "state_unreadable", %error);
                None
            }),
        };
        match existing {
            Some(existing) => {
                tracing::info!(event = "channel_case_clash", channel_id = %channel, %existing);
                Err(ChannelError::CaseClash {
                    asked: channel.clone(),
                    existing,
                })
            }
            None => Ok(()),
        }
    }

    /// Switches a channel's mode when that mode can run now (host: a Chrome with remote
    /// debugging answers); otherwise the channel stays in its mode and the error says why.
    pub async fn switch_mode(&self, channel: &ChannelId, mode: Mode) -> Result<(), ChannelError> {
        self.provider(mode)?.check_available().await?;
        self.set_mode(channel, mode)
    }

    fn provider(&self, mode: Mode) -> Result<Arc<dyn BrowserProvider>, ChannelError> {
        self.providers
            .get(&mode)
            .cloned()
            .ok_or_else(|| ChannelError::ModeUnavailable {
                mode,
                why: match mode {
                    Mode::Docker => self
                        .settings
                        .docker_unavailable
                        .clone()
                        .unwrap_or_else(|| "no Docker engine answers".to_string()),
                    _ => "this daemon was not started with it".to_string(),
                },
            })
    }

    fn entry(&self, channel: &ChannelId, mode: Mode) -> Arc<Entry> {
        self.entries
            .lock()
            .expect("entries lock")
            .entry((channel.clone(), mode))
            .or_default()
            .clone()
    }

    /// Returns the running session of a channel in `mode` (its current mode when `None`),
    /// starting the browser when it does not run; a channel that does not exist is made (the
    /// owner's pane or token).
    pub async fn start(
        &self,
        channel: &ChannelId,
        mode: Option<Mode>,
        progress: ProgressFn,
    ) -> Result<Arc<BrowserSession>, ChannelError> {
        self.check_new_id(channel)?;
        self.start_in(channel, mode, progress, true).await
    }

    /// As [`ChannelService::start`] in the channel's current mode, but a channel that does not
    /// exist (never made, or deleted, even while this call waited) is an error, never made:
    /// an agent's call.
    pub async fn start_existing(
        &self,
        channel: &ChannelId,
        progress: ProgressFn,
    ) -> Result<Arc<BrowserSession>, ChannelError> {
        if !self.exists(channel) {
            return Err(ChannelError::UnknownChannel(channel.clone()));
        }
        self.start_in(channel, None, progress, false).await
    }

    async fn start_in(
        &self,
        channel: &ChannelId,
        mode: Option<Mode>,
        progress: ProgressFn,
        create: bool,
    ) -> Result<Arc<BrowserSession>, ChannelError> {
        let mode = mode.unwrap_or_else(|| self.mode_of(channel));
        let provider = self.provider(mode)?;
        let entry = self.entry(channel, mode);
        let asked = Instant::now();
        let _lifecycle = entry.lifecycle.lock().await;
        // Under the lifecycle lock: a delete that ran while this call waited forgot the
        // channel first, so an agent's call cannot bring it back.
        if !create && !self.exists(channel) {
            return Err(ChannelError::UnknownChannel(channel.clone()));
        }
        if let Some(session) = entry.live_session() {
            self.remember_mode(channel, mode);
            return Ok(session);
        }
        let waited = asked.elapsed();
        // A session that ended on its own (the browser crashed or was killed).
        let dead = entry.session.lock().expect("session slot lock").take();
        if let Some(dead) = dead {
            let reason = dead.end_reason().unwrap_or_else(|| "browser_gone".into());
            self.retire(&dead, &reason);
        }
        let span = tracing::info_span!("channel", channel_id = %channel, %mode);
        // A failed start (host: Chrome not there) leaves the channel in the mode it was in.
        let (session, fresh) = self
            .launch(channel, mode, provider, progress.clone())
            .instrument(span.clone())
            .await?;
        self.remember_mode(channel, mode);
        let hooked = Instant::now();
        if let (true, Some(hook)) = (fresh, self.start_hook.get()) {
            // Under the lifecycle lock: nobody gets the browser before the hook is done.
            hook(session.clone(), progress)
                .instrument(span.clone())
                .await;
        }
        // The start's time outside `session_started`: waiting for the lifecycle lock (a stop
        // of this channel still running) and the start hook (`porthole-bench docker`).
        span.in_scope(|| {
            tracing::info!(
                event = "channel_started",
                waited_ms = waited.as_millis() as u64,
                hook_ms = hooked.elapsed().as_millis() as u64,
                fresh
            )
        });
        if let Some(timeline) = self.timeline.get() {
            timeline.watch_session(&session);
        }
        *entry.session.lock().expect("session slot lock") = Some(session.clone());
        *entry.idle_since.lock().expect("idle lock") = Some(Instant::now());
        Ok(session)
    }

    /// Starts (or finds) the browser and opens a session on it; a browser that was running but
    /// does not answer is replaced once. True with the session when the browser was started
    /// just now.
    async fn launch(
        &self,
        channel: &ChannelId,
        mode: Mode,
        provider: Arc<dyn BrowserProvider>,
        progress: ProgressFn,
    ) -> Result<(Arc<BrowserSession>, bool), ChannelError> {
        let started = Instant::now();
        let mut retried = false;
        let terms = provider.terms();
        let session = loop {
            let asked = Instant::now();
            let endpoint = provider
                .ensure_browser(channel, progress.clone())
                .await
                .inspect_err(|error| {
                    // The person sees `error`; the engine's own words stay here.
                    tracing::warn!(event = "browser_start_failed", channel_id = %channel, %error, detail = error.detail().unwrap_or_default());
                })?;
            let provider_ms = asked.elapsed().as_millis() as u64;
            progress("connecting", "Connecting to the browser");
            // A browser we did not just start should answer at once; if it does not, it is a
            // dying one (crashed, killed) and gets replaced by a fresh start. The user's own
            // may hold the handshake until they allow it.
            let deadline = if endpoint.fresh || terms.users_own {
                terms.connect_deadline
            } else {
                STALE_BROWSER_DEADLINE
            };
            let opening = self.open_session(
                channel,
                mode,
                terms,
                provider.downloads(channel),
                &endpoint.address,
                deadline,
            );
            // The CDP the opening waited on, in sequence (each a round trip to a far engine).
            let (opened, cdp) = crate::cdp::tallied(opening).await;
            match opened {
                Ok((session, connect_ms, open_ms)) => {
                    break (
                        session,
                        endpoint.fresh,
                        provider_ms,
                        connect_ms,
                        open_ms,
                        cdp,
                    )
                }
                Err(error) => {
                    tracing::warn!(event = "session_open_failed", fresh = endpoint.fresh, %error);
                    let _ = provider.stop_browser(channel).await;
                    // The user's own: never redial on our own; each dial may raise a prompt.
                    if endpoint.fresh || retried || terms.users_own {
                        return Err(error);
                    }
                    retried = true;
                }
            }
        };
        let (session, fresh, provider_ms, connect_ms, open_ms, cdp) = session;
        tracing::info!(
            event = "session_started",
            elapsed_ms = started.elapsed().as_millis() as u64,
            provider_ms,
            connect_ms,
            open_ms,
            open_commands = cdp.commands,
            open_sequential_waits = cdp.rounds
        );
        Ok((session, fresh))
    }

    async fn open_session(
        &self,
        channel: &ChannelId,
        mode: Mode,
        terms: BrowserTerms,
        downloads: crate::providers::DownloadPlace,
        address: &CdpAddress,
        deadline: Duration,
    ) -> Result<(Arc<BrowserSession>, u64, u64), ChannelError> {
        let connecting = Instant::now();
        let cdp = match address {
            CdpAddress::Connected(cdp) => cdp.clone(),
            CdpAddress::WebSocket(ws_url) if terms.users_own => {
                connect_users_chrome(ws_url, deadline).await?
            }
            CdpAddress::WebSocket(ws_url) => connect_with_retry(ws_url, deadline).await?,
        };
        let options = crate::browser::SessionOptions {
            ownership: ownership_of(terms),
            screen: self.settings.screen,
            downloads,
            downloads_root: self.settings.downloads_root.clone(),
            download_limits: self.settings.download_limits.clone(),
            settle: self.settings.settle,
            reach: self.settings.reach.clone(),
        };
        let connect_ms = connecting.elapsed().as_millis() as u64;
        let opening = Instant::now();
        let session = BrowserSession::open(channel.clone(), mode, cdp, options).await?;
        Ok((session, connect_ms, opening.elapsed().as_millis() as u64))
    }

    /// How the person is reached without a pane (every session tells it).
    pub fn reach(&self) -> &crate::reach::Reach {
        &self.settings.reach
    }

    /// Counts a pane on (channel, mode) until the guard drops.
    pub fn attach_pane(&self, channel: &ChannelId, mode: Mode) -> PaneGuard {
        let entry = self.entry(channel, mode);
        entry.panes.fetch_add(1, Ordering::SeqCst);
        *entry.idle_since.lock().expect("idle lock") = None;
        PaneGuard { entry }
    }

    /// Panes attached to the channel in its current mode.
    pub fn pane_count(&self, channel: &ChannelId) -> usize {
        let key = (channel.clone(), self.mode_of(channel));
        self.entries
            .lock()
            .expect("entries lock")
            .get(&key)
            .map(|e| e.panes.load(Ordering::SeqCst))
            .unwrap_or(0)
    }

    /// The live session of the channel in its current mode, if any.
    pub fn current_session(&self, channel: &ChannelId) -> Option<Arc<BrowserSession>> {
        self.session(channel, self.mode_of(channel))
    }

    /// The live session of (channel, mode), if any.
    pub fn session(&self, channel: &ChannelId, mode: Mode) -> Option<Arc<BrowserSession>> {
        let entry = self
            .entries
            .lock()
            .expect("entries lock")
            .get(&(channel.clone(), mode))
            .cloned()?;
        entry.live_session()
    }

    /// Closes the session of (channel, mode) and stops its browser.
    pub async fn stop(
        &self,
        channel: &ChannelId,
        mode: Mode,
        reason: &str,
    ) -> Result<(), ChannelError> {
        let provider = self.provider(mode)?;
        let entry = self.entry(channel, mode);
        let _lifecycle = entry.lifecycle.lock().await;
        let session = entry.session.lock().expect("session slot lock").take();
        if let Some(session) = session {
            // A browser that died before this stop keeps its own reason.
            let why = session.end_reason().unwrap_or_else(|| reason.to_string());
            self.retire(&session, &why);
            close_session(&session, reason).await;
        }
        provider.stop_browser(channel).await?;
        Ok(())
    }

    /// Refuses to touch a profile that is the user's own (the channel's current mode).
    pub fn check_profile_is_ours(&self, channel: &ChannelId) -> Result<(), ChannelError> {
        let users_own = self
            .providers
            .get(&self.mode_of(channel))
            .is_some_and(|p| p.terms().users_own);
        if users_own {
            return Err(ChannelError::HostProfile(channel.clone()));
        }
        Ok(())
    }

    /// Stops the channel's browsers and deletes its profiles in every mode that has one of
    /// ours (a mode switch keeps the other mode's browser and profile, so a reset made in one
    /// mode must clear the other's too); refused in host mode, whose profile is the user's.
    /// `Removed` when any profile was there.
    pub async fn reset_profile(&self, channel: &ChannelId) -> Result<Removed, ChannelError> {
        self.check_profile_is_ours(channel)?;
        let mut removed = Removed::NotFound;
        for provider in self.own_profile_providers() {
            self.stop(channel, provider.mode(), "profile_reset").await?;
            if provider.remove_profile(channel).await? == Removed::Removed {
                removed = Removed::Removed;
            }
        }
        self.forget_downloads(channel);
        self.forget_timeline(channel);
        Ok(removed)
    }

    /// The providers whose profiles are Porthole's own (not the user's Chrome), in a fixed
    /// order.
    fn own_profile_providers(&self) -> Vec<Arc<dyn BrowserProvider>> {
        let mut providers: Vec<_> = self
            .providers
            .values()
            .filter(|p| !p.terms().users_own)
            .cloned()
            .collect();
        providers.sort_by_key(|p| p.mode().as_str());
        providers
    }

    /// Removes the channel's downloads and their list (they go with its profile).
    fn forget_downloads(&self, channel: &ChannelId) {
        let Some(root) = &self.settings.downloads_root else {
            return;
        };
        match std::fs::remove_dir_all(root.join(channel.as_str())) {
            Ok(()) => tracing::info!(event = "downloads_removed", channel_id = %channel),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(event = "downloads_not_removed", channel_id = %channel, error = %e)
            }
        }
    }

    /// Forgets the channel and its agents (their tokens stop working at once); then stops
    /// every browser of the channel and deletes its profiles (never the user's own). Forgotten
    /// first, so an agent call in flight cannot start it again meanwhile; forgotten again at
    /// the end, in case such a call's start was already under way.
    pub async fn delete(&self, channel: &ChannelId) -> Result<(), ChannelError> {
        self.check_profile_is_ours(channel)?;
        self.forget_record(channel)?;
        let providers: Vec<_> = self.providers.values().cloned().collect();
        for provider in providers {
            self.stop(channel, provider.mode(), "channel_deleted")
                .await?;
            if !provider.terms().users_own {
                provider.remove_profile(channel).await?;
            }
        }
        self.forget_downloads(channel);
        self.forget_timeline(channel);
        if let Err(error) = self.forget_record(channel) {
            tracing::warn!(event = "state_write_failed", channel_id = %channel, %error);
        }
        self.entries
            .lock()
            .expect("entries lock")
            .retain(|(id, _), _| id != channel);
        Ok(())
    }

    /// Removes the channel's record and its agents.
    fn forget_record(&self, channel: &ChannelId) -> Result<(), ChannelError> {
        self.modes.lock().expect("modes lock").remove(channel);
        let agents = self
            .state
            .forget(channel)
            .map_err(|error| ChannelError::State(Arc::new(error)))?;
        if agents > 0 {
            tracing::info!(event = "channel_agents_removed", channel_id = %channel, agents);
        }
        Ok(())
    }

    /// Every channel the daemon knows, in its current mode.
    pub fn list(&self) -> Vec<ChannelSummary> {
        let modes = self.modes.lock().expect("modes lock").clone();
        modes
            .into_iter()
            .map(|(channel, mode)| {
                let entry = self.entry(&channel, mode);
                let session = entry.live_session();
                ChannelSummary {
                    channel_id: channel.to_string(),
                    mode,
                    running: session.is_some(),
                    panes: entry.panes.load(Ordering::SeqCst),
                    tabs: session.map(|s| s.tab_count()).unwrap_or(0),
                }
            })
            .collect()
    }

    /// Stops sessions that have had no pane and no agent call for longer than the idle
    /// timeout.
    pub async fn stop_idle(&self) {
        let timeout = self.settings.idle_timeout;
        let idle: Vec<(ChannelId, Mode)> = self
            .entries
            .lock()
            .expect("entries lock")
            .iter()
            .filter(|(_, entry)| {
                entry.panes.load(Ordering::SeqCst) == 0
                    && entry.agent_calls.load(Ordering::SeqCst) == 0
                    && entry.live_session().is_some()
                    && entry
                        .idle_since
                        .lock()
                        .expect("idle lock")
                        .is_some_and(|since| since.elapsed() >= timeout)
            })
            .map(|(key, _)| key.clone())
            .collect();
        for (channel, mode) in idle {
            tracing::info!(event = "idle_stop", channel_id = %channel, %mode);
            if let Err(error) = self.idle_stop(&channel, mode).await {
                tracing::warn!(event = "idle_stop_failed", channel_id = %channel, %error);
            }
        }
        let paused: Vec<(ChannelId, Mode, Arc<dyn BrowserProvider>)> = self
            .providers
            .iter()
            .flat_map(|(mode, provider)| {
                provider
                    .paused_too_long()
                    .into_iter()
                    .map(|channel| (channel, *mode, provider.clone()))
            })
            .collect();
        for (channel, mode, provider) in paused {
            let entry = self.entry(&channel, mode);
            let _lifecycle = entry.lifecycle.lock().await;
            if let Err(error) = provider.stop_paused(&channel).await {
                tracing::warn!(event = "paused_stop_failed", channel_id = %channel, %error);
            }
        }
    }

    /// The idle stop of (channel, mode): the session closes (its agents hear why) and the
    /// browser is paused where the provider does that and the browser could be left on one
    /// blank tab, else stopped.
    async fn idle_stop(&self, channel: &ChannelId, mode: Mode) -> Result<(), ChannelError> {
        let provider = self.provider(mode)?;
        let entry = self.entry(channel, mode);
        let _lifecycle = entry.lifecycle.lock().await;
        // A pane or an agent came while the lock was awaited: no longer idle.
        if entry.panes.load(Ordering::SeqCst) > 0 || entry.agent_calls.load(Ordering::SeqCst) > 0 {
            return Ok(());
        }
        let session = entry.session.lock().expect("session slot lock").take();
        let Some(session) = session else {
            provider.stop_browser(channel).await?;
            return Ok(());
        };
        let why = session.end_reason().unwrap_or_else(|| "idle".to_string());
        self.retire(&session, &why);
        let alive = session.is_alive();
        close_session(&session, "idle").await;
        // After the close: its tab tracking and the timeline have stopped following it, so the
        // tabs closed here are nobody's events; its CDP connection lives until it is dropped.
        let pause = provider.pauses_when_idle() && alive && session.leave_one_blank_tab().await;
        if pause {
            provider.idle_browser(channel).await?;
        } else {
            provider.stop_browser(channel).await?;
        }
        Ok(())
    }

    /// How often the idle monitor looks.
    pub fn idle_check_interval(&self) -> Duration {
        (self.settings.idle_timeout / 4).clamp(Duration::from_millis(100), Duration::from_secs(5))
    }

    /// Closes every session and stops every browser this daemon started.
    pub async fn shutdown(&self) {
        let sessions: Vec<Arc<BrowserSession>> = self
            .entries
            .lock()
            .expect("entries lock")
            .values()
            .filter_map(|entry| entry.session.lock().expect("session slot lock").take())
            .collect();
        for session in &sessions {
            self.retire(session, "daemon_shutdown");
        }
        futures_util::future::join_all(
            sessions
                .iter()
                .map(|session| close_session(session, "daemon_shutdown")),
        )
        .await;
        let providers: Vec<_> = self.providers.values().cloned().collect();
        futures_util::future::join_all(providers.iter().map(|p| p.shutdown())).await;
    }
}

/// Which tabs a session over a browser on `terms` shows.
pub fn ownership_of(terms: BrowserTerms) -> Ownership {
    if terms.users_own {
        Ownership::OwnTabs
    } else {
        Ownership::AllTabs
    }
}

/// Connects to the user's own Chrome (host mode, `mcp-host-browser`): one dial, since each
/// may raise Chrome's permission prompt; a refusal says how to let Porthole in.
pub(crate) async fn connect_users_chrome(
    ws_url: &str,
    deadline: Duration,
) -> Result<CdpConnection, ChannelError> {
    CdpConnection::connect(ws_url, deadline)
        .await
        .map_err(|error| host_connect_error(ws_url, error))
}

/// Closes a session. On the user's Chrome its own tabs are closed first (the user's stay, and
/// so does Chrome); elsewhere the browser is stopped by its provider anyway.
pub(crate) async fn close_session(session: &BrowserSession, reason: &str) {
    if session.ownership() == Ownership::OwnTabs && session.is_alive() {
        match tokio::time::timeout(CLOSE_TABS_DEADLINE, session.close_own_tabs()).await {
            Ok(closed) => {
                tracing::info!(event = "own_tabs_closed", channel_id = %session.channel(), closed)
            }
            Err(_) => {
                tracing::warn!(event = "own_tabs_close_timeout", channel_id = %session.channel())
            }
        }
    }
    session.close(reason);
}

/// The user's Chrome named an endpoint but did not let us in.
fn host_connect_error(ws_url: &str, error: crate::cdp::CdpError) -> ChannelError {
    tracing::warn!(event = "host_connect_failed", %ws_url, %error);
    ChannelError::Provider(
        ProviderError::unavailable(
            "Your Chrome did not accept Porthole's connection. If Chrome asked whether to allow remote debugging, allow it; otherwise open chrome://inspect/#remote-debugging, make sure remote debugging is on, and try again.",
        )
        .caused_by(error),
    )
}

/// Opens the CDP socket, retrying while a just-started browser is still coming up.
async fn connect_with_retry(url: &str, within: Duration) -> Result<CdpConnection, ChannelError> {
    let deadline = Instant::now() + within;
    let mut delay = Duration::from_millis(50);
    loop {
        match CdpConnection::connect(url, Duration::from_secs(5)).await {
            Ok(cdp) => return Ok(cdp),
            Err(error) if Instant::now() + delay < deadline => {
                tracing::debug!(event = "cdp_connect_retry", %error);
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(1));
            }
            Err(error) => return Err(SessionError::Cdp(error).into()),
        }
    }
}
