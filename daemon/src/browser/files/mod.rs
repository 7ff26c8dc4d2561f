//! Files in and out of a session's browser: downloads (where they go, their bounds, the
//! `download` notices to panes), uploads handed to tabs, and a pane's print to PDF.

pub(crate) mod download;
pub(crate) mod download_notices;
pub(crate) mod print;
pub(crate) mod transfers;
