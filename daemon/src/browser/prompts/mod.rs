//! What waits for the person at a pane: JavaScript dialogs, HTTP authentication, `<select>` and
//! `<input>` popups and the context menu (the file choosers a page opens are
//! `files::person_files`).

pub(crate) mod approvals;
pub(crate) mod auth;
pub(crate) mod consent;
pub(crate) mod context_menu;
pub(crate) mod dialogs;
pub(crate) mod open_popups;
pub(crate) mod pickers;
pub(crate) mod select_popup;
