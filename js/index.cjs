"use strict";
// Generated from ts/index.cts by `npm run build:ts`: edit that file, not this one.
// The thin JavaScript layer: what has to live in JavaScript (the AsyncLocalStorage behind
// SecurityBypass, the mutable ToolCatalog object, the positional tools.* functions and the error
// classes). Every decision (policy, checks, sandbox, tools) is made by the native core.
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
exports.createProviderSession = exports.streamToolLoop = exports.runToolLoop = exports.doneTool = exports.applyOutputCache = exports.outputCacheTools = exports.OutputCache = exports.toToolMessageContent = exports.asTools = exports.defineTool = exports.SecurityBypass = exports.ToolCatalog = exports.createAgentToolkit = exports.createToolContext = void 0;
const node_async_hooks_1 = require("node:async_hooks");
const node_os_1 = require("node:os");
const internal_cjs_1 = require("./internal.cjs");
const loop_cjs_1 = require("./loop.cjs");
const native_cjs_1 = require("./native.cjs");
const user_tools_cjs_1 = require("./user_tools.cjs");
Object.defineProperty(exports, "applyOutputCache", { enumerable: true, get: function () { return user_tools_cjs_1.applyOutputCache; } });
Object.defineProperty(exports, "defineTool", { enumerable: true, get: function () { return user_tools_cjs_1.defineTool; } });
Object.defineProperty(exports, "doneTool", { enumerable: true, get: function () { return user_tools_cjs_1.doneTool; } });
Object.defineProperty(exports, "outputCacheTools", { enumerable: true, get: function () { return user_tools_cjs_1.outputCacheTools; } });
Object.defineProperty(exports, "toToolMessageContent", { enumerable: true, get: function () { return user_tools_cjs_1.toToolMessageContent; } });
const native = (0, native_cjs_1.loadNative)();
const messageOfOutcome = (outcome) => outcome.message;
/**
 * The one native entry of a tool call (binding.d.ts, `callTool`): the request says which front
 * door; `state` is read by the session tools only, `process.env` by the tools that start
 * processes (Bun does not mirror run-time changes of `process.env` into the C environment, so
 * inheriting would miss them). Synchronous where the native side finishes at once.
 */
function callNative(request, context, args, signal) {
    const state = sessionTools.has(request.name) ? todoJson(context) : null;
    return native.callTool(request, contextHandle(context), args, state, process.env, signal);
}
// ---- SecurityBypass -------------------------------------------------------------------------
const bypassScope = new node_async_hooks_1.AsyncLocalStorage();
/**
 * Runs work with the policy check skipped for its whole async call tree (docs/compat.md,
 * "Module surface"); nothing else is skipped.
 */
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
exports.SecurityBypass = SecurityBypass;
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
    let ToolError = toolErrorClasses.get(className);
    if (!ToolError) {
        ToolError = class extends Error {
            constructor(errorCode, errorMessage) {
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
const definitions = JSON.parse(native.toolDefinitionsJson());
const definitionByName = new Map(definitions.map((d) => [d.function.name, d]));
const builtInHandlers = Object.create(null);
/** The built-in tools that keep their state on the context (`context.todo`). */
const sessionTools = new Set();
const catalog = {};
for (const { name, isWriteOp, description, session } of (0, native_cjs_1.builtInCatalog)()) {
    const handler = async (context, ...args) => {
        const outcome = await callNative({ door: "handler", name }, context, args);
        return JSON.parse(resultJson(context, outcome));
    };
    builtInHandlers[name] = handler;
    if (session)
        sessionTools.add(name);
    catalog[name] = { metadata: { name, isWriteOp, description }, handler };
}
/** The built-in tools by name: each one's metadata and raw handler (no policy or sandbox checks). */
const ToolCatalog = catalog;
exports.ToolCatalog = ToolCatalog;
/** The opt-in tools by name (`extraTools`); not in `ToolCatalog`, which stays the 13. */
const optInTools = new Map((0, native_cjs_1.optInCatalog)().map((entry) => [entry.name, entry]));
// ---- todo session state: a Map plus an order array on the caller's context ---------------------
/** `context.todo` as JSON text for the session tools (null when unset). */
function todoJson(context) {
    const state = context.todo;
    if (state == null)
        return null;
    return JSON.stringify({ tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order });
}
const isRecord = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const contextHandles = new WeakMap();
/**
 * The read ledger of each context a toolkit with edit_file serves: what the context read or wrote
 * through the toolkit (content fingerprints by real path, kept natively), for edit_file's
 * stale-read guard. Kept beside the context, not on it, so the context object keeps its shape.
 */
const readLedgers = new WeakMap();
/**
 * The native copy of `context` for a call. Kept per context while the fields the checks read are
 * all plain strings, and made anew whenever one of them changes, so a policy edited between calls
 * applies at once; any other context is read afresh for every call.
 */
function contextHandle(context) {
    const reads = readLedgers.get(context);
    const key = contextKey(context);
    if (key === null)
        return native.contextHandle(context, reads);
    const cached = contextHandles.get(context);
    if (cached !== undefined && cached.key === key && cached.reads === reads)
        return cached.handle;
    const handle = native.contextHandle(context, reads);
    contextHandles.set(context, { key, handle, reads });
    return handle;
}
/** The fields of `context` the native side reads, as a key; null unless they are plain strings. */
function contextKey(context) {
    const { workspaceRoot, writeScope, policy, env, exec, searchCacheBytes } = context;
    if (typeof workspaceRoot !== "string" || typeof writeScope !== "string" || !isRecord(policy) || !isRecord(env))
        return null;
    if (searchCacheBytes !== undefined && !Number.isSafeInteger(searchCacheBytes))
        return null;
    // The key has no `exec` (exec_command's OS sandbox): a context that sets it is read afresh.
    if (exec !== undefined)
        return null;
    const { tools, defaultPolicy } = policy;
    const { platform } = env;
    if (typeof defaultPolicy !== "string" || typeof platform !== "string" || !isRecord(tools))
        return null;
    const entries = Object.entries(tools);
    for (const entry of entries)
        if (typeof entry[1] !== "string")
            return null;
    return JSON.stringify([workspaceRoot, writeScope, defaultPolicy, platform, entries, searchCacheBytes ?? null]);
}
/**
 * The JSON text of a handler's result: its output, with a session tool's change applied to
 * `context.todo`; any other outcome is the tool's error (or an internal one), thrown.
 */
function resultJson(context, outcome) {
    if (typeof outcome === "string")
        return outcome;
    switch (outcome.kind) {
        case "ok":
            if (outcome.change !== undefined)
                applyTodoChange(context, outcome.change);
            return outcome.json;
        case "tool_error":
            throw toolError(outcome.name, outcome.code, outcome.message);
        default:
            throw internalError(messageOfOutcome(outcome));
    }
}
/** Applies a session tool's change (JSON text: `{ replace }` or `{ set }`) to `context.todo`. */
function applyTodoChange(context, json) {
    const change = JSON.parse(json);
    if (change.replace) {
        context.todo = { tasks: new Map(change.replace.map((t) => [t.task_id, t])), order: change.replace.map((t) => t.task_id) };
    }
    else if (change.set) {
        context.todo.tasks.set(change.set.task_id, change.set);
    }
}
/** The catalog entry of `name` (own properties only) and whether its built-in handler is in place. */
function catalogEntry(name) {
    const entry = Object.hasOwn(catalog, name) ? catalog[name] : undefined;
    return { entry, builtIn: entry !== undefined && entry.handler === builtInHandlers[name] };
}
// ---- createToolContext / createAgentToolkit -----------------------------------------------------
/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
const createToolContext = function createToolContext(params) {
    const context = {
        workspaceRoot: params.workspaceRoot,
        writeScope: params.writeScope ?? "workspace-write",
        policy: (params.policy ?? { tools: {}, defaultPolicy: "deny" }),
        env: { platform: (0, node_os_1.platform)(), osRelease: (0, node_os_1.release)() },
    };
    // Only when given: a context without it has exactly agent-tools-ts's fields.
    if (params.exec !== undefined)
        context.exec = params.exec;
    if (params.searchCacheBytes !== undefined)
        context.searchCacheBytes = params.searchCacheBytes;
    return context;
};
exports.createToolContext = createToolContext;
/** `toolkit.tools.<name>(...args)`: never rejects, resolves with a ToolResult. */
async function secureCall(context, name, handler, args, optIn) {
    try {
        const isWriteOp = optIn ? optIn.isWriteOp : catalog[name]?.metadata?.isWriteOp === true;
        const runBuiltIn = optIn !== undefined || handler === builtInHandlers[name];
        const request = { door: "tools", name, isWriteOp, bypass: SecurityBypass.isEnabled(), runBuiltIn };
        const outcome = await callNative(request, context, args);
        if (typeof outcome === "string")
            return { status: "success", data: JSON.parse(outcome) };
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
    }
    catch (thrown) {
        return failure(messageOf(thrown));
    }
}
/**
 * Runs `run` with a signal of its own that follows `signal`: napi-rs takes over the `onabort`
 * property of the signal it is given, so the caller's own signal (and its `onabort` handler) is
 * never handed to native code, and nothing of the call stays attached to it afterwards.
 */
async function withCallSignal(signal, run) {
    if (!signal)
        return run(undefined);
    const own = new AbortController();
    const follow = () => own.abort(signal.reason);
    signal.addEventListener("abort", follow, { once: true });
    try {
        return await run(own.signal);
    }
    finally {
        signal.removeEventListener("abort", follow);
    }
}
async function invoke(context, name, args, registered, asText = false) {
    const fromJson = (json) => (asText ? json : { role: "function", name, content: JSON.parse(json) });
    const fromValue = (content) => (asText ? JSON.stringify(content) : { role: "function", name, content });
    const toolName = String(name);
    const { entry, builtIn } = catalogEntry(toolName);
    const optIn = entry === undefined ? registered.extras.get(toolName) : undefined;
    const userTool = entry === undefined && optIn === undefined ? registered.byName.get(toolName) : undefined;
    if (userTool)
        return fromValue((await invokeUserTool(context, userTool, name, args, registered.runtime)).content);
    const signal = registered.runtime?.signal;
    if (signal?.aborted)
        throw (0, loop_cjs_1.abortError)();
    const request = {
        door: "invoke",
        name: toolName,
        registered: entry !== undefined || optIn !== undefined,
        isWriteOp: optIn ? optIn.isWriteOp : entry?.metadata?.isWriteOp === true,
        bypass: SecurityBypass.isEnabled(),
        runBuiltIn: builtIn || optIn !== undefined,
    };
    const outcome = await withCallSignal(signal, (callSignal) => callNative(request, context, args, callSignal));
    if (typeof outcome === "string")
        return fromJson(outcome);
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
async function invokeUserTool(context, tool, name, args, runtime) {
    const toolName = String(name);
    const { writes } = user_tools_cjs_1.toolInternals.get(tool);
    const request = { door: "invoke", name: toolName, registered: true, isWriteOp: writes, bypass: SecurityBypass.isEnabled(), runBuiltIn: false };
    const outcome = await callNative(request, context, args);
    if (typeof outcome === "string")
        throw new InvokeToolError("INTERNAL", "a user tool's checks gave an output", { tool_name: toolName });
    if (outcome.kind === "invoke_error")
        throw new InvokeToolError(outcome.code, outcome.message, { tool_name: toolName });
    if (outcome.kind !== "prepared")
        throw new InvokeToolError("INTERNAL", messageOfOutcome(outcome), { tool_name: toolName });
    const input = await (0, user_tools_cjs_1.validateInput)(tool, args);
    const content = await (0, user_tools_cjs_1.runExecute)(tool, input, (0, user_tools_cjs_1.executionContext)(runtime));
    return { role: "function", name, content };
}
/** Toolkit internals (user tools, DI defaults), for `asTools`. */
const toolkitState = new WeakMap();
/**
 * `createAgentToolkit(context)` exactly as agent-tools-ts; `options.tools` registers user tools
 * (from `defineTool`), `options.deps` / `options.overrides` / `options.logger` / `options.now`
 * are the defaults of their execution context.
 */
const createAgentToolkit = function createAgentToolkit(context, options = {}) {
    const registered = registerUserTools(options);
    const tools = {};
    for (const name of Object.keys(builtInHandlers)) {
        const handler = catalog[name].handler;
        tools[name] = (...args) => secureCall(context, name, handler, args);
    }
    for (const [name, entry] of registered.extras) {
        tools[name] = (...args) => secureCall(context, name, noHandler, args, entry);
    }
    if (registered.extras.has("edit_file") && !readLedgers.has(context))
        readLedgers.set(context, native.newReadLedger());
    const extraNames = [...registered.extras.keys()];
    const userNames = [...registered.byName.keys()];
    const toolkit = {
        tools,
        invoke: (name, args) => invoke(context, name, args, registered),
        getAllowedTools: () => native
            .allowedToolNames(context, [...extraNames, ...userNames])
            .map((name) => definitionByName.get(name) ??
            registered.extras.get(name)?.definition ??
            registered.byName.get(name).definition),
    };
    toolkitState.set(toolkit, { context, registered });
    return toolkit;
};
exports.createAgentToolkit = createAgentToolkit;
/** An opt-in tool has no replaceable handler: its calls always run the native one. */
const noHandler = async () => {
    throw internalError("an opt-in tool has no JavaScript handler");
};
/** The opt-in tools `options.extraTools` enables, in registry order. */
function enableExtraTools(extraTools) {
    const extras = new Map();
    if (extraTools === undefined)
        return extras;
    if (!Array.isArray(extraTools))
        throw new TypeError("createAgentToolkit: options.extraTools must be an array of tool names");
    for (const name of extraTools) {
        if (typeof name !== "string" || !optInTools.has(name)) {
            throw new TypeError(`createAgentToolkit: unknown extra tool ${JSON.stringify(name)} (known: ${[...optInTools.keys()].join(", ")})`);
        }
    }
    for (const [name, entry] of optInTools)
        if (extraTools.includes(name))
            extras.set(name, entry);
    return extras;
}
function registerUserTools(options) {
    const byName = new Map();
    const extras = enableExtraTools(options?.extraTools);
    for (const tool of options?.tools ?? []) {
        if (!(0, user_tools_cjs_1.isTool)(tool))
            throw new TypeError("createAgentToolkit: options.tools must hold tools made by defineTool");
        if (Object.hasOwn(catalog, tool.name)) {
            throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with a built-in tool`);
        }
        if (extras.has(tool.name)) {
            throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with an enabled extra tool`);
        }
        if (byName.has(tool.name))
            throw new Error(`createAgentToolkit: the tool name "${tool.name}" is registered twice`);
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
const asTools = function asTools(toolkit) {
    const state = toolkitState.get(toolkit);
    if (!state)
        throw new TypeError("asTools: not a toolkit made by createAgentToolkit");
    const { context, registered } = state;
    const make = (name, description, definition, toResult) => ({
        name,
        description,
        definition,
        async executeRaw(rawArgsJson, ctx = {}) {
            let args;
            try {
                args = rawArgsJson === undefined || rawArgsJson === null || rawArgsJson === "" ? {} : JSON.parse(rawArgsJson);
            }
            catch (error) {
                return (0, user_tools_cjs_1.errorResult)(`invalid JSON arguments: ${error.message}`);
            }
            try {
                const runtime = { ...registered.runtime, ...ctx };
                const out = await invoke(context, name, args, { ...registered, runtime });
                return toResult(out.content);
            }
            catch (error) {
                return (0, user_tools_cjs_1.errorResult)(messageOf(error));
            }
        },
    });
    const extraDefinitions = [...registered.extras.values()].map((entry) => entry.definition);
    const builtIns = [...definitions, ...extraDefinitions].map((d) => make(d.function.name, d.function.description, d, (value) => ({ type: "json", value })));
    const own = [...registered.byName.values()].map((t) => make(t.name, t.description, t.definition, user_tools_cjs_1.toToolResult));
    return [...builtIns, ...own];
};
exports.asTools = asTools;
/** What the tool loop needs of a toolkit. */
function loopRuntime(toolkit) {
    const state = toolkitState.get(toolkit);
    if (!state)
        throw new TypeError("runToolLoop: toolkit must be made by createAgentToolkit");
    const { context, registered } = state;
    return {
        definitions: () => toolkit.getAllowedTools(),
        has: (name) => Object.hasOwn(catalog, name) || registered.extras.has(name) || registered.byName.has(name),
        userTool: (name) => {
            const tool = registered.byName.get(name);
            return tool ? { writes: user_tools_cjs_1.toolInternals.get(tool).writes } : undefined;
        },
        execSandbox: () => {
            const preview = native.execSandboxPreview(context);
            return preview === null ? undefined : JSON.parse(preview);
        },
        /** The call's output as the model sees it: a user tool's message text, a built-in's JSON text. */
        output: async (name, args, ctx) => {
            const reg = { ...registered, runtime: { ...registered.runtime, ...ctx } };
            if (registered.byName.has(name))
                return messageText((0, user_tools_cjs_1.toToolResult)((await invoke(context, name, args, reg)).content));
            return invoke(context, name, args, reg, true);
        },
    };
}
/** A ToolResult as the loop's string output (parts: their text, images noted). */
function messageText(result) {
    const content = (0, user_tools_cjs_1.toToolMessageContent)(result);
    if (typeof content === "string")
        return content;
    return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}
internal_cjs_1.hooks.invokeWithSignal = async (toolkit, name, args, signal) => {
    const state = toolkitState.get(toolkit);
    if (!state)
        throw new TypeError("not a toolkit made by createAgentToolkit");
    const { context, registered } = state;
    return (await invoke(context, name, args, { ...registered, runtime: { ...registered.runtime, signal } })).content;
};
const loop = (0, loop_cjs_1.makeToolLoop)(loopRuntime);
/** Runs the multi-turn tool loop to its end. */
const runToolLoop = loop.runToolLoop;
exports.runToolLoop = runToolLoop;
/** The same loop as an async iterator of events; `result` resolves when it ends. */
const streamToolLoop = loop.streamToolLoop;
exports.streamToolLoop = streamToolLoop;
/**
 * Tool outputs kept whole while their total stays under `budgetChars` (UTF-16 units, default
 * 100 000); older ones are evicted from the conversation but stay readable by id (`out-1`, ...).
 */
const OutputCache = native.OutputCache;
exports.OutputCache = OutputCache;
var sessions_cjs_1 = require("./sessions.cjs");
Object.defineProperty(exports, "createProviderSession", { enumerable: true, get: function () { return sessions_cjs_1.createProviderSession; } });
__exportStar(require("./providers.cjs"), exports);
