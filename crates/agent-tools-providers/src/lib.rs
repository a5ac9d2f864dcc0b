//! Provider adapters: pure mappings between our common, OpenAI-shaped tool-calling types and the
//! wire formats of OpenAI Chat Completions, the OpenAI Responses API, Anthropic Messages, Google
//! Gemini / Vertex AI (`@google/genai`) and Ollama `/api/chat`, in both directions, plus stream
//! accumulators, a history check and provider-safe call ids. No HTTP: users keep their SDKs.
//!
//! Everything works on `serde_json::Value`; `call` is the single entry point the binding uses
//! (operation name = the public JavaScript function name, JSON in, `{ value, warnings }` out).

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

/// Runs the operation `op` (a public function name) on `input`:
/// - `to<P>Tools`: `{ tools, ...options }`; `to<P>ToolChoice`: `{ toolChoice, ...options }`;
/// - `to<P>Request`: `{ messages, tools?, toolChoice?, parallelToolCalls?, ...options }`;
/// - `from<P>Response`: the provider's response object;
/// - `checkToolHistory` / `toolCallIdMap`: `{ messages, provider }`.
pub fn call(op: &str, input: &Value) -> Result<Mapped> {
    let plain = |v: Result<Value>| v.map(Mapped::plain);
    let turn = |t: Result<common::Turn>| t.map(|t| Mapped::plain(t.to_json()));
    match op {
        "toOpenAIChatTools" => plain(openai_chat::to_tools(&tools_of(input)?)),
        "toOpenAIChatToolChoice" => Ok(Mapped::plain(openai_chat::to_tool_choice(&choice_of(
            input,
        )?))),
        "toOpenAIChatRequest" => openai_chat::to_request(&RequestInput::parse(input)?),
        "fromOpenAIChatResponse" => turn(openai_chat::from_response(input)),

        "toOpenAIResponsesTools" => plain(openai_responses::to_tools(&tools_of(input)?)),
        "toOpenAIResponsesToolChoice" => Ok(Mapped::plain(openai_responses::to_tool_choice(
            &choice_of(input)?,
        ))),
        "toOpenAIResponsesRequest" => openai_responses::to_request(&RequestInput::parse(input)?),
        "fromOpenAIResponsesResponse" => turn(openai_responses::from_response(input)),

        "toAnthropicTools" => plain(anthropic::to_tools(&tools_of(input)?)),
        "toAnthropicToolChoice" => anthropic::to_tool_choice(
            Some(&choice_of(input)?),
            &anthropic::ChoiceOptions::parse(input)?,
        )
        .map(|(value, warnings)| Mapped {
            value: value.unwrap_or(Value::Null),
            warnings,
        }),
        "toAnthropicRequest" => anthropic::to_request(&RequestInput::parse(input)?),
        "fromAnthropicResponse" => turn(anthropic::from_response(input)),

        "toGeminiTools" => plain(gemini::to_tools(
            &tools_of(input)?,
            gemini::SchemaMode::parse(input)?,
        )),
        "toGeminiToolChoice" => Ok(Mapped::plain(gemini::to_tool_config(&choice_of(input)?))),
        "toGeminiRequest" => gemini::to_request(&RequestInput::parse(input)?),
        "fromGeminiResponse" => turn(gemini::from_response(input)),

        "toOllamaTools" => plain(ollama::to_tools(&tools_of(input)?)),
        "toOllamaRequest" => ollama::to_request(&RequestInput::parse(input)?),
        "fromOllamaResponse" => turn(ollama::from_response(input)),

        "checkToolHistory" => {
            let provider = Provider::parse(input.get("provider").unwrap_or(&Value::Null))?;
            let problems = history::check(&messages_of(input)?, provider);
            Ok(Mapped::plain(Value::Array(
                problems.iter().map(history::Problem::to_json).collect(),
            )))
        }
        "toolCallIdMap" => {
            let provider = Provider::parse(input.get("provider").unwrap_or(&Value::Null))?;
            Ok(Mapped::plain(history::id_map(
                &messages_of(input)?,
                provider,
            )))
        }
        other => Err(invalid(format!("unknown provider operation {other:?}"))),
    }
}

/// `call` on JSON text, answering JSON text `{ value, warnings }`.
pub fn call_json(op: &str, input: &str) -> Result<String> {
    let input: Value =
        serde_json::from_str(input).map_err(|e| invalid(format!("invalid JSON input: {e}")))?;
    Ok(call(op, &input)?.to_json().to_string())
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
    fn unknown_operations_and_bad_json_are_errors() {
        assert!(call("nope", &json!({}))
            .unwrap_err()
            .0
            .contains("unknown provider operation"));
        assert!(call_json("toOpenAIChatTools", "{")
            .unwrap_err()
            .0
            .starts_with("invalid JSON input"));
    }

    #[test]
    fn history_operations() {
        let input = json!({"provider": "anthropic", "messages": [
            {"role": "assistant", "content": "", "toolCalls": [{"id": "a.b", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
        ]});
        let problems = call("checkToolHistory", &input).unwrap().value;
        assert_eq!(problems[0]["kind"], "unanswered_call");
        assert_eq!(problems[0]["messageIndex"], 0);
        let map = call("toolCallIdMap", &input).unwrap().value;
        assert_eq!(
            map.as_object().unwrap().values().next(),
            Some(&json!("a.b"))
        );
        let err = call(
            "checkToolHistory",
            &json!({"provider": "x", "messages": []}),
        )
        .unwrap_err();
        assert!(err.0.starts_with("provider must be one of"));
    }
}
