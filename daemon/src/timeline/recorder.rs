//! The recorder of one channel: a task that takes jobs in order, gathers the person's input
//! into bursts and takes frames, then hands the events to its writer: a task that gathers
//! what comes within [`WRITE_WINDOW`] (at most [`WRITE_MAX`] events) and writes it to the
//! store in one transaction on a blocking thread, then tells the channel's panes
//! (`timeline_event`). Callers only queue a job, so nothing they do waits for a frame or a
//! disk write. At shutdown ([`super::Timeline::drain`]) the queue is closed and the recorder
//! hands on what is in it, without new captures; the writer writes it at once and both end.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::event::{now_ms, Draft, EventActor, EventKind, TimelineEvent};
use super::pace::Pace;
use super::stages::{self, Stage};
use super::store::{Limits, Store, StoreError};
use crate::browser::InputEvent;
use crate::browser::{BrowserSession, PaneMessage};
use crate::channel_id::ChannelId;

/// The store of a channel as the recorder and readers share it.
pub enum Slot {
    /// Not opened yet (opened on first use).
    Closed,
    /// Boxed: a store is large beside the other states.
    Open(Box<Store>),
    /// The timeline was removed: jobs still queued are dropped.
    Removed,
}

impl Slot {
    /// The open store (opening it first); `None` once removed.
    pub fn open(
        &mut self,
        dir: &std::path::Path,
        limits: Limits,
    ) -> Result<Option<&mut Store>, StoreError> {
        if let Slot::Closed = self {
            *self = Slot::Open(Box::new(Store::open(dir, limits)?));
        }
        Ok(match self {
            Slot::Open(store) => Some(store.as_mut()),
            _ => None,
        })
    }
}

/// Work for the recorder.
pub enum Job {
    /// An event; with `frame_of`, a frame of that tab is taken first (one its screencast
    /// sent after frame `seen`, when a pane watches it: see `frames::after_call`).
    Event {
        draft: Draft,
        session: Option<Arc<BrowserSession>>,
        frame_of: Option<String>,
        seen: Option<u64>,
    },
    /// One input event of the person's.
    Input {
        action: HumanAction,
        target_id: String,
        session: Arc<BrowserSession>,
    },
    /// A watched tab changed: its screencast frame (see `changes`).
    Frame {
        target_id: String,
        jpeg: bytes::Bytes,
        session: Arc<BrowserSession>,
    },
}

/// What one input event of the person's counts as (never its text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HumanAction {
    Click,
    Scroll,
    /// Characters typed.
    Keys(usize),
    /// Characters pasted.
    Paste(usize),
    Copy,
}

impl HumanAction {
    /// What `event` counts as; `None` for moves, releases and drafts.
    pub fn of(event: &InputEvent) -> Option<Self> {
        Some(match event {
            InputEvent::Click { .. } | InputEvent::Mousedown { .. } => HumanAction::Click,
            InputEvent::Scroll { .. } => HumanAction::Scroll,
            InputEvent::Keydown { .. } | InputEvent::Keypress { .. } => HumanAction::Keys(1),
            InputEvent::Typetext { text } => HumanAction::Keys(text.chars().count()),
            InputEvent::Paste { text } => HumanAction::Paste(text.chars().count()),
            InputEvent::Copy {} | InputEvent::Cut { .. } => HumanAction::Copy,
            _ => return None,
        })
    }

    /// Adds `next` to this one when they read as one step (keys to keys, scrolls to scrolls).
    fn merge(&mut self, next: HumanAction) -> bool {
        match (self, next) {
            (HumanAction::Keys(n), HumanAction::Keys(m)) => *n += m,
            (HumanAction::Scroll, HumanAction::Scroll) => {}
            _ => return false,
        }
        true
    }

    fn draft(self) -> Draft {
        let (action, summary) = match self {
            HumanAction::Click => ("click", "clicked".to_string()),
            HumanAction::Scroll => ("scroll", "scrolled".to_string()),
            HumanAction::Keys(n) => ("keys", format!("typed {n} characters")),
            HumanAction::Paste(n) => ("paste", format!("pasted {n} characters")),
            HumanAction::Copy => ("copy", "copied".to_string()),
        };
        Draft::new(EventKind::Human, EventActor::Human)
            .action(action)
            .summary(summary)
    }
}

/// The person's input since the last quiet moment, in one tab.
struct Burst {
    target_id: String,
    session: Arc<BrowserSession>,
    actions: Vec<HumanAction>,
    started: Instant,
    last: Instant,
}

/// A burst ends after this long without input …
const BURST_QUIET: Duration = Duration::from_millis(700);
/// … or once it is this long.
const BURST_MAX: Duration = Duration::from_secs(5);
/// How often old events are looked for (`timeline.keep_days`).
const EXPIRY_CHECK: Duration = Duration::from_secs(3600);

impl Burst {
    fn ends_at(&self) -> Instant {
        (self.last + BURST_QUIET).min(self.started + BURST_MAX)
    }
}

/// How long the writer gathers events after the first before it writes them (one
/// transaction): a daemon killed hard loses at most this beyond what the pace holds.
pub const WRITE_WINDOW: Duration = Duration::from_millis(50);
/// The most events the writer gathers into one transaction.
const WRITE_MAX: usize = 256;

/// Runs the recorder of `channel` until every sender is gone and the queue is written.
/// `draining`: the daemon is shutting down (no more captures: the screencast's last frame or
/// none, so the queue is written quickly).
pub async fn run(
    writer: Writer,
    framed: Framed,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    draining: CancellationToken,
) {
    let (writes, gathered) = mpsc::unbounded_channel();
    let writing = tokio::spawn(write_gathered(writer.clone(), gathered));
    let mut recorder = Recorder {
        writer,
        writes,
        pace: Pace::default(),
        framed,
        draining: draining.clone(),
    };
    let mut burst: Option<Burst> = None;
    let mut expiry = tokio::time::interval(EXPIRY_CHECK);
    // The burst's end, the pace's release and the shutdown are waited on by futures kept from
    // one job to the next, moved only when their time changes: a busy channel's recorder
    // wakes for every tool call while the pace holds events, and a fresh timer and
    // cancellation wait per wake (registered, then dropped) cost more than the job (issue 35).
    let ends_timer = tokio::time::sleep_until(Instant::now());
    let due_timer = tokio::time::sleep_until(Instant::now());
    let shutdown = draining.clone().cancelled_owned();
    tokio::pin!(ends_timer, due_timer, shutdown);
    let (mut ends_set, mut due_set): (Option<Instant>, Option<Instant>) = (None, None);
    loop {
        let ends = burst.as_ref().map(Burst::ends_at);
        let due = recorder.pace.due();
        if let Some(at) = ends.filter(|at| ends_set != Some(*at)) {
            ends_timer.as_mut().reset(at);
        }
        if let Some(at) = due.filter(|at| due_set != Some(*at)) {
            due_timer.as_mut().reset(at);
        }
        (ends_set, due_set) = (ends, due);
        tokio::select! {
            job = jobs.recv() => match job {
                None => break,
                Some(Job::Input { action, target_id, session }) => {
                    let now = Instant::now();
                    if burst.as_ref().is_some_and(|b| b.target_id != target_id) {
                        recorder.flush(burst.take()).await;
                    }
                    let b = burst.get_or_insert_with(|| Burst {
                        target_id,
                        session,
                        actions: Vec::new(),
                        started: now,
                        last: now,
                    });
                    b.last = now;
                    if !b.actions.last_mut().is_some_and(|last| last.merge(action)) {
                        b.actions.push(action);
                    }
                }
                Some(Job::Event { draft, session, frame_of, seen }) => {
                    // The person's input before it comes first (a click before the
                    // navigation it caused).
                    recorder.flush(burst.take()).await;
                    let capture_of = frame_of.filter(|_| session.is_some());
                    let mut pending = Pending::new(vec![draft], session, None);
                    pending.seen = seen;
                    recorder.emit(pending, capture_of).await;
                }
                // During the person's burst its own frame, when it ends, shows the page.
                Some(Job::Frame { .. }) if burst.is_some() => {}
                Some(Job::Frame { target_id, jpeg, session }) => {
                    let url = super::tab_url(&session, &target_id);
                    let draft = Draft::new(EventKind::Frame, EventActor::Page)
                        .tab(Some(target_id), url)
                        .summary("the page changed");
                    recorder.emit(Pending::new(vec![draft], Some(session), Some(jpeg)), None).await;
                }
            },
            _ = &mut ends_timer, if ends.is_some() => {
                recorder.flush(burst.take()).await;
            }
            _ = &mut due_timer, if due.is_some() => {
                recorder.release().await;
            }
            // Shutting down: what is held is written now, with no captures.
            _ = &mut shutdown, if due.is_some() => recorder.release().await,
            _ = expiry.tick() => recorder.writer.expire().await,
        }
    }
    recorder.flush(burst.take()).await;
    recorder.release().await;
    // The writer writes what it was handed, then ends.
    drop(recorder);
    let _ = writing.await;
}

/// The writer of a channel: writes each batch handed to it together with whatever follows
/// within [`WRITE_WINDOW`] (at most [`WRITE_MAX`] events) in one transaction, in order, until
/// the recorder is gone.
async fn write_gathered(writer: Writer, mut batches: mpsc::UnboundedReceiver<Vec<Pending>>) {
    while let Some(mut gathered) = batches.recv().await {
        let window_ends = Instant::now() + WRITE_WINDOW;
        while gathered.iter().map(|p| p.drafts.len()).sum::<usize>() < WRITE_MAX {
            match tokio::time::timeout_at(window_ends, batches.recv()).await {
                Ok(Some(more)) => gathered.extend(more),
                // The window ended, or the recorder is gone: write now.
                Ok(None) | Err(_) => break,
            }
        }
        writer.write(gathered).await;
    }
}

/// Events on their way to the store: one, or a burst's steps with the frame on the last.
struct Pending {
    drafts: Vec<Draft>,
    /// When it happened (a held event is written later).
    at_ms: u64,
    session: Option<Arc<BrowserSession>>,
    /// A frame it came with (the person's view, a changed page), unless it wants a capture.
    /// Shared, not copied: the events held for one capture all carry the same buffer
    /// (issue 35: a copy per call of a tab's frame).
    frame: Option<bytes::Bytes>,
    /// The screencast's frame number of the tab it wants a capture of, as it happened.
    seen: Option<u64>,
}

impl Pending {
    fn new(
        drafts: Vec<Draft>,
        session: Option<Arc<BrowserSession>>,
        frame: Option<bytes::Bytes>,
    ) -> Self {
        Self {
            drafts,
            at_ms: now_ms(),
            session,
            frame,
            seen: None,
        }
    }
}

/// When a tool call's frame of each tab was last taken, shared with the change follower
/// (`super::changes`). Short lock, never held across an await.
#[derive(Clone, Default)]
pub struct Framed(Arc<Mutex<HashMap<String, Instant>>>);

impl Framed {
    fn taken(&self, target_id: &str) {
        let now = Instant::now();
        let mut framed = self.0.lock().expect("timeline framed lock");
        framed.retain(|_, at| now.saturating_duration_since(*at) < super::pace::CAPTURE_GAP * 2);
        framed.insert(target_id.to_string(), now);
    }

    /// Whether a frame of `target_id` was taken within `within`.
    pub fn within(&self, target_id: &str, within: Duration) -> bool {
        let framed = self.0.lock().expect("timeline framed lock");
        framed
            .get(target_id)
            .is_some_and(|at| at.elapsed() < within)
    }
}

/// The recorder's state between jobs: the writer's queue and the pace of captures.
struct Recorder {
    /// For expiry (the writer task has its own).
    writer: Writer,
    /// Events to write, in order ([`write_gathered`]).
    writes: mpsc::UnboundedSender<Vec<Pending>>,
    pace: Pace<Pending>,
    framed: Framed,
    draining: CancellationToken,
}

impl Recorder {
    /// Writes `pending` now (with a capture of `capture_of`), or holds it (see [`Pace`]).
    async fn emit(&mut self, pending: Pending, capture_of: Option<String>) {
        if let Some(pending) = self.pace.admit(pending, capture_of.clone(), Instant::now()) {
            self.write(pending, capture_of).await;
        }
    }

    /// Writes every held event, in order; one capture of each tab serves all its events.
    async fn release(&mut self) {
        let held = self.pace.release();
        // The frame of a tab must come after the last of its events.
        let mut seen: HashMap<&str, Option<u64>> = HashMap::new();
        for (pending, capture_of) in &held {
            if let Some(target) = capture_of {
                seen.insert(target, pending.seen);
            }
        }
        let seen: HashMap<String, Option<u64>> =
            seen.into_iter().map(|(t, s)| (t.to_string(), s)).collect();
        let mut frames: HashMap<String, Option<bytes::Bytes>> = HashMap::new();
        let mut batch = Vec::new();
        for (mut pending, capture_of) in held {
            if let (Some(session), Some(target)) = (pending.session.clone(), capture_of) {
                if !frames.contains_key(&target) {
                    let frame = self.frame_of(&session, &target, seen[&target]).await;
                    frames.insert(target.clone(), frame);
                }
                pending.frame = frames[&target].clone();
            }
            batch.push(pending);
        }
        self.hand_over(batch);
    }

    /// Hands `batch` to the writer (it writes in order).
    fn hand_over(&self, batch: Vec<Pending>) {
        if !batch.is_empty() {
            // The writer ends only after the recorder: the send cannot fail.
            let _ = self.writes.send(batch);
        }
    }

    /// Writes `pending`, taking its frame first when it wants a capture of `capture_of`.
    async fn write(&mut self, mut pending: Pending, capture_of: Option<String>) {
        if let (Some(session), Some(target)) = (pending.session.clone(), &capture_of) {
            pending.frame = self.frame_of(&session, target, pending.seen).await;
        }
        self.hand_over(vec![pending]);
    }

    /// A frame of tab `target` after an event that saw its screencast at frame `seen` (noted
    /// with the pace); the person's view while draining.
    async fn frame_of(
        &mut self,
        session: &BrowserSession,
        target: &str,
        seen: Option<u64>,
    ) -> Option<bytes::Bytes> {
        if self.draining.is_cancelled() {
            // Shutting down: the event matters more than a fresh capture.
            let timer = stages::start();
            let frame = super::frames::of_view(session, target);
            timer.stop(Stage::ViewFrame);
            return frame;
        }
        let timer = stages::start();
        let (frame, from_view) = super::frames::after_call(session, target, seen).await;
        timer.stop(if from_view {
            Stage::ViewFrame
        } else {
            Stage::Capture
        });
        self.pace.captured(target, Instant::now());
        if frame.is_some() {
            self.framed.taken(target);
        }
        frame
    }

    /// Records a finished burst: one event per step, the frame (the person's view) with the
    /// last.
    async fn flush(&mut self, burst: Option<Burst>) {
        let Some(burst) = burst else { return };
        let url = super::tab_url(&burst.session, &burst.target_id);
        let frame = super::frames::of_view(&burst.session, &burst.target_id);
        let drafts = burst
            .actions
            .iter()
            .map(|a| a.draft().tab(Some(burst.target_id.clone()), url.clone()))
            .collect();
        self.emit(Pending::new(drafts, Some(burst.session), frame), None)
            .await;
    }
}

/// Writes events of one channel to its store.
#[derive(Clone)]
pub struct Writer {
    channel: ChannelId,
    dir: PathBuf,
    limits: Limits,
    slot: Arc<Mutex<Slot>>,
}

impl Writer {
    pub fn new(channel: ChannelId, dir: PathBuf, limits: Limits, slot: Arc<Mutex<Slot>>) -> Self {
        Self {
            channel,
            dir,
            limits,
            slot,
        }
    }

    /// Appends the drafts of each of `batch` (its frame with its last), in order, on one
    /// blocking thread, and tells the panes.
    async fn write(&self, batch: Vec<Pending>) {
        if batch.is_empty() {
            return;
        }
        let (slot, dir, limits) = (self.slot.clone(), self.dir.clone(), self.limits);
        let mut sessions = Vec::with_capacity(batch.len());
        let mut rows = Vec::with_capacity(batch.len());
        for pending in batch {
            sessions.push((pending.session, pending.drafts.len()));
            rows.push((pending.drafts, pending.at_ms, pending.frame));
        }
        let written = tokio::task::spawn_blocking(move || {
            let timer = stages::start();
            let mut slot = slot.lock().expect("timeline slot lock");
            let Some(store) = slot.open(&dir, limits)? else {
                return Ok(Vec::new());
            };
            let mut appends = Vec::new();
            for (drafts, at_ms, frame) in rows {
                let count = drafts.len();
                for (i, draft) in drafts.into_iter().enumerate() {
                    let frame = frame.clone().filter(|_| i + 1 == count);
                    appends.push((draft, frame, at_ms));
                }
            }
            let written = store.append_all(appends);
            timer.stop(Stage::Write);
            written
        })
        .await;
        match written {
            Ok(Ok(events)) => {
                for (session, events) in runs_by_session(sessions, events) {
                    announce(&session, events);
                }
            }
            Ok(Err(error)) => {
                tracing::warn!(event = "timeline_write_failed", channel_id = %self.channel, %error)
            }
            Err(error) => {
                tracing::warn!(event = "timeline_write_failed", channel_id = %self.channel, %error)
            }
        }
    }

    /// Drops events older than `timeline.keep_days`.
    async fn expire(&self) {
        let slot = self.slot.clone();
        let _ = tokio::task::spawn_blocking(move || {
            if let Slot::Open(store) = &mut *slot.lock().expect("timeline slot lock") {
                if let Err(error) = store.drop_expired(now_ms()) {
                    tracing::warn!(event = "timeline_expiry_failed", %error);
                }
            }
        })
        .await;
    }
}

/// The events of a write, in order, in runs of one session each (one notice per run): `owners`
/// says whose each next `count` events are; those of no session are dropped.
fn runs_by_session<S, E>(
    owners: Vec<(Option<Arc<S>>, usize)>,
    events: Vec<E>,
) -> Vec<(Arc<S>, Vec<E>)> {
    let mut events = events.into_iter();
    let mut runs: Vec<(Arc<S>, Vec<E>)> = Vec::new();
    for (owner, count) in owners {
        let taken: Vec<E> = events.by_ref().take(count).collect();
        let Some(owner) = owner else { continue };
        match runs.last_mut() {
            Some((last, run)) if Arc::ptr_eq(last, &owner) => run.extend(taken),
            _ => runs.push((owner, taken)),
        }
    }
    runs
}

/// Sends `events` to the session's panes, as one notice when there are several (timed as
/// [`Stage::Live`] with one JSON encode per event and pane, which is what each pane's writer
/// does with them).
fn announce(session: &BrowserSession, events: Vec<TimelineEvent>) {
    let count = events.len() as u64;
    let mut messages: Vec<PaneMessage> = events
        .into_iter()
        .map(|event| PaneMessage::TimelineEvent(Box::new(event)))
        .collect();
    let message = match messages.len() {
        0 => return,
        1 => messages.pop().expect("one message"),
        _ => PaneMessage::TimelineEvents(messages.into()),
    };
    if !stages::on() {
        session.announce(message);
        return;
    }
    // The thread's CPU clock is read for one announce in a few (`stages::cpu_sample`).
    let (started, cpu) = (std::time::Instant::now(), stages::cpu_sample());
    let panes = session.pane_count() as u32;
    match &message {
        PaneMessage::TimelineEvents(all) => all.iter().for_each(|m| drop(m.to_json())),
        one => drop(one.to_json()),
    }
    let encode = started.elapsed();
    let encode_cpu = cpu.map(|cpu| stages::thread_cpu().saturating_sub(cpu));
    session.announce(message);
    // The encode above stands for the first pane's; one more for each other pane.
    let more = panes.saturating_sub(1);
    stages::add(
        Stage::Live,
        started.elapsed() + encode * more,
        cpu.zip(encode_cpu)
            .map(|(cpu, encode_cpu)| stages::thread_cpu().saturating_sub(cpu) + encode_cpu * more),
        count,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writes_events_go_out_in_runs_of_one_session_in_order() {
        let (a, b) = (Arc::new("a"), Arc::new("b"));
        let owners = vec![
            (Some(a.clone()), 2),
            (None, 1),
            (Some(a.clone()), 1),
            (Some(b.clone()), 1),
            (Some(a.clone()), 1),
        ];
        let runs: Vec<(&str, Vec<u32>)> = runs_by_session(owners, vec![0, 1, 2, 3, 4, 5])
            .into_iter()
            .map(|(session, events)| (*session, events))
            .collect();
        assert_eq!(
            runs,
            vec![("a", vec![0, 1, 3]), ("b", vec![4]), ("a", vec![5])]
        );
    }
}
