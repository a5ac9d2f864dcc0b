//! Provider adapters for JavaScript: one JSON-text-in / JSON-text-out entry point for the pure
//! mappings, and one class per stream accumulator. `js/providers.cjs` does the JSON.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use agent_tools_providers::{
    self as providers, anthropic, common::ProviderError, gemini, ollama, openai_chat,
    openai_responses,
};

fn invalid_arg(e: ProviderError) -> Error {
    Error::new(Status::InvalidArg, e.0)
}

/// Runs the provider mapping `op` (a public function name such as `toAnthropicRequest`) on
/// `input` (JSON text); answers `{ value, warnings }` as JSON text.
#[napi(catch_unwind)]
pub fn provider_call(op: String, input: String) -> Result<String> {
    providers::call_json(&op, &input).map_err(invalid_arg)
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
