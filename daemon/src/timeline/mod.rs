//! The timeline (DESIGN.md §17): one recorded history per channel of what agents, the person
//! and the page did, with a JPEG of the tab after each tool call (calls within a second of
//! their tab's last capture share the next one, [`pace`]), after each burst of the person's
//! input, and of a watched tab while it changes (at most one a second, [`changes`]). Kept
//! under `<data_dir>/timeline/<channel>/` ([`store`]) within `timeline.max_mb` and
//! `timeline.keep_days`; removed with the profile or the channel.
//!
//! Callers only hand facts over ([`Timeline::tool_call`], [`Timeline::human_input`],
//! [`Timeline::mode_changed`], [`Timeline::watch_session`] for the session's own notices);
//! a recorder task per channel ([`recorder`]) takes the frames and writes, so recording never
//! holds up the call it records; at shutdown [`Timeline::drain`] lets them write what is
//! queued. Never stores typed text, pastes, file contents, cookie values
//! or credentials: only counts and names reach it; URLs keep no query values or fragment
//! ([`urls`]) and every field is bounded ([`fields`]).

pub mod changes;
/// The event type lives below `browser` (panes carry it): no import circle.
pub(crate) use crate::timeline_event as event;
pub mod export;
pub mod fields;
pub mod frames;
mod look;
pub mod pace;
pub mod recorder;
pub mod stages;
pub mod store;
pub mod summary;
pub mod urls;
pub mod watch;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::browser::InputEvent;
use crate::browser::{Actor, BrowserSession};
use crate::channel_id::ChannelId;
use crate::mode::Mode;
use event::{Draft, EventActor, EventKind, TimelineEvent};
use recorder::{HumanAction, Job, Slot};
use store::{Limits, Store, StoreError};

/// The `timeline.*` settings, as the config holds them.
pub use crate::config::TimelineConfig as TimelineSettings;

impl TimelineSettings {
    fn limits(&self) -> Limits {
        Limits {
            max_bytes: self.max_mb.saturating_mul(1 << 20),
            keep: Duration::from_secs(self.keep_days.saturating_mul(86_400)),
        }
    }
}

/// The timeline's actor for an agent's tool call.
fn event_actor(actor: &Actor) -> EventActor {
    EventActor::Agent {
        agent_id: actor.id().to_string(),
        name: actor.name().to_string(),
    }
}

/// One channel's recorder and store.
struct ChannelTimeline {
    slot: Arc<Mutex<Slot>>,
    /// When a tool call's frame of each tab was last taken (by the recorder), so the change
    /// follower ([`changes`]) neither decodes nor keeps another frame of it within a second.
    framed: recorder::Framed,
    jobs: mpsc::UnboundedSender<Job>,
    /// The recorder task (taken by [`Timeline::drain`]).
    task: Mutex<Option<JoinHandle<()>>>,
}

/// Every channel's timeline.
pub struct Timeline {
    root: PathBuf,
    settings: TimelineSettings,
    /// Short lock, never held across an await.
    channels: Mutex<HashMap<ChannelId, Arc<ChannelTimeline>>>,
    /// Set by [`Timeline::drain`]: nothing more is recorded.
    closed: AtomicBool,
    /// Cancelled by [`Timeline::drain`]: recorders take no more captures.
    draining: CancellationToken,
}

/// What a tool call did, as [`Timeline::tool_call`] records it.
#[derive(Debug, Clone)]
pub struct ToolRecord {
    pub tool: String,
    pub target_id: Option<String>,
    pub ok: bool,
    pub ms: u64,
    /// From [`summary::of_call`], made before the call.
    pub summary: String,
    /// Whether a frame of its tab is taken with it.
    pub frame: bool,
}

impl Timeline {
    /// Timelines under `root` (`<data_dir>/timeline`).
    pub fn new(root: PathBuf, settings: TimelineSettings) -> Arc<Self> {
        Arc::new(Self {
            root,
            settings,
            channels: Mutex::new(HashMap::new()),
            closed: AtomicBool::new(false),
            draining: CancellationToken::new(),
        })
    }

    pub fn enabled(&self) -> bool {
        self.settings.enabled
    }

    fn dir(&self, channel: &ChannelId) -> PathBuf {
        self.root.join(channel.as_str())
    }

    /// The channel's recorder (started on first use); `None` once drained.
    fn channel(&self, channel: &ChannelId) -> Option<Arc<ChannelTimeline>> {
        let mut channels = self.channels.lock().expect("timeline lock");
        if self.closed.load(Ordering::SeqCst) {
            return None;
        }
        if let Some(entry) = channels.get(channel) {
            if !entry.jobs.is_closed() {
                return Some(entry.clone());
            }
        }
        let slot = Arc::new(Mutex::new(Slot::Closed));
        let framed = recorder::Framed::default();
        let (jobs, queue) = mpsc::unbounded_channel();
        let task = tokio::spawn(recorder::run(
            recorder::Writer::new(
                channel.clone(),
                self.dir(channel),
                self.settings.limits(),
                slot.clone(),
            ),
            framed.clone(),
            queue,
            self.draining.clone(),
        ));
        let entry = Arc::new(ChannelTimeline {
            slot,
            framed,
            jobs,
            task: Mutex::new(Some(task)),
        });
        channels.insert(channel.clone(), entry.clone());
        Some(entry)
    }

    fn send(&self, channel: &ChannelId, job: Job) {
        if self.settings.enabled {
            if let Some(entry) = self.channel(channel) {
                let _ = entry.jobs.send(job);
            }
        }
    }

    /// At shutdown: stops recording and lets every recorder write what it has queued, for at
    /// most `within` in all (a log line says when that cut it short). Call after the servers
    /// stopped (the last calls are queued) and before the browsers stop (frames still come).
    pub async fn drain(&self, within: Duration) {
        let started = tokio::time::Instant::now();
        let entries: Vec<(ChannelId, Arc<ChannelTimeline>)> = {
            let mut channels = self.channels.lock().expect("timeline lock");
            self.closed.store(true, Ordering::SeqCst);
            channels.drain().collect()
        };
        self.draining.cancel();
        // Dropping the entries closes the queues: each recorder ends once its queue is written.
        let tasks: Vec<(ChannelId, JoinHandle<()>)> = entries
            .into_iter()
            .filter_map(|(channel, entry)| {
                let task = entry.task.lock().expect("timeline task lock").take();
                task.map(|t| (channel, t))
            })
            .collect();
        let count = tasks.len();
        let mut unwritten = Vec::new();
        for (channel, task) in tasks {
            if tokio::time::timeout_at(started + within, task)
                .await
                .is_err()
            {
                unwritten.push(channel.to_string());
            }
        }
        let ms = started.elapsed().as_millis() as u64;
        if unwritten.is_empty() {
            tracing::info!(event = "timeline_drained", channels = count, ms);
        } else {
            tracing::warn!(event = "timeline_drain_cut_short", channels = ?unwritten, ms, "the timeline's last events of these channels were not written before shutdown");
        }
    }

    /// Follows a freshly opened session's notices (tabs, navigations, dialogs, prompts,
    /// downloads, handoffs, control) until it ends.
    pub fn watch_session(self: &Arc<Self>, session: &Arc<BrowserSession>) {
        if self.settings.enabled {
            let approvals = session.approvals().records();
            tokio::spawn(watch::follow(self.clone(), session.clone(), approvals));
            tokio::spawn(changes::follow(self.clone(), session.clone()));
        }
    }

    /// Whether a tool call's frame of tab `target_id` was taken within `within` (the change
    /// follower then leaves the tab's frames alone).
    fn framed_within(&self, channel: &ChannelId, target_id: &str, within: Duration) -> bool {
        let entry = self
            .channels
            .lock()
            .expect("timeline lock")
            .get(channel)
            .cloned();
        entry.is_some_and(|e| e.framed.within(target_id, within))
    }

    /// Records a frame of watched tab `target_id` that changed (from [`changes`]).
    fn page_frame(&self, session: &Arc<BrowserSession>, target_id: String, jpeg: bytes::Bytes) {
        self.send(
            session.channel(),
            Job::Frame {
                target_id,
                jpeg,
                session: session.clone(),
            },
        );
    }

    /// Records an MCP tool call that just ended (with a frame of its tab, taken off the
    /// caller's path).
    pub fn tool_call(&self, session: &Arc<BrowserSession>, actor: &Actor, call: ToolRecord) {
        let timer = stages::start();
        let url = call.target_id.as_deref().and_then(|t| tab_url(session, t));
        let mut draft = Draft::new(EventKind::Tool, event_actor(actor))
            .tab(call.target_id.clone(), url)
            .summary(call.summary);
        draft.tool = Some(fields::tool_name(&call.tool));
        draft.ok = Some(call.ok);
        draft.ms = Some(call.ms);
        let frame_of = call.target_id.filter(|_| call.frame);
        let seen = frame_of.as_deref().and_then(|t| frames::seen(session, t));
        self.send(
            session.channel(),
            Job::Event {
                draft,
                session: Some(session.clone()),
                frame_of,
                seen,
            },
        );
        timer.stop(stages::Stage::Queue);
    }

    /// Records a vault fill (DESIGN.md §19) by an agent or by the person: title, origin,
    /// fields, ok or why not. Never a value, and no frame (a page may paint what was typed).
    pub fn vault_fill(
        &self,
        session: &Arc<BrowserSession>,
        actor: &Actor,
        fill: crate::vault::FillRecord,
    ) {
        let mut summary = format!(
            "{} of '{}'{}",
            fill.fields.join(" and "),
            fill.title,
            fill.origin
                .as_deref()
                .map(|o| format!(" into {o}"))
                .unwrap_or_default()
        );
        if let Some(why) = &fill.why {
            summary.push_str(&format!(": not filled: {why}"));
        }
        let url = fill.target_id.as_deref().and_then(|t| tab_url(session, t));
        let by = if fill.by_person {
            EventActor::Human
        } else {
            event_actor(actor)
        };
        let mut draft = Draft::new(EventKind::Vault, by)
            .tab(fill.target_id, url)
            .summary(summary);
        draft.ok = Some(fill.ok);
        self.send(
            session.channel(),
            Job::Event {
                draft,
                session: Some(session.clone()),
                frame_of: None,
                seen: None,
            },
        );
    }

    /// Notes one input event of the person's in tab `target_id`; bursts become coarse
    /// events (never the text).
    pub fn human_input(&self, session: &Arc<BrowserSession>, target_id: &str, event: &InputEvent) {
        let Some(action) = HumanAction::of(event) else {
            return;
        };
        self.send(
            session.channel(),
            Job::Input {
                action,
                target_id: target_id.to_string(),
                session: session.clone(),
            },
        );
    }

    /// Records a channel's switch to another mode.
    pub fn mode_changed(&self, channel: &ChannelId, mode: Mode) {
        let draft = Draft::new(EventKind::Mode, EventActor::Human)
            .summary(format!("switched to {mode} mode"));
        self.send(
            channel,
            Job::Event {
                draft,
                session: None,
                frame_of: None,
                seen: None,
            },
        );
    }

    /// Records an event made elsewhere in this module.
    fn record(&self, session: &Arc<BrowserSession>, draft: Draft) {
        self.send(
            session.channel(),
            Job::Event {
                draft,
                session: Some(session.clone()),
                frame_of: None,
                seen: None,
            },
        );
    }

    /// Removes the channel's timeline from disk (profile reset, channel delete, `DELETE`);
    /// recording starts afresh with the next event.
    pub fn remove(&self, channel: &ChannelId) -> Result<(), StoreError> {
        let entry = self.channels.lock().expect("timeline lock").remove(channel);
        // Under the slot lock, so a write in flight finishes before the files go and none
        // comes after.
        let _held = entry.as_ref().map(|e| {
            let mut slot = e.slot.lock().expect("timeline slot lock");
            *slot = Slot::Removed;
            slot
        });
        let dir = self.dir(channel);
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => {
                tracing::info!(event = "timeline_removed", channel_id = %channel);
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(StoreError::Io {
                path: dir.display().to_string(),
                source,
            }),
        }
    }

    /// Whether the channel has a timeline on disk.
    pub fn exists(&self, channel: &ChannelId) -> bool {
        self.dir(channel).join(store::DB_FILE).exists()
    }

    /// Events after `since_seq` (up to `until_seq`), by `actor` when given, at most `limit`.
    /// Blocking (SQLite): call from a blocking thread.
    pub fn list(
        &self,
        channel: &ChannelId,
        since_seq: u64,
        until_seq: Option<u64>,
        limit: usize,
        actor: Option<&str>,
    ) -> Result<Vec<TimelineEvent>, StoreError> {
        let entry = self
            .channels
            .lock()
            .expect("timeline lock")
            .get(channel)
            .cloned();
        if let Some(entry) = entry {
            let mut slot = entry.slot.lock().expect("timeline slot lock");
            if let Some(store) = slot.open(&self.dir(channel), self.settings.limits())? {
                return store.list(since_seq, until_seq, limit, actor);
            }
            return Ok(Vec::new());
        }
        if !self.exists(channel) {
            return Ok(Vec::new());
        }
        Store::open(&self.dir(channel), self.settings.limits())?
            .list(since_seq, until_seq, limit, actor)
    }

    /// The JPEG of one kept frame. Blocking (a file read).
    pub fn frame(&self, channel: &ChannelId, frame_id: &str) -> Option<Vec<u8>> {
        frames::read(&self.dir(channel), frame_id)
    }
}

/// The URL of a tracked tab as the tab has it: the store keeps it as a safe URL
/// ([`fields::bounded`], before anything is written or sent), so the caller's path neither
/// copies the tab list nor parses the URL (issue 35).
fn tab_url(session: &BrowserSession, target_id: &str) -> Option<String> {
    match session.page_info_of(target_id)? {
        crate::browser::PaneMessage::PageInfo { url, .. } => Some(url),
        _ => None,
    }
}
