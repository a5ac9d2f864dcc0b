//! Ollama's native `/api/chat` (the `ollama` npm client's `chat()`).
//!
//! - Tools use the OpenAI shape (without `strict`).
//! - Arguments travel as **objects** both ways: history sent back carries objects (a JSON string
//!   gets 400 "Value looks like object, but can't find closing '}' symbol"), and a response
//!   whose model emitted stringified arguments is read as well.
//! - Calls may come without `id`: we invent one (Ollama never gets ids back). Results are
//!   `{ role: "tool", content, tool_name }`, the name taken from the message or its call.
//! - There is no `tool_choice`: `none` is emulated by sending no tools; a named choice sends only
//!   that tool and `required` sends all of them — both best-effort, with a warning (check
//!   `result.toolCalls`). There is no parallel switch either.
//! - `done_reason: "stop"` even with calls: calls decide; `length` → `length`.
//!
//! Streaming: calls arrive whole in a chunk; text and thinking are concatenated.

use serde_json::{json, Map, Value};

use super::common::{
    arguments_object, arguments_text, check_name, count, data_of, find_call, invalid, items,
    set_data, synthetic_call_id, text_of, tools_missing_warnings, ChatMessage, Ending, Mapped,
    RequestInput, Result, ToolCall, ToolChoice, ToolDef, Turn, Usage,
};
use super::stream::StreamAccumulator;

const PROVIDER: &str = "Ollama";
/// The `providerData` key.
pub const DATA: &str = "ollama";

/// `Tool[]`.
pub fn to_tools(tools: &[ToolDef]) -> Result<Value> {
    tools
        .iter()
        .map(|tool| {
            check_name(
                &tool.name,
                !tool.name.is_empty(),
                PROVIDER,
                "a non-empty name",
            )?;
            let mut function = Map::new();
            function.insert("name".into(), json!(tool.name));
            if let Some(d) = &tool.description {
                function.insert("description".into(), json!(d));
            }
            if let Some(p) = &tool.parameters {
                function.insert("parameters".into(), p.clone());
            }
            Ok(json!({"type": "function", "function": function}))
        })
        .collect::<Result<Vec<_>>>()
        .map(Value::Array)
}

/// `Message[]`.
pub fn to_messages(messages: &[ChatMessage]) -> Value {
    Value::Array(
        messages
            .iter()
            .map(|message| match message {
                ChatMessage::System(content) => json!({"role": "system", "content": content}),
                ChatMessage::User(content) => json!({"role": "user", "content": content}),
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                    provider_data,
                } => {
                    let mut out = json!({"role": "assistant", "content": content});
                    if let Some(thinking) = data_of(provider_data, DATA, "thinking") {
                        out["thinking"] = thinking.clone();
                    }
                    if !tool_calls.is_empty() {
                        out["tool_calls"] = tool_calls
                            .iter()
                            .map(|c| json!({"function": {"name": c.name, "arguments": arguments_object(&c.arguments)}}))
                            .collect();
                    }
                    out
                }
                ChatMessage::Tool {
                    content,
                    tool_call_id,
                    name,
                    ..
                } => {
                    let mut out = json!({"role": "tool", "content": content});
                    if let Some(name) = name.clone().or_else(|| find_call(messages, tool_call_id).map(|c| c.name.clone())) {
                        out["tool_name"] = json!(name);
                    }
                    out
                }
            })
            .collect(),
    )
}

/// `{ messages, tools? }` for `ollama.chat` (add `model`).
pub fn to_request(input: &RequestInput) -> Result<Mapped> {
    let mut warnings = Vec::new();
    let mut request = json!({"messages": to_messages(&input.messages)});
    let tools: Vec<ToolDef> = match &input.tool_choice {
        Some(ToolChoice::None) => Vec::new(),
        Some(ToolChoice::Named(name)) => {
            let named: Vec<ToolDef> = input
                .tools
                .iter()
                .filter(|t| &t.name == name)
                .cloned()
                .collect();
            if named.is_empty() && !input.tools.is_empty() {
                return Err(invalid(format!(
                    "toolChoice names {name:?}, which is not among the tools"
                )));
            }
            if !named.is_empty() {
                warnings.push(format!(
                    "Ollama: /api/chat cannot force a tool; only {name:?} is offered, so a call is likely but not guaranteed"
                ));
            }
            named
        }
        Some(ToolChoice::Required) if !input.tools.is_empty() => {
            warnings.push("Ollama: /api/chat cannot force a tool call; toolChoice \"required\" is best-effort".into());
            input.tools.clone()
        }
        _ => input.tools.clone(),
    };
    if !tools.is_empty() {
        request["tools"] = to_tools(&tools)?;
        if input.parallel_tool_calls == Some(false) {
            warnings.push("Ollama: there is no switch to turn parallel calls off; parallelToolCalls: false is ignored".into());
        }
    }
    tools_missing_warnings(input, PROVIDER, &mut warnings);
    Ok(Mapped {
        value: request,
        warnings,
    })
}

/// A `ChatResponse` → turn.
pub fn from_response(response: &Value) -> Result<Turn> {
    if !response.is_object() {
        return Err(invalid("the chat response must be an object"));
    }
    let message = &response["message"];
    let calls = items(message, "tool_calls")
        .iter()
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
    let reason = text_of(response, "done_reason");
    let ending = match reason {
        Some("length") => Ending::Truncated,
        _ => Ending::Natural,
    };
    let mut turn = Turn::new(
        text_of(message, "content").unwrap_or_default().to_string(),
        calls,
        ending,
    );
    turn.raw_finish_reason = reason.map(str::to_string);
    turn.usage = Usage::from_counts(
        count(response, "prompt_eval_count"),
        count(response, "eval_count"),
    );
    if let Some(thinking) = text_of(message, "thinking").filter(|t| !t.is_empty()) {
        let mut data = None;
        set_data(&mut data, DATA, "thinking", json!(thinking));
        turn.provider_data = data;
    }
    Ok(turn)
}

/// Accumulates the `ChatResponse` chunks of `chat({ stream: true })`.
#[derive(Debug, Default)]
pub struct Stream {
    content: String,
    thinking: String,
    tool_calls: Vec<Value>,
    last: Option<Value>,
}

impl Stream {
    pub fn new() -> Stream {
        Stream::default()
    }
}

impl StreamAccumulator for Stream {
    fn push(&mut self, chunk: &Value) -> Result<String> {
        if !chunk.is_object() {
            return Err(invalid("a chat chunk must be an object"));
        }
        let message = &chunk["message"];
        let text = text_of(message, "content").unwrap_or_default().to_string();
        self.content.push_str(&text);
        self.thinking
            .push_str(text_of(message, "thinking").unwrap_or_default());
        self.tool_calls
            .extend(items(message, "tool_calls").iter().cloned());
        self.last = Some(chunk.clone());
        Ok(text)
    }

    fn response(&self) -> Value {
        let mut response = self.last.clone().unwrap_or_else(|| json!({}));
        let mut message = json!({"role": "assistant", "content": self.content});
        if !self.thinking.is_empty() {
            message["thinking"] = json!(self.thinking);
        }
        if !self.tool_calls.is_empty() {
            message["tool_calls"] = Value::Array(self.tool_calls.clone());
        }
        response["message"] = message;
        response
    }

    fn parse(&self, response: &Value) -> Result<Turn> {
        from_response(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_answer_fixture, assert_request_fixture, result_of};

    #[test]
    fn maps_history_with_object_arguments_and_tool_names() {
        assert_request_fixture("ollama_request.json", to_request);
    }

    #[test]
    fn tool_choice_is_emulated_with_warnings() {
        let base = json!({"messages": [], "tools": [
            {"type": "function", "function": {"name": "f"}},
            {"type": "function", "function": {"name": "g"}}
        ]});
        let with = |choice: Value| {
            let mut input = base.clone();
            input["toolChoice"] = choice;
            to_request(&RequestInput::parse(&input).unwrap())
        };
        let none = with(json!("none")).unwrap();
        assert!(none.value.get("tools").is_none());
        assert!(none.warnings.is_empty());
        let auto = with(json!("auto")).unwrap();
        assert_eq!(auto.value["tools"].as_array().unwrap().len(), 2);
        let required = with(json!("required")).unwrap();
        assert_eq!(required.value["tools"].as_array().unwrap().len(), 2);
        assert_eq!(required.warnings.len(), 1);
        let named = with(json!({"type": "function", "function": {"name": "g"}})).unwrap();
        assert_eq!(
            named.value["tools"],
            json!([{"type": "function", "function": {"name": "g"}}])
        );
        assert_eq!(named.warnings.len(), 1);
        assert!(with(json!({"type": "function", "function": {"name": "h"}}))
            .unwrap_err()
            .0
            .contains("not among the tools"));
    }

    #[test]
    fn parallel_calls_with_and_without_streaming() {
        assert_answer_fixture("ollama_parallel.json", from_response, Stream::new());
    }

    #[test]
    fn stringified_arguments_are_read_and_length_is_a_cut() {
        // ollama#12413: some models emit stringified arguments.
        let result = result_of(from_response(
            &json!({"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "f", "arguments": "{\"a\":1}"}}
        ]}, "done": true, "done_reason": "stop"}),
        ));
        assert_eq!(result["finishReason"], "tool_calls");
        assert_eq!(result["toolCalls"][0]["function"]["arguments"], "{\"a\":1}");
        let cut = result_of(from_response(
            &json!({"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "f", "arguments": {}}}
        ]}, "done": true, "done_reason": "length"}),
        ));
        assert_eq!(cut["finishReason"], "length");
        assert!(cut.get("toolCalls").is_none());
    }
}
