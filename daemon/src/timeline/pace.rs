//! The pace of tool-call frames: at most one `Page.captureScreenshot` per tab each
//! [`CAPTURE_GAP`]. A capture makes Chromium encode the whole viewport, and an agent calling
//! tools back to back would otherwise pay one per call (`porthole-bench timeline` measured
//! six times fewer calls with recording on). A call within the gap of its tab's last capture
//! is held, with everything recorded after it so the timeline keeps its order, until the gap
//! ends; then one capture of each tab serves every held call of that tab (the page after the
//! last of them; identical frames are stored once). A held event keeps the time it happened;
//! nothing waits longer than the gap and the writer's window (`recorder::WRITE_WINDOW`), and
//! a daemon SIGKILL loses at most that.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use tokio::time::Instant;

/// The least time between two captures of one tab for tool calls.
pub const CAPTURE_GAP: Duration = Duration::from_secs(1);
/// Held events beyond this many are released at once (a flood of calls).
const MAX_HELD: usize = 256;

/// Events of one channel on their way to the store, in the order they happened. `T` is the
/// event; `Some(tab)` says it wants a capture of that tab.
pub struct Pace<T> {
    held: VecDeque<(T, Option<String>)>,
    /// When the held events are released.
    due: Option<Instant>,
    last_capture: HashMap<String, Instant>,
}

impl<T> Default for Pace<T> {
    fn default() -> Self {
        Self {
            held: VecDeque::new(),
            due: None,
            last_capture: HashMap::new(),
        }
    }
}

impl<T> Pace<T> {
    /// Takes an event that happened `now`. Returns it (to write at once, with a capture of
    /// `capture_of`) when nothing is held and its tab was not captured within the gap;
    /// otherwise holds it and returns `None`.
    pub fn admit(&mut self, event: T, capture_of: Option<String>, now: Instant) -> Option<T> {
        self.last_capture
            .retain(|_, at| now.saturating_duration_since(*at) < CAPTURE_GAP);
        let recent = capture_of
            .as_ref()
            .and_then(|tab| self.last_capture.get(tab).copied());
        if self.held.is_empty() {
            match recent {
                None => return Some(event),
                Some(at) => self.due = Some(at + CAPTURE_GAP),
            }
        }
        self.held.push_back((event, capture_of));
        if self.held.len() >= MAX_HELD {
            self.due = Some(now);
        }
        None
    }

    /// When [`Pace::release`] is due; `None` while nothing is held.
    pub fn due(&self) -> Option<Instant> {
        self.due
    }

    /// Every held event in order, each with the tab it wants a capture of: one capture per
    /// tab, taken now, serves every held event of that tab (the page after the last of them).
    /// Call [`Pace::captured`] for each capture taken.
    pub fn release(&mut self) -> Vec<(T, Option<String>)> {
        self.due = None;
        self.held.drain(..).collect()
    }

    /// Notes a capture of `tab` taken at `at`.
    pub fn captured(&mut self, tab: &str, at: Instant) {
        self.last_capture.insert(tab.to_string(), at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(t: &str) -> Option<String> {
        Some(t.to_string())
    }

    #[test]
    fn a_tab_is_captured_at_once_then_held_until_its_gap_ends() {
        let mut pace = Pace::default();
        let t0 = Instant::now();
        assert_eq!(pace.admit(1, tab("a"), t0), Some(1));
        pace.captured("a", t0);
        let soon = t0 + Duration::from_millis(100);
        assert_eq!(pace.admit(2, tab("a"), soon), None);
        assert_eq!(pace.admit(3, tab("a"), soon), None);
        assert_eq!(pace.due(), Some(t0 + CAPTURE_GAP));
        assert_eq!(pace.release(), vec![(2, tab("a")), (3, tab("a"))]);
        assert_eq!(pace.due(), None);
        pace.captured("a", t0 + CAPTURE_GAP);
        // A whole gap later the tab is captured at once again.
        let later = t0 + CAPTURE_GAP * 2;
        assert_eq!(pace.admit(4, tab("a"), later), Some(4));
    }

    #[test]
    fn events_behind_a_held_one_wait_in_order() {
        let mut pace = Pace::default();
        let t0 = Instant::now();
        pace.captured("a", t0);
        assert_eq!(pace.admit(1, tab("a"), t0), None);
        // Another tab and an event without a capture wait behind it.
        assert_eq!(pace.admit(2, tab("b"), t0), None);
        assert_eq!(pace.admit(3, None, t0), None);
        assert_eq!(pace.admit(4, tab("b"), t0), None);
        assert_eq!(
            pace.release(),
            vec![(1, tab("a")), (2, tab("b")), (3, None), (4, tab("b"))]
        );
        // Nothing held: an event without a capture goes at once.
        assert_eq!(pace.admit(5, None, t0), Some(5));
    }

    #[test]
    fn a_flood_is_released_at_once() {
        let mut pace = Pace::default();
        let t0 = Instant::now();
        pace.captured("a", t0);
        for n in 0..MAX_HELD {
            assert_eq!(pace.admit(n, tab("a"), t0), None);
        }
        assert_eq!(pace.due(), Some(t0));
        assert_eq!(pace.release().len(), MAX_HELD);
        assert_eq!(pace.due(), None);
    }
}
