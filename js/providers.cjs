"use strict";
// Provider adapters: map our common tool-calling types to and from the wire formats of OpenAI
// Chat Completions, the OpenAI Responses API, Anthropic Messages, Gemini / Vertex AI and Ollama.
// All logic is native (crates/agent-tools-core/src/providers); this layer only does JSON and warnings.

const native = require("./native.cjs").loadNative();

/** Runs a native mapping; bad input throws a TypeError, downgrades go to `onWarning`. */
function run(op, input, onWarning) {
  let out;
  try {
    out = JSON.parse(native.providerCall(op, JSON.stringify(input ?? null)));
  } catch (error) {
    throw new TypeError(`${op}: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const warning of out.warnings) {
    if (typeof onWarning === "function") onWarning(warning);
    else process.emitWarning(warning, "ProviderWarning");
  }
  return out.value;
}

/** Options as sent to the core (callbacks stay here). */
function optionsOf(options) {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError("options must be an object");
  }
  return options ?? {};
}

const request = (op) => (options) => {
  const opts = optionsOf(options);
  return run(op, opts, opts.onWarning);
};
const tools = (op) => (definitions) => run(op, { tools: definitions });
const toolChoice = (op) => (choice) => run(op, { toolChoice: choice });
const response = (op) => (value) => run(op, value);

/** Wraps a native accumulator: chunks in as the SDK yields them, text deltas out. */
class ProviderStream {
  #native;

  constructor(nativeStream) {
    this.#native = nativeStream;
  }

  /** Feeds one chunk (event) exactly as the SDK yielded it; returns the text it adds ("" if none). */
  push(chunk) {
    try {
      return this.#native.push(JSON.stringify(chunk ?? null));
    } catch (error) {
      throw new TypeError(`push: ${error.message}`);
    }
  }

  /** The QueryResult of everything pushed so far. */
  finish() {
    return JSON.parse(this.#native.finish());
  }

  /** Feeds every chunk of an SDK stream and yields the text deltas as they arrive. */
  async *textStream(stream) {
    for await (const chunk of stream) {
      const text = this.push(chunk);
      if (text) yield text;
    }
  }
}

const stream = (NativeStream) => () => new ProviderStream(new NativeStream());

/** `message` is an assistant message with at least one tool call. */
function hasToolCalls(message) {
  return message != null && message.role === "assistant" && Array.isArray(message.toolCalls) && message.toolCalls.length > 0;
}

/** `message` is a tool result (`role: "tool"`). */
function isToolResult(message) {
  return message != null && message.role === "tool";
}

module.exports = {
  hasToolCalls,
  isToolResult,
  checkToolHistory: (messages, provider) => run("checkToolHistory", { messages, provider }),
  toolCallIdMap: (messages, provider) => run("toolCallIdMap", { messages, provider }),

  toOpenAIChatTools: tools("toOpenAIChatTools"),
  toOpenAIChatToolChoice: toolChoice("toOpenAIChatToolChoice"),
  toOpenAIChatRequest: request("toOpenAIChatRequest"),
  fromOpenAIChatResponse: response("fromOpenAIChatResponse"),
  createOpenAIChatStream: stream(native.OpenAIChatStream),

  toOpenAIResponsesTools: tools("toOpenAIResponsesTools"),
  toOpenAIResponsesToolChoice: toolChoice("toOpenAIResponsesToolChoice"),
  toOpenAIResponsesRequest: request("toOpenAIResponsesRequest"),
  fromOpenAIResponsesResponse: response("fromOpenAIResponsesResponse"),
  createOpenAIResponsesStream: stream(native.OpenAIResponsesStream),

  toAnthropicTools: tools("toAnthropicTools"),
  toAnthropicToolChoice(choice, options) {
    const opts = optionsOf(options);
    return run("toAnthropicToolChoice", { ...opts, toolChoice: choice }, opts.onWarning);
  },
  toAnthropicRequest: request("toAnthropicRequest"),
  fromAnthropicResponse: response("fromAnthropicResponse"),
  createAnthropicStream: stream(native.AnthropicStream),

  toGeminiTools: (definitions, options) => run("toGeminiTools", { ...optionsOf(options), tools: definitions }),
  toGeminiToolChoice: toolChoice("toGeminiToolChoice"),
  toGeminiRequest: request("toGeminiRequest"),
  fromGeminiResponse: response("fromGeminiResponse"),
  createGeminiStream: stream(native.GeminiStream),

  toOllamaTools: tools("toOllamaTools"),
  toOllamaRequest: request("toOllamaRequest"),
  fromOllamaResponse: response("fromOllamaResponse"),
  createOllamaStream: stream(native.OllamaStream),
};
