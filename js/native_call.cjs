"use strict";
// Generated from ts/native_call.cts by `npm run build:ts`: edit that file, not this one.
// The one native entry of every tool call (binding.d.ts, `callTool`) and what a handler makes of
// its answer.
exports.APPROVED = exports.RUN_BUILT_IN = exports.BYPASS = exports.IS_WRITE_OP = exports.REGISTERED = exports.DOOR_HANDLER = exports.DOOR_TOOLS = exports.DOOR_INVOKE = exports.messageOfOutcome = void 0;
exports.packCall = packCall;
exports.callNative = callNative;
exports.resultValue = resultValue;
exports.resultJson = resultJson;
const context_cjs_1 = require("./context.cjs");
const errors_cjs_1 = require("./errors.cjs");
const native_cjs_1 = require("./native.cjs");
const todo_state_cjs_1 = require("./todo_state.cjs");
const native = (0, native_cjs_1.loadNative)();
const messageOfOutcome = (outcome) => outcome.message;
exports.messageOfOutcome = messageOfOutcome;
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
 * object) says which front door; the context's task list (its `TodoStore`) is read by the
 * session tools only, `process.env` by the tools that start processes (Bun does not mirror
 * run-time changes of `process.env` into the C environment, so inheriting would miss them).
 * Synchronous where the native side finishes at once, as the session tools always do.
 */
function callNative(request, name, context, args, signal) {
    if (!sessionTools.has(name))
        return native.callTool(request, (0, context_cjs_1.contextHandle)(context), args, null, process.env, signal);
    const answer = native.callTool(request, (0, context_cjs_1.contextHandle)(context), args, (0, todo_state_cjs_1.todoStore)(context), process.env, signal);
    if (typeof answer === "string" || answer.kind === "ok")
        return { kind: "value", value: (0, todo_state_cjs_1.sessionResult)(context, name, answer) };
    return answer;
}
/**
 * A handler's result: its output (parsed), a session tool's result as it is; any other outcome
 * is the tool's error (or an internal one), thrown.
 */
function resultValue(outcome) {
    if (typeof outcome === "string")
        return JSON.parse(outcome);
    if (outcome.kind === "value")
        return outcome.value;
    return JSON.parse(resultJson(outcome));
}
/**
 * The JSON text of a handler's result: its output; any other outcome is the tool's error (or an
 * internal one), thrown.
 */
function resultJson(outcome) {
    if (typeof outcome === "string")
        return outcome;
    switch (outcome.kind) {
        case "value":
            return JSON.stringify(outcome.value);
        case "ok":
            return outcome.json;
        case "tool_error":
            throw (0, errors_cjs_1.refused)((0, errors_cjs_1.toolError)(outcome.name, outcome.code, outcome.message, outcome.details), outcome.reason);
        default:
            throw (0, errors_cjs_1.internalError)((0, exports.messageOfOutcome)(outcome));
    }
}
