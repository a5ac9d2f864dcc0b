// Generated from ts/native_call.cts by `npm run build:ts`: edit that file, not this one.
import type { CallRequest, Outcome as NativeOutcome } from "../binding.js";
import type { ToolContext } from "./types.cjs";
/**
 * What a native call answers: a union discriminated by `kind` (binding.d.ts), or, for an `ok`
 * without a state change, its JSON text alone; a session tool's success is its result (`value`),
 * made on the JavaScript thread right after the call (todo_state.cts).
 */
export type Outcome = NativeOutcome;
export type SessionValue = {
    kind: "value";
    value: unknown;
};
export type Answer = string | Outcome | SessionValue;
export declare const messageOfOutcome: (outcome: Answer) => string;
/**
 * The one native entry of a tool call (binding.d.ts, `callTool`): the request says which front
 * door; the context's task list (its `TodoStore`) is read by the session tools only, `process.env`
 * by the tools that start processes (Bun does not mirror run-time changes of `process.env` into
 * the C environment, so inheriting would miss them). Synchronous where the native side finishes
 * at once, as the session tools always do.
 */
export declare function callNative(request: CallRequest, context: ToolContext, args: unknown, signal?: AbortSignal): Answer | Promise<Answer>;
/**
 * A handler's result: its output (parsed), a session tool's result as it is; any other outcome
 * is the tool's error (or an internal one), thrown.
 */
export declare function resultValue(outcome: Answer): unknown;
/**
 * The JSON text of a handler's result: its output; any other outcome is the tool's error (or an
 * internal one), thrown.
 */
export declare function resultJson(outcome: Answer): string;
