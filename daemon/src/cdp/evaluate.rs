//! Reading `Runtime.evaluate` replies: the one place that knows where Chrome puts a thrown
//! exception's text.

use serde_json::Value;

/// The text of the exception a `Runtime.evaluate` reply reports, if the expression threw.
pub fn thrown(reply: &Value) -> Option<String> {
    let details = reply.get("exceptionDetails")?;
    let text = details["exception"]["description"]
        .as_str()
        .or(details["text"].as_str())
        .unwrap_or("exception");
    Some(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn thrown_prefers_the_description() {
        assert_eq!(thrown(&json!({"result": {"value": 1}})), None);
        let reply = json!({"exceptionDetails": {"text": "Uncaught", "exception": {"description": "Error: boom"}}});
        assert_eq!(thrown(&reply).as_deref(), Some("Error: boom"));
        let reply = json!({"exceptionDetails": {"text": "Uncaught"}});
        assert_eq!(thrown(&reply).as_deref(), Some("Uncaught"));
    }
}
