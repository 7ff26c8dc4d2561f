//! Script and secrets never share a document (DESIGN.md §19). An agent's own `evaluate` could
//! leave a listener in a page that sends a typed value elsewhere, before a fill or after it. So
//! this ledger remembers, per channel and agent, the documents it ran `evaluate` in and the
//! documents it filled, each by tab, document (the main frame's loader id) and origin: a fill
//! is refused in a live document of the item's origins where the agent ran `evaluate`, and
//! after a fill the agent's `evaluate` is refused in documents of the filled origins while a
//! filled document lives. A document is live while its tab still shows it (the caller tells,
//! from the browser). Tab and document ids are opaque strings here.
//!
//! Bounded per channel (§19a): a full list refuses a new entry ([`LedgerFull`]) and never
//! forgets a document to make room; the caller forgets the gone ones first.
//!
//! A document the tab navigated away from may come back: Chromium's back/forward cache
//! restores the very document (same loader id, fields still filled; seen in headless Chromium
//! here, `vault::bfcache`). So it is not forgotten but *departed*: still answered by
//! [`Ledger::evaluated_by`] / [`Ledger::filled_by`], and back in its list once the caller finds
//! its tab showing it again ([`Ledger::back`]). Departed documents are kept per channel, the
//! newest [`MAX_DEPARTED_PER_CHANNEL`] (Chromium's cache holds a handful of pages); those of a
//! closed tab are dropped (a closed tab's pages never come back as the same document).

use std::collections::HashMap;
use std::sync::Mutex;

/// The most documents kept per channel in each list. Live documents are few (one per tab and
/// agent); the caller forgets gone ones and tries again before it refuses.
pub const MAX_DOCS_PER_CHANNEL: usize = 1_000;

/// The most departed documents kept per channel (the oldest go first: far more than the
/// back/forward cache can hold).
pub const MAX_DEPARTED_PER_CHANNEL: usize = 256;

/// One document an agent touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    pub channel: String,
    pub agent: String,
    pub target: String,
    pub loader: String,
    pub origin: String,
}

/// A channel's list has no room: nothing was noted, and nothing was forgotten to make room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerFull;

/// The documents agents ran `evaluate` in, and those they filled, per channel.
#[derive(Default)]
pub struct Ledger {
    /// Channel → its lists. Never held across an await.
    channels: Mutex<HashMap<String, Lists>>,
}

#[derive(Default)]
struct Lists {
    evaluated: Vec<Doc>,
    filled: Vec<Doc>,
    /// Navigated away from, oldest first; may come back from the back/forward cache.
    departed: Vec<(Which, Doc)>,
}

/// Which list.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Evaluated,
    Filled,
}

impl Lists {
    fn list(&mut self, which: Which) -> &mut Vec<Doc> {
        match which {
            Which::Evaluated => &mut self.evaluated,
            Which::Filled => &mut self.filled,
        }
    }
}

impl Ledger {
    fn push(&self, which: Which, doc: Doc) -> Result<(), LedgerFull> {
        let mut channels = self.channels.lock().expect("ledger lock");
        let list = channels.entry(doc.channel.clone()).or_default().list(which);
        if list.contains(&doc) {
            return Ok(());
        }
        if list.len() >= MAX_DOCS_PER_CHANNEL {
            return Err(LedgerFull);
        }
        list.push(doc);
        Ok(())
    }

    /// The entries of one list for `channel`/`agent`, departed ones included (a copy: the
    /// caller asks the browser which are live, outside the lock).
    fn of(&self, which: Which, channel: &str, agent: &str) -> Vec<Doc> {
        let mut channels = self.channels.lock().expect("ledger lock");
        let Some(lists) = channels.get_mut(channel) else {
            return Vec::new();
        };
        let departed: Vec<Doc> = lists
            .departed
            .iter()
            .filter(|(w, d)| *w == which && d.agent == agent)
            .map(|(_, d)| d.clone())
            .collect();
        lists
            .list(which)
            .iter()
            .filter(|d| d.agent == agent)
            .cloned()
            .chain(departed)
            .collect()
    }

    fn forget_in(&self, which: &[Which], gone: &[Doc]) {
        let mut channels = self.channels.lock().expect("ledger lock");
        for doc in gone {
            if let Some(lists) = channels.get_mut(&doc.channel) {
                for w in which {
                    lists.list(*w).retain(|d| d != doc);
                }
                lists
                    .departed
                    .retain(|(w, d)| !(which.contains(w) && d == doc));
            }
        }
    }

    /// The agent ran `evaluate` in `doc`. `Err`: the channel's list is full.
    pub fn evaluated(&self, doc: Doc) -> Result<(), LedgerFull> {
        self.push(Which::Evaluated, doc)
    }

    /// Whether `channel`'s list of scripted documents can take one more (a caller holding the
    /// vault's marking lock knows its next [`Ledger::evaluated`] will not be refused).
    pub fn evaluated_room(&self, channel: &str) -> bool {
        let channels = self.channels.lock().expect("ledger lock");
        channels
            .get(channel)
            .is_none_or(|lists| lists.evaluated.len() < MAX_DOCS_PER_CHANNEL)
    }

    /// The agent filled a secret into `doc`. `Err`: the channel's list is full.
    pub fn filled(&self, doc: Doc) -> Result<(), LedgerFull> {
        self.push(Which::Filled, doc)
    }

    /// The agent's `evaluate` documents, to be checked for life.
    pub fn evaluated_by(&self, channel: &str, agent: &str) -> Vec<Doc> {
        self.of(Which::Evaluated, channel, agent)
    }

    /// The agent's filled documents, to be checked for life.
    pub fn filled_by(&self, channel: &str, agent: &str) -> Vec<Doc> {
        self.of(Which::Filled, channel, agent)
    }

    /// Every document of `channel`, in both lists (to find the gone ones when a list is full).
    pub fn of_channel(&self, channel: &str) -> Vec<Doc> {
        let channels = self.channels.lock().expect("ledger lock");
        channels.get(channel).map_or_else(Vec::new, |lists| {
            lists
                .evaluated
                .iter()
                .chain(&lists.filled)
                .cloned()
                .collect()
        })
    }

    /// Drops every document of `channel` (deleted, or its profile reset).
    pub fn forget_channel(&self, channel: &str) {
        self.channels.lock().expect("ledger lock").remove(channel);
    }

    /// Drops `docs` from the filled ones only (a fill refused before any key was typed).
    pub fn forget_filled(&self, docs: &[Doc]) {
        self.forget_in(&[Which::Filled], docs);
    }

    /// Drops documents whose tab closed.
    pub fn forget(&self, gone: &[Doc]) {
        self.forget_in(&[Which::Evaluated, Which::Filled], gone);
    }

    /// Moves documents their tab navigated away from to the departed ones (they may come back
    /// from the back/forward cache).
    pub fn depart(&self, away: &[Doc]) {
        let mut channels = self.channels.lock().expect("ledger lock");
        for doc in away {
            let Some(lists) = channels.get_mut(&doc.channel) else {
                continue;
            };
            for which in [Which::Evaluated, Which::Filled] {
                let list = lists.list(which);
                let before = list.len();
                list.retain(|d| d != doc);
                if list.len() < before {
                    lists.departed.push((which, doc.clone()));
                }
            }
            let over = lists
                .departed
                .len()
                .saturating_sub(MAX_DEPARTED_PER_CHANNEL);
            lists.departed.drain(..over);
        }
    }

    /// Documents found shown by their tab again (back from the cache): in their lists again.
    pub fn back(&self, shown: &[Doc]) {
        let mut channels = self.channels.lock().expect("ledger lock");
        for doc in shown {
            let Some(lists) = channels.get_mut(&doc.channel) else {
                continue;
            };
            let mut returning = Vec::new();
            lists.departed.retain(|(w, d)| {
                let back = d == doc;
                if back {
                    returning.push(*w);
                }
                !back
            });
            for which in returning {
                let list = lists.list(which);
                if !list.contains(doc) {
                    list.push(doc.clone());
                }
            }
        }
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
        ledger.evaluated(doc("gone", "ag1", "l1")).unwrap();
        ledger.filled(doc("gone", "ag1", "l2")).unwrap();
        ledger.evaluated(doc("kept", "ag1", "l3")).unwrap();
        ledger.filled(doc("kept", "ag2", "l4")).unwrap();
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

    /// V11: a full channel refuses a new document and forgets none; other channels keep
    /// their room; gone documents make room again.
    #[test]
    fn a_full_channel_refuses_and_forgets_nothing() {
        let ledger = Ledger::default();
        ledger.filled(doc("c", "ag1", "filled")).unwrap();
        ledger.evaluated(doc("c", "ag1", "first")).unwrap();
        for n in 1..MAX_DOCS_PER_CHANNEL {
            ledger.evaluated(doc("c", "ag2", &format!("l{n}"))).unwrap();
        }
        assert_eq!(ledger.evaluated(doc("c", "ag2", "more")), Err(LedgerFull));
        assert_eq!(
            ledger.evaluated(doc("c", "ag2", "l5")),
            Ok(()),
            "a document noted already takes no room"
        );
        assert_eq!(
            ledger.evaluated_by("c", "ag1"),
            vec![doc("c", "ag1", "first")]
        );
        assert_eq!(
            ledger.filled_by("c", "ag1"),
            vec![doc("c", "ag1", "filled")]
        );
        assert_eq!(ledger.evaluated(doc("other", "ag2", "more")), Ok(()));
        ledger.forget(&[doc("c", "ag2", "l1")]);
        assert_eq!(ledger.evaluated(doc("c", "ag2", "more")), Ok(()));
        assert_eq!(ledger.of_channel("c").len(), MAX_DOCS_PER_CHANNEL + 1);
    }

    /// V5: a document navigated away from is still answered, and comes back to its list when
    /// its tab shows it again; a closed tab's are gone.
    #[test]
    fn a_departed_document_is_still_known_and_comes_back() {
        let ledger = Ledger::default();
        let filled = doc("c", "ag1", "l1");
        ledger.filled(filled.clone()).unwrap();
        ledger.depart(std::slice::from_ref(&filled));
        assert_eq!(ledger.filled_by("c", "ag1"), vec![filled.clone()]);
        assert!(
            ledger.of_channel("c").is_empty(),
            "no room taken while away"
        );
        ledger.back(std::slice::from_ref(&filled));
        assert_eq!(ledger.filled_by("c", "ag1"), vec![filled.clone()]);
        assert_eq!(ledger.of_channel("c"), vec![filled.clone()]);
        ledger.depart(std::slice::from_ref(&filled));
        ledger.forget(std::slice::from_ref(&filled));
        assert!(ledger.filled_by("c", "ag1").is_empty());
        for n in 0..MAX_DEPARTED_PER_CHANNEL + 5 {
            let d = doc("c", "ag1", &format!("d{n}"));
            ledger.evaluated(d.clone()).unwrap();
            ledger.depart(&[d]);
        }
        assert_eq!(
            ledger.evaluated_by("c", "ag1").len(),
            MAX_DEPARTED_PER_CHANNEL,
            "the oldest departed go first"
        );
    }
}
