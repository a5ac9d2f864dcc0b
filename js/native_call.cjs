"use strict";
// Generated from ts/native_call.cts by `npm run build:ts`: edit that file, not this one.
// The one native entry of every tool call (binding.d.ts, `callTool`) and what a handler makes of
// its answer.
exports.messageOfOutcome = void 0;
exports.callNative = callNative;
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
 * The one native entry of a tool call (binding.d.ts, `callTool`): the request says which front
 * door; `state` is read by the session tools only, `process.env` by the tools that start
 * processes (Bun does not mirror run-time changes of `process.env` into the C environment, so
 * inheriting would miss them). Synchronous where the native side finishes at once.
 */
function callNative(request, context, args, signal) {
    const state = sessionTools.has(request.name) ? (0, todo_state_cjs_1.todoJson)(context) : null;
    return native.callTool(request, (0, context_cjs_1.contextHandle)(context), args, state, process.env, signal);
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
                (0, todo_state_cjs_1.applyTodoChange)(context, outcome.change);
            return outcome.json;
        case "tool_error":
            throw (0, errors_cjs_1.toolError)(outcome.name, outcome.code, outcome.message);
        default:
            throw (0, errors_cjs_1.internalError)((0, exports.messageOfOutcome)(outcome));
    }
}
