//! Bench-only attribution of a screencast frame's time in the daemon, by stage: Chrome's frame
//! swap → CDP receive
//! (the whole message read from Chrome) → the hub (the event reached the screencast hub) →
//! published (decoded once, in the tab's slot) → written (one pane's socket took it).
//!
//! Off unless the daemon runs with `PORTHOLE_BENCH_FRAME_STAGES=1` (`porthole-bench` sets it);
//! when off, each stage costs one load of a flag. When on, every [`REPORT_EVERY`] the medians
//! of the last interval are logged as one `frame_stages` line, which the bench reads.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The environment variable that turns the stage log on.
pub use crate::browser::floor::STAGES_ENV as ENV;

/// How often the medians are logged.
const REPORT_EVERY: Duration = Duration::from_secs(1);

/// When one frame passed each stage inside the daemon.
#[derive(Debug, Clone, Copy)]
pub struct Stamps {
    /// From Chrome's frame swap (the frame's `metadata.timestamp`, wall clock) to the CDP
    /// message read whole; `None` when Chrome sent no timestamp.
    pub from_swap: Option<Duration>,
    /// The CDP message was read whole from Chrome.
    pub received: Instant,
    /// The event reached the screencast hub's task.
    pub at_hub: Instant,
    /// The decoded frame was put in its tab's slot.
    pub published: Instant,
}

/// Durations of one interval, in microseconds.
#[derive(Default)]
struct Interval {
    started: Option<Instant>,
    from_swap: Vec<u64>,
    to_hub: Vec<u64>,
    decode: Vec<u64>,
    to_socket: Vec<u64>,
    total: Vec<u64>,
}

/// Whether stages are recorded (the bench's switch, read once).
pub fn on() -> bool {
    crate::browser::floor::stages_on()
}

fn interval() -> &'static Mutex<Interval> {
    static INTERVAL: OnceLock<Mutex<Interval>> = OnceLock::new();
    INTERVAL.get_or_init(Mutex::default)
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// A frame was published (call only when [`on`]).
pub fn published(stamps: &Stamps) {
    // Short lock, never held across an await.
    let mut i = interval().lock().expect("frame stages lock");
    if let Some(from_swap) = stamps.from_swap {
        i.from_swap.push(micros(from_swap));
    }
    i.to_hub.push(micros(
        stamps.at_hub.saturating_duration_since(stamps.received),
    ));
    i.decode.push(micros(
        stamps.published.saturating_duration_since(stamps.at_hub),
    ));
}

/// One pane's socket took frame `seq` of its tab (no-op unless [`on`]). Only the first write
/// of each frame is recorded (the stage the first pane's socket took): the others would take
/// the shared lock once per pane and frame, a cost of the bench's own that users never pay.
pub fn written(stamps: Option<&Stamps>, seq: u64) {
    let Some(stamps) = stamps else {
        return;
    };
    static LAST_WRITTEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let last = LAST_WRITTEN.load(std::sync::atomic::Ordering::Relaxed);
    if last == seq
        || LAST_WRITTEN
            .compare_exchange(
                last,
                seq,
                std::sync::atomic::Ordering::Relaxed,
                std::sync::atomic::Ordering::Relaxed,
            )
            .is_err()
    {
        return;
    }
    let now = Instant::now();
    let report = {
        let mut i = interval().lock().expect("frame stages lock");
        i.to_socket
            .push(micros(now.saturating_duration_since(stamps.published)));
        i.total
            .push(micros(now.saturating_duration_since(stamps.received)));
        let started = *i.started.get_or_insert(now);
        (now.duration_since(started) >= REPORT_EVERY).then(|| std::mem::take(&mut *i))
    };
    if let Some(mut done) = report {
        tracing::info!(
            event = "frame_stages",
            frames = done.decode.len(),
            writes = done.to_socket.len(),
            swap_to_cdp_us = median(&mut done.from_swap),
            cdp_to_hub_us = median(&mut done.to_hub),
            decode_us = median(&mut done.decode),
            hub_to_socket_us = median(&mut done.to_socket),
            cdp_to_socket_us = median(&mut done.total),
            "median time of each stage of a frame in the daemon"
        );
    }
}

/// How long ago, on the wall clock, Chrome swapped a frame whose `metadata.timestamp` is
/// `swapped` (seconds since the epoch), as seen at `received`.
pub fn since_swap(swapped: Option<f64>, received: Instant) -> Option<Duration> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs_f64();
    let at_read = now - received.elapsed().as_secs_f64();
    Duration::try_from_secs_f64(at_read - swapped?).ok()
}

fn median(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}
