//! The MCP browser tools (DESIGN.md §7), implemented once on the engine: the daemon's
//! `POST /api/browser/action` runs them on a channel's [`BrowserSession`], and
//! `porthole mcp-host-browser` runs them on a session over the user's Chrome (own tabs only).
//!
//! - [`backend`]: [`EngineBackend`], the `ToolBackend` over a [`SessionSource`], and [`run`].
//! - [`driver`]: the active tab as tools see it, and the in-page helper (`page.js`), which
//!   runs in an isolated world ([`world`]) the page's scripts cannot reach.
//! - [`in_tab`]: [`run_in_tab`], the ref tools on a tab named by id (not the active one).
//! - [`refs`]: element refs bound to their document; stale and unknown refs are told apart.
//! - [`snapshot`]: `read_page` and `find` (iframes, open shadow roots, size cap, marks for
//!   off-screen and new elements). [`frames`]: cross-origin frames and their sessions.
//! - [`actions`]: `computer`. [`forms`]: `form_input`. [`waits`]: wait_for_* and settling.
//! - [`files`]: `upload_file`, `list_downloads`, `get_download`. [`readback`]: typed and
//!   filled values checked against what the page kept.
//! - [`tabs`], [`page`], [`logs`]: tabs, page info/text/evaluate/screenshots, console/network.
//! - [`badges`]: refs drawn on a screenshot (`screenshot {badges: true}`).
//! - [`login`]: the vault's `list_logins`, `fill_login`, `fill_totp`; [`login_fields`]: the
//!   fields they fill, their frames' origins, and the trusted typing.
//!
//! This module never starts browsers, owns no sockets and knows nothing of HTTP or rmcp.
//!
//! [`BrowserSession`]: crate::browser::BrowserSession

mod act;
mod approvals;
mod capture;
mod error;
mod login;
mod page;
mod read;
mod run;
mod script_guard;
mod tab;
mod transfer;

pub(crate) use login::person::{fill_for_person, PersonFill};
pub(crate) use login::vault_tools::{FillRecord, VaultHooks};
pub(crate) use run::{EngineBackend, ReadySession, SessionSource};
pub use tab::in_tab::run_in_tab;
/// Evaluates an expression in the tools' isolated world of a frame session (made when there
/// is none): for the daemon's own reads of a page, which the page must not be able to forge.
pub(crate) use tab::world::evaluate as in_tools_world;
pub(crate) use transfer::file_tools::mime_type;
