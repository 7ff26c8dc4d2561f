//! Two guards learned the hard way (the tab-broker seed):
//!
//! - [`HumanActivity`]: a person's input in a tab holds agents' input, navigation, reload and
//!   close there back for `agents.human_quiet_secs` after their last input, and remembers the
//!   tab as it was before they began, so the agent's next read can be told what they changed.
//! - [`ReopenLoop`]: an agent that opened and closed (or reloaded) the same page twice within
//!   ten minutes is refused the third time and told to stop and ask the person.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::page_state::PageState;

/// The window of the reopen-loop guard.
pub const LOOP_WINDOW: Duration = Duration::from_secs(600);
/// Cycles of one page within [`LOOP_WINDOW`] after which the next open or reload is refused.
pub const LOOP_LIMIT: usize = 2;

#[derive(Debug, Default)]
struct Touch {
    last: Option<Instant>,
    /// The tab before the person's first input since the agent last read it.
    before: Option<PageState>,
    /// The person acted since the agent's last read.
    dirty: bool,
}

/// Person's input per tab. Short lock, never held across an await.
#[derive(Debug, Default)]
pub struct HumanActivity {
    tabs: Mutex<HashMap<String, Touch>>,
}

impl HumanActivity {
    /// Records a person's input in `target_id`; true when the tab's "before" state should be
    /// read first (their first input since an agent last read it).
    pub fn touched(&self, target_id: &str) -> bool {
        let mut tabs = self.tabs.lock().expect("activity lock");
        let touch = tabs.entry(target_id.to_string()).or_default();
        touch.last = Some(Instant::now());
        let first = !touch.dirty;
        touch.dirty = true;
        first
    }

    /// Stores the state read before the person's first input.
    pub fn set_before(&self, target_id: &str, state: PageState) {
        if let Some(touch) = self.tabs.lock().expect("activity lock").get_mut(target_id) {
            touch.before.get_or_insert(state);
        }
    }

    /// How long agents must still wait before acting in `target_id`, if at all.
    pub fn quiet_left(&self, target_id: &str, quiet: Duration) -> Option<Duration> {
        let tabs = self.tabs.lock().expect("activity lock");
        let last = tabs.get(target_id)?.last?;
        quiet.checked_sub(last.elapsed()).filter(|d| !d.is_zero())
    }

    /// The state before the person acted, when they did since the agent was last told.
    pub fn before(&self, target_id: &str) -> Option<PageState> {
        let tabs = self.tabs.lock().expect("activity lock");
        let touch = tabs.get(target_id)?;
        touch.dirty.then(|| touch.before.clone()).flatten()
    }

    /// The agent was told what changed: the next input starts a new round.
    pub fn told(&self, target_id: &str) {
        if let Some(touch) = self.tabs.lock().expect("activity lock").get_mut(target_id) {
            touch.dirty = false;
            touch.before = None;
        }
    }
}

/// Per agent, the pages it closed or reloaded, with when. Short lock.
#[derive(Debug, Default)]
pub struct ReopenLoop {
    cycles: Mutex<HashMap<String, Vec<(String, Instant)>>>,
}

impl ReopenLoop {
    /// Records that `agent_id` closed or reloaded `url`.
    pub fn cycled(&self, agent_id: &str, url: &str) {
        let mut cycles = self.cycles.lock().expect("loop lock");
        let list = cycles.entry(agent_id.to_string()).or_default();
        list.retain(|(_, at)| at.elapsed() < LOOP_WINDOW);
        list.push((page_key(url), Instant::now()));
    }

    /// The refusal for opening or reloading `url` again, when the agent is going round.
    pub fn refusal(&self, agent_id: &str, url: &str) -> Option<String> {
        let key = page_key(url);
        let cycles = self.cycles.lock().expect("loop lock");
        let count = cycles
            .get(agent_id)?
            .iter()
            .filter(|(u, at)| *u == key && at.elapsed() < LOOP_WINDOW)
            .count();
        (count >= LOOP_LIMIT).then(|| {
            format!(
                "Refused: you opened and closed (or reloaded) {url} {count} times in the last \
                 ten minutes. Stop, and ask the person at the browser what is wrong \
                 (request_human with what you tried and what you see)."
            )
        })
    }
}

/// The page a URL names, without its fragment (`#…` changes are the same page).
fn page_key(url: &str) -> String {
    url.split('#')
        .next()
        .unwrap_or(url)
        .trim_end_matches('/')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_holds_for_the_quiet_time_and_reports_once() {
        let activity = HumanActivity::default();
        assert!(activity.quiet_left("t", Duration::from_secs(20)).is_none());
        assert!(activity.touched("t"));
        assert!(
            !activity.touched("t"),
            "only the first input reads the state"
        );
        activity.set_before("t", PageState::default());
        assert!(activity.quiet_left("t", Duration::from_secs(20)).is_some());
        assert!(activity.quiet_left("t", Duration::ZERO).is_none());
        assert_eq!(activity.before("t"), Some(PageState::default()));
        assert_eq!(
            activity.before("t"),
            Some(PageState::default()),
            "kept until told"
        );
        activity.told("t");
        assert_eq!(activity.before("t"), None);
        assert!(
            activity.touched("t"),
            "a new round after the agent was told"
        );
    }

    #[test]
    fn the_third_round_on_one_page_is_refused() {
        let loops = ReopenLoop::default();
        loops.cycled("a", "http://x/page#top");
        assert!(loops.refusal("a", "http://x/page").is_none());
        loops.cycled("a", "http://x/page/");
        let refusal = loops.refusal("a", "http://x/page").unwrap();
        assert!(refusal.contains("request_human"), "{refusal}");
        assert!(loops.refusal("b", "http://x/page").is_none(), "per agent");
        assert!(loops.refusal("a", "http://x/other").is_none(), "per page");
    }
}
