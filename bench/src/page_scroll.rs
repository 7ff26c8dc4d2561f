//! What the wheel benches read of the page and the clock, shared by the daemon's run
//! (`bench_wheel`) and the raw-CDP floor (`bench_wheel_raw`): the page's scroll log and a
//! monotonic instant on the wall clock.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// Installs the page's scroll log (`window.__wheelLog`: `[wall ms, scrollY]` per `scroll`).
pub const SCROLL_LOG: &str = "window.__wheelLog = []; if (!window.__wheelLogOn) { \
    window.__wheelLogOn = true; addEventListener('scroll', () => \
    window.__wheelLog.push([performance.timeOrigin + performance.now(), scrollY])); } true";

/// `at` on the wall clock, in microseconds since the epoch.
pub fn wall_us(at: Instant) -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64;
    let now_i = Instant::now();
    if at <= now_i {
        now - (now_i - at).as_micros() as u64
    } else {
        now + (at - now_i).as_micros() as u64
    }
}

/// The page's `scroll` events: `(µs since the epoch, scrollY)`.
pub struct PageScroll(pub Vec<(u64, u32)>);

impl PageScroll {
    pub fn parse(log: &Value) -> Self {
        let entries = log.as_array().map(Vec::as_slice).unwrap_or_default();
        Self(
            entries
                .iter()
                .filter_map(|e| Some(((e[0].as_f64()? * 1000.0) as u64, e[1].as_f64()? as u32)))
                .collect(),
        )
    }

    /// When the page first reported `offset`.
    pub fn reached(&self, offset: u32) -> Option<u64> {
        self.0.iter().find(|(_, y)| *y == offset).map(|(t, _)| *t)
    }

    /// The offset the page had reported by `at` (`from` before any report).
    pub fn at(&self, at: u64, from: u32) -> u32 {
        self.0
            .iter()
            .take_while(|(t, _)| *t <= at)
            .last()
            .map_or(from, |(_, y)| *y)
    }
}
