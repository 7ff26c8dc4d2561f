//! Reaching the person without a pane (DESIGN.md §20a): what the desktop app, a notifier or
//! the web panel's page hear of every channel — approvals, handoffs, a locked vault, an
//! authentication prompt — through `GET /api/events` (Server-Sent Events), and the
//! `notify.command` run once per approval.
//!
//! Owns the daemon-wide stream of those events (a [`Reach`], cloned into every session) and
//! whether anybody can be reached. A leaf: it carries JSON already written by the session and
//! imports nothing of the crate, so `browser` can hold it without an arrow back up.

mod notifier;

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::broadcast;

pub use notifier::{ApprovalNotice, Notifier};

/// How many events a slow subscriber may fall behind by before it is told it missed some.
const BACKLOG: usize = 1024;

/// The message types (`type`) of a pane's messages that also go to `/api/events`: what needs
/// the person, and what closes it.
pub const KINDS: &[&str] = &[
    "approval",
    "approval_closed",
    "handoff",
    "handoff_ended",
    "vault_locked",
    "auth_prompt",
    "auth_prompt_closed",
];

/// One event for the person: a pane's message of one of [`KINDS`], with its channel.
#[derive(Debug, Clone)]
pub struct PersonEvent {
    /// The message's `type` (the SSE event name).
    pub kind: String,
    /// The pane's message with `channel_id` added.
    pub json: Value,
}

/// The daemon-wide stream of events for the person and the notifier (cheap to clone).
#[derive(Debug, Clone)]
pub struct Reach {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    events: broadcast::Sender<PersonEvent>,
    notifier: Option<Notifier>,
}

impl Default for Reach {
    /// Nobody to reach but a pane: no notifier (subscribers may still come).
    fn default() -> Self {
        Self::new(None)
    }
}

impl Reach {
    /// The stream, running `notifier` once per approval when one is configured.
    pub fn new(notifier: Option<Notifier>) -> Self {
        Self {
            inner: Arc::new(Inner {
                events: broadcast::channel(BACKLOG).0,
                notifier,
            }),
        }
    }

    /// Hands `message` (a pane's message as JSON, with its `type`) of `channel_id` to every
    /// subscriber when its type is one of [`KINDS`]; anything else is not the person's event.
    pub fn publish(&self, channel_id: &str, mut message: Value) {
        let Some(kind) = message["type"].as_str().filter(|k| KINDS.contains(k)) else {
            return;
        };
        let kind = kind.to_string();
        if let Some(fields) = message.as_object_mut() {
            fields.insert("channel_id".into(), Value::from(channel_id));
        }
        // Nobody subscribed is fine.
        let _ = self.inner.events.send(PersonEvent {
            kind,
            json: message,
        });
    }

    /// Every event from now on (`GET /api/events`).
    pub fn subscribe(&self) -> broadcast::Receiver<PersonEvent> {
        self.inner.events.subscribe()
    }

    /// True when somebody besides a pane can be told of an approval: an event stream is open
    /// or a notifier is configured.
    pub fn reachable(&self) -> bool {
        self.inner.notifier.is_some() || self.inner.events.receiver_count() > 0
    }

    /// Runs the notifier (when configured) for an approval that now waits; never waits for it.
    pub fn approval_asked(&self, notice: ApprovalNotice) {
        if let Some(notifier) = &self.inner.notifier {
            notifier.run(notice);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn only_the_persons_kinds_go_out_with_their_channel() {
        let reach = Reach::default();
        assert!(!reach.reachable());
        let mut events = reach.subscribe();
        assert!(reach.reachable());
        reach.publish("c1", json!({"type": "tabs", "tabs": []}));
        reach.publish("c1", json!({"type": "approval", "id": "ap1"}));
        let event = events.recv().await.unwrap();
        assert_eq!(event.kind, "approval");
        assert_eq!(event.json["channel_id"], "c1");
        assert_eq!(event.json["id"], "ap1");
        assert!(events.try_recv().is_err(), "the tabs message went out too");
        drop(events);
        assert!(!reach.reachable());
        let notifying = Reach::new(Some(Notifier::new(vec!["true".into()]).unwrap()));
        assert!(notifying.reachable());
    }
}
