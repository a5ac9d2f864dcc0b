// Generated from ts/native_call.cts by `npm run build:ts`: edit that file, not this one.
import type { CallRequest, Outcome as NativeOutcome } from "../binding.js";
import { type EditHooks } from "./context.cjs";
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
 * object) says which front door; `edits` are the calling toolkit's journal and syntax check;
 * the context's task list (its `TodoStore`) is read by the session tools only, `process.env` by
 * the tools that start processes (Bun does not mirror run-time changes of `process.env` into the
 * C environment, so inheriting would miss them).
 * Synchronous where the native side finishes at once, as the session tools always do.
 */
export declare function callNative(request: CallRequest | number, name: string, context: ToolContext, args: unknown, edits: EditHooks | undefined, signal?: AbortSignal): Answer | Promise<Answer>;
/** A native answer that failed: every `Outcome` but `ok` and `prepared`. */
export type Failed = Exclude<Outcome, {
    kind: "ok";
} | {
    kind: "prepared";
}>;
/**
 * The one reading of a native answer, for every door: what the call produced — `json` (a tool's
 * output as JSON text), `value` (a session tool's result), `args` (the positional arguments for
 * a replaced handler) — or the outcome that `failed`, which each door renders in its own form
 * (thrown: `thrownBy`; a `toolkit.tools` envelope: toolkit.cts).
 */
export type Settled = {
    json: string;
} | {
    value: unknown;
} | {
    args: unknown[];
} | {
    failed: Failed;
};
export declare function settle(answer: Answer): Settled;
/**
 * The error a failed call throws, its refusal recorded: the tool's own error class; through
 * `invoke` also upstream's `InvokeToolError` (its checks, and `INTERNAL` for anything else) and
 * the plain `Error` of a path outside the workspace; through a handler anything else is internal.
 */
export declare function thrownBy(door: "invoke" | "handler", failed: Failed, toolName: string): Error;
/** A handler's result: its output (parsed), a session tool's result as it is; a failure thrown. */
export declare function resultValue(answer: Answer): unknown;
/** The JSON text of a handler's result: its output; a failure thrown. */
export declare function resultJson(answer: Answer): string;
/**
 * A call's request for `callNative`: packed into one number for a name of the registry, else
 * the `CallRequest` object (user tools, unknown names). The door's flags are computed here only.
 */
export declare function requestFor(door: "invoke" | "tools", name: string, facts: {
    registered: boolean;
    isWriteOp: boolean;
    runBuiltIn: boolean;
    approved?: boolean;
}): CallRequest | number;
