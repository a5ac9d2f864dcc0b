//! A tool's input is one Rust type, written once with `#[tool_input]` (the agent-tools-macros
//! crate): each field's `#[arg(...)]` says how its argument is checked (upstream's checks, order
//! and messages), whether it is optional and its default, and whether a reviewer sees it. From
//! that come the parse of the handler's positional arguments (`ToolInput::from_args`), its JSON
//! Schema, which is the definition's `parameters` (schemars, pinned to the published definitions
//! by a test), its TypeScript declaration in types/tools.d.ts (ts-rs), the `invoke` argument
//! mapping (`registry::InvokeArgs`) and the tool's catalog entry. docs/adding-a-tool.md walks
//! through it.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;

use crate::context::{RunContext, ToolContext};
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::tools::todo::TodoOp;
use crate::value::ArgValue;

pub use agent_tools_macros::tool_input;

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

/// What a call of the tool does, which decides how the tool loop schedules it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Only reads: calls of one turn run in parallel.
    Read,
    /// Changes files in the workspace: sequential, offered for review first.
    Write,
    /// Runs a program: sequential, offered for review first.
    Exec,
    /// Changes the session's task list only: sequential, not reviewed.
    State,
}

impl Effect {
    /// The write operations of upstream's write scope: denied in `"read-only"` mode.
    pub const fn is_write_op(self) -> bool {
        matches!(self, Effect::Write)
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::Exec => "exec",
            Effect::State => "state",
        }
    }
}

/// A bounded handler: arguments and an optional input-size limit in, `None` when over it.
pub type BoundedHandler =
    fn(&RunContext, &[ArgValue], Option<u64>) -> Result<Option<String>, ToolError>;

/// How a tool runs.
#[derive(Clone, Copy)]
pub enum Handler {
    /// On the blocking pool: positional arguments in, the output as JSON text out.
    Worker(fn(&RunContext, &[ArgValue]) -> Result<String, ToolError>),
    /// Bounded work, cheap enough for the JavaScript thread when its input is small: given
    /// `Some(limit)`, it gives up (`Ok(None)`) as soon as it sees more than `limit` bytes of
    /// input, and the call moves to the blocking pool; given `None`, it runs in full.
    Bounded(BoundedHandler),
    /// On the JavaScript thread, with the session state of `context.todo` (see `tools::todo`).
    Session(TodoOp),
}

/// A type with a TypeScript declaration, in a build with the `typegen` feature (any type
/// otherwise).
#[cfg(feature = "typegen")]
pub trait Declared: ts_rs::TS + 'static {}
#[cfg(feature = "typegen")]
impl<T: ts_rs::TS + 'static> Declared for T {}
#[cfg(not(feature = "typegen"))]
pub trait Declared {}
#[cfg(not(feature = "typegen"))]
impl<T> Declared for T {}

/// The input of a tool and its catalog entry (see the module comment); `#[tool_input]` with
/// the tool attributes implements it.
pub trait ToolInput: InputFields + JsonSchema + Declared {
    const NAME: &'static str;
    /// `ToolCatalog[name].metadata.description` (may differ from the definition's,
    /// docs/compat.md, "apply_patch has two descriptions").
    const DESCRIPTION: &'static str;
    const EFFECT: Effect;
    /// The JavaScript class of this tool's errors.
    const ERROR_CLASS: ErrorClass;
    const HANDLER: Handler;
    /// Not part of the drop-in contract (`extraTools`).
    const OPT_IN: bool;
    /// Starts processes: the binding passes the host's `process.env`.
    const SPAWNS_PROCESSES: bool;
    /// How the handler takes it.
    const SHAPE: ArgShape;

    /// The TypeScript type of the `options` argument of an `ArgShape::PathAndOptions` input
    /// (its flattened options type).
    #[cfg(feature = "typegen")]
    const TS_OPTIONS: Option<crate::tstype::TsType> = None;
    /// The TypeScript type of `ToolResultByName[name]`.
    #[cfg(feature = "typegen")]
    const TS_RESULT: crate::tstype::TsType;

    /// The handler's positional arguments, checked in upstream's order with its messages; the
    /// context is for the checks that depend on it (a missing `root_path` is the workspace
    /// root, a missing workspace root fails where upstream's handler fails).
    fn from_args(args: &[ArgValue], ctx: &ToolContext) -> Result<Self, ToolError>;
}

/// Fields read from one object by key (`#[tool_input]` implements it for every input).
pub trait InputFields: Sized {
    /// The argument keys, in declaration order.
    const KEYS: &'static [&'static str];
    /// What a reviewer is shown: `(preview key, argument key)` pairs.
    const REVIEW: &'static [(&'static str, &'static str)];

    fn parse_fields(
        object: &ArgValue,
        ctx: &ToolContext,
        errors: Errors,
    ) -> Result<Self, ToolError>;
}

/// How a tool's argument errors are made: its class, with or without the code prefix.
#[derive(Debug, Clone, Copy)]
pub struct Errors {
    pub class: ErrorClass,
    /// apply_patch's form: the message alone.
    pub bare: bool,
}

impl Errors {
    /// An `INVALID_ARGUMENT` error with this message.
    pub fn invalid(self, message: impl Into<String>) -> ToolError {
        let message = message.into();
        if self.bare {
            self.class.bare(ErrorCode::InvalidArgument, message)
        } else {
            self.class.invalid(message)
        }
    }
}

/// One argument being checked: its key, its value (`undefined` when absent) and its default.
#[derive(Clone)]
pub struct Field<'a, T> {
    pub key: &'static str,
    pub value: &'a ArgValue,
    pub default: Option<T>,
    pub ctx: &'a ToolContext,
    pub errors: Errors,
}

impl<T> Field<'_, T> {
    /// `INVALID_ARGUMENT: <key> must <requirement>`.
    pub fn must(&self, requirement: &str) -> ToolError {
        self.error(&format!("must {requirement}"))
    }

    /// `INVALID_ARGUMENT: <key> <rest>`.
    pub fn error(&self, rest: &str) -> ToolError {
        self.errors.invalid(format!("{} {rest}", self.key))
    }
}

/// A default as written in `#[arg(default = ...)]` (the definition's value) turned into the
/// field's type.
pub trait DefaultInto<T> {
    fn default_into(self) -> T;
}

impl<T> DefaultInto<T> for T {
    fn default_into(self) -> T {
        self
    }
}

impl DefaultInto<f64> for u32 {
    fn default_into(self) -> f64 {
        f64::from(self)
    }
}

impl DefaultInto<usize> for u32 {
    fn default_into(self) -> usize {
        self as usize
    }
}

impl DefaultInto<f64> for usize {
    fn default_into(self) -> f64 {
        self as f64
    }
}

impl DefaultInto<std::time::Duration> for u32 {
    fn default_into(self) -> std::time::Duration {
        std::time::Duration::from_millis(u64::from(self))
    }
}

impl<T> DefaultInto<Option<T>> for T {
    fn default_into(self) -> Option<T> {
        Some(self)
    }
}

impl DefaultInto<Option<String>> for &str {
    fn default_into(self) -> Option<String> {
        Some(self.to_string())
    }
}

impl DefaultInto<String> for &str {
    fn default_into(self) -> String {
        self.to_string()
    }
}

/// The options object of an `ArgShape::PathAndOptions` input: absent is `{}`; with `plain`,
/// anything but an object is `<key> must be an object`, otherwise `null` fails the way the
/// engine does when the handler reads the first option.
pub fn options<O: InputFields>(
    value: &ArgValue,
    key: &str,
    plain: bool,
    ctx: &ToolContext,
    errors: Errors,
) -> Result<O, ToolError> {
    if plain && !matches!(value, ArgValue::Object(_)) {
        return Err(errors.invalid(format!("{key} must be an object")));
    }
    if *value == ArgValue::Null {
        let first = O::KEYS.first().copied().unwrap_or_default();
        return Err(errors.class.internal(format!(
            "null is not an object (evaluating '{key}.{first}')"
        )));
    }
    O::parse_fields(value, ctx, errors)
}

/// An `ArgShape::Object` input that must be a plain object (`input must be an object`);
/// with `absent_ok`, an absent one stands for `{}`.
pub fn plain_object(input: &ArgValue, errors: Errors, absent_ok: bool) -> Result<(), ToolError> {
    if input.is_plain_object() || (absent_ok && *input == ArgValue::Undefined) {
        Ok(())
    } else {
        Err(errors.invalid("input must be an object"))
    }
}

/// The review fields of an input: its own and its options'.
macro_rules! review_fields {
    ($($part:expr),* $(,)?) => {{
        const PARTS: &[&[(&str, &str)]] = &[$($part),*];
        const ALL: [(&str, &str); $crate::tools::input::total_len(PARTS)] =
            $crate::tools::input::concat(PARTS);
        &ALL
    }};
}
pub(crate) use review_fields;

pub const fn total_len(parts: &[&[(&str, &str)]]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

pub const fn concat<const N: usize>(
    parts: &[&[(&'static str, &'static str)]],
) -> [(&'static str, &'static str); N] {
    let mut out = [("", ""); N];
    let (mut i, mut at) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[at] = parts[i][j];
            at += 1;
            j += 1;
        }
        i += 1;
    }
    out
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

/// `#[tool_input]` from outside: one field's `#[arg]` gives its parse, its schema, its place in
/// the review and the catalog entry (docs/adding-a-tool.md).
#[cfg(test)]
mod tool_input_tests {
    use super::*;
    use crate::tools::args::{boolean, integer_in, non_blank_string};
    use serde_json::json;
    #[cfg(feature = "typegen")]
    use ts_rs::TS;

    const ERROR_CLASS: ErrorClass = ErrorClass("SampleError");

    // only the TypeScript declaration names it
    #[cfg_attr(feature = "typegen", derive(TS))]
    #[cfg_attr(not(feature = "typegen"), allow(dead_code))]
    pub struct SampleOutput {}

    fn run(_: &RunContext, _: &[ArgValue]) -> Result<String, ToolError> {
        Ok(String::new())
    }

    #[tool_input(
        name = "sample",
        description = "A sample.",
        effect = Write,
        class = ERROR_CLASS,
        output = SampleOutput,
        handler = Worker(run),
        opt_in,
        shape = Object,
        sandboxed = path,
        object = plain
    )]
    #[derive(JsonSchema, Debug)]
    #[cfg_attr(feature = "typegen", derive(TS))]
    pub struct SampleInput {
        #[arg(check = non_blank_string, review)]
        #[schemars(description = "Where.")]
        pub path: String,
        #[arg(check = integer_in(1.0..=10.0), default = 3u32, schema = f64)]
        #[schemars(description = "How many.")]
        pub count: usize,
        // the field added by one edit
        #[arg(check = boolean, review = "verbosity")]
        #[schemars(description = "Loudly.")]
        pub verbose: Option<bool>,
    }

    fn parse(input: serde_json::Value) -> Result<SampleInput, ToolError> {
        let ctx = ToolContext::from_value(&ArgValue::Undefined);
        SampleInput::from_args(&[ArgValue::from(&input)], &ctx)
    }

    #[test]
    fn one_field_gives_its_parse_schema_review_and_catalog_entry() {
        let parsed = parse(json!({ "path": "a", "verbose": true })).unwrap();
        assert_eq!(
            (parsed.path.as_str(), parsed.count, parsed.verbose),
            ("a", 3, Some(true))
        );
        let checks = [
            (json!([]), "INVALID_ARGUMENT: input must be an object"),
            (
                json!({}),
                "INVALID_ARGUMENT: path must be a non-empty string",
            ),
            (
                json!({ "path": "a", "count": 11, "verbose": 1 }),
                "INVALID_ARGUMENT: count must be an integer between 1 and 10",
            ),
            (
                json!({ "path": "a", "verbose": 1 }),
                "INVALID_ARGUMENT: verbose must be a boolean",
            ),
        ];
        for (input, message) in checks {
            let error = parse(input).unwrap_err();
            assert_eq!(
                (error.class_name, error.message.as_str()),
                ("SampleError", message)
            );
        }
        assert_eq!(
            parameters_schema::<SampleInput>(),
            json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string", "description": "Where." },
                    "count": { "type": "number", "default": 3, "description": "How many." },
                    "verbose": { "type": "boolean", "description": "Loudly." }
                },
                "required": ["path"]
            })
        );
        assert_eq!(
            SampleInput::REVIEW,
            [("path", "path"), ("verbosity", "verbose")]
        );
        assert_eq!(SampleInput::KEYS, ["path", "count", "verbose"]);
        assert_eq!(SampleInput::SHAPE, ArgShape::Object(Some("path")));
        assert_eq!(
            (SampleInput::NAME, SampleInput::EFFECT, SampleInput::OPT_IN),
            ("sample", Effect::Write, true)
        );
        #[cfg(feature = "typegen")]
        assert_eq!(
            SampleInput::inline(&ts_rs::Config::default()),
            "{ path: string, count?: number, verbose?: boolean, }"
        );
    }
}
