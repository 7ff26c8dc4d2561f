//! The session, the roof of `browser/`: the one place that uses every room. It holds the floor's
//! core and every room's state, lends each room its handle, and puts together what takes more
//! than one room. Rooms never import it; it imports them.
//!
//! - `handle`: `BrowserSession`, opening it (every room's follower handed to the dispatch, the
//!   browser's tabs tracked) and what the session is; `parts`: the rooms' state it holds.
//! - `lend`: each room's handle, borrowing only what that room works on; `tab_access`: the tabs
//!   and their sizes as the rest of the daemon names them.
//! - `per_tab`: what every room keeps, installs and closes per tab (what dies with a tab).
//! - `events`: the session's own follower of its tabs' events; `paused`: the verdict on
//!   requests paused at `Fetch` (the guard's sites and the prompts' approvals together), and
//!   `attribution`: which tab a paused request comes from.
//! - `navigation_checks`: what an agent's navigation is held to, for the `tabs` room.
//! - `pane_reports`: the pane's world put together from the rooms' parts, its reports routed.
//! - `pane_view`: what one pane looks at; `for_panes`: a pane's input and print through the
//!   session.
//! - `blank_slate`: the one blank tab an idle pause leaves; `held_downloads`: a download an
//!   agent held to `download` began, waiting for the person.

pub(crate) mod attribution;
pub(crate) mod blank_slate;
pub(crate) mod events;
pub(crate) mod for_panes;
pub(crate) mod handle;
pub(crate) mod held_downloads;
pub(crate) mod lend;
pub(crate) mod navigation_checks;
pub(crate) mod pane_reports;
pub(crate) mod pane_view;
pub(crate) mod parts;
pub(crate) mod paused;
pub(crate) mod per_tab;
pub(crate) mod tab_access;
