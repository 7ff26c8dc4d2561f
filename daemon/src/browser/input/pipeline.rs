//! How a pane's queued input reaches Chrome: pointer, key and text input is pipelined; copy
//! and cut wait their turn.
//!
//! `Input.dispatchMouseEvent` answers only once the renderer has handled the event; while a
//! page scrolls Chrome answers wheel events in batches about every two frames (~30 ms
//! measured, loaded 2-core machine). Waiting for each answer before sending the next wheel
//! event puts a whole round trip between a person's last wheel tick and Chrome hearing of it.
//! So up to [`MAX_IN_FLIGHT`] wheel and move events travel at once (Chrome's own input router
//! coalesces those it has not delivered yet). Only when every slot is taken does an event wait,
//! in the queue, where newer deltas still merge into it (`input_queue`), and it is taken when
//! a slot frees, with every delta read until then. Buttons, keys, typed and pasted text and IME
//! compositions are pipelined the same way (never merged: the queue keeps them whole): Chrome
//! hands them all to the tab's widget input handler in the order sent, which keeps that order,
//! so a release waits for no answer to its press (at a remote engine that wait was a round trip
//! before every click's `click` event, and before every key after an IME draft step). Copy and
//! cut first wait for every event in flight: they read the selection the events before them
//! made through `Runtime.evaluate`, which does not queue behind input. Events are never dropped
//! or overtaken. Answers are taken as Chrome gives them, not at the next event.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::stream::{FuturesUnordered, StreamExt};

use super::events::InputEvent;
use super::queue::{InputQueue, Queued};
use super::stages;
use crate::browser::floor::SessionError;

/// Most events waiting for Chrome's answer at once: more than a 120 Hz wheel sends
/// between two of Chrome's answer batches (4 in ~30 ms), so the last tick of a stream is sent
/// when read, not after a slot frees (`porthole-bench wheel`: 3 slots left it waiting 11–21 ms
/// in 3 runs of 5).
pub const MAX_IN_FLIGHT: usize = 8;

/// What one dispatched event came to: copy/cut give the selected text.
pub type Dispatched = Result<Option<String>, SessionError>;

type InFlight = Pin<Box<dyn Future<Output = Dispatched> + Send>>;

/// Where a pane's events go: the session, which sends each to a tab (it implements this, in
/// `session/for_panes.rs`), so the pipeline names no session.
pub trait InputTarget: Send + Sync + 'static {
    /// Sends one pane input event to the tab behind flat CDP `tab`; copy/cut give the selected
    /// text.
    fn input_on(&self, tab: &str, event: &InputEvent) -> impl Future<Output = Dispatched> + Send;
}

/// What the dispatcher handles next.
#[derive(Debug)]
pub enum Next {
    /// An event taken from the queue, to [`InputPipeline::send`].
    Event(Queued),
    /// The answer of an event in flight, as soon as Chrome gave it.
    Answer(Dispatched),
}

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

    /// Waits for the next event of `queue` or the next answer of an event in flight,
    /// whichever comes first (answers first when both are ready). While every slot is taken
    /// only answers are awaited: an event is taken from the queue once it can be sent at once.
    pub async fn next(&mut self, queue: &InputQueue) -> Next {
        if self.in_flight.len() >= MAX_IN_FLIGHT {
            // Every slot taken: the queued event waits in the queue, where newer deltas and
            // moves still merge into it, rather than in hand, where they could not.
            if let Some(done) = self.in_flight.next().await {
                return Next::Answer(done);
            }
        }
        if self.in_flight.is_empty() {
            return Next::Event(queue.pop().await);
        }
        tokio::select! {
            biased;
            Some(done) = self.in_flight.next() => Next::Answer(done),
            queued = queue.pop() => Next::Event(queued),
        }
    }

    /// Sends `queued` through `session` to the tab behind flat CDP session `tab`; returns what
    /// finished meanwhile (this event's answer for a copy or a cut, the answers of earlier
    /// events).
    pub async fn send<S: InputTarget>(
        &mut self,
        session: &Arc<S>,
        tab: &str,
        queued: Queued,
    ) -> Vec<Dispatched> {
        let (session, tab) = (session.clone(), tab.to_string());
        self.send_with(queued, move |event| -> InFlight {
            Box::pin(async move { session.input_on(&tab, &event).await })
        })
        .await
    }

    /// [`InputPipeline::send`] with `dispatch` making the future that sends an event and
    /// waits for its answer (its first poll sends the command).
    async fn send_with(
        &mut self,
        queued: Queued,
        dispatch: impl FnOnce(InputEvent) -> InFlight,
    ) -> Vec<Dispatched> {
        let Queued { event, trace } = queued;
        let mut finished = Vec::new();
        if is_pipelined(&event) {
            while self.in_flight.len() >= MAX_IN_FLIGHT {
                finished.extend(self.in_flight.next().await);
            }
            let wheel_delta = match &event {
                InputEvent::Scroll { delta_y, .. } => Some(*delta_y),
                _ => None,
            };
            let in_flight = self.in_flight.len();
            let answer = dispatch(event);
            let mut sending: InFlight = match (trace, wheel_delta) {
                (Some(_), Some(delta_y)) => Box::pin(async move {
                    let sent_us = stages::now_us();
                    let done = answer.await;
                    stages::wheel_answered(trace, sent_us, delta_y, in_flight);
                    done
                }),
                _ => answer,
            };
            // The first poll sends the command (`CdpConnection::call_with` queues it before
            // it first waits).
            match futures_util::poll!(sending.as_mut()) {
                std::task::Poll::Ready(done) => finished.push(done),
                std::task::Poll::Pending => self.in_flight.push(sending),
            }
        } else {
            finished.extend(self.drain().await);
            finished.push(dispatch(event).await);
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

/// Every event but copy and cut: sent without waiting for the answers of the events before
/// it (Chrome delivers them to the tab's widget in the order sent).
fn is_pipelined(event: &InputEvent) -> bool {
    !matches!(event, InputEvent::Copy { .. } | InputEvent::Cut { .. })
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::Mutex;
    use std::time::Duration;

    use tokio::sync::oneshot;

    use super::*;
    use crate::browser::input::events::{MouseButton, Pointer};

    /// Chrome as the pipeline sees it: records what was sent (on the first poll, as a CDP
    /// call sends) and answers only when the test says.
    #[derive(Default)]
    struct FakeChrome {
        sent: Arc<Mutex<Vec<InputEvent>>>,
        answers: Arc<Mutex<VecDeque<oneshot::Sender<()>>>>,
    }

    impl FakeChrome {
        fn dispatch(&self) -> impl FnOnce(InputEvent) -> InFlight {
            let (sent, answers) = (self.sent.clone(), self.answers.clone());
            move |event| {
                let (answer, answered) = oneshot::channel();
                answers.lock().unwrap().push_back(answer);
                Box::pin(async move {
                    sent.lock().unwrap().push(event);
                    let _ = answered.await;
                    Ok(None)
                })
            }
        }

        fn answer_oldest(&self) {
            let answer = self
                .answers
                .lock()
                .unwrap()
                .pop_front()
                .expect("an event in flight");
            let _ = answer.send(());
        }

        fn sent(&self) -> Vec<InputEvent> {
            self.sent.lock().unwrap().clone()
        }
    }

    fn wheel(dy: f64) -> InputEvent {
        InputEvent::Scroll {
            at: Pointer::at(1.0, 1.0, 0),
            delta_x: 0.0,
            delta_y: dy,
        }
    }

    async fn next_event(pipeline: &mut InputPipeline, queue: &InputQueue) -> Queued {
        match pipeline.next(queue).await {
            Next::Event(queued) => queued,
            Next::Answer(answer) => panic!("expected an event, got the answer {answer:?}"),
        }
    }

    /// Every slot taken by a wheel event Chrome has not answered.
    async fn fill_slots(pipeline: &mut InputPipeline, queue: &InputQueue, chrome: &FakeChrome) {
        for _ in 0..MAX_IN_FLIGHT {
            queue.push(wheel(10.0)).unwrap();
            let queued = next_event(pipeline, queue).await;
            assert!(pipeline
                .send_with(queued, chrome.dispatch())
                .await
                .is_empty());
        }
    }

    #[tokio::test]
    async fn a_wheel_waiting_for_a_slot_takes_the_deltas_read_meanwhile() {
        let (queue, chrome) = (InputQueue::new(), FakeChrome::default());
        let mut pipeline = InputPipeline::new();
        fill_slots(&mut pipeline, &queue, &chrome).await;
        queue.push(wheel(1.0)).unwrap();
        {
            let mut next = std::pin::pin!(pipeline.next(&queue));
            // Every slot is taken: the queued delta stays in the queue, where newer ones join it.
            assert!(futures_util::poll!(next.as_mut()).is_pending());
            queue.push(wheel(2.0)).unwrap();
            chrome.answer_oldest();
            assert!(matches!(next.await, Next::Answer(Ok(None))));
        }
        let queued = next_event(&mut pipeline, &queue).await;
        assert_eq!(queued.event, wheel(3.0));
        assert!(pipeline
            .send_with(queued, chrome.dispatch())
            .await
            .is_empty());
        // Nothing lost: the deltas Chrome got sum to what was scrolled.
        let summed: f64 = chrome
            .sent()
            .iter()
            .map(|e| match e {
                InputEvent::Scroll { delta_y, .. } => *delta_y,
                _ => 0.0,
            })
            .sum();
        assert_eq!(summed, 10.0 * MAX_IN_FLIGHT as f64 + 3.0);
    }

    fn button(down: bool) -> InputEvent {
        let (at, button, click_count) = (Pointer::at(5.0, 5.0, 0), MouseButton::Left, 1);
        match down {
            true => InputEvent::Mousedown {
                at,
                button,
                click_count,
            },
            false => InputEvent::Mouseup {
                at,
                button,
                click_count,
            },
        }
    }

    /// Takes the next event of `queue` and sends it; what finished meanwhile.
    async fn send_next(
        pipeline: &mut InputPipeline,
        queue: &InputQueue,
        chrome: &FakeChrome,
    ) -> Vec<Dispatched> {
        let queued = next_event(pipeline, queue).await;
        pipeline.send_with(queued, chrome.dispatch()).await
    }

    #[tokio::test]
    async fn a_release_a_key_and_text_leave_before_the_press_is_answered_in_order() {
        let (queue, chrome) = (InputQueue::new(), FakeChrome::default());
        let mut pipeline = InputPipeline::new();
        let key = InputEvent::Keypress {
            key: "a".into(),
            code: "KeyA".into(),
            modifiers: 0,
        };
        let draft = InputEvent::Composition {
            text: "に".into(),
            selection_start: None,
            selection_end: None,
        };
        let commit = InputEvent::Typetext { text: "日".into() };
        let events = [button(true), button(false), key, draft, commit];
        for event in events.clone() {
            queue.push(event).unwrap();
            let sent = tokio::time::timeout(
                Duration::from_secs(10),
                send_next(&mut pipeline, &queue, &chrome),
            )
            .await;
            assert!(sent.is_ok(), "an unanswered event held the next one back");
        }
        assert_eq!(chrome.sent(), events);
    }

    #[tokio::test]
    async fn a_copy_waits_for_the_answers_of_the_events_before_it() {
        let (queue, chrome) = (InputQueue::new(), FakeChrome::default());
        let mut pipeline = InputPipeline::new();
        queue.push(button(false)).unwrap();
        let sent = tokio::time::timeout(
            Duration::from_secs(10),
            send_next(&mut pipeline, &queue, &chrome),
        )
        .await;
        assert!(sent.is_ok_and(|finished| finished.is_empty()));
        queue.push(InputEvent::Copy {}).unwrap();
        let queued = next_event(&mut pipeline, &queue).await;
        let mut copying = std::pin::pin!(pipeline.send_with(queued, chrome.dispatch()));
        assert!(futures_util::poll!(copying.as_mut()).is_pending());
        assert_eq!(chrome.sent(), vec![button(false)], "the copy left early");
        chrome.answer_oldest();
        // The release answered: the copy leaves and waits for its own answer.
        assert!(futures_util::poll!(copying.as_mut()).is_pending());
        assert_eq!(chrome.sent(), vec![button(false), InputEvent::Copy {}]);
        chrome.answer_oldest();
        assert_eq!(
            copying.await.len(),
            2,
            "the release's answer and the copy's"
        );
    }

    #[tokio::test]
    async fn an_answer_is_taken_when_chrome_gives_it_without_waiting_for_more_input() {
        let (queue, chrome) = (InputQueue::new(), FakeChrome::default());
        let mut pipeline = InputPipeline::new();
        queue.push(wheel(10.0)).unwrap();
        let queued = next_event(&mut pipeline, &queue).await;
        assert!(pipeline
            .send_with(queued, chrome.dispatch())
            .await
            .is_empty());
        chrome.answer_oldest();
        let next = tokio::time::timeout(Duration::from_secs(10), pipeline.next(&queue)).await;
        assert!(matches!(next, Ok(Next::Answer(Ok(None)))));
    }
}
