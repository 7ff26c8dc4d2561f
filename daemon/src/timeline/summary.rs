//! The one-line summary of a tool call, made from its arguments before it runs. Only
//! arguments that name where or how (a URL as [`safe_url`] keeps it, a ref, a selector, a tab,
//! a direction, a size) are shown; every other string — typed text, form values, file
//! contents, scripts, queries — is shown as its length, so a password an agent types or a
//! file it uploads never reaches the timeline.

use serde_json::Value;

pub use super::urls::safe_url;

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
    let mut parts = vec![super::fields::tool_name(tool)];
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
    super::urls::cut(s, VALUE_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn typed_text_and_values_are_lengths_only() {
        let line = of_call(
            "computer",
            &json!({"element_ref": "e3", "text": "hunter2secret"}),
        );
        assert_eq!(line, r#"computer element_ref="e3" text=<13 characters>"#);
        let line = of_call(
            "form_input",
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
    fn urls_lose_their_credentials_query_values_and_fragment() {
        let line = of_call(
            "navigate",
            &json!({"url": "http://bob:pw@example.com/x?code=SECRET#access_token=T"}),
        );
        assert_eq!(line, r#"navigate url="http://example.com/x?code=""#);
    }

    #[test]
    fn an_unknown_tool_is_its_length() {
        let line = of_call(&"t".repeat(1 << 20), &json!({}));
        assert_eq!(line, "unknown tool (1048576 characters)");
    }
}
