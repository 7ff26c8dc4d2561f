//! The tab list of a session and one record per tab: the list behind its lock (`store`), its
//! order, active tab and attaches (`list`), the record and its parts (`entry`), and the plain
//! data the record keeps for rooms: the dialog open in the tab (`dialog`) and the MCP tools'
//! element-ref book (`refs`). Rooms ask the list by name (`Tabs`' methods); the `tabs` room's
//! bookkeeping reads and changes it whole, in a closure under its lock.

mod dialog;
mod entry;
mod list;
mod refs;
mod store;

pub use dialog::OpenDialog;
pub use entry::{Tab, TabEntry, TabPart};
pub use refs::{FrameRefs, RefBook};
pub(in crate::browser) use store::Tabs;
