//! Provider adapters for JavaScript: one function per pure mapping (named as the public
//! JavaScript function it serves: `toAnthropicRequest`, ...; its input object as JSON text in,
//! the mapped value as JSON text and the warnings out), and one class per stream accumulator.
//! `js/providers.cjs` does the JSON.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use agent_tools_providers::{
    self as providers, anthropic, common::ProviderError, gemini, ollama, openai_chat,
    openai_responses,
};
use serde_json::Value;

fn invalid_arg(e: ProviderError) -> Error {
    Error::new(Status::InvalidArg, e.0)
}

/// What a provider mapping answers.
#[napi(object, object_from_js = false)]
pub struct ProviderMapped {
    /// The mapped value as JSON text.
    pub value: String,
    /// The documented downgrades the mapping made (the JavaScript layer reports them).
    pub warnings: Vec<String>,
}

/// Runs `mapping` on `input` (JSON text).
fn run(
    mapping: fn(&Value) -> providers::common::Result<providers::common::Mapped>,
    input: &str,
) -> Result<ProviderMapped> {
    let input = providers::input_from_json(input).map_err(invalid_arg)?;
    let mapped = mapping(&input).map_err(invalid_arg)?;
    Ok(ProviderMapped {
        value: mapped.value.to_string(),
        warnings: mapped.warnings,
    })
}

/// One napi function per mapping, named as the public JavaScript function it serves; its input
/// is that function's input object as JSON text.
macro_rules! mapping {
    ($(#[doc = $doc:literal] $name:ident => $js:literal,)*) => {$(
        #[doc = $doc]
        #[napi(catch_unwind, js_name = $js)]
        pub fn $name(input: String) -> Result<ProviderMapped> {
            run(providers::$name, &input)
        }
    )*};
}

mapping! {
    #[doc = "`toOpenAIChatTools` (js/providers.cjs); input: `{ tools }`."]
    to_openai_chat_tools => "toOpenAIChatTools",
    #[doc = "`toOpenAIChatToolChoice` (js/providers.cjs); input: `{ toolChoice }`."]
    to_openai_chat_tool_choice => "toOpenAIChatToolChoice",
    #[doc = "`toOpenAIChatRequest` (js/providers.cjs); input: `{ messages, tools?, toolChoice?, parallelToolCalls?, compat? }`."]
    to_openai_chat_request => "toOpenAIChatRequest",
    #[doc = "`fromOpenAIChatResponse` (js/providers.cjs); input: a `ChatCompletion`."]
    from_openai_chat_response => "fromOpenAIChatResponse",
    #[doc = "`toOpenAIResponsesTools` (js/providers.cjs); input: `{ tools }`."]
    to_openai_responses_tools => "toOpenAIResponsesTools",
    #[doc = "`toOpenAIResponsesToolChoice` (js/providers.cjs); input: `{ toolChoice }`."]
    to_openai_responses_tool_choice => "toOpenAIResponsesToolChoice",
    #[doc = "`toOpenAIResponsesRequest` (js/providers.cjs); input: `{ messages, tools?, toolChoice?, parallelToolCalls? }`."]
    to_openai_responses_request => "toOpenAIResponsesRequest",
    #[doc = "`fromOpenAIResponsesResponse` (js/providers.cjs); input: a Responses API `Response`."]
    from_openai_responses_response => "fromOpenAIResponsesResponse",
    #[doc = "`toAnthropicTools` (js/providers.cjs); input: `{ tools }`."]
    to_anthropic_tools => "toAnthropicTools",
    #[doc = "`toAnthropicToolChoice` (js/providers.cjs); input: `{ toolChoice, thinking?, parallelToolCalls? }`."]
    to_anthropic_tool_choice => "toAnthropicToolChoice",
    #[doc = "`toAnthropicRequest` (js/providers.cjs); input: `{ messages, tools?, toolChoice?, parallelToolCalls?, thinking? }`."]
    to_anthropic_request => "toAnthropicRequest",
    #[doc = "`fromAnthropicResponse` (js/providers.cjs); input: an Anthropic `Message`."]
    from_anthropic_response => "fromAnthropicResponse",
    #[doc = "`toGeminiTools` (js/providers.cjs); input: `{ tools, schema? }`."]
    to_gemini_tools => "toGeminiTools",
    #[doc = "`toGeminiToolChoice` (js/providers.cjs); input: `{ toolChoice }`."]
    to_gemini_tool_choice => "toGeminiToolChoice",
    #[doc = "`toGeminiRequest` (js/providers.cjs); input: `{ messages, tools?, toolChoice?, schema?, thoughtSignatureForForeignCalls? }`."]
    to_gemini_request => "toGeminiRequest",
    #[doc = "`fromGeminiResponse` (js/providers.cjs); input: a `GenerateContentResponse`."]
    from_gemini_response => "fromGeminiResponse",
    #[doc = "`toOllamaTools` (js/providers.cjs); input: `{ tools }`."]
    to_ollama_tools => "toOllamaTools",
    #[doc = "`toOllamaRequest` (js/providers.cjs); input: `{ messages, tools?, toolChoice? }`."]
    to_ollama_request => "toOllamaRequest",
    #[doc = "`fromOllamaResponse` (js/providers.cjs); input: an Ollama `ChatResponse`."]
    from_ollama_response => "fromOllamaResponse",
    #[doc = "`checkToolHistory` (js/providers.cjs); input: `{ messages, provider }`."]
    check_tool_history => "checkToolHistory",
    #[doc = "`toolCallIdMap` (js/providers.cjs); input: `{ messages, provider }`."]
    tool_call_id_map => "toolCallIdMap",
}

/// A stream accumulator class: `push(chunkJson)` answers the text delta, `finish()` the
/// `QueryResult` JSON, `response()` the rebuilt non-streaming response JSON.
macro_rules! stream_class {
    ($class:ident, $js:literal, $inner:ty) => {
        #[napi(js_name = $js)]
        pub struct $class {
            inner: $inner,
        }

        #[napi]
        impl $class {
            #[napi(constructor)]
            #[allow(clippy::new_without_default)]
            pub fn new() -> Self {
                $class {
                    inner: <$inner>::new(),
                }
            }

            /// Feeds one chunk / event (JSON text); answers the text it adds.
            #[napi(catch_unwind)]
            pub fn push(&mut self, chunk: String) -> Result<String> {
                providers::push_json(&mut self.inner, &chunk).map_err(invalid_arg)
            }

            /// The `QueryResult` of everything fed so far (JSON text).
            #[napi(catch_unwind)]
            pub fn finish(&self) -> Result<String> {
                providers::finish_json(&self.inner).map_err(invalid_arg)
            }

            /// The provider's non-streaming response equivalent to everything fed so far.
            #[napi(catch_unwind)]
            pub fn response(&self) -> String {
                providers::response_json(&self.inner)
            }
        }
    };
}

stream_class!(OpenAiChatStream, "OpenAIChatStream", openai_chat::Stream);
stream_class!(
    OpenAiResponsesStream,
    "OpenAIResponsesStream",
    openai_responses::Stream
);
stream_class!(AnthropicStream, "AnthropicStream", anthropic::Stream);
stream_class!(GeminiStream, "GeminiStream", gemini::Stream);
stream_class!(OllamaStream, "OllamaStream", ollama::Stream);
