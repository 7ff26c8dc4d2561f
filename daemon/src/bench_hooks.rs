//! The daemon's insides that `porthole-bench` (the `bench/` crate) measures or runs bare, behind
//! one name, as dropshot keeps its only public hook module `test_util`: a bench reaches into
//! the daemon through this list and nowhere else, so what benches depend on is read in one
//! place. It owns nothing: each item lives in its own module and is only re-exported here.

/// The frame stage log: its switch ([`frame_stages::ENV`]) and a frame's time since Chrome's
/// swap, which the raw screencast baseline measures the same way.
pub use crate::browser::frame_stages;

/// The CDP connection the baseline clients drive Chromium with, and the per-call tally the
/// `tool_run` log lines' counts come from.
pub mod cdp {
    pub use crate::cdp::{tallied, CdpConnection, CdpEvent, CdpStats};
}

/// Docker mode's pieces the docker bench runs bare: the daemon's own container spec and calls,
/// its engine connection and its sandbox probe.
pub mod docker {
    pub use crate::providers::docker::{container, engine, sandbox};
}

/// The vault's scan of answers, timed alone by the vault bench.
pub mod vault {
    pub use crate::vault::scan;
}
