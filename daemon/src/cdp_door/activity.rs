//! A client's bursts of acts (DESIGN.md §21). Panes see one `agent_activity` start when its
//! acts begin in a tab, and one end once it has done nothing for [`QUIET`] after its last act
//! (or acts in another tab, or leaves) — not a start and an end for every key a script
//! presses: the pill names the agent driving for the whole burst, and a pane that follows
//! agents goes to its tab once. Both messages name the burst's first act (`cdp:<Method>`); the
//! end says whether its last act succeeded. The timeline gets each act as its own event, but
//! printable keys pressed one after another as one ("type 12 keys"), recorded when another
//! act comes or the burst ends.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::door::Door;
use crate::browser::ActivityPhase;

/// How long after its last act a client's burst ends.
const QUIET: Duration = Duration::from_secs(1);

/// The client's burst of acts in one tab, if one is open. Short lock.
#[derive(Default)]
pub(super) struct Activity {
    open: Mutex<Option<Burst>>,
}

/// A client's burst of acts in one tab.
pub(super) struct Burst {
    /// The first act's method and the tab.
    method: String,
    tab: Option<String>,
    /// Bumped by every act, so an end scheduled before a later act does nothing.
    acts: u64,
    ok: bool,
    /// Printable keys pressed since the last other act, not recorded yet.
    typed: Option<Typed>,
}

/// Keys pressed one after another, for one timeline event.
struct Typed {
    keys: usize,
    began: Instant,
    ok: bool,
}

impl Burst {
    /// The burst ended: records its last typed keys and tells panes.
    pub(super) fn end(self, entry: &crate::calls::DoorEntry) {
        record_typed(entry, self.tab.as_deref(), self.typed);
        entry.announce_act(
            &self.method,
            self.tab.as_deref(),
            ActivityPhase::End,
            Some(self.ok),
        );
    }
}

/// Records `typed` keys pressed in `tab` as one act, if there are any.
fn record_typed(entry: &crate::calls::DoorEntry, tab: Option<&str>, typed: Option<Typed>) {
    if let Some(typed) = typed {
        let summary = match typed.keys {
            1 => super::acts::TYPED_KEY.to_string(),
            keys => format!("type {keys} keys"),
        };
        entry.record_act(
            "Input.dispatchKeyEvent",
            tab,
            typed.ok,
            typed.began,
            summary,
        );
    }
}

impl Activity {
    /// The burst still open, taken (the connection ends: its end is told now).
    pub(super) fn take_open(&self) -> Option<Burst> {
        self.open.lock().expect("activity lock").take()
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
                let ended = open.take();
                *open = Some(Burst {
                    method: method.to_string(),
                    tab: tab.map(str::to_string),
                    acts: 1,
                    ok: true,
                    typed: None,
                });
                (ended, true)
            }
        }
    };
    if let Some(ended) = ended {
        ended.end(&door.entry);
    }
    if started {
        door.entry
            .announce_act(method, tab, ActivityPhase::Start, None);
    }
}

/// An act of `door`'s client ended (`ok`), begun at `began`, with the timeline's `summary`:
/// recorded now, or kept with the keys typed just before it when it is a typed key; the burst
/// ends after [`QUIET`] unless another act comes first.
pub(super) fn act_ended(
    door: &Arc<Door>,
    method: &str,
    tab: Option<&str>,
    ok: bool,
    began: Instant,
    summary: String,
) {
    let key = super::acts::is_typed_key(&summary);
    let (acts, typed_before) = {
        let mut open = door.activity.open.lock().expect("activity lock");
        match open.as_mut() {
            Some(burst) => {
                burst.ok = ok;
                let typed_before = match key {
                    true => {
                        let typed = burst.typed.get_or_insert(Typed {
                            keys: 0,
                            began,
                            ok: true,
                        });
                        typed.keys += 1;
                        typed.ok &= ok;
                        None
                    }
                    false => burst.typed.take(),
                };
                (Some(burst.acts), typed_before)
            }
            None => (None, None),
        }
    };
    record_typed(&door.entry, tab, typed_before);
    let kept = key && acts.is_some();
    if !kept {
        door.entry.record_act(method, tab, ok, began, summary);
    }
    let Some(acts) = acts else { return };
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
        if let Some(ended) = ended {
            ended.end(&door.entry);
        }
    });
}
