//! The notes waiting for agents' next tool results: a refused site, a tab closed on a
//! browser-internal page, a request held back (which makes that result an error). Written by the guard (`redirects`, `sites`) and the
//! session's `paused`, read once by the agent's next call. Imports no room.

use std::collections::HashMap;
use std::sync::Mutex;

/// Most notes kept for one agent between its calls (a page refused in a loop keeps the newest).
const MAX_NOTES: usize = 20;

/// One note for an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub text: String,
    /// Porthole held back a request of the agent's act (the person declined it, nobody
    /// answered, nobody was watching): the result that carries it is an error, even when the
    /// click or keystroke itself went through.
    pub held_back: bool,
}

/// Notes for agents' next tool results, by agent id. Short lock, never held across an await.
#[derive(Debug, Default)]
pub struct AgentNotes {
    notes: Mutex<HashMap<String, Vec<Note>>>,
}

impl AgentNotes {
    /// Leaves a note for `agent_id`'s current or next tool result.
    pub(in crate::browser) fn leave(&self, agent_id: &str, note: String) {
        self.push(agent_id, note, false);
    }

    /// Leaves a note for `agent_id` unless the same note waits already (a page's many
    /// requests to one refused site are told once).
    pub(in crate::browser) fn leave_once(&self, agent_id: &str, note: String) {
        let mut all = self.notes.lock().expect("notes lock");
        let notes = all.entry(agent_id.to_string()).or_default();
        if !notes.iter().any(|n| n.text == note) {
            add(notes, note, false);
        }
    }

    /// Leaves the refusal of a request Porthole held back for `agent_id` (its result becomes
    /// an error; see [`Note::held_back`]).
    pub(in crate::browser) fn leave_held_back(&self, agent_id: &str, refusal: String) {
        self.push(agent_id, refusal, true);
    }

    fn push(&self, agent_id: &str, text: String, held_back: bool) {
        let mut all = self.notes.lock().expect("notes lock");
        add(
            all.entry(agent_id.to_string()).or_default(),
            text,
            held_back,
        );
    }

    /// The notes waiting for `agent_id` (each is given once).
    pub(crate) fn take(&self, agent_id: &str) -> Vec<Note> {
        self.notes
            .lock()
            .expect("notes lock")
            .remove(agent_id)
            .unwrap_or_default()
    }
}

/// Adds a note to one agent's, making room when they are [`MAX_NOTES`].
fn add(notes: &mut Vec<Note>, text: String, held_back: bool) {
    if notes.len() >= MAX_NOTES {
        // The oldest plain note goes first; a held-back refusal is kept while it can be.
        let at = notes.iter().position(|n| !n.held_back).unwrap_or(0);
        notes.remove(at);
    }
    notes.push(Note { text, held_back });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_left_once_waits_once_until_taken() {
        let notes = AgentNotes::default();
        notes.leave_once("a", "site".into());
        notes.leave_once("a", "site".into());
        notes.leave_once("a", "other".into());
        assert_eq!(notes.take("a").len(), 2);
        notes.leave_once("a", "site".into());
        assert_eq!(notes.take("a").len(), 1);
    }

    #[test]
    fn a_held_back_note_is_marked_given_once_and_outlives_plain_ones() {
        let notes = AgentNotes::default();
        notes.leave_held_back("a", "declined".into());
        for n in 0..MAX_NOTES {
            notes.leave("a", format!("plain {n}"));
        }
        let taken = notes.take("a");
        assert_eq!(taken.len(), MAX_NOTES);
        assert!(taken.iter().any(|n| n.held_back && n.text == "declined"));
        assert_eq!(taken.iter().filter(|n| n.held_back).count(), 1);
        assert!(notes.take("a").is_empty());
        assert!(notes.take("b").is_empty());
    }
}
