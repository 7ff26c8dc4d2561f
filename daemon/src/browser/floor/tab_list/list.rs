//! The tab list of one browser session: order, active tab, which targets are being attached,
//! and each tab's record ([`TabEntry`]: removing a tab here drops everything kept about it).
//! Pure data; the session does the CDP calls around it.

use std::collections::{HashMap, HashSet};

use super::entry::{Tab, TabEntry};
use crate::browser::floor::{TabInfo, TabOwner};

/// Tabs in display order plus the active one.
#[derive(Debug, Default)]
pub struct TabList {
    tabs: Vec<TabEntry>,
    active: Option<String>,
    /// Targets whose attach is in flight, so two callers never attach the same target twice.
    attaching: HashSet<String>,
    /// Child frames (same-process or cross-origin) → the target id of the tab they are in, from
    /// each tab's `Page.frameAttached`; a frame's download is its tab's.
    frames: HashMap<String, String>,
}

impl TabList {
    pub fn get(&self, target_id: &str) -> Option<&Tab> {
        self.entry(target_id).map(|e| &e.tab)
    }

    pub fn by_session(&self, session_id: &str) -> Option<&Tab> {
        self.tabs
            .iter()
            .map(|e| &e.tab)
            .find(|t| t.session_id == session_id)
    }

    /// The record of a tracked tab.
    pub fn entry(&self, target_id: &str) -> Option<&TabEntry> {
        self.tabs.iter().find(|e| e.tab.target_id == target_id)
    }

    /// The record of a tracked tab, to change.
    pub fn entry_mut(&mut self, target_id: &str) -> Option<&mut TabEntry> {
        self.tabs.iter_mut().find(|e| e.tab.target_id == target_id)
    }

    /// Every record, in display order.
    pub fn entries(&self) -> impl Iterator<Item = &TabEntry> {
        self.tabs.iter()
    }

    /// Records that frame `frame_id` was attached in the tab behind flat session `session_id`.
    pub fn frame_attached(&mut self, session_id: &str, frame_id: &str) {
        if let Some(tab) = self.by_session(session_id).map(|t| t.target_id.clone()) {
            self.frames.insert(frame_id.to_string(), tab);
        }
    }

    /// Forgets a frame that left its page.
    pub fn frame_detached(&mut self, frame_id: &str) {
        self.frames.remove(frame_id);
    }

    /// The tab a frame is in: the tab itself for its main frame (whose id is the target id).
    pub fn tab_of_frame(&self, frame_id: &str) -> Option<&Tab> {
        self.get(frame_id)
            .or_else(|| self.frames.get(frame_id).and_then(|tab| self.get(tab)))
    }

    pub fn contains(&self, target_id: &str) -> bool {
        self.get(target_id).is_some()
    }

    pub fn len(&self) -> usize {
        self.tabs.len()
    }

    pub fn infos(&self) -> Vec<TabInfo> {
        self.tabs.iter().map(|e| e.tab.info()).collect()
    }

    pub fn active_id(&self) -> Option<&str> {
        self.active.as_deref()
    }

    pub fn active(&self) -> Option<&Tab> {
        self.active.as_deref().and_then(|id| self.get(id))
    }

    /// The tab at a 1-based position, as `list_tabs` numbers them.
    pub fn at(&self, index: usize) -> Option<&Tab> {
        index
            .checked_sub(1)
            .and_then(|i| self.tabs.get(i))
            .map(|e| &e.tab)
    }

    /// Claims a target for attaching; false when it is tracked or already being attached.
    pub fn begin_attach(&mut self, target_id: &str) -> bool {
        !self.contains(target_id) && self.attaching.insert(target_id.to_string())
    }

    /// Gives up a claim (the attach failed).
    pub fn abandon_attach(&mut self, target_id: &str) {
        self.attaching.remove(target_id);
    }

    pub fn is_attaching(&self, target_id: &str) -> bool {
        self.attaching.contains(target_id)
    }

    /// Adds an attached tab's record; it becomes active when none is.
    pub fn add(&mut self, entry: TabEntry) {
        self.attaching.remove(&entry.tab.target_id);
        if self.active.is_none() {
            self.active = Some(entry.tab.target_id.clone());
        }
        self.tabs.push(entry);
    }

    /// Removes a tab's record (the caller drops it outside the lock: that drop is what forgets
    /// the tab everywhere). When it was active, the neighbour that takes its place (the next
    /// tab, or the previous when it was last) becomes active; returns `(removed, new_active)`.
    pub fn remove(&mut self, target_id: &str) -> (Option<TabEntry>, Option<String>) {
        self.attaching.remove(target_id);
        let Some(index) = self.tabs.iter().position(|e| e.tab.target_id == target_id) else {
            return (None, None);
        };
        let entry = self.tabs.remove(index);
        self.frames.retain(|_, tab_id| tab_id != target_id);
        let mut switched = None;
        if self.active.as_deref() == Some(target_id) {
            let next = self.tabs.get(index).or_else(|| self.tabs.last());
            self.active = next.map(|e| e.tab.target_id.clone());
            switched = self.active.clone();
        }
        (Some(entry), switched)
    }

    /// Makes a tracked tab active; false when it is not tracked.
    pub fn set_active(&mut self, target_id: &str) -> bool {
        if self.contains(target_id) {
            self.active = Some(target_id.to_string());
            true
        } else {
            false
        }
    }

    /// Tabs whose owner satisfies `keep`, in display order.
    pub fn filtered(&self, keep: impl Fn(&TabOwner) -> bool) -> Vec<&Tab> {
        self.tabs
            .iter()
            .map(|e| &e.tab)
            .filter(|t| keep(&t.owner))
            .collect()
    }

    /// Gives a tracked tab a new owner; false when it is not tracked.
    pub fn set_owner(&mut self, target_id: &str, owner: TabOwner) -> bool {
        match self.entry_mut(target_id) {
            Some(entry) => {
                entry.tab.owner = owner;
                true
            }
            None => false,
        }
    }

    /// Updates url/title; true when something changed.
    pub fn update(&mut self, target_id: &str, url: &str, title: &str) -> bool {
        match self.entry_mut(target_id).map(|e| &mut e.tab) {
            Some(tab) if tab.url != url || tab.title != title => {
                tab.url = url.to_string();
                tab.title = title.to_string();
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(id: &str) -> TabEntry {
        let tab = Tab {
            target_id: id.into(),
            session_id: format!("s-{id}"),
            url: "about:blank".into(),
            title: String::new(),
            owner: TabOwner::Human,
        };
        TabEntry::new(tab, Vec::new())
    }

    #[test]
    fn closing_the_active_tab_activates_its_neighbour() {
        let mut list = TabList::default();
        for id in ["a", "b", "c"] {
            assert!(list.begin_attach(id));
            list.add(tab(id));
        }
        assert_eq!(list.active_id(), Some("a"));
        assert!(list.set_active("b"));
        assert_eq!(list.remove("b").1.as_deref(), Some("c"));
        assert_eq!(list.remove("c").1.as_deref(), Some("a"));
        assert_eq!(list.remove("x").0.map(|e| e.tab.target_id), None);
        assert_eq!(list.at(1).map(|t| t.target_id.as_str()), Some("a"));
        assert!(list.at(0).is_none());
    }

    #[test]
    fn a_target_is_attached_once() {
        let mut list = TabList::default();
        assert!(list.begin_attach("a"));
        assert!(!list.begin_attach("a"));
        list.add(tab("a"));
        assert!(!list.begin_attach("a"));
    }
}
