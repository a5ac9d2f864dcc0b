// The toolkit: `createAgentToolkit` and its three ways into a tool — `toolkit.tools.<name>`
// (a ToolResult envelope, never rejects), `toolkit.invoke` (rejects on any error) and `asTools`
// (a `Tool` per tool for a loop) — plus `invokeWithSignal` for the command line (cli.cts).

import type { OutputCache as NativeOutputCache } from "../binding.js";
import type { OptInToolName } from "../types/tools.js";
import { builtInHandlers, type CatalogItem, catalog, type Definition, definitionByName, definitions, type Handler, optInTools } from "./catalog.cjs";
import { type CheckpointSettings, contextHandle, type EditHooks, editHooksFor, processTables, readLedgers } from "./context.cjs";
import { codedError, denied, failure, InvokeToolError, internalError, messageOf, refused } from "./errors.cjs";
import { type AnyToolkit, loopAborted, parseArguments } from "./loop.cjs";
import { type CatalogEntry, loadNative } from "./native.cjs";
import { callNative, type Failed, requestFor, resultJson, settle, thrownBy } from "./native_call.cjs";
import type { AgentToolkit, AgentToolkitOptions, CheckpointsApi, SecureToolResult, ToolContext } from "./types.cjs";
import {
  type AnyTool,
  errorResult,
  type ExecuteRawContext,
  executionContext,
  isTool,
  runExecute,
  type Tool,
  type ToolResult,
  toolInternals,
  toToolResult,
  validateInput,
} from "./user_tools.cjs";

const native = loadNative();

/** `toolkit.tools.<name>(...args)`: never rejects, resolves with a result envelope (`status`). */
async function secureCall(
  context: ToolContext,
  name: string,
  handler: Handler,
  args: unknown[],
  edits: EditHooks | undefined,
  optIn?: CatalogEntry,
): Promise<SecureToolResult<unknown>> {
  try {
    const isWriteOp = optIn ? optIn.isWriteOp : catalog[name]?.metadata?.isWriteOp === true;
    const runBuiltIn = optIn !== undefined || handler === builtInHandlers[name];
    const answer = callNative(requestFor("tools", name, { registered: true, isWriteOp, runBuiltIn }), name, context, args, edits);
    // A session tool's answer is there at once: no promise to wait for.
    const settled = settle(answer instanceof Promise ? await answer : answer);
    if ("json" in settled) return { status: "success", data: JSON.parse(settled.json) };
    if ("value" in settled) return { status: "success", data: settled.value };
    if ("args" in settled) return { status: "success", data: await handler(context, ...settled.args) };
    return envelopeOf(settled.failed);
  } catch (thrown) {
    return failure(messageOf(thrown));
  }
}

/** The `toolkit.tools` envelope of a failed call: a denial, or a runtime failure. */
function envelopeOf(failed: Failed): SecureToolResult<never> {
  switch (failed.kind) {
    case "denied":
      return denied(failed.reason, failed.message);
    case "internal":
      return failure(`INTERNAL: ${failed.message}`);
    case "tool_error":
      return refused(failure(failed.message, failed.details), failed.reason);
    default:
      return failure(failed.message);
  }
}

/**
 * Runs `run` with a signal of its own that follows `signal`: napi-rs takes over the `onabort`
 * property of the signal it is given, so the caller's own signal (and its `onabort` handler) is
 * never handed to native code, and nothing of the call stays attached to it afterwards.
 */
function withCallSignal<T>(signal: AbortSignal | undefined, run: (signal: AbortSignal | undefined) => T | Promise<T>): T | Promise<T> {
  // Without a signal, the answer as it comes (a session tool's at once: no promise to wait for).
  if (!signal) return run(undefined);
  return followed(signal, run);
}

async function followed<T>(signal: AbortSignal, run: (signal: AbortSignal | undefined) => T | Promise<T>): Promise<T> {
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
export type Registered = { byName: Map<string, AnyTool>; runtime: Runtime; optIns: Map<string, CatalogEntry>; edits?: EditHooks };
type InvokeOutput = { role: "function"; name: unknown; content: unknown };

/**
 * `toolkit.invoke(name, args)`: resolves with `{ role, name, content }`, rejects on any error.
 * With `asText` it resolves with the output as JSON text instead (the tool loop's output for the
 * model): a built-in's text as it left Rust, which is `JSON.stringify` of its parsed value.
 */
export function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText?: false): Promise<InvokeOutput>;
export function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText: true, approved?: boolean): Promise<string>;
export async function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText = false, approved = false): Promise<InvokeOutput | string> {
  const toolName = typeof name === "string" ? name : String(name);
  const entry = Object.hasOwn(catalog, toolName) ? catalog[toolName] : undefined;
  const builtIn = entry !== undefined && entry.handler === builtInHandlers[toolName];
  const optIn = entry === undefined ? registered.optIns.get(toolName) : undefined;
  const userTool = entry === undefined && optIn === undefined ? registered.byName.get(toolName) : undefined;
  if (userTool) return fromValue(name, (await invokeUserTool(context, userTool, name, args, registered.runtime)).content, asText);
  const signal = registered.runtime?.signal;
  if (signal?.aborted) throw loopAborted();
  const isRegistered = entry !== undefined || optIn !== undefined;
  const isWriteOp = optIn ? optIn.isWriteOp : entry?.metadata?.isWriteOp === true;
  const request = requestFor("invoke", toolName, { registered: isRegistered, isWriteOp, runBuiltIn: builtIn || optIn !== undefined, approved });
  const { edits } = registered;
  const answer = signal ? withCallSignal(signal, (callSignal) => callNative(request, toolName, context, args, edits, callSignal)) : callNative(request, toolName, context, args, edits);
  // A session tool's answer is there at once: no promise to wait for.
  const settled = settle(answer instanceof Promise ? await answer : answer);
  if ("json" in settled) return fromJson(name, settled.json, asText);
  if ("value" in settled) return fromValue(name, settled.value, asText);
  if ("args" in settled) return fromValue(name, await catalog[toolName]?.handler(context, ...settled.args), asText);
  throw thrownBy("invoke", settled.failed, toolName);
}

/** `invoke`'s result from a tool's output as JSON text. */
function fromJson(name: unknown, json: string, asText: boolean): InvokeOutput | string {
  return asText ? json : { role: "function", name, content: JSON.parse(json) };
}

/** `invoke`'s result from a tool's output value. */
function fromValue(name: unknown, content: unknown, asText: boolean): InvokeOutput | string {
  return asText ? JSON.stringify(content) : { role: "function", name, content };
}

/** A user tool through `invoke`: the same checks in the same order, then its input validation, then execute. */
async function invokeUserTool(context: ToolContext, tool: AnyTool, name: unknown, args: unknown, runtime: Runtime): Promise<InvokeOutput> {
  const toolName = String(name);
  const { writes } = toolInternals.get(tool) as { writes: boolean };
  const request = requestFor("invoke", toolName, { registered: true, isWriteOp: writes, runBuiltIn: false });
  const settled = settle(await callNative(request, toolName, context, args, undefined));
  if ("failed" in settled) throw thrownBy("invoke", settled.failed, toolName);
  if (!("args" in settled)) throw new InvokeToolError("INTERNAL", "a user tool's checks gave an output", { tool_name: toolName });
  const input = await validateInput(tool, args);
  const content = await runExecute(tool, input, executionContext(runtime));
  return { role: "function", name, content };
}

/** Toolkit internals (user tools, enabled opt-in tools, DI defaults), for `asTools`, the tool loop and `invokeWithSignal`. */
export const toolkitState = new WeakMap<object, { context: ToolContext; registered: Registered }>();

/**
 * `createAgentToolkit(context)` exactly as agent-tools-ts; `options.tools` registers user tools
 * (from `defineTool`), `options.extraTools` enables opt-in tools, `options.deps` /
 * `options.overrides` / `options.logger` / `options.now` are the defaults of the user tools'
 * execution context.
 */
export const createAgentToolkit: {
  (context: ToolContext): AgentToolkit;
  <const TTools extends readonly AnyTool[], const TOptIn extends OptInToolName = never>(
    context: ToolContext,
    options: AgentToolkitOptions<TTools, TOptIn>,
  ): AgentToolkit<TTools[number], TOptIn>;
} = function createAgentToolkit(context: ToolContext, options: AgentToolkitOptions<readonly AnyTool[], OptInToolName> = {}) {
  const registered = registerUserTools(options);
  const journal = checkpointOptions(options.checkpoints);
  const edits = editHooksFor(context, journal, syntaxCheckMode(options.syntaxCheck));
  if (edits !== undefined) registered.edits = edits;
  const tools: Record<string, (...args: unknown[]) => Promise<SecureToolResult<unknown>>> = {};
  for (const name of Object.keys(builtInHandlers)) {
    const handler = (catalog[name] as CatalogItem).handler;
    tools[name] = (...args) => secureCall(context, name, handler, args, edits);
  }
  for (const [name, entry] of registered.optIns) {
    tools[name] = (...args) => secureCall(context, name, noHandler, args, edits, entry);
  }
  if (registered.optIns.has("edit_file") && !readLedgers.has(context)) readLedgers.set(context, native.newReadLedger());
  const startsProcesses = registered.optIns.has("process_start");
  if (startsProcesses && !processTables.has(context)) processTables.set(context, native.newProcessTable(processLimits(options.processes)));
  const optInNames = [...registered.optIns.keys()];
  const userNames = [...registered.byName.keys()];
  // With opt-in tools, the toolkit also ends what its context's processes left running; with a
  // journal, it also lets go of what the journal keeps between commands.
  const close = () => closeContext(context, edits);
  const lifecycle = registered.optIns.size > 0 || journal !== undefined ? { close, [Symbol.asyncDispose]: close } : {};
  const toolkit = {
    ...lifecycle,
    ...(journal === undefined || edits === undefined ? {} : { checkpoints: checkpointsOf(context, edits) }),
    tools,
    invoke: (name: unknown, args: unknown) => invoke(context, name, args, registered),
    getAllowedTools: () =>
      native
        .allowedToolNames(context, [...optInNames, ...userNames])
        .map(
          (name) =>
            definitionByName.get(name) ??
            (registered.optIns.get(name)?.definition as Definition | undefined) ??
            (registered.byName.get(name) as AnyTool).definition,
        ),
  };
  toolkitState.set(toolkit, { context, registered });
  return toolkit as unknown as AgentToolkit & AgentToolkit<never, OptInToolName>;
};

/** `options.processes`, checked: whole numbers within their ranges. */
function processLimits(limits: unknown): { maxRunning?: number; bufferBytes?: number; maxLifetimeMs?: number } | undefined {
  if (limits === undefined) return undefined;
  if (limits === null || typeof limits !== "object") throw new TypeError("createAgentToolkit: options.processes must be an object");
  const { maxRunning, bufferBytes, maxLifetimeMs } = limits as Record<string, unknown>;
  const check = (name: string, value: unknown, max: number) => {
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= max)) {
      throw new TypeError(`createAgentToolkit: options.processes.${name} must be a whole number from 1 to ${max}`);
    }
  };
  check("maxRunning", maxRunning, 1024);
  check("bufferBytes", bufferBytes, 2 ** 30);
  check("maxLifetimeMs", maxLifetimeMs, 2 ** 31);
  return { maxRunning: maxRunning as number | undefined, bufferBytes: bufferBytes as number | undefined, maxLifetimeMs: maxLifetimeMs as number | undefined };
}

/** `options.checkpoints`, checked: `true`, or an object with a directory and whole-number bounds. */
function checkpointOptions(value: unknown): CheckpointSettings | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError("createAgentToolkit: options.checkpoints must be true or an object { dir?, maxBytes?, maxCheckpoints? }");
  }
  const { dir, maxBytes, maxCheckpoints } = value as Record<string, unknown>;
  if (dir !== undefined && (typeof dir !== "string" || dir.length === 0 || dir.includes("\0"))) {
    throw new TypeError("createAgentToolkit: options.checkpoints.dir must be a non-empty path");
  }
  const whole = (name: string, n: unknown, min: number, max: number) => {
    if (n !== undefined && !(Number.isSafeInteger(n) && (n as number) >= min && (n as number) <= max)) {
      throw new TypeError(`createAgentToolkit: options.checkpoints.${name} must be a whole number from ${min} to ${max}`);
    }
  };
  whole("maxBytes", maxBytes, 0, Number.MAX_SAFE_INTEGER);
  whole("maxCheckpoints", maxCheckpoints, 1, 100_000);
  return { dir: dir as string | undefined, maxBytes: maxBytes as number | undefined, maxCheckpoints: maxCheckpoints as number | undefined };
}

/** `options.syntaxCheck`, checked. */
function syntaxCheckMode(value: unknown): "report" | "reject" | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === "report" || value === "reject") return value;
  throw new TypeError('createAgentToolkit: options.syntaxCheck must be "report" or "reject"');
}

/** `toolkit.checkpoints`: the journal of the context's workspace (docs/checkpoints.md). */
function checkpointsOf(context: ToolContext, edits: EditHooks): CheckpointsApi {
  const call = async (op: "list" | "diff" | "restore", id?: unknown, force?: boolean) => {
    if (op !== "list" && (typeof id !== "string" || id.length === 0)) {
      throw codedError("CheckpointError", "INVALID_ARGUMENT", "id must be a checkpoint id (a string from list())");
    }
    return resultJson(await native.checkpointsCall(edits, contextHandle(context, edits), op, id as string | undefined, force));
  };
  return {
    list: async () => JSON.parse(await call("list")),
    diff: async (id: string) => JSON.parse(await call("diff", id)),
    restore: async (id: string, options?: { force?: boolean }) => JSON.parse(await call("restore", id, restoreForce(options))),
  };
}

/** `restore`'s options, checked: `force` is a boolean when given. */
function restoreForce(options: unknown): boolean {
  if (options === undefined || options === null) return false;
  const force = typeof options === "object" ? (options as { force?: unknown }).force : null;
  if (force !== undefined && typeof force !== "boolean") {
    throw codedError("CheckpointError", "INVALID_ARGUMENT", "restore's options must be { force?: boolean }");
  }
  return force === true;
}

/**
 * Ends every process the context's calls started (whole trees) and resolves once they are gone;
 * then, when there is a journal, what they changed since the last call is recorded in it and
 * the private directory its snapshots keep between commands is removed.
 */
async function closeContext(context: ToolContext, edits: EditHooks | undefined): Promise<void> {
  const table = processTables.get(context);
  if (table !== undefined) await native.closeProcessTable(table);
  if (edits !== undefined) resultJson(await native.checkpointsCall(edits, contextHandle(context, edits), "settle", undefined, false));
}

/** An opt-in tool has no replaceable handler: its calls always run the native one. */
const noHandler: Handler = async () => {
  throw internalError("an opt-in tool has no JavaScript handler");
};

/** The opt-in tools `options.extraTools` enables, in registry order. */
function enableOptInTools(requested: unknown): Map<string, CatalogEntry> {
  const optIns = new Map<string, CatalogEntry>();
  if (requested === undefined) return optIns;
  if (!Array.isArray(requested)) throw new TypeError("createAgentToolkit: options.extraTools must be an array of tool names");
  for (const name of requested) {
    if (typeof name !== "string" || !optInTools.has(name)) {
      throw new TypeError(`createAgentToolkit: unknown extra tool ${JSON.stringify(name)} (known: ${[...optInTools.keys()].join(", ")})`);
    }
  }
  for (const [name, entry] of optInTools) if (requested.includes(name)) optIns.set(name, entry);
  return optIns;
}

function registerUserTools(options: AgentToolkitOptions<readonly AnyTool[], OptInToolName> | undefined): Registered {
  const byName = new Map<string, AnyTool>();
  const optIns = enableOptInTools(options?.extraTools);
  for (const tool of options?.tools ?? []) {
    if (!isTool(tool)) throw new TypeError("createAgentToolkit: options.tools must hold tools made by defineTool");
    if (Object.hasOwn(catalog, tool.name)) {
      throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with a built-in tool`);
    }
    if (optIns.has(tool.name)) {
      throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with an enabled extra tool`);
    }
    if (byName.has(tool.name)) throw new Error(`createAgentToolkit: the tool name "${tool.name}" is registered twice`);
    byName.set(tool.name, tool);
  }
  const { deps, overrides, logger, now } = options ?? {};
  return { byName, runtime: { deps, overrides, logger, now }, optIns };
}

/**
 * Every tool of a toolkit (built-ins in declaration order, then the enabled opt-in tools, then
 * user tools) as a `Tool`, whose `executeRaw(json, ctx)` goes through the toolkit's `invoke`
 * (policy, sandbox, validation) and never throws, so a loop can treat all tools alike.
 */
export const asTools = function asTools(toolkit: AnyToolkit): Tool[] {
  const state = toolkitState.get(toolkit);
  if (!state) throw new TypeError("asTools: not a toolkit made by createAgentToolkit");
  const { context, registered } = state;
  const make = (name: string, description: string, definition: Tool["definition"], toResult: (value: unknown) => ToolResult): Tool => ({
    name,
    description,
    definition,
    async executeRaw(rawArgsJson, ctx = {}) {
      const parsed = parseArguments(rawArgsJson);
      if ("error" in parsed) return errorResult(parsed.error);
      const { args } = parsed;
      try {
        const runtime = { ...registered.runtime, ...ctx };
        const out = await invoke(context, name, args, { ...registered, runtime });
        return toResult(out.content);
      } catch (error) {
        return errorResult(messageOf(error));
      }
    },
  });
  const optInDefinitions = [...registered.optIns.values()].map((entry) => entry.definition as Definition);
  const builtIns = [...definitions, ...optInDefinitions].map((d) =>
    make(d.function.name, d.function.description, d as Tool["definition"], (value) => ({ type: "json", value })),
  );
  const own = [...registered.byName.values()].map((t) => make(t.name, t.description, t.definition, toToolResult));
  return [...builtIns, ...own];
};

/**
 * `toolkit.invoke(name, args)` with an AbortSignal for the call (a built-in's native work and an
 * `exec_command`'s process group are stopped when it fires) and a user tool's execute receiving it.
 * Resolves the output (the invoke result's `content`) and rejects as `invoke` does. Not part of
 * the package's API: the command line and MCP server (cli.cts) use it.
 */
export async function invokeWithSignal(toolkit: object, name: string, args: unknown, signal?: AbortSignal): Promise<unknown> {
  const state = toolkitState.get(toolkit);
  if (!state) throw new TypeError("not a toolkit made by createAgentToolkit");
  const { context, registered } = state;
  return (await invoke(context, name, args, { ...registered, runtime: { ...registered.runtime, signal } })).content;
}

/**
 * Tool outputs kept whole while their total stays under `budgetChars` (UTF-16 units, default
 * 100 000); older ones are evicted from the conversation but stay readable by id (`out-1`, ...).
 */
export const OutputCache: typeof NativeOutputCache = native.OutputCache;
export type OutputCache = NativeOutputCache;
