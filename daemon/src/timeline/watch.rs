//! Turns a session's notices to panes into timeline events: tabs opened and closed,
//! navigations, dialogs, authentication prompts, file choosers, downloads, handoffs, control
//! (takeover, release, stop_agents) and the browser going away. Subscribes to what the
//! session already tells panes, so no other module calls the timeline for these. Approvals
//! come on a record of their own that never drops a step (the panes' notices may lag):
//! asked, how each ended and by whom, and each act a remembered "always" let through
//! (`by remembered`).

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc::UnboundedReceiver;

use super::event::{Draft, EventActor, EventKind};
use super::summary::safe_url;
use super::Timeline;
use crate::approvals::{ApprovalRecord, Ask};
use crate::browser::{BrowserSession, DownloadPhase, Holder, PaneMessage};

/// Follows `session` until it ends.
/// `approvals`: the session's approval records (`session.approvals().records()`, taken when
/// the session opened, so none is missed).
pub async fn follow(
    timeline: Arc<Timeline>,
    session: Arc<BrowserSession>,
    mut approvals: UnboundedReceiver<ApprovalRecord>,
) {
    let mut notices = session.subscribe();
    let mut state = Seen {
        urls: session
            .tab_infos()
            .0
            .into_iter()
            .map(|t| (t.target_id, t.url))
            .collect(),
        handoffs: 0,
        after_handoff: false,
    };
    loop {
        tokio::select! {
            notice = notices.recv() => match notice {
                Ok(message) => {
                    if let Some(draft) = state.event_of(&message) {
                        timeline.record(&session, draft);
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(event = "timeline_notices_lagged", channel_id = %session.channel(), missed);
                }
                Err(RecvError::Closed) => break,
            },
            Some(record) = approvals.recv() => timeline.record(&session, approval_event(&record)),
            _ = session.ended() => break,
        }
    }
    // The steps recorded as the session ended (its approvals closed as gone).
    while let Ok(record) = approvals.try_recv() {
        timeline.record(&session, approval_event(&record));
    }
    if session.end_reason().as_deref() == Some("browser_gone") {
        timeline.record(
            &session,
            Draft::new(EventKind::BrowserGone, EventActor::Page)
                .summary("the browser crashed or was killed"),
        );
    }
}

/// What the follower remembers between notices.
struct Seen {
    /// The last URL of each tab (a `page_info` with another one is a navigation).
    urls: HashMap<String, String>,
    /// Handoffs open now: the control changes they make are theirs, not a takeover.
    handoffs: usize,
    /// The next release is the end of a handoff.
    after_handoff: bool,
}

/// The timeline's event for one step of an approval.
fn approval_event(record: &ApprovalRecord) -> Draft {
    let asker = |ask: &Ask| EventActor::Agent {
        agent_id: ask.agent_id.clone(),
        name: ask.name.clone(),
    };
    match record {
        ApprovalRecord::Asked { ask, .. } => Draft::new(EventKind::Approval, asker(ask))
            .tab(Some(ask.target_id.clone()), Some(safe_url(&ask.url)))
            .action("asked")
            .summary(format!(
                "asked the person to allow {} ({})",
                ask.kind.describe(),
                safe_url(&ask.url)
            )),
        ApprovalRecord::Closed {
            ask, outcome, by, ..
        } => {
            let actor = if *by == "person" {
                EventActor::Human
            } else {
                asker(ask)
            };
            let outcome = outcome.as_str();
            Draft::new(EventKind::Approval, actor)
                .tab(Some(ask.target_id.clone()), Some(safe_url(&ask.url)))
                .action(outcome)
                .summary(format!("{} {outcome} (by {by})", ask.kind.as_str()))
        }
        ApprovalRecord::Remembered { ask, origin } => Draft::new(EventKind::Approval, asker(ask))
            .tab(Some(ask.target_id.clone()), Some(safe_url(&ask.url)))
            .action("remembered")
            .summary(format!(
                "{} allowed (by remembered): the person said always for {origin}",
                ask.kind.as_str()
            )),
    }
}

impl Seen {
    fn event_of(&mut self, message: &PaneMessage) -> Option<Draft> {
        let page = || EventActor::Page;
        Some(match message {
            PaneMessage::TabCreated {
                target_id,
                url,
                opener_id,
                ..
            } => {
                self.urls.insert(target_id.clone(), url.clone());
                let why = match opener_id {
                    Some(opener) => format!("opened by tab {opener}"),
                    None => "tab opened".to_string(),
                };
                Draft::new(EventKind::TabOpened, page())
                    .tab(Some(target_id.clone()), Some(safe_url(url)))
                    .summary(why)
            }
            PaneMessage::TabClosed { target_id } => {
                let url = self.urls.remove(target_id);
                Draft::new(EventKind::TabClosed, page())
                    .tab(Some(target_id.clone()), url.as_deref().map(safe_url))
                    .summary("tab closed")
            }
            PaneMessage::PageInfo {
                target_id: Some(target_id),
                url,
                ..
            } => {
                let before = self.urls.insert(target_id.clone(), url.clone());
                if before.as_deref() == Some(url.as_str()) || url.is_empty() {
                    return None;
                }
                Draft::new(EventKind::Navigation, page())
                    .tab(Some(target_id.clone()), Some(safe_url(url)))
                    .summary(format!("loaded {}", safe_url(url)))
            }
            PaneMessage::Dialog {
                target_id, kind, ..
            } => Draft::new(EventKind::Dialog, page())
                .tab(Some(target_id.clone()), self.url_of(target_id))
                .summary(format!("the page opened a {} dialog", kind.as_str())),
            PaneMessage::AuthPrompt {
                target_id,
                url,
                origin,
                scheme,
                ..
            } => Draft::new(EventKind::AuthPrompt, page())
                .tab(Some(target_id.clone()), Some(safe_url(url)))
                .summary(format!("{origin} asks to sign in ({scheme})")),
            PaneMessage::FileChooser {
                target_id,
                multiple,
                ..
            } => Draft::new(EventKind::FileChooser, page())
                .tab(Some(target_id.clone()), self.url_of(target_id))
                .summary(if *multiple {
                    "the page asks for files"
                } else {
                    "the page asks for a file"
                }),
            PaneMessage::Download {
                target_id,
                name,
                state,
                received_bytes,
                ..
            } => {
                let what = match state {
                    DownloadPhase::Progress => return None,
                    DownloadPhase::Started => "started".to_string(),
                    DownloadPhase::Completed => format!("completed ({received_bytes} bytes)"),
                    DownloadPhase::Canceled => "cancelled".to_string(),
                    DownloadPhase::Failed => "failed".to_string(),
                };
                Draft::new(EventKind::Download, page())
                    .tab(Some(target_id.clone()), self.url_of(target_id))
                    .summary(format!("download of {name} {what}"))
            }
            PaneMessage::Handoff {
                agent_id,
                name,
                reason,
                target_id,
                ..
            } => {
                self.handoffs += 1;
                Draft::new(
                    EventKind::Handoff,
                    EventActor::Agent {
                        agent_id: agent_id.clone(),
                        name: name.clone(),
                    },
                )
                .tab(
                    target_id.clone(),
                    target_id.as_deref().and_then(|t| self.url_of(t)),
                )
                .action("request")
                .summary(format!("asked the person for help: {reason}"))
            }
            PaneMessage::HandoffEnded { outcome, .. } => {
                self.handoffs = self.handoffs.saturating_sub(1);
                self.after_handoff = true;
                let actor = if outcome == "done" {
                    EventActor::Human
                } else {
                    page()
                };
                Draft::new(EventKind::Handoff, actor)
                    .action(outcome)
                    .summary(format!("handoff ended: {outcome}"))
            }
            // Recorded from the approvals' own record (see `approval_event`).
            PaneMessage::Approval { .. } | PaneMessage::ApprovalClosed { .. } => return None,
            PaneMessage::Control { holder, until } => {
                let action = match (holder, until) {
                    (Holder::Human, _) if self.handoffs > 0 => return None,
                    (Holder::Agents, _) if std::mem::take(&mut self.after_handoff) => return None,
                    (Holder::Human, Some(_)) => "stop_agents",
                    (Holder::Human, None) => "takeover",
                    (Holder::Agents, _) => "release",
                };
                let summary = match action {
                    "stop_agents" => "the person stopped the agents",
                    "takeover" => "the person took control",
                    _ => "control went back to the agents",
                };
                Draft::new(EventKind::Control, EventActor::Human)
                    .action(action)
                    .summary(summary)
            }
            _ => return None,
        })
    }

    fn url_of(&self, target_id: &str) -> Option<String> {
        self.urls.get(target_id).map(|u| safe_url(u))
    }
}
