// Generated from ts/native_call.cts by `npm run build:ts`: edit that file, not this one.
import type { CallRequest, Outcome as NativeOutcome } from "../binding.js";
import type { ToolContext } from "./types.cjs";
/**
 * What a native call answers: a union discriminated by `kind` (binding.d.ts), or, for an `ok`
 * without a state change, its JSON text alone.
 */
export type Outcome = NativeOutcome;
export type Answer = string | Outcome;
export declare const messageOfOutcome: (outcome: Outcome) => string;
/**
 * The one native entry of a tool call (binding.d.ts, `callTool`): the request says which front
 * door; `state` is read by the session tools only, `process.env` by the tools that start
 * processes (Bun does not mirror run-time changes of `process.env` into the C environment, so
 * inheriting would miss them). Synchronous where the native side finishes at once.
 */
export declare function callNative(request: CallRequest, context: ToolContext, args: unknown, signal?: AbortSignal): Answer | Promise<Answer>;
/**
 * The JSON text of a handler's result: its output, with a session tool's change applied to
 * `context.todo`; any other outcome is the tool's error (or an internal one), thrown.
 */
export declare function resultJson(context: ToolContext, outcome: Answer): string;
