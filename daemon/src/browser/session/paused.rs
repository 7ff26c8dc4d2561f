//! The verdict on each request paused at `Fetch` (see `prompts::auth` for what is paused, and
//! docs/measured-network.md for what Chromium pauses at all): an agent's tab is held to its
//! sites (`guard::sites`, every request of every type) and to the approvals its `confirm`
//! kinds name (`prompts::consent`, `prompts::approvals`; DESIGN.md §20, §20a):
//! - `submit`: a request that sends data — any method but GET and HEAD, an OPTIONS only with a
//!   body (a CORS preflight, which Chromium pauses too, sends none) — while one of its calls
//!   runs or settles (a form post, `fetch`, XHR, a beacon, a CSP report), or at any time from a
//!   document the agent ran script in (its timers and listeners are its acts);
//! - `new_site`: a document load, in the tab or in any of its frames, to a site other than the
//!   tab's own page's, not remembered for it (an agent's `navigate` asks before it sends, and
//!   its load then passes).
//!
//! Which tab a request comes from is `attribution`'s; a request of no tab Porthole can tell (a
//! shared or service worker's, a frame of no tracked tab) fails closed: it is refused when any
//! agent's sites refuse its URL, or when it sends data and any agent is held to `submit`. The
//! person's own such requests are refused by the same rule while an agent's rule applies
//! (documented in docs/security.md).
//!
//! A request the person allows goes on untouched; any other fails before it leaves
//! (a document with `Aborted`: a navigation commits no error page, so the tab stays as it
//! was; any other request with `BlockedByClient`: a `fetch` rejects, an XHR or an image
//! errs), and the agent's answer (or its next one) says why. The person's tabs, and
//! requests no agent rule concerns, go on at once. Decided in a task: the event loop never
//! waits.
//!
//! Owns the session's follow of `Fetch` (turned on by `prompts::auth`, whose challenges it
//! hands there), what it pauses for the agents' rules ([`Paused::rescope`]) and the verdicts.
//! In the session, not a room: it weighs the guard's sites and the prompts' approvals together.

use std::sync::Arc;

use serde_json::{json, Value};

use super::attribution::{source_of, Source};
use crate::approvals::{site_of, ApprovalKind, Ask, SentBody, Verdict};
use crate::browser::floor::{Ownership, RoomEvents, SessionCore, TabOwner};
use crate::browser::guard::notes::AgentNotes;
use crate::browser::guard::sites::{AgentSites, Request, Sites};
use crate::browser::prompts::approvals::{Approvals, OpenApprovals};
use crate::browser::prompts::auth::{Auth, AuthPrompts, PauseScope};
use crate::browser::prompts::consent::AgentConsent;
use crate::cdp::CdpEvent;

/// The requests paused at `Fetch` in one session, and what their verdicts work on. Owned
/// (`Arc`s of the session's parts): it follows `Fetch` in a task of its own and decides each
/// request in another (`session.paused()`).
#[derive(Clone)]
pub(in crate::browser) struct Paused {
    core: Arc<SessionCore>,
    sites: Arc<AgentSites>,
    consent: Arc<AgentConsent>,
    approvals: Arc<OpenApprovals>,
    auth: Arc<AuthPrompts>,
    notes: Arc<AgentNotes>,
}

/// The events paused requests and login prompts are followed by.
pub(in crate::browser) const PAUSED_EVENTS: &[&str] = &[
    "Fetch.requestPaused",
    "Fetch.authRequired",
    "Page.frameAttached",
];

impl Paused {
    pub(in crate::browser) fn new(
        core: Arc<SessionCore>,
        sites: Arc<AgentSites>,
        consent: Arc<AgentConsent>,
        approvals: Arc<OpenApprovals>,
        auth: Arc<AuthPrompts>,
        notes: Arc<AgentNotes>,
    ) -> Self {
        Self {
            core,
            sites,
            consent,
            approvals,
            auth,
            notes,
        }
    }

    fn auth(&self) -> Auth<'_> {
        Auth::new(&self.core, &self.auth)
    }

    fn approvals(&self) -> Approvals<'_> {
        Approvals::new(&self.core, &self.approvals, &self.consent)
    }

    fn sites(&self) -> Sites<'_> {
        Sites::new(&self.core, &self.sites, &self.notes)
    }

    /// Turns on authentication prompts (not for the user's own Chrome) and follows them until
    /// the session ends; every request paused on the way is continued, or failed when an
    /// agent's rules refuse it (see the module's doc).
    /// `events`: the session's [`PAUSED_EVENTS`].
    pub(in crate::browser) async fn follow(self, mut events: RoomEvents) {
        if self.core.ownership() != Ownership::AllTabs {
            self.auth().request_pauses_unused();
            return;
        }
        // A failure refuses agents held to rules (`Auth::request_pauses_on`): never fail open.
        if let Err(error) = self
            .auth()
            .enable_request_pauses(true, || self.scope())
            .await
        {
            tracing::warn!(event = "auth_prompts_off", channel_id = %self.core.channel(), %error);
            return;
        }
        while let Some(event) = events.next().await {
            match event.method.as_str() {
                "Fetch.requestPaused" => self.decide(&event),
                // Also recorded here, in the order Chrome sent it: a frame's requests are
                // decided by the tab the frame is in (see `attribution`).
                "Page.frameAttached" => {
                    if let (Some(session), Some(frame)) = (
                        event.session_id.as_deref(),
                        event.params["frameId"].as_str(),
                    ) {
                        self.core.tabs().frame_attached(session, frame);
                    }
                }
                "Fetch.authRequired" => self.auth().required(&event),
                _ => {}
            }
        }
    }

    /// What the agents' rules need paused: every request once one has site rules, data
    /// requests too once one is held to `submit`, else documents only (the cheap case).
    fn scope(&self) -> PauseScope {
        if !self.sites.all_open() {
            PauseScope::Everything
        } else if self.consent.any(ApprovalKind::Submit) {
            PauseScope::DataToo
        } else {
            PauseScope::Documents
        }
    }

    /// Pauses what the agents' rules need now (they were just set).
    pub(in crate::browser) async fn rescope(&self) {
        self.auth().rescope_request_pauses(|| self.scope()).await;
    }

    /// Lets a paused request go on, or fails it (see the module's doc).
    fn decide(&self, event: &CdpEvent) {
        let Some(request_id) = event.params["requestId"].as_str().map(str::to_string) else {
            return;
        };
        let paused = self.clone();
        let params = event.params.clone();
        tokio::spawn(async move {
            let held = paused.sites.all_open()
                && !paused.consent.any(ApprovalKind::Submit)
                && !paused.consent.any(ApprovalKind::NewSite);
            let fail = !held && paused.holds_back(&params).await;
            // A document fails as `Aborted`: a navigation commits no error page, so the tab
            // stays as it was. Anything else as `BlockedByClient`, as a content blocker's
            // would (a page's XHR sees an error, not its own abort).
            let reason = match params["resourceType"].as_str() {
                Some("Document") => "Aborted",
                _ => "BlockedByClient",
            };
            let (method, reply) = match fail {
                false => ("Fetch.continueRequest", json!({ "requestId": request_id })),
                true => (
                    "Fetch.failRequest",
                    json!({ "requestId": request_id, "errorReason": reason }),
                ),
            };
            if let Err(error) = paused.core.cdp().call(method, reply).await {
                // The request may have been cancelled meanwhile (the tab closed).
                tracing::debug!(event = "paused_request_not_answered", method, %error);
            }
        });
    }

    /// Whether an agent's rules hold back this paused request (the agent is told why).
    async fn holds_back(&self, params: &Value) -> bool {
        let Some(url) = params["request"]["url"].as_str() else {
            return false;
        };
        let frame = params["frameId"].as_str();
        let (target_id, id) = match source_of(&self.core, frame).await {
            Source::Tab {
                target_id,
                owner: TabOwner::Agent { id, .. },
            } => (target_id, id),
            Source::Tab { .. } => return false,
            Source::Nobody(why) => return self.refuses_unattributed(params, url, why),
        };
        let resource = params["resourceType"].as_str().unwrap_or("Other");
        let document = resource == "Document";
        // A page load in the tab itself (its main frame's id is the tab's).
        let page_load = document && frame == Some(target_id.as_str());
        let request = match (page_load, document) {
            (true, _) => Request::PageLoad,
            (false, true) => Request::FrameLoad,
            (false, false) => Request::Other,
        };
        if self.sites().refuse(&id, &target_id, url, request) {
            return true;
        }
        let method = params["request"]["method"].as_str().unwrap_or("GET");
        let sends = sends_data(&params["request"]);
        let scripted = sends
            && !self.consent.acting(&id)
            && self.sent_by_scripted_document(&id, &target_id).await;
        if sends && (self.consent.acting(&id) || scripted) {
            let detail = format!(
                "{method} {url}{}{}",
                match resource {
                    "Document" => " (a form sent by the page)".to_string(),
                    other => format!(" ({other} request of the page)"),
                },
                match scripted {
                    true => ", from a page this agent ran script in",
                    false => "",
                }
            );
            let mut ask =
                self.approvals()
                    .ask_for(&id, ApprovalKind::Submit, &target_id, url, detail);
            ask.body = sent_body(&params["request"]);
            if self.network_verdict(ask).await {
                return true;
            }
        }
        // Every document load, the tab's own page and its frames'.
        if document
            && self.approvals().new_site_for(&id, &target_id, url)
            && !(page_load && self.consent.take_pass(&target_id, &site_of(url)))
        {
            let detail = match page_load {
                true => format!("load {url}"),
                false => format!("load {url} in a frame of the page"),
            };
            let ask = self
                .approvals()
                .ask_for(&id, ApprovalKind::NewSite, &target_id, url, detail);
            return self.network_verdict(ask).await;
        }
        false
    }

    /// Whether a request of no tab Porthole can tell (`why`) is refused: when any agent's
    /// sites refuse its URL, or it sends data while any agent is held to `submit` (fail
    /// closed; nobody to tell but the log).
    fn refuses_unattributed(&self, params: &Value, url: &str, why: &str) -> bool {
        let resource = params["resourceType"].as_str().unwrap_or("Other");
        let refusal = match self.sites.refused_by_any(url) {
            Some((agent_id, rule)) => Some(format!("agent {agent_id}'s sites: {rule}")),
            None => (sends_data(&params["request"]) && self.consent.any(ApprovalKind::Submit))
                .then(|| "it sends data, and an agent of this channel is held to submit".into()),
        };
        let Some(refusal) = refusal else {
            return false;
        };
        let site = site_of(url);
        tracing::info!(event = "unattributed_request_refused", channel_id = %self.core.channel(), source = why, resource, %site, %refusal);
        true
    }

    /// Whether the page tab `target_id` shows now is one `agent_id` ran script in (its request
    /// then is the agent's act, whenever it leaves). Asks Chrome only when the agent is held to
    /// `submit` and ran script in that tab.
    async fn sent_by_scripted_document(&self, agent_id: &str, target_id: &str) -> bool {
        if self.consent.asks(agent_id, ApprovalKind::Submit).is_none() {
            return false;
        }
        let loaders = self.consent.scripted_loaders(agent_id, target_id);
        if loaders.is_empty() {
            return false;
        }
        let Some(tab) = self.core.tabs().get(target_id) else {
            return false;
        };
        let tree = self
            .core
            .cdp()
            .call_on(&tab.session_id, "Page.getFrameTree", json!({}))
            .await;
        match tree {
            Ok(tree) => tree["frameTree"]["frame"]["loaderId"]
                .as_str()
                .is_some_and(|loader| loaders.iter().any(|l| l == loader)),
            // Cannot tell which document sent it: it counts as the agent's (fail closed).
            Err(_) => true,
        }
    }

    /// Asks the person when the agent's kinds hold `ask`; true when it is held back (the
    /// agent is told why, before the approval counts as closed, so the call waiting on it
    /// answers with the refusal, as an error).
    async fn network_verdict(&self, ask: Ask) -> bool {
        let agent_id = ask.agent_id.clone();
        let verdict = self
            .approvals()
            .approve_noting(ask, |refusal| {
                self.notes.leave_held_back(&agent_id, refusal.to_string())
            })
            .await;
        matches!(verdict, Verdict::Refused { .. })
    }
}

/// Whether a paused request sends data (a `submit`): any method but GET and HEAD; an OPTIONS
/// only with a body (a CORS preflight sends none).
fn sends_data(request: &Value) -> bool {
    match request["method"].as_str().unwrap_or("GET") {
        "GET" | "HEAD" => false,
        "OPTIONS" => {
            request["hasPostData"].as_bool() == Some(true) || request["postData"].is_string()
        }
        _ => true,
    }
}

/// What a paused request sends, from its `postDataEntries` (base64 bytes) or `postData`.
fn sent_body(request: &Value) -> Option<SentBody> {
    use base64::Engine as _;
    if let Some(entries) = request["postDataEntries"].as_array() {
        let mut bytes = Vec::new();
        for entry in entries {
            let part = entry["bytes"].as_str().unwrap_or_default();
            bytes.extend(
                base64::engine::general_purpose::STANDARD
                    .decode(part)
                    .ok()?,
            );
        }
        return Some(SentBody::of(&bytes));
    }
    request["postData"]
        .as_str()
        .map(|text| SentBody::of(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_sends_data_unless_it_is_a_get_a_head_or_a_bare_options() {
        let sends = |request: Value| sends_data(&request);
        assert!(!sends(json!({"method": "GET"})));
        assert!(!sends(json!({"method": "HEAD"})));
        // A CORS preflight: Chromium pauses it, and it sends nothing.
        assert!(!sends(json!({"method": "OPTIONS"})));
        assert!(sends(json!({"method": "OPTIONS", "hasPostData": true})));
        assert!(sends(json!({"method": "OPTIONS", "postData": "secret"})));
        for method in ["POST", "PUT", "PATCH", "DELETE", "PROPFIND"] {
            assert!(sends(json!({ "method": method })), "{method}");
        }
    }
}
