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
 * `callTool`'s request packed into one number (src/binding/mod.rs, `unpack_call`), which the
 * native side reads without a property lookup: the door in the low two bits, a bit per flag, the
 * tool's index in the registry from bit 8. Only for a name of the registry; the others (user
 * tools, unknown names) go as a `CallRequest` object.
 */
export declare const DOOR_INVOKE = 0;
export declare const DOOR_TOOLS = 1;
export declare const DOOR_HANDLER = 2;
export declare const REGISTERED: number;
export declare const IS_WRITE_OP: number;
export declare const BYPASS: number;
export declare const RUN_BUILT_IN: number;
/** Somebody approved this call: a permission rule that asks lets it through. */
export declare const APPROVED: number;
/** The packed request of `name` through `door` with `flags`; undefined for a name not in the registry. */
export declare function packCall(name: string, doorAndFlags: number): number | undefined;
/**
 * The one native entry of a tool call (binding.d.ts, `callTool`): the request (packed, or an
 * object) says which front door; the context's task list (its `TodoStore`) is read by the
 * session tools only, `process.env` by the tools that start processes (Bun does not mirror
 * run-time changes of `process.env` into the C environment, so inheriting would miss them).
 * Synchronous where the native side finishes at once, as the session tools always do.
 */
export declare function callNative(request: CallRequest | number, name: string, context: ToolContext, args: unknown, signal?: AbortSignal): Answer | Promise<Answer>;
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
