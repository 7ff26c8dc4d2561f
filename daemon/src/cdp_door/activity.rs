//! What panes see of a client's acts (DESIGN.md §21): one `agent_activity` start when its acts
//! begin in a tab, and one end once it has done nothing for [`QUIET`] after its last act (or
//! acts in another tab, or leaves) — not a start and an end for every key a script presses.
//! The pill names the agent driving for the whole burst, and a pane that follows agents goes
//! to its tab once. Both messages name the burst's first act (`cdp:<Method>`); the end says
//! whether its last act succeeded.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::door::Door;
use crate::browser::ActivityPhase;

/// How long after its last act a client's burst ends.
const QUIET: Duration = Duration::from_secs(1);

/// The client's burst of acts in one tab, if one is open. Short lock.
#[derive(Default)]
pub(super) struct Activity {
    open: Mutex<Option<Burst>>,
}

struct Burst {
    /// The first act's method and the tab.
    method: String,
    tab: Option<String>,
    /// Bumped by every act, so an end scheduled before a later act does nothing.
    acts: u64,
    ok: bool,
}

impl Activity {
    /// The burst still open, taken (the connection ends: its end is told now).
    pub(super) fn take_open(&self) -> Option<(String, Option<String>, bool)> {
        let open = self.open.lock().expect("activity lock").take();
        open.map(|b| (b.method, b.tab, b.ok))
    }
}

/// An act `method` of `door`'s client begins in `tab`: a burst starts unless one is open there.
pub(super) fn act_began(door: &Door, method: &str, tab: Option<&str>) {
    let (ended, started) = {
        let mut open = door.activity.open.lock().expect("activity lock");
        match open.as_mut() {
            Some(burst) if burst.tab.as_deref() == tab => {
                burst.acts += 1;
                (None, false)
            }
            _ => {
                let ended = open.take().map(|b| (b.method, b.tab, b.ok));
                *open = Some(Burst {
                    method: method.to_string(),
                    tab: tab.map(str::to_string),
                    acts: 1,
                    ok: true,
                });
                (ended, true)
            }
        }
    };
    if let Some((method, tab, ok)) = ended {
        door.entry
            .announce_act(&method, tab.as_deref(), ActivityPhase::End, Some(ok));
    }
    if started {
        door.entry
            .announce_act(method, tab, ActivityPhase::Start, None);
    }
}

/// An act of `door`'s client ended (`ok`): its burst ends after [`QUIET`] unless another act
/// comes first.
pub(super) fn act_ended(door: &Arc<Door>, ok: bool) {
    let acts = {
        let mut open = door.activity.open.lock().expect("activity lock");
        let Some(burst) = open.as_mut() else { return };
        burst.ok = ok;
        burst.acts
    };
    let door = Arc::downgrade(door);
    tokio::spawn(async move {
        tokio::time::sleep(QUIET).await;
        let Some(door) = door.upgrade() else { return };
        let ended = {
            let mut open = door.activity.open.lock().expect("activity lock");
            match open.as_ref() {
                Some(burst) if burst.acts == acts => open.take(),
                _ => None,
            }
        };
        if let Some(burst) = ended {
            door.entry.announce_act(
                &burst.method,
                burst.tab.as_deref(),
                ActivityPhase::End,
                Some(burst.ok),
            );
        }
    });
}
