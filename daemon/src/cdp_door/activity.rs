//! A client's bursts of acts (DESIGN.md §21): what panes and the timeline are told of them.
//! - Panes see one `agent_activity` start when its acts begin in a tab, and one end once it
//!   has done nothing for [`QUIET`] after its last act (or acts in another tab, or leaves) —
//!   not a start and an end for every key a script presses: the pill names the agent driving
//!   for the whole burst, and a pane that follows agents goes to its tab once. Both name the
//!   burst's first act (`cdp:<Method>`); the end says whether its last act succeeded.
//! - The timeline gets each act as its own event, printable keys pressed one after another as
//!   one ("type 12 keys"). Each act is held until the next one comes (its event is written
//!   then) or the burst ends; the burst's last act is written with a frame of its tab, taken
//!   once the client is quiet, and a burst that never pauses gets one every [`FRAME_EVERY`].
//!   So taking a frame (the page paints once more for it) never lands between a client's
//!   commands while it works, and the frame shows the page as the burst left it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::door::Door;
use crate::browser::ActivityPhase;
use crate::calls::DoorEntry;

/// How long after its last act a client's burst ends.
const QUIET: Duration = Duration::from_secs(1);
/// The longest a burst goes without a frame on the timeline.
const FRAME_EVERY: Duration = Duration::from_secs(5);

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
    /// The last act, not written to the timeline yet.
    held: Option<Held>,
    /// When the burst began or its last frame was asked for.
    framed: Instant,
}

/// An act (or printable keys pressed one after another) waiting for its timeline event.
struct Held {
    method: String,
    ok: bool,
    began: Instant,
    ended: Instant,
    summary: String,
    /// Printable keys pressed, when it is typing.
    keys: usize,
}

impl Held {
    /// Writes it to the timeline, with a frame of `tab` when `frame`.
    fn record(self, entry: &DoorEntry, tab: Option<&str>, frame: bool) {
        let summary = match self.keys {
            0 => self.summary,
            1 => super::acts::TYPED_KEY.to_string(),
            keys => format!("type {keys} keys"),
        };
        let ms = self.ended.duration_since(self.began).as_millis() as u64;
        entry.record_act(&self.method, tab, self.ok, ms, summary, frame);
    }
}

impl Burst {
    /// The burst ended: its last act is written with a frame, and panes are told.
    pub(super) fn end(self, entry: &DoorEntry) {
        if let Some(held) = self.held {
            held.record(entry, self.tab.as_deref(), true);
        }
        entry.announce_act(
            &self.method,
            self.tab.as_deref(),
            ActivityPhase::End,
            Some(self.ok),
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
                    held: None,
                    framed: Instant::now(),
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

/// An act `method` of `door`'s client in `tab` ended (`ok`), begun at `began`, with the
/// timeline's `summary`: it is held (a typed key joins the keys typed just before it), and the
/// act held before it is written now; the burst ends after [`QUIET`] unless another act comes
/// first.
pub(super) fn act_ended(
    door: &Arc<Door>,
    method: &str,
    tab: Option<&str>,
    ok: bool,
    began: Instant,
    summary: String,
) {
    let now = Instant::now();
    let key = super::acts::is_typed_key(&summary);
    let mut act = Held {
        method: method.to_string(),
        ok,
        began,
        ended: now,
        summary,
        keys: usize::from(key),
    };
    let (acts, written) = {
        let mut open = door.activity.open.lock().expect("activity lock");
        match open.as_mut() {
            Some(burst) => {
                burst.ok = ok;
                let written = match burst.held.take() {
                    Some(mut typing) if key && typing.keys > 0 => {
                        typing.keys += 1;
                        typing.ok &= ok;
                        typing.ended = now;
                        burst.held = Some(typing);
                        None
                    }
                    before => {
                        burst.held = Some(act);
                        let frame = now.duration_since(burst.framed) >= FRAME_EVERY;
                        if frame && before.is_some() {
                            burst.framed = now;
                        }
                        before.map(|b| (b, frame))
                    }
                };
                (Some(burst.acts), written)
            }
            // No burst (it cannot be: the act began one): written at once.
            None => {
                act.ended = now;
                (None, Some((act, true)))
            }
        }
    };
    if let Some((held, frame)) = written {
        held.record(&door.entry, tab, frame);
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
