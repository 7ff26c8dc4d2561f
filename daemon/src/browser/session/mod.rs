//! The session handle (`handle`: one browser-level connection and the parts it holds), the
//! parts themselves (`parts`), the one dispatch of Chrome's events (`events`), and the blank
//! slate an idle pause leaves.

pub(crate) mod blank_slate;
pub(crate) mod core;
pub(crate) mod events;
pub(crate) mod handle;
pub(crate) mod parts;
