//! [`Tabs`]: a session's tab list behind its lock. The lock is taken only here: the rest of the
//! browser asks by name (whose tab, which session, the active one) and gets copies, and the
//! `tabs` room's own bookkeeping reads or changes the list in a closure ([`Tabs::read`],
//! [`Tabs::write`]), so no caller can hold the list across an await.

use super::dialog::OpenDialog;
use super::entry::{Tab, TabEntry};
use super::list::TabList;
use crate::browser::floor::{PaneMessage, SessionError, TabInfo, TabOwner};
use std::sync::{Mutex, MutexGuard};

/// The tracked tabs of one session, each with its record. Short lock, never held across an
/// await.
#[derive(Debug, Default)]
pub(in crate::browser) struct Tabs {
    list: Mutex<TabList>,
}

impl Tabs {
    /// The main frame's id of the tab behind flat session `session` (a tab's main frame has
    /// its target's id), so a world can be made there without asking Chrome; `None` for a
    /// session that is not a tab's (an out-of-process frame's).
    pub(in crate::browser) fn main_frame_of(&self, session: &str) -> Option<String> {
        self.list().by_session(session).map(|t| t.target_id.clone())
    }

    /// Reads the list, for the `tabs` room's own bookkeeping (agents' tabs, ref books): `read`
    /// runs under the short lock, so nothing awaits while it is held.
    pub(in crate::browser) fn read<R>(&self, read: impl FnOnce(&TabList) -> R) -> R {
        read(&self.list())
    }

    /// Changes the list, for the `tabs` room's own bookkeeping (tracking, agents' tabs, ref
    /// books): `write` runs under the short lock, so nothing awaits while it is held. What it
    /// returns (a removed record) is dropped by the caller, outside the lock.
    pub(in crate::browser) fn write<R>(&self, write: impl FnOnce(&mut TabList) -> R) -> R {
        write(&mut self.list())
    }

    fn list(&self) -> MutexGuard<'_, TabList> {
        self.list.lock().expect("tabs lock")
    }

    /// A copy of a tracked tab.
    pub(in crate::browser) fn get(&self, target_id: &str) -> Option<Tab> {
        self.list().get(target_id).cloned()
    }

    /// A copy of the tab behind a flat CDP session.
    pub(in crate::browser) fn by_session(&self, session_id: &str) -> Option<Tab> {
        self.list().by_session(session_id).cloned()
    }

    /// The target id of the tab behind a flat CDP session.
    pub(in crate::browser) fn target_of_session(&self, session_id: &str) -> Option<String> {
        self.list()
            .by_session(session_id)
            .map(|t| t.target_id.clone())
    }

    /// The tab a frame is in (a child frame's, or the tab's own main frame).
    pub(in crate::browser) fn tab_of_frame(&self, frame_id: &str) -> Option<Tab> {
        let list = self.list();
        list.tab_of_frame(frame_id)
            .or_else(|| list.get(frame_id))
            .cloned()
    }

    /// The tab a child frame is in (child frames only).
    pub(in crate::browser) fn tab_of_child_frame(&self, frame_id: &str) -> Option<Tab> {
        self.list().tab_of_frame(frame_id).cloned()
    }

    /// A child frame attached to the tab behind `session_id`.
    pub(in crate::browser) fn frame_attached(&self, session_id: &str, frame_id: &str) {
        self.list().frame_attached(session_id, frame_id);
    }

    /// A child frame went away.
    pub(in crate::browser) fn frame_detached(&self, frame_id: &str) {
        self.list().frame_detached(frame_id);
    }

    /// Who owns a tracked tab.
    pub(in crate::browser) fn owner_of(&self, target_id: &str) -> Option<TabOwner> {
        self.list().get(target_id).map(|t| t.owner.clone())
    }

    /// The flat CDP session id of a tracked tab.
    pub(in crate::browser) fn session_of(&self, target_id: &str) -> Option<String> {
        self.list().get(target_id).map(|t| t.session_id.clone())
    }

    pub(in crate::browser) fn len(&self) -> usize {
        self.list().len()
    }

    /// Tabs in order, with the active one's id.
    pub(in crate::browser) fn infos(&self) -> (Vec<TabInfo>, Option<String>) {
        let list = self.list();
        (list.infos(), list.active_id().map(str::to_string))
    }

    /// The active tab's id.
    pub(in crate::browser) fn active_id(&self) -> Option<String> {
        self.list().active_id().map(str::to_string)
    }

    /// A copy of the active tab.
    pub(in crate::browser) fn active(&self) -> Option<Tab> {
        self.list().active().cloned()
    }

    /// `page_info` of a tab.
    pub(in crate::browser) fn page_info(&self, target_id: &str) -> Option<PaneMessage> {
        self.list().get(target_id).map(|tab| PaneMessage::PageInfo {
            target_id: Some(tab.target_id.clone()),
            url: tab.url.clone(),
            title: tab.title.clone(),
        })
    }

    /// Resolves a tab reference: a 1-based index (as `list_tabs` prints) or a target id.
    pub(in crate::browser) fn resolve(&self, reference: &str) -> Result<String, SessionError> {
        let list = self.list();
        if let Ok(index) = reference.trim().parse::<usize>() {
            return list.at(index).map(|t| t.target_id.clone()).ok_or_else(|| {
                SessionError::UnknownTab(format!(
                    "{index} (there are {} tabs; call list_tabs)",
                    list.len()
                ))
            });
        }
        list.get(reference)
            .map(|t| t.target_id.clone())
            .ok_or_else(|| SessionError::UnknownTab(reference.to_string()))
    }

    /// Records a tab's URL and title; whether either changed.
    pub(in crate::browser) fn update(&self, target_id: &str, url: &str, title: &str) -> bool {
        self.list().update(target_id, url, title)
    }

    /// The dialog open in a tab, if any.
    pub(in crate::browser) fn dialog(&self, target_id: &str) -> Option<OpenDialog> {
        self.list().entry(target_id).and_then(|e| e.dialog.clone())
    }

    /// Every open dialog, by tab.
    pub(in crate::browser) fn dialogs(&self) -> Vec<(String, OpenDialog)> {
        self.list()
            .entries()
            .filter_map(|e| Some((e.tab.target_id.clone(), e.dialog.clone()?)))
            .collect()
    }

    /// Records the dialog a tab opened.
    pub(in crate::browser) fn set_dialog(&self, target_id: &str, dialog: OpenDialog) {
        if let Some(entry) = self.list().entry_mut(target_id) {
            entry.dialog = Some(dialog);
        }
    }

    /// Forgets a tab's dialog; whether one was open.
    pub(in crate::browser) fn take_dialog(&self, target_id: &str) -> bool {
        self.list()
            .entry_mut(target_id)
            .and_then(|e| e.dialog.take())
            .is_some()
    }

    /// Marks a tab as being closed by the URL guard; true only for the first caller.
    pub(in crate::browser) fn begin_guard_close(&self, target_id: &str) -> bool {
        self.list()
            .entry_mut(target_id)
            .is_some_and(|e| !std::mem::replace(&mut e.guard_closing, true))
    }

    /// Makes a tracked tab the active one: its flat session id, or `None` when it is not
    /// tracked.
    pub(in crate::browser) fn set_active(&self, target_id: &str) -> Option<String> {
        let mut list = self.list();
        if !list.set_active(target_id) {
            return None;
        }
        list.get(target_id).map(|t| t.session_id.clone())
    }

    /// How many tabs there are, when `target_id` is one of them.
    pub(in crate::browser) fn len_if_tracked(&self, target_id: &str) -> Option<usize> {
        let list = self.list();
        list.contains(target_id).then(|| list.len())
    }

    /// Adds a tracked tab's record; whether it is the only tab (and so the active one).
    pub(in crate::browser) fn add(&self, entry: TabEntry) -> bool {
        let mut list = self.list();
        list.add(entry);
        list.len() == 1
    }
}
