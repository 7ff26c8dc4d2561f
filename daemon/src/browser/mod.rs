//! Per-channel CDP state: the browser session (tabs, active tab, notices), the screencast hub,
//! each pane's view, navigation and input. Knows nothing about HTTP, panes' sockets or how browsers are started.

mod agent_tabs;
pub mod auth;
pub mod context_menu;
mod cursor;
mod dialogs;
mod download_notices;
mod events;
mod file_pickers;
pub mod files;
pub mod find;
pub mod frame_stages;
pub mod input;
pub mod input_pipeline;
pub mod input_queue;
pub mod keys;
mod layouts;
pub mod logs;
mod navigation;
pub mod notice;
mod own_tabs;
pub mod owner;
pub mod pane_view;
mod pane_world;
pub mod person_files;
pub mod pickers;
pub mod print;
pub mod refs_store;
pub mod screencast;
pub mod select_popup;
mod session;
mod session_parts;
mod tab_entry;
mod tabs;
mod titles;
mod tracking;
mod url_guard;
pub mod url_policy;
pub mod worlds;

pub use dialogs::OpenDialog;
pub use navigation::check_url;
pub use notice::{ActivityPhase, DialogKind, DownloadPhase, Holder, PaneMessage, TabInfo};
pub use owner::{Actor, TabOwner};
pub use pane_view::PaneView;
pub use session::{BrowserSession, Ownership, SessionError, SessionOptions, SettleLimits};
pub use url_policy::UrlPolicy;
