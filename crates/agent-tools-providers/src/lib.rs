//! Provider adapters: pure mappings between our common, OpenAI-shaped tool-calling types and the
//! wire formats of OpenAI Chat Completions, the OpenAI Responses API, Anthropic Messages, Google
//! Gemini / Vertex AI (`@google/genai`) and Ollama `/api/chat`, in both directions, plus stream
//! accumulators, a history check and provider-safe call ids. No HTTP: users keep their SDKs.
//!
//! Everything works on `serde_json::Value`. The binding calls one function per public JavaScript
//! function (`to_anthropic_request` for `toAnthropicRequest`, ...): the function's input object
//! in, the mapped value and its warnings (`Mapped`) out.

pub mod anthropic;
pub mod common;
pub mod gemini;
pub mod history;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;
pub mod stream;
#[cfg(test)]
mod testing;

use serde_json::{json, Value};

use common::{invalid, ChatMessage, Mapped, Provider, RequestInput, Result, ToolChoice, ToolDef};
pub use stream::StreamAccumulator;

fn tools_of(input: &Value) -> Result<Vec<ToolDef>> {
    ToolDef::parse_list(input.get("tools").unwrap_or(&Value::Null), "tools")
}

fn choice_of(input: &Value) -> Result<ToolChoice> {
    ToolChoice::parse(
        input.get("toolChoice").unwrap_or(&Value::Null),
        "toolChoice",
    )
}

fn messages_of(input: &Value) -> Result<Vec<ChatMessage>> {
    ChatMessage::parse_list(input.get("messages").unwrap_or(&Value::Null), "messages")
}

// ---- the operations: one per public JavaScript function, each on that function's input ----------
// - `to<P>Tools`: `{ tools, ...options }`; `to<P>ToolChoice`: `{ toolChoice, ...options }`;
// - `to<P>Request`: `{ messages, tools?, toolChoice?, parallelToolCalls?, ...options }`;
// - `from<P>Response`: the provider's response object;
// - `checkToolHistory` / `toolCallIdMap`: `{ messages, provider }`.

fn plain(value: Result<Value>) -> Result<Mapped> {
    value.map(Mapped::plain)
}

fn turn(turn: Result<common::Turn>) -> Result<Mapped> {
    turn.map(|t| Mapped::plain(t.to_json()))
}

/// `toOpenAIChatTools`.
pub fn to_openai_chat_tools(input: &Value) -> Result<Mapped> {
    plain(openai_chat::to_tools(&tools_of(input)?))
}

/// `toOpenAIChatToolChoice`.
pub fn to_openai_chat_tool_choice(input: &Value) -> Result<Mapped> {
    Ok(Mapped::plain(openai_chat::to_tool_choice(&choice_of(
        input,
    )?)))
}

/// `toOpenAIChatRequest`.
pub fn to_openai_chat_request(input: &Value) -> Result<Mapped> {
    openai_chat::to_request(&RequestInput::parse(input)?)
}

/// `fromOpenAIChatResponse`.
pub fn from_openai_chat_response(input: &Value) -> Result<Mapped> {
    turn(openai_chat::from_response(input))
}

/// `toOpenAIResponsesTools`.
pub fn to_openai_responses_tools(input: &Value) -> Result<Mapped> {
    plain(openai_responses::to_tools(&tools_of(input)?))
}

/// `toOpenAIResponsesToolChoice`.
pub fn to_openai_responses_tool_choice(input: &Value) -> Result<Mapped> {
    Ok(Mapped::plain(openai_responses::to_tool_choice(&choice_of(
        input,
    )?)))
}

/// `toOpenAIResponsesRequest`.
pub fn to_openai_responses_request(input: &Value) -> Result<Mapped> {
    openai_responses::to_request(&RequestInput::parse(input)?)
}

/// `fromOpenAIResponsesResponse`.
pub fn from_openai_responses_response(input: &Value) -> Result<Mapped> {
    turn(openai_responses::from_response(input))
}

/// `toAnthropicTools`.
pub fn to_anthropic_tools(input: &Value) -> Result<Mapped> {
    plain(anthropic::to_tools(&tools_of(input)?))
}

/// `toAnthropicToolChoice`.
pub fn to_anthropic_tool_choice(input: &Value) -> Result<Mapped> {
    anthropic::to_tool_choice(
        Some(&choice_of(input)?),
        &anthropic::ChoiceOptions::parse(input)?,
    )
    .map(|(value, warnings)| Mapped {
        value: value.unwrap_or(Value::Null),
        warnings,
    })
}

/// `toAnthropicRequest`.
pub fn to_anthropic_request(input: &Value) -> Result<Mapped> {
    anthropic::to_request(&RequestInput::parse(input)?)
}

/// `fromAnthropicResponse`.
pub fn from_anthropic_response(input: &Value) -> Result<Mapped> {
    turn(anthropic::from_response(input))
}

/// `toGeminiTools`.
pub fn to_gemini_tools(input: &Value) -> Result<Mapped> {
    plain(gemini::to_tools(
        &tools_of(input)?,
        gemini::SchemaMode::parse(input)?,
    ))
}

/// `toGeminiToolChoice`.
pub fn to_gemini_tool_choice(input: &Value) -> Result<Mapped> {
    Ok(Mapped::plain(gemini::to_tool_config(&choice_of(input)?)))
}

/// `toGeminiRequest`.
pub fn to_gemini_request(input: &Value) -> Result<Mapped> {
    gemini::to_request(&RequestInput::parse(input)?)
}

/// `fromGeminiResponse`.
pub fn from_gemini_response(input: &Value) -> Result<Mapped> {
    turn(gemini::from_response(input))
}

/// `toOllamaTools`.
pub fn to_ollama_tools(input: &Value) -> Result<Mapped> {
    plain(ollama::to_tools(&tools_of(input)?))
}

/// `toOllamaRequest`.
pub fn to_ollama_request(input: &Value) -> Result<Mapped> {
    ollama::to_request(&RequestInput::parse(input)?)
}

/// `fromOllamaResponse`.
pub fn from_ollama_response(input: &Value) -> Result<Mapped> {
    turn(ollama::from_response(input))
}

/// `checkToolHistory`.
pub fn check_tool_history(input: &Value) -> Result<Mapped> {
    let provider = Provider::parse(input.get("provider").unwrap_or(&Value::Null))?;
    let problems = history::check(&messages_of(input)?, provider);
    Ok(Mapped::plain(Value::Array(
        problems.iter().map(history::Problem::to_json).collect(),
    )))
}

/// `toolCallIdMap`.
pub fn tool_call_id_map(input: &Value) -> Result<Mapped> {
    let provider = Provider::parse(input.get("provider").unwrap_or(&Value::Null))?;
    Ok(Mapped::plain(history::id_map(
        &messages_of(input)?,
        provider,
    )))
}

/// An operation's input given as JSON text.
pub fn input_from_json(input: &str) -> Result<Value> {
    serde_json::from_str(input).map_err(|e| invalid(format!("invalid JSON input: {e}")))
}

/// Feeds one chunk given as JSON text; answers the text delta.
pub fn push_json(acc: &mut dyn StreamAccumulator, chunk: &str) -> Result<String> {
    let chunk: Value =
        serde_json::from_str(chunk).map_err(|e| invalid(format!("invalid JSON chunk: {e}")))?;
    acc.push(&chunk)
}

/// The `QueryResult` of an accumulator as JSON text.
pub fn finish_json(acc: &dyn StreamAccumulator) -> Result<String> {
    Ok(acc.finish()?.to_json().to_string())
}

/// The provider response an accumulator rebuilt, as JSON text (for debugging and tests).
pub fn response_json(acc: &dyn StreamAccumulator) -> String {
    json!(acc.response()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_json_is_an_error() {
        assert!(input_from_json("{")
            .unwrap_err()
            .0
            .starts_with("invalid JSON input"));
        assert_eq!(input_from_json("{\"a\": [1]}").unwrap(), json!({"a": [1]}));
    }

    #[test]
    fn history_operations() {
        let input = json!({"provider": "anthropic", "messages": [
            {"role": "assistant", "content": "", "toolCalls": [{"id": "a.b", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
        ]});
        let problems = check_tool_history(&input).unwrap().value;
        assert_eq!(problems[0]["kind"], "unanswered_call");
        assert_eq!(problems[0]["messageIndex"], 0);
        let map = tool_call_id_map(&input).unwrap().value;
        assert_eq!(
            map.as_object().unwrap().values().next(),
            Some(&json!("a.b"))
        );
        let err = check_tool_history(&json!({"provider": "x", "messages": []})).unwrap_err();
        assert!(err.0.starts_with("provider must be one of"));
    }
}
