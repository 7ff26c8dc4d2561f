//! One timeline event as stored, listed and sent to panes (DESIGN.md §17; plain data below
//! `browser`, whose pane messages carry it, and re-exported as `timeline::event`): `seq`, `at`,
//! `kind`, `actor`, the tab and URL where there is one, the kept frame, and the fields of its
//! kind. Nothing here ever holds typed text, a paste, a file's bytes, a cookie or a password:
//! the recorder only ever puts counts and names in.

use serde::{Deserialize, Serialize};

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    Tool,
    Human,
    Navigation,
    TabOpened,
    TabClosed,
    Dialog,
    AuthPrompt,
    FileChooser,
    Download,
    Handoff,
    /// An agent's act waiting for the person's approval (DESIGN.md §20): asked (the kind and
    /// detail), then allowed, declined, timed out or unwatched, and by whom.
    Approval,
    Control,
    Mode,
    BrowserGone,
    /// A vault fill (agent or person): the item's title, the origin, the fields, ok or why
    /// not — never a value.
    Vault,
    /// A watched tab changed on its own (at most one a second, from the pane's screencast):
    /// actor `page`, with the tab, its URL and the frame.
    Frame,
}

/// Who did it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventActor {
    /// An agent (or the owner token, as agent `owner`) through an MCP tool.
    Agent { agent_id: String, name: String },
    /// The person at a pane.
    Human,
    /// The page or the browser on its own.
    Page,
}

impl EventActor {
    /// The key the `actor` filter matches: `human`, `page` or the agent id.
    pub fn key(&self) -> &str {
        match self {
            EventActor::Agent { agent_id, .. } => agent_id,
            EventActor::Human => "human",
            EventActor::Page => "page",
        }
    }
}

/// One event of a channel's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TimelineEvent {
    /// Increases by one per event of the channel.
    pub seq: u64,
    /// RFC 3339, UTC, milliseconds.
    pub at: String,
    pub kind: EventKind,
    pub actor: EventActor,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The JPEG kept with the event (`GET …/timeline/frames/{frame_id}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<String>,
    /// `tool`: the tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// `tool`: whether it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// `tool`: how long it took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// One line saying what happened (never typed text, only its length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// `human`: `click`, `scroll`, `keys`, `paste`, `copy`; `control`: `takeover`,
    /// `release`, `stop_agents`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

/// An event before it has a number, a time and a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub kind: EventKind,
    pub actor: EventActor,
    pub target_id: Option<String>,
    pub url: Option<String>,
    pub tool: Option<String>,
    pub ok: Option<bool>,
    pub ms: Option<u64>,
    pub summary: Option<String>,
    pub action: Option<String>,
}

impl Draft {
    pub fn new(kind: EventKind, actor: EventActor) -> Self {
        Self {
            kind,
            actor,
            target_id: None,
            url: None,
            tool: None,
            ok: None,
            ms: None,
            summary: None,
            action: None,
        }
    }

    pub fn tab(mut self, target_id: Option<String>, url: Option<String>) -> Self {
        self.target_id = target_id;
        self.url = url.filter(|u| !u.is_empty());
        self
    }

    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(one_line(&summary.into()));
        self
    }

    pub fn action(mut self, action: &str) -> Self {
        self.action = Some(action.to_string());
        self
    }

    /// The stored event.
    pub fn finish(self, seq: u64, at_ms: u64, frame_id: Option<String>) -> TimelineEvent {
        TimelineEvent {
            seq,
            at: rfc3339_ms(at_ms),
            kind: self.kind,
            actor: self.actor,
            target_id: self.target_id,
            url: self.url,
            frame_id,
            tool: self.tool,
            ok: self.ok,
            ms: self.ms,
            summary: self.summary,
            action: self.action,
        }
    }
}

/// The longest summary kept.
const SUMMARY_MAX: usize = 200;

/// `text` on one line, at most [`SUMMARY_MAX`] characters.
pub fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    if flat.chars().count() <= SUMMARY_MAX {
        return flat.to_string();
    }
    let mut cut: String = flat.chars().take(SUMMARY_MAX - 1).collect();
    cut.push('…');
    cut
}

/// Unix ms now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}

/// `2026-11-30T05:32:50.123Z`.
pub fn rfc3339_ms(at_ms: u64) -> String {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_millis(at_ms);
    let secs = crate::providers::docker::image::rfc3339_utc(time);
    format!("{}.{:03}Z", secs.trim_end_matches('Z'), at_ms % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_have_milliseconds() {
        assert_eq!(rfc3339_ms(1_764_480_770_123), "2025-11-30T05:32:50.123Z");
        assert_eq!(rfc3339_ms(5), "1970-01-01T00:00:00.005Z");
    }

    #[test]
    fn summaries_are_one_short_line() {
        assert_eq!(one_line("a\nb\tc "), "a b c");
        assert_eq!(one_line(&"x".repeat(500)).chars().count(), SUMMARY_MAX);
    }

    #[test]
    fn events_serialize_as_the_contract_says() {
        let event = Draft::new(
            EventKind::Tool,
            EventActor::Agent {
                agent_id: "a1".into(),
                name: "scout".into(),
            },
        )
        .tab(Some("T".into()), Some("http://x/".into()))
        .finish(7, 0, Some("f".into()));
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["actor"]["kind"], "agent");
        assert_eq!(json["actor"]["agent_id"], "a1");
        assert_eq!(json["kind"], "tool");
        assert_eq!(json["seq"], 7);
        assert!(json.get("action").is_none());
    }
}
