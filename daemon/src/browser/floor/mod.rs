//! The floor every room of `browser/` stands on: what every room works on (`core`: the channel, the
//! connection, the tab list, the session's life, the notices to panes, the size panes see tabs at),
//! the one dispatch of Chrome's events into a queue per room (`dispatch`), the error of a session
//! operation (`error`), the messages to panes (`protocol`), who owns a tab (`owner`), which URLs a
//! tab may be sent to (`url_policy`), the registry of what waits for the person (`registry`), the
//! frame of the pane's isolated world in every tab (`pane_world`), the tab list with one record per
//! tab (`tab_list`), the size each tab is laid out at (`layouts`) and the bench's switch (`bench`).
//!
//! Rooms (`tabs`, `view`, `input`, `prompts`, `files`, `guard`) import the floor and never a
//! sibling room; the session (`session/`, the roof) holds the rooms' state and lends each room
//! its handle. The floor imports no room and not the roof, so every import in `browser/` points
//! down to here. Rooms import what is listed below, never a file of the floor by its path.
//!
//! # Following Chrome's events: one way
//!
//! A session subscribes to its connection once, in its [`Dispatch`], which routes each event by
//! method into an ordered queue per room ([`RoomEvents`]). A room that follows events says which
//! it wants (a `…_EVENTS` list beside its follower) and gives a follower: a future that reads its
//! queue in Chrome's order until the session ends, with `RoomEvents::next` (a gap is logged) or
//! `RoomEvents::recv` (a room that must act on a gap: the screencast restarts its casts, the URL
//! guard forgets what it saw). The session's `open` hands every room's follower to
//! [`Dispatch::follow`], which spawns it, before anything is asked of Chrome. No room subscribes
//! to the connection itself, and no queue is left unread.
//!
//! Events whose handling needs the tab list as tracking left it — a dialog opening, the tools'
//! worlds, titles, the pane world's reports, a download's owner — have no queue of their own:
//! the session's follower (`session/events.rs`) reads them in the tabs' queue, in Chrome's
//! order, and hands each to its room (`Dialogs::follow` …). A follower of their own could read
//! the event of a tab before that tab is tracked.

mod bench;
mod core;
mod dispatch;
mod error;
mod layouts;
mod owner;
mod pane_world;
mod protocol;
mod registry;
mod tab_list;
mod url_policy;

pub use bench::{stages_on, STAGES_ENV};
pub use core::Ownership;
pub(in crate::browser) use core::SessionCore;
pub(in crate::browser) use dispatch::{Delivery, Dispatch, RoomEvents};
pub use error::SessionError;
pub(in crate::browser) use layouts::{
    clamp as clamp_size, repaint, AppliedScales, LayoutError, Layouts, SCALES, ZOOMS,
};
pub use owner::{Actor, TabOwner, HUMAN, OWNER_AGENT};
pub(in crate::browser) use pane_world::{
    install_pane_world, pane_report, pane_world_script, PANE_WORLD,
};
pub use protocol::{
    ActivityPhase, DialogKind, DownloadPhase, Holder, PaneMessage, PopupKind, PopupRect,
    SelectOption, TabInfo,
};
pub use registry::{Prompt, Registry};
pub use tab_list::{FrameRefs, RefBook};
pub(in crate::browser) use tab_list::{OpenDialog, Tab, TabEntry, TabPart, Tabs};
pub use url_policy::{agent_may_stay_on, check_url_for, UrlPolicy};
