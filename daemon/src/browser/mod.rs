//! Per-channel CDP state: the browser session (tabs, active tab, notices), the screencast hub,
//! each pane's view, navigation and input. Knows nothing about HTTP, panes' sockets or how browsers are started.

mod agent_tabs;
pub(crate) mod auth;
pub(crate) mod context_menu;
mod cursor;
mod dialogs;
mod download_notices;
mod events;
mod file_pickers;
pub(crate) mod files;
pub(crate) mod find;
pub mod frame_stages;
pub(crate) mod input;
pub(crate) mod input_pipeline;
pub(crate) mod input_queue;
pub(crate) mod input_stages;
pub(crate) mod keys;
mod layouts;
pub(crate) mod logs;
mod navigation;
pub(crate) mod notice;
mod own_tabs;
pub(crate) mod owner;
pub(crate) mod pane_view;
mod pane_world;
pub(crate) mod person_files;
pub(crate) mod pickers;
pub(crate) mod print;
pub(crate) mod refs_store;
pub(crate) mod screencast;
pub(crate) mod select_popup;
mod session;
mod session_parts;
mod tab_entry;
mod tabs;
mod titles;
mod tracking;
mod url_guard;
pub(crate) mod url_policy;
pub(crate) mod worlds;

pub(crate) use notice::{ActivityPhase, DownloadPhase, Holder, PaneMessage, TabInfo};
pub(crate) use owner::Actor;
pub(crate) use pane_view::PaneView;
pub use session::{BrowserSession, Ownership, SessionOptions};
pub(crate) use session::{SessionError, SettleLimits};
pub(crate) use url_policy::UrlPolicy;
