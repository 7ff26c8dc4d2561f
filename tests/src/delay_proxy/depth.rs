//! The depth of what a [`DelayProxy`](super::DelayProxy) relays: on the wire, the longest
//! chain of round trips in which each send could have waited on the answer before it.
//!
//! A *chunk* is what one read of the proxy takes from one side of one connection: bytes its
//! sender wrote that reached the proxy together (a TLS record, part of one, or several). The
//! proxy holds each chunk `one_way` and then delivers it, so it knows when each side could
//! have seen what.
//!
//! The *depth* of a chunk, within a window (see [`Ledger::open`]):
//! - a client (daemon) chunk: 1 + the greatest depth among the engine chunks delivered to the
//!   client, on any connection, before the proxy read it (1 when none was in this window);
//! - an engine chunk: the greatest depth among the client chunks delivered to the engine, on
//!   any connection, before the proxy read it (0 when none was).
//!
//! So a client chunk of depth `d` is sent after something of depth `d - 1` came back, which was
//! sent after something of depth `d - 2` came back, and so on: `d` sends, each of which could
//! have waited for an answer to the one before (time alone orders them, as a send may depend on
//! anything it saw; the content, TLS here, is never read). What does not add:
//! - requests sent together (one batch, in one chunk or several): a reply to any of them is a
//!   round trip away, so every part sees the same deliveries and gets the same depth;
//! - the engine's own data that answers nothing new (events, several chunks of one reply):
//!   it carries the depth of what reached the engine before it, no more.
//!
//! What does add: a send after any delivery of the current greatest depth, whether or not it
//! really waited for it (a command sent on an event, a poll from a timer): read the figure as
//! a bound from above on the round trips waited on in sequence, and tell the background apart
//! by measuring a window without the work.

use std::time::Duration;

use tokio::time::Instant;

/// Who wrote a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The daemon (the side that connects to the proxy).
    Client,
    /// The engine the proxy forwards to.
    Engine,
}

/// A chunk's window and depth, carried with it from read to delivery.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stamp {
    window: u64,
    depth: u32,
}

/// One chunk read in a window.
#[derive(Debug, Clone)]
pub struct Chunk {
    /// When the proxy read it, from the window's opening.
    pub at: Duration,
    /// The connection's index, in the order the proxy accepted them.
    pub connection: usize,
    pub from: Side,
    pub bytes: usize,
    pub depth: u32,
}

/// A window's figures so far.
#[derive(Debug, Clone, Default)]
pub struct Depths {
    /// The greatest depth of a client chunk in the window: the longest chain of sends, each
    /// after the answer to the one before could have arrived.
    pub max: u32,
    /// The window's chunks in the order read (the first [`KEPT`] of them).
    pub chunks: Vec<Chunk>,
}

impl Depths {
    /// The first client chunk of each depth: how the chain grew (for a failure's message).
    pub fn steps(&self) -> Vec<&Chunk> {
        let mut steps: Vec<&Chunk> = Vec::new();
        for chunk in &self.chunks {
            let deeper = steps.last().map_or(0, |c| c.depth);
            if chunk.from == Side::Client && chunk.depth > deeper {
                steps.push(chunk);
            }
        }
        steps
    }

    /// The first client chunk of the greatest depth: where the longest chain ends.
    pub fn deepest(&self) -> Option<&Chunk> {
        self.steps().last().copied()
    }

    /// Client chunks read from `from` on (since the window opened) on connections other than
    /// `except`.
    pub fn client_chunks_elsewhere(&self, except: usize, from: Duration) -> usize {
        self.chunks
            .iter()
            .filter(|c| c.from == Side::Client && c.connection != except && c.at >= from)
            .count()
    }

    /// One line per step: `depth@ms#connection`.
    pub fn describe(&self) -> String {
        self.steps()
            .iter()
            .map(|c| format!("{}@{}ms#{}", c.depth, c.at.as_millis(), c.connection))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How many chunks a window keeps for its report (the depths are counted past it).
pub const KEPT: usize = 20_000;

/// The proxy's running count, shared by every connection's directions.
pub(super) struct Ledger {
    window: u64,
    opened: Instant,
    /// Greatest depth delivered to the client in this window.
    to_client: u32,
    /// Greatest depth delivered to the engine in this window.
    to_engine: u32,
    max: u32,
    chunks: Vec<Chunk>,
}

impl Default for Ledger {
    fn default() -> Self {
        Self {
            window: 0,
            opened: Instant::now(),
            to_client: 0,
            to_engine: 0,
            max: 0,
            chunks: Vec::new(),
        }
    }
}

impl Ledger {
    /// Starts a new window: depths count from zero, and chunks read before it count as depth
    /// zero when delivered in it.
    pub(super) fn open(&mut self) {
        *self = Self {
            window: self.window + 1,
            ..Self::default()
        };
    }

    /// The proxy read `bytes` from `from` on `connection`: the chunk's stamp.
    pub(super) fn read(&mut self, connection: usize, from: Side, bytes: usize) -> Stamp {
        let depth = match from {
            Side::Client => self.to_client + 1,
            Side::Engine => self.to_engine,
        };
        if from == Side::Client {
            self.max = self.max.max(depth);
        }
        if self.chunks.len() < KEPT {
            self.chunks.push(Chunk {
                at: self.opened.elapsed(),
                connection,
                from,
                bytes,
                depth,
            });
        }
        Stamp {
            window: self.window,
            depth,
        }
    }

    /// A chunk from `from` reached the other side.
    pub(super) fn delivered(&mut self, from: Side, stamp: Stamp) {
        if stamp.window != self.window {
            return;
        }
        let seen = match from {
            Side::Client => &mut self.to_engine,
            Side::Engine => &mut self.to_client,
        };
        *seen = (*seen).max(stamp.depth);
    }

    pub(super) fn depths(&self) -> Depths {
        Depths {
            max: self.max,
            chunks: self.chunks.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request, its reply, and a second request sent after the reply: depth 2; a batch of
    /// two sent before any reply: depth 1 each.
    #[test]
    fn a_send_after_a_reply_is_one_deeper_and_a_batch_is_not() {
        let mut ledger = Ledger::default();
        ledger.open();
        let a = ledger.read(0, Side::Client, 10);
        let b = ledger.read(1, Side::Client, 10);
        ledger.delivered(Side::Client, a);
        ledger.delivered(Side::Client, b);
        let reply = ledger.read(0, Side::Engine, 10);
        ledger.delivered(Side::Engine, reply);
        let c = ledger.read(0, Side::Client, 10);
        assert_eq!((a.depth, b.depth, reply.depth, c.depth), (1, 1, 1, 2));
        assert_eq!(ledger.depths().max, 2);
    }

    /// An engine chunk read before a client chunk reached the engine answers nothing of it.
    #[test]
    fn engine_data_read_before_a_request_arrived_does_not_deepen() {
        let mut ledger = Ledger::default();
        ledger.open();
        let a = ledger.read(0, Side::Client, 10);
        let event = ledger.read(0, Side::Engine, 10);
        ledger.delivered(Side::Client, a);
        ledger.delivered(Side::Engine, event);
        let b = ledger.read(0, Side::Client, 10);
        assert_eq!((a.depth, event.depth, b.depth), (1, 0, 1));
    }

    /// A chunk of an earlier window delivered in a new one counts as depth zero.
    #[test]
    fn a_new_window_forgets_the_old_depths() {
        let mut ledger = Ledger::default();
        let a = ledger.read(0, Side::Client, 10);
        ledger.delivered(Side::Client, a);
        let reply = ledger.read(0, Side::Engine, 10);
        ledger.open();
        ledger.delivered(Side::Engine, reply);
        assert_eq!(ledger.read(0, Side::Client, 10).depth, 1);
    }
}
