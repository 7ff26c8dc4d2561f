//! The person's "always" answers: a kind on an origin (scheme, host, port; see
//! `Ask::origin`), per agent, until the daemon stops (kept in memory only, never in the state
//! database).

use std::collections::HashMap;
use std::sync::Mutex;

use super::ApprovalKind;

/// Most remembered origins per agent (the oldest answer goes first past it).
const MAX_PER_AGENT: usize = 500;

/// Remembered answers, by agent id. Short lock, never held across an await.
#[derive(Debug, Default)]
pub struct Remembered {
    by_agent: Mutex<HashMap<String, Vec<(ApprovalKind, String)>>>,
}

impl Remembered {
    pub fn remember(&self, agent_id: &str, kind: ApprovalKind, site: &str) {
        let mut all = self.by_agent.lock().expect("remembered lock");
        let list = all.entry(agent_id.to_string()).or_default();
        if list.iter().any(|(k, s)| *k == kind && s == site) {
            return;
        }
        if list.len() >= MAX_PER_AGENT {
            list.remove(0);
        }
        list.push((kind, site.to_string()));
    }

    pub fn covers(&self, agent_id: &str, kind: ApprovalKind, site: &str) -> bool {
        self.by_agent
            .lock()
            .expect("remembered lock")
            .get(agent_id)
            .is_some_and(|list| list.iter().any(|(k, s)| *k == kind && s == site))
    }

    /// Forgets an agent (removed, or its channel deleted).
    pub fn forget(&self, agent_id: &str) {
        self.by_agent
            .lock()
            .expect("remembered lock")
            .remove(agent_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_site_covers_that_kind_for_that_agent_only() {
        let r = Remembered::default();
        r.remember("a", ApprovalKind::NewSite, "example.test");
        assert!(r.covers("a", ApprovalKind::NewSite, "example.test"));
        assert!(!r.covers("a", ApprovalKind::Submit, "example.test"));
        assert!(!r.covers("b", ApprovalKind::NewSite, "example.test"));
        assert!(!r.covers("a", ApprovalKind::NewSite, "other.test"));
        r.forget("a");
        assert!(!r.covers("a", ApprovalKind::NewSite, "example.test"));
    }
}
