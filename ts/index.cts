// The thin JavaScript layer: what has to live in JavaScript (the AsyncLocalStorage behind
// SecurityBypass, the mutable ToolCatalog object, the positional tools.* functions and the error
// classes). Every decision (policy, checks, sandbox, tools) is made by the native core.

import { AsyncLocalStorage } from "node:async_hooks";
import { platform, release } from "node:os";
import type { CallSiteInput, OutputCache as NativeOutputCache, Outcome as NativeOutcome } from "../binding.js";
import type {
  AllowedToolName,
  AstGrepSearchInput,
  ExecCommandInput,
  ExecSandbox,
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
import { abortError, type LoopRuntime, makeToolLoop } from "./loop.cjs";
import { builtInCatalog, loadNative } from "./native.cjs";
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

type InvokeWithUserTools<TUser extends AnyTool> = <TName extends AllowedToolName | TUser["name"]>(
  name: TName,
  args: TName extends AllowedToolName ? ToolArgsByName[TName] : ToolInput<Extract<TUser, { name: TName }>>,
) => Promise<{
  role: "function";
  name: TName;
  content: TName extends AllowedToolName ? ToolResultByName[TName] : ToolOutput<Extract<TUser, { name: TName }>>;
}>;

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

// ---- native outcomes ----------------------------------------------------------------------------

/** What the native entry points answer: a union discriminated by `kind` (binding.d.ts). */
type Outcome = NativeOutcome;

const outcomeOf = (value: unknown) => value as Outcome;
const messageOfOutcome = (outcome: Outcome) => (outcome as { message: string }).message;

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

// Every native call also gets `process.env`: tools that start processes build the child's
// environment from it (Bun does not mirror run-time changes of `process.env` into the C
// environment, so inheriting would miss them); other tools ignore it.
const builtInHandlers: Record<string, Handler> = Object.create(null);
/** Built-in handlers that run on the worker pool, by name (the session tools run on this thread). */
const workerHandlers: Record<string, Handler> = Object.create(null);
const catalog: Record<string, CatalogItem> = {};
for (const { name, isWriteOp, description, session } of builtInCatalog()) {
  const handler: Handler = session
    ? async (context, ...args) => sessionValue(context, outcomeOf(native.runSessionTool(name, todoState(context), args)))
    : async (context, ...args) => outputOf(outcomeOf(await native.runHandler(name, context, args, process.env)));
  builtInHandlers[name] = handler;
  if (!session) workerHandlers[name] = handler;
  catalog[name] = { metadata: { name, isWriteOp, description }, handler };
}

/** The built-in tools by name: each one's metadata and raw handler (no policy or sandbox checks). */
const ToolCatalog = catalog as unknown as ToolCatalogType;

// ---- todo session state: a Map plus an order array on the caller's context ---------------------

function todoState(context: ToolContext) {
  const state = context.todo;
  if (state == null) return null;
  return { tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order };
}

/** `context.todo` as JSON text for `invokeSession` (null when unset; undefined when it cannot be JSON). */
function todoJson(context: ToolContext): string | null | undefined {
  const state = context.todo;
  if (state == null) return null;
  try {
    return JSON.stringify({ tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order });
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
type Snapshot = ReturnType<typeof native.contextSnapshot>;
const snapshots = new WeakMap<object, { key: string; handle: Snapshot }>();

/**
 * A native snapshot of the fields of `context` the checks read, when they are all plain strings
 * (else null: such a context is read field by field on every call). Remade whenever one of
 * them changes, so a policy edited between calls applies at once.
 */
function contextSnapshot(context: ToolContext): Snapshot | null {
  const { workspaceRoot, writeScope, policy, env, exec } = context as Record<keyof ToolContext, unknown>;
  if (typeof workspaceRoot !== "string" || typeof writeScope !== "string" || !isRecord(policy) || !isRecord(env)) return null;
  // The snapshot has no `exec` (exec_command's OS sandbox): a context that sets it is read whole.
  if (exec !== undefined) return null;
  const { tools, defaultPolicy } = policy;
  const { platform } = env;
  if (typeof defaultPolicy !== "string" || typeof platform !== "string" || !isRecord(tools)) return null;
  const entries = Object.entries(tools);
  for (const entry of entries) if (typeof entry[1] !== "string") return null;
  const key = JSON.stringify([workspaceRoot, writeScope, defaultPolicy, platform, entries]);
  const cached = snapshots.get(context);
  if (cached !== undefined && cached.key === key) return cached.handle;
  const handle = native.contextSnapshot(key);
  snapshots.set(context, { key, handle });
  return handle;
}

/** Applies a session tool's change to `context.todo` and returns its output. */
function sessionValue(context: ToolContext, outcome: Outcome): unknown {
  const value = outputOf(outcome);
  if (outcome.kind === "ok" && outcome.change !== undefined) {
    const change = JSON.parse(outcome.change) as { replace?: TaskItem[]; set?: TaskItem };
    if (change.replace) {
      context.todo = { tasks: new Map(change.replace.map((t) => [t.task_id, t])), order: change.replace.map((t) => t.task_id) };
    } else if (change.set) {
      (context.todo as TodoSessionState).tasks.set(change.set.task_id, change.set);
    }
  }
  return value;
}

/** The result of a raw handler call: the value, or the tool's error thrown. */
function outputOf(outcome: Outcome): unknown {
  switch (outcome.kind) {
    case "ok":
      return JSON.parse(outcome.json);
    case "tool_error":
      throw toolError(outcome.name, outcome.code, outcome.message);
    default:
      throw internalError(messageOfOutcome(outcome));
  }
}

function callSite(name: string): { entry: CatalogItem | undefined; call: CallSiteInput } {
  const entry = Object.hasOwn(catalog, name) ? catalog[name] : undefined;
  return {
    entry,
    call: {
      name,
      registered: entry !== undefined,
      isWriteOp: entry?.metadata?.isWriteOp === true,
      bypass: SecurityBypass.isEnabled(),
    },
  };
}

// ---- createToolContext / createAgentToolkit -----------------------------------------------------

/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
const createToolContext = function createToolContext<const TExtraToolName extends string = never>(params: {
  workspaceRoot: string;
  writeScope?: FileAccessMode;
  policy?: SecurityPolicyConfig<AllowedToolName | NoInfer<TExtraToolName>>;
  exec?: ExecOptions;
}): ToolContext {
  const context: ToolContext = {
    workspaceRoot: params.workspaceRoot,
    writeScope: params.writeScope ?? "workspace-write",
    policy: (params.policy ?? { tools: {}, defaultPolicy: "deny" }) as ToolPolicy,
    env: { platform: platform(), osRelease: release() },
  };
  // Only when given: a context without it has exactly agent-tools-ts's fields.
  if (params.exec !== undefined) context.exec = params.exec;
  return context;
};

/** `toolkit.tools.<name>(...args)`: never rejects, resolves with a ToolResult. */
async function secureCall(context: ToolContext, name: string, handler: Handler, args: unknown[]): Promise<SecureToolResult<unknown>> {
  try {
    const { call } = callSite(name);
    const builtIn = handler === workerHandlers[name];
    const outcome = outcomeOf(await native.secureCall(context, call, args, builtIn, process.env));
    switch (outcome.kind) {
      case "ok":
        return { status: "success", data: JSON.parse(outcome.json) };
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
type Registered = { byName: Map<string, AnyTool>; runtime: Runtime };
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
  const { entry, call } = callSite(toolName);
  const userTool = entry === undefined ? registered.byName.get(toolName) : undefined;
  if (userTool) return fromValue((await invokeUserTool(context, userTool, name, args, registered.runtime)).content);
  // Tools with path arguments are checked (symlinks resolved) and run on the worker pool; the
  // others (session tools, unknown names) need no filesystem: checked and run synchronously.
  const worker = entry !== undefined && workerHandlers[toolName] !== undefined;
  let outcome: Outcome;
  if (worker) {
    const signal = registered.runtime?.signal;
    if (signal?.aborted) throw abortError();
    const builtIn = entry.handler === workerHandlers[toolName];
    outcome = outcomeOf(await withCallSignal(signal, (callSignal) => native.invoke(context, call, args, builtIn, process.env, callSignal)));
  } else {
    const builtIn = entry !== undefined && entry.handler === builtInHandlers[toolName];
    const snapshot = builtIn ? contextSnapshot(context) : null;
    const state = snapshot === null ? undefined : todoJson(context);
    if (state !== undefined) {
      const answer = native.invokeSession(snapshot as Snapshot, toolName, call.isWriteOp, call.bypass, args, state);
      if (typeof answer === "string") return fromJson(answer);
      outcome = outcomeOf(answer);
    } else {
      outcome = outcomeOf(native.invokeNow(context, call, args, builtIn, builtIn ? todoState(context) : null));
    }
    if (builtIn && outcome.kind === "ok") return fromValue(sessionValue(context, outcome));
  }
  switch (outcome.kind) {
    case "ok":
      return fromJson(outcome.json);
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
  const call = { name: toolName, registered: true, isWriteOp: writes, bypass: SecurityBypass.isEnabled() };
  const outcome = outcomeOf(native.invokeNow(context, call, args, false, null));
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
  <const TTools extends readonly AnyTool[]>(context: ToolContext, options: AgentToolkitOptions<TTools>): AgentToolkit<TTools[number]>;
} = function createAgentToolkit(context: ToolContext, options: AgentToolkitOptions<readonly AnyTool[]> = {}) {
  const registered = registerUserTools(options);
  const tools: Record<string, (...args: unknown[]) => Promise<SecureToolResult<unknown>>> = {};
  for (const name of Object.keys(builtInHandlers)) {
    const handler = (catalog[name] as CatalogItem).handler;
    tools[name] = (...args) => secureCall(context, name, handler, args);
  }
  const userNames = [...registered.byName.keys()];
  const toolkit = {
    tools,
    invoke: (name: unknown, args: unknown) => invoke(context, name, args, registered),
    getAllowedTools: () =>
      native.allowedToolNames(context, userNames).map((name) => definitionByName.get(name) ?? (registered.byName.get(name) as AnyTool).definition),
  };
  toolkitState.set(toolkit, { context, registered });
  return toolkit as unknown as AgentToolkit;
};

function registerUserTools(options: AgentToolkitOptions<readonly AnyTool[]> | undefined): Registered {
  const byName = new Map<string, AnyTool>();
  for (const tool of options?.tools ?? []) {
    if (!isTool(tool)) throw new TypeError("createAgentToolkit: options.tools must hold tools made by defineTool");
    if (Object.hasOwn(catalog, tool.name)) {
      throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with a built-in tool`);
    }
    if (byName.has(tool.name)) throw new Error(`createAgentToolkit: the tool name "${tool.name}" is registered twice`);
    byName.set(tool.name, tool);
  }
  const { deps, overrides, logger, now } = options ?? {};
  return { byName, runtime: { deps, overrides, logger, now } };
}

/**
 * Every tool of a toolkit (built-ins in declaration order, then user tools) as a `Tool`, whose
 * `executeRaw(json, ctx)` goes through the toolkit's `invoke` (policy, sandbox, validation) and
 * never throws, so a loop can treat all tools alike.
 */
// biome-ignore lint/suspicious/noExplicitAny: a toolkit with any user tools
const asTools = function asTools(toolkit: AgentToolkit<any>): Tool[] {
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
        const out = await invoke(context, name, args, { byName: registered.byName, runtime });
        return toResult(out.content);
      } catch (error) {
        return errorResult(messageOf(error));
      }
    },
  });
  const builtIns = definitions.map((d) =>
    make(d.function.name, d.function.description, d as Tool["definition"], (value) => ({ type: "json", value })),
  );
  const own = [...registered.byName.values()].map((t) => make(t.name, t.description, t.definition, toToolResult));
  return [...builtIns, ...own];
};

/** What the tool loop needs of a toolkit. */
// biome-ignore lint/suspicious/noExplicitAny: a toolkit with any user tools
function loopRuntime(toolkit: AgentToolkit<any>): LoopRuntime {
  const state = toolkitState.get(toolkit);
  if (!state) throw new TypeError("runToolLoop: toolkit must be made by createAgentToolkit");
  const { context, registered } = state;
  return {
    definitions: () => toolkit.getAllowedTools(),
    has: (name) => Object.hasOwn(catalog, name) || registered.byName.has(name),
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
      const reg = { byName: registered.byName, runtime: { ...registered.runtime, ...ctx } };
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
