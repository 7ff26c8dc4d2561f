//! One dispatch of Chrome's events per session: the session's one subscription to its
//! connection, routed by method into an ordered queue per room that wants the event (the
//! session's own tab tracking, the URL guard's shown URLs, paused requests, the person's file
//! choosers, the screencast, the tab logs, the downloads, tabs going in a host-mode stop).
//!
//! The dispatch only routes: each queue is read in Chrome's order by one follower of its room,
//! in a task of its own that [`Dispatch::follow`] spawns, so a room that awaits replies (a paused
//! request, a file chooser, the person) never holds another back. Each queue holds [`ROOM_QUEUE`] events, as many as the connection's
//! own event buffer a reader could fall behind by before; a room further behind misses the
//! newest events and is told how many once it has read the ones before (as a lagged
//! broadcast reader is), and handles that as it always did. The dispatch itself falling
//! behind the connection makes every room miss what it missed.
//!
//! Knows nothing of what the rooms do with their events.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use crate::cdp::CdpEvent;

/// How many events a room's queue holds before the room misses the newest ones.
pub(in crate::browser) const ROOM_QUEUE: usize = 512;

/// What a room reads from its queue.
#[derive(Debug)]
pub(in crate::browser) enum Delivery {
    /// The next event the room wants, in the order Chrome sent it.
    Event(CdpEvent),
    /// The room fell behind and missed this many events (after those it read before).
    Lagged(u64),
}

/// A room's end of its queue.
#[derive(Debug)]
pub(in crate::browser) struct RoomEvents {
    name: &'static str,
    queue: mpsc::Receiver<CdpEvent>,
    /// Events dropped since the room last heard of it.
    missed: Arc<AtomicU64>,
    /// The session's end.
    closed: CancellationToken,
}

impl RoomEvents {
    /// The next event or the news of a gap; `None` once the session is closed or the dispatch
    /// ended. A gap is told when the events queued before it are read.
    pub(in crate::browser) async fn recv(&mut self) -> Option<Delivery> {
        if self.closed.is_cancelled() {
            return None;
        }
        match self.queue.try_recv() {
            Ok(event) => return Some(Delivery::Event(event)),
            Err(mpsc::error::TryRecvError::Disconnected) => return None,
            Err(mpsc::error::TryRecvError::Empty) => {}
        }
        let missed = self.missed.swap(0, Ordering::SeqCst);
        if missed > 0 {
            return Some(Delivery::Lagged(missed));
        }
        // A gap needs a full queue: the room is woken by what was queued before it.
        tokio::select! {
            _ = self.closed.cancelled() => None,
            event = self.queue.recv() => event.map(Delivery::Event),
        }
    }

    /// The next event, or `None` once the session is closed or the dispatch ended; a gap is
    /// skipped with a debug line naming the room.
    pub(in crate::browser) async fn next(&mut self) -> Option<CdpEvent> {
        loop {
            match self.recv().await? {
                Delivery::Event(event) => return Some(event),
                Delivery::Lagged(missed) => {
                    tracing::debug!(event = "events_lagged", reader = self.name, missed);
                }
            }
        }
    }
}

/// The dispatch's end of a room's queue.
struct Room {
    name: &'static str,
    queue: mpsc::Sender<CdpEvent>,
    missed: Arc<AtomicU64>,
}

impl Room {
    /// Queues `event`; a full queue drops it and counts it missed, a room that ended (its
    /// task returned) is skipped.
    fn send(&self, event: CdpEvent) {
        match self.queue.try_send(event) {
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                let missed = self.missed.fetch_add(1, Ordering::SeqCst) + 1;
                if missed == 1 {
                    tracing::debug!(event = "room_queue_full", room = self.name);
                }
            }
        }
    }

    fn lagged(&self, missed: u64) {
        self.missed.fetch_add(missed, Ordering::SeqCst);
    }
}

/// The rooms of one session and the events each wants; [`Self::start`] runs it.
pub(in crate::browser) struct Dispatch {
    events: broadcast::Receiver<CdpEvent>,
    /// The session's end, which ends the dispatch and every room's reading.
    closed: CancellationToken,
    rooms: Vec<Room>,
    /// The rooms wanting each method.
    methods: HashMap<&'static str, Vec<usize>>,
    /// The rooms wanting a whole domain (written `Network.`).
    domains: Vec<(&'static str, usize)>,
}

impl Dispatch {
    /// A dispatch of `events` (subscribed before anything it routes was sent) until `closed`
    /// is cancelled.
    pub(in crate::browser) fn new(
        events: broadcast::Receiver<CdpEvent>,
        closed: CancellationToken,
    ) -> Self {
        Self {
            events,
            closed,
            rooms: Vec::new(),
            methods: HashMap::new(),
            domains: Vec::new(),
        }
    }

    /// A queue of the events `wants` (each a method, or a whole domain written `Network.`)
    /// for the room `name`, read in Chrome's order by `follower` in a task of its own, spawned
    /// here so that no queue is left unread.
    pub(in crate::browser) fn follow<F>(
        &mut self,
        name: &'static str,
        wants: &[&'static str],
        follower: impl FnOnce(RoomEvents) -> F,
    ) where
        F: Future<Output = ()> + Send + 'static,
    {
        tokio::spawn(follower(self.room(name, wants)));
    }

    /// A queue of the events `wants` (each a method, or a whole domain written `Network.`)
    /// for the room `name`.
    fn room(&mut self, name: &'static str, wants: &[&'static str]) -> RoomEvents {
        let (sender, queue) = mpsc::channel(ROOM_QUEUE);
        let missed = Arc::new(AtomicU64::new(0));
        let index = self.rooms.len();
        self.rooms.push(Room {
            name,
            queue: sender,
            missed: missed.clone(),
        });
        for &want in wants {
            match want.ends_with('.') {
                true => self.domains.push((want, index)),
                false => self.methods.entry(want).or_default().push(index),
            }
        }
        RoomEvents {
            name,
            queue,
            missed,
            closed: self.closed.clone(),
        }
    }

    /// Routes every event until the session is closed or the connection's events end; the
    /// rooms' queues end with it.
    pub(in crate::browser) fn start(self) {
        tokio::spawn(self.run());
    }

    async fn run(mut self) {
        let closed = self.closed.clone();
        loop {
            let event = tokio::select! {
                _ = closed.cancelled() => return,
                event = self.events.recv() => match event {
                    Ok(event) => event,
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::debug!(event = "events_lagged", reader = "dispatch", missed);
                        for room in &self.rooms {
                            room.lagged(missed);
                        }
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
            };
            self.route(event);
        }
    }

    /// Queues `event` for every room that wants it (the last one takes it, the others a
    /// clone: its parameters are shared).
    fn route(&self, event: CdpEvent) {
        let mut wanting = self
            .methods
            .get(event.method.as_str())
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .copied()
            .chain(
                self.domains
                    .iter()
                    .filter(|(domain, _)| event.method.starts_with(domain))
                    .map(|&(_, room)| room),
            )
            .peekable();
        while let Some(room) = wanting.next() {
            match wanting.peek() {
                Some(_) => self.rooms[room].send(event.clone()),
                None => return self.rooms[room].send(event),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(method: &str) -> CdpEvent {
        CdpEvent {
            method: method.to_string(),
            params: Arc::new(json!({})),
            session_id: None,
            received: std::time::Instant::now(),
        }
    }

    /// What `room` reads next, or a failure when it waits for nothing.
    async fn next(room: &mut RoomEvents) -> Option<Delivery> {
        let wait = std::time::Duration::from_secs(10);
        tokio::time::timeout(wait, room.recv())
            .await
            .expect("a delivery")
    }

    async fn methods(room: &mut RoomEvents, count: usize) -> Vec<String> {
        let mut seen = Vec::new();
        for _ in 0..count {
            match next(room).await {
                Some(Delivery::Event(e)) => seen.push(e.method),
                Some(Delivery::Lagged(n)) => seen.push(format!("lagged {n}")),
                None => seen.push("end".to_string()),
            }
        }
        seen
    }

    #[tokio::test]
    async fn each_room_gets_what_it_wants_in_order() {
        let (sender, events) = broadcast::channel(16);
        let closed = CancellationToken::new();
        let mut dispatch = Dispatch::new(events, closed.clone());
        let mut tabs = dispatch.room("tabs", &["Target.targetCreated", "Page.frameNavigated"]);
        let mut logs = dispatch.room("logs", &["Network.", "Page.frameNavigated"]);
        dispatch.start();
        for method in [
            "Target.targetCreated",
            "Network.requestWillBeSent",
            "Page.screencastFrame",
            "Page.frameNavigated",
            "Network.loadingFinished",
        ] {
            sender.send(event(method)).unwrap();
        }
        assert_eq!(
            methods(&mut tabs, 2).await,
            ["Target.targetCreated", "Page.frameNavigated"]
        );
        assert_eq!(
            methods(&mut logs, 3).await,
            [
                "Network.requestWillBeSent",
                "Page.frameNavigated",
                "Network.loadingFinished"
            ]
        );
        closed.cancel();
        assert_eq!(methods(&mut tabs, 1).await, ["end"]);
    }

    #[tokio::test]
    async fn a_room_behind_is_told_what_it_missed_after_what_it_had() {
        let (sender, events) = broadcast::channel(2 * ROOM_QUEUE);
        let mut dispatch = Dispatch::new(events, CancellationToken::new());
        let mut slow = dispatch.room("slow", &["Page.screencastFrame"]);
        let mut marker = dispatch.room("marker", &["Page.loadEventFired"]);
        dispatch.start();
        for _ in 0..ROOM_QUEUE + 3 {
            sender.send(event("Page.screencastFrame")).unwrap();
        }
        // Routed after every frame: once it arrived, the slow room's queue is as full as it gets.
        sender.send(event("Page.loadEventFired")).unwrap();
        assert_eq!(methods(&mut marker, 1).await, ["Page.loadEventFired"]);
        let mut read = 0;
        loop {
            match next(&mut slow).await {
                Some(Delivery::Event(_)) => read += 1,
                Some(Delivery::Lagged(missed)) => {
                    assert_eq!((read, missed), (ROOM_QUEUE, 3));
                    break;
                }
                None => panic!("the dispatch ended"),
            }
        }
        sender.send(event("Page.screencastFrame")).unwrap();
        assert!(matches!(next(&mut slow).await, Some(Delivery::Event(_))));
    }

    #[tokio::test]
    async fn a_room_that_ended_holds_nobody_back() {
        let (sender, events) = broadcast::channel(16);
        let mut dispatch = Dispatch::new(events, CancellationToken::new());
        drop(dispatch.room("gone", &["Page.frameNavigated"]));
        let mut kept = dispatch.room("kept", &["Page.frameNavigated"]);
        dispatch.start();
        sender.send(event("Page.frameNavigated")).unwrap();
        assert_eq!(methods(&mut kept, 1).await, ["Page.frameNavigated"]);
    }
}
