//! Sites per agent, at the network layer (DESIGN.md §20, §20a): every request of an agent's
//! tab — a page load by `navigate`, `new_tab`, a link, a redirect, a form post, a page script,
//! a popup or a frame, and every image, script, stylesheet, font, `fetch`, XHR, beacon,
//! `EventSource`, prefetch, CSP report and worker request of its pages — is paused at `Fetch`
//! (once any agent has site rules, the session pauses every request: `prompts::auth`) and fails
//! before it leaves when the agent's sites refuse it, so the refused site receives no request.
//! `Aborted` commits no error page: the tab stays where it was. The agent's answer (or its
//! next one) names the URL and the rule: a page load each time, a page's other requests once
//! per site between its calls. The person's tabs are never filtered; a request no tab can be
//! told for (a shared or service worker's) is refused when any agent's sites refuse it
//! ([`Sites::refused_by_any`], the session's `paused`). Not held: WebSocket handshakes, which
//! Chromium 156 never pauses (docs/measured-network.md).
//!
//! Owns the rules each agent of the session is held to (set on each of its calls and when the
//! owner changes its record) and the verdict on a paused request (`session.sites()`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::notes::AgentNotes;
use crate::browser::floor::{SessionCore, SessionError};
use crate::sites::SiteRules;

/// The rules each agent of a session is held to, by agent id. Short lock, never held across
/// an await.
#[derive(Debug, Default)]
pub struct AgentSites {
    rules: Mutex<HashMap<String, Arc<SiteRules>>>,
}

impl AgentSites {
    fn get(&self, agent_id: &str) -> Option<Arc<SiteRules>> {
        self.rules
            .lock()
            .expect("agent sites lock")
            .get(agent_id)
            .cloned()
    }

    /// The agent whose sites refuse `url`, and the rule (a request no tab can be told for is
    /// refused when any agent's would be).
    pub(in crate::browser) fn refused_by_any(&self, url: &str) -> Option<(String, String)> {
        let all = self.rules.lock().expect("agent sites lock");
        all.iter()
            .find_map(|(agent, rules)| Some((agent.clone(), rules.verdict(url).err()?.rule)))
    }

    /// Whether no agent of the session is restricted (the common case: nothing to look up).
    pub(in crate::browser) fn all_open(&self) -> bool {
        self.rules
            .lock()
            .expect("agent sites lock")
            .values()
            .all(|r| r.is_open())
    }
}

/// What a refused request was, for the agent's note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::browser) enum Request {
    /// A load of the tab's own page (told each time, with its URL).
    PageLoad,
    /// A frame's document (told each time, with its URL).
    FrameLoad,
    /// Anything else a page asks for: an image, a script, a `fetch`… (told once per site).
    Other,
}

/// A paused request an agent's sites refuse.
struct Refused<'r> {
    agent_id: &'r str,
    target_id: &'r str,
    url: &'r str,
    rule: String,
    request: Request,
}

/// The sites of one session's agents (borrowed from the session: `session.sites()`).
pub(crate) struct Sites<'s> {
    core: &'s SessionCore,
    sites: &'s AgentSites,
    notes: &'s AgentNotes,
}

impl<'s> Sites<'s> {
    pub(in crate::browser) fn new(
        core: &'s SessionCore,
        sites: &'s AgentSites,
        notes: &'s AgentNotes,
    ) -> Self {
        Self { core, sites, notes }
    }

    /// Holds `agent_id`'s tabs to `rules` from now on (called with each of its tool calls).
    pub(crate) fn set(&self, agent_id: &str, rules: SiteRules) {
        let mut all = self.sites.rules.lock().expect("agent sites lock");
        if all.get(agent_id).map(|r| r.as_ref()) != Some(&rules) {
            all.insert(agent_id.to_string(), Arc::new(rules));
        }
    }

    /// The rules `agent_id` is held to now (None: none), for a check made elsewhere (the CDP
    /// door's cookie domains).
    pub(crate) fn rules_of(&self, agent_id: &str) -> Option<Arc<SiteRules>> {
        self.sites.get(agent_id)
    }

    /// Refuses `url` for `agent_id` before anything is sent (an agent's `navigate` and
    /// `new_tab`): the same rule the network layer applies, with a clear error.
    pub(in crate::browser) fn check(&self, agent_id: &str, url: &str) -> Result<(), SessionError> {
        let Some(rules) = self.sites.get(agent_id) else {
            return Ok(());
        };
        rules
            .verdict(url)
            .map_err(|refusal| SessionError::SiteRefused {
                url: url.to_string(),
                rule: refusal.rule,
            })
    }

    /// Whether `agent_id`'s sites refuse a request of its tab `target_id` to `url` (told to
    /// the agent): a page's or a frame's load each time, any other request once per site
    /// until the agent's next answer takes the note.
    pub(in crate::browser) fn refuse(
        &self,
        agent_id: &str,
        target_id: &str,
        url: &str,
        request: Request,
    ) -> bool {
        let Some(rules) = self.sites.get(agent_id) else {
            return false;
        };
        let Err(refusal) = rules.verdict(url) else {
            return false;
        };
        self.tell_refused(Refused {
            agent_id,
            target_id,
            url,
            rule: refusal.rule,
            request,
        });
        true
    }

    fn tell_refused(&self, refused: Refused<'_>) {
        tracing::info!(event = "site_refused", channel_id = %self.core.channel(), agent_id = %refused.agent_id, target_id = %refused.target_id, rule = %refused.rule, request = ?refused.request);
        let load = match refused.request {
            Request::PageLoad => Some("a page load"),
            Request::FrameLoad => Some("a frame's load"),
            Request::Other => None,
        };
        if let Some(load) = load {
            let url: String = refused.url.chars().take(300).collect();
            self.notes.leave(
                refused.agent_id,
                format!(
                    "Note: Porthole refused {load} in your tab {}: {url} — this agent may \
                     not open that site ({}). Nothing was sent to it; the tab stays where it \
                     was. The person sets an agent's sites; ask them if you need it.",
                    refused.target_id, refused.rule
                ),
            );
            return;
        }
        let site = crate::approvals::site_of(refused.url);
        self.notes.leave_once(
            refused.agent_id,
            format!(
                "Note: Porthole refused requests of the page in your tab {} to {site} (frames, \
                 images, scripts, fetch/XHR, beacons and the like) — this agent may not use \
                 that site ({}). Nothing was sent to it; the page may look or work differently \
                 without them.",
                refused.target_id, refused.rule
            ),
        );
    }
}
