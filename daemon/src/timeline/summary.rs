//! The one-line summary of a tool call, made from its arguments before it runs. Only
//! arguments that name where or how (a URL without its user info, a ref, a selector, a tab,
//! a direction, a size) are shown; every other string — typed text, form values, file
//! contents, scripts, queries — is shown as its length, so a password an agent types or a
//! file it uploads never reaches the timeline.

use serde_json::Value;

/// Arguments whose values are shown as they are (strings cut short).
const SHOWN: &[&str] = &[
    "element_ref",
    "ref",
    "selector",
    "tab",
    "action",
    "coordinate",
    "start_coordinate",
    "scroll_direction",
    "scroll_amount",
    "width",
    "height",
    "format",
    "filter",
    "level",
    "url_pattern",
    "reason",
    "id",
    "accept",
    "clear",
    "modifiers",
    "depth",
    "limit",
    "offset",
];

/// The longest shown string value.
const VALUE_MAX: usize = 60;

/// `tool key=value …` for a call's arguments.
pub fn of_call(tool: &str, args: &Value) -> String {
    let mut parts = vec![tool.to_string()];
    if let Value::Object(map) = args {
        for (key, value) in map {
            if let Some(shown) = show(key, value) {
                parts.push(format!("{key}={shown}"));
            }
        }
    }
    super::event::one_line(&parts.join(" "))
}

fn show(key: &str, value: &Value) -> Option<String> {
    if key == "url" {
        return value.as_str().map(|u| format!("{:?}", safe_url(u)));
    }
    let shown = SHOWN.contains(&key);
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if shown => n.to_string(),
        Value::Number(_) => "<number>".to_string(),
        Value::String(s) if shown => format!("{:?}", cut(s)),
        Value::String(s) => format!("<{} characters>", s.chars().count()),
        Value::Array(items) if shown && items.iter().all(Value::is_number) => {
            format!("{value}")
        }
        Value::Array(items) => format!("<{} items>", items.len()),
        Value::Object(_) => "<object>".to_string(),
    })
}

fn cut(s: &str) -> String {
    if s.chars().count() <= VALUE_MAX {
        return s.to_string();
    }
    let mut out: String = s.chars().take(VALUE_MAX - 1).collect();
    out.push('…');
    out
}

/// A URL without user name and password (they are credentials).
pub fn safe_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn typed_text_and_values_are_lengths_only() {
        let line = of_call(
            "type",
            &json!({"element_ref": "e3", "text": "hunter2secret"}),
        );
        assert_eq!(line, r#"type element_ref="e3" text=<13 characters>"#);
        let line = of_call(
            "fill_form",
            &json!({"fields": [{"ref": "e1", "value": "pw"}]}),
        );
        assert!(!line.contains("pw"), "{line}");
        let line = of_call(
            "upload_file",
            &json!({"files": [{"name": "a.txt", "data": "c2VjcmV0"}]}),
        );
        assert!(!line.contains("c2VjcmV0"), "{line}");
        let line = of_call("evaluate", &json!({"expression": "document.cookie"}));
        assert!(!line.contains("cookie"), "{line}");
    }

    #[test]
    fn urls_lose_their_credentials() {
        let line = of_call("navigate", &json!({"url": "http://bob:pw@example.com/x"}));
        assert_eq!(line, r#"navigate url="http://example.com/x""#);
    }
}
