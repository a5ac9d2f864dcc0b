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

mod schema;
mod stream;
#[cfg(test)]
mod tests;

pub use schema::openapi_schema;
pub use stream::Stream;

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
