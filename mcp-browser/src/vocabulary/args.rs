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

/// Rules serde cannot express: ranges, arguments an action needs, normalisation.
pub trait Validate {
    /// Checks (and may normalise) the decoded arguments; `Err` names the argument.
    fn validate(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// The input schema of an argument struct, as MCP's `inputSchema` (root `type: object`), with
/// doc-comment line breaks in descriptions turned into spaces.
pub fn input_schema<T: JsonSchema + Any>() -> std::sync::Arc<serde_json::Map<String, Value>> {
    let schema = rmcp::handler::server::tool::schema_for_input::<T>()
        .unwrap_or_else(|e| panic!("argument struct has an invalid input schema: {e}"));
    let mut schema = Value::Object(schema.as_ref().clone());
    unwrap_descriptions(&mut schema);
    match schema {
        Value::Object(map) => std::sync::Arc::new(map),
        _ => unreachable!("an object stays an object"),
    }
}

fn unwrap_descriptions(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(s) if key == "description" => *s = s.replace('\n', " "),
                    other => unwrap_descriptions(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
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
    if let Some(unknown) = object.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(fail(format!("unknown argument `{unknown}`")));
    }
    let mut value: T = serde_path_to_error::deserialize(Value::Object(object))
        .map_err(|e| fail(describe_serde_error(&e)))?;
    value.validate().map_err(fail)?;
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
pub(crate) fn check_range<N>(name: &str, value: Option<N>, min: N, max: N) -> Result<(), String>
where
    N: PartialOrd + std::fmt::Display + Copy,
{
    match value {
        Some(v) if v < min || v > max => Err(format!(
            "argument `{name}` must be between {min} and {max}, got {v}"
        )),
        _ => Ok(()),
    }
}

/// `Err` when `value` is present but empty or only whitespace.
pub(crate) fn check_not_blank(name: &str, value: Option<&str>) -> Result<(), String> {
    match value {
        Some(v) if v.trim().is_empty() => Err(format!("argument `{name}` must not be empty")),
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
