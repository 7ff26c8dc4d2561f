//! The verdict on each request paused at `Fetch` (see `prompts::auth` for what is paused):
//! an agent's tab is held to its sites (`guard::sites`) and to the approvals its `confirm`
//! kinds name (DESIGN.md §20):
//! - `submit`: a request other than GET/HEAD/OPTIONS while one of its calls runs or settles
//!   (a form post, `fetch`, XHR, a beacon);
//! - `new_site`: a top-level page load to a site other than the tab's own page's, not
//!   remembered for it (an agent's `navigate` asks before it sends, and its load then passes).
//!
//! A request the person allows goes on untouched; any other fails before it leaves
//! (`Aborted`: a navigation commits no error page, so the tab stays as it was; a `fetch`
//! rejects), and the agent's answer (or its next one) says why. The person's tabs, and
//! requests no agent rule concerns, go on at once. Decided in a task: the event loop never
//! waits.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::approvals::{bounded_detail, site_of, ApprovalKind, Ask};
use crate::browser::session::handle::BrowserSession;
use crate::browser::tabs::owner::TabOwner;
use crate::cdp::CdpEvent;

/// Methods that send no data: never a `submit`.
const SAFE_METHODS: [&str; 3] = ["GET", "HEAD", "OPTIONS"];

impl BrowserSession {
    /// Lets a paused request go on, or fails it (see the module's doc).
    pub(in crate::browser) fn decide_paused(self: &Arc<Self>, event: &CdpEvent) {
        let Some(request_id) = event.params["requestId"].as_str().map(str::to_string) else {
            return;
        };
        let session = self.clone();
        let params = event.params.clone();
        tokio::spawn(async move {
            let held = session.agents.sites.all_open()
                && !session.agents.consent.any(ApprovalKind::Submit)
                && !session.agents.consent.any(ApprovalKind::NewSite);
            let fail = !held && session.holds_back(&params).await;
            let (method, reply) = match fail {
                false => ("Fetch.continueRequest", json!({ "requestId": request_id })),
                true => (
                    "Fetch.failRequest",
                    json!({ "requestId": request_id, "errorReason": "Aborted" }),
                ),
            };
            if let Err(error) = session.core.cdp.call(method, reply).await {
                // The request may have been cancelled meanwhile (the tab closed).
                tracing::debug!(event = "paused_request_not_answered", method, %error);
            }
        });
    }

    /// Whether an agent's rules hold back this paused request (the agent is told why).
    async fn holds_back(&self, params: &Value) -> bool {
        let (Some(url), Some(frame)) = (
            params["request"]["url"].as_str(),
            params["frameId"].as_str(),
        ) else {
            return false;
        };
        let Some((target_id, owner)) = self.owner_of_frame(frame).await else {
            return false;
        };
        let TabOwner::Agent { id, .. } = owner else {
            return false;
        };
        let document = params["resourceType"].as_str() == Some("Document");
        if document && self.refuse_site(&id, &target_id, url) {
            return true;
        }
        let method = params["request"]["method"].as_str().unwrap_or("GET");
        if !SAFE_METHODS.contains(&method) && self.agents.consent.acting(&id) {
            let detail = format!(
                "{method} {url}{}",
                match params["resourceType"].as_str() {
                    Some("Document") => " (a form sent by the page)".to_string(),
                    Some(other) => format!(" ({} request of the page's script)", other),
                    None => String::new(),
                }
            );
            let ask = self.ask_for(&id, ApprovalKind::Submit, &target_id, url, detail);
            if self.network_verdict(ask).await {
                return true;
            }
        }
        // A page load in the tab itself (its main frame's id is the tab's).
        let load = document && frame == target_id;
        if load
            && self.new_site_for(&id, &target_id, url)
            && !self.agents.consent.take_pass(&target_id, &site_of(url))
        {
            let detail = format!("load {url}");
            let ask = self.ask_for(&id, ApprovalKind::NewSite, &target_id, url, detail);
            return self.network_verdict(ask).await;
        }
        false
    }

    /// Whether a page load of `url` in `agent_id`'s tab `target_id` is a `new_site` to ask
    /// about: the agent is held to it, and the URL's site is not the tab's page's.
    pub(in crate::browser) fn new_site_for(
        &self,
        agent_id: &str,
        target_id: &str,
        url: &str,
    ) -> bool {
        if self
            .agents
            .consent
            .asks(agent_id, ApprovalKind::NewSite)
            .is_none()
        {
            return false;
        }
        let own_site = self.core.tabs.get(target_id).map(|t| site_of(&t.url));
        own_site.as_deref() != Some(site_of(url).as_str())
    }

    /// What the person is shown for `agent_id`'s act in `target_id`.
    pub(in crate::browser) fn ask_for(
        &self,
        agent_id: &str,
        kind: ApprovalKind,
        target_id: &str,
        url: &str,
        detail: String,
    ) -> Ask {
        let name = self
            .agents
            .consent
            .asks(agent_id, kind)
            .map(|r| r.name.clone())
            .unwrap_or_default();
        Ask {
            agent_id: agent_id.to_string(),
            name,
            kind,
            target_id: target_id.to_string(),
            url: url.chars().take(2000).collect(),
            detail: bounded_detail(&detail),
        }
    }

    /// Asks the person when the agent's kinds hold `ask`; true when it is held back (the
    /// agent is told why).
    async fn network_verdict(&self, ask: Ask) -> bool {
        let agent_id = ask.agent_id.clone();
        match self.approve(ask).await {
            Ok(()) => false,
            Err(refusal) => {
                self.note_for_agent(&agent_id, refusal);
                true
            }
        }
    }

    /// The tab a frame is in and its owner. A frame of a tab not tracked yet (a popup's first
    /// document, asked for before it is attached) is its opener's: Chrome is asked for it.
    async fn owner_of_frame(&self, frame: &str) -> Option<(String, TabOwner)> {
        if let Some(tab) = self.core.tabs.tab_of_frame(frame) {
            return Some((tab.target_id, tab.owner));
        }
        let info = self
            .core
            .cdp
            .call("Target.getTargetInfo", json!({ "targetId": frame }))
            .await
            .ok()?;
        let opener = info["targetInfo"]["openerId"].as_str()?;
        let owner = self.core.tabs.owner_of(opener)?;
        Some((frame.to_string(), owner))
    }
}
