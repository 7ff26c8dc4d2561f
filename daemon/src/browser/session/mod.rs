//! The session, the roof of `browser/`: the handle that holds the floor's core and every room's
//! state and lends each room's handle (`handle`), the rooms' state holders (`parts`), what every
//! room keeps, installs and closes per tab (`per_tab`), the session's own following of its tabs
//! (`events`), and the blank slate an idle pause leaves.

pub(crate) mod blank_slate;
pub(crate) mod events;
pub(crate) mod for_panes;
pub(crate) mod handle;
pub(crate) mod navigation_checks;
pub(crate) mod pane_reports;
pub(crate) mod pane_view;
pub(crate) mod parts;
pub(crate) mod paused;
pub(crate) mod per_tab;
