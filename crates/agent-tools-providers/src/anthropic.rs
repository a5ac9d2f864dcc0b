//! Anthropic Messages.
//!
//! - Tools: `{ name, description, input_schema }`; `input_schema.type: "object"` is required by
//!   the API, so it is added when missing (a schema of another type is an error). `strict` is an
//!   OpenAI notion and is not sent.
//! - Tool choice: `auto` → `{type:"auto"}`, `none` → `{type:"none"}`, `required` → `{type:"any"}`,
//!   named → `{type:"tool", name}`; `parallelToolCalls: false` → `disable_parallel_tool_use: true`.
//!   With extended thinking (`thinking: true`) only `auto` / `none` are allowed, so `required` and
//!   named choices are downgraded to `auto`, with a warning.
//! - History: system messages become `system`; an assistant message becomes `[thinking blocks…,
//!   text, tool_use…]` (thinking blocks replayed unchanged from `providerData.anthropic.thinking`);
//!   the tool results after it become one user message of `tool_result` blocks (first), and a user
//!   message right after them is merged into it as a text block. Call ids are made provider-safe.
//! - `stop_reason` `max_tokens` / `model_context_window_exceeded` → `length`; `refusal` → `error`.
//!
//! Streaming: `content_block_*` events keyed by block `index`; `input_json_delta` fragments are
//! concatenated and parsed at the end, `""` meaning `{}`; a tool_use block whose `input` arrives
//! whole on `content_block_start` with no deltas keeps that input.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::common::{
    check_name, count, data_of, field, invalid, is_plain_name, items, set_data, text_of,
    tools_missing_warnings, ChatMessage, Ending, Mapped, Provider, RequestInput, Result, ToolCall,
    ToolChoice, ToolDef, Turn, Usage,
};
use super::history::provider_call_id;
use super::stream::StreamAccumulator;

const PROVIDER: &str = "Anthropic";
/// The `providerData` key.
pub const DATA: &str = "anthropic";

/// `Tool[]`.
pub fn to_tools(tools: &[ToolDef]) -> Result<Value> {
    tools
        .iter()
        .map(|tool| {
            check_name(
                &tool.name,
                is_plain_name(&tool.name, 64),
                PROVIDER,
                "^[a-zA-Z0-9_-]{1,64}$",
            )?;
            let mut out = Map::new();
            out.insert("name".into(), json!(tool.name));
            if let Some(d) = &tool.description {
                out.insert("description".into(), json!(d));
            }
            out.insert(
                "input_schema".into(),
                input_schema(&tool.name, tool.parameters.as_ref())?,
            );
            Ok(Value::Object(out))
        })
        .collect::<Result<Vec<_>>>()
        .map(Value::Array)
}

/// The schema with `type: "object"` first (added when missing).
fn input_schema(name: &str, parameters: Option<&Value>) -> Result<Value> {
    let Some(Value::Object(schema)) = parameters else {
        return Ok(json!({"type": "object", "properties": {}}));
    };
    match field(schema, "type") {
        None => {}
        Some(t) if t == "object" => {}
        Some(t) => {
            return Err(invalid(format!(
                "tool {name:?}: Anthropic needs an object schema (input_schema.type must be \"object\", got {t})"
            )))
        }
    }
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    for (k, v) in schema.iter().filter(|(k, _)| k.as_str() != "type") {
        out.insert(k.clone(), v.clone());
    }
    Ok(Value::Object(out))
}

/// Options of the tool-choice mapping.
#[derive(Debug, Clone, Default)]
pub struct ChoiceOptions {
    /// Extended thinking is enabled on the request.
    pub thinking: bool,
    pub parallel_tool_calls: Option<bool>,
}

impl ChoiceOptions {
    pub fn parse(input: &Value) -> Result<ChoiceOptions> {
        let flag = |key: &str| match input.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(invalid(format!("{key} must be a boolean"))),
        };
        Ok(ChoiceOptions {
            thinking: flag("thinking")?.unwrap_or(false),
            parallel_tool_calls: flag("parallelToolCalls")?,
        })
    }
}

/// `ToolChoice` (or nothing when neither a choice nor the parallel switch is given), and the
/// warnings of a downgrade.
pub fn to_tool_choice(
    choice: Option<&ToolChoice>,
    options: &ChoiceOptions,
) -> Result<(Option<Value>, Vec<String>)> {
    let mut warnings = Vec::new();
    let mut choice = choice.cloned();
    if options.thinking && matches!(choice, Some(ToolChoice::Required | ToolChoice::Named(_))) {
        warnings.push(
            "Anthropic: with extended thinking only the tool choices \"auto\" and \"none\" are allowed; the forced tool choice was downgraded to \"auto\"".to_string(),
        );
        choice = Some(ToolChoice::Auto);
    }
    let no_parallel = options.parallel_tool_calls == Some(false);
    let mut value = match choice {
        None if no_parallel => json!({"type": "auto"}),
        None => return Ok((None, warnings)),
        Some(ToolChoice::None) => return Ok((Some(json!({"type": "none"})), warnings)),
        Some(ToolChoice::Auto) => json!({"type": "auto"}),
        Some(ToolChoice::Required) => json!({"type": "any"}),
        Some(ToolChoice::Named(name)) => json!({"type": "tool", "name": name}),
    };
    if no_parallel {
        value["disable_parallel_tool_use"] = json!(true);
    }
    Ok((Some(value), warnings))
}

/// `(system, MessageParam[])`.
pub fn to_messages(messages: &[ChatMessage]) -> (Option<String>, Value) {
    let id = |id: &str| provider_call_id(id, Provider::Anthropic);
    let system: Vec<&str> = messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::System(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    let mut out: Vec<Value> = Vec::new();
    for message in messages {
        match message {
            ChatMessage::System(_) => {}
            ChatMessage::User(content) => match out.last_mut() {
                Some(last) if is_tool_result_message(last) => {
                    push_block(last, json!({"type": "text", "text": content}));
                }
                _ => out.push(json!({"role": "user", "content": content})),
            },
            ChatMessage::Assistant {
                content,
                tool_calls,
                provider_data,
            } => {
                let mut blocks: Vec<Value> = match data_of(provider_data, DATA, "thinking") {
                    Some(Value::Array(thinking)) => thinking.clone(),
                    _ => Vec::new(),
                };
                if blocks.is_empty() && tool_calls.is_empty() {
                    out.push(json!({"role": "assistant", "content": content}));
                    continue;
                }
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                blocks.extend(tool_calls.iter().map(|c| {
                    json!({"type": "tool_use", "id": id(&c.id), "name": c.name, "input": super::common::arguments_object(&c.arguments)})
                }));
                out.push(json!({"role": "assistant", "content": blocks}));
            }
            ChatMessage::Tool {
                content,
                tool_call_id,
                is_error,
                ..
            } => {
                let mut block = json!({"type": "tool_result", "tool_use_id": id(tool_call_id), "content": content});
                if *is_error {
                    block["is_error"] = json!(true);
                }
                match out.last_mut() {
                    Some(last) if is_tool_result_message(last) && only_results(last) => {
                        push_block(last, block)
                    }
                    _ => out.push(json!({"role": "user", "content": [block]})),
                }
            }
        }
    }
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    (system, Value::Array(out))
}

/// A user message we made of tool results (possibly followed by merged text).
fn is_tool_result_message(message: &Value) -> bool {
    message["role"] == "user"
        && items(message, "content")
            .first()
            .is_some_and(|b| b["type"] == "tool_result")
}

fn only_results(message: &Value) -> bool {
    items(message, "content")
        .iter()
        .all(|b| b["type"] == "tool_result")
}

fn push_block(message: &mut Value, block: Value) {
    if let Some(blocks) = message["content"].as_array_mut() {
        blocks.push(block);
    }
}

/// `{ system?, messages, tools?, tool_choice? }` for `messages.create` (add `model`, `max_tokens`).
/// Options: `thinking` (extended thinking is on: forced choices are downgraded).
pub fn to_request(input: &RequestInput) -> Result<Mapped> {
    let mut request = Map::new();
    let mut warnings = Vec::new();
    let (system, messages) = to_messages(&input.messages);
    if let Some(system) = system {
        request.insert("system".into(), json!(system));
    }
    request.insert("messages".into(), messages);
    if !input.tools.is_empty() {
        request.insert("tools".into(), to_tools(&input.tools)?);
        let options = ChoiceOptions {
            thinking: input.flag("thinking")?,
            parallel_tool_calls: input.parallel_tool_calls,
        };
        let (choice, choice_warnings) = to_tool_choice(input.tool_choice.as_ref(), &options)?;
        warnings.extend(choice_warnings);
        if let Some(choice) = choice {
            request.insert("tool_choice".into(), choice);
        }
    }
    tools_missing_warnings(input, PROVIDER, &mut warnings);
    Ok(Mapped {
        value: Value::Object(request),
        warnings,
    })
}

/// A `Message` → turn. Thinking blocks ride along in `providerData.anthropic.thinking`.
pub fn from_response(message: &Value) -> Result<Turn> {
    if !message.is_object() {
        return Err(invalid("the message must be an object"));
    }
    if text_of(message, "type") == Some("error") {
        let text = text_of(&message["error"], "message").unwrap_or("the request failed");
        let mut turn = Turn::new(
            String::new(),
            Vec::new(),
            Ending::Failed(Some(text.to_string())),
        );
        turn.raw_finish_reason = Some("error".into());
        return Ok(turn);
    }
    let mut content = String::new();
    let mut calls = Vec::new();
    let mut thinking = Vec::new();
    for block in items(message, "content") {
        match text_of(block, "type") {
            Some("text") => content.push_str(text_of(block, "text").unwrap_or_default()),
            Some("thinking") => thinking.push(json!({
                "type": "thinking",
                "thinking": text_of(block, "thinking").unwrap_or_default(),
                "signature": text_of(block, "signature").unwrap_or_default(),
            })),
            Some("redacted_thinking") => thinking.push(json!({
                "type": "redacted_thinking",
                "data": text_of(block, "data").unwrap_or_default(),
            })),
            Some("tool_use") => {
                let arguments = match block.get("input") {
                    // A streamed input that did not parse is kept as its text.
                    Some(Value::String(raw)) => super::common::arguments_text(Some(&json!(raw))),
                    Some(input @ Value::Object(_)) => input.to_string(),
                    _ => "{}".to_string(),
                };
                calls.push(ToolCall::new(
                    text_of(block, "id").unwrap_or_default().to_string(),
                    text_of(block, "name").unwrap_or_default().to_string(),
                    arguments,
                ));
            }
            _ => {}
        }
    }
    let stop = text_of(message, "stop_reason");
    let ending = match stop {
        Some("max_tokens" | "model_context_window_exceeded") => Ending::Truncated,
        Some("refusal") => Ending::Failed(Some("the model refused to answer".into())),
        _ => Ending::Natural,
    };
    let mut turn = Turn::new(content, calls, ending);
    turn.raw_finish_reason = stop.map(str::to_string);
    let usage = &message["usage"];
    let prompt = [
        count(usage, "input_tokens"),
        count(usage, "cache_creation_input_tokens"),
        count(usage, "cache_read_input_tokens"),
    ];
    let prompt = prompt
        .iter()
        .any(Option::is_some)
        .then(|| prompt.iter().flatten().sum());
    turn.usage = Usage::from_counts(prompt, count(usage, "output_tokens"));
    if !thinking.is_empty() {
        let mut data = None;
        set_data(&mut data, DATA, "thinking", Value::Array(thinking));
        turn.provider_data = data;
    }
    Ok(turn)
}

/// One content block being streamed.
#[derive(Debug, Clone)]
struct Block {
    /// The block of `content_block_start`.
    start: Value,
    text: String,
    json: String,
    signature: String,
}

/// Accumulates `RawMessageStreamEvent`s.
#[derive(Debug, Default)]
pub struct Stream {
    message: Option<Value>,
    blocks: BTreeMap<i64, Block>,
    stop_reason: Option<Value>,
    usage: Map<String, Value>,
    error: Option<String>,
}

impl Stream {
    pub fn new() -> Stream {
        Stream::default()
    }

    fn block(&mut self, index: i64, kind: &str) -> &mut Block {
        self.blocks.entry(index).or_insert_with(|| Block {
            start: json!({"type": kind}),
            text: String::new(),
            json: String::new(),
            signature: String::new(),
        })
    }

    fn merge_usage(&mut self, usage: &Value) {
        if let Some(u) = usage.as_object() {
            for (k, v) in u.iter().filter(|(_, v)| !v.is_null()) {
                self.usage.insert(k.clone(), v.clone());
            }
        }
    }
}

impl StreamAccumulator for Stream {
    fn push(&mut self, event: &Value) -> Result<String> {
        if !event.is_object() {
            return Err(invalid("a message stream event must be an object"));
        }
        let index = event.get("index").and_then(Value::as_i64).unwrap_or(0);
        match text_of(event, "type").unwrap_or_default() {
            "message_start" => {
                self.message = Some(event["message"].clone());
                self.merge_usage(&event["message"]["usage"]);
            }
            "content_block_start" => {
                let start = event["content_block"].clone();
                self.blocks.insert(
                    index,
                    Block {
                        text: String::new(),
                        json: String::new(),
                        signature: String::new(),
                        start,
                    },
                );
            }
            "content_block_delta" => {
                let delta = &event["delta"];
                match text_of(delta, "type").unwrap_or_default() {
                    "text_delta" => {
                        let text = text_of(delta, "text").unwrap_or_default().to_string();
                        self.block(index, "text").text.push_str(&text);
                        return Ok(text);
                    }
                    "input_json_delta" => {
                        let fragment = text_of(delta, "partial_json").unwrap_or_default();
                        self.block(index, "tool_use").json.push_str(fragment);
                    }
                    "thinking_delta" => {
                        let fragment = text_of(delta, "thinking").unwrap_or_default();
                        self.block(index, "thinking").text.push_str(fragment);
                    }
                    "signature_delta" => {
                        let signature = text_of(delta, "signature").unwrap_or_default();
                        self.block(index, "thinking").signature.push_str(signature);
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = event["delta"].get("stop_reason").filter(|r| !r.is_null()) {
                    self.stop_reason = Some(reason.clone());
                }
                self.merge_usage(&event["usage"]);
            }
            "error" => {
                self.error = Some(
                    text_of(&event["error"], "message")
                        .unwrap_or("the stream failed")
                        .to_string(),
                );
            }
            _ => {}
        }
        Ok(String::new())
    }

    fn response(&self) -> Value {
        let content: Vec<Value> = self
            .blocks
            .values()
            .map(|b| {
                let mut block = b.start.clone();
                match text_of(&b.start, "type") {
                    Some("text") => {
                        block["text"] = json!(format!(
                            "{}{}",
                            text_of(&b.start, "text").unwrap_or_default(),
                            b.text
                        ));
                    }
                    Some("thinking") => {
                        block["thinking"] = json!(format!(
                            "{}{}",
                            text_of(&b.start, "thinking").unwrap_or_default(),
                            b.text
                        ));
                        if !b.signature.is_empty() {
                            block["signature"] = json!(b.signature);
                        }
                    }
                    Some("tool_use") => {
                        block["input"] = if b.json.trim().is_empty() {
                            // `input: {}` on start is a placeholder, unless no delta ever came.
                            match b.start.get("input") {
                                Some(input @ Value::Object(_)) => input.clone(),
                                _ => json!({}),
                            }
                        } else {
                            serde_json::from_str::<Value>(&b.json).unwrap_or_else(|_| json!(b.json))
                        };
                    }
                    _ => {}
                }
                block
            })
            .collect();
        let mut response = self
            .message
            .clone()
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({}));
        response["type"] = json!("message");
        response["role"] = json!("assistant");
        response["content"] = Value::Array(content);
        response["stop_reason"] = self.stop_reason.clone().unwrap_or(Value::Null);
        response["usage"] = Value::Object(self.usage.clone());
        if let Some(message) = &self.error {
            response["type"] = json!("error");
            response["error"] = json!({"type": "api_error", "message": message});
        }
        response
    }

    fn parse(&self, response: &Value) -> Result<Turn> {
        from_response(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_answer_fixture, assert_request_fixture, result_of, stream_result};

    #[test]
    fn maps_history_with_thinking_merged_results_and_sanitised_ids() {
        assert_request_fixture("anthropic_request.json", to_request);
    }

    #[test]
    fn tool_choice_forms_and_parallel_switch() {
        let plain = ChoiceOptions::default();
        let map =
            |c: ToolChoice, o: &ChoiceOptions| to_tool_choice(Some(&c), o).unwrap().0.unwrap();
        assert_eq!(map(ToolChoice::Auto, &plain), json!({"type": "auto"}));
        assert_eq!(map(ToolChoice::None, &plain), json!({"type": "none"}));
        assert_eq!(map(ToolChoice::Required, &plain), json!({"type": "any"}));
        assert_eq!(
            map(ToolChoice::Named("f".into()), &plain),
            json!({"type": "tool", "name": "f"})
        );
        let serial = ChoiceOptions {
            parallel_tool_calls: Some(false),
            ..Default::default()
        };
        assert_eq!(
            map(ToolChoice::Required, &serial),
            json!({"type": "any", "disable_parallel_tool_use": true})
        );
        assert_eq!(map(ToolChoice::None, &serial), json!({"type": "none"}));
        assert_eq!(
            to_tool_choice(None, &serial).unwrap().0,
            Some(json!({"type": "auto", "disable_parallel_tool_use": true}))
        );
        assert_eq!(to_tool_choice(None, &plain).unwrap().0, None);
    }

    #[test]
    fn forced_choices_are_downgraded_with_thinking() {
        // llama_index#19641, claude-code#18759: "Thinking may not be enabled when tool_choice forces tool use".
        let thinking = ChoiceOptions {
            thinking: true,
            ..Default::default()
        };
        for forced in [ToolChoice::Required, ToolChoice::Named("f".into())] {
            let (value, warnings) = to_tool_choice(Some(&forced), &thinking).unwrap();
            assert_eq!(value, Some(json!({"type": "auto"})));
            assert_eq!(warnings.len(), 1);
        }
        let (value, warnings) = to_tool_choice(Some(&ToolChoice::None), &thinking).unwrap();
        assert_eq!(value, Some(json!({"type": "none"})));
        assert!(warnings.is_empty());
    }

    #[test]
    fn input_schema_always_has_type_object() {
        // opencodex#75: 400 "tools.N.custom.input_schema.type: Field required".
        let tools = ToolDef::parse_list(
            &json!([
                {"type": "function", "function": {"name": "a", "parameters": {"properties": {"x": {"type": "string"}}}}},
                {"type": "function", "function": {"name": "b"}},
                {"type": "function", "function": {"name": "c", "parameters": {"type": "string"}}}
            ]),
            "tools",
        )
        .unwrap();
        let out = to_tools(&tools[..2]).unwrap();
        assert_eq!(
            out[0]["input_schema"],
            json!({"type": "object", "properties": {"x": {"type": "string"}}})
        );
        assert_eq!(
            out[1],
            json!({"name": "b", "input_schema": {"type": "object", "properties": {}}})
        );
        assert!(to_tools(&tools[2..])
            .unwrap_err()
            .0
            .contains("needs an object schema"));
    }

    #[test]
    fn parallel_calls_with_and_without_streaming() {
        assert_answer_fixture("anthropic_parallel.json", from_response, Stream::new());
    }

    fn tool_stream(deltas: &[&str], start_input: Value) -> Value {
        let mut events = vec![
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "stop_reason": null, "usage": {"input_tokens": 3, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": start_input}}),
        ];
        events.extend(deltas.iter().map(|d| {
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": d}})
        }));
        events.push(json!({"type": "content_block_stop", "index": 0}));
        events.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}));
        events.push(json!({"type": "message_stop"}));
        Value::Array(events)
    }

    #[test]
    fn empty_partial_json_means_an_empty_object() {
        // litellm#5063, anthropic-sdk-python#658: a no-argument tool streams only "" deltas.
        let (_, result) = stream_result(Stream::new(), &tool_stream(&["", ""], json!({})));
        assert_eq!(result["toolCalls"][0]["function"]["arguments"], "{}");
        let (_, result) = stream_result(Stream::new(), &tool_stream(&[], json!({})));
        assert_eq!(result["toolCalls"][0]["function"]["arguments"], "{}");
        assert_eq!(
            result["usage"],
            json!({"promptTokens": 3, "completionTokens": 9, "totalTokens": 12})
        );
    }

    #[test]
    fn start_input_is_a_placeholder_unless_no_delta_comes() {
        // crustly#38: `input: {}` on start; gajae-code#1895: full input on start, no deltas.
        let (_, result) = stream_result(Stream::new(), &tool_stream(&["{\"a\":", "1}"], json!({})));
        assert_eq!(result["toolCalls"][0]["function"]["arguments"], "{\"a\":1}");
        let (_, result) = stream_result(Stream::new(), &tool_stream(&[], json!({"a": 2})));
        assert_eq!(result["toolCalls"][0]["function"]["arguments"], "{\"a\":2}");
    }

    #[test]
    fn max_tokens_mid_tool_use_is_length_without_calls() {
        // humux#77: the input is cut.
        let mut events = tool_stream(&["{\"path\": \"/tm"], json!({}))
            .as_array()
            .unwrap()
            .clone();
        events[4] = json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 9}});
        let (_, result) = stream_result(Stream::new(), &Value::Array(events));
        assert_eq!(result["finishReason"], "length");
        assert_eq!(result["rawFinishReason"], "max_tokens");
        assert!(result.get("toolCalls").is_none());
        let refused = result_of(from_response(
            &json!({"type": "message", "content": [], "stop_reason": "refusal"}),
        ));
        assert_eq!(refused["finishReason"], "error");
        let window = result_of(from_response(
            &json!({"type": "message", "content": [], "stop_reason": "model_context_window_exceeded"}),
        ));
        assert_eq!(window["finishReason"], "length");
    }

    #[test]
    fn tool_results_stay_first_and_orphaned_ids_are_not_invented() {
        let messages = ChatMessage::parse_list(
            &json!([
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": "", "toolCalls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                {"role": "tool", "content": "x", "toolCallId": "a"},
                {"role": "user", "content": "and now?"},
                {"role": "user", "content": "well?"}
            ]),
            "messages",
        )
        .unwrap();
        let (_, wire) = to_messages(&messages);
        assert_eq!(wire[2]["content"][0]["type"], "tool_result");
        assert_eq!(
            wire[2]["content"][1],
            json!({"type": "text", "text": "and now?"})
        );
        assert_eq!(
            wire[2]["content"][2],
            json!({"type": "text", "text": "well?"})
        );
        assert_eq!(wire.as_array().unwrap().len(), 3);
    }
}
