//! Bounds on each field of a timeline event (docs/security.md, "The timeline"), applied by
//! the store to every event it writes and to every event it reads back (events written
//! before these bounds): whatever an agent or a page sends, an event stays a few kilobytes
//! and holds no URL's query values or fragment. Tool names are recorded only when they are
//! tools ([`tool_name`]); URLs are [`safe_url`]s; summaries one line of
//! [`super::event::one_line`]'s length with their URLs made safe; ids, names and actions cut.

use porthole_mcp::ToolName;

use super::event::{one_line, Draft, EventActor, TimelineEvent};
use super::urls::{cut, safe_url, safe_urls_in};

/// The most characters kept of a tab id, an agent's id or name, a tool name or an action.
pub const NAME_MAX: usize = 128;

/// `tool` when it is one of the tools or a CDP door act (`cdp:<Domain.method>`, DESIGN.md
/// §21), otherwise `unknown tool (N characters)`.
pub fn tool_name(tool: &str) -> String {
    if let Some(method) = tool.strip_prefix("cdp:") {
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '.';
        if (3..=80).contains(&method.len()) && method.chars().all(plain) {
            return tool.to_string();
        }
    }
    match tool.parse::<ToolName>() {
        Ok(known) => known.as_str().to_string(),
        Err(_) => format!("unknown tool ({} characters)", tool.chars().count()),
    }
}

/// The fields of an event that bounds apply to.
struct Fields<'a> {
    actor: &'a mut EventActor,
    target_id: &'a mut Option<String>,
    url: &'a mut Option<String>,
    tool: &'a mut Option<String>,
    summary: &'a mut Option<String>,
    action: &'a mut Option<String>,
}

impl Fields<'_> {
    fn bound(self) {
        if let EventActor::Agent { agent_id, name } = self.actor {
            *agent_id = cut(agent_id, NAME_MAX);
            *name = cut(name, NAME_MAX);
        }
        for name in [self.target_id, self.action].into_iter().flatten() {
            *name = cut(name, NAME_MAX);
        }
        if let Some(tool) = self.tool {
            let recorded_unknown = tool.starts_with("unknown tool (") && tool.len() <= NAME_MAX;
            if !recorded_unknown {
                *tool = tool_name(tool);
            }
        }
        if let Some(url) = self.url {
            *url = safe_url(url);
        }
        if let Some(summary) = self.summary {
            *summary = one_line(&safe_urls_in(summary));
        }
    }
}

/// `draft` within the bounds, as it is stored.
pub fn bounded(mut draft: Draft) -> Draft {
    Fields {
        actor: &mut draft.actor,
        target_id: &mut draft.target_id,
        url: &mut draft.url,
        tool: &mut draft.tool,
        summary: &mut draft.summary,
        action: &mut draft.action,
    }
    .bound();
    draft
}

/// A stored `event` within the bounds, as it is listed and exported.
pub fn bounded_event(mut event: TimelineEvent) -> TimelineEvent {
    Fields {
        actor: &mut event.actor,
        target_id: &mut event.target_id,
        url: &mut event.url,
        tool: &mut event.tool,
        summary: &mut event.summary,
        action: &mut event.action,
    }
    .bound();
    event
}

#[cfg(test)]
mod tests {
    use super::super::event::EventKind;
    use super::*;

    #[test]
    fn only_known_tools_are_named() {
        assert_eq!(tool_name("read_page"), "read_page");
        assert_eq!(
            tool_name(&"x".repeat(1 << 20)),
            "unknown tool (1048576 characters)"
        );
    }

    #[test]
    fn every_field_is_cut_and_urls_lose_their_secrets() {
        let huge = "y".repeat(1 << 20);
        let mut draft = Draft::new(
            EventKind::Tool,
            EventActor::Agent {
                agent_id: huge.clone(),
                name: huge.clone(),
            },
        )
        .tab(
            Some(huge.clone()),
            Some(format!(
                "https://x.example/{huge}?code=SECRET#access_token=SECRET2"
            )),
        )
        .action(&huge);
        draft.tool = Some(huge.clone());
        draft.summary = Some(format!("loaded https://x.example/?code=SECRET {huge}"));
        let event = bounded(draft).finish(1, 0, None);
        let body = serde_json::to_string(&event).unwrap();
        assert!(body.len() < 4 * 1024, "{} bytes", body.len());
        assert!(!body.contains("SECRET"), "{body}");
        assert_eq!(
            event.tool.as_deref(),
            Some("unknown tool (1048576 characters)")
        );
        assert!(event
            .summary
            .as_deref()
            .unwrap()
            .starts_with("loaded https://x.example/?code= y"));
        // Read back, an event written before the bounds gets them too; a bounded one is the same.
        let old = TimelineEvent {
            url: Some("https://x.example/cb?code=SECRET".into()),
            ..event.clone()
        };
        assert_eq!(
            bounded_event(old).url.as_deref(),
            Some("https://x.example/cb?code=")
        );
        let again = bounded_event(event.clone());
        assert_eq!(again.summary, event.summary);
        assert_eq!(again.tool, event.tool);
    }
}
