//! The MCP browser tools (DESIGN.md §7), implemented once on the engine. Each runs one tool
//! on a tab (or on the actor's view of the browser) and nothing else: who may run it, the
//! person's oversight and approvals, the vault's rules and the timeline are the call pipeline's
//! (`calls`), which every entry point goes through.
//!
//! Rooms (none imports `calls`, and none shares a name with a room of `browser/`):
//! - [`run`]: the one match from a parsed call to its tool, and where it runs ([`Scope`]).
//! - `tab/`: the acting tab ([`Tab`]), the in-page helper (`page.js`) in an isolated world the
//!   page's scripts cannot reach, cross-origin frames and their sessions (`iframes`), element
//!   refs bound to their document, and [`run_in_tab`] (the ref tools on a tab named by id).
//! - `read/`: `read_page` and `find` (iframes, open shadow roots, size cap, marks for
//!   off-screen and new elements), the console and network logs.
//! - `act/`: `computer`, `form_input`, the read-back of what the page kept, `wait_for_*` and
//!   settling.
//! - `page/`: navigation, history, page info and text, screenshots, the window, `evaluate`,
//!   the tab tools and `handle_dialog`.
//! - `capture/`: refs drawn on a screenshot (`screenshot {badges: true}`).
//! - `transfer/`: `upload_file`, `list_downloads`, `get_download`.
//! - `login/`: the vault's mechanics: `list_logins`, the sign-in fields, their frames'
//!   origins, and the trusted typing.
//!
//! This module never starts browsers, owns no sockets and knows nothing of HTTP or rmcp.

mod act;
mod capture;
mod error;
mod login;
mod page;
mod read;
mod run;
mod tab;
mod transfer;

pub(crate) use error::ToolError;
pub(crate) use login::fields::{
    form_destination, press_enter, targets as login_targets, type_into, FieldKind, Target,
};
pub(crate) use login::vault_tools::{agent_of, list_logins, login_wanted, yours};
pub(crate) use page::dialog_answers::{mention_open_dialog, unless_blocked};
pub(crate) use run::{run, scope, works_during_dialog, Scope};
pub(crate) use tab::driver::Tab;
pub use tab::in_tab::run_in_tab;
pub(crate) use tab::redact::Redact;
/// Evaluates an expression in the tools' isolated world of a frame session (made when there
/// is none): for the daemon's own reads of a page, which the page must not be able to forge.
pub(crate) use tab::world::evaluate as in_tools_world;
pub(crate) use tab::world::in_new_documents;
pub(crate) use transfer::file_tools::{download_answer, finished_download, mime_type};
