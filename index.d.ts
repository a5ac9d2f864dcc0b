// Public typings of agent-tools-native: the same surface as agent-tools-ts v0.6.0 (four runtime
// exports, twelve type exports). Tool input/output types come from the Rust types via ts-rs
// (types/tools.d.ts, generated and checked in).

import type {
  AllowedToolName,
  AstGrepSearchInput,
  ExecCommandInput,
  ReadFileOptions,
  RegexpSearchInput,
  TaskCreateManyInput,
  TaskItem,
  TaskListInput,
  TaskUpdateInput,
  TaskUpdateStatusInput,
  TaskValidateCompletionInput,
  ToolArgsByName,
  ToolCatalogMetadata,
  ToolDefinitions,
  ToolResultByName,
  TreeOptions,
} from "./types/tools";
import type { ToolDefinition } from "./types/providers";

export type { AllowedToolName, ToolArgsByName, ToolResultByName };

export type FileAccessMode = "read-only" | "workspace-write" | "unrestricted";
export type AccessLevel = "allow" | "deny";
export interface SecurityPolicyConfig<TToolName extends string = string> {
  tools: Partial<Record<TToolName, AccessLevel>>;
  defaultPolicy: AccessLevel;
}
export type ToolPolicy = SecurityPolicyConfig<AllowedToolName>;

type TodoSessionState = { tasks: Map<string, TaskItem>; order: string[] };

export type ToolContext = {
  workspaceRoot: string;
  writeScope: FileAccessMode;
  policy: SecurityPolicyConfig<AllowedToolName>;
  todo?: TodoSessionState;
  env: { platform: NodeJS.Platform; osRelease: string };
};

export type ToolErrorEnvelope = {
  code: string;
  message: string;
  retriable: boolean;
  details: Record<string, unknown>;
};

export type InvokeToolErrorCode =
  | "INVALID_TOOL_ARGUMENTS_TYPE"
  | "TOOL_NOT_FOUND"
  | "TOOL_NOT_ALLOWED"
  | "INTERNAL";

export type ToolkitInvokeOutput<TName extends AllowedToolName> = {
  role: "function";
  name: TName;
  content: ToolResultByName[TName];
};

export type Invoke = <TName extends AllowedToolName>(
  name: TName,
  args: ToolArgsByName[TName],
) => Promise<ToolkitInvokeOutput<TName>>;

type SecureToolResult<R> =
  | { status: "success"; data: R }
  | {
      status: "failure" | "denied";
      reason: "policy" | "sandbox" | "runtime";
      message: string;
      error: ToolErrorEnvelope;
    };

/** The positional parameters of each tool (`toolkit.tools.<name>` and its handler). */
type ToolParams = {
  apply_patch: [filePath: string, patch: string];
  exec_command: [input: ExecCommandInput];
  write_file: [path: string, content: string];
  tree: [path: string, options?: TreeOptions];
  read_file: [path: string, options?: ReadFileOptions];
  regexp_search: [input: RegexpSearchInput];
  ast_grep_search: [input: AstGrepSearchInput];
  git_status_summary: [cwd?: string];
  task_create_many: [input: TaskCreateManyInput];
  task_list: [_input: TaskListInput];
  task_update: [input: TaskUpdateInput];
  task_update_status: [input: TaskUpdateStatusInput];
  task_validate_completion: [_input: TaskValidateCompletionInput];
};

type SecureTools = {
  [K in keyof ToolParams]: (...args: ToolParams[K]) => Promise<SecureToolResult<ToolResultByName[K]>>;
};

/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
export declare function createToolContext<const TExtraToolName extends string = never>(params: {
  workspaceRoot: string;
  writeScope?: FileAccessMode;
  policy?: SecurityPolicyConfig<AllowedToolName | NoInfer<TExtraToolName>>;
}): ToolContext;

/** The toolkit: exactly agent-tools-ts's shape; `invoke` also knows the registered user tools. */
export type AgentToolkit<TUser extends AnyTool = never> = {
  tools: SecureTools;
  invoke: [TUser] extends [never] ? Invoke : InvokeWithUserTools<TUser>;
  getAllowedTools: () => [TUser] extends [never]
    ? Array<ToolDefinitions[AllowedToolName]>
    : Array<ToolDefinitions[AllowedToolName] | TUser["definition"]>;
};

export type AgentToolkitOptions<TTools extends readonly AnyTool[]> = {
  /** User tools made by `defineTool`; names must not clash with built-ins or each other. */
  tools?: TTools;
  /** Defaults of every user tool's execution context. */
  deps?: Record<string, unknown>;
  overrides?: DependencyOverrides;
  logger?: Logger;
  now?: () => Date;
};

export declare function createAgentToolkit(context: ToolContext): AgentToolkit;
export declare function createAgentToolkit<const TTools extends readonly AnyTool[]>(
  context: ToolContext,
  options: AgentToolkitOptions<TTools>,
): AgentToolkit<TTools[number]>;

// ---- user-defined tools -------------------------------------------------------------------------

/** Any zod v4 schema (structurally: its `_zod` input/output types), so zod stays a peer dependency. */
type ZodSchemaLike = { _zod: { input: unknown; output: unknown }; safeParseAsync(value: unknown): Promise<unknown> };
type SchemaInput<S> = S extends { _zod: { input: infer I } } ? I : never;
type SchemaOutput<S> = S extends { _zod: { output: infer O } } ? O : never;

export type DependencyKey<T> = { id: string; create: () => T | Promise<T> };
export type DependencyOverrides = Map<string, () => unknown | Promise<unknown>>;
export type Logger = {
  debug?(...args: unknown[]): void;
  info?(...args: unknown[]): void;
  warn?(...args: unknown[]): void;
  error?(...args: unknown[]): void;
};

/** What `execute` receives (the spec's tool `ToolContext`; renamed: `ToolContext` is the workspace context). */
export type ToolExecutionContext = {
  signal?: AbortSignal;
  logger?: Logger;
  now: () => Date;
  deps: Record<string, unknown>;
  /** Resolves a dependency: an override with the same id, else `create()`; cached for the call. */
  resolve: <T>(key: DependencyKey<T>) => Promise<T>;
};

/** The context `executeRaw` accepts (everything optional). */
export type ExecuteRawContext = {
  signal?: AbortSignal;
  logger?: Logger;
  now?: () => Date;
  deps?: Record<string, unknown>;
  overrides?: DependencyOverrides;
};

export type TextPart = { type: "text"; text: string };
export type ImagePart = { type: "image"; data: string; mimeType: string } | { type: "image"; url: string };
export type ToolResult =
  | { type: "text"; text: string }
  | { type: "parts"; parts: Array<TextPart | ImagePart> }
  | { type: "json"; value: unknown };
/** `executeRaw`'s result: errors are results too (`is_error: true`, text `Error executing tool: ...`). */
export type ToolExecutionResult = ToolResult & { is_error?: boolean };

declare const toolTypes: unique symbol;
export type Tool<TName extends string = string, TInput = unknown, TResult = unknown> = {
  readonly name: TName;
  readonly description: string;
  readonly definition: ToolDefinition;
  executeRaw(rawArgsJson: string, ctx?: ExecuteRawContext): Promise<ToolExecutionResult>;
  /** Type-level only: the tool's input and result types. */
  readonly [toolTypes]?: { input: TInput; result: TResult };
};
type AnyTool = Tool<string, any, any>;
type ToolInput<T> = T extends Tool<string, infer I, unknown> ? I : never;
type ToolOutput<T> = T extends Tool<string, unknown, infer R> ? R : never;

export type DefineToolOptions<TName extends string, TSchema extends ZodSchemaLike, TResult> = {
  /** Portable name: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`. */
  name: TName;
  description: string;
  input: TSchema;
  /** Emit an OpenAI strict-mode schema; throws at definition time when the schema cannot be strict. */
  strict?: boolean;
  /** A tool that changes things: denied in `read-only` write scope, like write_file. */
  writes?: boolean;
  execute: (input: SchemaOutput<TSchema>, ctx: ToolExecutionContext) => TResult | Promise<TResult>;
};

export declare function defineTool<const TName extends string, TSchema extends ZodSchemaLike, TResult>(
  options: DefineToolOptions<TName, TSchema, TResult>,
): Tool<TName, SchemaInput<TSchema>, Awaited<TResult>>;

type InvokeWithUserTools<TUser extends AnyTool> = <TName extends AllowedToolName | TUser["name"]>(
  name: TName,
  args: TName extends AllowedToolName ? ToolArgsByName[TName] : ToolInput<Extract<TUser, { name: TName }>>,
) => Promise<{
  role: "function";
  name: TName;
  content: TName extends AllowedToolName ? ToolResultByName[TName] : ToolOutput<Extract<TUser, { name: TName }>>;
}>;

/** Every tool of a toolkit as a `Tool` (built-ins, then user tools), executed through its `invoke`. */
export declare function asTools(toolkit: AgentToolkit<any>): Tool[];

/** A ToolResult as tool-message content: text → string, json → key-sorted JSON text, parts → parts. */
export declare function toToolMessageContent(result: ToolResult): string | Array<TextPart | ImagePart>;

export declare const ToolCatalog: {
  readonly [K in keyof ToolParams]: {
    readonly metadata: ToolCatalogMetadata[K];
    readonly handler: (context: ToolContext, ...args: ToolParams[K]) => Promise<ToolResultByName[K]>;
  };
};

export declare const SecurityBypass: {
  run<T>(task: () => Promise<T> | T): Promise<T>;
  isEnabled(): boolean;
  enforce<T>(task: () => Promise<T> | T): Promise<T>;
};

// ---- tool-output cache and standard tools --------------------------------------------------------

/**
 * Tool outputs kept whole while their total stays under `budgetChars` (UTF-16 units, default
 * 100 000); older ones are evicted from the conversation but stay readable by id (`out-1`, ...).
 */
export declare class OutputCache {
  constructor(budgetChars?: number);
  /** Stores an output; returns its id and the ids now evicted from the conversation (oldest first). */
  record(content: string): { refId: string; evicted: string[] };
  /** Total size of the outputs still whole in the conversation. */
  readonly inlineChars: number;
  /** Whether an output is still whole in the conversation (throws for an unknown id). */
  isInline(refId: string): boolean;
  /** Numbered lines from `offset` (1-based, default 1), at most `limit` (default 200, max 2000). */
  read(refId: string, offset?: number, limit?: number): Promise<string>;
  /** Matching lines `N:line`, context `N-line`, grep -n style; `regex` uses Rust regex syntax. */
  grep(
    refId: string,
    request: { pattern: string; regex?: boolean; before?: number; after?: number; maxMatches?: number },
  ): Promise<string>;
}

/** `tool_output_cache` and `tool_output_cache_grep` over a cache, ready to register. */
export declare function outputCacheTools(cache: OutputCache): [
  Tool<"tool_output_cache", { ref_id: string; offset?: number; limit?: number }, ToolResult>,
  Tool<
    "tool_output_cache_grep",
    { ref_id: string; pattern: string; regex?: boolean; before?: number; after?: number; max_matches?: number },
    ToolResult
  >,
];

/** The optional `done` tool: the model calls it to end a run. */
export declare const doneTool: Tool<"done", { message?: string }, ToolResult>;

/**
 * Records the string contents of tool messages (`role: "tool"`) without an `output_ref`, and
 * replaces contents evicted by the budget with a placeholder naming the ref id. Returns a new array.
 */
export declare function applyOutputCache<M extends { role?: unknown; content?: unknown }>(
  cache: OutputCache,
  messages: readonly M[],
): Array<M & { output_ref?: string; evicted?: boolean }>;

// ---- the tool loop ---------------------------------------------------------------------------------

/** Why a model response stopped (provider-specific reasons as `{ other }`). */
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | { other: string };

export type LlmContentBlock =
  | { type: "text"; text: string }
  /** `input` is an object, or JSON text as some providers send it. */
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> | string };

export type LlmResponse = { content: LlmContentBlock[]; stopReason: StopReason | string; model?: string };

/**
 * One call's result as the loop sends it back (the loop spec's `ToolResultMessage`; renamed
 * because the provider spec's `ToolResultMessage` is the chat message `{ role: "tool", ... }`).
 */
export type LoopToolResult = {
  tool_use_id: string;
  tool_name: string;
  output: string;
  is_error: boolean;
  is_rejected: boolean;
};

/** A streamed tool-call fragment (`StreamEvent::ToolCallDelta`). */
export type ToolCallDelta = { type: "tool_call_delta"; index: number; id?: string; name?: string; arguments_delta?: string };
export type SessionEvent = { type: "text_delta"; text: string } | ToolCallDelta;
export type SessionSendOptions = { signal?: AbortSignal; emit(event: SessionEvent): void };

/** The model side of the loop (the spec's `LlmSession`), implemented over any provider. */
export interface LlmSession {
  sendWithTools(prompt: string, tools: ReadonlyArray<AnyToolDefinition>, options: SessionSendOptions): Promise<LlmResponse>;
  sendToolResults(results: LoopToolResult[], options: SessionSendOptions): Promise<LlmResponse>;
}
type AnyToolDefinition = {
  readonly type: "function";
  readonly function: { readonly name: string; readonly description: string; readonly parameters: unknown; readonly strict?: boolean };
};

export type ReviewRequest = {
  id: string;
  name: string;
  args: unknown;
  preview:
    | { kind: "write_file"; path: unknown; content: unknown }
    | { kind: "apply_patch"; path: unknown; patch: unknown }
    | { kind: "exec_command"; cwd: unknown; command: unknown }
    | { kind: "tool"; args: unknown };
};
export type ReviewDecision =
  | { decision: "approve" }
  | { decision: "reject"; reason?: string }
  | { decision: "edit"; args: unknown };

export type LoopStopReason = "end_turn" | "max_tokens" | "max_tool_turns" | "aborted" | "done" | { other: string };

export type LoopMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: LlmContentBlock[] }
  | { role: "tool"; results: LoopToolResult[] };

export type TurnRecord = {
  turn: number;
  stopReason: StopReason;
  calls: Array<{ id: string; name: string; args: unknown; started_at: number; duration_ms: number; is_error: boolean; is_rejected: boolean }>;
};

export type ToolLoopResult = { text: string; stopReason: LoopStopReason; messages: LoopMessage[]; turns: TurnRecord[] };

export type LoopEvent =
  | { type: "turn_start"; turn: number }
  | { type: "text_delta"; text: string }
  | ToolCallDelta
  | { type: "response"; turn: number; stopReason: StopReason; text: string; toolCalls: Array<Extract<LlmContentBlock, { type: "tool_use" }>> }
  | ({ type: "review_request" } & ReviewRequest)
  | { type: "review_decision"; id: string; name: string; decision: ReviewDecision }
  | { type: "tool_start"; id: string; name: string; args: unknown }
  | { type: "tool_finish"; id: string; name: string; duration_ms: number; is_error: boolean; is_rejected: boolean }
  | { type: "turn_end"; turn: number; results: LoopToolResult[] }
  | { type: "completed"; result: ToolLoopResult };

export type ToolLoopOptions = {
  session: LlmSession;
  toolkit: AgentToolkit<any>;
  prompt: string;
  /** Turns with tool calls before the loop stops (default 10). */
  maxToolTurns?: number;
  /** Asked before each write-class call (write_file, apply_patch, exec_command, user tools with `writes`). */
  review?: (request: ReviewRequest) => ReviewDecision | Promise<ReviewDecision>;
  /** Aborts the whole loop; every call still gets a result ("Cancelled: ..."). */
  signal?: AbortSignal;
  /** Per-call time limit; a late call becomes an error result. */
  toolTimeoutMs?: number;
  /** The tool definitions offered (default: `toolkit.getAllowedTools()`). */
  tools?: ReadonlyArray<AnyToolDefinition>;
  onEvent?: (event: LoopEvent) => void;
};

/** Runs the multi-turn tool loop to its end. */
export declare function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult>;
/** The same loop as an async iterator of events; `result` resolves when it ends. */
export declare function streamToolLoop(options: ToolLoopOptions): AsyncIterable<LoopEvent> & { result: Promise<ToolLoopResult> };
export * from "./types/providers";

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

/** A ready-made `LlmSession` over an official SDK client, built on the provider adapters. */
export declare function createProviderSession(options: ProviderSessionOptions): LlmSession & {
  /** The conversation so far, in the common `ChatMessage` shape. */
  readonly messages: import("./types/providers").ChatMessage[];
};
