// The one native entry of every tool call (binding.d.ts, `callTool`) and what a handler makes of
// its answer.

import type { CallRequest, Outcome as NativeOutcome } from "../binding.js";
import { contextHandle } from "./context.cjs";
import { internalError, refused, toolError } from "./errors.cjs";
import { builtInCatalog, loadNative, nativeCatalog } from "./native.cjs";
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
 * `callTool`'s request packed into one number (src/binding/mod.rs, `unpack_call`), which the
 * native side reads without a property lookup: the door in the low two bits, a bit per flag, the
 * tool's index in the registry from bit 8. Only for a name of the registry; the others (user
 * tools, unknown names) go as a `CallRequest` object.
 */
export const DOOR_INVOKE = 0;
export const DOOR_TOOLS = 1;
export const DOOR_HANDLER = 2;
export const REGISTERED = 1 << 2;
export const IS_WRITE_OP = 1 << 3;
export const BYPASS = 1 << 4;
export const RUN_BUILT_IN = 1 << 5;
/** Somebody approved this call: a permission rule that asks lets it through. */
export const APPROVED = 1 << 6;
const registryBase = new Map<string, number>();
for (const [index, entry] of nativeCatalog().entries()) if (!registryBase.has(entry.name)) registryBase.set(entry.name, index << 8);

/** The packed request of `name` through `door` with `flags`; undefined for a name not in the registry. */
export function packCall(name: string, doorAndFlags: number): number | undefined {
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
export function callNative(request: CallRequest | number, name: string, context: ToolContext, args: unknown, signal?: AbortSignal): Answer | Promise<Answer> {
  if (!sessionTools.has(name)) return native.callTool(request, contextHandle(context), args, null, process.env, signal);
  const answer = native.callTool(request, contextHandle(context), args, todoStore(context), process.env, signal) as string | Outcome;
  if (typeof answer === "string" || answer.kind === "ok") return { kind: "value", value: sessionResult(context, name, answer) };
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
      throw refused(toolError(outcome.name, outcome.code, outcome.message, outcome.details), outcome.reason);
    default:
      throw internalError(messageOfOutcome(outcome));
  }
}
