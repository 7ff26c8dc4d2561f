//! `evaluate`: the agent's JavaScript in the page's main world (on purpose — it is the agent's
//! own code, so it sees what the page sees), with its result bounded (DESIGN.md §16).
//!
//! A result over the cap (`browser.cdp_message_max_mb`) must never reach the CDP wire whole:
//! one 300 MB string would otherwise take the whole connection, and with it every tab of the
//! channel. So code that is a single expression (`document.title`, `await fetch(u).then(…)`,
//! `'x'.repeat(n)`) runs inside a guard (`js/evaluate-guard.js`) that measures the value in
//! the page and answers a marker instead of a value over the cap; the call then fails naming
//! the setting. Code that is not one expression (statements, a declaration) runs as it always
//! did, in REPL mode, and is bounded by the transport: a reply over the cap is skipped on the
//! wire and fails this call only (`cdp::transport`).
//!
//! The guard runs in the page's world (it must: the value is the page's), so it calls nothing
//! the page can replace — no `JSON.stringify`, no `Object.keys`, no `Array.isArray` — only
//! syntax and the own length of primitive strings. It hands back a copy made of data only
//! (null-prototype objects, an array's marked with a per-call tag and its length, which
//! [`untag`] turns back into an array here), so a getter or a proxy cannot look small while
//! measured and grow on the wire. The transport's cap stays the backstop.
//!
//! Whether the code is one expression is asked of V8 (`Runtime.compileScript`, which compiles
//! without running), never guessed.

use std::time::Duration;

use porthole_mcp::vocabulary::EvaluateArgs;
use porthole_mcp::ToolOutput;
use serde_json::{json, Value};

use crate::bounds;
use crate::tools::error::ToolError;
use crate::tools::read::snapshot::cap;
use crate::tools::tab::driver::Tab;

/// How long the agent's code may run.
const DEADLINE: Duration = Duration::from_secs(20);
/// Characters of the result shown; the rest is cut with a note.
const SHOWN_CHARS: usize = 50_000;
/// The guard: `(run, limit, tag, over)`, `run` an async arrow around the agent's expression.
const GUARD: &str = include_str!("js/evaluate-guard.js");

/// `evaluate`.
pub async fn evaluate(tab: &Tab, args: &EvaluateArgs) -> Result<ToolOutput, ToolError> {
    let limit = bounds::get().cdp_message_max_bytes;
    let code = args.expression.as_str();
    let marker = format!("porthole_over_cap_{:016x}", rand::random::<u64>());
    let tag = format!("porthole_array_{:016x}", rand::random::<u64>());
    let params = match as_expression(tab, code).await {
        Some(expression) => json!({
            "expression": guarded(&expression, limit, &tag, &marker),
            "returnByValue": true, "awaitPromise": true, "userGesture": true,
        }),
        None => json!({
            "expression": code,
            "returnByValue": true, "awaitPromise": true, "userGesture": true, "replMode": true,
        }),
    };
    let mut reply = tab
        .cdp()
        .call_with("Runtime.evaluate", params, Some(&tab.session_id), DEADLINE)
        .await?;
    if let Some(text) = crate::cdp::thrown(&reply) {
        return Err(ToolError::msg(format!("The expression threw: {text}")));
    }
    let mut result = reply["result"].take();
    if let Some(size) = result["value"].get(&marker) {
        return Err(over_cap(size, limit));
    }
    if let Some(value) = result.get_mut("value") {
        untag(value, &tag);
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

/// The refusal of a result the guard measured at `size` (bytes of its JSON counted when it
/// stopped: at least that much).
fn over_cap(size: &Value, limit: usize) -> ToolError {
    let size = match size.as_f64() {
        Some(n) => format!("at least {:.0} MB", (n / (1024.0 * 1024.0)).ceil()),
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

/// `expression` run inside the guard: a value over `limit` comes back as `{[marker]: size}`,
/// any other as a data-only copy whose arrays carry `tag`.
fn guarded(expression: &str, limit: usize, tag: &str, marker: &str) -> String {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    format!(
        "({})({}, {limit}, {}, {})",
        GUARD.trim_end().trim_end_matches(';'),
        arrow(expression),
        quote(tag),
        quote(marker)
    )
}

/// The guard's copy turned back into plain JSON: an object carrying `tag` with a length is
/// the array it was (its elements under `"0"`, `"1"`, …); one that does not add up stays an
/// object.
fn untag(value: &mut Value, tag: &str) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| untag(v, tag)),
        Value::Object(map) => {
            let len = map.get(tag).and_then(Value::as_u64).map(|n| n as usize);
            match len.filter(|n| *n < map.len()) {
                Some(n) => {
                    let mut items = Vec::with_capacity(n);
                    for i in 0..n {
                        let mut item = map.remove(&i.to_string()).unwrap_or(Value::Null);
                        untag(&mut item, tag);
                        items.push(item);
                    }
                    *value = Value::Array(items);
                }
                None => map.values_mut().for_each(|v| untag(v, tag)),
            }
        }
        _ => {}
    }
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
            "navigator.userAgent",
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
        let g = guarded("1 // one", 10, "t", "m");
        assert!(g.contains("\n1 // one\n)), 10, \"t\", \"m\")"), "{g}");
        assert_eq!(arrow("x // c"), "(async () => (\nx // c\n))");
    }

    #[test]
    fn tagged_copies_turn_back_into_arrays() {
        let mut v = json!({"t": 3, "0": 1, "1": {"t": 1, "0": "a"}, "2": null, "x": 9});
        untag(&mut v, "t");
        // A tag that does not add up (more elements than keys) is left an object.
        assert_eq!(v, json!([1, ["a"], null]));
        let mut forged = json!({"t": 1_000_000_000u64, "0": 1});
        untag(&mut forged, "t");
        assert_eq!(forged, json!({"t": 1_000_000_000u64, "0": 1}));
        let mut plain = json!({"a": [{"b": {"t": 0}}]});
        untag(&mut plain, "t");
        assert_eq!(plain, json!({"a": [{"b": []}]}));
    }
}
