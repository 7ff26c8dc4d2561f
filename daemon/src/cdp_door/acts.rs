//! Which of a client's commands are acts the timeline records (DESIGN.md §17, §21), and the
//! summary of each: navigation, a click, a key press or typed text (its length only, never the
//! text), the client's own script (`Runtime.evaluate`, its expression cut to 200 characters),
//! a tab opened or closed, files set on an input and cookies written (counts only, never a
//! value). Reads, mouse moves and the client library's own plumbing
//! (`Runtime.callFunctionOn`, which Playwright and Puppeteer send for every locator) are not
//! recorded one by one.

use serde_json::Value;

/// The most characters of a script kept in its summary.
const EXPRESSION_MAX: usize = 200;

/// The summary of one printable key pressed (its key is a typed value, never kept).
pub(super) const TYPED_KEY: &str = "type a key";

/// Whether an act's `summary` is one printable key pressed: a script typing a word presses
/// many, which the timeline records as one event (`activity.rs`).
pub(super) fn is_typed_key(summary: &str) -> bool {
    summary == TYPED_KEY
}

/// The summary of `method` with `params` when it is an act the timeline records.
pub(super) fn act_of(method: &str, params: &Value) -> Option<String> {
    let text = |key: &str| params[key].as_str().unwrap_or_default();
    Some(match method {
        "Page.navigate" => format!("navigate to {}", text("url")),
        "Page.reload" => "reload".to_string(),
        "Page.navigateToHistoryEntry" => "go to a history entry".to_string(),
        "Page.close" | "Target.closeTarget" => "close the tab".to_string(),
        "Target.createTarget" => format!("open a tab on {}", text("url")),
        "Input.dispatchMouseEvent" if text("type") == "mousePressed" => format!(
            "{} click at {},{}",
            text("button"),
            params["x"].as_f64().unwrap_or_default().round(),
            params["y"].as_f64().unwrap_or_default().round()
        ),
        "Input.dispatchKeyEvent" if matches!(text("type"), "keyDown" | "rawKeyDown") => {
            // A named key (Enter, Tab) is no secret; a printable one is a typed value.
            match text("key") {
                key if key.chars().count() > 1 => format!("press {key}"),
                _ => TYPED_KEY.to_string(),
            }
        }
        "Input.insertText" => format!("type text ({} characters)", text("text").chars().count()),
        "DOM.setFileInputFiles" => {
            let count = params["files"].as_array().map_or(0, Vec::len);
            format!("set {count} uploaded file(s) on a file input")
        }
        "Network.setCookie" => "set a cookie".to_string(),
        "Network.setCookies" | "Storage.setCookies" => {
            let count = params["cookies"].as_array().map_or(0, Vec::len);
            format!("set {count} cookie(s)")
        }
        "Network.deleteCookies" => "delete cookies".to_string(),
        "Runtime.evaluate" => {
            let expression: String = text("expression").chars().take(EXPRESSION_MAX).collect();
            format!("evaluate {expression}")
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::act_of;
    use serde_json::json;

    #[test]
    fn acts_are_summarised_without_a_typed_value() {
        let typed = act_of("Input.insertText", &json!({"text": "hunter2"})).unwrap();
        assert!(!typed.contains("hunter2"), "{typed}");
        let key = act_of(
            "Input.dispatchKeyEvent",
            &json!({"type": "keyDown", "key": "x"}),
        );
        assert_eq!(key.as_deref(), Some("type a key"));
        let long = "a".repeat(500);
        let script = act_of("Runtime.evaluate", &json!({ "expression": long })).unwrap();
        assert!(script.len() < 220, "{script}");
        assert!(act_of("Input.dispatchMouseEvent", &json!({"type": "mouseMoved"})).is_none());
        assert!(act_of("Runtime.callFunctionOn", &json!({})).is_none());
        let cookie = act_of(
            "Storage.setCookies",
            &json!({"cookies": [{"name": "n", "value": "cookie-value"}]}),
        )
        .unwrap();
        assert!(!cookie.contains("cookie-value"), "{cookie}");
    }
}
