//! Sites per agent, at the network layer (DESIGN.md §20): every document request of an
//! agent's tab — `navigate`, `new_tab`, a link, a redirect, a form post, a page script, a
//! popup, a frame — is paused at `Fetch` (the session's `Fetch.enable` for documents, see
//! `prompts::auth`) and fails before it leaves when the agent's sites refuse it, so the
//! refused site receives no request at all. `Aborted` commits no error page: the tab stays
//! where it was. The agent's answer (or its next one) names the URL and the rule. The
//! person's tabs are never filtered.
//!
//! Owns the rules each agent of the session is held to (set on each of its calls, so a change
//! to its record applies from its next call) and the verdict on a paused request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::browser::error::SessionError;
use crate::browser::session::handle::BrowserSession;
use crate::browser::tabs::owner::TabOwner;
use crate::cdp::CdpEvent;
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
    fn all_open(&self) -> bool {
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

impl BrowserSession {
    /// Holds `agent_id`'s tabs to `rules` from now on (called with each of its tool calls).
    pub(crate) fn set_agent_sites(&self, agent_id: &str, rules: SiteRules) {
        let mut all = self.agents.sites.rules.lock().expect("agent sites lock");
        if all.get(agent_id).map(|r| r.as_ref()) != Some(&rules) {
            all.insert(agent_id.to_string(), Arc::new(rules));
        }
    }

    /// Refuses `url` for `agent_id` before anything is sent (an agent's `navigate` and
    /// `new_tab`): the same rule the network layer applies, with a clear error.
    pub(in crate::browser) fn check_agent_site(
        &self,
        agent_id: &str,
        url: &str,
    ) -> Result<(), SessionError> {
        let Some(rules) = self.agents.sites.get(agent_id) else {
            return Ok(());
        };
        rules
            .verdict(url)
            .map_err(|refusal| SessionError::SiteRefused {
                url: url.to_string(),
                rule: refusal.rule,
            })
    }

    /// Lets a paused document request go on, or fails it when it comes from an agent's tab
    /// and its sites refuse the URL (from a task: the event loop never waits).
    pub(in crate::browser) fn decide_paused(self: &Arc<Self>, event: &CdpEvent) {
        let Some(request_id) = event.params["requestId"].as_str().map(str::to_string) else {
            return;
        };
        let session = self.clone();
        let params = event.params.clone();
        tokio::spawn(async move {
            let refused = match session.agents.sites.all_open() {
                true => None,
                false => session.refused(&params).await,
            };
            let (method, reply) = match refused {
                None => ("Fetch.continueRequest", json!({ "requestId": request_id })),
                Some(refused) => {
                    session.tell_refused(&refused);
                    (
                        "Fetch.failRequest",
                        json!({ "requestId": request_id, "errorReason": "Aborted" }),
                    )
                }
            };
            if let Err(error) = session.cdp.call(method, reply).await {
                // The request may have been cancelled meanwhile (the tab closed).
                tracing::debug!(event = "paused_request_not_answered", method, %error);
            }
        });
    }

    /// The refusal of a paused document request, if an agent's tab made it and its sites say
    /// no.
    async fn refused(&self, params: &serde_json::Value) -> Option<Refused> {
        let url = params["request"]["url"].as_str()?;
        let frame = params["frameId"].as_str()?;
        let (target_id, owner) = self.owner_of_frame(frame).await?;
        let TabOwner::Agent { id, .. } = owner else {
            return None;
        };
        let rules = self.agents.sites.get(&id)?;
        let refusal = rules.verdict(url).err()?;
        Some(Refused {
            agent_id: id,
            target_id,
            url: url.to_string(),
            rule: refusal.rule,
        })
    }

    /// The tab a frame is in and its owner. A frame of a tab not tracked yet (a popup's first
    /// document, asked for before it is attached) is its opener's: Chrome is asked for it.
    async fn owner_of_frame(&self, frame: &str) -> Option<(String, TabOwner)> {
        if let Some(tab) = self.tabs.tab_of_frame(frame) {
            return Some((tab.target_id, tab.owner));
        }
        let info = self
            .cdp
            .call("Target.getTargetInfo", json!({ "targetId": frame }))
            .await
            .ok()?;
        let opener = info["targetInfo"]["openerId"].as_str()?;
        let owner = self.tabs.owner_of(opener)?;
        Some((frame.to_string(), owner))
    }

    fn tell_refused(&self, refused: &Refused) {
        let url: String = refused.url.chars().take(300).collect();
        tracing::info!(event = "site_refused", channel_id = %self.channel(), agent_id = %refused.agent_id, target_id = %refused.target_id, rule = %refused.rule);
        self.note_for_agent(
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
