//! Per-tool-call CDP counts (issue 22): [`tallied`] runs one piece of work (a tool call) and
//! counts the commands it sends and the replies it waits on one after another — each a round
//! trip to a browser far away. The connection reports each call here ([`Waiting`]); the
//! tally lives in a task-local, so only the work's own calls count, not the session's event
//! tasks nor another call on the same connection. Owns nothing else.

use std::sync::Arc;

/// What one piece of work sent: `commands` (every command, fired ones included) and `rounds`,
/// the replies it waited on one after another (each a round trip to a browser far away).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CdpStats {
    pub commands: u64,
    pub rounds: u64,
}

tokio::task_local! {
    /// The tally of the work running in [`tallied`] (one tool call), if any.
    static TALLY: Arc<Tally>;
}

/// Commands one piece of work sent, and how many times it started waiting on a reply while
/// none of its other replies was outstanding: replies waited on one after another, each a
/// round trip to a browser far away. Only that work's own calls count (not the session's
/// event tasks, nor other tool calls on the same connection).
#[derive(Debug, Default)]
struct Tally {
    commands: std::sync::atomic::AtomicU64,
    waits: std::sync::atomic::AtomicU64,
    outstanding: std::sync::atomic::AtomicU64,
}

/// Runs `work` and counts the commands it sends and the replies it waits on in sequence
/// (`rounds`), on every connection it calls (calls made in tasks it spawns are not counted).
pub async fn tallied<F: std::future::Future>(work: F) -> (F::Output, CdpStats) {
    use std::sync::atomic::Ordering::Relaxed;
    let tally = Arc::new(Tally::default());
    let output = TALLY.scope(tally.clone(), work).await;
    let stats = CdpStats {
        commands: tally.commands.load(Relaxed),
        rounds: tally.waits.load(Relaxed),
    };
    (output, stats)
}

/// `work` counted in the tally of the work that calls this, if any: for a task that work
/// spawns and waits on (its calls are that work's round trips too).
pub fn carried<F: std::future::Future>(work: F) -> impl std::future::Future<Output = F::Output> {
    let tally = TALLY.try_with(Arc::clone).ok();
    async move {
        match tally {
            Some(tally) => TALLY.scope(tally, work).await,
            None => work.await,
        }
    }
}

/// A reply being waited on, for the tally of the work it belongs to; the wait ends when it
/// is dropped (answered, timed out or abandoned).
pub(super) struct Waiting(Option<Arc<Tally>>);

impl Waiting {
    pub(super) fn start() -> Self {
        use std::sync::atomic::Ordering::Relaxed;
        let tally = TALLY.try_with(Arc::clone).ok();
        if let Some(tally) = &tally {
            tally.commands.fetch_add(1, Relaxed);
            if tally.outstanding.fetch_add(1, Relaxed) == 0 {
                tally.waits.fetch_add(1, Relaxed);
            }
        }
        Self(tally)
    }

    pub(super) fn fired() {
        use std::sync::atomic::Ordering::Relaxed;
        let _ = TALLY.try_with(|tally| tally.commands.fetch_add(1, Relaxed));
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(tally) = &self.0 {
            tally
                .outstanding
                .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}
