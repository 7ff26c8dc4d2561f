//! Turning a tool's JSON arguments into its typed argument struct, with errors a model can act
//! on: every problem names the argument and the message ends with the tool's argument list.
//!
//! Three checks, in order: the arguments are an object with no unknown keys (a typo such as
//! `wait_for_selecter` is an error, not silently ignored); serde decoding with the path of a
//! mistyped value (`serde_path_to_error`); then the struct's own [`Validate`] rules (ranges,
//! which arguments an action needs).

use std::any::Any;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A tool's arguments were missing, mistyped or out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid arguments for `{tool}`: {problem}. Arguments: {usage}")]
pub struct ArgError {
    /// The tool (canonical or alias) whose arguments were wrong.
    pub tool: String,
    /// What is wrong, naming the argument.
    pub problem: String,
    /// The tool's arguments, e.g. `{url, wait_for_selector?, …}`.
    pub usage: String,
}

/// What is wrong with one tool's arguments, naming the argument: the `problem` of an
/// [`ArgError`] (which adds the tool and its argument list).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// A number outside the range the argument allows.
    #[error("argument `{name}` must be between {min} and {max}, got {got}")]
    OutOfRange {
        name: String,
        min: String,
        max: String,
        got: String,
    },
    /// A text argument that is empty or only whitespace.
    #[error("argument `{name}` must not be empty")]
    Blank { name: String },
    /// Any other rule of the tool (which arguments an action needs, allowed values), in words
    /// that name the argument.
    #[error("{0}")]
    Rule(String),
}

impl From<String> for Problem {
    fn from(rule: String) -> Self {
        Problem::Rule(rule)
    }
}

impl From<&str> for Problem {
    fn from(rule: &str) -> Self {
        Problem::Rule(rule.to_owned())
    }
}

/// Rules serde cannot express: ranges, arguments an action needs, normalisation.
pub trait Validate {
    /// Arguments accepted but not shown in the schema (filled in by porthole-mcp, not by models).
    const HIDDEN: &'static [&'static str] = &[];

    /// Checks (and may normalise) the decoded arguments; `Err` names the argument.
    fn validate(&mut self) -> Result<(), Problem> {
        Ok(())
    }
}

/// The input schema of an argument struct, as MCP's `inputSchema` (root `type: object`),
/// trimmed for the model's context (every `tools/list` byte is read on every turn): doc-comment
/// line breaks become spaces, and what a model does not need is left out — `$schema`, titles,
/// the struct's own description (the tool's description says it), Rust number formats, and
/// `null` as an alternative type (an optional argument is simply left out).
pub fn input_schema<T: JsonSchema + Any>() -> std::sync::Arc<serde_json::Map<String, Value>> {
    let schema = rmcp::handler::server::tool::schema_for_input::<T>()
        .unwrap_or_else(|e| panic!("argument struct has an invalid input schema: {e}"));
    let mut map = schema.as_ref().clone();
    for key in ["$schema", "title", "description"] {
        map.remove(key);
    }
    trim_schema(&mut map);
    std::sync::Arc::new(map)
}

/// Trims one schema object and, recursively, the schemas inside it.
fn trim_schema(map: &mut serde_json::Map<String, Value>) {
    map.remove("title");
    if let Some(Value::String(format)) = map.get("format") {
        // Unsigned formats carry a `minimum: 0` of their own; a stated range keeps its minimum.
        if format.starts_with("uint") && map.get("minimum") == Some(&Value::from(0)) {
            map.remove("minimum");
        }
        map.remove("format");
    }
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if branches.len() == 1 {
            if let Value::Object(only) = branches.remove(0) {
                map.remove("anyOf");
                for (k, v) in only {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
    // An enum whose variants are documented one by one becomes a plain `enum` list: the
    // field's and the tool's descriptions say what the values do.
    let consts: Option<Vec<Value>> = match map.get("oneOf") {
        Some(Value::Array(branches)) => branches.iter().map(|b| b.get("const").cloned()).collect(),
        _ => None,
    };
    if let Some(consts) = consts {
        map.remove("oneOf");
        if consts.iter().all(Value::is_string) {
            map.insert("type".into(), Value::from("string"));
        }
        map.insert("enum".into(), Value::Array(consts));
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    // Alternatives of a described argument: the argument's description covers them.
    if map.contains_key("description") {
        if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
            for b in branches.iter_mut().filter_map(Value::as_object_mut) {
                b.remove("description");
            }
        }
    }
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
    for (key, value) in map.iter_mut() {
        match (key.as_str(), value) {
            ("description", Value::String(s)) => *s = s.replace('\n', " "),
            // Maps of named schemas: the names are not keywords.
            ("properties" | "$defs" | "definitions", Value::Object(named)) => {
                for schema in named.values_mut() {
                    if let Value::Object(m) = schema {
                        trim_schema(m);
                    }
                }
            }
            (_, Value::Object(m)) => trim_schema(m),
            (_, Value::Array(items)) => {
                for item in items {
                    if let Value::Object(m) = item {
                        trim_schema(m);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `{a, b?, c?}`: the properties of `T`'s schema, optional ones marked with `?`.
pub fn usage<T: JsonSchema + Any>() -> String {
    let schema = input_schema::<T>();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // Required arguments first, then optional ones (marked `?`).
    let mut names: Vec<String> = properties(&schema)
        .filter(|name| required.contains(name))
        .map(str::to_owned)
        .collect();
    names.extend(
        properties(&schema)
            .filter(|name| !required.contains(name))
            .map(|name| format!("{name}?")),
    );
    if names.is_empty() {
        "none ({})".to_owned()
    } else {
        format!("{{{}}}", names.join(", "))
    }
}

fn properties(schema: &serde_json::Map<String, Value>) -> impl Iterator<Item = &str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys().map(String::as_str))
}

/// Decodes and validates `args` (an object, or null for "no arguments") as `T`.
pub fn parse_args<T>(tool: &str, args: &Value) -> Result<T, ArgError>
where
    T: DeserializeOwned + JsonSchema + Validate + Any,
{
    let fail = |problem: String| ArgError {
        tool: tool.to_owned(),
        problem,
        usage: usage::<T>(),
    };
    let object = match args {
        Value::Null => serde_json::Map::new(),
        Value::Object(map) => map.clone(),
        other => {
            return Err(fail(format!(
                "arguments must be a JSON object, got {}",
                kind(other)
            )))
        }
    };
    let schema = input_schema::<T>();
    let known: Vec<&str> = properties(&schema).collect();
    if let Some(unknown) = object
        .keys()
        .find(|k| !known.contains(&k.as_str()) && !T::HIDDEN.contains(&k.as_str()))
    {
        return Err(fail(format!("unknown argument `{unknown}`")));
    }
    let mut value: T = serde_path_to_error::deserialize(Value::Object(object))
        .map_err(|e| fail(describe_serde_error(&e)))?;
    value.validate().map_err(|p| fail(p.to_string()))?;
    Ok(value)
}

fn describe_serde_error(e: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let message = e.inner().to_string();
    let path = e.path().to_string();
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        let prefix = if path == "." {
            String::new()
        } else {
            format!("{path}.")
        };
        return format!("missing required argument `{prefix}{field}`");
    }
    if path == "." {
        message
    } else {
        format!("argument `{path}`: {message}")
    }
}

/// "a string", "a number", … for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `Err` unless `value` (when present) lies in `min..=max`.
pub(crate) fn check_range<N>(name: &str, value: Option<N>, min: N, max: N) -> Result<(), Problem>
where
    N: PartialOrd + std::fmt::Display + Copy,
{
    match value {
        Some(v) if v < min || v > max => Err(Problem::OutOfRange {
            name: name.to_owned(),
            min: min.to_string(),
            max: max.to_string(),
            got: v.to_string(),
        }),
        _ => Ok(()),
    }
}

/// `Err` when `value` is present but empty or only whitespace.
pub(crate) fn check_not_blank(name: &str, value: Option<&str>) -> Result<(), Problem> {
    match value {
        Some(v) if v.trim().is_empty() => Err(Problem::Blank {
            name: name.to_owned(),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Demo {
        /// A URL.
        url: String,
        /// A number.
        n: Option<u32>,
    }
    impl Validate for Demo {}

    #[test]
    fn errors_name_the_argument() {
        let e = parse_args::<Demo>("demo", &json!({})).unwrap_err();
        assert_eq!(e.problem, "missing required argument `url`");
        assert_eq!(e.usage, "{url, n?}");
        let e = parse_args::<Demo>("demo", &json!({"url": "x", "n": "7"})).unwrap_err();
        assert!(e.problem.starts_with("argument `n`: invalid type"), "{e}");
        let e = parse_args::<Demo>("demo", &json!({"url": "x", "m": 1})).unwrap_err();
        assert_eq!(e.problem, "unknown argument `m`");
        let e = parse_args::<Demo>("demo", &json!([1])).unwrap_err();
        assert_eq!(e.problem, "arguments must be a JSON object, got an array");
        assert!(parse_args::<Demo>("demo", &json!({"url": "x", "n": null})).is_ok());
    }
}
