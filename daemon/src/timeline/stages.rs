//! Bench-only attribution of what recording costs, by stage (issue 35): the frame of a tool
//! call (a `Page.captureScreenshot`, or the screencast's frame of a watched tab), comparing
//! frames (a watched tab's pictures, the store's repeat check and hash), the SQLite write, the
//! frame file, the live `timeline_event` to panes, and what a tool call itself pays to queue
//! its event.
//!
//! On with the daemon's bench stage log (`PORTHOLE_BENCH_FRAME_STAGES=1`, see
//! `browser::frame_stages`); when off, each stage costs one load of a flag. When on, the
//! running totals (microseconds and counts since the daemon started) are logged as one
//! `timeline_stages` line at most once a second; `porthole-bench timeline` takes the
//! difference over its window and divides by the tool calls answered in it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A stage of recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `Page.captureScreenshot` of a tool call's tab, with its base64 decode (mostly waiting
    /// on Chrome, whose own work shows in the machine's CPU, not the daemon's).
    Capture,
    /// The screencast's frame of a watched tab taken instead of a capture (wall time, with
    /// the wait for a frame after the call).
    ViewFrame,
    /// Comparing a watched tab's frames (decoding JPEGs to their look).
    Compare,
    /// The store's check of a frame against the last one kept, and its hash.
    Hash,
    /// A whole store write (one transaction), frame files and hashes included.
    Write,
    /// Writing frame files (a temporary name, then a rename).
    FrameFile,
    /// Sending `timeline_event`s to the channel's panes: the broadcast and one JSON encode
    /// per pane.
    Live,
    /// What a tool call pays on its own path to hand its event over.
    Queue,
}

const STAGES: usize = 8;
const NAMES: [&str; STAGES] = [
    "capture",
    "view_frame",
    "compare",
    "hash",
    "write",
    "frame_file",
    "live",
    "queue",
];

/// How often the running totals are logged (at most).
const REPORT_EVERY: Duration = Duration::from_secs(1);

static MICROS: [AtomicU64; STAGES] = [const { AtomicU64::new(0) }; STAGES];
static COUNTS: [AtomicU64; STAGES] = [const { AtomicU64::new(0) }; STAGES];

/// Whether stages are recorded.
pub fn on() -> bool {
    crate::browser::frame_stages::on()
}

/// A stage being timed; `None` inside when stages are off.
#[must_use]
pub struct Timer(Option<Instant>);

/// Starts timing a stage (nothing when stages are off).
pub fn start() -> Timer {
    Timer(on().then(Instant::now))
}

impl Timer {
    /// Adds the time since [`start`] to `stage`.
    pub fn stop(self, stage: Stage) {
        if let Some(started) = self.0 {
            add(stage, started.elapsed(), 1);
        }
    }
}

/// Adds `took` to `stage`, for `times` of it (call only when [`on`]).
pub fn add(stage: Stage, took: Duration, times: u64) {
    let i = stage as usize;
    let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
    MICROS[i].fetch_add(us, Ordering::Relaxed);
    COUNTS[i].fetch_add(times, Ordering::Relaxed);
    report();
}

/// Logs the running totals when the last line is [`REPORT_EVERY`] old.
fn report() {
    static LAST: Mutex<Option<Instant>> = Mutex::new(None);
    let now = Instant::now();
    {
        // Short lock, never held across an await.
        let mut last = LAST.lock().expect("timeline stages lock");
        if last.is_some_and(|at| now.duration_since(at) < REPORT_EVERY) {
            return;
        }
        *last = Some(now);
    }
    let totals: Vec<String> = (0..STAGES)
        .map(|i| {
            format!(
                "{}={}/{}",
                NAMES[i],
                MICROS[i].load(Ordering::Relaxed),
                COUNTS[i].load(Ordering::Relaxed)
            )
        })
        .collect();
    tracing::info!(
        event = "timeline_stages",
        totals = %totals.join(","),
        "running totals of the timeline's stages: name=microseconds/count"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cover_every_stage() {
        assert_eq!(NAMES[Stage::Queue as usize], "queue");
        assert_eq!(NAMES[Stage::Capture as usize], "capture");
        assert_eq!(NAMES[Stage::FrameFile as usize], "frame_file");
    }
}
