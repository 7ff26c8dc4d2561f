//! The floor every room of `browser/` stands on: what a session is (`core`), the one dispatch
//! of Chrome's events into a queue per room (`dispatch`), the error of a session operation
//! (`error`) and the messages to panes (`protocol`).
//!
//! Rooms (`tabs`, `view`, `input`, `prompts`, `files`, `guard`) import the floor and never a
//! sibling room; the session (`session/`, the roof) holds the rooms' state and lends each room
//! its handle. The floor imports no room and not the roof, so every import in `browser/` points
//! down to here. Rooms import what is listed below, never a file of the floor by its path.

mod dispatch;
mod error;
mod protocol;

pub(in crate::browser) use dispatch::{Delivery, Dispatch, RoomEvents};
pub use error::SessionError;
pub use protocol::{
    ActivityPhase, DialogKind, DownloadPhase, Holder, PaneMessage, PopupKind, PopupRect,
    SelectOption, TabInfo,
};
