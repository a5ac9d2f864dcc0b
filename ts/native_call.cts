// The one native entry of every tool call (binding.d.ts, `callTool`) and what a handler makes of
// its answer.

import type { CallRequest, Outcome as NativeOutcome } from "../binding.js";
import { contextHandle } from "./context.cjs";
import { internalError, toolError } from "./errors.cjs";
import { builtInCatalog, loadNative } from "./native.cjs";
import { applyTodoChange, todoJson } from "./todo_state.cjs";
import type { ToolContext } from "./types.cjs";

const native = loadNative();

/**
 * What a native call answers: a union discriminated by `kind` (binding.d.ts), or, for an `ok`
 * without a state change, its JSON text alone.
 */
export type Outcome = NativeOutcome;
export type Answer = string | Outcome;

export const messageOfOutcome = (outcome: Outcome) => (outcome as { message: string }).message;

/** The built-in tools that keep their state on the context (`context.todo`). */
const sessionTools = new Set<string>(builtInCatalog().flatMap((entry) => (entry.session ? [entry.name] : [])));

/**
 * The one native entry of a tool call (binding.d.ts, `callTool`): the request says which front
 * door; `state` is read by the session tools only, `process.env` by the tools that start
 * processes (Bun does not mirror run-time changes of `process.env` into the C environment, so
 * inheriting would miss them). Synchronous where the native side finishes at once.
 */
export function callNative(request: CallRequest, context: ToolContext, args: unknown, signal?: AbortSignal): Answer | Promise<Answer> {
  const state = sessionTools.has(request.name) ? todoJson(context) : null;
  return native.callTool(request, contextHandle(context), args, state, process.env, signal);
}

/**
 * The JSON text of a handler's result: its output, with a session tool's change applied to
 * `context.todo`; any other outcome is the tool's error (or an internal one), thrown.
 */
export function resultJson(context: ToolContext, outcome: Answer): string {
  if (typeof outcome === "string") return outcome;
  switch (outcome.kind) {
    case "ok":
      if (outcome.change !== undefined) applyTodoChange(context, outcome.change);
      return outcome.json;
    case "tool_error":
      throw toolError(outcome.name, outcome.code, outcome.message);
    default:
      throw internalError(messageOfOutcome(outcome));
  }
}
