//! The popups and context menus open in a session's tabs, as the session and each tab's record
//! (see the floor's `tab_list`) keep them: where each one's select or image lives in the pane's world.
//! Plain data; following and answering popups is `select_popup`, menus `context_menu`.

use crate::browser::floor::{PopupKind, Prompt, Registry};

/// An open popup: where its select lives.
#[derive(Debug, Clone)]
pub(in crate::browser) struct OpenPopup {
    pub(super) target_id: String,
    pub(super) session: String,
    pub(super) context: i64,
    /// The world's own id for it.
    pub(super) local_id: String,
    pub(super) kind: PopupKind,
}

/// The latest menu of a tab: where its image lives.
#[derive(Debug, Clone)]
pub(in crate::browser) struct OpenMenu {
    pub(in crate::browser) target_id: String,
    pub(super) session: String,
    pub(super) context: i64,
    /// The world's id for the image under the point, and its address.
    pub(super) image: Option<(String, String)>,
}

/// The open popups of a session by public id, and the latest context menu of each tab (see
/// `context_menu`), each in the prompts' registry (ids minted one way).
#[derive(Debug, Default)]
pub struct OpenPopups {
    by_id: Registry<OpenPopup>,
    menus: Registry<OpenMenu>,
}

impl Prompt for OpenPopup {
    const PREFIX: &'static str = "sel_";
}

impl Prompt for OpenMenu {
    const PREFIX: &'static str = "cm_";
}

impl OpenPopups {
    /// A fresh popup id.
    pub(super) fn mint(&self) -> String {
        self.by_id.mint()
    }

    pub(super) fn insert(&self, id: String, popup: OpenPopup) {
        self.by_id.insert(id, popup);
    }

    pub(super) fn take(&self, id: &str) -> Option<OpenPopup> {
        self.by_id.take(id)
    }

    /// The public id of the popup the world knows as `local_id` in `context`, if open.
    pub(super) fn find_local(&self, session: &str, context: i64, local_id: &str) -> Option<String> {
        self.by_id.read(|open| {
            open.iter()
                .find(|(_, p)| {
                    p.session == session && p.context == context && p.local_id == local_id
                })
                .map(|(id, _)| id.clone())
        })
    }

    /// Removes the popup the world knows as `local_id` in `context`; returns its public id.
    pub(super) fn take_local(
        &self,
        session: &str,
        context: i64,
        local_id: &str,
    ) -> Option<(String, String)> {
        self.by_id
            .take_where(|p| p.session == session && p.context == context && p.local_id == local_id)
            .pop()
            .map(|(id, p)| (id, p.target_id))
    }

    /// Whether a popup (a `<select>`'s list, a date, time or colour picker …) is open in tab
    /// `target_id`.
    pub fn open_in(&self, target_id: &str) -> bool {
        self.by_id
            .read(|open| open.iter().any(|(_, p)| p.target_id == target_id))
    }

    /// Forgets the popups and menus of a tab that closed.
    pub fn forget_tab(&self, target_id: &str) {
        self.by_id.take_where(|p| p.target_id == target_id);
        self.menus.take_where(|m| m.target_id == target_id);
    }

    /// A fresh context menu id.
    pub(in crate::browser) fn mint_menu(&self) -> String {
        self.menus.mint()
    }

    /// Keeps `menu` as its tab's latest context menu (an older one of the tab goes).
    pub(in crate::browser) fn set_menu(&self, id: String, menu: OpenMenu) {
        self.menus.take_where(|m| m.target_id == menu.target_id);
        self.menus.insert(id, menu);
    }

    pub(in crate::browser) fn menu(&self, id: &str) -> Option<OpenMenu> {
        self.menus
            .read(|open| open.iter().find(|(i, _)| i == id).map(|(_, m)| m.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_report_finds_the_popup_by_its_world_id() {
        let popups = OpenPopups::default();
        let popup = |local: &str| OpenPopup {
            target_id: "T".into(),
            session: "S".into(),
            context: 3,
            local_id: local.into(),
            kind: PopupKind::Select,
        };
        assert!(!popups.open_in("T"));
        popups.insert("sel_a".into(), popup("s1"));
        popups.insert("sel_b".into(), popup("s2"));
        assert!(popups.open_in("T") && !popups.open_in("U"));
        assert_eq!(popups.take_local("S", 3, "s2").unwrap().0, "sel_b");
        assert!(popups.take_local("S", 4, "s1").is_none());
        popups.forget_tab("T");
        assert!(popups.take("sel_a").is_none());
        assert!(!popups.open_in("T"));
    }
}
