"use strict";
// The thin JavaScript layer: what has to live in JavaScript (the AsyncLocalStorage behind
// SecurityBypass, the mutable ToolCatalog object, the positional tools.* functions and the error
// classes). Every decision (policy, checks, sandbox, tools) is made by the native core.

const os = require("node:os");
const { AsyncLocalStorage } = require("node:async_hooks");
const native = require("./native.cjs").loadNative();
const userTools = require("./user_tools.cjs");
const { makeToolLoop, abortError } = require("./loop.cjs");

// ---- SecurityBypass -------------------------------------------------------------------------

const bypassScope = new AsyncLocalStorage();

const SecurityBypass = {
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
  constructor(code, rawMessage, options = {}) {
    super(`${code}: ${rawMessage}`);
    this.name = "InvokeToolError";
    this.code = code;
    this.tool_name = options.tool_name;
    this.rawMessage = rawMessage;
  }

  toEnvelope() {
    return {
      code: this.code,
      message: this.rawMessage,
      retriable: this.code === "INTERNAL",
      details: this.tool_name ? { tool_name: this.tool_name } : {},
    };
  }
}

const toolErrorClasses = new Map();

/** The tool's own error class (`ReadFileError`, ...): an Error with own `name` and `code`. */
function toolError(className, code, message) {
  let ToolErrorClass = toolErrorClasses.get(className);
  if (!ToolErrorClass) {
    ToolErrorClass = class extends Error {
      constructor(errorCode, errorMessage) {
        super(errorMessage);
        this.name = className;
        this.code = errorCode;
      }
    };
    Object.defineProperty(ToolErrorClass, "name", { value: className });
    toolErrorClasses.set(className, ToolErrorClass);
  }
  return new ToolErrorClass(code, message);
}

function internalError(message) {
  return toolError("Error", "INTERNAL", `INTERNAL: ${message}`);
}

// ---- ToolResult envelopes --------------------------------------------------------------------

const DENIAL_CODES = { policy: "POLICY_DENIED", sandbox: "SANDBOX_VIOLATION" };

function denied(reason, message) {
  return {
    status: "denied",
    reason,
    message,
    error: { code: DENIAL_CODES[reason], message, retriable: false, details: {} },
  };
}

function failure(message) {
  return {
    status: "failure",
    reason: "runtime",
    message,
    error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} },
  };
}

function messageOf(thrown) {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

// ---- ToolCatalog --------------------------------------------------------------------------------

const definitions = JSON.parse(native.toolDefinitionsJson());
const definitionByName = new Map(definitions.map((d) => [d.function.name, d]));

// Every native call also gets `process.env`: tools that start processes build the child's
// environment from it (Bun does not mirror run-time changes of `process.env` into the C
// environment, so inheriting would miss them); other tools ignore it.
const builtInHandlers = Object.create(null);
/** Built-in handlers that run on the worker pool, by name (the session tools run on this thread). */
const workerHandlers = Object.create(null);
const ToolCatalog = {};
for (const { name, isWriteOp, description, session } of JSON.parse(native.catalogJson())) {
  const handler = session
    ? async (context, ...args) => sessionValue(context, native.runSessionTool(name, todoState(context), args))
    : async (context, ...args) => valueOf(await native.runHandler(name, context, args, process.env));
  builtInHandlers[name] = handler;
  if (!session) workerHandlers[name] = handler;
  ToolCatalog[name] = { metadata: { name, isWriteOp, description }, handler };
}

// ---- todo session state: a Map plus an order array on the caller's context ---------------------

function todoState(context) {
  const state = context.todo;
  if (state == null) return null;
  return { tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order };
}

/** `context.todo` as JSON text for `invokeSession` (null when unset; undefined when it cannot be JSON). */
function todoJson(context) {
  const state = context.todo;
  if (state == null) return null;
  try {
    return JSON.stringify({ tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order });
  } catch {
    return undefined;
  }
}

const isRecord = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const snapshots = new WeakMap();

/**
 * A native snapshot of the fields of `context` the checks read, when they are all plain strings
 * (else null: such a context is read field by field on every call). Remade whenever one of
 * them changes, so a policy edited between calls applies at once.
 */
function contextSnapshot(context) {
  const { workspaceRoot, writeScope, policy, env } = context;
  if (typeof workspaceRoot !== "string" || typeof writeScope !== "string" || !isRecord(policy) || !isRecord(env)) return null;
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
function sessionValue(context, outcome) {
  const value = valueOf(outcome);
  if (outcome.change !== undefined) {
    const change = JSON.parse(outcome.change);
    if (change.replace) {
      context.todo = { tasks: new Map(change.replace.map((t) => [t.task_id, t])), order: change.replace.map((t) => t.task_id) };
    } else if (change.set) {
      context.todo.tasks.set(change.set.task_id, change.set);
    }
  }
  return value;
}

/** The result of a raw handler call: the value, or the tool's error thrown. */
function valueOf(outcome) {
  switch (outcome.kind) {
    case "ok":
      return JSON.parse(outcome.json);
    case "tool_error":
      throw toolError(outcome.name, outcome.code, outcome.message);
    default:
      throw internalError(outcome.message);
  }
}

function callSite(name) {
  const entry = Object.prototype.hasOwnProperty.call(ToolCatalog, name) ? ToolCatalog[name] : undefined;
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

function createToolContext(params) {
  return {
    workspaceRoot: params.workspaceRoot,
    writeScope: params.writeScope ?? "workspace-write",
    policy: params.policy ?? { tools: {}, defaultPolicy: "deny" },
    env: { platform: os.platform(), osRelease: os.release() },
  };
}

/** `toolkit.tools.<name>(...args)`: never rejects, resolves with a ToolResult. */
async function secureCall(context, name, handler, args) {
  try {
    const { call } = callSite(name);
    const builtIn = handler === workerHandlers[name];
    const outcome = await native.secureCall(context, call, args, builtIn, process.env);
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
async function withCallSignal(signal, run) {
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

/**
 * `toolkit.invoke(name, args)`: resolves with `{ role, name, content }`, rejects on any error.
 * With `asText` it resolves with the output as JSON text instead (the tool loop's output for the
 * model): a built-in's text as it left Rust, which is `JSON.stringify` of its parsed value.
 */
async function invoke(context, name, args, registered, asText = false) {
  const fromJson = (json) => (asText ? json : { role: "function", name, content: JSON.parse(json) });
  const fromValue = (content) => (asText ? JSON.stringify(content) : { role: "function", name, content });
  const toolName = String(name);
  const { entry, call } = callSite(toolName);
  const userTool = entry === undefined ? registered.byName.get(toolName) : undefined;
  if (userTool) return fromValue((await invokeUserTool(context, userTool, name, args, registered.runtime)).content);
  // Tools with path arguments are checked (symlinks resolved) and run on the worker pool; the
  // others (session tools, unknown names) need no filesystem: checked and run synchronously.
  const worker = entry !== undefined && workerHandlers[toolName] !== undefined;
  let outcome;
  if (worker) {
    const signal = registered.runtime?.signal;
    if (signal?.aborted) throw abortError();
    const builtIn = entry.handler === workerHandlers[toolName];
    outcome = await withCallSignal(signal, (callSignal) => native.invoke(context, call, args, builtIn, process.env, callSignal));
  } else {
    const builtIn = entry !== undefined && entry.handler === builtInHandlers[toolName];
    const snapshot = builtIn ? contextSnapshot(context) : null;
    const state = snapshot === null ? undefined : todoJson(context);
    if (state !== undefined) {
      outcome = native.invokeSession(snapshot, toolName, call.isWriteOp, call.bypass, args, state);
      if (typeof outcome === "string") return fromJson(outcome);
    } else {
      outcome = native.invokeNow(context, call, args, builtIn, builtIn ? todoState(context) : null);
    }
    if (builtIn && outcome.kind === "ok") return fromValue(sessionValue(context, outcome));
  }
  switch (outcome.kind) {
    case "ok":
      return fromJson(outcome.json);
    case "prepared":
      return fromValue(await ToolCatalog[toolName].handler(context, ...outcome.args));
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
async function invokeUserTool(context, tool, name, args, runtime) {
  const toolName = String(name);
  const { writes } = userTools.toolInternals.get(tool);
  const call = { name: toolName, registered: true, isWriteOp: writes, bypass: SecurityBypass.isEnabled() };
  const outcome = native.invokeNow(context, call, args, false, null);
  if (outcome.kind === "invoke_error") throw new InvokeToolError(outcome.code, outcome.message, { tool_name: toolName });
  if (outcome.kind !== "prepared") throw new InvokeToolError("INTERNAL", outcome.message, { tool_name: toolName });
  const input = await userTools.validateInput(tool, args);
  const content = await userTools.runExecute(tool, input, userTools.executionContext(runtime));
  return { role: "function", name, content };
}

/** Toolkit internals (user tools, DI defaults), for `asTools`. */
const toolkitState = new WeakMap();

/**
 * `createAgentToolkit(context)` exactly as agent-tools-ts; `options.tools` registers user tools
 * (from `defineTool`), `options.deps` / `options.overrides` / `options.logger` / `options.now`
 * are the defaults of their execution context.
 */
function createAgentToolkit(context, options = {}) {
  const registered = registerUserTools(options);
  const tools = {};
  for (const name of Object.keys(builtInHandlers)) {
    const handler = ToolCatalog[name].handler;
    tools[name] = (...args) => secureCall(context, name, handler, args);
  }
  const userNames = [...registered.byName.keys()];
  const toolkit = {
    tools,
    invoke: (name, args) => invoke(context, name, args, registered),
    getAllowedTools: () =>
      native.allowedToolNames(context, userNames).map((name) => definitionByName.get(name) ?? registered.byName.get(name).definition),
  };
  toolkitState.set(toolkit, { context, registered });
  return toolkit;
}

function registerUserTools(options) {
  const byName = new Map();
  for (const tool of options?.tools ?? []) {
    if (!userTools.isTool(tool)) throw new TypeError("createAgentToolkit: options.tools must hold tools made by defineTool");
    if (Object.prototype.hasOwnProperty.call(ToolCatalog, tool.name)) {
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
function asTools(toolkit) {
  const state = toolkitState.get(toolkit);
  if (!state) throw new TypeError("asTools: not a toolkit made by createAgentToolkit");
  const { context, registered } = state;
  const make = (name, description, definition, toResult) => ({
    name,
    description,
    definition,
    async executeRaw(rawArgsJson, ctx = {}) {
      let args;
      try {
        args = rawArgsJson === undefined || rawArgsJson === null || rawArgsJson === "" ? {} : JSON.parse(rawArgsJson);
      } catch (error) {
        return userTools.errorResult(`invalid JSON arguments: ${error.message}`);
      }
      try {
        const runtime = { ...registered.runtime, ...ctx };
        const out = await invoke(context, name, args, { byName: registered.byName, runtime });
        return toResult(out.content);
      } catch (error) {
        return userTools.errorResult(messageOf(error));
      }
    },
  });
  const builtIns = definitions.map((d) => make(d.function.name, d.function.description, d, (value) => ({ type: "json", value })));
  const own = [...registered.byName.values()].map((t) => make(t.name, t.description, t.definition, userTools.toToolResult));
  return [...builtIns, ...own];
}

/** What the tool loop needs of a toolkit. */
function loopRuntime(toolkit) {
  const state = toolkitState.get(toolkit);
  if (!state) throw new TypeError("runToolLoop: toolkit must be made by createAgentToolkit");
  const { context, registered } = state;
  return {
    definitions: () => toolkit.getAllowedTools(),
    has: (name) => Object.prototype.hasOwnProperty.call(ToolCatalog, name) || registered.byName.has(name),
    userTool: (name) => {
      const tool = registered.byName.get(name);
      return tool ? { writes: userTools.toolInternals.get(tool).writes } : undefined;
    },
    /** The call's output as the model sees it: a user tool's message text, a built-in's JSON text. */
    output: async (name, args, ctx) => {
      const reg = { byName: registered.byName, runtime: { ...registered.runtime, ...ctx } };
      if (registered.byName.has(name)) return messageText(userTools.toToolResult((await invoke(context, name, args, reg)).content));
      return invoke(context, name, args, reg, true);
    },
  };
}

/** A ToolResult as the loop's string output (parts: their text, images noted). */
function messageText(result) {
  const content = userTools.toToolMessageContent(result);
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}

const { runToolLoop, streamToolLoop } = makeToolLoop(loopRuntime);

module.exports = {
  createToolContext,
  createAgentToolkit,
  ToolCatalog,
  SecurityBypass,
  defineTool: userTools.defineTool,
  asTools,
  toToolMessageContent: userTools.toToolMessageContent,
  OutputCache: native.OutputCache,
  outputCacheTools: userTools.outputCacheTools,
  applyOutputCache: userTools.applyOutputCache,
  doneTool: userTools.doneTool,
  runToolLoop,
  streamToolLoop,
  createProviderSession: require("./sessions.cjs").createProviderSession,
  ...require("./providers.cjs"),
};
