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
const loop_cjs_1 = require("./loop.cjs");
const native_cjs_1 = require("./native.cjs");
const user_tools_cjs_1 = require("./user_tools.cjs");
Object.defineProperty(exports, "applyOutputCache", { enumerable: true, get: function () { return user_tools_cjs_1.applyOutputCache; } });
Object.defineProperty(exports, "defineTool", { enumerable: true, get: function () { return user_tools_cjs_1.defineTool; } });
Object.defineProperty(exports, "doneTool", { enumerable: true, get: function () { return user_tools_cjs_1.doneTool; } });
Object.defineProperty(exports, "outputCacheTools", { enumerable: true, get: function () { return user_tools_cjs_1.outputCacheTools; } });
Object.defineProperty(exports, "toToolMessageContent", { enumerable: true, get: function () { return user_tools_cjs_1.toToolMessageContent; } });
const native = (0, native_cjs_1.loadNative)();
const outcomeOf = (value) => value;
const messageOfOutcome = (outcome) => outcome.message;
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
// Every native call also gets `process.env`: tools that start processes build the child's
// environment from it (Bun does not mirror run-time changes of `process.env` into the C
// environment, so inheriting would miss them); other tools ignore it.
const builtInHandlers = Object.create(null);
/** Built-in handlers that run on the worker pool, by name (the session tools run on this thread). */
const workerHandlers = Object.create(null);
const catalog = {};
for (const { name, isWriteOp, description, session } of (0, native_cjs_1.builtInCatalog)()) {
    const handler = session
        ? async (context, ...args) => sessionValue(context, outcomeOf(native.runSessionTool(name, todoState(context), args)))
        : async (context, ...args) => outputOf(outcomeOf(await native.runHandler(name, context, args, process.env)));
    builtInHandlers[name] = handler;
    if (!session)
        workerHandlers[name] = handler;
    catalog[name] = { metadata: { name, isWriteOp, description }, handler };
}
/** The built-in tools by name: each one's metadata and raw handler (no policy or sandbox checks). */
const ToolCatalog = catalog;
exports.ToolCatalog = ToolCatalog;
// ---- todo session state: a Map plus an order array on the caller's context ---------------------
function todoState(context) {
    const state = context.todo;
    if (state == null)
        return null;
    return { tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order };
}
/** `context.todo` as JSON text for `invokeSession` (null when unset; undefined when it cannot be JSON). */
function todoJson(context) {
    const state = context.todo;
    if (state == null)
        return null;
    try {
        return JSON.stringify({ tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order });
    }
    catch {
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
    const { workspaceRoot, writeScope, policy, env, exec } = context;
    if (typeof workspaceRoot !== "string" || typeof writeScope !== "string" || !isRecord(policy) || !isRecord(env))
        return null;
    // The snapshot has no `exec` (exec_command's OS sandbox): a context that sets it is read whole.
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
    const key = JSON.stringify([workspaceRoot, writeScope, defaultPolicy, platform, entries]);
    const cached = snapshots.get(context);
    if (cached !== undefined && cached.key === key)
        return cached.handle;
    const handle = native.contextSnapshot(key);
    snapshots.set(context, { key, handle });
    return handle;
}
/** Applies a session tool's change to `context.todo` and returns its output. */
function sessionValue(context, outcome) {
    const value = outputOf(outcome);
    if (outcome.kind === "ok" && outcome.change !== undefined) {
        const change = JSON.parse(outcome.change);
        if (change.replace) {
            context.todo = { tasks: new Map(change.replace.map((t) => [t.task_id, t])), order: change.replace.map((t) => t.task_id) };
        }
        else if (change.set) {
            context.todo.tasks.set(change.set.task_id, change.set);
        }
    }
    return value;
}
/** The result of a raw handler call: the value, or the tool's error thrown. */
function outputOf(outcome) {
    switch (outcome.kind) {
        case "ok":
            return JSON.parse(outcome.json);
        case "tool_error":
            throw toolError(outcome.name, outcome.code, outcome.message);
        default:
            throw internalError(messageOfOutcome(outcome));
    }
}
function callSite(name) {
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
    return context;
};
exports.createToolContext = createToolContext;
/** `toolkit.tools.<name>(...args)`: never rejects, resolves with a ToolResult. */
async function secureCall(context, name, handler, args) {
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
    const { entry, call } = callSite(toolName);
    const userTool = entry === undefined ? registered.byName.get(toolName) : undefined;
    if (userTool)
        return fromValue((await invokeUserTool(context, userTool, name, args, registered.runtime)).content);
    // Tools with path arguments are checked (symlinks resolved) and run on the worker pool; the
    // others (session tools, unknown names) need no filesystem: checked and run synchronously.
    const worker = entry !== undefined && workerHandlers[toolName] !== undefined;
    let outcome;
    if (worker) {
        const signal = registered.runtime?.signal;
        if (signal?.aborted)
            throw (0, loop_cjs_1.abortError)();
        const builtIn = entry.handler === workerHandlers[toolName];
        outcome = outcomeOf(await withCallSignal(signal, (callSignal) => native.invoke(context, call, args, builtIn, process.env, callSignal)));
    }
    else {
        const builtIn = entry !== undefined && entry.handler === builtInHandlers[toolName];
        const snapshot = builtIn ? contextSnapshot(context) : null;
        const state = snapshot === null ? undefined : todoJson(context);
        if (state !== undefined) {
            const answer = native.invokeSession(snapshot, toolName, call.isWriteOp, call.bypass, args, state);
            if (typeof answer === "string")
                return fromJson(answer);
            outcome = outcomeOf(answer);
        }
        else {
            outcome = outcomeOf(native.invokeNow(context, call, args, builtIn, builtIn ? todoState(context) : null));
        }
        if (builtIn && outcome.kind === "ok")
            return fromValue(sessionValue(context, outcome));
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
async function invokeUserTool(context, tool, name, args, runtime) {
    const toolName = String(name);
    const { writes } = user_tools_cjs_1.toolInternals.get(tool);
    const call = { name: toolName, registered: true, isWriteOp: writes, bypass: SecurityBypass.isEnabled() };
    const outcome = outcomeOf(native.invokeNow(context, call, args, false, null));
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
    const userNames = [...registered.byName.keys()];
    const toolkit = {
        tools,
        invoke: (name, args) => invoke(context, name, args, registered),
        getAllowedTools: () => native.allowedToolNames(context, userNames).map((name) => definitionByName.get(name) ?? registered.byName.get(name).definition),
    };
    toolkitState.set(toolkit, { context, registered });
    return toolkit;
};
exports.createAgentToolkit = createAgentToolkit;
function registerUserTools(options) {
    const byName = new Map();
    for (const tool of options?.tools ?? []) {
        if (!(0, user_tools_cjs_1.isTool)(tool))
            throw new TypeError("createAgentToolkit: options.tools must hold tools made by defineTool");
        if (Object.hasOwn(catalog, tool.name)) {
            throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with a built-in tool`);
        }
        if (byName.has(tool.name))
            throw new Error(`createAgentToolkit: the tool name "${tool.name}" is registered twice`);
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
                const out = await invoke(context, name, args, { byName: registered.byName, runtime });
                return toResult(out.content);
            }
            catch (error) {
                return (0, user_tools_cjs_1.errorResult)(messageOf(error));
            }
        },
    });
    const builtIns = definitions.map((d) => make(d.function.name, d.function.description, d, (value) => ({ type: "json", value })));
    const own = [...registered.byName.values()].map((t) => make(t.name, t.description, t.definition, user_tools_cjs_1.toToolResult));
    return [...builtIns, ...own];
};
exports.asTools = asTools;
/** What the tool loop needs of a toolkit. */
// biome-ignore lint/suspicious/noExplicitAny: a toolkit with any user tools
function loopRuntime(toolkit) {
    const state = toolkitState.get(toolkit);
    if (!state)
        throw new TypeError("runToolLoop: toolkit must be made by createAgentToolkit");
    const { context, registered } = state;
    return {
        definitions: () => toolkit.getAllowedTools(),
        has: (name) => Object.hasOwn(catalog, name) || registered.byName.has(name),
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
            const reg = { byName: registered.byName, runtime: { ...registered.runtime, ...ctx } };
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
