//! Keeping agents' tabs off browser-internal pages after the fact: a redirect, a page script,
//! a popup or the person's own navigation can take a tab where `navigate` would never send it
//! (see the floor's `url_policy`). Such an agent tab is closed at once and its agent told in its
//! next tool result; a tool never runs in a tab that shows one (checked against the URL
//! Chrome last reported, recorded as reports arrive: no round trip per tool call).
//!
//! A history step checks the entry it goes to the same way, against a navigation history the
//! tools read after the last navigation when no navigation happened since (no round trip of
//! its own), else against one it asks for.
//!
//! Owns the URLs, navigation counts and kept histories it records (`session.url_guard()`),
//! leaves its notes for agents in `guard::notes`, and marks the tabs it is closing in their
//! records; never touches a tab of the person's (except in a session where every tab is a
//! tool's: `mcp-host-browser`).

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::json;

use super::notes::AgentNotes;
use crate::browser::floor::{
    agent_may_stay_on, Delivery, RoomEvents, SessionCore, SessionError, TabOwner, OWNER_AGENT,
};

/// The guard's state in a session (which tabs it is closing is marked in their records).
#[derive(Debug, Default)]
pub struct UrlGuardState {
    /// Every tab is a tool's, the person's included (`mcp-host-browser` has no person).
    every_tab: AtomicBool,
    /// Each page target's URL as Chrome last reported it, kept by a follower of its own (see
    /// [`Shown`]); started as the session opens (before target discovery, so each target's
    /// creation is seen).
    shown: Shown,
}

/// The URL each page target shows, from `Target.targetInfoChanged` as it arrives: read by
/// the check before every tool call instead of asking Chrome (`Target.getTargetInfo`, one
/// round trip per call at any distance). Just as fresh: Chrome reports a committed navigation
/// before it answers any later command, so what a round trip would have said has arrived with
/// the events already read, and this task does nothing but record them (the session's event
/// task awaits CDP calls of its own and can fall behind). A target not reported yet is asked.
///
/// It also notes when each target's latest main-frame navigation (`Page.frameNavigated`,
/// `Page.navigatedWithinDocument`) was received, so a navigation history the tools asked for
/// after a navigation can be kept and trusted while no navigation was received since it was
/// asked for: `go_back` then checks the entry it goes to against it instead of asking first
/// (see [`UrlGuard::keep_history`]).
#[derive(Debug, Clone, Default)]
struct Shown(Arc<Mutex<Seen>>);

#[derive(Debug, Default)]
struct Seen {
    /// Each page target's URL.
    urls: HashMap<String, String>,
    /// When the latest navigation of each main frame (by its id, which is its target's) was
    /// received from Chrome.
    navigated: HashMap<String, Instant>,
    /// A navigation history per target, and when it was asked for.
    histories: HashMap<String, (Instant, serde_json::Value)>,
    /// When reports were last missed (a slow reader): no history asked before is trusted.
    lagged: Option<Instant>,
}

/// The events the URL each target shows is followed by.
pub(in crate::browser) const SHOWN_EVENTS: &[&str] = &[
    "Target.targetCreated",
    "Target.targetInfoChanged",
    "Target.targetDestroyed",
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
];

impl Shown {
    /// Records from `events` (the session's [`SHOWN_EVENTS`], queued before anything is read)
    /// until the dispatch ends.
    async fn record(self, mut events: RoomEvents) {
        let urls = self.0;
        loop {
            let event = match events.recv().await {
                Some(Delivery::Event(event)) => event,
                // Missed reports: forget everything, so each target is asked again
                // (and no kept history is trusted: a navigation may be among them).
                Some(Delivery::Lagged(_)) => {
                    let mut seen = urls.lock().expect("shown lock");
                    seen.urls.clear();
                    seen.histories.clear();
                    seen.lagged = Some(Instant::now());
                    continue;
                }
                None => return,
            };
            let info = &event.params["targetInfo"];
            match event.method.as_str() {
                "Target.targetInfoChanged" | "Target.targetCreated" if info["type"] == "page" => {
                    let (Some(id), Some(url)) = (info["targetId"].as_str(), info["url"].as_str())
                    else {
                        continue;
                    };
                    // Short lock, never held across an await.
                    urls.lock()
                        .expect("shown lock")
                        .urls
                        .insert(id.to_string(), url.to_string());
                }
                "Target.targetDestroyed" => {
                    if let Some(id) = event.params["targetId"].as_str() {
                        let mut seen = urls.lock().expect("shown lock");
                        seen.urls.remove(id);
                        seen.navigated.remove(id);
                        seen.histories.remove(id);
                    }
                }
                "Page.frameNavigated" if event.params["frame"]["parentId"].is_null() => {
                    if let Some(frame) = event.params["frame"]["id"].as_str() {
                        urls.lock()
                            .expect("shown lock")
                            .navigated(frame, event.received);
                    }
                }
                "Page.navigatedWithinDocument" => {
                    if let Some(frame) = event.params["frameId"].as_str() {
                        urls.lock()
                            .expect("shown lock")
                            .navigated(frame, event.received);
                    }
                }
                _ => {}
            }
        }
    }

    fn get(&self, target_id: &str) -> Option<String> {
        self.0
            .lock()
            .expect("shown lock")
            .urls
            .get(target_id)
            .cloned()
    }

    /// Records what Chrome answered for a target, unless a report came in meanwhile.
    fn seed(&self, target_id: &str, url: &str) {
        self.0
            .lock()
            .expect("shown lock")
            .urls
            .entry(target_id.to_string())
            .or_insert_with(|| url.to_string());
    }
}

impl Seen {
    /// A navigation of frame `frame` (a target's main frame when it has a target's id),
    /// received at `received`.
    fn navigated(&mut self, frame: &str, received: Instant) {
        self.navigated.insert(frame.to_string(), received);
        self.histories.remove(frame);
    }

    /// Whether a history of `target_id` asked for at `asked` still holds: no navigation of it
    /// and no missed report was received since.
    fn holds(&self, target_id: &str, asked: Instant) -> bool {
        let after = |at: Option<&Instant>| at.is_some_and(|at| *at >= asked);
        !after(self.navigated.get(target_id)) && !after(self.lagged.as_ref())
    }
}

/// The URL guard of one session (borrowed from the session: `session.url_guard()`).
pub(crate) struct UrlGuard<'s> {
    core: &'s SessionCore,
    state: &'s UrlGuardState,
    notes: &'s AgentNotes,
}

impl<'s> UrlGuard<'s> {
    pub(in crate::browser) fn new(
        core: &'s SessionCore,
        state: &'s UrlGuardState,
        notes: &'s AgentNotes,
    ) -> Self {
        Self { core, state, notes }
    }

    /// Treats every tab as an agent's (a session driven only by tools).
    pub(crate) fn every_tab(&self) {
        self.state.every_tab.store(true, Ordering::SeqCst);
    }

    /// The agent id to tell when the tracked tab `target_id` must leave an internal page;
    /// `None` when it is the person's tab (or not tracked).
    fn guarded_by(&self, target_id: &str) -> Option<String> {
        match self.core.tabs().owner_of(target_id)? {
            TabOwner::Agent { id, .. } => Some(id),
            TabOwner::Human if self.state.every_tab.load(Ordering::SeqCst) => {
                Some(OWNER_AGENT.to_string())
            }
            TabOwner::Human => None,
        }
    }

    /// Called whenever a tracked tab's URL is learnt: an agent's tab on a page agents may not
    /// use is closed, and its agent gets a note. Returns true when it closes the tab.
    pub(in crate::browser) fn landing(&self, target_id: &str, url: &str) -> bool {
        if agent_may_stay_on(url) {
            return false;
        }
        let Some(agent_id) = self.guarded_by(target_id) else {
            return false;
        };
        let first = self.core.tabs().begin_guard_close(target_id);
        if !first {
            return true;
        }
        tracing::warn!(event = "internal_page_closed", channel_id = %self.core.channel(), agent_id = %agent_id, target_id = %target_id, scheme = url.split(':').next().unwrap_or_default());
        self.notes.leave(
            &agent_id,
            format!(
                "Note: your tab {target_id} reached {url}, a page of the browser itself that \
                 agents may not open (only http, https, data, blob of your own page and \
                 about:blank); Porthole closed that tab. Your next call runs in another tab \
                 of yours (a new one if you have none)."
            ),
        );
        let cdp = self.core.cdp().clone();
        let target = target_id.to_string();
        tokio::spawn(async move {
            if let Err(error) = cdp
                .call("Target.closeTarget", json!({ "targetId": target }))
                .await
            {
                tracing::debug!(event = "internal_page_close_failed", target_id = %target, %error);
            }
        });
        true
    }

    /// Keeps `history` (a `Page.getNavigationHistory` reply) of `target_id`, asked for at
    /// `asked`, unless a navigation of it was received since (it may not be in the reply).
    pub(crate) fn keep_history(&self, target_id: &str, asked: Instant, history: serde_json::Value) {
        let mut seen = self.state.shown.0.lock().expect("shown lock");
        if seen.holds(target_id, asked) {
            seen.histories
                .insert(target_id.to_string(), (asked, history));
        }
    }

    /// The navigation history of `target_id` kept by [`Self::keep_history`], while no
    /// navigation of its main frame was received since it was asked for (a history step's
    /// entry is then checked and taken from it with no round trip of its own).
    pub(crate) fn kept_history(&self, target_id: &str) -> Option<serde_json::Value> {
        let seen = self.state.shown.0.lock().expect("shown lock");
        let (asked, history) = seen.histories.get(target_id)?;
        seen.holds(target_id, *asked).then(|| history.clone())
    }

    /// Follows the URL each target shows from `events` (the session's [`SHOWN_EVENTS`], queued
    /// before target discovery is on, so every target's creation is seen and the first tool
    /// call in a tab needs no `Target.getTargetInfo` of its own) until the session ends.
    pub(in crate::browser) fn follow(
        &self,
        events: RoomEvents,
    ) -> impl Future<Output = ()> + Send + 'static {
        self.state.shown.clone().record(events)
    }

    /// Ok when a tool may run in `target_id`: its page, as Chrome reports it now, is one agents
    /// may use. An agent's tab that is not is closed (see [`Self::landing`]).
    pub(crate) async fn check_tab(&self, target_id: &str) -> Result<(), SessionError> {
        let shown = &self.state.shown;
        let url = match shown.get(target_id) {
            Some(url) => url,
            None => {
                let reply = self
                    .core
                    .cdp()
                    .call("Target.getTargetInfo", json!({ "targetId": target_id }))
                    .await?;
                let url = reply["targetInfo"]["url"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                shown.seed(target_id, &url);
                url
            }
        };
        let url = url.as_str();
        if agent_may_stay_on(url) {
            return Ok(());
        }
        if self.landing(target_id, url) {
            return Err(SessionError::BadUrl(format!(
                "this call did not run: your tab was on {url}, a page of the browser itself, \
                 and was closed"
            )));
        }
        Err(SessionError::BadUrl(format!(
            "this call did not run: the tab shows {url}, a page of the browser itself, where \
             tools do not run; open a new tab or navigate to a web page"
        )))
    }
}
