//! What the human-activity guard reports: a tab's URL and its form fields, read before the
//! person's first input and again at the agent's next read, and the difference in words.
//! Password fields are reported as changed, never with their values.
//!
//! The page is read in the tools' isolated world (DESIGN.md §16), never the page's own: a page
//! that replaces `querySelectorAll`, `getAttribute` or a value getter cannot make the note say
//! the person changed a field that is not there. Labels and values are plain data, cut to
//! [`MAX_LABEL`] and [`MAX_VALUE`] characters, and at most [`MAX_FIELDS`] fields are read.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::browser::BrowserSession;

/// Most fields read from one page.
pub const MAX_FIELDS: usize = 50;
/// Longest field label kept (characters).
pub const MAX_LABEL: usize = 80;
/// Longest field value kept (characters).
pub const MAX_VALUE: usize = 200;
/// Longest URL kept (characters).
pub const MAX_URL: usize = 2048;
/// How long the tab has to answer (its tools' world made first when it has none).
const DEADLINE: Duration = Duration::from_secs(3);

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
    /// Itself within the bounds, whatever the page answered.
    fn bounded(mut self) -> Self {
        self.url = cut(&self.url, MAX_URL);
        self.fields.truncate(MAX_FIELDS);
        for (label, value) in &mut self.fields {
            *label = cut(label, MAX_LABEL);
            *value = cut(value, MAX_VALUE);
        }
        self
    }

    /// The state of a tab that did not answer.
    pub fn unread() -> Self {
        Self {
            unread: true,
            ..Self::default()
        }
    }
}

/// The read: `(maxFields, maxLabel, maxValue)`.
const READ_STATE: &str = include_str!("js/page-state.js");

/// Reads the state of the tab behind the flat CDP `session_id` in the tools' isolated world
/// (None when it does not answer).
pub async fn read(browser: &BrowserSession, session_id: &str) -> Option<PageState> {
    let expression = format!(
        "({READ_STATE})({}, {}, {})",
        json!(MAX_FIELDS),
        json!(MAX_LABEL),
        json!(MAX_VALUE)
    );
    let read = crate::tools::in_tools_world(browser, session_id, &expression, DEADLINE);
    let value = tokio::time::timeout(DEADLINE, read).await.ok()?.ok()?;
    let state: PageState = serde_json::from_value(value).ok()?;
    Some(state.bounded())
}

/// `text`'s first `max` characters.
fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
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

    #[test]
    fn what_a_page_answers_is_cut_to_the_bounds() {
        let state = PageState {
            url: "u".repeat(MAX_URL + 1),
            fields: vec![("l".repeat(MAX_LABEL + 1), "v".repeat(MAX_VALUE + 1)); MAX_FIELDS + 1],
            unread: false,
        }
        .bounded();
        assert_eq!(state.url.len(), MAX_URL);
        assert_eq!(state.fields.len(), MAX_FIELDS);
        assert_eq!(state.fields[0].0.chars().count(), MAX_LABEL);
        assert_eq!(state.fields[0].1.chars().count(), MAX_VALUE);
    }
}
