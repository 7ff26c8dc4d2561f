//! After a client opens a tab, the session's next agent tab is opened ahead
//! (`browser/tabs/warm.rs`), so the client's next `newPage` costs only its tracking — but only
//! once the client has been quiet for [`QUIET`]: a client that just opened a page is about to
//! load it, and Chrome opening a window (a renderer started, 40–60 ms of its work) must not
//! land in the middle of that. A client that stays busy for [`GIVE_UP`], or leaves, gets none.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::door::Door;

/// How long the client must have sent nothing.
const QUIET: Duration = Duration::from_millis(250);
/// How long to wait for a quiet moment.
const GIVE_UP: Duration = Duration::from_secs(60);

/// Opens the next agent tab ahead once `door`'s client is quiet (in the background).
pub(super) fn when_quiet(door: &Arc<Door>) {
    let door = Arc::downgrade(door);
    let started = Instant::now();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(QUIET / 2).await;
            let Some(door) = door.upgrade() else { return };
            if door.quiet_for() >= QUIET {
                door.entry.session.agent_tabs().keep_next_warm();
                return;
            }
            if started.elapsed() >= GIVE_UP {
                return;
            }
        }
    });
}
