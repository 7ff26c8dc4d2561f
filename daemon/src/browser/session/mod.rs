//! The session: its core (`core`: the connection, the tab list, life, notices and views every
//! room works on), the handle that holds the core and the rooms' state and lends each room's
//! handle (`handle`), the rooms' state holders (`parts`), what every room keeps, installs and
//! closes per tab (`per_tab`), the session's own following of its tabs (`events`), and the blank
//! slate an idle pause leaves.

pub(crate) mod blank_slate;
pub(crate) mod core;
pub(crate) mod events;
pub(crate) mod handle;
pub(crate) mod parts;
pub(crate) mod per_tab;
