//! Which new targets a call of ours is tracking itself right now. Chrome reports a target
//! before it answers the call that created it; the session's event loop leaves such a target
//! to its creator (which lays an agent's tab out with its preparation) for as long as that
//! call is alive. An [`Adoption`] ends with its call, however the call ends (answered, failed
//! or cancelled), so the event loop never waits on a call that is gone.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

/// Targets whose creating call is tracking them now. Short lock.
#[derive(Debug, Default, Clone)]
pub(in crate::browser) struct Adopting(Arc<Mutex<HashSet<String>>>);

impl Adopting {
    /// Whether a call of ours is tracking `target_id` now.
    pub fn contains(&self, target_id: &str) -> bool {
        self.0.lock().expect("adopting lock").contains(target_id)
    }
}

/// Where a creating call stands with the target Chrome is making for it.
#[derive(Debug, Default)]
enum Claim {
    #[default]
    Waiting,
    Target(String),
    /// The call ended before Chrome answered: the target, when it comes, is not adopted.
    Abandoned,
}

/// One creating call's claim on its target, from before `Target.createTarget` is sent until
/// the call ends (drop). Bumps `version` when it lets a target go, so waiters look again.
#[derive(Debug)]
pub(in crate::browser) struct Adoption {
    adopting: Adopting,
    version: watch::Sender<u64>,
    claim: Arc<Mutex<Claim>>,
}

/// The part of an [`Adoption`] the task that sends `Target.createTarget` holds.
#[derive(Debug, Clone)]
pub(in crate::browser) struct AdoptionClaim {
    adopting: Adopting,
    claim: Arc<Mutex<Claim>>,
}

impl Adoption {
    pub fn new(adopting: &Adopting, version: &watch::Sender<u64>) -> Self {
        Self {
            adopting: adopting.clone(),
            version: version.clone(),
            claim: Arc::default(),
        }
    }

    /// What the creating task records Chrome's answer with.
    pub fn claim(&self) -> AdoptionClaim {
        AdoptionClaim {
            adopting: self.adopting.clone(),
            claim: self.claim.clone(),
        }
    }
}

impl AdoptionClaim {
    /// Records that Chrome made `target_id` for this call, unless the call has ended.
    pub fn made(&self, target_id: &str) {
        let mut claim = self.claim.lock().expect("claim lock");
        if matches!(*claim, Claim::Waiting) {
            self.adopting
                .0
                .lock()
                .expect("adopting lock")
                .insert(target_id.to_string());
            *claim = Claim::Target(target_id.to_string());
        }
    }
}

impl Drop for Adoption {
    fn drop(&mut self) {
        let claim = std::mem::replace(
            &mut *self.claim.lock().expect("claim lock"),
            Claim::Abandoned,
        );
        if let Claim::Target(id) = claim {
            self.adopting.0.lock().expect("adopting lock").remove(&id);
            self.version.send_modify(|v| *v += 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_adopted_while_its_call_lives_and_let_go_when_it_ends() {
        let adopting = Adopting::default();
        let version = watch::channel(0).0;
        let adoption = Adoption::new(&adopting, &version);
        adoption.claim().made("T1");
        assert!(adopting.contains("T1"));
        drop(adoption);
        assert!(!adopting.contains("T1"));
        assert_eq!(*version.borrow(), 1, "waiters are told");
    }

    #[test]
    fn a_target_made_after_its_call_ended_is_not_adopted() {
        let adopting = Adopting::default();
        let version = watch::channel(0).0;
        let adoption = Adoption::new(&adopting, &version);
        let claim = adoption.claim();
        drop(adoption);
        claim.made("T2");
        assert!(!adopting.contains("T2"));
    }
}
