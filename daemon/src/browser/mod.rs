//! Per-channel CDP state: the browser session (tabs, active tab, notices), the screencast hub,
//! each pane's view, navigation and input. Knows nothing about HTTP, panes' sockets or how
//! browsers are started.
//!
//! A floor, rooms and a roof. The floor (`floor`) is what every room stands on: the session's
//! core (channel, connection, tab list with one record per tab, life, notices), the one dispatch
//! of Chrome's events, the error and the pane messages. Each room owns one part of a session and
//! imports only the floor: `tabs` (tabs coming and going, agents' tabs, navigation, logs),
//! `view` (what panes see), `input` (what panes send), `prompts` (what waits for the person),
//! `files` (downloads, uploads, print) and `guard` (which URLs agents may open). The roof
//! (`session`) holds every room's state, lends each room its handle and puts together what takes
//! more than one room. All are private: the rest of the daemon uses only what this list
//! re-exports.

mod files;
mod floor;
mod guard;
mod input;
mod prompts;
mod session;
mod tabs;
mod view;

pub(crate) use files::download::{Download, DownloadState};
pub(crate) use files::person_files::{safe_name, HandedFile};
pub(crate) use files::transfers::{DownloadLimits, DownloadTracking, ReadBack};
pub use floor::Ownership;
pub(crate) use floor::{
    check_url_for, ActivityPhase, Actor, DownloadPhase, FrameRefs, Holder, PaneMessage, Prompt,
    RefBook, Registry, SessionError, TabInfo, UrlPolicy, HUMAN, OWNER_AGENT,
};
pub(crate) use input::events::{dispatch as dispatch_input, InputEvent, MouseButton, Pointer};
#[cfg(test)]
pub(crate) use input::keys;
pub(crate) use input::pipeline::{Dispatched, InputPipeline, Next};
pub(crate) use input::queue::InputQueue;
pub(crate) use input::stages::frame_written as wheel_frame_written;
pub(crate) use prompts::auth::AuthAnswer;
pub(crate) use prompts::consent::{CallGuard, ConsentRules, ScriptedDocs};
pub(crate) use prompts::select_popup::SelectChoice;
pub(crate) use session::for_panes::print_to_download;
pub(crate) use session::handle::SettleLimits;
pub use session::handle::{BrowserSession, SessionOptions};
pub(crate) use session::pane_view::PaneView;
pub(crate) use tabs::worlds::{IsolatedWorld, NewDocumentWorld};
pub(crate) use view::find::MAX_QUERY as MAX_FIND_QUERY;
/// Bench-only attribution of a frame's time by stage (used by `porthole-bench`).
pub use view::frame_stages;
pub(crate) use view::frames::Frame;
pub(crate) use view::screencast::Watching;
