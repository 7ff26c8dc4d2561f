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

use std::sync::Arc;

use tokio::task::JoinSet;

use super::input::InputEvent;
use super::session::{BrowserSession, SessionError};

/// Most continuous events waiting for Chrome's answer at once.
pub const MAX_IN_FLIGHT: usize = 3;

/// What one dispatched event came to: copy/cut give the selected text.
pub type Dispatched = Result<Option<String>, SessionError>;

/// The events of one pane on their way to Chrome.
#[derive(Default)]
pub struct InputPipeline {
    in_flight: JoinSet<Dispatched>,
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
                finished.extend(self.in_flight.join_next().await.and_then(Result::ok));
            }
            let (session, tab) = (session.clone(), tab.to_string());
            self.in_flight
                .spawn(async move { session.input_on(&tab, &event).await });
        } else {
            finished.extend(self.drain().await);
            finished.push(session.input_on(tab, &event).await);
        }
        finished
    }

    /// Waits for every event in flight; returns their answers.
    pub async fn drain(&mut self) -> Vec<Dispatched> {
        let mut finished = Vec::new();
        while let Some(done) = self.in_flight.join_next().await {
            finished.extend(done.ok());
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
