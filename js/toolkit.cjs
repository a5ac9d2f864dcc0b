"use strict";
// Generated from ts/toolkit.cts by `npm run build:ts`: edit that file, not this one.
// The toolkit: `createAgentToolkit` and its three ways into a tool — `toolkit.tools.<name>`
// (a ToolResult envelope, never rejects), `toolkit.invoke` (rejects on any error) and `asTools`
// (a `Tool` per tool for a loop) — plus `invokeWithSignal` for the command line (cli.cts).
exports.OutputCache = exports.asTools = exports.createAgentToolkit = exports.toolkitState = void 0;
exports.invoke = invoke;
exports.invokeWithSignal = invokeWithSignal;
const catalog_cjs_1 = require("./catalog.cjs");
const context_cjs_1 = require("./context.cjs");
const errors_cjs_1 = require("./errors.cjs");
const loop_cjs_1 = require("./loop.cjs");
const native_cjs_1 = require("./native.cjs");
const native_call_cjs_1 = require("./native_call.cjs");
const user_tools_cjs_1 = require("./user_tools.cjs");
const native = (0, native_cjs_1.loadNative)();
/** `toolkit.tools.<name>(...args)`: never rejects, resolves with a result envelope (`status`). */
async function secureCall(context, name, handler, args, edits, optIn) {
    try {
        const isWriteOp = optIn ? optIn.isWriteOp : catalog_cjs_1.catalog[name]?.metadata?.isWriteOp === true;
        const runBuiltIn = optIn !== undefined || handler === catalog_cjs_1.builtInHandlers[name];
        const answer = (0, native_call_cjs_1.callNative)((0, native_call_cjs_1.requestFor)("tools", name, { registered: true, isWriteOp, runBuiltIn }), name, context, args, edits);
        // A session tool's answer is there at once: no promise to wait for.
        const settled = (0, native_call_cjs_1.settle)(answer instanceof Promise ? await answer : answer);
        if ("json" in settled)
            return { status: "success", data: JSON.parse(settled.json) };
        if ("value" in settled)
            return { status: "success", data: settled.value };
        if ("args" in settled)
            return { status: "success", data: await handler(context, ...settled.args) };
        return envelopeOf(settled.failed);
    }
    catch (thrown) {
        return (0, errors_cjs_1.failure)((0, errors_cjs_1.messageOf)(thrown));
    }
}
/** The `toolkit.tools` envelope of a failed call: a denial, or a runtime failure. */
function envelopeOf(failed) {
    switch (failed.kind) {
        case "denied":
            return (0, errors_cjs_1.denied)(failed.reason, failed.message);
        case "internal":
            return (0, errors_cjs_1.failure)(`INTERNAL: ${failed.message}`);
        case "tool_error":
            return (0, errors_cjs_1.refused)((0, errors_cjs_1.failure)(failed.message, failed.details), failed.reason);
        default:
            return (0, errors_cjs_1.failure)(failed.message);
    }
}
/**
 * Runs `run` with a signal of its own that follows `signal`: napi-rs takes over the `onabort`
 * property of the signal it is given, so the caller's own signal (and its `onabort` handler) is
 * never handed to native code, and nothing of the call stays attached to it afterwards.
 */
function withCallSignal(signal, run) {
    // Without a signal, the answer as it comes (a session tool's at once: no promise to wait for).
    if (!signal)
        return run(undefined);
    return followed(signal, run);
}
async function followed(signal, run) {
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
async function invoke(context, name, args, registered, asText = false, approved = false) {
    const toolName = typeof name === "string" ? name : String(name);
    const entry = Object.hasOwn(catalog_cjs_1.catalog, toolName) ? catalog_cjs_1.catalog[toolName] : undefined;
    const builtIn = entry !== undefined && entry.handler === catalog_cjs_1.builtInHandlers[toolName];
    const optIn = entry === undefined ? registered.optIns.get(toolName) : undefined;
    const userTool = entry === undefined && optIn === undefined ? registered.byName.get(toolName) : undefined;
    if (userTool)
        return fromValue(name, (await invokeUserTool(context, userTool, name, args, registered.runtime)).content, asText);
    const signal = registered.runtime?.signal;
    if (signal?.aborted)
        throw (0, loop_cjs_1.loopAborted)();
    const isRegistered = entry !== undefined || optIn !== undefined;
    const isWriteOp = optIn ? optIn.isWriteOp : entry?.metadata?.isWriteOp === true;
    const request = (0, native_call_cjs_1.requestFor)("invoke", toolName, { registered: isRegistered, isWriteOp, runBuiltIn: builtIn || optIn !== undefined, approved });
    const { edits } = registered;
    const answer = signal ? withCallSignal(signal, (callSignal) => (0, native_call_cjs_1.callNative)(request, toolName, context, args, edits, callSignal)) : (0, native_call_cjs_1.callNative)(request, toolName, context, args, edits);
    // A session tool's answer is there at once: no promise to wait for.
    const settled = (0, native_call_cjs_1.settle)(answer instanceof Promise ? await answer : answer);
    if ("json" in settled)
        return fromJson(name, settled.json, asText);
    if ("value" in settled)
        return fromValue(name, settled.value, asText);
    if ("args" in settled)
        return fromValue(name, await catalog_cjs_1.catalog[toolName]?.handler(context, ...settled.args), asText);
    throw (0, native_call_cjs_1.thrownBy)("invoke", settled.failed, toolName);
}
/** `invoke`'s result from a tool's output as JSON text. */
function fromJson(name, json, asText) {
    return asText ? json : { role: "function", name, content: JSON.parse(json) };
}
/** `invoke`'s result from a tool's output value. */
function fromValue(name, content, asText) {
    return asText ? JSON.stringify(content) : { role: "function", name, content };
}
/** A user tool through `invoke`: the same checks in the same order, then its input validation, then execute. */
async function invokeUserTool(context, tool, name, args, runtime) {
    const toolName = String(name);
    const { writes } = user_tools_cjs_1.toolInternals.get(tool);
    const request = (0, native_call_cjs_1.requestFor)("invoke", toolName, { registered: true, isWriteOp: writes, runBuiltIn: false });
    const settled = (0, native_call_cjs_1.settle)(await (0, native_call_cjs_1.callNative)(request, toolName, context, args, undefined));
    if ("failed" in settled)
        throw (0, native_call_cjs_1.thrownBy)("invoke", settled.failed, toolName);
    if (!("args" in settled))
        throw new errors_cjs_1.InvokeToolError("INTERNAL", "a user tool's checks gave an output", { tool_name: toolName });
    const input = await (0, user_tools_cjs_1.validateInput)(tool, args);
    const content = await (0, user_tools_cjs_1.runExecute)(tool, input, (0, user_tools_cjs_1.executionContext)(runtime));
    return { role: "function", name, content };
}
/** Toolkit internals (user tools, enabled opt-in tools, DI defaults), for `asTools`, the tool loop and `invokeWithSignal`. */
exports.toolkitState = new WeakMap();
/**
 * `createAgentToolkit(context)` exactly as agent-tools-ts; `options.tools` registers user tools
 * (from `defineTool`), `options.extraTools` enables opt-in tools, `options.deps` /
 * `options.overrides` / `options.logger` / `options.now` are the defaults of the user tools'
 * execution context.
 */
const createAgentToolkit = function createAgentToolkit(context, options = {}) {
    const registered = registerUserTools(options);
    const journal = checkpointOptions(options.checkpoints);
    const edits = (0, context_cjs_1.editHooksFor)(context, journal, syntaxCheckMode(options.syntaxCheck));
    if (edits !== undefined)
        registered.edits = edits;
    const tools = {};
    for (const name of Object.keys(catalog_cjs_1.builtInHandlers)) {
        const handler = catalog_cjs_1.catalog[name].handler;
        tools[name] = (...args) => secureCall(context, name, handler, args, edits);
    }
    for (const [name, entry] of registered.optIns) {
        tools[name] = (...args) => secureCall(context, name, noHandler, args, edits, entry);
    }
    if (registered.optIns.has("edit_file") && !context_cjs_1.readLedgers.has(context))
        context_cjs_1.readLedgers.set(context, native.newReadLedger());
    const startsProcesses = registered.optIns.has("process_start");
    if (startsProcesses && !context_cjs_1.processTables.has(context))
        context_cjs_1.processTables.set(context, native.newProcessTable(processLimits(options.processes)));
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
        invoke: (name, args) => invoke(context, name, args, registered),
        getAllowedTools: () => native
            .allowedToolNames(context, [...optInNames, ...userNames])
            .map((name) => catalog_cjs_1.definitionByName.get(name) ??
            registered.optIns.get(name)?.definition ??
            registered.byName.get(name).definition),
    };
    exports.toolkitState.set(toolkit, { context, registered });
    return toolkit;
};
exports.createAgentToolkit = createAgentToolkit;
/** `options.processes`, checked: whole numbers within their ranges. */
function processLimits(limits) {
    if (limits === undefined)
        return undefined;
    if (limits === null || typeof limits !== "object")
        throw new TypeError("createAgentToolkit: options.processes must be an object");
    const { maxRunning, bufferBytes, maxLifetimeMs } = limits;
    const check = (name, value, max) => {
        if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1 && value <= max)) {
            throw new TypeError(`createAgentToolkit: options.processes.${name} must be a whole number from 1 to ${max}`);
        }
    };
    check("maxRunning", maxRunning, 1024);
    check("bufferBytes", bufferBytes, 2 ** 30);
    check("maxLifetimeMs", maxLifetimeMs, 2 ** 31);
    return { maxRunning: maxRunning, bufferBytes: bufferBytes, maxLifetimeMs: maxLifetimeMs };
}
/** `options.checkpoints`, checked: `true`, or an object with a directory and whole-number bounds. */
function checkpointOptions(value) {
    if (value === undefined || value === false)
        return undefined;
    if (value === true)
        return {};
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
        throw new TypeError("createAgentToolkit: options.checkpoints must be true or an object { dir?, maxBytes?, maxCheckpoints? }");
    }
    const { dir, maxBytes, maxCheckpoints } = value;
    if (dir !== undefined && (typeof dir !== "string" || dir.length === 0 || dir.includes("\0"))) {
        throw new TypeError("createAgentToolkit: options.checkpoints.dir must be a non-empty path");
    }
    const whole = (name, n, min, max) => {
        if (n !== undefined && !(Number.isSafeInteger(n) && n >= min && n <= max)) {
            throw new TypeError(`createAgentToolkit: options.checkpoints.${name} must be a whole number from ${min} to ${max}`);
        }
    };
    whole("maxBytes", maxBytes, 0, Number.MAX_SAFE_INTEGER);
    whole("maxCheckpoints", maxCheckpoints, 1, 100_000);
    return { dir: dir, maxBytes: maxBytes, maxCheckpoints: maxCheckpoints };
}
/** `options.syntaxCheck`, checked. */
function syntaxCheckMode(value) {
    if (value === undefined || value === false)
        return undefined;
    if (value === "report" || value === "reject")
        return value;
    throw new TypeError('createAgentToolkit: options.syntaxCheck must be "report" or "reject"');
}
/** `toolkit.checkpoints`: the journal of the context's workspace (docs/checkpoints.md). */
function checkpointsOf(context, edits) {
    const call = async (op, id, force) => {
        if (op !== "list" && (typeof id !== "string" || id.length === 0)) {
            throw (0, errors_cjs_1.codedError)("CheckpointError", "INVALID_ARGUMENT", "id must be a checkpoint id (a string from list())");
        }
        return (0, native_call_cjs_1.resultJson)(await native.checkpointsCall(edits, (0, context_cjs_1.contextHandle)(context, edits), op, id, force));
    };
    return {
        list: async () => JSON.parse(await call("list")),
        diff: async (id) => JSON.parse(await call("diff", id)),
        restore: async (id, options) => JSON.parse(await call("restore", id, restoreForce(options))),
    };
}
/** `restore`'s options, checked: `force` is a boolean when given. */
function restoreForce(options) {
    if (options === undefined || options === null)
        return false;
    const force = typeof options === "object" ? options.force : null;
    if (force !== undefined && typeof force !== "boolean") {
        throw (0, errors_cjs_1.codedError)("CheckpointError", "INVALID_ARGUMENT", "restore's options must be { force?: boolean }");
    }
    return force === true;
}
/**
 * Ends every process the context's calls started (whole trees) and resolves once they are gone;
 * then, when there is a journal, what they changed since the last call is recorded in it and
 * the private directory its snapshots keep between commands is removed.
 */
async function closeContext(context, edits) {
    const table = context_cjs_1.processTables.get(context);
    if (table !== undefined)
        await native.closeProcessTable(table);
    if (edits !== undefined)
        (0, native_call_cjs_1.resultJson)(await native.checkpointsCall(edits, (0, context_cjs_1.contextHandle)(context, edits), "settle", undefined, false));
}
/** An opt-in tool has no replaceable handler: its calls always run the native one. */
const noHandler = async () => {
    throw (0, errors_cjs_1.internalError)("an opt-in tool has no JavaScript handler");
};
/** The opt-in tools `options.extraTools` enables, in registry order. */
function enableOptInTools(requested) {
    const optIns = new Map();
    if (requested === undefined)
        return optIns;
    if (!Array.isArray(requested))
        throw new TypeError("createAgentToolkit: options.extraTools must be an array of tool names");
    for (const name of requested) {
        if (typeof name !== "string" || !catalog_cjs_1.optInTools.has(name)) {
            throw new TypeError(`createAgentToolkit: unknown extra tool ${JSON.stringify(name)} (known: ${[...catalog_cjs_1.optInTools.keys()].join(", ")})`);
        }
    }
    for (const [name, entry] of catalog_cjs_1.optInTools)
        if (requested.includes(name))
            optIns.set(name, entry);
    return optIns;
}
function registerUserTools(options) {
    const byName = new Map();
    const optIns = enableOptInTools(options?.extraTools);
    for (const tool of options?.tools ?? []) {
        if (!(0, user_tools_cjs_1.isTool)(tool))
            throw new TypeError("createAgentToolkit: options.tools must hold tools made by defineTool");
        if (Object.hasOwn(catalog_cjs_1.catalog, tool.name)) {
            throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with a built-in tool`);
        }
        if (optIns.has(tool.name)) {
            throw new Error(`createAgentToolkit: the tool name "${tool.name}" clashes with an enabled extra tool`);
        }
        if (byName.has(tool.name))
            throw new Error(`createAgentToolkit: the tool name "${tool.name}" is registered twice`);
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
const asTools = function asTools(toolkit) {
    const state = exports.toolkitState.get(toolkit);
    if (!state)
        throw new TypeError("asTools: not a toolkit made by createAgentToolkit");
    const { context, registered } = state;
    const make = (name, description, definition, toResult) => ({
        name,
        description,
        definition,
        async executeRaw(rawArgsJson, ctx = {}) {
            const parsed = (0, loop_cjs_1.parseArguments)(rawArgsJson);
            if ("error" in parsed)
                return (0, user_tools_cjs_1.errorResult)(parsed.error);
            const { args } = parsed;
            try {
                const runtime = { ...registered.runtime, ...ctx };
                const out = await invoke(context, name, args, { ...registered, runtime });
                return toResult(out.content);
            }
            catch (error) {
                return (0, user_tools_cjs_1.errorResult)((0, errors_cjs_1.messageOf)(error));
            }
        },
    });
    const optInDefinitions = [...registered.optIns.values()].map((entry) => entry.definition);
    const builtIns = [...catalog_cjs_1.definitions, ...optInDefinitions].map((d) => make(d.function.name, d.function.description, d, (value) => ({ type: "json", value })));
    const own = [...registered.byName.values()].map((t) => make(t.name, t.description, t.definition, user_tools_cjs_1.toToolResult));
    return [...builtIns, ...own];
};
exports.asTools = asTools;
/**
 * `toolkit.invoke(name, args)` with an AbortSignal for the call (a built-in's native work and an
 * `exec_command`'s process group are stopped when it fires) and a user tool's execute receiving it.
 * Resolves the output (the invoke result's `content`) and rejects as `invoke` does. Not part of
 * the package's API: the command line and MCP server (cli.cts) use it.
 */
async function invokeWithSignal(toolkit, name, args, signal) {
    const state = exports.toolkitState.get(toolkit);
    if (!state)
        throw new TypeError("not a toolkit made by createAgentToolkit");
    const { context, registered } = state;
    return (await invoke(context, name, args, { ...registered, runtime: { ...registered.runtime, signal } })).content;
}
/**
 * Tool outputs kept whole while their total stays under `budgetChars` (UTF-16 units, default
 * 100 000); older ones are evicted from the conversation but stay readable by id (`out-1`, ...).
 */
exports.OutputCache = native.OutputCache;
