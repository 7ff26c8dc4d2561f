//! The bench's switch: whether the daemon times frames and wheel input by stage
//! (`PORTHOLE_BENCH_FRAME_STAGES=1`, which `porthole-bench` sets). Read once; when off, each
//! stage costs one load of a flag. What is timed is the view's (`view::frame_stages`) and the
//! input's (`input::stages`).

use std::sync::OnceLock;

/// The environment variable that turns the stage logs on.
pub const STAGES_ENV: &str = "PORTHOLE_BENCH_FRAME_STAGES";

/// Whether stages are recorded (read once).
pub fn stages_on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var(STAGES_ENV).is_ok_and(|v| v == "1"))
}
