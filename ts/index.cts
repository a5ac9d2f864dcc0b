// The thin JavaScript layer: what has to live in JavaScript (the AsyncLocalStorage behind
// SecurityBypass, the mutable ToolCatalog object, the positional tools.* functions and the error
// classes). Every decision (policy, checks, sandbox, tools) is made by the native core.

import { AsyncLocalStorage } from "node:async_hooks";
import { platform, release } from "node:os";
import type { CallRequest, OutputCache as NativeOutputCache, Outcome as NativeOutcome } from "../binding.js";
import type {
  AllowedToolName,
  ApplyPatchesInput,
  AstGrepSearchInput,
  EditFileOptions,
  ExecCommandInput,
  ExecSandbox,
  FindFilesInput,
  OptInToolArgsByName,
  OptInToolDefinitions,
  OptInToolName,
  OptInToolResultByName,
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
} from "../types/tools.js";
import { hooks } from "./internal.cjs";
import { abortError, type AnyToolkit, type LoopRuntime, makeToolLoop } from "./loop.cjs";
import { builtInCatalog, type CatalogEntry, loadNative, optInCatalog } from "./native.cjs";
import {
  type AnyTool,
  applyOutputCache,
  defineTool,
  doneTool,
  type ExecuteRawContext,
  errorResult,
  executionContext,
  isTool,
  outputCacheTools,
  runExecute,
  type Tool,
  type ToolInput,
  type ToolOutput,
  type ToolResult,
  toolInternals,
  toToolMessageContent,
  toToolResult,
  validateInput,
} from "./user_tools.cjs";

const native = loadNative();

// ---- public types (agent-tools-ts's twelve, then the toolkit's) -------------------------------

export type { AllowedToolName, ExecSandbox, ToolArgsByName, ToolResultByName };
export type { OptInToolArgsByName, OptInToolDefinitions, OptInToolName, OptInToolResultByName };

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
  /** exec_command's opt-in OS sandbox (absent or `sandbox: "off"`: none). */
  exec?: ExecOptions;
  /**
   * The memory budget in bytes of the search cache that regexp_search and ast_grep_search share
   * per workspace (README, "Warm searches"); absent: 128 MiB; `0`: no cache for this context.
   */
  searchCacheBytes?: number;
};

/**
 * exec_command's OS sandbox (README, "Reliability"): with `"auto"` or `"required"` each command
 * restricts itself before it starts — Landlock on Linux, Seatbelt on macOS — to write only where
 * `writeScope` allows, and with `network: "deny"` to open no IP connection. `"required"` fails a
 * call (`SANDBOX_UNAVAILABLE`) where the system cannot enforce it; `"auto"` then runs the command
 * unsandboxed. The result's `sandbox` field says what was enforced.
 */
export type ExecOptions = {
  sandbox?: "off" | "auto" | "required";
  /** Default `"allow"`; `"deny"` needs `sandbox` `"auto"` or `"required"`. */
  network?: "allow" | "deny";
};

export type ToolErrorEnvelope = {
  code: string;
  message: string;
  retriable: boolean;
  details: Record<string, unknown>;
};

export type InvokeToolErrorCode = "INVALID_TOOL_ARGUMENTS_TYPE" | "TOOL_NOT_FOUND" | "TOOL_NOT_ALLOWED" | "INTERNAL";

export type ToolkitInvokeOutput<TName extends AllowedToolName> = {
  role: "function";
  name: TName;
  content: ToolResultByName[TName];
};

export type Invoke = <TName extends AllowedToolName>(name: TName, args: ToolArgsByName[TName]) => Promise<ToolkitInvokeOutput<TName>>;

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

/** The positional parameters of each opt-in tool (`toolkit.tools.<name>` when enabled). */
type OptInToolParams = {
  edit_file: [path: string, options: EditFileOptions];
  find_files: [input: FindFilesInput];
  apply_patches: [input: ApplyPatchesInput];
};

type OptInSecureTools<TExtra extends OptInToolName> = {
  [K in TExtra]: (...args: OptInToolParams[K]) => Promise<SecureToolResult<OptInToolResultByName[K]>>;
};

/** The input of a built-in or opt-in tool by name. */
type KnownArgs<TName> = TName extends AllowedToolName ? ToolArgsByName[TName] : TName extends OptInToolName ? OptInToolArgsByName[TName] : never;
/** The output of a built-in or opt-in tool by name. */
type KnownResult<TName> = TName extends AllowedToolName
  ? ToolResultByName[TName]
  : TName extends OptInToolName
    ? OptInToolResultByName[TName]
    : never;

/** `invoke` of a toolkit with opt-in tools enabled (and maybe user tools). */
type InvokeWithExtraTools<TUser extends AnyTool, TExtra extends OptInToolName> = <TName extends AllowedToolName | TExtra | TUser["name"]>(
  name: TName,
  args: TName extends AllowedToolName | TExtra ? KnownArgs<TName> : ToolInput<Extract<TUser, { name: TName }>>,
) => Promise<{
  role: "function";
  name: TName;
  content: TName extends AllowedToolName | TExtra ? KnownResult<TName> : ToolOutput<Extract<TUser, { name: TName }>>;
}>;

type InvokeWithUserTools<TUser extends AnyTool> = <TName extends AllowedToolName | TUser["name"]>(
  name: TName,
  args: TName extends AllowedToolName ? ToolArgsByName[TName] : ToolInput<Extract<TUser, { name: TName }>>,
) => Promise<{
  role: "function";
  name: TName;
  content: TName extends AllowedToolName ? ToolResultByName[TName] : ToolOutput<Extract<TUser, { name: TName }>>;
}>;

/**
 * The toolkit: exactly agent-tools-ts's shape; `invoke` also knows the registered user tools,
 * and `tools` / `invoke` / `getAllowedTools` the enabled opt-in tools (`TExtra`).
 */
export type AgentToolkit<TUser extends AnyTool = never, TExtra extends OptInToolName = never> = [TExtra] extends [never]
  ? {
      tools: SecureTools;
      invoke: [TUser] extends [never] ? Invoke : InvokeWithUserTools<TUser>;
      getAllowedTools: () => [TUser] extends [never]
        ? Array<ToolDefinitions[AllowedToolName]>
        : Array<ToolDefinitions[AllowedToolName] | TUser["definition"]>;
    }
  : {
      tools: SecureTools & OptInSecureTools<TExtra>;
      invoke: InvokeWithExtraTools<TUser, TExtra>;
      getAllowedTools: () => Array<ToolDefinitions[AllowedToolName] | OptInToolDefinitions[TExtra] | TUser["definition"]>;
    };

export type AgentToolkitOptions<TTools extends readonly AnyTool[], TExtra extends OptInToolName = never> = {
  /** User tools made by `defineTool`; names must not clash with built-ins, enabled opt-in tools or each other. */
  tools?: TTools;
  /**
   * Opt-in tools to enable beside the 13 (`"edit_file"`): served through the same policy,
   * sandbox and error model, listed by `getAllowedTools()` after the built-ins.
   */
  extraTools?: readonly TExtra[];
  /** Defaults of every user tool's execution context. */
  deps?: Record<string, unknown>;
  overrides?: ExecuteRawContext["overrides"];
  logger?: ExecuteRawContext["logger"];
  now?: () => Date;
};

type ToolCatalogType = {
  readonly [K in keyof ToolParams]: {
    readonly metadata: ToolCatalogMetadata[K];
    readonly handler: (context: ToolContext, ...args: ToolParams[K]) => Promise<ToolResultByName[K]>;
  };
};

// ---- native calls -------------------------------------------------------------------------------

/**
 * What a native call answers: a union discriminated by `kind` (binding.d.ts), or, for an `ok`
 * without a state change, its JSON text alone.
 */
type Outcome = NativeOutcome;
type Answer = string | Outcome;

const messageOfOutcome = (outcome: Outcome) => (outcome as { message: string }).message;

/**
 * The one native entry of a tool call (binding.d.ts, `callTool`): the request says which front
 * door; `state` is read by the session tools only, `process.env` by the tools that start
 * processes (Bun does not mirror run-time changes of `process.env` into the C environment, so
 * inheriting would miss them). Synchronous where the native side finishes at once.
 */
function callNative(request: CallRequest, context: ToolContext, args: unknown, signal?: AbortSignal): Answer | Promise<Answer> {
  const state = sessionTools.has(request.name) ? todoJson(context) : null;
  return native.callTool(request, contextHandle(context), args, state, process.env, signal);
}

// ---- SecurityBypass -------------------------------------------------------------------------

const bypassScope = new AsyncLocalStorage<boolean>();

/**
 * Runs work with the policy check skipped for its whole async call tree (docs/compat.md,
 * "Module surface"); nothing else is skipped.
 */
const SecurityBypass: {
  run<T>(task: () => Promise<T> | T): Promise<T>;
  isEnabled(): boolean;
  enforce<T>(task: () => Promise<T> | T): Promise<T>;
} = {
  /** Runs `task` with the policy check bypassed for its whole async call tree. */
  run(task) {
    return bypassScope.run(true, async () => task());
  },
  isEnabled() {
    return bypassScope.getStore() === true;
  },
  /**
   * Runs `task` with the bypass switched off, even inside `run`
   * (docs/compat.md, "SecurityBypass.enforce switches the bypass off").
   */
  enforce(task) {
    return bypassScope.run(false, async () => task());
  },
};

// ---- errors ---------------------------------------------------------------------------------

class InvokeToolError extends Error {
  declare code: string;
  declare tool_name: string | undefined;
  declare rawMessage: string;

  constructor(code: string, rawMessage: string, options: { tool_name?: string } = {}) {
    super(`${code}: ${rawMessage}`);
    this.name = "InvokeToolError";
    this.code = code;
    this.tool_name = options.tool_name;
    this.rawMessage = rawMessage;
  }

  toEnvelope(): ToolErrorEnvelope {
    return {
      code: this.code,
      message: this.rawMessage,
      retriable: this.code === "INTERNAL",
      details: this.tool_name ? { tool_name: this.tool_name } : {},
    };
  }
}

type ToolErrorClass = new (code: string, message: string) => Error & { code: string };
const toolErrorClasses = new Map<string, ToolErrorClass>();

/** The tool's own error class (`ReadFileError`, ...): an Error with own `name` and `code`. */
function toolError(className: string, code: string, message: string): Error {
  let ToolError = toolErrorClasses.get(className);
  if (!ToolError) {
    ToolError = class extends Error {
      declare code: string;
      constructor(errorCode: string, errorMessage: string) {
        super(errorMessage);
        this.name = className;
        this.code = errorCode;
      }
    };
    Object.defineProperty(ToolError, "name", { value: className });
    toolErrorClasses.set(className, ToolError);
  }
  return new ToolError(code, message);
}

function internalError(message: string): Error {
  return toolError("Error", "INTERNAL", `INTERNAL: ${message}`);
}

// ---- ToolResult envelopes --------------------------------------------------------------------

const DENIAL_CODES = { policy: "POLICY_DENIED", sandbox: "SANDBOX_VIOLATION" };

function denied(reason: "policy" | "sandbox", message: string): SecureToolResult<never> {
  return {
    status: "denied",
    reason,
    message,
    error: { code: DENIAL_CODES[reason], message, retriable: false, details: {} },
  };
}

function failure(message: string): SecureToolResult<never> {
  return {
    status: "failure",
    reason: "runtime",
    message,
    error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} },
  };
}

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

// ---- ToolCatalog --------------------------------------------------------------------------------

type Handler = (context: ToolContext, ...args: unknown[]) => Promise<unknown>;
type CatalogItem = { metadata: { name: string; isWriteOp: boolean; description: string }; handler: Handler };
type Definition = ToolDefinitions[AllowedToolName];

const definitions = JSON.parse(native.toolDefinitionsJson()) as Definition[];
const definitionByName = new Map<string, Definition>(definitions.map((d) => [d.function.name, d]));

const builtInHandlers: Record<string, Handler> = Object.create(null);
/** The built-in tools that keep their state on the context (`context.todo`). */
const sessionTools = new Set<string>();
const catalog: Record<string, CatalogItem> = {};
for (const { name, isWriteOp, description, session } of builtInCatalog()) {
  const handler: Handler = async (context, ...args) => {
    const outcome = await callNative({ door: "handler", name }, context, args);
    return JSON.parse(resultJson(context, outcome));
  };
  builtInHandlers[name] = handler;
  if (session) sessionTools.add(name);
  catalog[name] = { metadata: { name, isWriteOp, description }, handler };
}

/** The built-in tools by name: each one's metadata and raw handler (no policy or sandbox checks). */
const ToolCatalog = catalog as unknown as ToolCatalogType;

/** The opt-in tools by name (`extraTools`); not in `ToolCatalog`, which stays the 13. */
const optInTools = new Map<string, CatalogEntry>(optInCatalog().map((entry) => [entry.name, entry]));

// ---- todo session state: a Map plus an order array on the caller's context ---------------------

/** `context.todo` as JSON text for the session tools (null when unset). */
function todoJson(context: ToolContext): string | null {
  const state = context.todo;
  if (state == null) return null;
  return JSON.stringify({ tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order });
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
type ContextHandle = ReturnType<typeof native.contextHandle>;
type ReadLedger = ReturnType<typeof native.newReadLedger>;
const contextHandles = new WeakMap<object, { key: string; handle: ContextHandle; reads: ReadLedger | undefined }>();
/**
 * The read ledger of each context a toolkit with edit_file serves: what the context read or wrote
 * through the toolkit (content fingerprints by real path, kept natively), for edit_file's
 * stale-read guard. Kept beside the context, not on it, so the context object keeps its shape.
 */
const readLedgers = new WeakMap<object, ReadLedger>();

/**
 * The native copy of `context` for a call. Kept per context while the fields the checks read are
 * all plain strings, and made anew whenever one of them changes, so a policy edited between calls
 * applies at once; any other context is read afresh for every call.
 */
function contextHandle(context: ToolContext): ContextHandle {
  const reads = readLedgers.get(context);
  const key = contextKey(context);
  if (key === null) return native.contextHandle(context, reads);
  const cached = contextHandles.get(context);
  if (cached !== undefined && cached.key === key && cached.reads === reads) return cached.handle;
  const handle = native.contextHandle(context, reads);
  contextHandles.set(context, { key, handle, reads });
  return handle;
}

/** The fields of `context` the native side reads, as a key; null unless they are plain strings. */
function contextKey(context: ToolContext): string | null {
  const { workspaceRoot, writeScope, policy, env, exec, searchCacheBytes } = context as Record<keyof ToolContext, unknown>;
  if (typeof workspaceRoot !== "string" || typeof writeScope !== "string" || !isRecord(policy) || !isRecord(env)) return null;
  if (searchCacheBytes !== undefined && !Number.isSafeInteger(searchCacheBytes)) return null;
  // The key has no `exec` (exec_command's OS sandbox): a context that sets it is read afresh.
  if (exec !== undefined) return null;
  const { tools, defaultPolicy } = policy;
  const { platform } = env;
  if (typeof defaultPolicy !== "string" || typeof platform !== "string" || !isRecord(tools)) return null;
  const entries = Object.entries(tools);
  for (const entry of entries) if (typeof entry[1] !== "string") return null;
  return JSON.stringify([workspaceRoot, writeScope, defaultPolicy, platform, entries, searchCacheBytes ?? null]);
}

/**
 * The JSON text of a handler's result: its output, with a session tool's change applied to
 * `context.todo`; any other outcome is the tool's error (or an internal one), thrown.
 */
function resultJson(context: ToolContext, outcome: Answer): string {
  if (typeof outcome === "string") return outcome;
  switch (outcome.kind) {
    case "ok":
      if (outcome.change !== undefined) applyTodoChange(context, outcome.change);
      return outcome.json;
    case "tool_error":
      throw toolError(outcome.name, outcome.code, outcome.message);
    default:
      throw internalError(messageOfOutcome(outcome));
  }
}

/** Applies a session tool's change (JSON text: `{ replace }` or `{ set }`) to `context.todo`. */
function applyTodoChange(context: ToolContext, json: string): void {
  const change = JSON.parse(json) as { replace?: TaskItem[]; set?: TaskItem };
  if (change.replace) {
    context.todo = { tasks: new Map(change.replace.map((t) => [t.task_id, t])), order: change.replace.map((t) => t.task_id) };
  } else if (change.set) {
    (context.todo as TodoSessionState).tasks.set(change.set.task_id, change.set);
  }
}

/** The catalog entry of `name` (own properties only) and whether its built-in handler is in place. */
function catalogEntry(name: string): { entry: CatalogItem | undefined; builtIn: boolean } {
  const entry = Object.hasOwn(catalog, name) ? catalog[name] : undefined;
  return { entry, builtIn: entry !== undefined && entry.handler === builtInHandlers[name] };
}

// ---- createToolContext / createAgentToolkit -----------------------------------------------------

/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
const createToolContext = function createToolContext<const TExtraToolName extends string = never>(params: {
  workspaceRoot: string;
  writeScope?: FileAccessMode;
  policy?: SecurityPolicyConfig<AllowedToolName | OptInToolName | NoInfer<TExtraToolName>>;
  exec?: ExecOptions;
  searchCacheBytes?: number;
}): ToolContext {
  const context: ToolContext = {
    workspaceRoot: params.workspaceRoot,
    writeScope: params.writeScope ?? "workspace-write",
    policy: (params.policy ?? { tools: {}, defaultPolicy: "deny" }) as ToolPolicy,
    env: { platform: platform(), osRelease: release() },
  };
  // Only when given: a context without it has exactly agent-tools-ts's fields.
  if (params.exec !== undefined) context.exec = params.exec;
  if (params.searchCacheBytes !== undefined) context.searchCacheBytes = params.searchCacheBytes;
  return context;
};

/** `toolkit.tools.<name>(...args)`: never rejects, resolves with a ToolResult. */
async function secureCall(
  context: ToolContext,
  name: string,
  handler: Handler,
  args: unknown[],
  optIn?: CatalogEntry,
): Promise<SecureToolResult<unknown>> {
  try {
    const isWriteOp = optIn ? optIn.isWriteOp : catalog[name]?.metadata?.isWriteOp === true;
    const runBuiltIn = optIn !== undefined || handler === builtInHandlers[name];
    const request: CallRequest = { door: "tools", name, isWriteOp, bypass: SecurityBypass.isEnabled(), runBuiltIn };
    const outcome = await callNative(request, context, args);
    if (typeof outcome === "string") return { status: "success", data: JSON.parse(outcome) };
    switch (outcome.kind) {
      case "ok":
        return { status: "success", data: JSON.parse(resultJson(context, outcome)) };
      case "prepared":
        return { status: "success", data: await handler(context, ...outcome.args) };
      case "denied":
        return denied(outcome.reason, outcome.message);
      case "internal":
        return failure(`INTERNAL: ${outcome.message}`);
      default:
        return failure(outcome.message);
    }
  } catch (thrown) {
    return failure(messageOf(thrown));
  }
}

/**
 * Runs `run` with a signal of its own that follows `signal`: napi-rs takes over the `onabort`
 * property of the signal it is given, so the caller's own signal (and its `onabort` handler) is
 * never handed to native code, and nothing of the call stays attached to it afterwards.
 */
async function withCallSignal<T>(signal: AbortSignal | undefined, run: (signal: AbortSignal | undefined) => T | Promise<T>): Promise<T> {
  if (!signal) return run(undefined);
  const own = new AbortController();
  const follow = () => own.abort(signal.reason);
  signal.addEventListener("abort", follow, { once: true });
  try {
    return await run(own.signal);
  } finally {
    signal.removeEventListener("abort", follow);
  }
}

/** What a user tool's execution context starts from (the toolkit's defaults, then the call's). */
type Runtime = ExecuteRawContext;
type Registered = { byName: Map<string, AnyTool>; runtime: Runtime; extras: Map<string, CatalogEntry> };
type InvokeOutput = { role: "function"; name: unknown; content: unknown };

/**
 * `toolkit.invoke(name, args)`: resolves with `{ role, name, content }`, rejects on any error.
 * With `asText` it resolves with the output as JSON text instead (the tool loop's output for the
 * model): a built-in's text as it left Rust, which is `JSON.stringify` of its parsed value.
 */
function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText?: false): Promise<InvokeOutput>;
function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText: true): Promise<string>;
async function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText = false): Promise<InvokeOutput | string> {
  const fromJson = (json: string) => (asText ? json : { role: "function" as const, name, content: JSON.parse(json) });
  const fromValue = (content: unknown) => (asText ? JSON.stringify(content) : { role: "function" as const, name, content });
  const toolName = String(name);
  const { entry, builtIn } = catalogEntry(toolName);
  const optIn = entry === undefined ? registered.extras.get(toolName) : undefined;
  const userTool = entry === undefined && optIn === undefined ? registered.byName.get(toolName) : undefined;
  if (userTool) return fromValue((await invokeUserTool(context, userTool, name, args, registered.runtime)).content);
  const signal = registered.runtime?.signal;
  if (signal?.aborted) throw abortError();
  const request: CallRequest = {
    door: "invoke",
    name: toolName,
    registered: entry !== undefined || optIn !== undefined,
    isWriteOp: optIn ? optIn.isWriteOp : entry?.metadata?.isWriteOp === true,
    bypass: SecurityBypass.isEnabled(),
    runBuiltIn: builtIn || optIn !== undefined,
  };
  const outcome = await withCallSignal(signal, (callSignal) => callNative(request, context, args, callSignal));
  if (typeof outcome === "string") return fromJson(outcome);
  switch (outcome.kind) {
    case "ok":
      return fromJson(resultJson(context, outcome));
    case "prepared":
      return fromValue(await catalog[toolName]?.handler(context, ...outcome.args));
    case "invoke_error":
      throw new InvokeToolError(outcome.code, outcome.message, { tool_name: toolName });
    case "plain_error":
      throw new Error(outcome.message);
    case "tool_error":
      throw toolError(outcome.name, outcome.code, outcome.message);
    default:
      throw new InvokeToolError("INTERNAL", outcome.message, { tool_name: toolName });
  }
}

/** A user tool through `invoke`: the same checks in the same order, then zod, then execute. */
async function invokeUserTool(context: ToolContext, tool: AnyTool, name: unknown, args: unknown, runtime: Runtime): Promise<InvokeOutput> {
  const toolName = String(name);
  const { writes } = toolInternals.get(tool) as { writes: boolean };
  const request: CallRequest = { door: "invoke", name: toolName, registered: true, isWriteOp: writes, bypass: SecurityBypass.isEnabled(), runBuiltIn: false };
  const outcome = await callNative(request, context, args);
  if (typeof outcome === "string") throw new InvokeToolError("INTERNAL", "a user tool's checks gave an output", { tool_name: toolName });
  if (outcome.kind === "invoke_error") throw new InvokeToolError(outcome.code, outcome.message, { tool_name: toolName });
  if (outcome.kind !== "prepared") throw new InvokeToolError("INTERNAL", messageOfOutcome(outcome), { tool_name: toolName });
  const input = await validateInput(tool, args);
  const content = await runExecute(tool, input, executionContext(runtime));
  return { role: "function", name, content };
}

/** Toolkit internals (user tools, DI defaults), for `asTools`. */
const toolkitState = new WeakMap<object, { context: ToolContext; registered: Registered }>();

/**
 * `createAgentToolkit(context)` exactly as agent-tools-ts; `options.tools` registers user tools
 * (from `defineTool`), `options.deps` / `options.overrides` / `options.logger` / `options.now`
 * are the defaults of their execution context.
 */
const createAgentToolkit: {
  (context: ToolContext): AgentToolkit;
  <const TTools extends readonly AnyTool[], const TExtra extends OptInToolName = never>(
    context: ToolContext,
    options: AgentToolkitOptions<TTools, TExtra>,
  ): AgentToolkit<TTools[number], TExtra>;
} = function createAgentToolkit(context: ToolContext, options: AgentToolkitOptions<readonly AnyTool[], OptInToolName> = {}) {
  const registered = registerUserTools(options);
  const tools: Record<string, (...args: unknown[]) => Promise<SecureToolResult<unknown>>> = {};
  for (const name of Object.keys(builtInHandlers)) {
    const handler = (catalog[name] as CatalogItem).handler;
    tools[name] = (...args) => secureCall(context, name, handler, args);
  }
  for (const [name, entry] of registered.extras) {
    tools[name] = (...args) => secureCall(context, name, noHandler, args, entry);
  }
  if (registered.extras.has("edit_file") && !readLedgers.has(context)) readLedgers.set(context, native.newReadLedger());
  const extraNames = [...registered.extras.keys()];
  const userNames = [...registered.byName.keys()];
  const toolkit = {
    tools,
    invoke: (name: unknown, args: unknown) => invoke(context, name, args, registered),
    getAllowedTools: () =>
      native
        .allowedToolNames(context, [...extraNames, ...userNames])
        .map(
          (name) =>
            definitionByName.get(name) ??
            (registered.extras.get(name)?.definition as Definition | undefined) ??
            (registered.byName.get(name) as AnyTool).definition,
        ),
  };
  toolkitState.set(toolkit, { context, registered });
  return toolkit as unknown as AgentToolkit;
};

/** An opt-in tool has no replaceable handler: its calls always run the native one. */
const noHandler: Handler = async () => {
  throw internalError("an opt-in tool has no JavaScript handler");
};

/** The opt-in tools `options.extraTools` enables, in registry order. */
function enableExtraTools(extraTools: unknown): Map<string, CatalogEntry> {
  const extras = new Map<string, CatalogEntry>();
  if (extraTools === undefined) return extras;
  if (!Array.isArray(extraTools)) throw new TypeError("createAgentToolkit: options.extraTools must be an array of tool names");
  for (const name of extraTools) {
    if (typeof name !== "string" || !optInTools.has(name)) {
      throw new TypeError(`createAgentToolkit: unknown extra tool ${JSON.stringify(name)} (known: ${[...optInTools.keys()].join(", ")})`);
    }
  }
  for (const [name, entry] of optInTools) if (extraTools.includes(name)) extras.set(name, entry);
  return extras;
}

function registerUserTools(options: AgentToolkitOptions<readonly AnyTool[], OptInToolName> | undefined): Registered {
  const byName = new Map<string, AnyTool>();
  const extras = enableExtraTools(options?.extraTools);
  for (const tool of options?.tools ?? []) {
    if (!isTool(tool)) throw new TypeError("createAgentToolkit: options.tools must hold tools made by defineTool");
    if (Object.hasOwn(catalog, tool.name)) {
      throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with a built-in tool`);
    }
    if (extras.has(tool.name)) {
      throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with an enabled extra tool`);
    }
    if (byName.has(tool.name)) throw new Error(`createAgentToolkit: the tool name "${tool.name}" is registered twice`);
    byName.set(tool.name, tool);
  }
  const { deps, overrides, logger, now } = options ?? {};
  return { byName, runtime: { deps, overrides, logger, now }, extras };
}

/**
 * Every tool of a toolkit (built-ins in declaration order, then user tools) as a `Tool`, whose
 * `executeRaw(json, ctx)` goes through the toolkit's `invoke` (policy, sandbox, validation) and
 * never throws, so a loop can treat all tools alike.
 */
const asTools = function asTools(toolkit: AnyToolkit): Tool[] {
  const state = toolkitState.get(toolkit);
  if (!state) throw new TypeError("asTools: not a toolkit made by createAgentToolkit");
  const { context, registered } = state;
  const make = (name: string, description: string, definition: Tool["definition"], toResult: (value: unknown) => ToolResult): Tool => ({
    name,
    description,
    definition,
    async executeRaw(rawArgsJson, ctx = {}) {
      let args: unknown;
      try {
        args = rawArgsJson === undefined || rawArgsJson === null || rawArgsJson === "" ? {} : JSON.parse(rawArgsJson);
      } catch (error) {
        return errorResult(`invalid JSON arguments: ${(error as Error).message}`);
      }
      try {
        const runtime = { ...registered.runtime, ...ctx };
        const out = await invoke(context, name, args, { ...registered, runtime });
        return toResult(out.content);
      } catch (error) {
        return errorResult(messageOf(error));
      }
    },
  });
  const extraDefinitions = [...registered.extras.values()].map((entry) => entry.definition as Definition);
  const builtIns = [...definitions, ...extraDefinitions].map((d) =>
    make(d.function.name, d.function.description, d as Tool["definition"], (value) => ({ type: "json", value })),
  );
  const own = [...registered.byName.values()].map((t) => make(t.name, t.description, t.definition, toToolResult));
  return [...builtIns, ...own];
};

/** What the tool loop needs of a toolkit. */
function loopRuntime(toolkit: AnyToolkit): LoopRuntime {
  const state = toolkitState.get(toolkit);
  if (!state) throw new TypeError("runToolLoop: toolkit must be made by createAgentToolkit");
  const { context, registered } = state;
  return {
    definitions: () => toolkit.getAllowedTools(),
    has: (name) => Object.hasOwn(catalog, name) || registered.extras.has(name) || registered.byName.has(name),
    userTool: (name) => {
      const tool = registered.byName.get(name);
      return tool ? { writes: (toolInternals.get(tool) as { writes: boolean }).writes } : undefined;
    },
    execSandbox: () => {
      const preview = native.execSandboxPreview(context);
      return preview === null ? undefined : (JSON.parse(preview) as ExecSandbox);
    },
    /** The call's output as the model sees it: a user tool's message text, a built-in's JSON text. */
    output: async (name, args, ctx) => {
      const reg = { ...registered, runtime: { ...registered.runtime, ...ctx } };
      if (registered.byName.has(name)) return messageText(toToolResult((await invoke(context, name, args, reg)).content));
      return invoke(context, name, args, reg, true);
    },
  };
}

/** A ToolResult as the loop's string output (parts: their text, images noted). */
function messageText(result: ToolResult): string {
  const content = toToolMessageContent(result);
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}

hooks.invokeWithSignal = async (toolkit, name, args, signal) => {
  const state = toolkitState.get(toolkit);
  if (!state) throw new TypeError("not a toolkit made by createAgentToolkit");
  const { context, registered } = state;
  return (await invoke(context, name, args, { ...registered, runtime: { ...registered.runtime, signal } })).content;
};

const loop = makeToolLoop(loopRuntime);
/** Runs the multi-turn tool loop to its end. */
const runToolLoop = loop.runToolLoop;
/** The same loop as an async iterator of events; `result` resolves when it ends. */
const streamToolLoop = loop.streamToolLoop;

/**
 * Tool outputs kept whole while their total stays under `budgetChars` (UTF-16 units, default
 * 100 000); older ones are evicted from the conversation but stay readable by id (`out-1`, ...).
 */
const OutputCache: typeof NativeOutputCache = native.OutputCache;
type OutputCache = NativeOutputCache;

// ---- the module's exports -----------------------------------------------------------------------

// One list, in the order `Object.keys(require("agent-tools-native"))` shows them (values only:
// tsc would hoist exported function declarations above the others). The user-tool, loop and
// session types come from their modules; the provider adapters follow (`export *`).
export {
  createToolContext,
  createAgentToolkit,
  ToolCatalog,
  SecurityBypass,
  defineTool,
  asTools,
  toToolMessageContent,
  OutputCache,
  outputCacheTools,
  applyOutputCache,
  doneTool,
  runToolLoop,
  streamToolLoop,
};
export { createProviderSession } from "./sessions.cjs";
export type {
  DefineToolOptions,
  DependencyKey,
  DependencyOverrides,
  ExecuteRawContext,
  ImagePart,
  Logger,
  TextPart,
  Tool,
  ToolExecutionContext,
  ToolExecutionResult,
  ToolResult,
} from "./user_tools.cjs";
export type {
  LlmContentBlock,
  LlmResponse,
  LlmSession,
  LoopEvent,
  LoopMessage,
  LoopStopReason,
  LoopToolResult,
  ReviewDecision,
  ReviewRequest,
  SessionEvent,
  SessionSendOptions,
  StopReason,
  ToolCallDelta,
  ToolLoopOptions,
  ToolLoopResult,
  TurnRecord,
} from "./loop.cjs";
export type { ProviderSessionOptions } from "./sessions.cjs";
export * from "./providers.cjs";
