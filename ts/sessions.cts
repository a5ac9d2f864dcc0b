// Ready-made tool-loop sessions (an `LlmSession`) over the official SDK clients, built on the
// provider adapters: the session keeps the chat history in the common `ChatMessage` shape and
// maps it to the provider on every request.

import type { AnyToolDefinition, LlmResponse, LlmSession, LoopToolResult, SessionEvent, SessionSendOptions } from "./loop.cjs";
import {
  type ChatMessage,
  createAnthropicStream,
  createGeminiStream,
  createOllamaStream,
  createOpenAIChatStream,
  createOpenAIResponsesStream,
  fromAnthropicResponse,
  fromGeminiResponse,
  fromOllamaResponse,
  fromOpenAIChatResponse,
  fromOpenAIResponsesResponse,
  type ProviderStream,
  type QueryResult,
  toAnthropicRequest,
  toGeminiRequest,
  toOllamaRequest,
  toOpenAIChatRequest,
  toOpenAIResponsesRequest,
} from "./providers.cjs";

/** Options of `createProviderSession`. */
export type ProviderSessionOptions = {
  provider: "openai-chat" | "openai-responses" | "anthropic" | "gemini" | "ollama";
  /** The official SDK client (`new OpenAI()`, `new Anthropic()`, `new GoogleGenAI()`, `new Ollama()`). */
  client: unknown;
  model: string;
  /** A system prompt, first in the history. */
  system?: string;
  /** Stream answers; text deltas reach the loop's `text_delta` events. */
  stream?: boolean;
  /** Extra fields merged into every request (e.g. `{ temperature: 0 }`, `{ max_tokens: 8192 }`). */
  request?: Record<string, unknown>;
  /** Extra adapter options (e.g. `{ parallelToolCalls: false }`). */
  requestOptions?: Record<string, unknown>;
};

type Provider = ProviderSessionOptions["provider"];
type Body = Record<string, unknown>;
type Create = (body: Body, options: { signal?: AbortSignal }) => Promise<unknown>;

/** The parts of the SDK clients a session calls. */
type OpenAIClient = { chat: { completions: { create: Create } }; responses: { create: Create } };
type AnthropicClient = { messages: { create: Create } };
type GeminiClient = { models: { generateContent(params: Body): Promise<unknown>; generateContentStream(params: Body): Promise<unknown> } };
type OllamaClient = { chat(body: Body): Promise<unknown> };

type ProviderSpec = {
  /** The adapter's `to<Provider>Request` (each takes its own options type). */
  request: (options: never) => object;
  parse: (response: never) => QueryResult;
  stream: () => ProviderStream<never>;
  call: (client: unknown, body: Body, signal: AbortSignal | undefined, stream: boolean) => Promise<unknown>;
};

/** How each provider is called through its SDK client: `(client, body, signal, stream)`. */
const CALLS: Record<Provider, ProviderSpec> = {
  "openai-chat": {
    request: toOpenAIChatRequest,
    parse: fromOpenAIChatResponse,
    stream: createOpenAIChatStream,
    call: (client, body, signal, stream) => (client as OpenAIClient).chat.completions.create(stream ? { ...body, stream: true } : body, { signal }),
  },
  "openai-responses": {
    request: toOpenAIResponsesRequest,
    parse: fromOpenAIResponsesResponse,
    stream: createOpenAIResponsesStream,
    call: (client, body, signal, stream) => (client as OpenAIClient).responses.create(stream ? { ...body, stream: true } : body, { signal }),
  },
  anthropic: {
    request: toAnthropicRequest,
    parse: fromAnthropicResponse,
    stream: createAnthropicStream,
    call: (client, body, signal, stream) =>
      (client as AnthropicClient).messages.create({ max_tokens: 4096, ...body, ...(stream ? { stream: true } : {}) }, { signal }),
  },
  gemini: {
    request: toGeminiRequest,
    parse: fromGeminiResponse,
    stream: createGeminiStream,
    call: (client, body, signal, stream) => {
      const { model, contents, config } = body as { model: unknown; contents: unknown; config?: object };
      const params = { model, contents, config: { ...config, abortSignal: signal } };
      const models = (client as GeminiClient).models;
      return stream ? models.generateContentStream(params) : models.generateContent(params);
    },
  },
  ollama: {
    request: toOllamaRequest,
    parse: fromOllamaResponse,
    stream: createOllamaStream,
    call: (client, body, _signal, stream) => (client as OllamaClient).chat(stream ? { ...body, stream: true } : body),
  },
};

const STOP: Record<string, LlmResponse["stopReason"]> = { tool_calls: "tool_use", stop: "end_turn", length: "max_tokens" };

/** One tool-call fragment of a streamed chunk. */
type CallDelta = { index: number; id?: string | null; name?: string | null; arguments_delta?: string | null };
/** What a provider only says once (Responses item ids → call index). */
type DeltaState = { next?: number; items?: Record<string, number> };

/** The chunk fields read below (each provider's own shape). */
type Chunk = {
  type?: string;
  index?: number;
  item?: { id: string; type?: string; call_id?: string; name?: string };
  item_id?: string;
  delta?: string | { type?: string; partial_json?: string };
  content_block?: { type?: string; id?: string; name?: string };
  choices?: Array<{ delta?: { tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }> } }>;
  candidates?: Array<{ content?: { parts?: Array<{ functionCall?: { id?: string; name?: string; args?: unknown } }> } }>;
  message?: { tool_calls?: Array<{ function?: { name?: string; arguments?: unknown } }> };
};

/**
 * The tool-call fragments of one streamed chunk, as the loop's `tool_call_delta` events
 * (`{ index, id?, name?, arguments_delta? }`), read from each provider's chunk shape. `state`
 * keeps what a provider only says once (Responses item ids → call index).
 */
const CALL_DELTAS: Record<Provider, (chunk: Chunk | null | undefined, state: DeltaState) => CallDelta[]> = {
  "openai-chat": (chunk) =>
    (chunk?.choices?.[0]?.delta?.tool_calls ?? []).map((c, i) => ({
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
      return [{ index: state.items?.[event.item_id as string] ?? 0, arguments_delta: event.delta as string }];
    }
    return [];
  },
  anthropic: (event) => {
    if (event?.type === "content_block_start" && event.content_block?.type === "tool_use") {
      return [{ index: event.index as number, id: event.content_block.id, name: event.content_block.name }];
    }
    const delta = event?.delta;
    if (event?.type === "content_block_delta" && typeof delta === "object" && delta?.type === "input_json_delta") {
      return [{ index: event.index as number, arguments_delta: delta.partial_json }];
    }
    return [];
  },
  gemini: (chunk, state) =>
    (chunk?.candidates?.[0]?.content?.parts ?? [])
      .filter((p) => p.functionCall)
      .map((p) => {
        state.next = (state.next ?? -1) + 1;
        const call = p.functionCall as { id?: string; name?: string; args?: unknown };
        return { index: state.next, id: call.id, name: call.name, arguments_delta: JSON.stringify(call.args ?? {}) };
      }),
  ollama: (chunk, state) =>
    (chunk?.message?.tool_calls ?? []).map((c) => {
      state.next = (state.next ?? -1) + 1;
      const args = c.function?.arguments;
      return { index: state.next, name: c.function?.name, arguments_delta: typeof args === "string" ? args : JSON.stringify(args ?? {}) };
    }),
};

/** Passes every chunk through, emitting its tool-call fragments on the way. */
async function* withCallDeltas(stream: AsyncIterable<unknown>, provider: Provider, emit: (event: SessionEvent) => void): AsyncGenerator<unknown> {
  const state: DeltaState = {};
  for await (const chunk of stream) {
    for (const delta of CALL_DELTAS[provider](chunk as Chunk, state)) {
      const event: Record<string, unknown> = { type: "tool_call_delta", index: delta.index };
      for (const key of ["id", "name", "arguments_delta"] as const) if (delta[key] !== undefined && delta[key] !== null) event[key] = delta[key];
      emit(event as SessionEvent);
    }
    yield chunk;
  }
}

/** A QueryResult as the loop's `LlmResponse`. */
function toLlmResponse(result: QueryResult): LlmResponse {
  const content: LlmResponse["content"] = [];
  if (result.content) content.push({ type: "text", text: result.content });
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
export function createProviderSession({
  provider,
  client,
  model,
  system,
  stream = false,
  request = {},
  requestOptions = {},
}: ProviderSessionOptions): LlmSession & {
  /** The conversation so far, in the common `ChatMessage` shape. */
  readonly messages: ChatMessage[];
} {
  const spec = CALLS[provider];
  if (!spec) throw new TypeError(`createProviderSession: unknown provider ${JSON.stringify(provider)} (use one of ${Object.keys(CALLS).join(", ")})`);
  if (!client) throw new TypeError("createProviderSession: client is required (an official SDK client)");
  const messages: ChatMessage[] = system ? [{ role: "system", content: system }] : [];
  let tools: AnyToolDefinition[] = [];

  async function send({ signal, emit }: SessionSendOptions): Promise<LlmResponse> {
    const body = { model, ...request, ...spec.request({ ...requestOptions, messages, tools } as never) };
    let result: QueryResult;
    if (stream) {
      const accumulator = spec.stream();
      const chunks = withCallDeltas((await spec.call(client, body, signal, true)) as AsyncIterable<unknown>, provider, emit);
      for await (const text of accumulator.textStream(chunks as AsyncIterable<never>)) {
        if (text) emit({ type: "text_delta", text });
      }
      result = accumulator.finish();
    } else {
      result = spec.parse((await spec.call(client, body, signal, false)) as never);
    }
    messages.push(result.message);
    return toLlmResponse(result);
  }

  return {
    /** The conversation so far, in the common `ChatMessage` shape. */
    messages,
    async sendWithTools(prompt: string, definitions: ReadonlyArray<AnyToolDefinition>, options: SessionSendOptions) {
      tools = [...definitions];
      messages.push({ role: "user", content: prompt });
      return send(options);
    },
    async sendToolResults(results: LoopToolResult[], options: SessionSendOptions) {
      for (const r of results) {
        messages.push({ role: "tool", toolCallId: r.tool_use_id, name: r.tool_name, content: r.output, ...(r.is_error ? { isError: true } : {}) });
      }
      return send(options);
    },
  };
}
