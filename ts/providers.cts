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


import { loadNative } from "./native.cjs";

const native = loadNative();

/** A native mapping (binding.d.ts): the input object as JSON text in, the value as JSON text out. */
type NativeMapping = (input: string) => { value: string; warnings: string[] };

/**
 * Runs the native mapping of the public function `name`; bad input throws a TypeError naming
 * it, downgrades go to `onWarning`.
 */
function run(name: string, mapping: NativeMapping, input: unknown, onWarning?: (message: string) => void): unknown {
  let out: { value: unknown; warnings: string[] };
  try {
    const mapped = mapping(JSON.stringify(input ?? null));
    out = { value: JSON.parse(mapped.value), warnings: mapped.warnings };
  } catch (error) {
    throw new TypeError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const warning of out.warnings) {
    if (typeof onWarning === "function") onWarning(warning);
    else process.emitWarning(warning, "ProviderWarning");
  }
  return out.value;
}

/** Options as sent to the core (callbacks stay here). */
function optionsOf<T extends object>(options: T | undefined): Partial<T> & { onWarning?: (message: string) => void } {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError("options must be an object");
  }
  return options ?? {};
}

type NativeStream = { push(chunk: string): string; finish(): string };

/** Wraps a native accumulator: chunks in as the SDK yields them, text deltas out. */
const NativeProviderStream = class ProviderStream<TChunk> {
  #native: NativeStream;

  constructor(nativeStream: NativeStream) {
    this.#native = nativeStream;
  }

  /** Feeds one chunk (event) exactly as the SDK yielded it; returns the text it adds ("" if none). */
  push(chunk: TChunk): string {
    try {
      return this.#native.push(JSON.stringify(chunk ?? null));
    } catch (error) {
      throw new TypeError(`push: ${(error as Error).message}`);
    }
  }

  /** The QueryResult of everything pushed so far. */
  finish(): QueryResult {
    return JSON.parse(this.#native.finish());
  }

  /** Feeds every chunk of an SDK stream and yields the text deltas as they arrive. */
  async *textStream(stream: AsyncIterable<TChunk>): AsyncGenerator<string, void, undefined> {
    for await (const chunk of stream) {
      const text = this.push(chunk);
      if (text) yield text;
    }
  }
};

// ---- common types, shared by every provider --------------------------------------------------

/** A function offered to the model. */
export interface ToolFunction {
  /** `[a-zA-Z0-9_-]`, at most 64 characters (Gemini: starts with a letter or `_`). */
  name: string;
  /** What the function does; the model reads it to choose a tool. */
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters?: Record<string, unknown>;
  /** OpenAI strict mode (Structured Outputs); sent to OpenAI only. */
  strict?: boolean;
}

/**
 * A tool definition. (The package root also exports the user-tool `ToolDefinition` of
 * `defineTool`, a stricter shape that is assignable to this one.)
 */
export interface ToolDefinition {
  type: "function";
  function: ToolFunction;
}

/** Any tool definition our mappings accept, readonly literals of `getAllowedTools()` included. */
export type ToolDefinitionInput = {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: { readonly [key: string]: unknown };
    readonly strict?: boolean;
  };
};

/** How the model may use tools: decide (`auto`), none, at least one (`required`), or a named one. */
export type ToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

/**
 * Opaque provider data a history must replay unchanged. Set by `from*Response` / streams on the
 * assistant message (thinking blocks, reasoning items, a text part's thought signature) and on
 * calls (Gemini thought signatures and invented ids, Responses item ids); keep it on the
 * messages you send back.
 */
export interface ProviderData {
  anthropic?: { thinking?: AnthropicThinkingBlock[] };
  openaiResponses?: {
    /** On an assistant message: the turn's reasoning items, replayed before its calls. */
    reasoning?: OpenAIResponsesReasoningItem[];
    /** On a call: its output item id (`fc_…`). */
    itemId?: string;
  };
  gemini?: {
    /** On a call (its part) or on the message (its text part): echoed unchanged. */
    thoughtSignature?: string;
    /** On a call: Gemini sent no id; ours is never sent back. */
    syntheticId?: boolean;
  };
  ollama?: { thinking?: string };
}

/** A tool call chosen by the model. */
export interface ToolCall {
  /** Unique id; answer with a `ToolResultMessage` of the same `toolCallId`. */
  id: string;
  type: "function";
  function: {
    name: string;
    /** The arguments as JSON text (`JSON.parse` it); `"{}"` for none. */
    arguments: string;
  };
  providerData?: ProviderData;
}

export interface StandardChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
  providerData?: ProviderData;
}

export interface AssistantToolCallMessage {
  role: "assistant";
  content: string;
  toolCalls: ToolCall[];
  providerData?: ProviderData;
}

export interface ToolResultMessage {
  role: "tool";
  content: string;
  toolCallId: string;
  /** The function's name (Gemini `functionResponse.name`, Ollama `tool_name`); taken from the call when missing. */
  name?: string;
  /** The tool failed: Anthropic `is_error: true`, Gemini `response: { error }`. */
  isError?: boolean;
}

export type ChatMessage = StandardChatMessage | AssistantToolCallMessage | ToolResultMessage;

/**
 * Why a turn ended. Decided by the presence of calls: `tool_calls` when the turn ended normally
 * with calls (even if the provider said `stop`), `stop` without. `length`: cut by the token limit;
 * `error`: refusal, content filter, malformed call, failure. Neither reports runnable calls.
 */
export type FinishReason = "stop" | "length" | "error" | "tool_calls";

export interface QueryResult {
  /** The text of the answer (all text parts, in order; equal to the streamed text deltas). */
  content: string;
  /** The calls to run; only when `finishReason` is `tool_calls`. */
  toolCalls?: ToolCall[];
  finishReason: FinishReason;
  /** The provider's own reason (`end_turn`, `STOP`, `max_output_tokens`, ...). */
  rawFinishReason?: string;
  /** With `finishReason: "error"`: the refusal text, error message or finish message. */
  errorMessage?: string;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
  /** The assistant message to append to the history (with its `providerData`). */
  message: StandardChatMessage | AssistantToolCallMessage;
}

/** `message` is an assistant message with at least one tool call. */
export function hasToolCalls(message: ChatMessage): message is AssistantToolCallMessage {
  if (message == null || message.role !== "assistant") return false;
  const calls = (message as Partial<AssistantToolCallMessage>).toolCalls;
  return Array.isArray(calls) && calls.length > 0;
}
/** `message` is a tool result. */
export function isToolResult(message: ChatMessage): message is ToolResultMessage {
  return message != null && message.role === "tool";
}

/** What every `to<Provider>Request` takes. */
export interface ProviderRequestOptions {
  messages: ReadonlyArray<ChatMessage>;
  tools?: ReadonlyArray<ToolDefinitionInput>;
  toolChoice?: ToolChoice;
  /** `false`: at most one call per turn (OpenAI `parallel_tool_calls`, Anthropic `disable_parallel_tool_use`). */
  parallelToolCalls?: boolean;
  /** Receives the documented downgrades (default: `process.emitWarning`). */
  onWarning?: (message: string) => void;
}

/** Accumulates a provider stream: chunks in exactly as the SDK yields them, text deltas out. */
export interface ProviderStream<TChunk> {
  /** Feeds one chunk / event; returns the text it adds (`""` when none). */
  push(chunk: TChunk): string;
  /** The QueryResult of everything pushed so far (the same as the non-streaming parser's). */
  finish(): QueryResult;
  /** Feeds every chunk of `stream`, yielding the text deltas as they arrive; then call `finish()`. */
  textStream(stream: AsyncIterable<TChunk>): AsyncGenerator<string, void, undefined>;
}

// ---- history ----------------------------------------------------------------------------------

export type ProviderName = "openai-chat" | "openai-responses" | "anthropic" | "gemini" | "ollama";

export interface ToolHistoryProblem {
  /**
   * - `unanswered_call`: a call without its result (right after its assistant message; anywhere
   *   later for `openai-responses`);
   * - `orphan_result`: a result without its call there;
   * - `duplicate_result`, `duplicate_call_id`: ids must be unique;
   * - `name_mismatch` (`gemini`, `ollama`, which match results by name): the result names another function.
   */
  kind: "unanswered_call" | "orphan_result" | "duplicate_result" | "duplicate_call_id" | "name_mismatch";
  /** The index of the assistant message (calls) or tool message (results) in `messages`. */
  messageIndex: number;
  toolCallId: string;
  message: string;
}

/** The pairing problems `provider` would reject the history for; `[]` when it can be sent. */
export function checkToolHistory(messages: ReadonlyArray<ChatMessage>, provider: ProviderName): ToolHistoryProblem[] {
  return run("checkToolHistory", native.checkToolHistory, { messages, provider }) as ToolHistoryProblem[];
}

/**
 * `{ providerId: originalId }` for the call ids a provider gets as aliases. Ids that already fit
 * (`[A-Za-z0-9_-]`, at most 40 characters for OpenAI Chat and 64 elsewhere) are sent as they are;
 * others get a stable alias (cleaned, hash-suffixed), the same on the call and its result.
 */
export function toolCallIdMap(messages: ReadonlyArray<ChatMessage>, provider: ProviderName): Record<string, string> {
  return run("toolCallIdMap", native.toolCallIdMap, { messages, provider }) as Record<string, string>;
}

// ---- OpenAI Chat Completions --------------------------------------------------------------------

export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description?: string; parameters?: { [key: string]: unknown }; strict?: boolean };
}
export type OpenAIChatToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };
export interface OpenAIChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}
export type OpenAIChatMessageParam =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };
/** Spread into `client.chat.completions.create({ model, ...request })`. */
export interface OpenAIChatRequest {
  messages: OpenAIChatMessageParam[];
  tools?: OpenAIChatTool[];
  /** Only with tools. */
  tool_choice?: OpenAIChatToolChoice;
  /** Only with tools. */
  parallel_tool_calls?: boolean;
}
/** What we read of a `ChatCompletion`. */
export interface OpenAIChatCompletionLike {
  choices: ReadonlyArray<{
    message: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: ReadonlyArray<{ id?: string; type?: string; function?: { name: string; arguments: string } }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}
/** What we read of a `ChatCompletionChunk`. */
export interface OpenAIChatChunkLike {
  choices: ReadonlyArray<{
    index?: number;
    delta?: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: ReadonlyArray<{ index?: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

export function toOpenAIChatTools(tools: ReadonlyArray<ToolDefinitionInput>): OpenAIChatTool[] {
  return run("toOpenAIChatTools", native.toOpenAIChatTools, { tools }) as OpenAIChatTool[];
}
export function toOpenAIChatToolChoice(choice: ToolChoice): OpenAIChatToolChoice {
  return run("toOpenAIChatToolChoice", native.toOpenAIChatToolChoice, { toolChoice: choice }) as OpenAIChatToolChoice;
}
/** Call ids are made provider-safe (at most 40 characters); a call message without text gets `content: null`. */
/** Workarounds for OpenAI-compatible servers (each change is reported as a warning). */
export interface OpenAIChatCompat {
  /** Cut longer tool descriptions (some compatible endpoints reject more than 1024 characters). */
  maxDescriptionLength?: number;
  /** Remove `default` keywords from parameter schemas (rejected by Azure OpenAI). */
  stripDefaults?: boolean;
}
export function toOpenAIChatRequest(options: ProviderRequestOptions & { compat?: OpenAIChatCompat }): OpenAIChatRequest {
  const opts = optionsOf(options);
  return run("toOpenAIChatRequest", native.toOpenAIChatRequest, opts, opts.onWarning) as OpenAIChatRequest;
}
export function fromOpenAIChatResponse(completion: OpenAIChatCompletionLike): QueryResult {
  return run("fromOpenAIChatResponse", native.fromOpenAIChatResponse, completion) as QueryResult;
}
/** Robust to a missing `index` and to a new `id` on a reused index (servers that put every call on index 0). */
export function createOpenAIChatStream(): ProviderStream<OpenAIChatChunkLike> {
  return new NativeProviderStream(new native.OpenAIChatStream());
}

// ---- OpenAI Responses API -----------------------------------------------------------------------

export interface OpenAIResponsesFunctionTool {
  type: "function";
  name: string;
  description?: string;
  /** An empty object schema when the definition has none. */
  parameters: { [key: string]: unknown };
  /** Always sent (`false` unless the definition says `true`), so the API does not normalise to strict. */
  strict: boolean;
}
export type OpenAIResponsesToolChoice = "auto" | "none" | "required" | { type: "function"; name: string };
export interface OpenAIResponsesReasoningItem {
  type: "reasoning";
  id: string;
  summary: Array<{ type: "summary_text"; text: string }>;
  content?: Array<{ type: "reasoning_text"; text: string }>;
  encrypted_content?: string | null;
  status?: "in_progress" | "completed" | "incomplete";
}
export type OpenAIResponsesInputItem =
  | { role: "system" | "user" | "assistant"; content: string }
  /** `id` (the `fc_…` item id) only when the call came from the Responses API. */
  | { type: "function_call"; call_id: string; name: string; arguments: string; id?: string }
  | { type: "function_call_output"; call_id: string; output: string }
  | OpenAIResponsesReasoningItem;
/** Spread into `client.responses.create({ model, ...request })`. */
export interface OpenAIResponsesRequest {
  input: OpenAIResponsesInputItem[];
  tools?: OpenAIResponsesFunctionTool[];
  tool_choice?: OpenAIResponsesToolChoice;
  parallel_tool_calls?: boolean;
}
/** What we read of a `Response`. */
export interface OpenAIResponsesResponseLike {
  status?: string | null;
  output: ReadonlyArray<{ type: string }>;
  incomplete_details?: { reason?: string | null } | null;
  error?: { message: string } | null;
  usage?: { input_tokens?: number; output_tokens?: number } | null;
}
/** What we read of a `ResponseStreamEvent`. */
export interface OpenAIResponsesEventLike {
  type: string;
}

export function toOpenAIResponsesTools(tools: ReadonlyArray<ToolDefinitionInput>): OpenAIResponsesFunctionTool[] {
  return run("toOpenAIResponsesTools", native.toOpenAIResponsesTools, { tools }) as OpenAIResponsesFunctionTool[];
}
export function toOpenAIResponsesToolChoice(choice: ToolChoice): OpenAIResponsesToolChoice {
  return run("toOpenAIResponsesToolChoice", native.toOpenAIResponsesToolChoice, { toolChoice: choice }) as OpenAIResponsesToolChoice;
}
/** Reasoning items are replayed before their calls; item ids that do not start with `fc` are not sent. */
export function toOpenAIResponsesRequest(options: ProviderRequestOptions): OpenAIResponsesRequest {
  const opts = optionsOf(options);
  return run("toOpenAIResponsesRequest", native.toOpenAIResponsesRequest, opts, opts.onWarning) as OpenAIResponsesRequest;
}
/** `status: "incomplete"` (e.g. `max_output_tokens`) is `length`; `failed` / refusal is `error`. */
export function fromOpenAIResponsesResponse(response: OpenAIResponsesResponseLike): QueryResult {
  return run("fromOpenAIResponsesResponse", native.fromOpenAIResponsesResponse, response) as QueryResult;
}
/** Accumulates by `item_id`, emits by `call_id`, reconciles with the terminal response's output. */
export function createOpenAIResponsesStream(): ProviderStream<OpenAIResponsesEventLike> {
  return new NativeProviderStream(new native.OpenAIResponsesStream());
}

// ---- Anthropic Messages -------------------------------------------------------------------------

export type AnthropicThinkingBlock = { type: "thinking"; thinking: string; signature: string } | { type: "redacted_thinking"; data: string };
export interface AnthropicTool {
  name: string;
  description?: string;
  /** Always `type: "object"` (added when missing). */
  input_schema: { type: "object"; [key: string]: unknown };
}
export type AnthropicToolChoice =
  | { type: "auto"; disable_parallel_tool_use?: boolean }
  | { type: "any"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean }
  | { type: "none" };
export type AnthropicContentBlockParam =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: { [key: string]: unknown } }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean }
  | AnthropicThinkingBlock;
export type AnthropicMessageParam =
  | { role: "user"; content: string | AnthropicContentBlockParam[] }
  | { role: "assistant"; content: string | AnthropicContentBlockParam[] };
/** Spread into `client.messages.create({ model, max_tokens, ...request })`. */
export interface AnthropicRequest {
  /** The system messages, joined by a blank line. */
  system?: string;
  messages: AnthropicMessageParam[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
}
export interface AnthropicRequestOptions extends ProviderRequestOptions {
  /** Extended thinking is on: a `required` or named tool choice is downgraded to `auto` (with a warning). */
  thinking?: boolean;
}
/** What we read of a `Message`. */
export interface AnthropicMessageLike {
  type?: string;
  content: ReadonlyArray<{ type: string }>;
  stop_reason?: string | null;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_creation_input_tokens?: number | null;
    cache_read_input_tokens?: number | null;
  } | null;
}
/** What we read of a `RawMessageStreamEvent`. */
export interface AnthropicEventLike {
  type: string;
}

export function toAnthropicTools(tools: ReadonlyArray<ToolDefinitionInput>): AnthropicTool[] {
  return run("toAnthropicTools", native.toAnthropicTools, { tools }) as AnthropicTool[];
}
export function toAnthropicToolChoice(
  choice: ToolChoice,
  options?: { thinking?: boolean; parallelToolCalls?: boolean; onWarning?: (message: string) => void },
): AnthropicToolChoice {
  const opts = optionsOf(options);
  return run("toAnthropicToolChoice", native.toAnthropicToolChoice, { ...opts, toolChoice: choice }, opts.onWarning) as AnthropicToolChoice;
}
/**
 * Tool results become one user message of `tool_result` blocks right after the calls (a user
 * message that follows them is merged in after the results); thinking blocks are replayed first
 * in their assistant message; call ids are made provider-safe.
 */
export function toAnthropicRequest(options: AnthropicRequestOptions): AnthropicRequest {
  const opts = optionsOf(options);
  return run("toAnthropicRequest", native.toAnthropicRequest, opts, opts.onWarning) as AnthropicRequest;
}
export function fromAnthropicResponse(message: AnthropicMessageLike): QueryResult {
  return run("fromAnthropicResponse", native.fromAnthropicResponse, message) as QueryResult;
}
/** `input_json_delta` fragments by block index; empty `partial_json` means `{}`. */
export function createAnthropicStream(): ProviderStream<AnthropicEventLike> {
  return new NativeProviderStream(new native.AnthropicStream());
}

// ---- Google Gemini / Vertex AI (@google/genai) ---------------------------------------------------

/**
 * Mirrors of `@google/genai`'s enums, by name and value: TypeScript treats same-named enums with
 * matching members as compatible, so our outputs type-check against the SDK without importing it.
 * Type-level only (no runtime object): use the string values.
 */
declare enum Type {
  STRING = "STRING",
  NUMBER = "NUMBER",
  INTEGER = "INTEGER",
  BOOLEAN = "BOOLEAN",
  ARRAY = "ARRAY",
  OBJECT = "OBJECT",
  NULL = "NULL",
}
declare enum FunctionCallingConfigMode {
  AUTO = "AUTO",
  ANY = "ANY",
  NONE = "NONE",
}

/** The OpenAPI 3.0 subset Gemini accepts for `parameters` (integer limits are strings, as in the SDK). */
export interface GeminiSchema {
  type?: Type;
  nullable?: boolean;
  description?: string;
  format?: string;
  enum?: string[];
  properties?: { [key: string]: GeminiSchema };
  required?: string[];
  items?: GeminiSchema;
  anyOf?: GeminiSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: string;
  maxLength?: string;
  minItems?: string;
  maxItems?: string;
  minProperties?: string;
  maxProperties?: string;
  pattern?: string;
}
export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  /** Absent for tools without arguments (Gemini rejects an object schema without properties). */
  parameters?: GeminiSchema;
  /** With `schema: "jsonSchema"`: the JSON Schema unchanged (instead of `parameters`). */
  parametersJsonSchema?: unknown;
}
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}
export interface GeminiToolConfig {
  functionCallingConfig: { mode: FunctionCallingConfigMode; allowedFunctionNames?: string[] };
}
export interface GeminiPart {
  text?: string;
  thoughtSignature?: string;
  /** `id` only when Gemini sent one. */
  functionCall?: { name: string; args: { [key: string]: unknown }; id?: string };
  /** `response` is the result's JSON object, else `{ output }` / `{ error }`. */
  functionResponse?: { name: string; response: { [key: string]: unknown }; id?: string };
}
export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}
/** Spread into `ai.models.generateContent({ model, ...request })` (merge your own `config` fields). */
export interface GeminiRequest {
  contents: GeminiContent[];
  config?: {
    systemInstruction?: { parts: Array<{ text: string }> };
    tools?: GeminiTool[];
    toolConfig?: GeminiToolConfig;
  };
}
export interface GeminiSchemaOptions {
  /** `"openapi"` (default): convert to `parameters`; `"jsonSchema"`: send `parametersJsonSchema`. */
  schema?: "openapi" | "jsonSchema";
}
export interface GeminiRequestOptions extends ProviderRequestOptions, GeminiSchemaOptions {
  /**
   * Put this thought signature on the first call of a replayed assistant turn whose calls carry
   * none (calls made by another provider), e.g. `"skip_thought_signature_validator"` for Gemini 3.
   */
  thoughtSignatureForForeignCalls?: string;
}
/** What we read of a `GenerateContentResponse` (chunk). */
export interface GeminiResponseLike {
  candidates?: ReadonlyArray<{
    content?: {
      parts?: ReadonlyArray<{
        text?: string;
        thought?: boolean;
        thoughtSignature?: string;
        functionCall?: {
          name?: string;
          args?: Record<string, unknown>;
          id?: string;
          partialArgs?: ReadonlyArray<{
            jsonPath?: string;
            stringValue?: string;
            numberValue?: number;
            boolValue?: boolean;
            nullValue?: string;
            willContinue?: boolean;
          }>;
          willContinue?: boolean;
        };
      }>;
    };
    finishReason?: string;
    finishMessage?: string;
  }>;
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number };
  promptFeedback?: { blockReason?: string };
}

export function toGeminiTools(tools: ReadonlyArray<ToolDefinitionInput>, options?: GeminiSchemaOptions): GeminiTool[] {
  return run("toGeminiTools", native.toGeminiTools, { ...optionsOf(options), tools }) as GeminiTool[];
}
/** auto → AUTO, required → ANY, named → ANY + allowedFunctionNames, none → NONE. */
export function toGeminiToolChoice(choice: ToolChoice): GeminiToolConfig {
  return run("toGeminiToolChoice", native.toGeminiToolChoice, { toolChoice: choice }) as GeminiToolConfig;
}
/** Results of a turn become one user content of `functionResponse` parts; signatures are echoed. */
export function toGeminiRequest(options: GeminiRequestOptions): GeminiRequest {
  const opts = optionsOf(options);
  return run("toGeminiRequest", native.toGeminiRequest, opts, opts.onWarning) as GeminiRequest;
}
/** `STOP` with calls is `tool_calls`; `MAX_TOKENS` is `length`; `MALFORMED_FUNCTION_CALL`, `SAFETY`, ... are `error`. */
export function fromGeminiResponse(response: GeminiResponseLike): QueryResult {
  return run("fromGeminiResponse", native.fromGeminiResponse, response) as QueryResult;
}
/** Whole `functionCall` parts, and Vertex's streamed `partialArgs`. */
export function createGeminiStream(): ProviderStream<GeminiResponseLike> {
  return new NativeProviderStream(new native.GeminiStream());
}

// ---- Ollama /api/chat ---------------------------------------------------------------------------

export interface OllamaTool {
  type: "function";
  function: { name: string; description?: string; parameters?: { [key: string]: unknown } };
}
export interface OllamaMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  thinking?: string;
  /** Arguments as objects (Ollama rejects JSON strings). */
  tool_calls?: Array<{ function: { name: string; arguments: { [key: string]: unknown } } }>;
  tool_name?: string;
}
/** Spread into `ollama.chat({ model, ...request })`. */
export interface OllamaRequest {
  messages: OllamaMessage[];
  /** Absent with `toolChoice: "none"`; only the named tool with a named choice. */
  tools?: OllamaTool[];
}
/** What we read of a `ChatResponse` (chunk). */
export interface OllamaResponseLike {
  message: {
    content: string;
    thinking?: string;
    tool_calls?: ReadonlyArray<{ id?: string; function: { name: string; arguments: { [key: string]: unknown } | string } }>;
  };
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
}

export function toOllamaTools(tools: ReadonlyArray<ToolDefinitionInput>): OllamaTool[] {
  return run("toOllamaTools", native.toOllamaTools, { tools }) as OllamaTool[];
}
/** `/api/chat` has no tool_choice: `none` sends no tools; `required` / named are best-effort (warning). */
export function toOllamaRequest(options: ProviderRequestOptions): OllamaRequest {
  const opts = optionsOf(options);
  return run("toOllamaRequest", native.toOllamaRequest, opts, opts.onWarning) as OllamaRequest;
}
export function fromOllamaResponse(response: OllamaResponseLike): QueryResult {
  return run("fromOllamaResponse", native.fromOllamaResponse, response) as QueryResult;
}
export function createOllamaStream(): ProviderStream<OllamaResponseLike> {
  return new NativeProviderStream(new native.OllamaStream());
}
