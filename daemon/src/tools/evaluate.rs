//! `evaluate`: the agent's JavaScript in the page's main world (on purpose — it is the agent's
//! own code, so it sees what the page sees), with its result bounded (DESIGN.md §16).
//!
//! A result over the cap (`browser.cdp_message_max_mb`) must never reach the CDP wire whole:
//! one 300 MB string would otherwise take the whole connection, and with it every tab of the
//! channel. So code that is a single expression (`document.title`, `await fetch(u).then(…)`,
//! `'x'.repeat(n)`) runs inside a guard that measures the value in the page (a string by its
//! length, anything else by its JSON) and answers a marker instead of a value over the cap;
//! the call then fails naming the setting. Code that is not one expression (statements, a
//! declaration) runs as it always did, in REPL mode, and is bounded by the transport: a reply
//! over the cap is skipped on the wire and fails this call only (`cdp::transport`).
//!
//! Whether the code is one expression is asked of V8 (`Runtime.compileScript`, which compiles
//! without running), never guessed. The guard runs in the page's own world, so a page that
//! replaces `JSON.stringify` can make an object look small; the transport's cap still holds.

use std::time::Duration;

use porthole_mcp::vocabulary::EvaluateArgs;
use porthole_mcp::ToolOutput;
use serde_json::{json, Value};

use super::driver::Tab;
use super::error::ToolError;
use super::snapshot::cap;
use crate::bounds;

/// How long the agent's code may run.
const DEADLINE: Duration = Duration::from_secs(20);
/// Characters of the result shown; the rest is cut with a note.
const SHOWN_CHARS: usize = 50_000;

/// `evaluate`.
pub async fn evaluate(tab: &Tab, args: &EvaluateArgs) -> Result<ToolOutput, ToolError> {
    let limit = bounds::get().cdp_message_max_bytes;
    let code = args.expression.as_str();
    let marker = format!("porthole_over_cap_{:016x}", rand::random::<u64>());
    let params = match as_expression(tab, code).await {
        Some(expression) => json!({
            "expression": guarded(&expression, limit, &marker),
            "returnByValue": true, "awaitPromise": true, "userGesture": true,
        }),
        None => json!({
            "expression": code,
            "returnByValue": true, "awaitPromise": true, "userGesture": true, "replMode": true,
        }),
    };
    let reply = tab
        .cdp()
        .call_with("Runtime.evaluate", params, Some(&tab.session_id), DEADLINE)
        .await?;
    if let Some(text) = crate::cdp::thrown(&reply) {
        return Err(ToolError::msg(format!("The expression threw: {text}")));
    }
    let result = &reply["result"];
    if let Some(size) = result["value"].get(&marker) {
        return Err(over_cap(size, limit));
    }
    let text = match result.get("value") {
        Some(Value::String(s)) => serde_json::to_string(s).unwrap_or_default(),
        Some(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
        None => result["description"]
            .as_str()
            .or(result["unserializableValue"].as_str())
            .unwrap_or(result["type"].as_str().unwrap_or("undefined"))
            .to_string(),
    };
    let (text, note) = cap(&text, SHOWN_CHARS);
    let mut out = ToolOutput::text(text);
    if let Some(note) = note {
        out = out.with_text(note);
    }
    Ok(out)
}

/// The refusal of a result the guard measured at `size` (characters of its JSON, or `null`
/// when it was too large to measure).
fn over_cap(size: &Value, limit: usize) -> ToolError {
    let size = match size.as_f64() {
        Some(n) => format!("{:.0} MB", (n / (1024.0 * 1024.0)).ceil()),
        None => "too large to measure".to_string(),
    };
    ToolError::msg(format!(
        "The result is {size}, over the cap of {} MB (the setting {}); nothing was returned and \
         the page is as the code left it. Return less: a slice, a count, or a summary of it.",
        bounds::mib(limit),
        bounds::CDP_MESSAGE_KEY
    ))
}

/// The code as a single expression (trailing semicolons dropped), when V8 compiles it as one;
/// `None` for statements, declarations and blocks (which mean something else as expressions).
async fn as_expression(tab: &Tab, code: &str) -> Option<String> {
    let expression = code.trim().trim_end_matches(';').trim_end();
    if expression.is_empty() || reads_as_declaration(expression) {
        return None;
    }
    let reply = tab
        .cdp()
        .call_with(
            "Runtime.compileScript",
            json!({"expression": arrow(expression), "sourceURL": "", "persistScript": false}),
            Some(&tab.session_id),
            Duration::from_secs(5),
        )
        .await
        .ok()?;
    reply
        .get("exceptionDetails")
        .is_none()
        .then(|| expression.to_string())
}

/// `{…}` is a block and `function f(){}` / `class C {}` declarations at the top of a script:
/// as expressions they would be an object and nameless values instead.
fn reads_as_declaration(code: &str) -> bool {
    if code.starts_with('{') {
        return true;
    }
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect()
    };
    let first = word(code);
    match first.as_str() {
        "function" | "class" => true,
        "async" => word(code[first.len()..].trim_start()) == "function",
        _ => false,
    }
}

/// `expression` as the body of an async arrow (so `await` works in it).
fn arrow(expression: &str) -> String {
    format!("(async () => (\n{expression}\n))")
}

/// `expression` run and its value measured in the page: a value over `limit` is replaced by
/// `{[marker]: size}` (size `null` when measuring it failed for want of memory).
fn guarded(expression: &str, limit: usize, marker: &str) -> String {
    format!(
        "(async () => {{\n\
         const value = await (\n{expression}\n);\n\
         let size = 0;\n\
         if (typeof value === 'string') size = value.length;\n\
         else if (value !== null && typeof value === 'object') {{\n\
           try {{ size = (JSON.stringify(value) || '').length; }}\n\
           catch (e) {{ size = e && e.name === 'RangeError' ? Infinity : 0; }}\n\
         }}\n\
         return size > {limit} ? {{ {marker}: size === Infinity ? null : size }} : value;\n\
         }})()"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_and_blocks_are_not_taken_for_expressions() {
        for code in [
            "{a: 1}",
            "function f() {}",
            "class C {}",
            "async  function g() {}",
        ] {
            assert!(reads_as_declaration(code), "{code}");
        }
        for code in [
            "document.title",
            "functionName()",
            "async () => 1",
            "classes.length",
            "'x'.repeat(3)",
        ] {
            assert!(!reads_as_declaration(code), "{code}");
        }
    }

    #[test]
    fn the_guard_keeps_the_code_on_lines_of_its_own() {
        // A trailing line comment in the agent's code must not swallow the guard.
        let g = guarded("1 // one", 10, "m");
        assert!(g.contains("\n1 // one\n);"), "{g}");
        assert!(g.contains("size > 10 ? { m: "), "{g}");
        assert_eq!(arrow("x // c"), "(async () => (\nx // c\n))");
    }
}
