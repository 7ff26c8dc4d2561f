//! The reading tools: `read_page` and `find` ([`snapshot`], its lines and the window one
//! answer carries), and the console and network logs ([`page_logs`]).

pub(crate) mod page_logs;
pub(crate) mod read_window;
pub(crate) mod snapshot;
pub(crate) mod snapshot_lines;
