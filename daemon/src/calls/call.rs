//! An act as a value: the tool's name and arguments parsed once, here, into a [`ToolCall`].
//! Every entry point hands the pipeline the raw name and arguments, so a bad one is refused
//! the same way everywhere (an error result naming what was wrong) and nothing downstream
//! parses again.

use porthole_mcp::vocabulary::ToolCall;
use porthole_mcp::ToolOutput;
use serde_json::Value;

/// `tool` with `args` as a call, or the error result an unknown tool or bad arguments get.
pub(super) fn parse(tool: &str, args: &Value) -> Result<ToolCall, ToolOutput> {
    ToolCall::from_name(tool, args).map_err(|e| ToolOutput::error(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_tool_parses_and_anything_else_is_an_error_result() {
        let call = parse("navigate", &serde_json::json!({"url": "http://127.0.0.1/"}))
            .expect("navigate parses");
        assert_eq!(call.name().as_str(), "navigate");
        let unknown = parse("no_such_tool", &serde_json::json!({})).unwrap_err();
        assert!(unknown.is_error);
        let bad = parse("navigate", &serde_json::json!({"url": 5})).unwrap_err();
        assert!(bad.is_error);
    }
}
