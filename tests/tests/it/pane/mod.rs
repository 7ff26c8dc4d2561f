//! The pane as a client of the real daemon, through its WebSocket: frames, tabs and lifecycle
//! (`basics`), each pane's own view of a tab (`views`), the pane as a whole browser for the
//! person (`view`, and in docker mode `docker`), pixel density (`sharp`), what waits for the
//! person (`pickers`, `context_menu`, `files`, `file_picker`, `downloads`) and the messages'
//! TypeScript declarations (`types`). The same through `<porthole-pane>` is in `web_panel`.

mod basics;
pub(crate) mod context_menu;
mod docker;
mod downloads;
mod file_picker;
mod files;
pub(crate) mod pickers;
mod sharp;
mod types;
pub(crate) mod view;
mod views;
