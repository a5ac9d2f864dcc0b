//! JSON Schema → the OpenAPI 3.0 subset Gemini accepts for `parameters` (see the parent
//! module's notes for what is converted and what is dropped).

use super::*;

/// The converted schema; `None` for an object schema without properties (Gemini wants no
/// `parameters` then).
pub fn openapi_schema(schema: &Value) -> Option<Value> {
    let converted = Converter { root: schema }.convert(schema, &mut Vec::new(), 0);
    let empty_object = converted.get("type") == Some(&json!("OBJECT"))
        && converted
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
    (!empty_object).then_some(converted)
}

struct Converter<'a> {
    root: &'a Value,
}

const MAX_DEPTH: usize = 64;

fn gemini_type(t: &str) -> Option<&'static str> {
    Some(match t {
        "string" => "STRING",
        "number" => "NUMBER",
        "integer" => "INTEGER",
        "boolean" => "BOOLEAN",
        "array" => "ARRAY",
        "object" => "OBJECT",
        "null" => "NULL",
        _ => return None,
    })
}

/// String formats Gemini accepts per type; others go into the description.
fn format_allowed(gemini_type: Option<&str>, format: &str) -> bool {
    matches!(
        (gemini_type, format),
        (Some("STRING"), "enum" | "date-time")
            | (Some("NUMBER"), "float" | "double")
            | (Some("INTEGER"), "int32" | "int64")
    )
}

fn enum_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Converter<'_> {
    /// The schema a local `$ref` (`#/…` JSON pointer) points to.
    fn resolve(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    fn convert(&self, schema: &Value, refs: &mut Vec<String>, depth: usize) -> Value {
        let Some(s) = schema.as_object() else {
            return json!({});
        };
        if depth > MAX_DEPTH {
            return json!({});
        }
        if let Some(reference) = s.get("$ref").and_then(Value::as_str) {
            // A recursive reference cannot be inlined: it becomes a free-form object.
            let mut out = match self.resolve(reference) {
                Some(target) if !refs.iter().any(|r| r == reference) => {
                    refs.push(reference.to_string());
                    let out = self.convert(target, refs, depth + 1);
                    refs.pop();
                    out
                }
                _ => json!({"type": "OBJECT"}),
            };
            if let Some(d) = s.get("description").and_then(Value::as_str) {
                out["description"] = json!(d);
            }
            return out;
        }
        if let Some(Value::Array(parts)) = s.get("allOf") {
            let mut merged = Map::new();
            for (k, v) in s.iter().filter(|(k, _)| k.as_str() != "allOf") {
                merged.insert(k.clone(), v.clone());
            }
            let mut properties = merged
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut required: Vec<Value> = merged
                .get("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for part in parts {
                let part = match part
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| self.resolve(r))
                {
                    Some(target) => target,
                    None => part,
                };
                if let Some(p) = part.get("properties").and_then(Value::as_object) {
                    properties.extend(p.clone());
                }
                required.extend(
                    part.get("required")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                );
                for (k, v) in part.as_object().into_iter().flatten() {
                    if !matches!(k.as_str(), "properties" | "required") {
                        merged.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            }
            if !properties.is_empty() {
                merged.insert("properties".into(), Value::Object(properties));
                merged.entry("type").or_insert_with(|| json!("object"));
            }
            if !required.is_empty() {
                merged.insert("required".into(), Value::Array(required));
            }
            return self.convert(&Value::Object(merged), refs, depth + 1);
        }

        let mut out = Map::new();
        let mut nullable = s.get("nullable") == Some(&json!(true));

        // anyOf / oneOf: null members become `nullable`; one member left is inlined.
        let alternatives = s
            .get("anyOf")
            .or_else(|| s.get("oneOf"))
            .and_then(Value::as_array);
        if let Some(alternatives) = alternatives {
            let mut options: Vec<Value> = Vec::new();
            for alternative in alternatives {
                if alternative.get("type") == Some(&json!("null")) {
                    nullable = true;
                } else {
                    options.push(self.convert(alternative, refs, depth + 1));
                }
            }
            let mut out = match options.len() {
                1 => options.pop().unwrap_or_default(),
                _ => json!({"anyOf": options}),
            };
            if nullable {
                out["nullable"] = json!(true);
            }
            if let Some(d) = s.get("description").and_then(Value::as_str) {
                out["description"] = json!(d);
            }
            return out;
        }

        // type, type arrays.
        let mut kind: Option<&'static str> = None;
        match s.get("type") {
            Some(Value::String(t)) => kind = gemini_type(t),
            Some(Value::Array(types)) => {
                let mut named: Vec<&str> = Vec::new();
                for t in types.iter().filter_map(Value::as_str) {
                    if t == "null" {
                        nullable = true;
                    } else {
                        named.push(t);
                    }
                }
                if named.len() > 1 {
                    let options: Vec<Value> = named
                        .iter()
                        .map(|t| {
                            let mut single = s.clone();
                            single.insert("type".into(), json!(t));
                            self.convert(&Value::Object(single), refs, depth + 1)
                        })
                        .collect();
                    let mut out = json!({"anyOf": options});
                    if nullable {
                        out["nullable"] = json!(true);
                    }
                    return out;
                }
                kind = named.first().and_then(|t| gemini_type(t));
            }
            _ => {}
        }

        // const / enum: Gemini's enum holds strings of a STRING schema.
        let mut values: Option<Vec<Value>> = None;
        if let Some(c) = s.get("const") {
            values = Some(vec![c.clone()]);
        } else if let Some(Value::Array(e)) = s.get("enum") {
            values = Some(e.clone());
        }
        let values = values.map(|vals| {
            let (nulls, rest): (Vec<Value>, Vec<Value>) =
                vals.into_iter().partition(Value::is_null);
            nullable |= !nulls.is_empty();
            rest.iter()
                .map(enum_text)
                .map(Value::String)
                .collect::<Vec<_>>()
        });
        if values.as_ref().is_some_and(|v| !v.is_empty()) {
            kind = Some("STRING");
        }
        if kind.is_none() {
            if s.contains_key("properties") {
                kind = Some("OBJECT");
            } else if s.contains_key("items") || s.contains_key("prefixItems") {
                kind = Some("ARRAY");
            }
        }

        if let Some(k) = kind {
            out.insert("type".into(), json!(k));
        }
        if nullable {
            out.insert("nullable".into(), json!(true));
        }
        let mut description = s
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(format) = s.get("format").and_then(Value::as_str) {
            if format_allowed(kind, format) {
                out.insert("format".into(), json!(format));
            } else {
                description = Some(match description {
                    Some(d) => format!("{d} (format: {format})"),
                    None => format!("Format: {format}"),
                });
            }
        }
        if let Some(d) = description {
            out.insert("description".into(), json!(d));
        }
        if let Some(values) = values.filter(|v| !v.is_empty()) {
            out.insert("enum".into(), Value::Array(values));
        }
        if let Some(Value::Object(properties)) = s.get("properties") {
            let converted: Map<String, Value> = properties
                .iter()
                .map(|(k, v)| (k.clone(), self.convert(v, refs, depth + 1)))
                .collect();
            if let Some(Value::Array(required)) = s.get("required") {
                let required: Vec<Value> = required
                    .iter()
                    .filter(|r| r.as_str().is_some_and(|r| converted.contains_key(r)))
                    .cloned()
                    .collect();
                out.insert("properties".into(), Value::Object(converted));
                if !required.is_empty() {
                    out.insert("required".into(), Value::Array(required));
                }
            } else {
                out.insert("properties".into(), Value::Object(converted));
            }
        }
        match s.get("items").or_else(|| s.get("prefixItems")) {
            Some(item @ Value::Object(_)) => {
                out.insert("items".into(), self.convert(item, refs, depth + 1));
            }
            Some(Value::Array(tuple)) if !tuple.is_empty() => {
                let options: Vec<Value> = tuple
                    .iter()
                    .map(|t| self.convert(t, refs, depth + 1))
                    .collect();
                out.insert(
                    "items".into(),
                    if options.len() == 1 {
                        options[0].clone()
                    } else {
                        json!({"anyOf": options})
                    },
                );
            }
            _ => {}
        }
        for key in ["minimum", "maximum"] {
            if let Some(n) = s.get(key).filter(|v| v.is_number()) {
                out.insert(key.into(), n.clone());
            }
        }
        // int64 fields travel as strings in the SDK's types.
        for key in [
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
            "minProperties",
            "maxProperties",
        ] {
            if let Some(n) = s.get(key).and_then(Value::as_u64) {
                out.insert(key.into(), json!(n.to_string()));
            }
        }
        if let Some(p) = s.get("pattern").and_then(Value::as_str) {
            out.insert("pattern".into(), json!(p));
        }
        Value::Object(out)
    }
}
