//! Script and secrets never share a document (DESIGN.md §19). An agent's own `evaluate` could
//! leave a listener in a page that sends a typed value elsewhere, before a fill or after it. So
//! this ledger remembers, per channel and agent, the documents it ran `evaluate` in and the
//! documents it filled, each by tab, document (the main frame's loader id) and origin: a fill
//! is refused in a live document of the item's origins where the agent ran `evaluate`, and
//! after a fill the agent's `evaluate` is refused in documents of the filled origins while a
//! filled document lives. A document is live while its tab still shows it (the caller tells,
//! from the browser). Tab and document ids are opaque strings here.

use std::sync::Mutex;

/// The most documents kept per list (the oldest go first).
const MAX_DOCS: usize = 10_000;

/// One document an agent touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    pub channel: String,
    pub agent: String,
    pub target: String,
    pub loader: String,
    pub origin: String,
}

/// The documents agents ran `evaluate` in, and those they filled.
#[derive(Default)]
pub struct Ledger {
    /// Never held across an await.
    evaluated: Mutex<Vec<Doc>>,
    filled: Mutex<Vec<Doc>>,
}

fn push(list: &Mutex<Vec<Doc>>, doc: Doc) {
    let mut list = list.lock().expect("ledger lock");
    if !list.contains(&doc) {
        if list.len() >= MAX_DOCS {
            list.remove(0);
        }
        list.push(doc);
    }
}

/// The entries of `list` for `channel`/`agent` (a copy: the caller asks the browser which
/// are live, outside the lock).
fn of(list: &Mutex<Vec<Doc>>, channel: &str, agent: &str) -> Vec<Doc> {
    list.lock()
        .expect("ledger lock")
        .iter()
        .filter(|d| d.channel == channel && d.agent == agent)
        .cloned()
        .collect()
}

fn forget(list: &Mutex<Vec<Doc>>, gone: &[Doc]) {
    list.lock()
        .expect("ledger lock")
        .retain(|d| !gone.contains(d));
}

impl Ledger {
    /// The agent ran `evaluate` in `doc`.
    pub fn evaluated(&self, doc: Doc) {
        push(&self.evaluated, doc);
    }

    /// The agent filled a secret into `doc`.
    pub fn filled(&self, doc: Doc) {
        push(&self.filled, doc);
    }

    /// The agent's `evaluate` documents, to be checked for life.
    pub fn evaluated_by(&self, channel: &str, agent: &str) -> Vec<Doc> {
        of(&self.evaluated, channel, agent)
    }

    /// The agent's filled documents, to be checked for life.
    pub fn filled_by(&self, channel: &str, agent: &str) -> Vec<Doc> {
        of(&self.filled, channel, agent)
    }

    /// Drops every document of `channel` (deleted, or its profile reset).
    pub fn forget_channel(&self, channel: &str) {
        for list in [&self.evaluated, &self.filled] {
            list.lock()
                .expect("ledger lock")
                .retain(|d| d.channel != channel);
        }
    }

    /// Drops `docs` from the filled ones only (a fill refused before any key was typed).
    pub fn forget_filled(&self, docs: &[Doc]) {
        forget(&self.filled, docs);
    }

    /// Drops documents found gone (navigated away or closed).
    pub fn forget(&self, gone: &[Doc]) {
        forget(&self.evaluated, gone);
        forget(&self.filled, gone);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(channel: &str, agent: &str, loader: &str) -> Doc {
        Doc {
            channel: channel.into(),
            agent: agent.into(),
            target: "t1".into(),
            loader: loader.into(),
            origin: "https://a.example".into(),
        }
    }

    #[test]
    fn a_deleted_or_reset_channel_leaves_nothing_behind_and_others_keep_theirs() {
        let ledger = Ledger::default();
        ledger.evaluated(doc("gone", "ag1", "l1"));
        ledger.filled(doc("gone", "ag1", "l2"));
        ledger.evaluated(doc("kept", "ag1", "l3"));
        ledger.filled(doc("kept", "ag2", "l4"));
        ledger.forget_channel("gone");
        assert!(ledger.evaluated_by("gone", "ag1").is_empty());
        assert!(ledger.filled_by("gone", "ag1").is_empty());
        assert_eq!(
            ledger.evaluated_by("kept", "ag1"),
            vec![doc("kept", "ag1", "l3")]
        );
        assert_eq!(
            ledger.filled_by("kept", "ag2"),
            vec![doc("kept", "ag2", "l4")]
        );
    }
}
