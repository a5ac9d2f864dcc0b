"use strict";
// Generated from ts/providers.cts by `npm run build:ts`: edit that file, not this one.
// Provider adapters: one tool-calling model (OpenAI-shaped common types) mapped to and from OpenAI
// Chat Completions, the OpenAI Responses API, Anthropic Messages, Google Gemini / Vertex AI
// (`@google/genai`) and Ollama `/api/chat`. Pure functions: no HTTP of our own; you keep your
// vendor SDK client and spread our request fields into its call. The wire types below are the
// subsets we produce and read; our outputs are assignable to the SDKs' request types and the
// SDKs' response types are accepted by our parsers (checked by tsc in __test__/types).
//
// Naming: `to<Provider>Tools`, `to<Provider>ToolChoice`, `to<Provider>Request`,
// `from<Provider>Response`, `create<Provider>Stream`, with Provider one of OpenAIChat,
// OpenAIResponses, Anthropic, Gemini, Ollama (Ollama has no tool choice).
//
// Errors: malformed input (a message without `role`, a tool name the provider rejects, ...)
// throws a TypeError naming the function. Documented downgrades (a forced tool choice Anthropic
// cannot honour with thinking, Ollama's missing tool_choice, ...) call `onWarning`, or emit a
// process warning (`ProviderWarning`) when no `onWarning` is given.
//
// All logic is native (crates/agent-tools-providers, one binding function per mapping); this
// module does JSON and warnings.
exports.hasToolCalls = hasToolCalls;
exports.isToolResult = isToolResult;
exports.checkToolHistory = checkToolHistory;
exports.toolCallIdMap = toolCallIdMap;
exports.toOpenAIChatTools = toOpenAIChatTools;
exports.toOpenAIChatToolChoice = toOpenAIChatToolChoice;
exports.toOpenAIChatRequest = toOpenAIChatRequest;
exports.fromOpenAIChatResponse = fromOpenAIChatResponse;
exports.createOpenAIChatStream = createOpenAIChatStream;
exports.toOpenAIResponsesTools = toOpenAIResponsesTools;
exports.toOpenAIResponsesToolChoice = toOpenAIResponsesToolChoice;
exports.toOpenAIResponsesRequest = toOpenAIResponsesRequest;
exports.fromOpenAIResponsesResponse = fromOpenAIResponsesResponse;
exports.createOpenAIResponsesStream = createOpenAIResponsesStream;
exports.toAnthropicTools = toAnthropicTools;
exports.toAnthropicToolChoice = toAnthropicToolChoice;
exports.toAnthropicRequest = toAnthropicRequest;
exports.fromAnthropicResponse = fromAnthropicResponse;
exports.createAnthropicStream = createAnthropicStream;
exports.toGeminiTools = toGeminiTools;
exports.toGeminiToolChoice = toGeminiToolChoice;
exports.toGeminiRequest = toGeminiRequest;
exports.fromGeminiResponse = fromGeminiResponse;
exports.createGeminiStream = createGeminiStream;
exports.toOllamaTools = toOllamaTools;
exports.toOllamaRequest = toOllamaRequest;
exports.fromOllamaResponse = fromOllamaResponse;
exports.createOllamaStream = createOllamaStream;
const native_cjs_1 = require("./native.cjs");
const native = (0, native_cjs_1.loadNative)();
/**
 * Runs the native mapping of the public function `name`; bad input throws a TypeError naming
 * it, downgrades go to `onWarning`.
 */
function run(name, mapping, input, onWarning) {
    let out;
    try {
        const mapped = mapping(JSON.stringify(input ?? null));
        out = { value: JSON.parse(mapped.value), warnings: mapped.warnings };
    }
    catch (error) {
        throw new TypeError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
    for (const warning of out.warnings) {
        if (typeof onWarning === "function")
            onWarning(warning);
        else
            process.emitWarning(warning, "ProviderWarning");
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
/** Wraps a native accumulator: chunks in as the SDK yields them, text deltas out. */
const NativeProviderStream = class ProviderStream {
    #native;
    constructor(nativeStream) {
        this.#native = nativeStream;
    }
    /** Feeds one chunk (event) exactly as the SDK yielded it; returns the text it adds ("" if none). */
    push(chunk) {
        try {
            return this.#native.push(JSON.stringify(chunk ?? null));
        }
        catch (error) {
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
            if (text)
                yield text;
        }
    }
};
/** `message` is an assistant message with at least one tool call. */
function hasToolCalls(message) {
    if (message == null || message.role !== "assistant")
        return false;
    const calls = message.toolCalls;
    return Array.isArray(calls) && calls.length > 0;
}
/** `message` is a tool result. */
function isToolResult(message) {
    return message != null && message.role === "tool";
}
/** The pairing problems `provider` would reject the history for; `[]` when it can be sent. */
function checkToolHistory(messages, provider) {
    return run("checkToolHistory", native.checkToolHistory, { messages, provider });
}
/**
 * `{ providerId: originalId }` for the call ids a provider gets as aliases. Ids that already fit
 * (`[A-Za-z0-9_-]`, at most 40 characters for OpenAI Chat and 64 elsewhere) are sent as they are;
 * others get a stable alias (cleaned, hash-suffixed), the same on the call and its result.
 */
function toolCallIdMap(messages, provider) {
    return run("toolCallIdMap", native.toolCallIdMap, { messages, provider });
}
function toOpenAIChatTools(tools) {
    return run("toOpenAIChatTools", native.toOpenAIChatTools, { tools });
}
function toOpenAIChatToolChoice(choice) {
    return run("toOpenAIChatToolChoice", native.toOpenAIChatToolChoice, { toolChoice: choice });
}
function toOpenAIChatRequest(options) {
    const opts = optionsOf(options);
    return run("toOpenAIChatRequest", native.toOpenAIChatRequest, opts, opts.onWarning);
}
function fromOpenAIChatResponse(completion) {
    return run("fromOpenAIChatResponse", native.fromOpenAIChatResponse, completion);
}
/** Robust to a missing `index` and to a new `id` on a reused index (servers that put every call on index 0). */
function createOpenAIChatStream() {
    return new NativeProviderStream(new native.OpenAIChatStream());
}
function toOpenAIResponsesTools(tools) {
    return run("toOpenAIResponsesTools", native.toOpenAIResponsesTools, { tools });
}
function toOpenAIResponsesToolChoice(choice) {
    return run("toOpenAIResponsesToolChoice", native.toOpenAIResponsesToolChoice, { toolChoice: choice });
}
/** Reasoning items are replayed before their calls; item ids that do not start with `fc` are not sent. */
function toOpenAIResponsesRequest(options) {
    const opts = optionsOf(options);
    return run("toOpenAIResponsesRequest", native.toOpenAIResponsesRequest, opts, opts.onWarning);
}
/** `status: "incomplete"` (e.g. `max_output_tokens`) is `length`; `failed` / refusal is `error`. */
function fromOpenAIResponsesResponse(response) {
    return run("fromOpenAIResponsesResponse", native.fromOpenAIResponsesResponse, response);
}
/** Accumulates by `item_id`, emits by `call_id`, reconciles with the terminal response's output. */
function createOpenAIResponsesStream() {
    return new NativeProviderStream(new native.OpenAIResponsesStream());
}
function toAnthropicTools(tools) {
    return run("toAnthropicTools", native.toAnthropicTools, { tools });
}
function toAnthropicToolChoice(choice, options) {
    const opts = optionsOf(options);
    return run("toAnthropicToolChoice", native.toAnthropicToolChoice, { ...opts, toolChoice: choice }, opts.onWarning);
}
/**
 * Tool results become one user message of `tool_result` blocks right after the calls (a user
 * message that follows them is merged in after the results); thinking blocks are replayed first
 * in their assistant message; call ids are made provider-safe.
 */
function toAnthropicRequest(options) {
    const opts = optionsOf(options);
    return run("toAnthropicRequest", native.toAnthropicRequest, opts, opts.onWarning);
}
function fromAnthropicResponse(message) {
    return run("fromAnthropicResponse", native.fromAnthropicResponse, message);
}
/** `input_json_delta` fragments by block index; empty `partial_json` means `{}`. */
function createAnthropicStream() {
    return new NativeProviderStream(new native.AnthropicStream());
}
function toGeminiTools(tools, options) {
    return run("toGeminiTools", native.toGeminiTools, { ...optionsOf(options), tools });
}
/** auto → AUTO, required → ANY, named → ANY + allowedFunctionNames, none → NONE. */
function toGeminiToolChoice(choice) {
    return run("toGeminiToolChoice", native.toGeminiToolChoice, { toolChoice: choice });
}
/** Results of a turn become one user content of `functionResponse` parts; signatures are echoed. */
function toGeminiRequest(options) {
    const opts = optionsOf(options);
    return run("toGeminiRequest", native.toGeminiRequest, opts, opts.onWarning);
}
/** `STOP` with calls is `tool_calls`; `MAX_TOKENS` is `length`; `MALFORMED_FUNCTION_CALL`, `SAFETY`, ... are `error`. */
function fromGeminiResponse(response) {
    return run("fromGeminiResponse", native.fromGeminiResponse, response);
}
/** Whole `functionCall` parts, and Vertex's streamed `partialArgs`. */
function createGeminiStream() {
    return new NativeProviderStream(new native.GeminiStream());
}
function toOllamaTools(tools) {
    return run("toOllamaTools", native.toOllamaTools, { tools });
}
/** `/api/chat` has no tool_choice: `none` sends no tools; `required` / named are best-effort (warning). */
function toOllamaRequest(options) {
    const opts = optionsOf(options);
    return run("toOllamaRequest", native.toOllamaRequest, opts, opts.onWarning);
}
function fromOllamaResponse(response) {
    return run("fromOllamaResponse", native.fromOllamaResponse, response);
}
function createOllamaStream() {
    return new NativeProviderStream(new native.OllamaStream());
}
