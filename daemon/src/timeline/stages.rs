//! Bench-only attribution of what recording costs, by stage (issue 35): the frame of a tool
//! call (a `Page.captureScreenshot`, or the screencast's frame of a watched tab), comparing
//! frames (a watched tab's pictures, the store's repeat check and hash), the SQLite write, the
//! frame file, the live `timeline_event` to panes, and what a tool call itself pays to queue
//! its event.
//!
//! On with the daemon's bench stage log (`PORTHOLE_BENCH_FRAME_STAGES=1`, see
//! `browser::frame_stages`); when off, each stage costs one load of a flag. When on, the
//! running totals (wall microseconds, counts, and for the stages that never wait the CPU
//! microseconds of the thread that ran them, read for one timing in [`CPU_EVERY`] and scaled,
//! since the daemon started) are logged as one
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
    /// A store write's `COMMIT`, with the WAL checkpoint SQLite runs in it (two `fsync`s, a
    /// copy of the pages, a truncation) when the WAL is full (part of [`Stage::Write`]).
    Commit,
    /// Sending `timeline_event`s to the channel's panes: the broadcast and one JSON encode
    /// per pane.
    Live,
    /// What a tool call pays on its own path to hand its event over.
    Queue,
}

const STAGES: usize = 9;
const NAMES: [&str; STAGES] = [
    "capture",
    "view_frame",
    "compare",
    "hash",
    "write",
    "frame_file",
    "commit",
    "live",
    "queue",
];

/// How often the running totals are logged (at most).
const REPORT_EVERY: Duration = Duration::from_secs(1);

/// One timing in this many reads the thread's CPU clock (a system call, unlike the wall
/// clock: read twice per stage it was most of the system calls recording added per tool call,
/// which the bench then counted as recording's cost, issue 35). A stage's CPU time is the
/// CPU of its sampled timings scaled to all of them.
const CPU_EVERY: u64 = 8;

static MICROS: [AtomicU64; STAGES] = [const { AtomicU64::new(0) }; STAGES];
static COUNTS: [AtomicU64; STAGES] = [const { AtomicU64::new(0) }; STAGES];
static CPU_MICROS: [AtomicU64; STAGES] = [const { AtomicU64::new(0) }; STAGES];
/// How many of `COUNTS` had their CPU time read.
static CPU_SAMPLES: [AtomicU64; STAGES] = [const { AtomicU64::new(0) }; STAGES];
/// Counts timings, to sample one in [`CPU_EVERY`].
static TIMINGS: AtomicU64 = AtomicU64::new(0);

impl Stage {
    /// Whether the stage runs without waiting (its thread's CPU time is its own).
    fn synchronous(self) -> bool {
        !matches!(self, Stage::Capture | Stage::ViewFrame)
    }
}

/// CPU time of the calling thread.
#[allow(unsafe_code)]
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the call to fill.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Whether stages are recorded.
pub fn on() -> bool {
    crate::browser::frame_stages::on()
}

/// The thread's CPU time now, for one timing in [`CPU_EVERY`] (`None` for the others).
pub fn cpu_sample() -> Option<Duration> {
    TIMINGS
        .fetch_add(1, Ordering::Relaxed)
        .is_multiple_of(CPU_EVERY)
        .then(thread_cpu)
}

/// A stage being timed (wall clock, and the thread's CPU when sampled); `None` inside when
/// stages are off.
#[must_use]
pub struct Timer(Option<(Instant, Option<Duration>)>);

/// Starts timing a stage (nothing when stages are off).
pub fn start() -> Timer {
    Timer(on().then(|| (Instant::now(), cpu_sample())))
}

impl Timer {
    /// Adds the time since [`start`] to `stage` (and the thread's CPU time, when sampled, for
    /// a stage that never waits: one that awaits may resume on another thread).
    pub fn stop(self, stage: Stage) {
        if let Some((started, cpu)) = self.0 {
            let cpu = cpu
                .filter(|_| stage.synchronous())
                .map(|cpu| thread_cpu().saturating_sub(cpu));
            add(stage, started.elapsed(), cpu, 1);
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Adds `took` (and `cpu`, the thread's CPU time in it when it was read) to `stage`, for
/// `times` of it (call only when [`on`]).
pub fn add(stage: Stage, took: Duration, cpu: Option<Duration>, times: u64) {
    let i = stage as usize;
    MICROS[i].fetch_add(micros(took), Ordering::Relaxed);
    if let Some(cpu) = cpu {
        CPU_MICROS[i].fetch_add(micros(cpu), Ordering::Relaxed);
        CPU_SAMPLES[i].fetch_add(times, Ordering::Relaxed);
    }
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
            let count = COUNTS[i].load(Ordering::Relaxed);
            format!(
                "{}={}/{}/{}",
                NAMES[i],
                MICROS[i].load(Ordering::Relaxed),
                count,
                scaled(
                    CPU_MICROS[i].load(Ordering::Relaxed),
                    CPU_SAMPLES[i].load(Ordering::Relaxed),
                    count
                )
            )
        })
        .collect();
    tracing::info!(
        event = "timeline_stages",
        totals = %totals.join(","),
        "running totals of the timeline's stages: name=wall µs/count/CPU µs"
    );
}

/// The CPU µs of `count` timings from `cpu` µs over `samples` of them.
fn scaled(cpu: u64, samples: u64, count: u64) -> u64 {
    if samples == 0 {
        return 0;
    }
    u64::try_from(u128::from(cpu) * u128::from(count) / u128::from(samples)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampled_cpu_is_scaled_to_every_timing() {
        assert_eq!(scaled(30, 3, 24), 240);
        assert_eq!(scaled(0, 0, 24), 0);
        // Every 8th of 80 timings sampled: 10 samples.
        let sampled = (0..80).filter(|_| cpu_sample().is_some()).count();
        assert_eq!(sampled, 10);
    }

    #[test]
    fn names_cover_every_stage() {
        assert_eq!(NAMES[Stage::Queue as usize], "queue");
        assert_eq!(NAMES[Stage::Capture as usize], "capture");
        assert_eq!(NAMES[Stage::FrameFile as usize], "frame_file");
        assert_eq!(NAMES[Stage::Commit as usize], "commit");
    }

    #[test]
    fn a_busy_thread_has_cpu_time() {
        // Busy until the thread has had 5 ms of CPU (a loaded machine gives it less of the
        // wall time): the clock counts this thread's work, and a stuck clock fails.
        let before = thread_cpu();
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut x = 0u64;
        while thread_cpu().saturating_sub(before) < Duration::from_millis(5) {
            assert!(Instant::now() < deadline, "no CPU time counted in a minute");
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
    }
}
