//! What panes see: the shared screencast hub, a tab's pixel ratio and zoom (the size each tab
//! is laid out at is the floor's `layouts`), the frames each tab hands them, sharp frames of a
//! still page at a pixel scale above 1, the cursor and find in page (parts of the pane's world,
//! whose frame is the floor's `pane_world`), and the bench-only frame stages. Each pane's own
//! view of its channel is the session's `pane_view`.

pub(crate) mod cursor;
pub(crate) mod find;
pub mod frame_stages;
pub(crate) mod frames;
pub(crate) mod screencast;
mod sharp;
pub(crate) mod zoom;
