//! Everything kept per tab: the tab list and the one record per tab (`list`, `entry`), attaching
//! and preparing tabs (`tracking`, `adoption`), the active tab (`active`), host mode's own tabs,
//! agents' tabs, navigation, titles, element refs, the tools' isolated worlds and the console
//! and network logs. Who owns a tab is the floor's (`owner`).

pub(crate) mod active;
pub(crate) mod adoption;
pub(crate) mod agent_tabs;
pub(crate) mod entry;
pub(crate) mod list;
pub(crate) mod logs;
pub(crate) mod navigation;
pub(crate) mod own_tabs;
pub(crate) mod ref_books;
pub mod refs;
pub(crate) mod store;
pub(crate) mod titles;
pub(crate) mod tracking;
pub(crate) mod worlds;
