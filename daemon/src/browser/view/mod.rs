//! What panes see: the shared screencast hub, a tab's pixel ratio and zoom (the size each tab
//! is laid out at is the floor's `layouts`), each pane's view, the frames each tab hands them,
//! the cursor, find in page, the pane's isolated world, sharp frames of a still page at a pixel
//! scale above 1, and the bench-only frame stages.

pub(crate) mod cursor;
pub(crate) mod find;
pub mod frame_stages;
pub(crate) mod frames;
pub(crate) mod screencast;
mod sharp;
pub(crate) mod zoom;
