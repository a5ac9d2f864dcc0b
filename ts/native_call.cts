// The one native entry of every tool call (binding.d.ts, `callTool`) and what a handler makes of
// its answer.

import type { CallRequest, Outcome as NativeOutcome } from "../binding.js";
import { contextHandle, type EditHooks } from "./context.cjs";
import { SecurityBypass } from "./bypass.cjs";
import { InvokeToolError, internalError, refused, toolError } from "./errors.cjs";
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
 * object) says which front door; `edits` are the calling toolkit's journal and syntax check;
 * the context's task list (its `TodoStore`) is read by the session tools only, `process.env` by
 * the tools that start processes (Bun does not mirror run-time changes of `process.env` into the
 * C environment, so inheriting would miss them).
 * Synchronous where the native side finishes at once, as the session tools always do.
 */
export function callNative(request: CallRequest | number, name: string, context: ToolContext, args: unknown, edits: EditHooks | undefined, signal?: AbortSignal): Answer | Promise<Answer> {
  if (!sessionTools.has(name)) return native.callTool(request, contextHandle(context, edits), args, null, process.env, signal);
  const answer = native.callTool(request, contextHandle(context, edits), args, todoStore(context), process.env, signal) as string | Outcome;
  if (typeof answer === "string" || answer.kind === "ok") return { kind: "value", value: sessionResult(context, name, answer) };
  return answer;
}

/** A native answer that failed: every `Outcome` but `ok` and `prepared`. */
export type Failed = Exclude<Outcome, { kind: "ok" } | { kind: "prepared" }>;

/**
 * The one reading of a native answer, for every door: what the call produced — `json` (a tool's
 * output as JSON text), `value` (a session tool's result), `args` (the positional arguments for
 * a replaced handler) — or the outcome that `failed`, which each door renders in its own form
 * (thrown: `thrownBy`; a `toolkit.tools` envelope: toolkit.cts).
 */
export type Settled = { json: string } | { value: unknown } | { args: unknown[] } | { failed: Failed };

export function settle(answer: Answer): Settled {
  if (typeof answer === "string") return { json: answer };
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
export function thrownBy(door: "invoke" | "handler", failed: Failed, toolName: string): Error {
  switch (failed.kind) {
    case "tool_error":
      return refused(toolError(failed.name, failed.code, failed.message, failed.details, failed.textAt), failed.reason);
    case "invoke_error":
      if (door === "invoke") return refused(new InvokeToolError(failed.code, failed.message, { tool_name: toolName }), failed.reason);
      break;
    case "plain_error":
      if (door === "invoke") return refused(new Error(failed.message), failed.reason);
      break;
  }
  return door === "invoke" ? new InvokeToolError("INTERNAL", failed.message, { tool_name: toolName }) : internalError(failed.message);
}

/** A handler's result: its output (parsed), a session tool's result as it is; a failure thrown. */
export function resultValue(answer: Answer): unknown {
  const settled = settle(answer);
  if ("value" in settled) return settled.value;
  return JSON.parse(resultJson(answer));
}

/** The JSON text of a handler's result: its output; a failure thrown. */
export function resultJson(answer: Answer): string {
  const settled = settle(answer);
  if ("json" in settled) return settled.json;
  if ("value" in settled) return JSON.stringify(settled.value);
  if ("failed" in settled) throw thrownBy("handler", settled.failed, "");
  throw internalError("a handler's call was prepared for a replaced handler");
}

/**
 * A call's request for `callNative`: packed into one number for a name of the registry, else
 * the `CallRequest` object (user tools, unknown names). The door's flags are computed here only.
 */
export function requestFor(
  door: "invoke" | "tools",
  name: string,
  facts: { registered: boolean; isWriteOp: boolean; runBuiltIn: boolean; approved?: boolean },
): CallRequest | number {
  const bypass = SecurityBypass.isEnabled();
  const { registered, isWriteOp, runBuiltIn, approved = false } = facts;
  const flags =
    (door === "invoke" ? DOOR_INVOKE | (registered ? REGISTERED : 0) : DOOR_TOOLS) |
    (isWriteOp ? IS_WRITE_OP : 0) |
    (bypass ? BYPASS : 0) |
    (runBuiltIn ? RUN_BUILT_IN : 0) |
    (approved ? APPROVED : 0);
  const packed = packCall(name, flags);
  if (packed !== undefined) return packed;
  return door === "invoke" ? { door, name, registered, isWriteOp, bypass, runBuiltIn, approved } : { door, name, isWriteOp, bypass, runBuiltIn };
}
