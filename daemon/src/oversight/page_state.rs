//! What the human-activity guard reports: a tab's URL and its form fields, read before the
//! person's first input and again at the agent's next read, and the difference in words.
//! Password fields are reported as changed, never with their values.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::browser::BrowserSession;

/// A tab's URL and field values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PageState {
    pub url: String,
    /// `(label, value)`; a password's value is a fingerprint, never the text.
    pub fields: Vec<(String, String)>,
    /// The tab did not answer when this was read (a busy page, a loaded machine): nothing
    /// is known of it, and a later report says what the tab holds now instead of a difference.
    #[serde(skip)]
    pub unread: bool,
}

impl PageState {
    /// The state of a tab that did not answer.
    pub fn unread() -> Self {
        Self {
            unread: true,
            ..Self::default()
        }
    }
}

const READ_STATE: &str = include_str!("js/page-state.js");

/// Reads the state of the tab behind the flat CDP `session_id` (None when it does not answer).
pub async fn read(browser: &BrowserSession, session_id: &str) -> Option<PageState> {
    let reply = browser
        .cdp()
        .call_with(
            "Runtime.evaluate",
            json!({"expression": READ_STATE, "returnByValue": true}),
            Some(session_id),
            Duration::from_secs(3),
        )
        .await
        .ok()?;
    serde_json::from_value(reply["result"]["value"].clone()).ok()
}

/// What changed from `before` to `after`, for the agent to read; None when nothing did.
pub fn describe_changes(before: &PageState, after: &PageState) -> Option<String> {
    if before.unread {
        let mut lines = vec![format!("the page is {}", after.url)];
        lines.extend(
            after
                .fields
                .iter()
                .map(|(label, value)| format!("field {label:?} holds {value:?}")),
        );
        return Some(format!(
            "Note: the person at the browser used this tab since your last action (what it \
             held before could not be read): {}.",
            lines.join("; ")
        ));
    }
    let mut lines = Vec::new();
    if before.url != after.url {
        lines.push(format!("the page is now {}", after.url));
    }
    for (i, (label, value)) in after.fields.iter().enumerate() {
        let old = before.fields.get(i).filter(|(l, _)| l == label);
        if old.map(|(_, v)| v) != Some(value) {
            lines.push(format!("field {label:?} is now {value:?}"));
        }
    }
    if lines.is_empty() {
        return None;
    }
    Some(format!(
        "Note: the person at the browser used this tab since your last action: {}.",
        lines.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_told_in_words_and_nothing_is_said_when_nothing_changed() {
        let before = PageState {
            url: "http://a/".into(),
            fields: vec![("Name".into(), "".into())],
            unread: false,
        };
        assert_eq!(describe_changes(&before, &before), None);
        let after = PageState {
            url: "http://a/next".into(),
            fields: vec![("Name".into(), "Ada".into())],
            unread: false,
        };
        let said = describe_changes(&before, &after).unwrap();
        assert!(said.contains("http://a/next"), "{said}");
        assert!(said.contains("\"Name\" is now \"Ada\""), "{said}");
        // Before unknown: the tab's state now, even when it looks unchanged.
        let said = describe_changes(&PageState::unread(), &before).unwrap();
        assert!(said.contains("used this tab"), "{said}");
        assert!(said.contains("could not be read"), "{said}");
        assert!(said.contains("\"Name\" holds \"\""), "{said}");
    }
}
