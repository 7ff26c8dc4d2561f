//! Sites per agent, at the network layer (DESIGN.md §20): every document request of an
//! agent's tab — `navigate`, `new_tab`, a link, a redirect, a form post, a page script, a
//! popup, a frame — is paused at `Fetch` (the session's `Fetch.enable` for documents, see
//! `prompts::auth`) and fails before it leaves when the agent's sites refuse it, so the
//! refused site receives no request at all. `Aborted` commits no error page: the tab stays
//! where it was. The agent's answer (or its next one) names the URL and the rule. The
//! person's tabs are never filtered.
//!
//! Owns the rules each agent of the session is held to (set on each of its calls, so a change
//! to its record applies from its next call) and the verdict on a paused request
//! (`session.sites()`).

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

    /// Whether no agent of the session is restricted (the common case: nothing to look up).
    pub(in crate::browser) fn all_open(&self) -> bool {
        self.rules
            .lock()
            .expect("agent sites lock")
            .values()
            .all(|r| r.is_open())
    }
}

/// A paused document request an agent's sites refuse.
struct Refused {
    agent_id: String,
    target_id: String,
    url: String,
    rule: String,
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

    /// The refusal of a document request of `agent_id`'s tab to `url`, if its sites say no
    /// (told to the agent).
    pub(in crate::browser) fn refuse(&self, agent_id: &str, target_id: &str, url: &str) -> bool {
        let Some(rules) = self.sites.get(agent_id) else {
            return false;
        };
        let Err(refusal) = rules.verdict(url) else {
            return false;
        };
        self.tell_refused(&Refused {
            agent_id: agent_id.to_string(),
            target_id: target_id.to_string(),
            url: url.to_string(),
            rule: refusal.rule,
        });
        true
    }

    fn tell_refused(&self, refused: &Refused) {
        let url: String = refused.url.chars().take(300).collect();
        tracing::info!(event = "site_refused", channel_id = %self.core.channel(), agent_id = %refused.agent_id, target_id = %refused.target_id, rule = %refused.rule);
        self.notes.leave(
            &refused.agent_id,
            format!(
                "Note: Porthole refused a page load in your tab {}: {url} — this agent may not \
                 open that site ({}). Nothing was sent to it; the tab stays where it was. The \
                 person sets an agent's sites; ask them if you need it.",
                refused.target_id, refused.rule
            ),
        );
    }
}
