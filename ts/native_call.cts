// The one native entry of every tool call (binding.d.ts, `callTool`) and what a handler makes of
// its answer.

import type { CallRequest, Outcome as NativeOutcome } from "../binding.js";
import { contextHandle } from "./context.cjs";
import { internalError, refused, toolError } from "./errors.cjs";
import { builtInCatalog, loadNative } from "./native.cjs";
import { sessionResult, todoStore } from "./todo_state.cjs";
import type { ToolContext } from "./types.cjs";

const native = loadNative();

/**
 * What a native call answers: a union discriminated by `kind` (binding.d.ts), or, for an `ok`
 * without a state change, its JSON text alone; a session tool's success is its result (`value`),
 * made on the JavaScript thread right after the call (todo_state.cts).
 */
export type Outcome = NativeOutcome;
export type SessionValue = { kind: "value"; value: unknown };
export type Answer = string | Outcome | SessionValue;

export const messageOfOutcome = (outcome: Answer) => (outcome as { message: string }).message;

/** The built-in tools that keep their state on the context (`context.todo`). */
const sessionTools = new Set<string>(builtInCatalog().flatMap((entry) => (entry.session ? [entry.name] : [])));

/**
 * The one native entry of a tool call (binding.d.ts, `callTool`): the request says which front
 * door; the context's task list (its `TodoStore`) is read by the session tools only, `process.env`
 * by the tools that start processes (Bun does not mirror run-time changes of `process.env` into
 * the C environment, so inheriting would miss them). Synchronous where the native side finishes
 * at once, as the session tools always do.
 */
export function callNative(request: CallRequest, context: ToolContext, args: unknown, signal?: AbortSignal): Answer | Promise<Answer> {
  if (!sessionTools.has(request.name)) return native.callTool(request, contextHandle(context), args, null, process.env, signal);
  const answer = native.callTool(request, contextHandle(context), args, todoStore(context), process.env, signal) as string | Outcome;
  if (typeof answer === "string" || answer.kind === "ok") return { kind: "value", value: sessionResult(context, request.name, answer) };
  return answer;
}

/**
 * A handler's result: its output (parsed), a session tool's result as it is; any other outcome
 * is the tool's error (or an internal one), thrown.
 */
export function resultValue(outcome: Answer): unknown {
  if (typeof outcome === "string") return JSON.parse(outcome);
  if (outcome.kind === "value") return outcome.value;
  return JSON.parse(resultJson(outcome));
}

/**
 * The JSON text of a handler's result: its output; any other outcome is the tool's error (or an
 * internal one), thrown.
 */
export function resultJson(outcome: Answer): string {
  if (typeof outcome === "string") return outcome;
  switch (outcome.kind) {
    case "value":
      return JSON.stringify(outcome.value);
    case "ok":
      return outcome.json;
    case "tool_error":
      throw refused(toolError(outcome.name, outcome.code, outcome.message), outcome.reason);
    default:
      throw internalError(messageOfOutcome(outcome));
  }
}
