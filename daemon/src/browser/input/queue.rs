//! The per-pane input queue: moves collapse to the last position, wheel deltas sum, and clicks
//! and keys are barriers that are never merged, dropped or reordered.
//!
//! The WebSocket read loop only pushes; a separate task pops and dispatches, so a slow CDP
//! round trip (~22 ms per wheel or move) never stalls reading the pane.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::Notify;

use super::events::InputEvent;
use super::stages::{self, Trace};

/// Events waiting for dispatch; bounded so a runaway client cannot grow it without limit.
pub struct InputQueue {
    /// Short lock, never held across an await.
    events: Mutex<VecDeque<Queued>>,
    ready: Notify,
}

/// One queue entry: an event (maybe several merged) and, for the bench, when it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Queued {
    pub event: InputEvent,
    pub trace: Option<Trace>,
}

/// Most events a queue keeps; barrier events past this are refused.
pub const MAX_QUEUED: usize = 1024;

/// A push the queue refused.
#[derive(Debug, thiserror::Error)]
#[error("too many input events are waiting ({MAX_QUEUED}); slow down")]
pub struct QueueFull;

impl Default for InputQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl InputQueue {
    pub fn new() -> Self {
        Self {
            events: Mutex::new(VecDeque::new()),
            ready: Notify::new(),
        }
    }

    /// Queues an event, merging it into the last one where that loses nothing a user sees.
    pub fn push(&self, event: InputEvent) -> Result<(), QueueFull> {
        let trace = Trace::read();
        let mut events = self.events.lock().expect("input queue lock");
        let merged = events.back_mut().is_some_and(|last| {
            let merged = merge_into(&mut last.event, &event);
            if let (true, Some(last)) = (merged, &mut last.trace) {
                last.merged(trace);
            }
            merged
        });
        if !merged {
            if events.len() >= MAX_QUEUED {
                return Err(QueueFull);
            }
            events.push_back(Queued { event, trace });
        }
        drop(events);
        self.ready.notify_one();
        Ok(())
    }

    /// Waits for the next event.
    pub async fn pop(&self) -> Queued {
        loop {
            if let Some(mut queued) = self.events.lock().expect("input queue lock").pop_front() {
                if let Some(trace) = &mut queued.trace {
                    trace.popped_us = stages::now_us();
                }
                return queued;
            }
            self.ready.notified().await;
        }
    }

    /// Number of events waiting.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.events.lock().expect("input queue lock").len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Folds `next` into `last` when both are moves (same button and modifiers) or both are wheel
/// events (same modifiers). Returns true when merged.
fn merge_into(last: &mut InputEvent, next: &InputEvent) -> bool {
    match (last, next) {
        (
            InputEvent::Mousemove { at, button },
            InputEvent::Mousemove {
                at: next_at,
                button: next_button,
            },
        ) if button == next_button && at.modifiers == next_at.modifiers => {
            *at = *next_at;
            true
        }
        (
            InputEvent::Scroll {
                at,
                delta_x,
                delta_y,
            },
            InputEvent::Scroll {
                at: next_at,
                delta_x: ndx,
                delta_y: ndy,
            },
        ) if at.modifiers == next_at.modifiers => {
            *at = *next_at;
            *delta_x += ndx;
            *delta_y += ndy;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::input::events::{MouseButton, Pointer};

    fn mv(x: f64) -> InputEvent {
        InputEvent::Mousemove {
            at: Pointer::at(x, 1.0, 0),
            button: MouseButton::None,
        }
    }
    fn wheel(dy: f64) -> InputEvent {
        InputEvent::Scroll {
            at: Pointer::at(1.0, 1.0, 0),
            delta_x: 0.0,
            delta_y: dy,
        }
    }
    fn key() -> InputEvent {
        InputEvent::Keypress {
            key: "a".into(),
            code: "KeyA".into(),
            modifiers: 0,
        }
    }

    #[tokio::test]
    async fn moves_collapse_wheels_sum_and_barriers_keep_order() {
        let queue = InputQueue::new();
        for event in [
            mv(1.0),
            mv(2.0),
            mv(3.0),
            wheel(10.0),
            wheel(5.0),
            key(),
            wheel(1.0),
            mv(4.0),
        ] {
            queue.push(event).unwrap();
        }
        assert_eq!(queue.len(), 5);
        assert_eq!(queue.pop().await.event, mv(3.0));
        assert_eq!(queue.pop().await.event, wheel(15.0));
        assert_eq!(queue.pop().await.event, key());
        assert_eq!(queue.pop().await.event, wheel(1.0));
        assert_eq!(queue.pop().await.event, mv(4.0));
        assert!(queue.is_empty());
    }

    #[tokio::test]
    async fn a_drag_keeps_its_button_apart_from_hover_moves() {
        let queue = InputQueue::new();
        let drag = InputEvent::Mousemove {
            at: Pointer::at(9.0, 9.0, 0),
            button: MouseButton::Left,
        };
        queue.push(mv(1.0)).unwrap();
        queue.push(drag.clone()).unwrap();
        assert_eq!(queue.len(), 2);
    }

    #[tokio::test]
    async fn pop_waits_for_a_push() {
        let queue = std::sync::Arc::new(InputQueue::new());
        let waiter = tokio::spawn({
            let queue = queue.clone();
            async move { queue.pop().await }
        });
        tokio::task::yield_now().await;
        queue.push(key()).unwrap();
        assert_eq!(waiter.await.unwrap().event, key());
    }

    #[test]
    fn a_full_queue_refuses_barriers() {
        let queue = InputQueue::new();
        for _ in 0..MAX_QUEUED {
            queue.push(key()).unwrap();
        }
        assert!(queue.push(key()).is_err());
    }
}
