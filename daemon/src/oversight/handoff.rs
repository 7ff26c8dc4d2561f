//! Handoffs: an agent's `request_human` waits until the person presses Done (their note comes
//! back), the timeout passes, or it is cancelled. Open handoffs are shown again to every pane
//! that attaches, so one whose pane vanished stays open for the next pane until its timeout.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::oneshot;

use crate::browser::PaneMessage;

struct Pending {
    /// The `handoff` message panes get.
    message: PaneMessage,
    done: oneshot::Sender<Option<String>>,
}

/// Open handoffs of a channel. Short lock.
#[derive(Default)]
pub struct Handoffs {
    open: Mutex<HashMap<String, Pending>>,
}

impl Handoffs {
    /// Opens a handoff; the receiver gets the person's note when they are done.
    pub fn open(
        &self,
        agent_id: &str,
        name: &str,
        reason: &str,
        target_id: Option<String>,
    ) -> (PaneMessage, oneshot::Receiver<Option<String>>) {
        let id = format!("h_{:08x}", rand::random::<u32>());
        let message = PaneMessage::Handoff {
            id: id.clone(),
            agent_id: agent_id.to_string(),
            name: name.to_string(),
            reason: reason.to_string(),
            target_id,
        };
        let (done, wait) = oneshot::channel();
        self.open.lock().expect("handoffs lock").insert(
            id,
            Pending {
                message: message.clone(),
                done,
            },
        );
        (message, wait)
    }

    /// The person is done with `id`; false when no such handoff is open.
    pub fn finish(&self, id: &str, note: Option<String>) -> bool {
        let Some(pending) = self.open.lock().expect("handoffs lock").remove(id) else {
            return false;
        };
        let _ = pending.done.send(note);
        true
    }

    /// Drops `id` (timeout or cancel); false when it was no longer open.
    pub fn abandon(&self, id: &str) -> bool {
        self.open
            .lock()
            .expect("handoffs lock")
            .remove(id)
            .is_some()
    }

    /// True while any handoff is open.
    pub fn any_open(&self) -> bool {
        !self.open.lock().expect("handoffs lock").is_empty()
    }

    /// The `handoff` messages of every open handoff (for a pane that attaches).
    pub fn messages(&self) -> Vec<PaneMessage> {
        self.open
            .lock()
            .expect("handoffs lock")
            .values()
            .map(|p| p.message.clone())
            .collect()
    }
}
