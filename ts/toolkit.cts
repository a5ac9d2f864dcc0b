// The toolkit: `createAgentToolkit` and its three ways into a tool — `toolkit.tools.<name>`
// (a ToolResult envelope, never rejects), `toolkit.invoke` (rejects on any error) and `asTools`
// (a `Tool` per tool for a loop) — plus `invokeWithSignal` for the command line (cli.cts).

import type { CallRequest, OutputCache as NativeOutputCache } from "../binding.js";
import type { OptInToolName } from "../types/tools.js";
import { SecurityBypass } from "./bypass.cjs";
import { builtInHandlers, type CatalogItem, catalog, catalogEntry, type Definition, definitionByName, definitions, type Handler, optInTools } from "./catalog.cjs";
import { readLedgers } from "./context.cjs";
import { denied, failure, InvokeToolError, internalError, messageOf, toolError } from "./errors.cjs";
import { abortError, type AnyToolkit } from "./loop.cjs";
import { type CatalogEntry, loadNative } from "./native.cjs";
import { callNative, messageOfOutcome, resultJson } from "./native_call.cjs";
import type { AgentToolkit, AgentToolkitOptions, SecureToolResult, ToolContext } from "./types.cjs";
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
export type Registered = { byName: Map<string, AnyTool>; runtime: Runtime; extras: Map<string, CatalogEntry> };
type InvokeOutput = { role: "function"; name: unknown; content: unknown };

/**
 * `toolkit.invoke(name, args)`: resolves with `{ role, name, content }`, rejects on any error.
 * With `asText` it resolves with the output as JSON text instead (the tool loop's output for the
 * model): a built-in's text as it left Rust, which is `JSON.stringify` of its parsed value.
 */
export function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText?: false): Promise<InvokeOutput>;
export function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText: true): Promise<string>;
export async function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText = false): Promise<InvokeOutput | string> {
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
export const toolkitState = new WeakMap<object, { context: ToolContext; registered: Registered }>();

/**
 * `createAgentToolkit(context)` exactly as agent-tools-ts; `options.tools` registers user tools
 * (from `defineTool`), `options.deps` / `options.overrides` / `options.logger` / `options.now`
 * are the defaults of their execution context.
 */
export const createAgentToolkit: {
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
export const asTools = function asTools(toolkit: AnyToolkit): Tool[] {
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
