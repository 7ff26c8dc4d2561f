//! Files in and out of a session's browser: downloads (where they go, their bounds, the
//! `download` notices to panes), uploads handed to tabs (and kept by name for the CDP door:
//! `agent_uploads`), the files the person hands a page
//! (file choosers in the person's tabs, files dropped on the pane: `person_files`), the
//! `showOpenFilePicker` every tab gets (`file_pickers`), and a pane's print to PDF.

pub(crate) mod agent_uploads;
pub(crate) mod download;
pub(crate) mod download_notices;
pub(crate) mod file_pickers;
pub(crate) mod person_files;
pub(crate) mod print;
pub(crate) mod transfers;
