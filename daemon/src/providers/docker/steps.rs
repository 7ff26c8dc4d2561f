//! How long each step of one sidecar start took (image check, volume and create, attach,
//! start, browser ready) and how many Engine API requests it made, logged as one
//! `sidecar_start_steps` line at `info` when the start succeeds, so a slow start can be read
//! step by step (`porthole-bench docker` prints it).

use std::time::Instant;

/// The steps of one start so far.
pub(super) struct Steps {
    last: Instant,
    done: Vec<(&'static str, u128)>,
    requests: u32,
    reused: bool,
}

impl Steps {
    pub(super) fn start() -> Self {
        Self {
            last: Instant::now(),
            done: Vec::new(),
            requests: 0,
            reused: false,
        }
    }

    /// `n` more Engine API requests were made.
    pub(super) fn requests(&mut self, n: u32) {
        self.requests += n;
    }

    /// The start restarted a kept container instead of creating one.
    pub(super) fn reused(&mut self) {
        self.reused = true;
    }

    pub(super) fn was_reused(&self) -> bool {
        self.reused
    }

    /// Engine API requests so far.
    pub(super) fn request_count(&self) -> u32 {
        self.requests
    }

    /// The step `name` ended now.
    pub(super) fn mark(&mut self, name: &'static str) {
        let now = Instant::now();
        self.done
            .push((name, now.duration_since(self.last).as_millis()));
        self.last = now;
    }

    /// `name=ms` pairs in order, e.g. `create=31 start=180`.
    pub(super) fn summary(&self) -> String {
        self.done
            .iter()
            .map(|(name, ms)| format!("{name}={ms}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn steps_are_listed_in_order() {
        let mut steps = super::Steps::start();
        steps.mark("create");
        steps.mark("start");
        let summary = steps.summary();
        assert!(
            summary.starts_with("create=") && summary.contains(" start="),
            "{summary}"
        );
    }
}
