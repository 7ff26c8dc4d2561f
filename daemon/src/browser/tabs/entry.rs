//! One record per tracked tab: everything the session keeps about a tab lives in its
//! [`TabEntry`], owned by the tab list, so closing a tab drops all of it in one place
//! (`TabList::remove`, called by `untrack`).
//!
//! What only the session reads (the dialog, the ref book, the URL guard's mark) is plain data
//! in the entry. What a task that outlives the tab-list lock also writes is [`Held`]: the logs
//! are an `Arc` here that the recorder reaches through a weak link, and the registries kept
//! by flat-session or target id elsewhere (screencast casts, layouts and applied scales, the
//! tools' isolated world, open popups and menus) are registrations that leave their registry
//! when the entry drops. A new per-tab thing goes in this file, so it cannot be left behind on
//! close.

use std::sync::Arc;

use super::logs::TabLogBuffers;
use super::refs::RefBook;
use super::worlds::Worlds;
use crate::browser::floor::Layouts;
use crate::browser::floor::TabInfo;
use crate::browser::floor::TabOwner;
use crate::browser::prompts::open_dialog::OpenDialog;
use crate::browser::prompts::open_popups::OpenPopups;
use crate::browser::view::screencast::ScreencastHub;

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
    /// The JavaScript dialog open in the tab (see `dialogs`).
    pub dialog: Option<OpenDialog>,
    /// The MCP tools' element-ref book (see `refs_store`).
    pub refs: RefBook,
    /// Set once the URL guard is closing this tab (it is closed once; see `url_guard`).
    pub guard_closing: bool,
    /// The tab's console and network buffers and its places in registries kept elsewhere:
    /// never read here, kept for what dropping them does.
    _held: Vec<Held>,
}

impl TabEntry {
    /// A record for `tab`, holding `held` (its logs and registrations).
    pub fn new(tab: Tab, held: Vec<Held>) -> Self {
        Self {
            tab,
            dialog: None,
            refs: RefBook::default(),
            guard_closing: false,
            _held: held,
        }
    }
}

/// A tab's place in a registry another part keeps (by the tab's target id or flat session id,
/// shared with a task), removed when the tab's entry drops.
pub enum Held {
    /// The tab's console and network buffers, also written by the logs recorder through a
    /// weak link (see `logs`): dropping the last `Arc` is what forgets them.
    Logs(Arc<TabLogBuffers>),
    /// The tab's screencast (by target id).
    Cast(Arc<ScreencastHub>, String),
    /// The tab's layout and the scale Chrome was told (by flat session).
    Layout(Arc<Layouts>, String),
    /// The tools' isolated world of the tab's main frame (by flat session).
    World(Arc<Worlds>, String),
    /// The `<select>` popups and the context menu open in the tab (by target id).
    Popups(Arc<OpenPopups>, String),
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, id) = match self {
            Held::Logs(logs) => return f.debug_tuple("Held::Logs").field(logs).finish(),
            Held::Cast(_, id) => ("cast", id),
            Held::Layout(_, id) => ("layout", id),
            Held::World(_, id) => ("world", id),
            Held::Popups(_, id) => ("popups", id),
        };
        write!(f, "Held::{what}({id})")
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        match self {
            Held::Logs(_) => {}
            Held::Cast(hub, target_id) => hub.forget(target_id),
            Held::Layout(layouts, session) => layouts.forget(session),
            Held::World(worlds, session) => worlds.drop_session(session),
            Held::Popups(popups, target_id) => popups.forget_tab(target_id),
        }
    }
}
