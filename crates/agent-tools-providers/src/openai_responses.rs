//! The OpenAI Responses API.
//!
//! - Tools are flat (`{ type: "function", name, description, parameters, strict }`); `strict` is
//!   always sent (`false` unless the definition says `true`), so the API does not silently
//!   normalise a schema to strict mode; a tool without parameters gets an empty object schema.
//! - A call's id is its `call_id`; the output item id (`fc_…`) rides along in
//!   `providerData.openaiResponses.itemId` and is replayed only when it starts with `fc`
//!   (the API rejects other ids: "Expected an ID that begins with 'fc'").
//! - Reasoning items (`rs_…`, with `encrypted_content` when requested) ride along on the
//!   assistant message (`providerData.openaiResponses.reasoning`) and are replayed before its
//!   calls ("function_call was provided without its required reasoning item").
//! - `status: "incomplete"` with `max_output_tokens` (or a call item left incomplete) is
//!   `length`; `failed`, `cancelled`, a content filter or a refusal is `error`.
//!
//! Streaming: items are accumulated by `item_id` (`output_item.added`,
//! `function_call_arguments.delta` / `.done`, `output_item.done`) and emitted by `call_id`; the
//! terminal `response.completed` / `.incomplete` / `.failed` output is authoritative, and calls
//! it lacks (compatible servers that skip items) are kept from the accumulated events.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::common::{
    arguments_text, check_name, check_strict_schema, count, data_of, invalid, is_plain_name, items,
    synthetic_call_id, text_of, tools_missing_warnings, ChatMessage, Ending, Mapped, Provider,
    RequestInput, Result, ToolCall, ToolChoice, ToolDef, Turn, Usage,
};
use super::history::provider_call_id;
use super::stream::StreamAccumulator;

const PROVIDER: &str = "the OpenAI Responses API";
/// The `providerData` key.
pub const DATA: &str = "openaiResponses";

/// `FunctionTool[]`.
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
            let mut out = Map::new();
            out.insert("type".into(), json!("function"));
            out.insert("name".into(), json!(tool.name));
            if let Some(d) = &tool.description {
                out.insert("description".into(), json!(d));
            }
            out.insert(
                "parameters".into(),
                tool.parameters
                    .clone()
                    .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
            );
            out.insert("strict".into(), json!(tool.strict == Some(true)));
            Ok(Value::Object(out))
        })
        .collect::<Result<Vec<_>>>()
        .map(Value::Array)
}

/// `ToolChoiceOptions | ToolChoiceFunction`.
pub fn to_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Named(name) => json!({"type": "function", "name": name}),
    }
}

/// `ResponseInputItem[]`.
pub fn to_input(messages: &[ChatMessage]) -> Value {
    let id = |id: &str| provider_call_id(id, Provider::OpenAIResponses);
    let mut input = Vec::new();
    for message in messages {
        match message {
            ChatMessage::System(content) => input.push(json!({"role": "system", "content": content})),
            ChatMessage::User(content) => input.push(json!({"role": "user", "content": content})),
            ChatMessage::Assistant {
                content,
                tool_calls,
                provider_data,
            } => {
                if let Some(Value::Array(reasoning)) = data_of(provider_data, DATA, "reasoning") {
                    input.extend(reasoning.iter().cloned());
                }
                if !content.is_empty() || tool_calls.is_empty() {
                    input.push(json!({"role": "assistant", "content": content}));
                }
                for call in tool_calls {
                    let mut item = json!({
                        "type": "function_call",
                        "call_id": id(&call.id),
                        "name": call.name,
                        "arguments": call.arguments,
                    });
                    if let Some(item_id) = call.data(DATA, "itemId").and_then(Value::as_str) {
                        if item_id.starts_with("fc") {
                            item["id"] = json!(item_id);
                        }
                    }
                    input.push(item);
                }
            }
            ChatMessage::Tool {
                content, tool_call_id, ..
            } => input.push(json!({"type": "function_call_output", "call_id": id(tool_call_id), "output": content})),
        }
    }
    Value::Array(input)
}

/// `{ input, tools?, tool_choice?, parallel_tool_calls? }` for `responses.create`.
pub fn to_request(input: &RequestInput) -> Result<Mapped> {
    let mut request = Map::new();
    let mut warnings = Vec::new();
    request.insert("input".into(), to_input(&input.messages));
    if !input.tools.is_empty() {
        request.insert("tools".into(), to_tools(&input.tools)?);
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

/// A `Response` → turn.
pub fn from_response(response: &Value) -> Result<Turn> {
    if !response.is_object() {
        return Err(invalid("the response must be an object"));
    }
    let mut content = String::new();
    let mut refusal = String::new();
    let mut calls = Vec::new();
    let mut reasoning = Vec::new();
    let mut call_cut = false;
    for item in items(response, "output") {
        match text_of(item, "type") {
            Some("message") => {
                for part in items(item, "content") {
                    match text_of(part, "type") {
                        Some("output_text") => {
                            content.push_str(text_of(part, "text").unwrap_or_default())
                        }
                        Some("refusal") => {
                            refusal.push_str(text_of(part, "refusal").unwrap_or_default())
                        }
                        _ => {}
                    }
                }
            }
            Some("function_call") => {
                call_cut |= text_of(item, "status") == Some("incomplete");
                let id = text_of(item, "call_id")
                    .or_else(|| text_of(item, "id"))
                    .filter(|id| !id.is_empty())
                    .map(str::to_string)
                    .unwrap_or_else(synthetic_call_id);
                let mut call = ToolCall::new(
                    id,
                    text_of(item, "name").unwrap_or_default().to_string(),
                    arguments_text(item.get("arguments").filter(|a| !a.is_null())),
                );
                if let Some(item_id) = text_of(item, "id") {
                    call = call.with_data(DATA, "itemId", json!(item_id));
                }
                calls.push(call);
            }
            Some("reasoning") => reasoning.push(item.clone()),
            _ => {}
        }
    }
    let status = text_of(response, "status");
    let reason = text_of(&response["incomplete_details"], "reason");
    let ending = match status {
        Some("incomplete") if reason == Some("content_filter") => {
            Ending::Failed(Some("the content filter stopped the answer".into()))
        }
        Some("incomplete") => Ending::Truncated,
        Some("failed") => Ending::Failed(Some(
            text_of(&response["error"], "message")
                .unwrap_or("the response failed")
                .to_string(),
        )),
        Some("cancelled") => Ending::Failed(Some("the response was cancelled".into())),
        _ if !refusal.is_empty() => Ending::Failed(Some(refusal)),
        _ if call_cut => Ending::Truncated,
        _ => Ending::Natural,
    };
    let mut turn = Turn::new(content, calls, ending);
    turn.raw_finish_reason = reason.or(status).map(str::to_string);
    let usage = &response["usage"];
    turn.usage = Usage::from_counts(count(usage, "input_tokens"), count(usage, "output_tokens"));
    if !reasoning.is_empty() {
        let mut data = None;
        super::common::set_data(&mut data, DATA, "reasoning", Value::Array(reasoning));
        turn.provider_data = data;
    }
    Ok(turn)
}

/// One output item being streamed.
#[derive(Debug, Clone)]
struct Item {
    output_index: i64,
    /// The item as last announced (`output_item.added`, or whole from `output_item.done`).
    value: Value,
    done: bool,
    arguments: Option<String>,
    text: String,
    refusal: String,
}

/// Accumulates `ResponseStreamEvent`s.
#[derive(Debug, Default)]
pub struct Stream {
    items: Vec<Item>,
    by_key: HashMap<String, usize>,
    /// The response of `response.created` / `.in_progress`.
    started: Option<Value>,
    /// The response of `response.completed` / `.incomplete` / `.failed`.
    terminal: Option<Value>,
    error: Option<String>,
}

impl Stream {
    pub fn new() -> Stream {
        Stream::default()
    }

    /// The item with key `key` (an item id, or `#<output_index>`), created as `kind` if new.
    fn item(&mut self, key: String, output_index: i64, kind: &str) -> &mut Item {
        let slot = match self.by_key.get(&key) {
            Some(&slot) => slot,
            None => {
                let mut value = json!({"type": kind});
                if !key.starts_with('#') {
                    value["id"] = json!(key);
                }
                self.items.push(Item {
                    output_index,
                    value,
                    done: false,
                    arguments: None,
                    text: String::new(),
                    refusal: String::new(),
                });
                self.by_key.insert(key, self.items.len() - 1);
                self.items.len() - 1
            }
        };
        &mut self.items[slot]
    }

    fn key(id: Option<&str>, output_index: i64) -> String {
        id.map(str::to_string)
            .unwrap_or_else(|| format!("#{output_index}"))
    }

    /// The accumulated items as output items, in output order.
    fn accumulated(&self) -> Vec<Value> {
        let mut ordered: Vec<&Item> = self.items.iter().collect();
        ordered.sort_by_key(|i| i.output_index);
        ordered
            .into_iter()
            .map(|item| {
                let mut value = item.value.clone();
                if item.done {
                    return value;
                }
                match text_of(&value, "type") {
                    Some("function_call") => {
                        if let Some(arguments) = &item.arguments {
                            value["arguments"] = json!(arguments);
                        }
                    }
                    Some("message") if items(&value, "content").is_empty() => {
                        let mut parts = Vec::new();
                        if !item.text.is_empty() {
                            parts.push(json!({"type": "output_text", "text": item.text}));
                        }
                        if !item.refusal.is_empty() {
                            parts.push(json!({"type": "refusal", "refusal": item.refusal}));
                        }
                        value["content"] = Value::Array(parts);
                    }
                    _ => {}
                }
                value
            })
            .collect()
    }
}

/// The identity of a call item for reconciliation: its `call_id`, else its item id.
fn call_identity(item: &Value) -> Option<&str> {
    (text_of(item, "type") == Some("function_call"))
        .then(|| text_of(item, "call_id").or_else(|| text_of(item, "id")))?
}

impl StreamAccumulator for Stream {
    fn push(&mut self, event: &Value) -> Result<String> {
        if !event.is_object() {
            return Err(invalid("a response stream event must be an object"));
        }
        let output_index = event
            .get("output_index")
            .and_then(Value::as_i64)
            .unwrap_or(i64::MAX);
        let item_id = text_of(event, "item_id");
        match text_of(event, "type").unwrap_or_default() {
            "response.created" | "response.in_progress" | "response.queued" => {
                self.started = Some(event["response"].clone());
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.terminal = Some(event["response"].clone());
            }
            "error" => {
                self.error = Some(
                    text_of(event, "message")
                        .unwrap_or("the stream failed")
                        .to_string(),
                );
            }
            kind @ ("response.output_item.added" | "response.output_item.done") => {
                let value = event["item"].clone();
                let key = Stream::key(text_of(&value, "id"), output_index);
                let item = self.item(key, output_index, "message");
                item.output_index = output_index;
                item.value = value;
                item.done = kind == "response.output_item.done";
            }
            "response.output_text.delta" => {
                let delta = text_of(event, "delta").unwrap_or_default().to_string();
                self.item(Stream::key(item_id, output_index), output_index, "message")
                    .text
                    .push_str(&delta);
                return Ok(delta);
            }
            "response.refusal.delta" => {
                let delta = text_of(event, "delta").unwrap_or_default();
                let key = Stream::key(item_id, output_index);
                self.item(key, output_index, "message")
                    .refusal
                    .push_str(delta);
            }
            "response.function_call_arguments.delta" => {
                let delta = text_of(event, "delta").unwrap_or_default();
                let item = self.item(
                    Stream::key(item_id, output_index),
                    output_index,
                    "function_call",
                );
                item.arguments
                    .get_or_insert_with(String::new)
                    .push_str(delta);
            }
            "response.function_call_arguments.done" => {
                let item = self.item(
                    Stream::key(item_id, output_index),
                    output_index,
                    "function_call",
                );
                if let Some(arguments) = text_of(event, "arguments") {
                    item.arguments = Some(arguments.to_string());
                }
                if let (Some(name), None) = (text_of(event, "name"), text_of(&item.value, "name")) {
                    item.value["name"] = json!(name);
                }
            }
            _ => {}
        }
        Ok(String::new())
    }

    fn response(&self) -> Value {
        let accumulated = self.accumulated();
        let mut response = self
            .terminal
            .clone()
            .or_else(|| self.started.clone())
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({}));
        let terminal_output = self
            .terminal
            .as_ref()
            .map(|t| items(t, "output").to_vec())
            .unwrap_or_default();
        let output = if terminal_output.is_empty() {
            accumulated
        } else {
            let mut output = terminal_output;
            let known: Vec<String> = output
                .iter()
                .filter_map(call_identity)
                .map(str::to_string)
                .collect();
            output.extend(accumulated.into_iter().filter(|item| {
                call_identity(item).is_some_and(|id| !known.iter().any(|k| k == id))
            }));
            output
        };
        response["output"] = Value::Array(output);
        match (&self.terminal, &self.error) {
            (None, Some(message)) => {
                response["status"] = json!("failed");
                response["error"] = json!({"message": message});
            }
            (None, None) => {
                response["status"] = json!("completed");
            }
            _ => {}
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
    fn maps_tools_choices_and_history_with_reasoning_items() {
        assert_request_fixture("openai_responses_request.json", to_request);
    }

    #[test]
    fn tool_choice_forms() {
        assert_eq!(to_tool_choice(&ToolChoice::Auto), json!("auto"));
        assert_eq!(to_tool_choice(&ToolChoice::None), json!("none"));
        assert_eq!(to_tool_choice(&ToolChoice::Required), json!("required"));
        assert_eq!(
            to_tool_choice(&ToolChoice::Named("f".into())),
            json!({"type": "function", "name": "f"})
        );
    }

    #[test]
    fn parallel_calls_with_and_without_streaming() {
        assert_answer_fixture(
            "openai_responses_parallel.json",
            from_response,
            Stream::new(),
        );
    }

    #[test]
    fn foreign_item_ids_are_not_replayed() {
        // nodetool#4252: replaying `id: "call_…"` → 400 "Expected an ID that begins with 'fc'".
        let messages = ChatMessage::parse_list(
            &json!([{"role": "assistant", "content": "", "toolCalls": [
                {"id": "call_9", "type": "function", "function": {"name": "f", "arguments": "{}"}, "providerData": {"openaiResponses": {"itemId": "call_9"}}},
                {"id": "toolu_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ]}]),
            "messages",
        )
        .unwrap();
        let input = to_input(&messages);
        assert_eq!(
            input[0],
            json!({"type": "function_call", "call_id": "call_9", "name": "f", "arguments": "{}"})
        );
        assert!(input[1].get("id").is_none());
    }

    #[test]
    fn incomplete_turns_never_report_calls() {
        // strands#4135, LibreChat agents#280: max_output_tokens after a started function_call.
        let response = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": [
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{\"pa", "status": "incomplete"}
        ]});
        let result = result_of(from_response(&response));
        assert_eq!(result["finishReason"], "length");
        assert_eq!(result["rawFinishReason"], "max_output_tokens");
        assert!(result.get("toolCalls").is_none());
        // A call item left incomplete on an otherwise "completed" response is cut too.
        let response = json!({"status": "completed", "output": [
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{\"pa", "status": "incomplete"}
        ]});
        assert_eq!(
            result_of(from_response(&response))["finishReason"],
            "length"
        );
        let failed = result_of(from_response(
            &json!({"status": "failed", "error": {"code": "server_error", "message": "boom"}, "output": []}),
        ));
        assert_eq!(failed["finishReason"], "error");
        assert_eq!(failed["errorMessage"], "boom");
        let refused = result_of(from_response(&json!({"status": "completed", "output": [
            {"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]}
        ]})));
        assert_eq!(refused["finishReason"], "error");
        assert_eq!(refused["errorMessage"], "No.");
    }

    #[test]
    fn stream_reconciles_from_the_completed_output_when_item_done_is_skipped() {
        // opencode#46084: no output_item.done; the completed output has the whole items.
        let events = json!([
            {"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "", "status": "in_progress"}},
            {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": "{\"a\":"},
            {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": "1}"},
            {"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "g", "arguments": "", "status": "in_progress"}},
            {"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_2", "delta": "{}"},
            {"type": "response.completed", "response": {"status": "completed", "output": [
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{\"a\":1}", "status": "completed"}
            ]}}
        ]);
        let (_, result) = stream_result(Stream::new(), &events);
        assert_eq!(result["finishReason"], "tool_calls");
        let calls = result["toolCalls"].as_array().unwrap();
        assert_eq!(calls.len(), 2, "{result}");
        assert_eq!(calls[0]["id"], "call_1");
        assert_eq!(calls[0]["function"]["arguments"], "{\"a\":1}");
        assert_eq!(calls[1]["id"], "call_2");
        assert_eq!(calls[1]["function"]["arguments"], "{}");
        assert_eq!(
            calls[1]["providerData"]["openaiResponses"]["itemId"],
            "fc_2"
        );
    }

    #[test]
    fn stream_without_terminal_output_uses_the_accumulated_items() {
        let events = json!([
            {"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": [], "status": "in_progress"}},
            {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": "Hel"},
            {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": "lo"},
            {"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_7", "delta": "{\"q\":2}"},
            {"type": "response.function_call_arguments.done", "output_index": 1, "item_id": "fc_7", "name": "lookup", "arguments": "{\"q\":2}"},
            {"type": "response.completed", "response": {"status": "completed", "output": []}}
        ]);
        let (text, result) = stream_result(Stream::new(), &events);
        assert_eq!(text, "Hello");
        assert_eq!(result["content"], "Hello");
        // No call_id was ever announced: the item id is the call's id.
        assert_eq!(result["toolCalls"][0]["id"], "fc_7");
        assert_eq!(
            result["toolCalls"][0]["function"],
            json!({"name": "lookup", "arguments": "{\"q\":2}"})
        );
    }

    #[test]
    fn stream_error_event_fails_the_turn() {
        let events = json!([
            {"type": "response.output_text.delta", "output_index": 0, "item_id": "m", "delta": "x"},
            {"type": "error", "code": "server_error", "message": "overloaded"}
        ]);
        let (_, result) = stream_result(Stream::new(), &events);
        assert_eq!(result["finishReason"], "error");
        assert_eq!(result["errorMessage"], "overloaded");
    }
}
