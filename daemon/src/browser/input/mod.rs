//! What panes send: pane input events and how each becomes CDP `Input.*` calls (`events`,
//! `keys`), the per-pane queue that collapses moves and sums wheels (`queue`), the pipeline that
//! keeps several events in flight (`pipeline`), and the bench-only timing of a wheel (`stages`).

pub(crate) mod events;
pub(crate) mod keys;
pub(crate) mod pipeline;
pub(crate) mod queue;
pub(crate) mod stages;
