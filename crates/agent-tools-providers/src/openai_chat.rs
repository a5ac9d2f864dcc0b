//! OpenAI Chat Completions (and the OpenAI-compatible `/v1/chat/completions` of other servers).
//!
//! Our common types are OpenAI-shaped, so the mapping is nearly the identity: call ids are made
//! provider-safe (at most 40 characters), an assistant message with calls and no text gets
//! `content: null`, and `tool_choice` / `parallel_tool_calls` are only sent with tools (the API
//! rejects them otherwise).
//!
//! Streaming (`delta.tool_calls[]`): fragments are keyed by `index`, but a fragment with a new
//! `id` on an index that already holds another call opens a new call (servers that put every
//! call on index 0), and a fragment without `index` continues the last call unless it brings a
//! new id. The `choices: []` usage chunk is accepted.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::common::{
    arguments_text, check_name, check_strict_schema, count, invalid, is_plain_name, items,
    synthetic_call_id, text_of, tools_missing_warnings, ChatMessage, Ending, Mapped, Provider,
    RequestInput, Result, ToolCall, ToolChoice, ToolDef, Turn, Usage,
};
use super::history::provider_call_id;
use super::stream::StreamAccumulator;

const PROVIDER: &str = "OpenAI Chat Completions";

/// `ChatCompletionTool[]`.
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
            if let (Some(true), Some(parameters)) = (tool.strict, &tool.parameters) {
                check_strict_schema(&tool.name, parameters)?;
            }
            let mut function = Map::new();
            function.insert("name".into(), json!(tool.name));
            if let Some(d) = &tool.description {
                function.insert("description".into(), json!(d));
            }
            if let Some(p) = &tool.parameters {
                function.insert("parameters".into(), p.clone());
            }
            if let Some(s) = tool.strict {
                function.insert("strict".into(), json!(s));
            }
            Ok(json!({"type": "function", "function": function}))
        })
        .collect::<Result<Vec<_>>>()
        .map(Value::Array)
}

/// `ChatCompletionToolChoiceOption`: the same four forms.
pub fn to_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Named(name) => json!({"type": "function", "function": {"name": name}}),
    }
}

/// `ChatCompletionMessageParam[]`.
pub fn to_messages(messages: &[ChatMessage]) -> Value {
    let id = |id: &str| provider_call_id(id, Provider::OpenAIChat);
    Value::Array(
        messages
            .iter()
            .map(|message| match message {
                ChatMessage::System(content) => json!({"role": "system", "content": content}),
                ChatMessage::User(content) => json!({"role": "user", "content": content}),
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                    ..
                } if tool_calls.is_empty() => {
                    json!({"role": "assistant", "content": content})
                }
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                    ..
                } => json!({
                    "role": "assistant",
                    "content": if content.is_empty() { Value::Null } else { json!(content) },
                    "tool_calls": tool_calls.iter().map(|c| json!({
                        "id": id(&c.id),
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    })).collect::<Vec<_>>(),
                }),
                ChatMessage::Tool {
                    content,
                    tool_call_id,
                    ..
                } => {
                    json!({"role": "tool", "tool_call_id": id(tool_call_id), "content": content})
                }
            })
            .collect(),
    )
}

/// `{ messages, tools?, tool_choice?, parallel_tool_calls? }` for `chat.completions.create`.
pub fn to_request(input: &RequestInput) -> Result<Mapped> {
    let mut request = Map::new();
    let mut warnings = Vec::new();
    request.insert("messages".into(), to_messages(&input.messages));
    if !input.tools.is_empty() {
        let mut tools = to_tools(&input.tools)?;
        apply_compat(&mut tools, input.options.get("compat"), &mut warnings)?;
        request.insert("tools".into(), tools);
        if let Some(choice) = &input.tool_choice {
            request.insert("tool_choice".into(), to_tool_choice(choice));
        }
        if let Some(parallel) = input.parallel_tool_calls {
            request.insert("parallel_tool_calls".into(), json!(parallel));
        }
    }
    tools_missing_warnings(input, PROVIDER, &mut warnings);
    Ok(Mapped {
        value: Value::Object(request),
        warnings,
    })
}

/// Workarounds for OpenAI-compatible servers, asked for with `compat` (providers.md B.1):
/// `maxDescriptionLength` cuts longer tool descriptions (some compatible endpoints reject more
/// than 1024 characters), `stripDefaults` removes `default` keywords from the parameter schemas
/// (accepted by api.openai.com, rejected by Azure OpenAI). Each change is reported as a warning.
fn apply_compat(
    tools: &mut Value,
    compat: Option<&Value>,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let Some(compat) = compat.filter(|c| !c.is_null()) else {
        return Ok(());
    };
    if !compat.is_object() {
        return Err(invalid("compat must be an object"));
    }
    let max = match &compat["maxDescriptionLength"] {
        Value::Null => None,
        v => Some(
            v.as_u64()
                .filter(|n| *n > 0)
                .ok_or_else(|| invalid("compat.maxDescriptionLength must be a positive integer"))?
                as usize,
        ),
    };
    let strip = match &compat["stripDefaults"] {
        Value::Null => false,
        Value::Bool(b) => *b,
        _ => return Err(invalid("compat.stripDefaults must be a boolean")),
    };
    for tool in tools.as_array_mut().into_iter().flatten() {
        let function = &mut tool["function"];
        let name = function["name"].as_str().unwrap_or_default().to_string();
        if let (Some(max), Some(description)) = (max, function["description"].as_str()) {
            if description.chars().count() > max {
                let cut: String = description.chars().take(max).collect();
                function["description"] = json!(cut);
                warnings.push(format!(
                    "{PROVIDER}: the description of tool \"{name}\" was cut to {max} characters"
                ));
            }
        }
        if strip {
            if let Some(parameters) = function.get_mut("parameters") {
                if remove_defaults(parameters) {
                    warnings.push(format!("{PROVIDER}: `default` keywords were removed from the parameters of tool \"{name}\""));
                }
            }
        }
    }
    Ok(())
}

/// Removes every `default` keyword of a JSON Schema (not a property named `default`).
fn remove_defaults(schema: &mut Value) -> bool {
    let mut removed = false;
    match schema {
        Value::Object(map) => {
            removed |= map.remove("default").is_some();
            for (key, value) in map.iter_mut() {
                if key == "properties" || key == "$defs" || key == "definitions" {
                    for sub in value
                        .as_object_mut()
                        .into_iter()
                        .flat_map(|m| m.values_mut())
                    {
                        removed |= remove_defaults(sub);
                    }
                } else {
                    removed |= remove_defaults(value);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                removed |= remove_defaults(item);
            }
        }
        _ => {}
    }
    removed
}

/// A `ChatCompletion` → turn. Calls without an id (some compatible servers) get a fresh one.
pub fn from_response(response: &Value) -> Result<Turn> {
    if !response.is_object() {
        return Err(invalid("the chat completion must be an object"));
    }
    let choice = items(response, "choices")
        .first()
        .cloned()
        .unwrap_or(Value::Null);
    let message = &choice["message"];
    let content = text_of(message, "content").unwrap_or_default().to_string();
    let tool_calls = items(message, "tool_calls")
        .iter()
        .filter(|c| text_of(c, "type").is_none_or(|t| t == "function"))
        .map(|c| {
            let id = text_of(c, "id")
                .filter(|id| !id.is_empty())
                .map(str::to_string);
            ToolCall::new(
                id.unwrap_or_else(synthetic_call_id),
                text_of(&c["function"], "name")
                    .unwrap_or_default()
                    .to_string(),
                arguments_text(c["function"].get("arguments").filter(|a| !a.is_null())),
            )
        })
        .collect();
    let finish = text_of(&choice, "finish_reason");
    let refusal = text_of(message, "refusal").filter(|r| !r.is_empty());
    let ending = match (finish, refusal) {
        (Some("length"), _) => Ending::Truncated,
        (Some("content_filter"), _) => {
            Ending::Failed(Some("the content filter stopped the answer".into()))
        }
        (_, Some(refusal)) => Ending::Failed(Some(refusal.to_string())),
        _ if choice.is_null() => Ending::Failed(Some("the response has no choices".into())),
        _ => Ending::Natural,
    };
    let mut turn = Turn::new(content, tool_calls, ending);
    turn.raw_finish_reason = finish.map(str::to_string);
    let usage = &response["usage"];
    turn.usage = Usage::from_counts(
        count(usage, "prompt_tokens"),
        count(usage, "completion_tokens"),
    );
    Ok(turn)
}

/// One call being streamed.
#[derive(Debug, Default, Clone)]
struct Slot {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Accumulates `ChatCompletionChunk`s.
#[derive(Debug, Default)]
pub struct Stream {
    content: String,
    refusal: String,
    slots: Vec<Slot>,
    /// `index` → the slot it currently feeds.
    by_index: HashMap<i64, usize>,
    finish_reason: Option<String>,
    usage: Option<Value>,
    seen_choice: bool,
}

impl Stream {
    pub fn new() -> Stream {
        Stream::default()
    }

    fn tool_delta(&mut self, delta: &Value) {
        let index = delta.get("index").and_then(Value::as_i64);
        let id = text_of(delta, "id").filter(|id| !id.is_empty());
        let current = match index {
            Some(i) => self.by_index.get(&i).copied(),
            None => self.slots.len().checked_sub(1),
        };
        let slot = match (current, id) {
            // A new id on a slot that already has another one: a new call.
            (Some(s), Some(id)) if self.slots[s].id.as_deref().is_some_and(|old| old != id) => None,
            (current, _) => current,
        };
        let slot = slot.unwrap_or_else(|| {
            self.slots.push(Slot::default());
            self.slots.len() - 1
        });
        if let Some(i) = index {
            self.by_index.insert(i, slot);
        }
        let target = &mut self.slots[slot];
        if let (None, Some(id)) = (&target.id, id) {
            target.id = Some(id.to_string());
        }
        let function = &delta["function"];
        if let Some(name) = text_of(function, "name") {
            if target.name.is_empty() {
                target.name = name.to_string();
            }
        }
        match function.get("arguments") {
            Some(Value::String(fragment)) => target.arguments.push_str(fragment),
            Some(v @ Value::Object(_)) => target.arguments.push_str(&v.to_string()),
            _ => {}
        }
    }
}

impl StreamAccumulator for Stream {
    fn push(&mut self, chunk: &Value) -> Result<String> {
        if !chunk.is_object() {
            return Err(invalid("a chat completion chunk must be an object"));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        let mut text = String::new();
        // Only the first choice (index 0) is accumulated, as in the non-streaming path.
        for choice in items(chunk, "choices")
            .iter()
            .filter(|c| c.get("index").and_then(Value::as_i64).unwrap_or(0) == 0)
        {
            self.seen_choice = true;
            let delta = &choice["delta"];
            if let Some(t) = text_of(delta, "content") {
                text.push_str(t);
            }
            if let Some(r) = text_of(delta, "refusal") {
                self.refusal.push_str(r);
            }
            for call in items(delta, "tool_calls") {
                self.tool_delta(call);
            }
            if let Some(reason) = text_of(choice, "finish_reason") {
                self.finish_reason = Some(reason.to_string());
            }
        }
        self.content.push_str(&text);
        Ok(text)
    }

    fn response(&self) -> Value {
        let mut message = json!({"role": "assistant", "content": self.content});
        if !self.refusal.is_empty() {
            message["refusal"] = json!(self.refusal);
        }
        if !self.slots.is_empty() {
            message["tool_calls"] = Value::Array(
                self.slots
                    .iter()
                    .map(|s| json!({"id": s.id, "type": "function", "function": {"name": s.name, "arguments": s.arguments}}))
                    .collect(),
            );
        }
        let mut response = json!({"choices": []});
        if self.seen_choice {
            response["choices"] =
                json!([{"index": 0, "message": message, "finish_reason": self.finish_reason}]);
        }
        if let Some(usage) = &self.usage {
            response["usage"] = usage.clone();
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
    use crate::testing::{assert_answer_fixture, assert_request_fixture, stream_result};

    #[test]
    fn maps_tools_choices_and_messages() {
        assert_request_fixture("openai_chat_request.json", to_request);
    }

    #[test]
    fn tool_choice_forms() {
        assert_eq!(to_tool_choice(&ToolChoice::Auto), json!("auto"));
        assert_eq!(to_tool_choice(&ToolChoice::None), json!("none"));
        assert_eq!(to_tool_choice(&ToolChoice::Required), json!("required"));
        assert_eq!(
            to_tool_choice(&ToolChoice::Named("f".into())),
            json!({"type": "function", "function": {"name": "f"}})
        );
    }

    #[test]
    fn choice_and_parallel_switch_need_tools() {
        let input = RequestInput::parse(
            &json!({"messages": [], "toolChoice": "required", "parallelToolCalls": false}),
        )
        .unwrap();
        let mapped = to_request(&input).unwrap();
        assert_eq!(mapped.value, json!({"messages": []}));
        assert_eq!(mapped.warnings.len(), 2);
    }

    #[test]
    fn invalid_tool_names_fail_before_the_request() {
        let tools = ToolDef::parse_list(
            &json!([{"type": "function", "function": {"name": "read file"}}]),
            "tools",
        )
        .unwrap();
        let err = to_tools(&tools).unwrap_err();
        assert!(
            err.0.contains("\"read file\" is not valid for OpenAI"),
            "{err}"
        );
    }

    #[test]
    fn compat_cuts_long_descriptions_and_strips_defaults() {
        let long = "d".repeat(1500);
        let input = RequestInput::parse(&json!({
            "messages": [],
            "tools": [{"type": "function", "function": {"name": "t", "description": long, "parameters": {
                "type": "object",
                "properties": {"default": {"type": "string", "default": "x"}, "n": {"type": "number", "default": 3}},
                "additionalProperties": false
            }}}],
            "compat": {"maxDescriptionLength": 1024, "stripDefaults": true}
        }))
        .unwrap();
        let mapped = to_request(&input).unwrap();
        let function = &mapped.value["tools"][0]["function"];
        assert_eq!(function["description"].as_str().unwrap().len(), 1024);
        assert_eq!(
            function["parameters"],
            json!({"type": "object", "properties": {"default": {"type": "string"}, "n": {"type": "number"}}, "additionalProperties": false})
        );
        assert_eq!(mapped.warnings.len(), 2);
        let plain = RequestInput::parse(&json!({"messages": [], "tools": [{"type": "function", "function": {"name": "t", "description": "short", "parameters": {"type": "object", "properties": {"n": {"type": "number", "default": 3}}}}}]})).unwrap();
        let mapped = to_request(&plain).unwrap();
        assert_eq!(
            mapped.value["tools"][0]["function"]["parameters"]["properties"]["n"]["default"], 3,
            "untouched without compat"
        );
        assert!(mapped.warnings.is_empty());
        let bad = RequestInput::parse(&json!({"messages": [], "tools": [{"type": "function", "function": {"name": "t"}}], "compat": {"maxDescriptionLength": 0}})).unwrap();
        assert!(to_request(&bad).is_err());
    }

    #[test]
    fn strict_definitions_that_openai_would_reject_fail_before_the_request() {
        // mysql-mcp#5: "'required' is required to be supplied and to be an array including every key in properties".
        let tools = ToolDef::parse_list(
            &json!([{"type": "function", "function": {"name": "q", "strict": true, "parameters": {
                "type": "object", "properties": {"sql": {"type": "string"}, "params": {"type": "array", "items": {}}},
                "required": ["sql"], "additionalProperties": false
            }}}]),
            "tools",
        )
        .unwrap();
        assert!(to_tools(&tools)
            .unwrap_err()
            .0
            .contains("\"params\" must be listed in required"));
        assert!(crate::openai_responses::to_tools(&tools).is_err());
    }

    #[test]
    fn parallel_calls_with_and_without_streaming() {
        assert_answer_fixture("openai_chat_parallel.json", from_response, Stream::new());
    }

    #[test]
    fn forced_choice_ending_with_stop_still_reports_tool_calls() {
        // Mirascope#256 / vllm#49496: finish_reason "stop" while tool_calls are present.
        let turn = from_response(
            &json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}
        ]}, "finish_reason": "stop"}]}),
        )
        .unwrap()
        .to_json();
        assert_eq!(turn["finishReason"], "tool_calls");
        assert_eq!(turn["rawFinishReason"], "stop");
        assert_eq!(turn["toolCalls"][0]["function"]["arguments"], "{}");
    }

    #[test]
    fn truncated_and_filtered_turns_never_report_calls() {
        let truncated = from_response(
            &json!({"choices": [{"message": {"content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"pa"}}
        ]}, "finish_reason": "length"}]}),
        )
        .unwrap()
        .to_json();
        assert_eq!(truncated["finishReason"], "length");
        assert!(truncated.get("toolCalls").is_none());
        let refusal = from_response(&json!({"choices": [{"message": {"content": null, "refusal": "I can't"}, "finish_reason": "stop"}]}))
            .unwrap()
            .to_json();
        assert_eq!(refusal["finishReason"], "error");
        assert_eq!(refusal["errorMessage"], "I can't");
        let filtered = from_response(
            &json!({"choices": [{"message": {"content": "x"}, "finish_reason": "content_filter"}]}),
        )
        .unwrap()
        .to_json();
        assert_eq!(filtered["finishReason"], "error");
    }

    #[test]
    fn stream_without_index_continues_the_last_call() {
        // ollama#7881, openai-python#3246 (Gemini's OpenAI endpoint): no `index` at all.
        let chunks = json!([
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":"}}]}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"function": {"arguments": "1}"}}]}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
        ]);
        let (_, result) = stream_result(Stream::new(), &chunks);
        assert_eq!(
            result["toolCalls"][0]["function"],
            json!({"name": "f", "arguments": "{\"x\":1}"})
        );
        assert_eq!(result["toolCalls"][1]["id"], "b");
        assert_eq!(
            result["toolCalls"][1]["function"],
            json!({"name": "g", "arguments": "{}"})
        );
    }

    #[test]
    fn stream_with_every_call_on_index_zero_opens_a_slot_per_new_id() {
        // ollama#15457, apache/maka#1976, agno#8880: call 2's head delta reuses index 0.
        let chunks = json!([
            {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Checking."}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{\"city\":"}}]}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"Oslo\"}"}}]}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "b", "function": {"name": "g", "arguments": ""}}]}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"tz\":\"JST\"}"}}]}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}
        ]);
        let (text, result) = stream_result(Stream::new(), &chunks);
        assert_eq!(text, "Checking.");
        assert_eq!(result["finishReason"], "tool_calls");
        let calls = result["toolCalls"].as_array().unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(
            calls[0]["function"],
            json!({"name": "f", "arguments": "{\"city\":\"Oslo\"}"})
        );
        assert_eq!(
            calls[1]["function"],
            json!({"name": "g", "arguments": "{\"tz\":\"JST\"}"})
        );
        assert_eq!(
            result["usage"],
            json!({"promptTokens": 5, "completionTokens": 7, "totalTokens": 12})
        );
    }

    #[test]
    fn replayed_ids_fit_openai_limits() {
        let messages = ChatMessage::parse_list(
            &json!([
                {"role": "assistant", "content": "", "toolCalls": [{"id": "toolu_01234567890123456789012345678901234567890", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                {"role": "tool", "content": "ok", "toolCallId": "toolu_01234567890123456789012345678901234567890"}
            ]),
            "messages",
        )
        .unwrap();
        let wire = to_messages(&messages);
        let id = wire[0]["tool_calls"][0]["id"].as_str().unwrap();
        assert!(id.len() <= 40);
        assert_eq!(wire[1]["tool_call_id"], id);
        assert_eq!(wire[0]["content"], Value::Null);
    }
}
