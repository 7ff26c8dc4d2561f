//! Tabs coming and going and what is kept per tab: attaching and preparing tabs (`tracking`,
//! `adoption`, `traffic`), the active tab (`active`), host mode's own tabs, agents' tabs,
//! navigation, titles, element refs, the tools' isolated worlds and the console and network logs.
//! The tab list itself, with one record per tab, and who owns a tab are the floor's (`tab_list`,
//! `owner`).

pub(crate) mod active;
pub(crate) mod adoption;
pub(crate) mod agent_tabs;
pub(crate) mod logs;
pub(crate) mod navigation;
pub(crate) mod own_tabs;
pub(crate) mod ref_books;
pub(crate) mod titles;
pub(crate) mod tracking;
pub(crate) mod traffic;
pub(crate) mod warm;
pub(crate) mod worlds;
