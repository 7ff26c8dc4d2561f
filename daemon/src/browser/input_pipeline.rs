//! How a pane's queued input reaches Chrome: continuous input (wheel, moves) is pipelined,
//! everything else waits its turn.
//!
//! `Input.dispatchMouseEvent` answers only once the renderer has handled the event (~20–40 ms
//! on a loaded machine). Waiting for each answer before sending the next wheel event puts a
//! whole round trip between a person's last wheel tick and Chrome hearing of it, on top of the
//! round trip already under way. So up to [`MAX_IN_FLIGHT`] wheel and move events travel at
//! once (Chrome's own input router coalesces those it has not delivered yet), while a click, a
//! key or a clipboard action first waits for every event in flight: order is kept where it
//! matters, and barriers are never merged, dropped or overtaken.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::stream::{FuturesUnordered, StreamExt};

use super::input::InputEvent;
use super::session::{BrowserSession, SessionError};

/// Most continuous events waiting for Chrome's answer at once.
pub const MAX_IN_FLIGHT: usize = 3;

/// What one dispatched event came to: copy/cut give the selected text.
pub type Dispatched = Result<Option<String>, SessionError>;

type InFlight = Pin<Box<dyn Future<Output = Dispatched> + Send>>;

/// The events of one pane on their way to Chrome.
#[derive(Default)]
pub struct InputPipeline {
    /// Continuous events already sent, waiting for their answers. Not spawned: each is
    /// polled once where it is queued, which sends its command, so commands leave in the
    /// order the person made them (spawned tasks could send a later move first, and a drag
    /// then selected less than the person dragged over).
    in_flight: FuturesUnordered<InFlight>,
}

impl InputPipeline {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends `event` to the tab behind flat CDP session `tab`; returns what finished meanwhile
    /// (this event's answer for a barrier, the answers of earlier continuous events).
    pub async fn send(
        &mut self,
        session: &Arc<BrowserSession>,
        tab: &str,
        event: InputEvent,
    ) -> Vec<Dispatched> {
        let mut finished = Vec::new();
        if is_continuous(&event) {
            while self.in_flight.len() >= MAX_IN_FLIGHT {
                finished.extend(self.in_flight.next().await);
            }
            let (session, tab) = (session.clone(), tab.to_string());
            let mut sending: InFlight =
                Box::pin(async move { session.input_on(&tab, &event).await });
            // The first poll sends the command (`CdpConnection::call_with` queues it before
            // it first waits).
            match futures_util::poll!(sending.as_mut()) {
                std::task::Poll::Ready(done) => finished.push(done),
                std::task::Poll::Pending => self.in_flight.push(sending),
            }
        } else {
            finished.extend(self.drain().await);
            finished.push(session.input_on(tab, &event).await);
        }
        finished
    }

    /// Waits for every event in flight; returns their answers.
    pub async fn drain(&mut self) -> Vec<Dispatched> {
        let mut finished = Vec::new();
        while let Some(done) = self.in_flight.next().await {
            finished.push(done);
        }
        finished
    }
}

/// Wheel and pointer moves: the events a person sends in streams, where only the latest
/// position and the summed deltas matter.
fn is_continuous(event: &InputEvent) -> bool {
    matches!(
        event,
        InputEvent::Scroll { .. } | InputEvent::Mousemove { .. }
    )
}
