//! Handoffs: an agent's `request_human` waits until the person presses Done (their note comes
//! back), the timeout passes, or it is cancelled. Open handoffs are shown again to every pane
//! that attaches, so one whose pane vanished stays open for the next pane until its timeout.
//! One open handoff per agent (DESIGN.md §16): a second `request_human` while the first
//! waits is refused at once, so one agent cannot pile requests up in front of the person.

use tokio::sync::oneshot;

use crate::browser::{PaneMessage, Prompt, Registry};

struct Pending {
    /// Who asked.
    agent_id: String,
    /// The `handoff` message panes get.
    message: PaneMessage,
    done: oneshot::Sender<Option<String>>,
}

impl Prompt for Pending {
    const PREFIX: &'static str = "h_";
}

/// A second `request_human` of an agent whose first still waits; the text is the agent's
/// refusal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Refused: you already have a request_human open, waiting for the person (one at a time \
     per agent). Wait for its answer, or carry on without."
)]
pub struct AlreadyAsking;

/// Open handoffs of a channel, oldest first (in the prompts' registry).
#[derive(Default)]
pub struct Handoffs {
    open: Registry<Pending>,
}

impl Handoffs {
    /// Opens a handoff; the receiver gets the person's note when they are done. Refused
    /// (with the text for the agent) while the same agent has one open.
    pub fn open(
        &self,
        agent_id: &str,
        name: &str,
        reason: &str,
        target_id: Option<String>,
    ) -> Result<(PaneMessage, oneshot::Receiver<Option<String>>), AlreadyAsking> {
        let id = self.open.mint();
        let message = PaneMessage::Handoff {
            id: id.clone(),
            agent_id: agent_id.to_string(),
            name: name.to_string(),
            reason: reason.to_string(),
            target_id,
        };
        let (done, wait) = oneshot::channel();
        let pending = Pending {
            agent_id: agent_id.to_string(),
            message: message.clone(),
            done,
        };
        if !self
            .open
            .insert_unless(id, pending, |p| p.agent_id == agent_id)
        {
            return Err(AlreadyAsking);
        }
        Ok((message, wait))
    }

    /// The person is done with `id`; false when no such handoff is open.
    pub fn finish(&self, id: &str, note: Option<String>) -> bool {
        let Some(pending) = self.open.take(id) else {
            return false;
        };
        let _ = pending.done.send(note);
        true
    }

    /// Drops `id` (timeout or cancel); false when it was no longer open.
    pub fn abandon(&self, id: &str) -> bool {
        self.open.take(id).is_some()
    }

    /// True while any handoff is open.
    pub fn any_open(&self) -> bool {
        self.open.read(|open| !open.is_empty())
    }

    /// The `handoff` messages of every open handoff (for a pane that attaches).
    pub fn messages(&self) -> Vec<PaneMessage> {
        self.open
            .read(|open| open.iter().map(|(_, p)| p.message.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_open_handoff_per_agent() {
        let handoffs = Handoffs::default();
        let (first, _wait) = handoffs.open("a1", "alpha", "log in", None).unwrap();
        let refused = handoffs.open("a1", "alpha", "again", None).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "Refused: you already have a request_human open, waiting for the person (one at a \
             time per agent). Wait for its answer, or carry on without."
        );
        // Another agent may ask meanwhile; once the first is over, the agent may ask again.
        handoffs.open("a2", "beta", "captcha", None).unwrap();
        let PaneMessage::Handoff { id, .. } = first else {
            panic!("{first:?}")
        };
        assert!(handoffs.abandon(&id));
        handoffs.open("a1", "alpha", "again", None).unwrap();
    }
}
