//! Approvals the person gives (DESIGN.md §20): an agent's act that its `confirm` kinds hold
//! waits here until a pane answers (`approval_answer`), `agents.approval_timeout_secs` pass
//! (declined), or its tab goes away. It is declined at once, saying that nobody is watching,
//! only when nobody can be reached: no pane attached, no `/api/events` stream open and no
//! `notify.command` (see `crate::reach`, told of every approval). Every pane sees `approval`
//! and then `approval_closed`; the timeline records both, and each act a remembered "always"
//! let through, from [`Approvals::records`] (unbounded: never dropped, unlike the panes'
//! notices). "Always" is kept by origin, never for an opaque one. Ids are unique across
//! sessions and restarts (`floor::registry`). No MCP tool, HTTP route or agent token reaches
//! [`Approvals::answer`]:
//! only the pane's WebSocket, which takes the owner token alone.
//!
//! Owns the approvals waiting (`session.approvals()`), what the person is shown for an act,
//! and holding each agent to its `confirm` kinds (`consent` keeps them).

use std::sync::Mutex;

use tokio::sync::{mpsc, oneshot, watch};

use super::consent::{AgentConsent, CallGuard, ConsentRules, ScriptedDocs};
use crate::approvals::{
    bounded_detail, site_of, ApprovalKind, ApprovalRecord, Ask, Outcome, Remember, Verdict,
};
use crate::browser::floor::{PaneMessage, Prompt, Registry, SessionCore, SessionError};
use crate::reach::ApprovalNotice;

/// The approvals waiting for the person.
#[derive(Debug, Default)]
pub struct OpenApprovals {
    /// The approvals waiting, oldest first.
    open: Registry<Waiting>,
    /// Bumped whenever one closes (what [`Approvals::settled`] waits on).
    closed: watch::Sender<u64>,
    /// Where each approval's steps are recorded (the timeline's follower takes the other
    /// end); unbounded, so no step is ever dropped. Short lock, never held across an await.
    records: Mutex<Option<mpsc::UnboundedSender<ApprovalRecord>>>,
}

#[derive(Debug)]
struct Waiting {
    ask: Ask,
    answer: oneshot::Sender<Outcome>,
}

impl Prompt for Waiting {
    const PREFIX: &'static str = "ap";
}

/// Why an answer failed; the text is for the person.
#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error("no approval {0} is open (it was answered, timed out, or its tab went away)")]
    NotOpen(String),
}

impl ApprovalError {
    pub fn code(&self) -> &'static str {
        "no_approval"
    }
}

fn message(id: &str, ask: &Ask) -> PaneMessage {
    PaneMessage::Approval {
        id: id.to_string(),
        agent_id: ask.agent_id.clone(),
        name: ask.name.clone(),
        kind: ask.kind,
        target_id: ask.target_id.clone(),
        url: ask.url.clone(),
        detail: ask.detail.clone(),
        body: ask.body.as_ref().map(|b| b.shown.clone()),
        body_size: ask.body.as_ref().map(|b| b.size),
    }
}

/// The approvals of one session (borrowed from the session: `session.approvals()`).
pub(crate) struct Approvals<'s> {
    core: &'s SessionCore,
    state: &'s OpenApprovals,
    consent: &'s AgentConsent,
}

impl<'s> Approvals<'s> {
    pub(in crate::browser) fn new(
        core: &'s SessionCore,
        state: &'s OpenApprovals,
        consent: &'s AgentConsent,
    ) -> Self {
        Self {
            core,
            state,
            consent,
        }
    }

    /// Holds `agent_id` to `rules` from its next act on (what the session pauses for them is
    /// the session's `paused`, [`crate::browser::BrowserSession::pause_what_rules_need`]).
    pub(crate) fn set_rules(&self, agent_id: &str, rules: ConsentRules) {
        self.consent.set(agent_id, rules);
    }

    /// Reads the documents agents ran script in through `docs` (a `submit` from one of them is
    /// the agent's act whenever it leaves).
    pub(crate) fn read_scripted_from(&self, docs: ScriptedDocs) {
        self.consent.read_scripted_from(docs);
    }

    /// Counts one call of `agent_id` (its tab's requests count as its acts meanwhile).
    pub(crate) fn call_begins(&self, agent_id: &str) -> CallGuard {
        self.consent.call_begins(agent_id)
    }

    /// Whether `agent_id` must ask the person before acts of `kind`.
    pub(crate) fn holds(&self, agent_id: &str, kind: ApprovalKind) -> bool {
        self.consent.asks(agent_id, kind).is_some()
    }

    /// Lets `ask` happen when its agent need not ask, the person said "always" for its
    /// origin, or the person allows it now; else refuses it with what the agent reads.
    pub(crate) async fn approve(&self, ask: Ask) -> Verdict {
        self.approve_noting(ask, |_| {}).await
    }

    /// As [`Self::approve`], and `refused` is told the refusal before the approval counts as
    /// closed (so a call that waits in [`Self::settled`] finds what it left).
    pub(in crate::browser) async fn approve_noting(
        &self,
        ask: Ask,
        refused: impl FnOnce(&str),
    ) -> Verdict {
        let Some(rules) = self.consent.asks(&ask.agent_id, ask.kind) else {
            return Verdict::Go;
        };
        let timeout = rules.timeout.as_secs();
        let outcome = self
            .ask_person(&ask, &rules, |outcome| {
                if let Some(refusal) = outcome.refusal(&ask, timeout) {
                    refused(&refusal);
                }
            })
            .await;
        Verdict::of(outcome, &ask, timeout)
    }

    /// The steps of every approval from now on, for the timeline (one taker: a second call
    /// moves them to the new receiver).
    pub(crate) fn records(&self) -> mpsc::UnboundedReceiver<ApprovalRecord> {
        let (sender, receiver) = mpsc::unbounded_channel();
        *self.state.records.lock().expect("approval records lock") = Some(sender);
        receiver
    }

    fn record(&self, record: ApprovalRecord) {
        if let Some(sender) = &*self.state.records.lock().expect("approval records lock") {
            let _ = sender.send(record);
        }
    }

    /// Asks the person about `agent_id`'s act of `kind` in `target_id` when its kinds hold it
    /// (a tool's own: `evaluate`, `upload_file`, `get_download`, a vault fill). `url`: where
    /// the act goes (the tab's page when `None`).
    pub(crate) async fn approve_act(
        &self,
        agent_id: &str,
        kind: ApprovalKind,
        target_id: &str,
        url: Option<&str>,
        detail: String,
    ) -> Verdict {
        if self.consent.asks(agent_id, kind).is_none() {
            return Verdict::Go;
        }
        let url = match url {
            Some(url) => url.to_string(),
            None => self
                .core
                .tabs()
                .get(target_id)
                .map(|t| t.url)
                .unwrap_or_default(),
        };
        self.approve(self.ask_for(agent_id, kind, target_id, &url, detail))
            .await
    }

    /// Asks the person before an agent's `navigate` sends a load of `url` to a new site from
    /// the tab behind flat `session` (the call waits for the answer); the network layer then
    /// lets that load pass.
    pub(in crate::browser) async fn approve_new_site(
        &self,
        agent_id: &str,
        session: &str,
        url: &str,
    ) -> Result<(), SessionError> {
        let Some(target_id) = self.core.tabs().target_of_session(session) else {
            return Ok(());
        };
        if !self.new_site_for(agent_id, &target_id, url) {
            return Ok(());
        }
        let ask = self.ask_for(
            agent_id,
            ApprovalKind::NewSite,
            &target_id,
            url,
            format!("navigate to {url}"),
        );
        if let Verdict::Refused { refusal, .. } = self.approve(ask).await {
            return Err(SessionError::NotApproved(refusal));
        }
        self.consent.grant_pass(&target_id, &site_of(url));
        Ok(())
    }

    /// Whether a page load of `url` in `agent_id`'s tab `target_id` is a `new_site` to ask
    /// about: the agent is held to it, and the URL's site is not the tab's page's.
    pub(in crate::browser) fn new_site_for(
        &self,
        agent_id: &str,
        target_id: &str,
        url: &str,
    ) -> bool {
        if self.consent.asks(agent_id, ApprovalKind::NewSite).is_none() {
            return false;
        }
        let own_site = self.core.tabs().get(target_id).map(|t| site_of(&t.url));
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
            body: None,
        }
    }

    /// Asks the person about `ask` and waits for the answer (see the module's doc); `ended`
    /// hears the outcome before the approval counts as closed.
    pub(in crate::browser) async fn ask_person(
        &self,
        ask: &Ask,
        rules: &ConsentRules,
        ended: impl FnOnce(Outcome),
    ) -> Outcome {
        // "Always" is kept by origin, never for an opaque one (about:, data:, blob:).
        let origin = ask.origin();
        if let Some(origin) = &origin {
            if rules.remembered.covers(&ask.agent_id, ask.kind, origin) {
                tracing::info!(event = "approval_remembered", channel_id = %self.core.channel(), agent_id = %ask.agent_id, kind = ask.kind.as_str(), target_id = %ask.target_id);
                self.record(ApprovalRecord::Remembered {
                    ask: ask.clone(),
                    origin: origin.clone(),
                });
                return Outcome::Remembered;
            }
        }
        let id = self.state.open.mint();
        tracing::info!(event = "approval_asked", channel_id = %self.core.channel(), %id, agent_id = %ask.agent_id, kind = ask.kind.as_str(), target_id = %ask.target_id);
        let (answer, answered) = oneshot::channel();
        self.state.open.insert(
            id.clone(),
            Waiting {
                ask: ask.clone(),
                answer,
            },
        );
        self.record(ApprovalRecord::Asked {
            id: id.clone(),
            ask: ask.clone(),
        });
        // Whether anybody can answer is judged before the card goes out (a stream opened
        // later still sees it, and a pane opened later is shown it on start).
        let reachable = self.core.person_reachable();
        self.core.notify(message(&id, ask));
        let (mut outcome, by) = if !reachable {
            (Outcome::Unwatched, "porthole")
        } else {
            self.core.reach().approval_asked(ApprovalNotice {
                id: id.clone(),
                kind: ask.kind.as_str().to_string(),
                agent_id: ask.agent_id.clone(),
                agent: ask.name.clone(),
                channel_id: self.core.channel().to_string(),
            });
            tokio::select! {
                answer = answered => match answer {
                    Ok(outcome @ (Outcome::Allowed(_) | Outcome::Declined)) => (outcome, "person"),
                    Ok(outcome) => (outcome, "porthole"),
                    Err(_) => (Outcome::Gone, "porthole"),
                },
                _ = tokio::time::sleep(rules.timeout) => (Outcome::TimedOut, "timeout"),
                _ = self.core.closed() => (Outcome::Gone, "porthole"),
            }
        };
        if outcome == Outcome::Allowed(Remember::Site) {
            match &origin {
                Some(origin) => rules.remembered.remember(&ask.agent_id, ask.kind, origin),
                // Nothing to keep it under: allowed this once, and the pane is told so.
                None => outcome = Outcome::Allowed(Remember::Once),
            }
        }
        ended(outcome);
        self.state.open.take(&id);
        tracing::info!(event = "approval_closed", channel_id = %self.core.channel(), %id, outcome = outcome.as_str(), by);
        self.record(ApprovalRecord::Closed {
            id: id.clone(),
            ask: ask.clone(),
            outcome,
            by,
        });
        self.core.notify(PaneMessage::ApprovalClosed {
            id,
            outcome: outcome.as_str().to_string(),
            by: by.to_string(),
        });
        self.state.closed.send_modify(|n| *n += 1);
        outcome
    }

    /// The person's answer to approval `id` (from a pane only).
    pub(crate) fn answer(
        &self,
        id: &str,
        allow: bool,
        remember: Remember,
    ) -> Result<(), ApprovalError> {
        let waiting = self
            .state
            .open
            .take(id)
            .ok_or_else(|| ApprovalError::NotOpen(id.to_string()))?;
        let outcome = match allow {
            true => Outcome::Allowed(remember),
            false => Outcome::Declined,
        };
        // The asker may have given up at this instant (a timeout): then nothing is allowed.
        let _ = waiting.answer.send(outcome);
        Ok(())
    }

    /// The approvals waiting now, as `approval` messages (for a pane that attaches).
    pub(crate) fn all(&self) -> Vec<PaneMessage> {
        self.state
            .open
            .read(|open| open.iter().map(|(id, w)| message(id, &w.ask)).collect())
    }

    /// Resolves once no approval of `agent_id` waits (a call's answer then says how they
    /// ended).
    pub(crate) async fn settled(&self, agent_id: &str) {
        let mut closed = self.state.closed.subscribe();
        loop {
            let waiting = self
                .state
                .open
                .read(|open| open.iter().any(|(_, w)| w.ask.agent_id == agent_id));
            if !waiting || closed.changed().await.is_err() {
                return;
            }
        }
    }

    /// Closes the approvals of a tab that went away (see `tabs::tracking::untrack`).
    pub(in crate::browser) fn forget(&self, target_id: &str) {
        let gone = self.state.open.take_where(|w| w.ask.target_id == target_id);
        for (_, waiting) in gone {
            let _ = waiting.answer.send(Outcome::Gone);
        }
    }
}
