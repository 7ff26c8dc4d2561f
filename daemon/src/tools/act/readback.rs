//! Read-back after `computer type` and `form_input`: the field's value as the page left it,
//! compared with what was typed or set, so a page that rewrites, filters or refuses input is
//! reported instead of assumed to have taken it.

use serde_json::Value;

use crate::tools::tab::driver::{helper_call, helper_on, Tab};

/// How the field's value must relate to the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Typing inserts at the caret: the value must contain the text.
    Contains,
    /// A fill replaces the value: it must equal the text.
    Equals,
}

/// A note when the field (the ref's element in `session`, or the focused one when `r` is
/// `None`) does not hold `text`; `None` when it does, or when it is not a text field.
pub async fn mismatch(
    tab: &Tab,
    session: &str,
    r: Option<&str>,
    text: &str,
    expect: Expect,
) -> Option<String> {
    let arg = r.map_or(Value::Null, Value::from);
    let answer = helper_on(&tab.browser, session, "readBack", &[arg])
        .await
        .ok()?;
    judge(&answer, text, expect)
}

/// The expression that reads the field back (the ref's element, or the focused one when `r`
/// is `None`) in the tools' world: for [`waits::settle`](crate::tools::act::waits::settle),
/// which runs it right after the page settled, in the same round trip.
pub fn expression(r: Option<&str>) -> String {
    helper_call("readBack", &[r.map_or(Value::Null, Value::from)])
}

/// [`mismatch`] on an `answer` already read (by [`expression`]).
pub fn judge(answer: &Value, text: &str, expect: Expect) -> Option<String> {
    if answer["kind"] != "field" {
        return None;
    }
    let value = answer["value"].as_str().unwrap_or_default();
    let held = match expect {
        Expect::Contains => value.contains(text),
        Expect::Equals => value == text || value.trim() == text.trim(),
    };
    if held {
        return None;
    }
    let what = answer["what"].as_str().unwrap_or("the field");
    Some(if answer["secret"] == true {
        format!("Read back: {what} does not hold what was typed (the page changed or refused it).")
    } else {
        format!(
            "Read back: {what} holds {} — not {text:?} (the page changed or refused the input).",
            clip(value)
        )
    })
}

fn clip(value: &str) -> String {
    const MAX: usize = 200;
    if value.chars().count() <= MAX {
        format!("{value:?}")
    } else {
        let cut: String = value.chars().take(MAX).collect();
        format!("{cut:?}…")
    }
}
