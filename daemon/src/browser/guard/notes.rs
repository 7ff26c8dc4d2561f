//! The notes waiting for agents' next tool results: a refused site, a tab closed on a
//! browser-internal page, a request held back. Written by the guard (`redirects`, `sites`) and the
//! session's `paused`, read once by the agent's next call. Imports no room.

use std::collections::HashMap;
use std::sync::Mutex;

/// Most notes kept for one agent between its calls (a page refused in a loop keeps the newest).
const MAX_NOTES: usize = 20;

/// Notes for agents' next tool results, by agent id. Short lock, never held across an await.
#[derive(Debug, Default)]
pub struct AgentNotes {
    notes: Mutex<HashMap<String, Vec<String>>>,
}

impl AgentNotes {
    /// Leaves a note for `agent_id`'s current or next tool result.
    pub(in crate::browser) fn leave(&self, agent_id: &str, note: String) {
        let mut all = self.notes.lock().expect("notes lock");
        let notes = all.entry(agent_id.to_string()).or_default();
        if notes.len() >= MAX_NOTES {
            notes.remove(0);
        }
        notes.push(note);
    }

    /// The notes waiting for `agent_id` (each is given once).
    pub(crate) fn take(&self, agent_id: &str) -> Vec<String> {
        self.notes
            .lock()
            .expect("notes lock")
            .remove(agent_id)
            .unwrap_or_default()
    }
}
