"use strict";
// Generated from ts/sessions.cts by `npm run build:ts`: edit that file, not this one.
// Ready-made tool-loop sessions (an `LlmSession`) over the official SDK clients, built on the
// provider adapters: the session keeps the chat history in the common `ChatMessage` shape and
// maps it to the provider on every request.
exports.createProviderSession = createProviderSession;
const providers_cjs_1 = require("./providers.cjs");
/** How each provider is called through its SDK client: `(client, body, signal, stream)`. */
const CALLS = {
    "openai-chat": {
        request: providers_cjs_1.toOpenAIChatRequest,
        parse: providers_cjs_1.fromOpenAIChatResponse,
        stream: providers_cjs_1.createOpenAIChatStream,
        call: (client, body, signal, stream) => client.chat.completions.create(stream ? { ...body, stream: true } : body, { signal }),
    },
    "openai-responses": {
        request: providers_cjs_1.toOpenAIResponsesRequest,
        parse: providers_cjs_1.fromOpenAIResponsesResponse,
        stream: providers_cjs_1.createOpenAIResponsesStream,
        call: (client, body, signal, stream) => client.responses.create(stream ? { ...body, stream: true } : body, { signal }),
    },
    anthropic: {
        request: providers_cjs_1.toAnthropicRequest,
        parse: providers_cjs_1.fromAnthropicResponse,
        stream: providers_cjs_1.createAnthropicStream,
        call: (client, body, signal, stream) => client.messages.create({ max_tokens: 4096, ...body, ...(stream ? { stream: true } : {}) }, { signal }),
    },
    gemini: {
        request: providers_cjs_1.toGeminiRequest,
        parse: providers_cjs_1.fromGeminiResponse,
        stream: providers_cjs_1.createGeminiStream,
        call: (client, body, signal, stream) => {
            const { model, contents, config } = body;
            const params = { model, contents, config: { ...config, abortSignal: signal } };
            const models = client.models;
            return stream ? models.generateContentStream(params) : models.generateContent(params);
        },
    },
    ollama: {
        request: providers_cjs_1.toOllamaRequest,
        parse: providers_cjs_1.fromOllamaResponse,
        stream: providers_cjs_1.createOllamaStream,
        call: (client, body, _signal, stream) => client.chat(stream ? { ...body, stream: true } : body),
    },
};
const STOP = { tool_calls: "tool_use", stop: "end_turn", length: "max_tokens" };
/**
 * The tool-call fragments of one streamed chunk, as the loop's `tool_call_delta` events
 * (`{ index, id?, name?, arguments_delta? }`), read from each provider's chunk shape. `state`
 * keeps what a provider only says once (Responses item ids → call index).
 */
const CALL_DELTAS = {
    "openai-chat": (chunk) => (chunk?.choices?.[0]?.delta?.tool_calls ?? []).map((c, i) => ({
        index: c.index ?? i,
        id: c.id,
        name: c.function?.name,
        arguments_delta: c.function?.arguments,
    })),
    "openai-responses": (event, state) => {
        if (event?.type === "response.output_item.added" && event.item?.type === "function_call") {
            state.next = (state.next ?? -1) + 1;
            const index = state.next;
            state.items ??= {};
            state.items[event.item.id] = index;
            return [{ index, id: event.item.call_id, name: event.item.name }];
        }
        if (event?.type === "response.function_call_arguments.delta") {
            return [{ index: state.items?.[event.item_id] ?? 0, arguments_delta: event.delta }];
        }
        return [];
    },
    anthropic: (event) => {
        if (event?.type === "content_block_start" && event.content_block?.type === "tool_use") {
            return [{ index: event.index, id: event.content_block.id, name: event.content_block.name }];
        }
        const delta = event?.delta;
        if (event?.type === "content_block_delta" && typeof delta === "object" && delta?.type === "input_json_delta") {
            return [{ index: event.index, arguments_delta: delta.partial_json }];
        }
        return [];
    },
    gemini: (chunk, state) => (chunk?.candidates?.[0]?.content?.parts ?? [])
        .filter((p) => p.functionCall)
        .map((p) => {
        state.next = (state.next ?? -1) + 1;
        const call = p.functionCall;
        return { index: state.next, id: call.id, name: call.name, arguments_delta: JSON.stringify(call.args ?? {}) };
    }),
    ollama: (chunk, state) => (chunk?.message?.tool_calls ?? []).map((c) => {
        state.next = (state.next ?? -1) + 1;
        const args = c.function?.arguments;
        return { index: state.next, name: c.function?.name, arguments_delta: typeof args === "string" ? args : JSON.stringify(args ?? {}) };
    }),
};
/** Passes every chunk through, emitting its tool-call fragments on the way. */
async function* withCallDeltas(stream, provider, emit) {
    const state = {};
    for await (const chunk of stream) {
        for (const delta of CALL_DELTAS[provider](chunk, state)) {
            const event = { type: "tool_call_delta", index: delta.index };
            for (const key of ["id", "name", "arguments_delta"])
                if (delta[key] !== undefined && delta[key] !== null)
                    event[key] = delta[key];
            emit(event);
        }
        yield chunk;
    }
}
/** A QueryResult as the loop's `LlmResponse`. */
function toLlmResponse(result) {
    const content = [];
    if (result.content)
        content.push({ type: "text", text: result.content });
    for (const call of result.toolCalls ?? []) {
        content.push({ type: "tool_use", id: call.id, name: call.function.name, input: call.function.arguments });
    }
    const stopReason = STOP[result.finishReason] ?? { other: result.rawFinishReason ?? result.finishReason };
    return { content, stopReason };
}
/**
 * A ready-made `LlmSession` over an official SDK client, built on the provider adapters.
 * `stream` passes text deltas and tool-call fragments to the loop's events; `request` fields
 * are merged into every request; `requestOptions` are extra adapter options.
 */
function createProviderSession({ provider, client, model, system, stream = false, request = {}, requestOptions = {}, }) {
    const spec = CALLS[provider];
    if (!spec)
        throw new TypeError(`createProviderSession: unknown provider ${JSON.stringify(provider)} (use one of ${Object.keys(CALLS).join(", ")})`);
    if (!client)
        throw new TypeError("createProviderSession: client is required (an official SDK client)");
    const messages = system ? [{ role: "system", content: system }] : [];
    let tools = [];
    async function send({ signal, emit }) {
        const body = { model, ...request, ...spec.request({ ...requestOptions, messages, tools }) };
        let result;
        if (stream) {
            const accumulator = spec.stream();
            const chunks = withCallDeltas((await spec.call(client, body, signal, true)), provider, emit);
            for await (const text of accumulator.textStream(chunks)) {
                if (text)
                    emit({ type: "text_delta", text });
            }
            result = accumulator.finish();
        }
        else {
            result = spec.parse((await spec.call(client, body, signal, false)));
        }
        messages.push(result.message);
        return toLlmResponse(result);
    }
    return {
        /** The conversation so far, in the common `ChatMessage` shape. */
        messages,
        async sendWithTools(prompt, definitions, options) {
            tools = [...definitions];
            messages.push({ role: "user", content: prompt });
            return send(options);
        },
        async sendToolResults(results, options) {
            for (const r of results) {
                messages.push({ role: "tool", toolCallId: r.tool_use_id, name: r.tool_name, content: r.output, ...(r.is_error ? { isError: true } : {}) });
            }
            return send(options);
        },
    };
}
