//! One record per tracked tab: everything the session keeps about a tab lives in its
//! [`TabEntry`], owned by the tab list, so closing a tab drops all of it in one place
//! (`TabList::remove`, called by `untrack`).
//!
//! What only the session reads (the dialog, the ref book, the URL guard's mark) is plain data
//! in the entry. What a task that outlives the tab-list lock also writes is a [`TabPart`]: the
//! logs are an `Arc` a part keeps that the recorder reaches through a weak link, and the
//! registries kept by flat-session or target id elsewhere (screencast casts, layouts and applied
//! scales, the tools' isolated world, open popups and menus) are registrations that leave their
//! registry when the entry drops. Which parts a tab has is decided in one place, the session's
//! `per_tab`, so none can be left behind on close.

use super::dialog::OpenDialog;
use super::refs::RefBook;
use crate::browser::floor::{TabInfo, TabOwner};

/// A tab the session tracks.
#[derive(Debug, Clone)]
pub struct Tab {
    pub target_id: String,
    /// Flat CDP session of this tab (`Target.attachToTarget {flatten: true}`).
    pub session_id: String,
    pub url: String,
    pub title: String,
    pub owner: TabOwner,
}

impl Tab {
    pub fn info(&self) -> TabInfo {
        TabInfo {
            target_id: self.target_id.clone(),
            url: self.url.clone(),
            title: self.title.clone(),
            owner: self.owner.id().to_string(),
            owner_name: self.owner.name().to_string(),
        }
    }
}

/// Everything the session keeps about one tracked tab.
#[derive(Debug)]
pub struct TabEntry {
    /// Ids, address, title and owner.
    pub tab: Tab,
    /// The JavaScript dialog open in the tab (see `prompts::dialogs`).
    pub dialog: Option<OpenDialog>,
    /// The MCP tools' element-ref book (see `refs` and the `tabs` room's `ref_books`).
    pub refs: RefBook,
    /// Set once the URL guard is closing this tab (it is closed once; see `url_guard`).
    pub guard_closing: bool,
    /// The tab's console and network buffers and its places in registries kept elsewhere:
    /// never read here, kept for what dropping them does.
    _parts: Vec<TabPart>,
}

impl TabEntry {
    /// A record for `tab`, holding `parts` (its logs and registrations).
    pub fn new(tab: Tab, parts: Vec<TabPart>) -> Self {
        Self {
            tab,
            dialog: None,
            refs: RefBook::default(),
            guard_closing: false,
            _parts: parts,
        }
    }
}

/// A tab's place in a registry a room keeps elsewhere (by the tab's target id or flat session
/// id, shared with a task), left when the tab's record drops: what leaving takes is the room's,
/// which parts a tab has is the session's (`per_tab`).
pub struct TabPart {
    /// What it is, for the record's `Debug` (`logs`, `cast` …).
    what: &'static str,
    /// Leaves the registry: run once, when the record drops.
    leave: Option<Box<dyn FnOnce() + Send>>,
}

impl TabPart {
    /// A part named `what` that `leave` lets go of (it owns what the record keeps alive, or
    /// forgets the tab in a registry).
    pub fn new(what: &'static str, leave: impl FnOnce() + Send + 'static) -> Self {
        Self {
            what,
            leave: Some(Box::new(leave)),
        }
    }
}

impl std::fmt::Debug for TabPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TabPart({})", self.what)
    }
}

impl Drop for TabPart {
    fn drop(&mut self) {
        if let Some(leave) = self.leave.take() {
            leave();
        }
    }
}
