"use strict";
// Generated from ts/native_call.cts by `npm run build:ts`: edit that file, not this one.
// The one native entry of every tool call (binding.d.ts, `callTool`) and what a handler makes of
// its answer.
exports.APPROVED = exports.RUN_BUILT_IN = exports.BYPASS = exports.IS_WRITE_OP = exports.REGISTERED = exports.DOOR_HANDLER = exports.DOOR_TOOLS = exports.DOOR_INVOKE = void 0;
exports.packCall = packCall;
exports.callNative = callNative;
exports.settle = settle;
exports.thrownBy = thrownBy;
exports.resultValue = resultValue;
exports.resultJson = resultJson;
exports.requestFor = requestFor;
const context_cjs_1 = require("./context.cjs");
const bypass_cjs_1 = require("./bypass.cjs");
const errors_cjs_1 = require("./errors.cjs");
const native_cjs_1 = require("./native.cjs");
const todo_state_cjs_1 = require("./todo_state.cjs");
const native = (0, native_cjs_1.loadNative)();
/** The built-in tools that keep their state on the context (`context.todo`). */
const sessionTools = new Set((0, native_cjs_1.builtInCatalog)().flatMap((entry) => (entry.session ? [entry.name] : [])));
/**
 * `callTool`'s request packed into one number (src/binding/mod.rs, `unpack_call`), which the
 * native side reads without a property lookup: the door in the low two bits, a bit per flag, the
 * tool's index in the registry from bit 8. Only for a name of the registry; the others (user
 * tools, unknown names) go as a `CallRequest` object.
 */
exports.DOOR_INVOKE = 0;
exports.DOOR_TOOLS = 1;
exports.DOOR_HANDLER = 2;
exports.REGISTERED = 1 << 2;
exports.IS_WRITE_OP = 1 << 3;
exports.BYPASS = 1 << 4;
exports.RUN_BUILT_IN = 1 << 5;
/** Somebody approved this call: a permission rule that asks lets it through. */
exports.APPROVED = 1 << 6;
const registryBase = new Map();
for (const [index, entry] of (0, native_cjs_1.nativeCatalog)().entries())
    if (!registryBase.has(entry.name))
        registryBase.set(entry.name, index << 8);
/** The packed request of `name` through `door` with `flags`; undefined for a name not in the registry. */
function packCall(name, doorAndFlags) {
    const base = registryBase.get(name);
    return base === undefined ? undefined : base | doorAndFlags;
}
/**
 * The one native entry of a tool call (binding.d.ts, `callTool`): the request (packed, or an
 * object) says which front door; `edits` are the calling toolkit's journal and syntax check;
 * the context's task list (its `TodoStore`) is read by the session tools only, `process.env` by
 * the tools that start processes (Bun does not mirror run-time changes of `process.env` into the
 * C environment, so inheriting would miss them).
 * Synchronous where the native side finishes at once, as the session tools always do.
 */
function callNative(request, name, context, args, edits, signal) {
    if (!sessionTools.has(name))
        return native.callTool(request, (0, context_cjs_1.contextHandle)(context, edits), args, null, process.env, signal);
    const answer = native.callTool(request, (0, context_cjs_1.contextHandle)(context, edits), args, (0, todo_state_cjs_1.todoStore)(context), process.env, signal);
    if (typeof answer === "string" || answer.kind === "ok")
        return { kind: "value", value: (0, todo_state_cjs_1.sessionResult)(context, name, answer) };
    return answer;
}
function settle(answer) {
    if (typeof answer === "string")
        return { json: answer };
    switch (answer.kind) {
        case "value":
            return { value: answer.value };
        case "ok":
            return { json: answer.json };
        case "prepared":
            return { args: answer.args };
        default:
            return { failed: answer };
    }
}
/**
 * The error a failed call throws, its refusal recorded: the tool's own error class; through
 * `invoke` also upstream's `InvokeToolError` (its checks, and `INTERNAL` for anything else) and
 * the plain `Error` of a path outside the workspace; through a handler anything else is internal.
 */
function thrownBy(door, failed, toolName) {
    switch (failed.kind) {
        case "tool_error":
            return (0, errors_cjs_1.refused)((0, errors_cjs_1.toolError)(failed.name, failed.code, failed.message, failed.details, failed.textAt), failed.reason);
        case "invoke_error":
            if (door === "invoke")
                return (0, errors_cjs_1.refused)(new errors_cjs_1.InvokeToolError(failed.code, failed.message, { tool_name: toolName }), failed.reason);
            break;
        case "plain_error":
            if (door === "invoke")
                return (0, errors_cjs_1.refused)(new Error(failed.message), failed.reason);
            break;
    }
    return door === "invoke" ? new errors_cjs_1.InvokeToolError("INTERNAL", failed.message, { tool_name: toolName }) : (0, errors_cjs_1.internalError)(failed.message);
}
/** A handler's result: its output (parsed), a session tool's result as it is; a failure thrown. */
function resultValue(answer) {
    const settled = settle(answer);
    if ("value" in settled)
        return settled.value;
    return JSON.parse(resultJson(answer));
}
/** The JSON text of a handler's result: its output; a failure thrown. */
function resultJson(answer) {
    const settled = settle(answer);
    if ("json" in settled)
        return settled.json;
    if ("value" in settled)
        return JSON.stringify(settled.value);
    if ("failed" in settled)
        throw thrownBy("handler", settled.failed, "");
    throw (0, errors_cjs_1.internalError)("a handler's call was prepared for a replaced handler");
}
/**
 * A call's request for `callNative`: packed into one number for a name of the registry, else
 * the `CallRequest` object (user tools, unknown names). The door's flags are computed here only.
 */
function requestFor(door, name, facts) {
    const bypass = bypass_cjs_1.SecurityBypass.isEnabled();
    const { registered, isWriteOp, runBuiltIn, approved = false } = facts;
    const flags = (door === "invoke" ? exports.DOOR_INVOKE | (registered ? exports.REGISTERED : 0) : exports.DOOR_TOOLS) |
        (isWriteOp ? exports.IS_WRITE_OP : 0) |
        (bypass ? exports.BYPASS : 0) |
        (runBuiltIn ? exports.RUN_BUILT_IN : 0) |
        (approved ? exports.APPROVED : 0);
    const packed = packCall(name, flags);
    if (packed !== undefined)
        return packed;
    return door === "invoke" ? { door, name, registered, isWriteOp, bypass, runBuiltIn, approved } : { door, name, isWriteOp, bypass, runBuiltIn };
}
