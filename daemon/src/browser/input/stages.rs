//! Bench-only attribution of a wheel event's time in the daemon: read from the pane's socket →
//! taken from the queue → `Input.dispatchMouseEvent` sent → Chrome's answer, and Chrome's swap
//! of each frame written to a pane while wheel input is under way.
//!
//! On with the frame stage log (`PORTHOLE_BENCH_FRAME_STAGES=1`, the floor's `bench`); when off,
//! queue entries carry no trace and each stage costs one load of a flag. Times are wall-clock
//! microseconds since the epoch, so the bench (another process) and Chrome's frame timestamps
//! can be set beside them. One `input_stages` line per wheel dispatch and one `wheel_frame` line
//! per frame written within [`FRAMES_AFTER`] of the last wheel answer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long after a wheel answer the frames written are logged one by one.
const FRAMES_AFTER: Duration = Duration::from_secs(1);

/// When the input in one queue entry was read and taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trace {
    /// Pane events merged into this entry.
    pub events: u32,
    /// When the newest of them was read (µs since the epoch).
    pub read_us: u64,
    /// When the dispatcher took the entry from the queue (0 until then).
    pub popped_us: u64,
}

/// Whether traces are kept (the frame stage log's switch).
pub fn on() -> bool {
    crate::browser::floor::stages_on()
}

/// Now, in microseconds since the epoch.
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

impl Trace {
    /// An event read just now (`None` when off).
    pub fn read() -> Option<Self> {
        on().then(|| Trace {
            events: 1,
            read_us: now_us(),
            popped_us: 0,
        })
    }

    /// Another event read just now, merged into this entry.
    pub fn merged(&mut self, newer: Option<Trace>) {
        if let Some(newer) = newer {
            self.events += newer.events;
            self.read_us = newer.read_us;
        }
    }
}

/// Unix ms of the last wheel answer (0: none yet).
static LAST_WHEEL_MS: AtomicU64 = AtomicU64::new(0);

/// A wheel dispatch was answered: logs its stages.
pub fn wheel_answered(trace: Option<Trace>, sent_us: u64, delta_y: f64, in_flight: usize) {
    let Some(trace) = trace else {
        return;
    };
    let replied_us = now_us();
    LAST_WHEEL_MS.store(replied_us / 1000, Ordering::Relaxed);
    tracing::info!(
        event = "input_stages",
        kind = "wheel",
        events = trace.events,
        delta_y,
        in_flight,
        read_us = trace.read_us,
        popped_us = trace.popped_us,
        sent_us,
        replied_us,
        "one wheel dispatch: read, taken from the queue, sent to Chrome, answered"
    );
}

/// A frame that Chrome swapped `from_swap` before the daemon read it at `received` was just
/// written to a pane: logged while wheel input is recent.
pub fn frame_written(from_swap: Option<Duration>, received: Instant) {
    let last = LAST_WHEEL_MS.load(Ordering::Relaxed);
    // No wheel yet: no clock read either (this runs for every pane and frame).
    if last == 0 {
        return;
    }
    let now = now_us();
    if now / 1000 > last + FRAMES_AFTER.as_millis() as u64 {
        return;
    }
    let received_us = now.saturating_sub(micros(received.elapsed()));
    let swap_us = from_swap.map_or(0, |d| received_us.saturating_sub(micros(d)));
    tracing::info!(
        event = "wheel_frame",
        swap_us,
        received_us,
        written_us = now,
        "a frame written while wheel input is recent"
    );
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
