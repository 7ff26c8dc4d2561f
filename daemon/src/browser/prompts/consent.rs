//! What each agent of the session must ask the person about (its `confirm` kinds, DESIGN.md
//! §20), the sites the person said "always" to, each agent's calls in flight (a `submit` is
//! held while one of its calls runs or settles) and the documents it ran script in (a `submit`
//! from one of those is its act too, whenever it leaves: its timers and listeners; read from
//! the vault's ledger through [`ScriptedDocs`], never a second record). Set with each of its
//! calls and when the owner changes its record.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::approvals::{ApprovalKind, Remembered};

/// How long after an agent's call ends its tab's requests still count as its acts (a form
/// post that leaves just after the click's answer), for an agent with no rules set yet
/// (`agents.act_settle_ms` sets each agent's [`ConsentRules::settling`]).
pub const SETTLING: Duration = Duration::from_secs(2);

/// One agent's approval rules.
#[derive(Debug, Clone)]
pub struct ConsentRules {
    /// The agent's name, for the person's card.
    pub name: String,
    /// The kinds it must ask about (its own and `agents.confirm`).
    pub kinds: Vec<ApprovalKind>,
    /// The person's "always on this site" answers (kept by the daemon, per agent).
    pub remembered: Arc<Remembered>,
    /// `agents.approval_timeout_secs`.
    pub timeout: Duration,
    /// `agents.act_settle_ms`: how long after its call ends its tab's requests count as its
    /// acts.
    pub settling: Duration,
}

impl ConsentRules {
    pub fn holds(&self, kind: ApprovalKind) -> bool {
        self.kinds.contains(&kind)
    }
}

/// An agent's calls: how many run now, and when the last one ended.
#[derive(Debug, Default, Clone, Copy)]
struct Calls {
    running: usize,
    last_end: Option<Instant>,
}

/// The documents an agent ran script in: for `(agent_id, target_id)`, the loader ids of those
/// documents in that tab (the calls layer reads them from the vault's ledger).
#[derive(Clone)]
pub struct ScriptedDocs(pub Arc<LoadersOf>);

/// `(agent_id, target_id)` → the loader ids of the documents that agent ran script in there.
pub type LoadersOf = dyn Fn(&str, &str) -> Vec<String> + Send + Sync;

impl std::fmt::Debug for ScriptedDocs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScriptedDocs(…)")
    }
}

/// Every agent's rules and calls. Short locks, never held across an await.
#[derive(Debug, Default)]
pub struct AgentConsent {
    /// Where the documents agents ran script in are read (none: no document counts).
    scripted: Mutex<Option<ScriptedDocs>>,
    rules: Mutex<HashMap<String, Arc<ConsentRules>>>,
    calls: Arc<Mutex<HashMap<String, Calls>>>,
    /// Page loads the person allowed before they were sent (an agent's `navigate`): the
    /// network layer lets each one pass once, without asking again.
    passes: Mutex<Vec<Pass>>,
}

/// One allowed load: which tab, which site, until when.
#[derive(Debug)]
struct Pass {
    target_id: String,
    site: String,
    until: Instant,
}

/// How long an allowed load may take to reach the network layer.
const PASS_LIFETIME: Duration = Duration::from_secs(30);

impl AgentConsent {
    /// Holds `agent_id` to `rules` from now on.
    pub fn set(&self, agent_id: &str, rules: ConsentRules) {
        let mut all = self.rules.lock().expect("consent lock");
        all.insert(agent_id.to_string(), Arc::new(rules));
    }

    /// The rules of `agent_id` when they hold `kind`.
    pub fn asks(&self, agent_id: &str, kind: ApprovalKind) -> Option<Arc<ConsentRules>> {
        let all = self.rules.lock().expect("consent lock");
        all.get(agent_id).filter(|r| r.holds(kind)).cloned()
    }

    /// Whether any agent holds `kind` (nothing to look up otherwise).
    pub fn any(&self, kind: ApprovalKind) -> bool {
        let all = self.rules.lock().expect("consent lock");
        all.values().any(|r| r.holds(kind))
    }

    /// Lets the next load of a page of `site` in `target_id` pass the network layer once.
    pub fn grant_pass(&self, target_id: &str, site: &str) {
        let mut passes = self.passes.lock().expect("passes lock");
        passes.retain(|p| p.until > Instant::now());
        passes.push(Pass {
            target_id: target_id.to_string(),
            site: site.to_string(),
            until: Instant::now() + PASS_LIFETIME,
        });
    }

    /// Uses up the pass for a load of a page of `site` in `target_id`, if one was granted.
    pub fn take_pass(&self, target_id: &str, site: &str) -> bool {
        let mut passes = self.passes.lock().expect("passes lock");
        passes.retain(|p| p.until > Instant::now());
        match passes
            .iter()
            .position(|p| p.target_id == target_id && p.site == site)
        {
            Some(i) => {
                passes.remove(i);
                true
            }
            None => false,
        }
    }

    /// Reads the documents agents ran script in through `docs` from now on.
    pub fn read_scripted_from(&self, docs: ScriptedDocs) {
        *self.scripted.lock().expect("scripted lock") = Some(docs);
    }

    /// The loader ids of the documents `agent_id` ran script in, in tab `target_id`.
    pub fn scripted_loaders(&self, agent_id: &str, target_id: &str) -> Vec<String> {
        let docs = self.scripted.lock().expect("scripted lock").clone();
        docs.map(|d| (d.0)(agent_id, target_id)).unwrap_or_default()
    }

    /// Counts a call of `agent_id` until the guard drops.
    pub fn call_begins(&self, agent_id: &str) -> CallGuard {
        let mut calls = self.calls.lock().expect("calls lock");
        calls.entry(agent_id.to_string()).or_default().running += 1;
        CallGuard {
            calls: self.calls.clone(),
            agent_id: agent_id.to_string(),
        }
    }

    /// Whether a call of `agent_id` runs now or ended within its rules' settling time
    /// ([`SETTLING`] before it has rules).
    pub fn acting(&self, agent_id: &str) -> bool {
        let settling = self
            .rules
            .lock()
            .expect("consent lock")
            .get(agent_id)
            .map_or(SETTLING, |r| r.settling);
        let calls = self.calls.lock().expect("calls lock");
        calls.get(agent_id).is_some_and(|c| {
            c.running > 0 || c.last_end.is_some_and(|end| end.elapsed() < settling)
        })
    }
}

/// One call in flight (see [`AgentConsent::call_begins`]).
#[derive(Debug)]
pub struct CallGuard {
    calls: Arc<Mutex<HashMap<String, Calls>>>,
    agent_id: String,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        let mut calls = self.calls.lock().expect("calls lock");
        if let Some(c) = calls.get_mut(&self.agent_id) {
            c.running = c.running.saturating_sub(1);
            c.last_end = Some(Instant::now());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(kinds: &[ApprovalKind]) -> ConsentRules {
        ConsentRules {
            name: "bot".into(),
            kinds: kinds.to_vec(),
            remembered: Arc::default(),
            timeout: Duration::from_secs(120),
            settling: SETTLING,
        }
    }

    #[test]
    fn an_agent_acts_while_a_call_runs_and_shortly_after() {
        let consent = AgentConsent::default();
        assert!(!consent.acting("a"));
        let call = consent.call_begins("a");
        assert!(consent.acting("a"));
        assert!(!consent.acting("b"));
        drop(call);
        assert!(consent.acting("a"), "settling");
    }

    #[test]
    fn an_agents_kinds_are_its_latest_rules() {
        let consent = AgentConsent::default();
        consent.set("a", rules(&[ApprovalKind::Evaluate]));
        assert!(!consent.any(ApprovalKind::Submit));
        consent.set("a", rules(&[ApprovalKind::Submit]));
        assert!(consent.asks("a", ApprovalKind::Submit).is_some());
        assert!(consent.asks("a", ApprovalKind::Upload).is_none());
        assert!(consent.any(ApprovalKind::Submit));
    }

    #[test]
    fn a_pass_lets_one_load_through() {
        let consent = AgentConsent::default();
        consent.grant_pass("T", "a.test");
        assert!(!consent.take_pass("T", "b.test"));
        assert!(!consent.take_pass("U", "a.test"));
        assert!(consent.take_pass("T", "a.test"));
        assert!(!consent.take_pass("T", "a.test"));
    }
}
