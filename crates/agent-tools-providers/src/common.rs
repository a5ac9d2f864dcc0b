//! The common, OpenAI-shaped tool-calling types of the provider spec (`ToolDefinition`,
//! `ToolChoice`, `ToolCall`, `ChatMessage`, `QueryResult`), read from and written to JSON.
//!
//! Design decisions:
//! - `ToolCall.function.arguments` is JSON text. An empty string (what some servers send for a
//!   tool without arguments) is normalised to `"{}"`; text that is not valid JSON is kept as it is
//!   so the caller can answer the model with a parse error.
//! - `finishReason` is decided by the presence of calls, never by the provider's own reason alone:
//!   a turn that ended normally with calls is `tool_calls`, without calls `stop`. A truncated turn
//!   is `length` and an error / refusal / filter is `error`; neither ever reports runnable calls.
//! - Opaque provider data rides along in `providerData` objects, keyed by provider
//!   (`anthropic`, `openaiResponses`, `gemini`, `ollama`), on assistant messages and on calls.
//! - Text from a response is the concatenation of its text parts, so it equals the concatenation
//!   of the text deltas a stream accumulator passed through.

use serde_json::{json, Map, Value};

/// A malformed input (what the JavaScript layer throws as a `TypeError`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ProviderError(pub String);

pub type Result<T> = std::result::Result<T, ProviderError>;

pub fn invalid(message: impl Into<String>) -> ProviderError {
    ProviderError(message.into())
}

/// A mapping's output and the documented downgrades it applied (for `onWarning`).
#[derive(Debug, Clone, PartialEq)]
pub struct Mapped {
    pub value: Value,
    pub warnings: Vec<String>,
}

impl Mapped {
    pub fn plain(value: Value) -> Mapped {
        Mapped {
            value,
            warnings: Vec::new(),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({"value": self.value, "warnings": self.warnings})
    }
}

/// The providers whose wire formats we map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    OpenAIChat,
    OpenAIResponses,
    Anthropic,
    Gemini,
    Ollama,
}

impl Provider {
    pub const ALL: [Provider; 5] = [
        Provider::OpenAIChat,
        Provider::OpenAIResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Ollama,
    ];

    /// The public name (`"openai-chat"`, `"openai-responses"`, `"anthropic"`, `"gemini"`, `"ollama"`).
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAIChat => "openai-chat",
            Provider::OpenAIResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Ollama => "ollama",
        }
    }

    pub fn parse(value: &Value) -> Result<Provider> {
        let name = value.as_str().unwrap_or_default();
        Provider::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                invalid(format!(
                    "provider must be one of \"openai-chat\", \"openai-responses\", \"anthropic\", \"gemini\", \"ollama\" (got {value})"
                ))
            })
    }
}

// ---- small JSON helpers -------------------------------------------------------------------------

/// The field, treating `null` like a missing field.
pub fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

/// A string field of a provider payload (lenient: anything else reads as missing).
pub fn text_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The items of an array field of a provider payload (missing or not an array: none).
pub fn items<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn as_object<'a>(value: &'a Value, path: &str) -> Result<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| invalid(format!("{path} must be an object")))
}

fn required_str<'a>(object: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str> {
    match field(object, key) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(invalid(format!("{path}.{key} must be a string"))),
    }
}

fn optional_str(object: &Map<String, Value>, key: &str, path: &str) -> Result<Option<String>> {
    match field(object, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid(format!("{path}.{key} must be a string"))),
    }
}

/// Message content: a string (`null` / missing read as `""`).
fn content_of(object: &Map<String, Value>, path: &str) -> Result<String> {
    Ok(optional_str(object, "content", path)?.unwrap_or_default())
}

/// `providerData`: an object when present.
fn provider_data_of(object: &Map<String, Value>, path: &str) -> Result<Option<Map<String, Value>>> {
    match field(object, "providerData") {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m.clone())),
        Some(_) => Err(invalid(format!("{path}.providerData must be an object"))),
    }
}

/// Arguments as JSON text: `""` becomes `"{}"`, an object (as some servers send) is serialised.
pub fn arguments_text(value: Option<&Value>) -> String {
    match value {
        None => "{}".to_string(),
        Some(Value::String(s)) if s.trim().is_empty() => "{}".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Arguments as the object providers with object arguments need. Text that is not a JSON object
/// becomes `{}` (the call's result already told the model its arguments were unusable).
pub fn arguments_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(m)) => Value::Object(m),
        _ => Value::Object(Map::new()),
    }
}

/// A fresh id for a call the provider sent without one (`call_` + 24 hex digits).
pub fn synthetic_call_id() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("call_{}", &hex[..24])
}

// ---- tool definitions and tool choice -----------------------------------------------------------

/// One `ToolDefinition` (`{ type: "function", function: { name, description?, parameters?, strict? } }`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub description: Option<String>,
    pub parameters: Option<Value>,
    pub strict: Option<bool>,
}

impl ToolDef {
    pub fn parse_list(value: &Value, path: &str) -> Result<Vec<ToolDef>> {
        let list = value
            .as_array()
            .ok_or_else(|| invalid(format!("{path} must be an array of tool definitions")))?;
        list.iter()
            .enumerate()
            .map(|(i, tool)| ToolDef::parse(tool, &format!("{path}[{i}]")))
            .collect()
    }

    fn parse(value: &Value, path: &str) -> Result<ToolDef> {
        let tool = as_object(value, path)?;
        match field(tool, "type") {
            Some(Value::String(t)) if t == "function" => {}
            _ => {
                return Err(invalid(format!(
                    "{path}.type must be \"function\" (provider-specific tools are not mapped)"
                )))
            }
        }
        let path = format!("{path}.function");
        let function = as_object(field(tool, "function").unwrap_or(&Value::Null), &path)?;
        let parameters = match field(function, "parameters") {
            None => None,
            Some(p @ Value::Object(_)) => Some(p.clone()),
            Some(_) => return Err(invalid(format!("{path}.parameters must be an object"))),
        };
        let strict = match field(function, "strict") {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err(invalid(format!("{path}.strict must be a boolean"))),
        };
        Ok(ToolDef {
            name: required_str(function, "name", &path)?.to_string(),
            description: optional_str(function, "description", &path)?,
            parameters,
            strict,
        })
    }
}

/// Checks a tool name against a provider's rule; `rule` describes it in the message.
pub fn check_name(name: &str, ok: bool, provider: &str, rule: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(invalid(format!(
            "tool name {name:?} is not valid for {provider} (must match {rule})"
        )))
    }
}

/// `^[A-Za-z0-9_-]{1,max}$`.
pub fn is_plain_name(name: &str, max: usize) -> bool {
    !name.is_empty()
        && name.len() <= max
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// OpenAI strict mode (`strict: true`) answers 400 when an object schema is open or has optional
/// properties, or an array has no `items` (mysql-mcp#5, PackRat#2580, aichat#1049,
/// github-mcp-server#39); such a definition is refused before the request.
pub fn check_strict_schema(tool: &str, schema: &Value) -> Result<()> {
    fn walk(node: &Value, path: &str, tool: &str) -> Result<()> {
        let Some(s) = node.as_object() else {
            return Ok(());
        };
        let refuse = |why: String| {
            Err(invalid(format!(
                "tool {tool:?}: strict mode: {why} at {path}"
            )))
        };
        let types: Vec<&str> = match s.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let properties = s.get("properties").and_then(Value::as_object);
        if types.contains(&"object") || (types.is_empty() && properties.is_some()) {
            if s.get("additionalProperties") != Some(&Value::Bool(false)) {
                return refuse("an object needs additionalProperties: false".into());
            }
            let required: Vec<&str> = items(node, "required")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            for key in properties.into_iter().flat_map(|p| p.keys()) {
                if !required.contains(&key.as_str()) {
                    return refuse(format!("the property {key:?} must be listed in required"));
                }
            }
        }
        if types.contains(&"array") && !s.contains_key("items") {
            return refuse("an array needs items".into());
        }
        for (key, child) in properties.into_iter().flatten() {
            walk(child, &format!("{path}.{key}"), tool)?;
        }
        if let Some(child) = s.get("items") {
            walk(child, &format!("{path}[]"), tool)?;
        }
        for keyword in ["anyOf", "oneOf", "allOf", "prefixItems"] {
            for (i, child) in items(node, keyword).iter().enumerate() {
                walk(child, &format!("{path}.{keyword}[{i}]"), tool)?;
            }
        }
        for keyword in ["$defs", "definitions"] {
            for (key, child) in s
                .get(keyword)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                walk(child, &format!("{path}.{keyword}.{key}"), tool)?;
            }
        }
        Ok(())
    }
    walk(schema, "$", tool)
}

/// `ToolChoice`: `"auto" | "none" | "required" | { type: "function", function: { name } }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    Auto,
    None,
    Required,
    Named(String),
}

impl ToolChoice {
    pub fn parse(value: &Value, path: &str) -> Result<ToolChoice> {
        match value {
            Value::String(s) if s == "auto" => Ok(ToolChoice::Auto),
            Value::String(s) if s == "none" => Ok(ToolChoice::None),
            Value::String(s) if s == "required" => Ok(ToolChoice::Required),
            Value::Object(o) if o.get("type") == Some(&json!("function")) => {
                let function = as_object(o.get("function").unwrap_or(&Value::Null), &format!("{path}.function"))?;
                Ok(ToolChoice::Named(
                    required_str(function, "name", &format!("{path}.function"))?.to_string(),
                ))
            }
            _ => Err(invalid(format!(
                "{path} must be \"auto\", \"none\", \"required\" or {{ type: \"function\", function: {{ name }} }}"
            ))),
        }
    }

    /// Reads an optional tool choice (missing / `null` / `undefined` → `None`).
    pub fn parse_optional(value: Option<&Value>, path: &str) -> Result<Option<ToolChoice>> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(v) => ToolChoice::parse(v, path).map(Some),
        }
    }
}

// ---- calls and messages -------------------------------------------------------------------------

/// A `ToolCall`: `{ id, type: "function", function: { name, arguments }, providerData? }`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// JSON text.
    pub arguments: String,
    pub provider_data: Option<Map<String, Value>>,
}

impl ToolCall {
    pub fn new(id: String, name: String, arguments: String) -> ToolCall {
        ToolCall {
            id,
            name,
            arguments,
            provider_data: None,
        }
    }

    /// Sets `providerData[provider][key] = value`.
    pub fn with_data(mut self, provider: &str, key: &str, value: Value) -> ToolCall {
        set_data(&mut self.provider_data, provider, key, value);
        self
    }

    /// `providerData[provider][key]`.
    pub fn data(&self, provider: &str, key: &str) -> Option<&Value> {
        data_of(&self.provider_data, provider, key)
    }

    fn parse(value: &Value, path: &str) -> Result<ToolCall> {
        let call = as_object(value, path)?;
        let fpath = format!("{path}.function");
        let function = as_object(call.get("function").unwrap_or(&Value::Null), &fpath)?;
        let arguments = match field(function, "arguments") {
            None | Some(Value::String(_)) | Some(Value::Object(_)) => {
                arguments_text(field(function, "arguments"))
            }
            Some(_) => return Err(invalid(format!("{fpath}.arguments must be a JSON string"))),
        };
        Ok(ToolCall {
            id: required_str(call, "id", path)?.to_string(),
            name: required_str(function, "name", &fpath)?.to_string(),
            arguments,
            provider_data: provider_data_of(call, path)?,
        })
    }

    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        });
        if let Some(data) = &self.provider_data {
            out["providerData"] = Value::Object(data.clone());
        }
        out
    }
}

/// Sets `data[provider][key] = value`, creating the objects.
pub fn set_data(data: &mut Option<Map<String, Value>>, provider: &str, key: &str, value: Value) {
    let data = data.get_or_insert_with(Map::new);
    let entry = data
        .entry(provider.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    if let Value::Object(m) = entry {
        m.insert(key.to_string(), value);
    }
}

/// `data[provider][key]`.
pub fn data_of<'a>(
    data: &'a Option<Map<String, Value>>,
    provider: &str,
    key: &str,
) -> Option<&'a Value> {
    data.as_ref()?
        .get(provider)?
        .get(key)
        .filter(|v| !v.is_null())
}

/// A `ChatMessage`.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatMessage {
    System(String),
    User(String),
    /// An assistant message; `tool_calls` is empty for a `StandardChatMessage`.
    Assistant {
        content: String,
        tool_calls: Vec<ToolCall>,
        provider_data: Option<Map<String, Value>>,
    },
    /// A `ToolResultMessage` (`isError` is our extension: Anthropic's `is_error`, Gemini's `error`).
    Tool {
        content: String,
        tool_call_id: String,
        name: Option<String>,
        is_error: bool,
    },
}

impl ChatMessage {
    pub fn parse_list(value: &Value, path: &str) -> Result<Vec<ChatMessage>> {
        let list = value
            .as_array()
            .ok_or_else(|| invalid(format!("{path} must be an array of chat messages")))?;
        list.iter()
            .enumerate()
            .map(|(i, m)| ChatMessage::parse(m, &format!("{path}[{i}]")))
            .collect()
    }

    fn parse(value: &Value, path: &str) -> Result<ChatMessage> {
        let message = as_object(value, path)?;
        let role = required_str(message, "role", path)?;
        let content = content_of(message, path)?;
        match role {
            "system" => Ok(ChatMessage::System(content)),
            "user" => Ok(ChatMessage::User(content)),
            "assistant" => {
                let tool_calls = match field(message, "toolCalls") {
                    None => Vec::new(),
                    Some(Value::Array(calls)) => calls
                        .iter()
                        .enumerate()
                        .map(|(i, c)| ToolCall::parse(c, &format!("{path}.toolCalls[{i}]")))
                        .collect::<Result<_>>()?,
                    Some(_) => return Err(invalid(format!("{path}.toolCalls must be an array"))),
                };
                Ok(ChatMessage::Assistant {
                    content,
                    tool_calls,
                    provider_data: provider_data_of(message, path)?,
                })
            }
            "tool" => Ok(ChatMessage::Tool {
                content,
                tool_call_id: required_str(message, "toolCallId", path)?.to_string(),
                name: optional_str(message, "name", path)?,
                is_error: field(message, "isError") == Some(&Value::Bool(true)),
            }),
            other => Err(invalid(format!(
                "{path}.role must be \"system\", \"user\", \"assistant\" or \"tool\" (got {other:?})"
            ))),
        }
    }
}

/// The call a tool result answers, looked up by id over the whole history.
pub fn find_call<'a>(messages: &'a [ChatMessage], tool_call_id: &str) -> Option<&'a ToolCall> {
    messages.iter().find_map(|m| match m {
        ChatMessage::Assistant { tool_calls, .. } => {
            tool_calls.iter().find(|c| c.id == tool_call_id)
        }
        _ => None,
    })
}

// ---- request input -----------------------------------------------------------------------------

/// What every `to<Provider>Request` reads: `{ messages, tools?, toolChoice?, parallelToolCalls? }`
/// plus provider options, kept in `options`.
#[derive(Debug, Clone)]
pub struct RequestInput {
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolDef>,
    pub tool_choice: Option<ToolChoice>,
    pub parallel_tool_calls: Option<bool>,
    pub options: Map<String, Value>,
}

impl RequestInput {
    pub fn parse(value: &Value) -> Result<RequestInput> {
        let options = as_object(value, "request")?.clone();
        let messages =
            ChatMessage::parse_list(options.get("messages").unwrap_or(&Value::Null), "messages")?;
        let tools = match field(&options, "tools") {
            None => Vec::new(),
            Some(t) => ToolDef::parse_list(t, "tools")?,
        };
        let tool_choice = ToolChoice::parse_optional(options.get("toolChoice"), "toolChoice")?;
        let parallel_tool_calls = match field(&options, "parallelToolCalls") {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err(invalid("parallelToolCalls must be a boolean")),
        };
        Ok(RequestInput {
            messages,
            tools,
            tool_choice,
            parallel_tool_calls,
            options,
        })
    }

    /// A boolean option (`false` when missing).
    pub fn flag(&self, key: &str) -> Result<bool> {
        match field(&self.options, key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(invalid(format!("{key} must be a boolean"))),
        }
    }

    /// A string option.
    pub fn text_option(&self, key: &str) -> Result<Option<String>> {
        optional_str(&self.options, key, "request")
    }
}

/// The text parts of the warnings a request builder gives when it drops a tool choice or the
/// parallel switch because no tools are sent.
pub fn tools_missing_warnings(input: &RequestInput, provider: &str, warnings: &mut Vec<String>) {
    if input.tools.is_empty() && input.tool_choice.is_some() {
        warnings.push(format!(
            "{provider}: toolChoice is ignored because no tools are sent"
        ));
    }
    if input.tools.is_empty() && input.parallel_tool_calls.is_some() {
        warnings.push(format!(
            "{provider}: parallelToolCalls is ignored because no tools are sent"
        ));
    }
}

// ---- QueryResult --------------------------------------------------------------------------------

/// How a turn ended, before the presence of calls is taken into account.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// A normal end: `tool_calls` when calls are present, else `stop`.
    Natural,
    /// Cut by the token limit: `length`, calls dropped.
    Truncated,
    /// Refusal, filter, malformed call, failure: `error`, calls dropped; the provider's explanation.
    Failed(Option<String>),
}

/// Token counts (`QueryResult.usage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

impl Usage {
    pub fn from_counts(prompt: Option<u64>, completion: Option<u64>) -> Option<Usage> {
        if prompt.is_none() && completion.is_none() {
            return None;
        }
        Some(Usage {
            prompt_tokens: prompt.unwrap_or(0),
            completion_tokens: completion.unwrap_or(0),
        })
    }
}

/// A parsed model turn, turned into the `QueryResult` JSON by `to_json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub ending: Ending,
    /// The provider's own stop / finish reason.
    pub raw_finish_reason: Option<String>,
    pub usage: Option<Usage>,
    /// Message-level opaque data (thinking blocks, reasoning items, text thought signatures).
    pub provider_data: Option<Map<String, Value>>,
}

impl Turn {
    pub fn new(content: String, tool_calls: Vec<ToolCall>, ending: Ending) -> Turn {
        Turn {
            content,
            tool_calls,
            ending,
            raw_finish_reason: None,
            usage: None,
            provider_data: None,
        }
    }

    /// `{ content, toolCalls?, finishReason, rawFinishReason?, errorMessage?, usage?, message }`;
    /// `message` is the assistant `ChatMessage` to append to the history.
    pub fn to_json(&self) -> Value {
        let (finish, calls, error) = match &self.ending {
            Ending::Natural if !self.tool_calls.is_empty() => ("tool_calls", true, None),
            Ending::Natural => ("stop", false, None),
            Ending::Truncated => ("length", false, None),
            Ending::Failed(message) => ("error", false, message.clone()),
        };
        let calls: Vec<Value> = if calls {
            self.tool_calls.iter().map(ToolCall::to_json).collect()
        } else {
            Vec::new()
        };
        let mut result = Map::new();
        result.insert("content".into(), json!(self.content));
        if !calls.is_empty() {
            result.insert("toolCalls".into(), json!(calls));
        }
        result.insert("finishReason".into(), json!(finish));
        if let Some(raw) = &self.raw_finish_reason {
            result.insert("rawFinishReason".into(), json!(raw));
        }
        if let Some(message) = error {
            result.insert("errorMessage".into(), json!(message));
        }
        if let Some(u) = self.usage {
            result.insert(
                "usage".into(),
                json!({
                    "promptTokens": u.prompt_tokens,
                    "completionTokens": u.completion_tokens,
                    "totalTokens": u.prompt_tokens + u.completion_tokens,
                }),
            );
        }
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        message.insert("content".into(), json!(self.content));
        if !calls.is_empty() {
            message.insert("toolCalls".into(), json!(calls));
        }
        if let Some(data) = &self.provider_data {
            message.insert("providerData".into(), Value::Object(data.clone()));
        }
        result.insert("message".into(), Value::Object(message));
        Value::Object(result)
    }
}

/// A non-negative integer field of a provider payload.
pub fn count(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_four_tool_choice_forms() {
        assert_eq!(ToolChoice::parse(&json!("auto"), "c"), Ok(ToolChoice::Auto));
        assert_eq!(ToolChoice::parse(&json!("none"), "c"), Ok(ToolChoice::None));
        assert_eq!(
            ToolChoice::parse(&json!("required"), "c"),
            Ok(ToolChoice::Required)
        );
        assert_eq!(
            ToolChoice::parse(&json!({"type": "function", "function": {"name": "f"}}), "c"),
            Ok(ToolChoice::Named("f".into()))
        );
        let err = ToolChoice::parse(&json!("any"), "toolChoice").unwrap_err();
        assert!(err.0.starts_with("toolChoice must be"), "{err}");
    }

    #[test]
    fn parses_messages_with_clear_errors() {
        let messages = ChatMessage::parse_list(
            &json!([
                {"role": "system", "content": "s"},
                {"role": "user", "content": "u"},
                {"role": "assistant", "content": null, "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}
                ]},
                {"role": "tool", "content": "r", "toolCallId": "c1", "name": "f", "isError": true},
                {"role": "assistant", "content": "done"}
            ]),
            "messages",
        )
        .unwrap();
        assert_eq!(messages[0], ChatMessage::System("s".into()));
        match &messages[2] {
            ChatMessage::Assistant {
                content,
                tool_calls,
                ..
            } => {
                assert_eq!(content, "");
                assert_eq!(tool_calls[0].arguments, "{}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            messages[3],
            ChatMessage::Tool {
                content: "r".into(),
                tool_call_id: "c1".into(),
                name: Some("f".into()),
                is_error: true
            }
        );
        let err = ChatMessage::parse_list(&json!([{"role": "tool", "content": "x"}]), "messages")
            .unwrap_err();
        assert_eq!(err.0, "messages[0].toolCallId must be a string");
        let err = ChatMessage::parse_list(&json!([{"role": "bot", "content": "x"}]), "messages")
            .unwrap_err();
        assert!(err.0.contains("got \"bot\""));
        let err = ChatMessage::parse_list(&json!([{"role": "user", "content": [1]}]), "messages")
            .unwrap_err();
        assert_eq!(err.0, "messages[0].content must be a string");
    }

    #[test]
    fn tool_definitions_need_the_function_shape() {
        let tools = ToolDef::parse_list(
            &json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}, "strict": true}}]),
            "tools",
        )
        .unwrap();
        assert_eq!(tools[0].name, "f");
        assert_eq!(tools[0].strict, Some(true));
        let err = ToolDef::parse_list(&json!([{"type": "web_search"}]), "tools").unwrap_err();
        assert!(err.0.starts_with("tools[0].type must be \"function\""));
        let err = ToolDef::parse_list(&json!([{"type": "function", "function": {}}]), "tools")
            .unwrap_err();
        assert_eq!(err.0, "tools[0].function.name must be a string");
    }

    #[test]
    fn finish_reason_follows_the_presence_of_calls() {
        let call = ToolCall::new("c".into(), "f".into(), "{}".into());
        let with_calls = Turn::new(String::new(), vec![call.clone()], Ending::Natural).to_json();
        assert_eq!(with_calls["finishReason"], "tool_calls");
        assert_eq!(with_calls["message"]["toolCalls"][0]["id"], "c");
        let without = Turn::new("hi".into(), vec![], Ending::Natural).to_json();
        assert_eq!(without["finishReason"], "stop");
        assert!(without.get("toolCalls").is_none());
        let truncated = Turn::new(String::new(), vec![call.clone()], Ending::Truncated).to_json();
        assert_eq!(truncated["finishReason"], "length");
        assert!(truncated.get("toolCalls").is_none());
        assert!(truncated["message"].get("toolCalls").is_none());
        let failed =
            Turn::new(String::new(), vec![call], Ending::Failed(Some("no".into()))).to_json();
        assert_eq!(failed["finishReason"], "error");
        assert_eq!(failed["errorMessage"], "no");
        assert!(failed.get("toolCalls").is_none());
    }

    #[test]
    fn strict_schemas_must_be_closed_and_complete() {
        let strict = json!({"type": "object", "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"], "additionalProperties": false}}
        }, "required": ["a", "b"], "additionalProperties": false});
        assert_eq!(check_strict_schema("t", &strict), Ok(()));
        let mut missing = strict.clone();
        missing["required"] = json!(["b"]);
        assert_eq!(
            check_strict_schema("t", &missing).unwrap_err().0,
            "tool \"t\": strict mode: the property \"a\" must be listed in required at $"
        );
        let mut open = strict.clone();
        open["properties"]["b"]["items"]
            .as_object_mut()
            .unwrap()
            .remove("additionalProperties");
        assert!(check_strict_schema("t", &open)
            .unwrap_err()
            .0
            .ends_with("an object needs additionalProperties: false at $.b[]"));
        let mut no_items = strict.clone();
        no_items["properties"]["b"]
            .as_object_mut()
            .unwrap()
            .remove("items");
        assert!(check_strict_schema("t", &no_items)
            .unwrap_err()
            .0
            .ends_with("an array needs items at $.b"));
    }

    #[test]
    fn argument_normalisation() {
        assert_eq!(arguments_text(Some(&json!(""))), "{}");
        assert_eq!(arguments_text(Some(&json!({"a": 1}))), "{\"a\":1}");
        assert_eq!(arguments_text(Some(&json!("{\"a\""))), "{\"a\"");
        assert_eq!(arguments_object("{\"a\":1}"), json!({"a": 1}));
        assert_eq!(arguments_object("[1]"), json!({}));
        assert_eq!(arguments_object("{broken"), json!({}));
        let id = synthetic_call_id();
        assert!(id.starts_with("call_") && id.len() == 29, "{id}");
    }
}
