//! A tool's input is one Rust type: its handler parses the positional arguments into it
//! (`ToolInput::from_args`, with upstream's checks, order and messages), its JSON Schema is the
//! definition's `parameters` (schemars, pinned to the published definitions by a test), its
//! TypeScript declaration is in types/tools.d.ts (ts-rs), and the `invoke` argument mapping
//! (`registry::InvokeArgs`) is read from its fields. docs/adding-a-tool.md walks through it.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::value::ArgValue;

/// How a tool's handler takes its input: the positional arguments of `toolkit.tools.<name>` and
/// `ToolCatalog[name].handler`. The field names come from the input's schema (its properties,
/// in declaration order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgShape {
    /// `(first, second)`: the input's two fields (the first a workspace path).
    PathAndField,
    /// `(path, options?)`: the input's first field (a workspace path), then an object holding
    /// the others (the fields of its flattened options type).
    PathAndOptions,
    /// `(path?)`: the input's only field, an optional workspace path.
    OptionalPath,
    /// `(input)`: the whole input as one object; the named field, when given, is a workspace
    /// path the front doors sandbox.
    Object(Option<&'static str>),
}

/// The input of a tool (see the module comment).
pub trait ToolInput: JsonSchema + Sized {
    /// How the handler takes it.
    const SHAPE: ArgShape;

    /// The TypeScript type of the `options` argument of an `ArgShape::PathAndOptions` input
    /// (its flattened options type).
    #[cfg(feature = "typegen")]
    const TS_OPTIONS: Option<crate::tstype::TsType> = None;

    /// The handler's positional arguments, checked in upstream's order with its messages; the
    /// context is for the checks that depend on it (a missing `root_path` is the workspace
    /// root, a missing workspace root fails where upstream's handler fails).
    fn from_args(args: &[ArgValue], ctx: &ToolContext) -> Result<Self, ToolError>;
}

/// The JSON Schema of a tool's input as it appears in its definition's `parameters`: inline
/// (no `$ref`), no `null` for optional fields (an omitted field is `undefined`; where a handler
/// also takes `null`, the definition does not say so), no `format` (JavaScript has one number
/// type), no title or description of its own.
pub fn parameters_schema<T: JsonSchema>() -> serde_json::Value {
    let settings = SchemaSettings::draft07().with(|s| {
        s.meta_schema = None;
        s.inline_subschemas = true;
    });
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    simplify(&mut schema);
    if let Some(root) = schema.as_object_mut() {
        root.shift_remove("title");
        root.shift_remove("description");
    }
    schema
}

/// The order of a schema's keywords in the definitions: the type and what it is made of, then
/// the values, then the description (any other keyword after these).
const KEYWORD_ORDER: [&str; 7] = [
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "default",
    "description",
];

/// Removes `format`s and the `null` schemars adds to the type (and enum) of an `Option`, and puts
/// the keywords in `KEYWORD_ORDER`, in this schema and its subschemas.
fn simplify(schema: &mut serde_json::Value) {
    use serde_json::Value;
    let Value::Object(map) = schema else {
        return;
    };
    if map.get("format").is_some_and(Value::is_string) {
        map.shift_remove("format");
    }
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if let [single] = types.as_slice() {
            let single = single.clone();
            map.insert("type".into(), single);
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(simplify);
    }
    if let Some(items) = map.get_mut("items") {
        simplify(items);
    }
    let rank = |key: &str| {
        KEYWORD_ORDER
            .iter()
            .position(|k| *k == key)
            .unwrap_or(KEYWORD_ORDER.len())
    };
    let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
    entries.sort_by_key(|(key, _)| rank(key));
    map.extend(entries);
}

/// The names of the properties of a schema, in order.
pub fn property_names(schema: &serde_json::Value) -> Vec<String> {
    schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// A schema for a field that is any JSON object (`{ "type": "object" }`).
pub(crate) fn any_object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(JsonSchema, Debug, PartialEq)]
    #[serde(rename_all = "lowercase")]
    #[allow(dead_code)]
    enum Mode {
        Fast,
        Slow,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Options {
        #[schemars(
            with = "Option<Mode>",
            description = "Mode.",
            extend("default" = "fast")
        )]
        mode: Mode,
        #[schemars(description = "How many.", with = "Option<f64>")]
        count: usize,
    }

    /// A sample input: its doc comment is not the definition's description.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Sample {
        #[schemars(description = "Where.")]
        #[serde(rename = "filePath")]
        file_path: String,
        #[schemars(description = "Which.")]
        names: Option<Vec<String>>,
        #[serde(flatten)]
        options: Options,
        #[schemars(skip)]
        parsed: u8,
    }

    #[test]
    fn parameters_are_inline_without_null_format_or_title() {
        let schema = parameters_schema::<Sample>();
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "filePath": { "type": "string", "description": "Where." },
                    "names": { "type": "array", "items": { "type": "string" }, "description": "Which." },
                    "mode": { "type": "string", "enum": ["fast", "slow"], "default": "fast", "description": "Mode." },
                    "count": { "type": "number", "description": "How many." }
                },
                "required": ["filePath"]
            })
        );
        // keywords in the definitions' order, whatever order schemars inserted them in
        let keys: Vec<&String> = schema["properties"]["mode"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["type", "enum", "default", "description"]);
        assert_eq!(
            property_names(&schema),
            ["filePath", "names", "mode", "count"]
        );
    }
}
