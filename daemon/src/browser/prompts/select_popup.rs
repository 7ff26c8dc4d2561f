//! `<select>` popups for the person (DESIGN.md §15 "Popups"). Chrome's screencast paints no popup
//! widget, so an open `<select>` is invisible in frames. The pane's world (see the floor's
//! `pane_world`) notices a select opening after the person's mousedown or keydown on it (it matches
//! `:open`, verified on Chromium 156 headless), and the daemon tells panes `select_popup` with the
//! options; a pane draws the list and answers `select_answer`. The answer closes Chrome's own popup
//! (an Escape while it is open, which changes nothing), then sets the choice and fires `input` and
//! `change` as a real choice does (only when the choice differs). Keys sent as input while the
//! popup is open still drive Chrome's popup; when it closes by any means panes get
//! `select_popup_closed`.
//!
//! Owns following the popups of a session's tabs and answering them (`Popups`, borrowed from the
//! session); which are open, by public id, is kept in `open_popups`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::open_popups::{OpenPopup, OpenPopups};
use super::pickers::MAX_VALUE;
use crate::browser::floor::{
    PaneMessage, PopupKind, PopupRect, SelectOption, SessionCore, SessionError,
};

/// Part of the pane world's script (`report` is in scope): watches selects open and close,
/// and offers `window.__portholeSelects` to the daemon for answers.
pub(in crate::browser) const SCRIPT: &str = include_str!("js/select-popup.js");

/// How many Escapes an answer sends at most to close Chrome's own popup.
const ESCAPE_TRIES: usize = 4;

/// What the world reports when a select or an input's popup opens (or a datalist's
/// suggestions change).
#[derive(Debug, Deserialize)]
struct Opened {
    id: String,
    #[serde(default)]
    picker: Option<String>,
    rect: PopupRect,
    options: Vec<SelectOption>,
    selected: Vec<u32>,
    multiple: bool,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    min: Option<String>,
    #[serde(default)]
    max: Option<String>,
    #[serde(default)]
    step: Option<String>,
}

/// How a pane answers a popup.
#[derive(Debug, Clone, PartialEq)]
pub enum SelectChoice {
    /// These option indices (one for a single select or a datalist's suggestion).
    Options(Vec<u32>),
    /// This value (a datalist's free text, a picker's date, time or colour).
    Value(String),
    /// Close it, changing nothing.
    Cancel,
}

/// A refused answer; the message is for a person.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SelectError {
    #[error("no select popup {0} is open (it was answered, closed, or never opened)")]
    NotOpen(String),
    #[error("select_answer {id}: {reason}")]
    BadChoice { id: String, reason: ChoiceMismatch },
    #[error("select_answer needs one of \"index\", \"indices\", \"value\" or \"cancel\": true")]
    NoChoice,
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// Why a choice does not fit its popup (the popup stays open and answerable).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChoiceMismatch {
    /// An option index for a popup that takes a value (date, time, colour).
    #[error("a {name} popup takes \"value\" ({shape}), not an index", name = kind.name(), shape = kind.shape())]
    IndexForValue { kind: PopupKind },
    /// A value for a `<select>`, which takes option indices.
    #[error("a select popup takes \"index\" or \"indices\", not a value")]
    ValueForSelect,
    /// A value over [`MAX_VALUE`] characters.
    #[error("the value is longer than {MAX_VALUE} characters")]
    TooLong,
    /// A value not written in the popup's shape (`shown`: its first 40 characters).
    #[error("{shown:?} is not a {name} value (write it as {shape})", name = kind.name(), shape = kind.shape())]
    WrongShape { shown: String, kind: PopupKind },
    /// The page refused the choice (e.g. an index past the last option); its words.
    #[error("{0}")]
    Page(String),
}

impl SelectError {
    pub fn code(&self) -> &'static str {
        match self {
            SelectError::NotOpen(_) => "no_select_popup",
            SelectError::BadChoice { .. } | SelectError::NoChoice => "bad_request",
            SelectError::Session(error) => error.code(),
        }
    }
}

impl SelectChoice {
    /// From `select_answer`'s fields.
    pub fn from_answer(
        index: Option<u32>,
        indices: Option<Vec<u32>>,
        value: Option<String>,
        cancel: bool,
    ) -> Result<Self, SelectError> {
        match (cancel, index, indices, value) {
            (true, None, None, None) => Ok(SelectChoice::Cancel),
            (false, Some(index), None, None) => Ok(SelectChoice::Options(vec![index])),
            (false, None, Some(indices), None) if !indices.is_empty() => {
                Ok(SelectChoice::Options(indices))
            }
            (false, None, None, Some(value)) => Ok(SelectChoice::Value(value)),
            _ => Err(SelectError::NoChoice),
        }
    }

    /// Refuses a choice of the wrong form for a popup of `kind` (an index for a date, a value
    /// for a `<select>`, a value written in the wrong shape).
    fn fits(&self, kind: PopupKind) -> Result<(), ChoiceMismatch> {
        match (self, kind) {
            (SelectChoice::Cancel, _) => Ok(()),
            (SelectChoice::Options(_), PopupKind::Select | PopupKind::Datalist) => Ok(()),
            (SelectChoice::Options(_), kind) => Err(ChoiceMismatch::IndexForValue { kind }),
            (SelectChoice::Value(_), PopupKind::Select) => Err(ChoiceMismatch::ValueForSelect),
            (SelectChoice::Value(value), _) if value.chars().count() > MAX_VALUE => {
                Err(ChoiceMismatch::TooLong)
            }
            (SelectChoice::Value(value), kind) if !kind.value_fits(value) => {
                Err(ChoiceMismatch::WrongShape {
                    shown: value.chars().take(40).collect(),
                    kind,
                })
            }
            (SelectChoice::Value(_), _) => Ok(()),
        }
    }
}

/// The popups of one session's tabs (borrowed from the session: `session.popups()`).
pub(crate) struct Popups<'s> {
    core: &'s SessionCore,
    popups: &'s OpenPopups,
}

impl<'s> Popups<'s> {
    pub(in crate::browser) fn new(core: &'s SessionCore, popups: &'s OpenPopups) -> Self {
        Self { core, popups }
    }

    /// Whether a popup is open in tab `target_id` (a capture of the tab could close it).
    pub(crate) fn open_in(&self, target_id: &str) -> bool {
        self.popups.open_in(target_id)
    }

    /// The world saw a select open: remember it and tell panes.
    pub(in crate::browser) fn opened(
        &self,
        target_id: &str,
        session: &str,
        context: i64,
        report: &Value,
    ) {
        let Ok(opened) = serde_json::from_value::<Opened>(report.clone()) else {
            tracing::debug!(event = "select_report_unreadable");
            return;
        };
        let kind = opened
            .picker
            .as_deref()
            .map_or(Some(PopupKind::Select), PopupKind::from_report);
        let Some(kind) = kind else { return };
        // A datalist's suggestions change as the person types: same popup, same id.
        let id = match self.popups.find_local(session, context, &opened.id) {
            Some(id) => id,
            None => {
                let id = self.popups.mint();
                self.popups.insert(
                    id.clone(),
                    OpenPopup {
                        target_id: target_id.to_string(),
                        session: session.to_string(),
                        context,
                        local_id: opened.id,
                        kind,
                    },
                );
                id
            }
        };
        tracing::debug!(event = "select_popup_opened", %id, target_id, kind = kind.name(), options = opened.options.len());
        let text = |v: Option<String>| v.map(|v| v.chars().take(MAX_VALUE).collect::<String>());
        self.core.notify(PaneMessage::SelectPopup {
            id,
            target_id: target_id.to_string(),
            rect: opened.rect,
            options: opened.options,
            selected: opened.selected,
            multiple: opened.multiple,
            kind,
            value: text(opened.value.filter(|_| kind != PopupKind::Select)),
            min: text(opened.min).map(Box::new),
            max: text(opened.max).map(Box::new),
            step: text(opened.step).map(Box::new),
        });
    }

    /// The world saw a select's popup close (a key, a click elsewhere, the page).
    pub(in crate::browser) fn closed(&self, session: &str, context: i64, report: &Value) {
        let Some(local_id) = report["id"].as_str() else {
            return;
        };
        if let Some((id, target_id)) = self.popups.take_local(session, context, local_id) {
            self.core
                .notify(PaneMessage::SelectPopupClosed { id, target_id });
        }
    }

    /// A pane's `select_answer`: closes Chrome's popup and makes the choice as a person would.
    pub(crate) async fn answer(&self, id: &str, choice: SelectChoice) -> Result<(), SelectError> {
        let Some(popup) = self.popups.take(id) else {
            return Err(SelectError::NotOpen(id.to_string()));
        };
        if let Err(reason) = choice.fits(popup.kind) {
            self.popups.insert(id.to_string(), popup);
            return Err(SelectError::BadChoice {
                id: id.to_string(),
                reason,
            });
        }
        let answer = match &choice {
            SelectChoice::Options(indices) => json!({ "indices": indices }),
            SelectChoice::Value(value) => json!({ "value": value }),
            SelectChoice::Cancel => Value::Null,
        };
        let local = json!(popup.local_id);
        let taken = match self
            .in_world(
                &popup,
                &format!("__portholeSelects.take({local}, {answer})"),
            )
            .await
        {
            Ok(taken) => taken,
            Err(error) => return Err(SelectError::Session(error)),
        };
        if let Some(reason) = taken["error"].as_str() {
            if reason == "gone" {
                return Err(SelectError::NotOpen(id.to_string()));
            }
            // A bad index: the popup stays open and answerable.
            self.popups.insert(id.to_string(), popup);
            return Err(SelectError::BadChoice {
                id: id.to_string(),
                reason: ChoiceMismatch::Page(reason.to_string()),
            });
        }
        // Escape closes Chrome's popup and changes nothing; the page never sees the key. A
        // picker that is still opening (Chrome opens one on the click's release) can miss the
        // first, so it is sent until the popup is closed, a few times at most.
        let mut open = taken["open"] == true;
        for _ in 0..ESCAPE_TRIES {
            if !open {
                break;
            }
            for kind in ["rawKeyDown", "keyUp"] {
                self.core
                    .cdp()
                    .call_on(
                        &popup.session,
                        "Input.dispatchKeyEvent",
                        json!({"type": kind, "key": "Escape", "code": "Escape",
                               "windowsVirtualKeyCode": 27, "nativeVirtualKeyCode": 27}),
                    )
                    .await
                    .map_err(SessionError::from)?;
            }
            open = self
                .in_world(&popup, &format!("__portholeSelects.stillOpen({local})"))
                .await?
                == true;
            if open {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
        self.in_world(&popup, &format!("__portholeSelects.choose({local})"))
            .await?;
        self.core.notify(PaneMessage::SelectPopupClosed {
            id: id.to_string(),
            target_id: popup.target_id,
        });
        Ok(())
    }

    /// Evaluates `expression` in the pane's world where the popup's select lives.
    async fn in_world(&self, popup: &OpenPopup, expression: &str) -> Result<Value, SessionError> {
        self.core
            .evaluate_in(&popup.session, &Value::from(popup.context), expression)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_need_exactly_one_kind_of_choice() {
        assert_eq!(
            SelectChoice::from_answer(Some(5), None, None, false).unwrap(),
            SelectChoice::Options(vec![5])
        );
        assert_eq!(
            SelectChoice::from_answer(None, None, None, true).unwrap(),
            SelectChoice::Cancel
        );
        assert_eq!(
            SelectChoice::from_answer(None, None, Some("x".into()), false).unwrap(),
            SelectChoice::Value("x".into())
        );
        assert!(SelectChoice::from_answer(None, None, None, false).is_err());
        assert!(SelectChoice::from_answer(Some(1), None, None, true).is_err());
        assert!(SelectChoice::from_answer(None, Some(vec![]), None, false).is_err());
        assert!(SelectChoice::from_answer(Some(1), Some(vec![1]), None, false).is_err());
        assert!(SelectChoice::from_answer(Some(1), None, Some("x".into()), false).is_err());
    }

    #[test]
    fn choices_must_fit_the_popups_kind() {
        let value = |v: &str| SelectChoice::Value(v.into());
        assert!(SelectChoice::Options(vec![1])
            .fits(PopupKind::Select)
            .is_ok());
        assert!(SelectChoice::Options(vec![1])
            .fits(PopupKind::Datalist)
            .is_ok());
        assert!(SelectChoice::Options(vec![1])
            .fits(PopupKind::Date)
            .is_err());
        assert!(value("1").fits(PopupKind::Select).is_err());
        assert!(value("2026-12-01").fits(PopupKind::Date).is_ok());
        let refused = value("tomorrow").fits(PopupKind::Date).unwrap_err();
        assert!(refused.to_string().contains("YYYY-MM-DD"), "{refused}");
        assert!(value("#00ff00").fits(PopupKind::Color).is_ok());
        assert!(SelectChoice::Cancel.fits(PopupKind::Color).is_ok());
        assert!(value("any text").fits(PopupKind::Datalist).is_ok());
        let long = value(&"x".repeat(MAX_VALUE + 1)).fits(PopupKind::Datalist);
        assert_eq!(
            long.unwrap_err().to_string(),
            format!("the value is longer than {MAX_VALUE} characters")
        );
        assert_eq!(
            SelectChoice::Options(vec![1])
                .fits(PopupKind::Date)
                .unwrap_err()
                .to_string(),
            format!(
                "a date popup takes \"value\" ({}), not an index",
                PopupKind::Date.shape()
            )
        );
    }
}
