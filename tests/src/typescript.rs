//! TypeScript declarations of the pane WebSocket protocol, generated from the OpenAPI document
//! (`GET /api/openapi.json`): every schema reachable from the components `PaneMessage` (daemon →
//! pane) and `ClientMessage` (pane → daemon). Tagged unions (`oneOf` whose variants share a
//! one-value `enum` property such as `type` or `input_type`) become one interface per variant
//! plus a union; everything else becomes a type alias. The output is deterministic, so a test
//! can compare it with the checked-in `web-panel/js/protocol.d.ts`.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

/// The schemas the file starts from, in this order.
const ROOTS: [&str; 2] = ["PaneMessage", "ClientMessage"];

/// Where the generated file lives, relative to the workspace root.
pub const PROTOCOL_DTS: &str = "web-panel/js/protocol.d.ts";

/// Renders the declarations for an OpenAPI document.
pub fn render(openapi: &Value) -> Result<String, String> {
    let schemas = openapi["components"]["schemas"]
        .as_object()
        .ok_or("the document has no components.schemas")?;
    let mut names = BTreeSet::new();
    let mut queue: Vec<String> = ROOTS.iter().map(|s| s.to_string()).collect();
    while let Some(name) = queue.pop() {
        if !names.insert(name.clone()) {
            continue;
        }
        let schema = schemas
            .get(&name)
            .ok_or_else(|| format!("schema {name} is referenced but not defined"))?;
        collect_refs(schema, &mut queue);
    }

    let mut out = String::new();
    out.push_str(
        "// Generated from the daemon's OpenAPI document (GET /api/openapi.json, components\n\
         // PaneMessage and ClientMessage) by tests/src/typescript.rs. Do not edit by hand:\n\
         // PORTHOLE_UPDATE_TYPES=1 cargo test -p porthole-tests --test it -- pane_types\n\
         //\n\
         // The pane WebSocket (`GET /api/ws/browser`): JSON text messages both ways, and binary\n\
         // messages from the daemon, each one JPEG frame.\n",
    );
    let ordered: Vec<&String> = ROOTS
        .iter()
        .filter_map(|r| names.get(*r))
        .chain(names.iter().filter(|n| !ROOTS.contains(&n.as_str())))
        .collect();
    for name in ordered {
        out.push('\n');
        render_named(&mut out, name, &schemas[name.as_str()])?;
    }
    Ok(out)
}

fn collect_refs(schema: &Value, queue: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                if let Some(name) = r.strip_prefix("#/components/schemas/") {
                    queue.push(name.to_string());
                }
            }
            for value in map.values() {
                collect_refs(value, queue);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, queue)),
        _ => {}
    }
}

fn render_named(out: &mut String, name: &str, schema: &Value) -> Result<(), String> {
    if let Some(variants) = schema["oneOf"].as_array() {
        if let Some(tag) = union_tag(variants) {
            return render_tagged(out, name, schema, variants, &tag);
        }
    }
    doc(out, schema["description"].as_str(), "");
    if schema["type"] == "object" && schema.get("properties").is_some() {
        let _ = writeln!(out, "export interface {name} {{");
        render_fields(out, schema, None)?;
        out.push_str("}\n");
    } else {
        let _ = writeln!(out, "export type {name} = {};", expr(schema)?);
    }
    Ok(())
}

/// The object part of a variant: itself, the inline object of an `allOf`, or, when every part
/// of the `allOf` is an inline object (a Rust variant with a `#[serde(flatten)]` field), their
/// properties merged into one object.
fn object_part(variant: &Value) -> Option<Cow<'_, Value>> {
    if variant.get("properties").is_some() {
        return Some(Cow::Borrowed(variant));
    }
    let parts = variant["allOf"].as_array()?;
    if parts.len() > 1 && parts.iter().all(|p| p.get("properties").is_some()) {
        return Some(Cow::Owned(merged(parts)));
    }
    parts
        .iter()
        .find(|p| p.get("properties").is_some())
        .map(Cow::Borrowed)
}

/// One object with the properties (in name order) and required names of all `parts`.
fn merged(parts: &[Value]) -> Value {
    let mut properties = BTreeMap::new();
    let mut required = BTreeSet::new();
    for part in parts {
        for (key, value) in part["properties"].as_object().into_iter().flatten() {
            properties.insert(key.clone(), value.clone());
        }
        for key in part["required"].as_array().into_iter().flatten() {
            if let Some(key) = key.as_str() {
                required.insert(key.to_string());
            }
        }
    }
    let properties: serde_json::Map<String, Value> = properties.into_iter().collect();
    let required: Vec<Value> = required.into_iter().map(Value::String).collect();
    serde_json::json!({"type": "object", "properties": properties, "required": required})
}

/// A property every variant has, required, with exactly one allowed value.
fn union_tag(variants: &[Value]) -> Option<String> {
    let first = object_part(variants.first()?)?;
    let candidates = first["properties"].as_object()?.keys();
    for key in candidates {
        let all = variants.iter().all(|v| {
            object_part(v).is_some_and(|o| {
                tag_value(&o, key).is_some()
                    && o["required"]
                        .as_array()
                        .is_some_and(|r| r.iter().any(|x| x == key.as_str()))
            })
        });
        if all {
            return Some(key.clone());
        }
    }
    None
}

fn tag_value<'a>(object: &'a Value, tag: &str) -> Option<&'a str> {
    let values = object["properties"][tag]["enum"].as_array()?;
    match values.as_slice() {
        [Value::String(one)] => Some(one),
        _ => None,
    }
}

fn render_tagged(
    out: &mut String,
    name: &str,
    schema: &Value,
    variants: &[Value],
    tag: &str,
) -> Result<(), String> {
    let prefix = name
        .strip_suffix("Message")
        .or_else(|| name.strip_suffix("Event"))
        .unwrap_or(name);
    let mut members = Vec::new();
    let mut bodies = String::new();
    for variant in variants {
        let object = object_part(variant).expect("checked by union_tag");
        let value = tag_value(&object, tag).expect("checked by union_tag");
        let member = format!("{prefix}{}", pascal(value));
        bodies.push('\n');
        let description = variant["description"]
            .as_str()
            .or(object["description"].as_str());
        doc(&mut bodies, description, "");
        let bases: Vec<String> = variant["allOf"]
            .as_array()
            .map(|parts| {
                parts
                    .iter()
                    .filter(|p| p.get("properties").is_none())
                    .map(expr)
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?
            .unwrap_or_default();
        if bases.is_empty() {
            let _ = writeln!(bodies, "export interface {member} {{");
            render_fields(&mut bodies, &object, Some(tag))?;
            bodies.push_str("}\n");
        } else {
            let _ = writeln!(bodies, "export type {member} = {} & {{", bases.join(" & "));
            render_fields(&mut bodies, &object, Some(tag))?;
            bodies.push_str("};\n");
        }
        members.push((value.to_string(), member));
    }
    doc(out, schema["description"].as_str(), "");
    let _ = writeln!(out, "export type {name} =");
    for (i, (_, member)) in members.iter().enumerate() {
        let end = if i + 1 == members.len() { ";" } else { "" };
        let _ = writeln!(out, "  | {member}{end}");
    }
    let _ = writeln!(
        out,
        "/** The `{name}` whose `{tag}` is `T`. */\nexport type {name}Of<T extends {name}[{tag:?}]> = Extract<{name}, {{ {tag}: T }}>;"
    );
    out.push_str(&bodies);
    Ok(())
}

/// One line per property: the tag first, then the rest in the document's order.
fn render_fields(out: &mut String, object: &Value, tag: Option<&str>) -> Result<(), String> {
    let empty = serde_json::Map::new();
    let properties = object["properties"].as_object().unwrap_or(&empty);
    let required: BTreeSet<&str> = object["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut keys: Vec<&String> = properties.keys().collect();
    keys.sort_by_key(|k| Some(k.as_str()) != tag);
    for key in keys {
        let property = &properties[key.as_str()];
        doc(out, property["description"].as_str(), "  ");
        let optional = if required.contains(key.as_str()) {
            ""
        } else {
            "?"
        };
        let _ = writeln!(out, "  {key}{optional}: {};", expr(property)?);
    }
    Ok(())
}

/// A schema as a TypeScript type expression.
fn expr(schema: &Value) -> Result<String, String> {
    if let Some(r) = schema["$ref"].as_str() {
        return r
            .strip_prefix("#/components/schemas/")
            .map(str::to_string)
            .ok_or_else(|| format!("unsupported $ref {r}"));
    }
    if let Some(options) = schema["oneOf"].as_array().or(schema["anyOf"].as_array()) {
        let parts = options.iter().map(expr).collect::<Result<Vec<_>, _>>()?;
        return Ok(union(parts));
    }
    if let Some(parts) = schema["allOf"].as_array() {
        let parts = parts.iter().map(expr).collect::<Result<Vec<_>, _>>()?;
        return Ok(parts.join(" & "));
    }
    if let Some(values) = schema["enum"].as_array() {
        let parts = values
            .iter()
            .map(|v| serde_json::to_string(v).expect("JSON value"))
            .collect();
        return Ok(union(parts));
    }
    match &schema["type"] {
        Value::Array(types) => {
            let parts = types
                .iter()
                .map(|t| {
                    let mut one = schema.clone();
                    one["type"] = t.clone();
                    expr(&one)
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(union(parts))
        }
        Value::String(t) => Ok(match t.as_str() {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => {
                let item = expr(&schema["items"])?;
                if item.contains(' ') {
                    format!("Array<{item}>")
                } else {
                    format!("{item}[]")
                }
            }
            "object" => match schema["properties"].as_object() {
                Some(properties) if !properties.is_empty() => {
                    let mut inline = String::from("{\n");
                    render_fields(&mut inline, schema, None)?;
                    inline.push('}');
                    inline
                }
                _ => "Record<string, unknown>".into(),
            },
            other => return Err(format!("unsupported type {other}")),
        }),
        Value::Null => Ok("unknown".into()),
        other => Err(format!("unsupported type {other}")),
    }
}

fn union(parts: Vec<String>) -> String {
    let mut seen = BTreeMap::new();
    for (i, p) in parts.into_iter().enumerate() {
        seen.entry(p).or_insert(i);
    }
    let mut unique: Vec<(usize, String)> = seen.into_iter().map(|(p, i)| (i, p)).collect();
    unique.sort();
    unique
        .into_iter()
        .map(|(_, p)| p)
        .collect::<Vec<_>>()
        .join(" | ")
}

fn doc(out: &mut String, text: Option<&str>, indent: &str) {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return;
    };
    let text = text.replace("*/", "*\\/");
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() == 1 {
        let _ = writeln!(out, "{indent}/** {} */", lines[0]);
    } else {
        let _ = writeln!(out, "{indent}/**");
        for line in lines {
            let _ = writeln!(out, "{indent} * {line}");
        }
        let _ = writeln!(out, "{indent} */");
    }
}

/// `agent_activity` → `AgentActivity`.
fn pascal(s: &str) -> String {
    s.split(['_', '-'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tagged_union_becomes_interfaces_and_a_union() {
        let doc = json!({"components": {"schemas": {
            "PaneMessage": {"oneOf": [
                {"type": "object", "description": "Ready.", "required": ["type", "mode"],
                 "properties": {"type": {"type": "string", "enum": ["started"]},
                                "mode": {"$ref": "#/components/schemas/Mode"},
                                "until": {"type": ["integer", "null"]}}}
            ]},
            "ClientMessage": {"oneOf": [
                {"allOf": [{"$ref": "#/components/schemas/Mode"},
                           {"type": "object", "required": ["type"],
                            "properties": {"type": {"type": "string", "enum": ["go_on"]}}}]}
            ]},
            "Mode": {"type": "string", "enum": ["local", "host"]}
        }}});
        let ts = render(&doc).unwrap();
        assert!(
            ts.contains("export type PaneMessage =\n  | PaneStarted;"),
            "{ts}"
        );
        assert!(ts.contains("/** Ready. */\nexport interface PaneStarted {\n  type: \"started\";\n  mode: Mode;\n  until?: number | null;\n}"), "{ts}");
        assert!(
            ts.contains("export type ClientGoOn = Mode & {\n  type: \"go_on\";\n};"),
            "{ts}"
        );
        assert!(
            ts.contains("export type Mode = \"local\" | \"host\";"),
            "{ts}"
        );
    }

    #[test]
    fn a_variant_with_a_flattened_field_becomes_one_interface() {
        // utoipa writes `Click { #[serde(flatten)] at: Pointer, button }` as an allOf of inline
        // objects, the tag in its own part; the wire has one flat object.
        let doc = json!({"components": {"schemas": {
            "PaneMessage": {"oneOf": [
                {"allOf": [
                    {"type": "object", "required": ["x"],
                     "properties": {"x": {"type": "number"}, "modifiers": {"type": "integer"}}},
                    {"type": "object", "properties": {"button": {"type": "string"}}},
                    {"type": "object", "required": ["type"],
                     "properties": {"type": {"type": "string", "enum": ["click"]}}}]}
            ]},
            "ClientMessage": {"oneOf": []}
        }}});
        let ts = render(&doc).unwrap();
        assert!(
            ts.contains("export interface PaneClick {\n  type: \"click\";\n  button?: string;\n  modifiers?: number;\n  x: number;\n}"),
            "{ts}"
        );
    }
}
