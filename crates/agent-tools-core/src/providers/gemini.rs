//! Google Gemini API and Vertex AI, in the shapes of `@google/genai`
//! (`generateContent({ model, contents, config: { systemInstruction, tools, toolConfig } })`).
//!
//! - Tools: one `Tool` with every `functionDeclarations[]` entry. `parameters` is the OpenAPI 3.0
//!   subset Gemini accepts, converted from JSON Schema (`schema: "openapi"`, the default: types
//!   upper-case, `$ref` inlined, `anyOf`/`oneOf` → `anyOf`, type arrays and `null` members →
//!   `nullable`, `const`/`enum` → string `enum`, `allOf` merged, integer limits as strings, keys
//!   Gemini rejects such as `additionalProperties`, `$schema`, `exclusiveMinimum`, `propertyNames`,
//!   `default`, `title` dropped, unsupported string formats moved into the description; an
//!   object without properties at the root means no `parameters`). `schema: "jsonSchema"` sends
//!   the schema unchanged as `parametersJsonSchema` instead.
//! - Tool choice: `toolConfig.functionCallingConfig` — auto → `AUTO`, required → `ANY`, named →
//!   `ANY` + `allowedFunctionNames: [name]`, none → `NONE`. There is no parallel switch.
//! - Calls: `functionCall.id` is often absent; we then invent one, mark it
//!   `providerData.gemini.syntheticId`, and never send it back. Each part's `thoughtSignature`
//!   rides along (`providerData.gemini.thoughtSignature` on calls and on the message for a text
//!   part) and is echoed unchanged. With `thoughtSignatureForForeignCalls` (e.g.
//!   `"skip_thought_signature_validator"`), a replayed assistant turn none of whose calls has a
//!   signature (calls made by another provider) gets that value on its first call.
//! - Results: the tool messages after an assistant turn become one `user` content of
//!   `functionResponse` parts, one per call; `name` comes from the message or its call;
//!   `response` is the content's JSON object, else `{ output: text }` (`{ error: … }` when
//!   `isError`).
//! - `finishReason` is `STOP` even with calls: calls decide. `MAX_TOKENS` → `length`; every other
//!   reason (`SAFETY`, `MALFORMED_FUNCTION_CALL`, …) → `error`.
//!
//! Streaming: calls arrive as whole parts; Vertex's `streamFunctionCallArguments`
//! (`partialArgs[{ jsonPath, stringValue | numberValue | boolValue | nullValue, willContinue }]`)
//! is assembled too.

use serde_json::{json, Map, Value};

use super::common::{
    arguments_object, check_name, count, find_call, invalid, items, set_data, synthetic_call_id,
    text_of, tools_missing_warnings, ChatMessage, Ending, Mapped, RequestInput, Result, ToolCall,
    ToolChoice, ToolDef, Turn, Usage,
};
use super::stream::StreamAccumulator;

const PROVIDER: &str = "Gemini";
/// The `providerData` key.
pub const DATA: &str = "gemini";

/// How tool parameters are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaMode {
    /// `parameters`: the OpenAPI subset (converted).
    #[default]
    OpenApi,
    /// `parametersJsonSchema`: the JSON Schema unchanged.
    JsonSchema,
}

impl SchemaMode {
    pub fn parse(input: &Value) -> Result<SchemaMode> {
        match input.get("schema") {
            None | Some(Value::Null) => Ok(SchemaMode::OpenApi),
            Some(v) if v == "openapi" => Ok(SchemaMode::OpenApi),
            Some(v) if v == "jsonSchema" => Ok(SchemaMode::JsonSchema),
            Some(v) => Err(invalid(format!(
                "schema must be \"openapi\" or \"jsonSchema\" (got {v})"
            ))),
        }
    }
}

/// `^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$`.
fn is_gemini_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && name.len() <= 64
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// `Tool[]` (one tool holding every declaration; none when there are no tools).
pub fn to_tools(tools: &[ToolDef], mode: SchemaMode) -> Result<Value> {
    let declarations = tools
        .iter()
        .map(|tool| {
            check_name(
                &tool.name,
                is_gemini_name(&tool.name),
                PROVIDER,
                "^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$",
            )?;
            let mut out = Map::new();
            out.insert("name".into(), json!(tool.name));
            if let Some(d) = &tool.description {
                out.insert("description".into(), json!(d));
            }
            match (mode, &tool.parameters) {
                (_, None) => {}
                (SchemaMode::JsonSchema, Some(p)) => {
                    out.insert("parametersJsonSchema".into(), p.clone());
                }
                (SchemaMode::OpenApi, Some(p)) => {
                    if let Some(schema) = openapi_schema(p) {
                        out.insert("parameters".into(), schema);
                    }
                }
            }
            Ok(Value::Object(out))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(if declarations.is_empty() {
        json!([])
    } else {
        json!([{"functionDeclarations": declarations}])
    })
}

/// `ToolConfig`.
pub fn to_tool_config(choice: &ToolChoice) -> Value {
    let config = match choice {
        ToolChoice::Auto => json!({"mode": "AUTO"}),
        ToolChoice::None => json!({"mode": "NONE"}),
        ToolChoice::Required => json!({"mode": "ANY"}),
        ToolChoice::Named(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
    };
    json!({"functionCallingConfig": config})
}

// ---- JSON Schema → Gemini's OpenAPI subset ----------------------------------------------------

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

// ---- history ----------------------------------------------------------------------------------

/// Options of the history mapping.
#[derive(Debug, Clone, Default)]
pub struct HistoryOptions {
    /// Put on the first call of an assistant turn whose calls carry no signature.
    pub foreign_call_signature: Option<String>,
}

/// `(systemInstruction text, Content[])`.
pub fn to_contents(
    messages: &[ChatMessage],
    options: &HistoryOptions,
) -> Result<(Option<String>, Value)> {
    let mut system = Vec::new();
    let mut contents: Vec<Value> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        match message {
            ChatMessage::System(text) => system.push(text.as_str()),
            ChatMessage::User(text) => {
                contents.push(json!({"role": "user", "parts": [{"text": text}]}))
            }
            ChatMessage::Assistant {
                content,
                tool_calls,
                provider_data,
            } => {
                let mut parts = Vec::new();
                let signature = super::common::data_of(provider_data, DATA, "thoughtSignature");
                if !content.is_empty() || signature.is_some() || tool_calls.is_empty() {
                    let mut part = json!({"text": content});
                    if let Some(sig) = signature {
                        part["thoughtSignature"] = sig.clone();
                    }
                    parts.push(part);
                }
                let unsigned = tool_calls
                    .iter()
                    .all(|c| c.data(DATA, "thoughtSignature").is_none());
                for (i, call) in tool_calls.iter().enumerate() {
                    let mut function_call =
                        json!({"name": call.name, "args": arguments_object(&call.arguments)});
                    if call.data(DATA, "syntheticId") != Some(&json!(true)) {
                        function_call["id"] = json!(call.id);
                    }
                    let mut part = json!({"functionCall": function_call});
                    if let Some(sig) = call.data(DATA, "thoughtSignature") {
                        part["thoughtSignature"] = sig.clone();
                    } else if let (true, 0, Some(sentinel)) =
                        (unsigned, i, &options.foreign_call_signature)
                    {
                        part["thoughtSignature"] = json!(sentinel);
                    }
                    parts.push(part);
                }
                contents.push(json!({"role": "model", "parts": parts}));
            }
            ChatMessage::Tool {
                content,
                tool_call_id,
                name,
                is_error,
            } => {
                let call = find_call(messages, tool_call_id);
                let name = name.clone().or_else(|| call.map(|c| c.name.clone())).ok_or_else(|| {
                    invalid(format!(
                        "messages[{index}]: Gemini needs the function name of the tool result {tool_call_id:?} (set `name`, or keep its call in the history)"
                    ))
                })?;
                let body = match serde_json::from_str::<Value>(content) {
                    Ok(object @ Value::Object(_)) if !is_error => object,
                    Ok(object @ Value::Object(_)) => json!({"error": object}),
                    _ if *is_error => json!({"error": content}),
                    _ => json!({"output": content}),
                };
                let mut response = json!({"name": name, "response": body});
                if call.is_none_or(|c| c.data(DATA, "syntheticId") != Some(&json!(true))) {
                    response["id"] = json!(tool_call_id);
                }
                let part = json!({"functionResponse": response});
                let previous_is_results = contents.last().is_some_and(|c| {
                    c["role"] == "user"
                        && items(c, "parts")
                            .iter()
                            .all(|p| p.get("functionResponse").is_some())
                }) && matches!(
                    index.checked_sub(1).map(|i| &messages[i]),
                    Some(ChatMessage::Tool { .. })
                );
                match contents.last_mut() {
                    Some(last) if previous_is_results => {
                        if let Some(parts) = last["parts"].as_array_mut() {
                            parts.push(part);
                        }
                    }
                    _ => contents.push(json!({"role": "user", "parts": [part]})),
                }
            }
        }
    }
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    Ok((system, Value::Array(contents)))
}

/// `{ contents, config: { systemInstruction?, tools?, toolConfig? } }` for `models.generateContent`
/// (add `model`; merge your own `config` fields). Options: `schema` (`"openapi"` | `"jsonSchema"`),
/// `thoughtSignatureForForeignCalls`.
pub fn to_request(input: &RequestInput) -> Result<Mapped> {
    let mut warnings = Vec::new();
    let options = HistoryOptions {
        foreign_call_signature: input.text_option("thoughtSignatureForForeignCalls")?,
    };
    let (system, contents) = to_contents(&input.messages, &options)?;
    let mut config = Map::new();
    if let Some(system) = system {
        config.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    if !input.tools.is_empty() {
        config.insert(
            "tools".into(),
            to_tools(
                &input.tools,
                SchemaMode::parse(&Value::Object(input.options.clone()))?,
            )?,
        );
        if let Some(choice) = &input.tool_choice {
            config.insert("toolConfig".into(), to_tool_config(choice));
        }
        if input.parallel_tool_calls == Some(false) {
            warnings.push("Gemini: there is no switch to turn parallel calls off; parallelToolCalls: false is ignored".into());
        }
    }
    tools_missing_warnings(input, PROVIDER, &mut warnings);
    let mut request = json!({"contents": contents});
    if !config.is_empty() {
        request["config"] = Value::Object(config);
    }
    Ok(Mapped {
        value: request,
        warnings,
    })
}

// ---- responses --------------------------------------------------------------------------------

/// A `GenerateContentResponse` → turn (the first candidate).
pub fn from_response(response: &Value) -> Result<Turn> {
    if !response.is_object() {
        return Err(invalid("the response must be an object"));
    }
    let usage = &response["usageMetadata"];
    let completion = [
        count(usage, "candidatesTokenCount"),
        count(usage, "thoughtsTokenCount"),
    ];
    let completion = completion
        .iter()
        .any(Option::is_some)
        .then(|| completion.iter().flatten().sum());
    let usage = Usage::from_counts(count(usage, "promptTokenCount"), completion);
    let Some(candidate) = items(response, "candidates").first() else {
        let reason = text_of(&response["promptFeedback"], "blockReason");
        let message = match reason {
            Some(r) => format!("the prompt was blocked ({r})"),
            None => "the response has no candidates".to_string(),
        };
        let mut turn = Turn::new(String::new(), Vec::new(), Ending::Failed(Some(message)));
        turn.raw_finish_reason = reason.map(str::to_string);
        turn.usage = usage;
        return Ok(turn);
    };
    let mut content = String::new();
    let mut calls = Vec::new();
    let mut text_signature = None;
    for part in items(&candidate["content"], "parts") {
        let signature = part.get("thoughtSignature").filter(|s| s.is_string());
        if let Some(call) = part.get("functionCall").filter(|c| c.is_object()) {
            let args = match call.get("args") {
                Some(a @ Value::Object(_)) => a.to_string(),
                _ => "{}".to_string(),
            };
            let name = text_of(call, "name").unwrap_or_default().to_string();
            let mut tool_call = match text_of(call, "id").filter(|id| !id.is_empty()) {
                Some(id) => ToolCall::new(id.to_string(), name, args),
                None => ToolCall::new(synthetic_call_id(), name, args).with_data(
                    DATA,
                    "syntheticId",
                    json!(true),
                ),
            };
            if let Some(sig) = signature {
                tool_call = tool_call.with_data(DATA, "thoughtSignature", sig.clone());
            }
            calls.push(tool_call);
            continue;
        }
        if part.get("thought") != Some(&json!(true)) {
            if let Some(text) = text_of(part, "text") {
                content.push_str(text);
            }
        }
        if let Some(sig) = signature {
            text_signature = Some(sig.clone());
        }
    }
    let reason = text_of(candidate, "finishReason");
    let ending = match reason {
        None | Some("STOP" | "FINISH_REASON_UNSPECIFIED") => Ending::Natural,
        Some("MAX_TOKENS") => Ending::Truncated,
        Some(other) => Ending::Failed(Some(
            text_of(candidate, "finishMessage")
                .map(str::to_string)
                .unwrap_or_else(|| format!("the model stopped with {other}")),
        )),
    };
    let mut turn = Turn::new(content, calls, ending);
    turn.raw_finish_reason = reason.map(str::to_string);
    turn.usage = usage;
    if let Some(sig) = text_signature {
        let mut data = None;
        set_data(&mut data, DATA, "thoughtSignature", sig);
        turn.provider_data = data;
    }
    Ok(turn)
}

/// A call assembled from `partialArgs` fragments.
#[derive(Debug, Default, Clone)]
struct PartialCall {
    name: Option<String>,
    id: Option<String>,
    args: Value,
    signature: Option<Value>,
    /// The path of a string value that continues in the next fragment.
    open_string: Option<String>,
}

impl PartialCall {
    fn part(&self) -> Value {
        let mut call = json!({"name": self.name.clone().unwrap_or_default(), "args": self.args});
        if let Some(id) = &self.id {
            call["id"] = json!(id);
        }
        let mut part = json!({"functionCall": call});
        if let Some(sig) = &self.signature {
            part["thoughtSignature"] = sig.clone();
        }
        part
    }
}

/// One step of a `partialArgs` JSON path.
enum Step {
    Key(String),
    Index(usize),
}

/// `$.a.b[0]`, `$['a']["b"]` → steps (`None` for a path we cannot read).
fn path_steps(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$').unwrap_or(path);
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            steps.push(Step::Key(r[..end].to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let inner = &r[..end];
            let quoted = inner
                .strip_prefix('\'')
                .and_then(|i| i.strip_suffix('\''))
                .or_else(|| inner.strip_prefix('"').and_then(|i| i.strip_suffix('"')));
            match quoted {
                Some(key) => steps.push(Step::Key(key.to_string())),
                None => steps.push(Step::Index(inner.parse().ok()?)),
            }
            rest = &r[end + 1..];
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            steps.push(Step::Key(rest[..end].to_string()));
            rest = &rest[end..];
        }
    }
    Some(steps)
}

/// Sets (or, for a continued string, appends to) the value at `steps`.
fn set_at(root: &mut Value, steps: &[Step], value: Value, append: bool) {
    let Some((last, parents)) = steps.split_last() else {
        *root = value;
        return;
    };
    let mut node = root;
    for (i, step) in parents.iter().enumerate() {
        let next_is_index = matches!(steps[i + 1], Step::Index(_));
        let empty = || if next_is_index { json!([]) } else { json!({}) };
        node = match step {
            Step::Key(k) => {
                if !node.is_object() {
                    *node = json!({});
                }
                let map = node.as_object_mut().expect("object");
                let child = map.entry(k.clone()).or_insert_with(empty);
                if child.is_null() {
                    *child = empty();
                }
                child
            }
            Step::Index(i) => {
                if !node.is_array() {
                    *node = json!([]);
                }
                let list = node.as_array_mut().expect("array");
                if list.len() <= *i {
                    list.resize(*i + 1, Value::Null);
                }
                if list[*i].is_null() {
                    list[*i] = empty();
                }
                &mut list[*i]
            }
        };
    }
    let slot = match last {
        Step::Key(k) => {
            if !node.is_object() {
                *node = json!({});
            }
            node.as_object_mut()
                .expect("object")
                .entry(k.clone())
                .or_insert(Value::Null)
        }
        Step::Index(i) => {
            if !node.is_array() {
                *node = json!([]);
            }
            let list = node.as_array_mut().expect("array");
            if list.len() <= *i {
                list.resize(*i + 1, Value::Null);
            }
            &mut list[*i]
        }
    };
    match (append, slot.as_str(), value.as_str()) {
        (true, Some(old), Some(more)) => *slot = json!(format!("{old}{more}")),
        _ => *slot = value,
    }
}

/// Accumulates `GenerateContentResponse` chunks of `generateContentStream`.
#[derive(Debug, Default)]
pub struct Stream {
    parts: Vec<Value>,
    pending: Option<PartialCall>,
    finish_reason: Option<Value>,
    finish_message: Option<Value>,
    usage: Option<Value>,
    prompt_feedback: Option<Value>,
    seen_candidate: bool,
}

impl Stream {
    pub fn new() -> Stream {
        Stream::default()
    }

    fn close_pending(&mut self) {
        if let Some(pending) = self.pending.take() {
            self.parts.push(pending.part());
        }
    }

    /// A `functionCall` part that is a fragment of a call streamed with `partialArgs`.
    fn partial(&mut self, part: &Value) {
        let call = &part["functionCall"];
        if let Some(pending) = &self.pending {
            let new_name = text_of(call, "name")
                .is_some_and(|n| pending.name.as_deref().is_some_and(|p| p != n));
            if new_name
                || call.get("args").is_some_and(Value::is_object)
                    && pending.args.as_object().is_some_and(|a| !a.is_empty())
            {
                self.close_pending();
            }
        }
        let pending = self.pending.get_or_insert_with(|| PartialCall {
            args: json!({}),
            ..Default::default()
        });
        if let Some(name) = text_of(call, "name") {
            pending.name = Some(name.to_string());
        }
        if let Some(id) = text_of(call, "id") {
            pending.id = Some(id.to_string());
        }
        if let Some(sig) = part.get("thoughtSignature").filter(|s| s.is_string()) {
            pending.signature = Some(sig.clone());
        }
        if let Some(Value::Object(args)) = call.get("args") {
            for (k, v) in args {
                pending.args[k] = v.clone();
            }
        }
        for fragment in items(call, "partialArgs") {
            let Some(path) = text_of(fragment, "jsonPath") else {
                continue;
            };
            let value = if let Some(s) = fragment.get("stringValue").filter(|v| v.is_string()) {
                s.clone()
            } else if let Some(n) = fragment.get("numberValue").filter(|v| v.is_number()) {
                n.clone()
            } else if let Some(b) = fragment.get("boolValue").filter(|v| v.is_boolean()) {
                b.clone()
            } else {
                Value::Null
            };
            let append = pending.open_string.as_deref() == Some(path) && value.is_string();
            if let Some(steps) = path_steps(path) {
                set_at(&mut pending.args, &steps, value, append);
            }
            pending.open_string =
                (fragment.get("willContinue") == Some(&json!(true))).then(|| path.to_string());
        }
        if call.get("willContinue") != Some(&json!(true)) {
            self.close_pending();
        }
    }
}

impl StreamAccumulator for Stream {
    fn push(&mut self, chunk: &Value) -> Result<String> {
        if !chunk.is_object() {
            return Err(invalid("a generateContent chunk must be an object"));
        }
        if let Some(u) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
            self.usage = Some(u.clone());
        }
        if let Some(f) = chunk.get("promptFeedback").filter(|f| f.is_object()) {
            self.prompt_feedback = Some(f.clone());
        }
        let Some(candidate) = items(chunk, "candidates").first() else {
            return Ok(String::new());
        };
        self.seen_candidate = true;
        let mut text = String::new();
        for part in items(&candidate["content"], "parts") {
            let call = &part["functionCall"];
            let fragment = call.is_object()
                && (call.get("partialArgs").is_some()
                    || call.get("willContinue") == Some(&json!(true))
                    || self.pending.is_some());
            if fragment {
                self.partial(part);
                continue;
            }
            if part.get("thought") != Some(&json!(true)) && !call.is_object() {
                if let Some(t) = text_of(part, "text") {
                    text.push_str(t);
                }
            }
            self.parts.push(part.clone());
        }
        if let Some(reason) = candidate.get("finishReason").filter(|r| r.is_string()) {
            self.finish_reason = Some(reason.clone());
        }
        if let Some(message) = candidate.get("finishMessage").filter(|m| m.is_string()) {
            self.finish_message = Some(message.clone());
        }
        Ok(text)
    }

    fn response(&self) -> Value {
        let mut parts = self.parts.clone();
        if let Some(pending) = &self.pending {
            parts.push(pending.part());
        }
        let mut response = json!({"candidates": []});
        if self.seen_candidate {
            let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
            if let Some(r) = &self.finish_reason {
                candidate["finishReason"] = r.clone();
            }
            if let Some(m) = &self.finish_message {
                candidate["finishMessage"] = m.clone();
            }
            response["candidates"] = json!([candidate]);
        }
        if let Some(u) = &self.usage {
            response["usageMetadata"] = u.clone();
        }
        if let Some(f) = &self.prompt_feedback {
            response["promptFeedback"] = f.clone();
        }
        response
    }

    fn finish(&self) -> Result<Turn> {
        from_response(&self.response())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::testing::{fixture, result_of, stream_result};

    #[test]
    fn maps_history_with_signatures_names_and_synthetic_ids() {
        let f = fixture("gemini_request.json");
        let mapped = to_request(&RequestInput::parse(&f["input"]).unwrap()).unwrap();
        assert_eq!(mapped.value, f["expected"]);
        assert_eq!(mapped.warnings.len(), 1, "{:?}", mapped.warnings);
    }

    #[test]
    fn tool_config_forms() {
        assert_eq!(
            to_tool_config(&ToolChoice::Auto),
            json!({"functionCallingConfig": {"mode": "AUTO"}})
        );
        assert_eq!(
            to_tool_config(&ToolChoice::None),
            json!({"functionCallingConfig": {"mode": "NONE"}})
        );
        assert_eq!(
            to_tool_config(&ToolChoice::Required),
            json!({"functionCallingConfig": {"mode": "ANY"}})
        );
        assert_eq!(
            to_tool_config(&ToolChoice::Named("f".into())),
            json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}})
        );
    }

    #[test]
    fn schema_subset_conversion() {
        // ax#293, 5ire#42 (additionalProperties), openswarm#24, zed#44875, forgecode#3426 ($schema,
        // exclusiveMinimum, const, propertyNames), zed#53919 (type arrays), OmniRoute#760 (enum values).
        let f = fixture("gemini_schema.json");
        assert_eq!(openapi_schema(&f["input"]), Some(f["expected"].clone()));
    }

    #[test]
    fn empty_object_schemas_send_no_parameters_and_json_schema_mode_passes_through() {
        let tools = ToolDef::parse_list(
            &json!([{"type": "function", "function": {"name": "git_status", "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": false}}}]),
            "tools",
        )
        .unwrap();
        assert_eq!(
            to_tools(&tools, SchemaMode::OpenApi).unwrap(),
            json!([{"functionDeclarations": [{"name": "git_status"}]}])
        );
        assert_eq!(
            to_tools(&tools, SchemaMode::JsonSchema).unwrap()[0]["functionDeclarations"][0]
                ["parametersJsonSchema"],
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
    }

    #[test]
    fn recursive_refs_stop_and_names_are_checked() {
        let schema = json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/node"}}, "$defs": {"node": {
            "type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}
        }}});
        let out = openapi_schema(&schema).unwrap();
        assert_eq!(
            out["properties"]["node"]["properties"]["children"]["items"],
            json!({"type": "OBJECT"})
        );
        let tools = ToolDef::parse_list(
            &json!([{"type": "function", "function": {"name": "9lives"}}]),
            "tools",
        )
        .unwrap();
        assert!(to_tools(&tools, SchemaMode::OpenApi)
            .unwrap_err()
            .0
            .contains("not valid for Gemini"));
        assert!(is_gemini_name("mcp.server:tool-1"));
        // generative-ai-js#320: `type: "enum"` is not a type Gemini accepts.
        assert_eq!(
            openapi_schema(&json!({"type": "object", "properties": {"unit": {"type": "enum", "enum": ["c", "f"]}}})).unwrap()["properties"]["unit"],
            json!({"type": "STRING", "enum": ["c", "f"]})
        );
    }

    #[test]
    fn parallel_calls_with_and_without_streaming() {
        let f = fixture("gemini_parallel.json");
        assert_eq!(result_of(from_response(&f["response"])), f["expected"]);
        let (text, result) = stream_result(Stream::new(), &f["stream"]);
        assert_eq!(result, f["expected"]);
        assert_eq!(text, f["expected"]["content"]);
    }

    #[test]
    fn finish_reasons() {
        let ended = |reason: &str| {
            result_of(from_response(
                &json!({"candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "f", "args": {}}}
            ]}, "finishReason": reason, "finishMessage": "Malformed function call: print(x"}]}),
            ))
        };
        // ailoy#334: STOP with calls → tool_calls.
        assert_eq!(ended("STOP")["finishReason"], "tool_calls");
        assert_eq!(ended("MAX_TOKENS")["finishReason"], "length");
        // hermes-agent#83886: MALFORMED_FUNCTION_CALL fails the turn.
        let malformed = ended("MALFORMED_FUNCTION_CALL");
        assert_eq!(malformed["finishReason"], "error");
        assert_eq!(
            malformed["errorMessage"],
            "Malformed function call: print(x"
        );
        assert!(malformed.get("toolCalls").is_none());
        let blocked = result_of(from_response(
            &json!({"promptFeedback": {"blockReason": "SAFETY"}}),
        ));
        assert_eq!(blocked["finishReason"], "error");
        assert_eq!(blocked["errorMessage"], "the prompt was blocked (SAFETY)");
    }

    #[test]
    fn synthetic_ids_are_not_sent_back_and_results_need_names() {
        let turn = from_response(&json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"a": 1}}}]}, "finishReason": "STOP"}]})).unwrap();
        let call = turn.tool_calls[0].clone();
        assert_eq!(call.data(DATA, "syntheticId"), Some(&json!(true)));
        let messages = vec![
            ChatMessage::Assistant {
                content: String::new(),
                tool_calls: vec![call.clone()],
                provider_data: None,
            },
            ChatMessage::Tool {
                content: "ok".into(),
                tool_call_id: call.id.clone(),
                name: None,
                is_error: false,
            },
        ];
        let (_, contents) = to_contents(&messages, &HistoryOptions::default()).unwrap();
        assert_eq!(
            contents[0]["parts"][0],
            json!({"functionCall": {"name": "f", "args": {"a": 1}}})
        );
        assert_eq!(
            contents[1]["parts"][0],
            json!({"functionResponse": {"name": "f", "response": {"output": "ok"}}})
        );
        let orphan = vec![ChatMessage::Tool {
            content: "ok".into(),
            tool_call_id: "x".into(),
            name: None,
            is_error: false,
        }];
        assert!(to_contents(&orphan, &HistoryOptions::default())
            .unwrap_err()
            .0
            .contains("needs the function name"));
    }

    #[test]
    fn foreign_calls_get_the_sentinel_signature_when_asked() {
        // dify-official-plugins#2088: "Function call is missing a thought_signature".
        let messages = ChatMessage::parse_list(
            &json!([{"role": "assistant", "content": "", "toolCalls": [
                {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "call_b", "type": "function", "function": {"name": "g", "arguments": "{}"}}
            ]}]),
            "messages",
        )
        .unwrap();
        let options = HistoryOptions {
            foreign_call_signature: Some("skip_thought_signature_validator".into()),
        };
        let (_, contents) = to_contents(&messages, &options).unwrap();
        assert_eq!(
            contents[0]["parts"][0]["thoughtSignature"],
            "skip_thought_signature_validator"
        );
        assert!(contents[0]["parts"][1].get("thoughtSignature").is_none());
        let (_, contents) = to_contents(&messages, &HistoryOptions::default()).unwrap();
        assert!(contents[0]["parts"][0].get("thoughtSignature").is_none());
    }

    #[test]
    fn streamed_partial_arguments_are_assembled() {
        // Vertex + Gemini 3 with streamFunctionCallArguments (AI SDK google-json-accumulator).
        let chunks = json!([
            {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "write", "id": "c1", "willContinue": true}, "thoughtSignature": "sig"}]}}]},
            {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"partialArgs": [
                {"jsonPath": "$.path", "stringValue": "a.txt"},
                {"jsonPath": "$.body", "stringValue": "Hello, ", "willContinue": true}
            ], "willContinue": true}}]}}]},
            {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"partialArgs": [
                {"jsonPath": "$.body", "stringValue": "world"},
                {"jsonPath": "$.opts.tags[1]", "stringValue": "b"},
                {"jsonPath": "$.opts.count", "numberValue": 2},
                {"jsonPath": "$['opts']['force']", "boolValue": true}
            ], "willContinue": true}}]}}]},
            {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {}}]}, "finishReason": "STOP"}]}
        ]);
        let (_, result) = stream_result(Stream::new(), &chunks);
        assert_eq!(result["finishReason"], "tool_calls");
        let call = &result["toolCalls"][0];
        assert_eq!(call["id"], "c1");
        assert_eq!(call["function"]["name"], "write");
        let args: Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(
            args,
            json!({"path": "a.txt", "body": "Hello, world", "opts": {"tags": [null, "b"], "count": 2, "force": true}})
        );
        assert_eq!(call["providerData"]["gemini"]["thoughtSignature"], "sig");
    }
}
