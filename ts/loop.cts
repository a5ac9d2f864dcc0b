// The tool loop (README, "The tool loop"): send with tools → read the stop reason → run the calls →
// send the results → repeat. It lives in JavaScript because every step calls the user's JavaScript
// (the model session, the review hook, user tools); the tools themselves run natively, off the
// JavaScript thread, so read-only calls of a turn really run in parallel on the worker pool.

import type { AgentToolkit, ExecSandbox } from "./types.cjs";
import { abortError, isAbort, messageOf } from "./errors.cjs";
import { builtInCatalog, type CatalogEntry, optInCatalog } from "./native.cjs";

/** Any toolkit of createAgentToolkit: with any user tools, and any opt-in tools enabled. */
// biome-ignore lint/suspicious/noExplicitAny: any toolkit, whatever user or opt-in tools it has
export type AnyToolkit = AgentToolkit<any> | { tools: object; invoke: (name: any, args: any) => Promise<any>; getAllowedTools: () => unknown[] };

// ---- public types ---------------------------------------------------------------------------------

/** Why a model response stopped (provider-specific reasons as `{ other }`). */
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | { other: string };

export type LlmContentBlock =
  | { type: "text"; text: string }
  /** `input` is an object, or JSON text as some providers send it. */
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> | string };

export type LlmResponse = { content: LlmContentBlock[]; stopReason: StopReason | string; model?: string };

/**
 * One call's result as the loop sends it back (not named `ToolResultMessage`: that name is the
 * provider adapters' chat message `{ role: "tool", ... }`).
 */
export type LoopToolResult = {
  tool_use_id: string;
  tool_name: string;
  output: string;
  is_error: boolean;
  is_rejected: boolean;
};

/** A streamed tool-call fragment (`StreamEvent::ToolCallDelta`). */
export type ToolCallDelta = { type: "tool_call_delta"; index: number; id?: string; name?: string; arguments_delta?: string };
export type SessionEvent = { type: "text_delta"; text: string } | ToolCallDelta;
export type SessionSendOptions = { signal?: AbortSignal; emit(event: SessionEvent): void };

/** The model side of the loop, implemented over any provider. */
export interface LlmSession {
  sendWithTools(prompt: string, tools: ReadonlyArray<AnyToolDefinition>, options: SessionSendOptions): Promise<LlmResponse>;
  sendToolResults(results: LoopToolResult[], options: SessionSendOptions): Promise<LlmResponse>;
}

/** Any tool definition the loop offers (built-ins' readonly literals and user tools' alike). */
export type AnyToolDefinition = {
  readonly type: "function";
  readonly function: { readonly name: string; readonly description: string; readonly parameters: unknown; readonly strict?: boolean };
};

export type ReviewRequest = {
  id: string;
  name: string;
  args: unknown;
  preview:
    | { kind: "write_file"; path: unknown; content: unknown }
    | { kind: "apply_patch"; path: unknown; patch: unknown }
    | { kind: "exec_command"; cwd: unknown; command: unknown }
    | { kind: "tool"; args: unknown };
  /**
   * exec_command only, when the toolkit's `context.exec.sandbox` is on: the OS sandbox the
   * command will run under (as the result's `sandbox` field reports it), so a host can approve
   * sandboxed commands without asking, e.g. `sandbox?.kind === "landlock" && sandbox.write !==
   * "all"`.
   */
  sandbox?: ExecSandbox;
};
export type ReviewDecision =
  | { decision: "approve" }
  | { decision: "reject"; reason?: string }
  | { decision: "edit"; args: unknown };

export type LoopStopReason = "end_turn" | "max_tokens" | "max_tool_turns" | "aborted" | "done" | { other: string };

export type LoopMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: LlmContentBlock[] }
  | { role: "tool"; results: LoopToolResult[] };

export type TurnRecord = {
  turn: number;
  stopReason: StopReason;
  calls: Array<{ id: string; name: string; args: unknown; started_at: number; duration_ms: number; is_error: boolean; is_rejected: boolean }>;
};

export type ToolLoopResult = { text: string; stopReason: LoopStopReason; messages: LoopMessage[]; turns: TurnRecord[] };

export type LoopEvent =
  | { type: "turn_start"; turn: number }
  | { type: "text_delta"; text: string }
  | ToolCallDelta
  | { type: "response"; turn: number; stopReason: StopReason; text: string; toolCalls: Array<Extract<LlmContentBlock, { type: "tool_use" }>> }
  | ({ type: "review_request" } & ReviewRequest)
  | { type: "review_decision"; id: string; name: string; decision: ReviewDecision }
  | { type: "tool_start"; id: string; name: string; args: unknown }
  | { type: "tool_finish"; id: string; name: string; duration_ms: number; is_error: boolean; is_rejected: boolean }
  | { type: "turn_end"; turn: number; results: LoopToolResult[] }
  | { type: "completed"; result: ToolLoopResult };

export type ToolLoopOptions = {
  session: LlmSession;
  toolkit: AnyToolkit;
  prompt: string;
  /** Turns with tool calls before the loop stops (default 10). */
  maxToolTurns?: number;
  /** Asked before each write-class call (write_file, apply_patch, exec_command, the opt-in edit_file and apply_patches, user tools with `writes`). */
  review?: (request: ReviewRequest) => ReviewDecision | Promise<ReviewDecision>;
  /** Aborts the whole loop; every call still gets a result ("Cancelled: ..."). */
  signal?: AbortSignal;
  /** Per-call time limit; a late call becomes an error result. */
  toolTimeoutMs?: number;
  /** The tool definitions offered (default: `toolkit.getAllowedTools()`). */
  tools?: ReadonlyArray<AnyToolDefinition>;
  onEvent?: (event: LoopEvent) => void;
};

/** What the loop needs of a toolkit (loop_runtime.cts makes it). */
export type LoopRuntime = {
  definitions(): ReadonlyArray<AnyToolDefinition>;
  has(name: string): boolean;
  userTool(name: string): { writes: boolean } | undefined;
  /** What an exec_command call would be sandboxed with now (undefined: the option is off). */
  execSandbox(): ExecSandbox | undefined;
  /** The permission rules' decision on a call (null: none decides; the policy does). */
  permission(name: string, args: unknown): { decision: string; because: string } | null;
  /** The call's output as the model sees it; `approved`: a review approved it. */
  output(name: string, args: unknown, ctx: { signal?: AbortSignal; approved?: boolean }): Promise<string>;
};

type ToolUse = Extract<LlmContentBlock, { type: "tool_use" }>;
type CallRecord = TurnRecord["calls"][number];
type Emit = (event: LoopEvent) => void;

// ---- helpers ----------------------------------------------------------------------------------------

/**
 * Each built-in tool's effect and review fields, from the native registry (the one list); the
 * opt-in tools' too (a loop sees them only when its toolkit enabled them).
 */
const BUILT_IN = new Map([...builtInCatalog(), ...optInCatalog()].map((tool) => [tool.name, tool]));

/**
 * The effect class of a tool: `read` (parallel), `write` and `exec` (sequential, reviewed) or
 * `state` (sequential, not reviewed: the todo tools that change the session's task list). A
 * user tool is `write` when defined with `writes: true`, else `read`.
 */
export function effectClass(name: string, userTool: { writes: boolean } | undefined): CatalogEntry["effect"] {
  const builtIn = BUILT_IN.get(name);
  if (builtIn) return builtIn.effect;
  if (userTool) return userTool.writes ? "write" : "read";
  return "state";
}

/** True for the effects a review hook sees before the call runs. */
export const isReviewed = (effect: CatalogEntry["effect"]) => effect === "write" || effect === "exec";

const STOP_REASONS = new Set(["end_turn", "tool_use", "max_tokens"]);

/** `{ other: "..." }` for provider-specific stop reasons, the string otherwise. */
export function normaliseStopReason(reason: unknown): StopReason {
  if (typeof reason === "string" && STOP_REASONS.has(reason)) return reason as StopReason;
  if (reason && typeof reason === "object" && typeof (reason as { other?: unknown }).other === "string") return reason as { other: string };
  return { other: String(reason) };
}

export function toolUses(response: LlmResponse): ToolUse[] {
  return (response.content ?? []).filter((block): block is ToolUse => block && block.type === "tool_use");
}

export function textOf(response: LlmResponse): string {
  return (response.content ?? [])
    .filter((b): b is Extract<LlmContentBlock, { type: "text" }> => b && b.type === "text")
    .map((b) => b.text)
    .join("");
}

/** A tiny async queue: `push` events, iterate them with `for await`. */
export class EventQueue<T> {
  items: T[] = [];
  waiters: Array<(result: IteratorResult<T>) => void> = [];
  closed = false;

  push(event: T): void {
    if (this.closed) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter({ value: event, done: false });
    else this.items.push(event);
  }
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter({ value: undefined, done: true });
  }
  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.items.length) return Promise.resolve({ value: this.items.shift() as T, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiters.push(resolve));
      },
    };
  }
}

/** What the tool loop (and a toolkit call) rejects with when its signal fires. */
export const loopAborted = () => abortError("the tool loop was aborted");

/** Rejects when `signal` aborts or `ms` passes; resolves with `work` otherwise. */
export function bounded<T>(
  work: T | PromiseLike<T>,
  { signal, ms, onTimeout }: { signal?: AbortSignal; ms?: number; onTimeout?: () => unknown },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      cleanup();
      reject(loopAborted());
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (ms !== undefined) {
      timer = setTimeout(() => {
        cleanup();
        reject(onTimeout?.());
      }, ms);
    }
    Promise.resolve(work).then(
      (v) => {
        cleanup();
        resolve(v);
      },
      (e) => {
        cleanup();
        reject(e);
      },
    );
  });
}

// ---- the loop ---------------------------------------------------------------------------------------

/**
 * Builds `runToolLoop` / `streamToolLoop` over a toolkit accessor (`runtimeOf(toolkit)`, which
 * throws a TypeError for anything but a toolkit of createAgentToolkit).
 */
export function makeToolLoop(runtimeOf: (toolkit: AnyToolkit) => LoopRuntime) {
  async function run(options: ToolLoopOptions, emit: Emit): Promise<ToolLoopResult> {
    const { session, toolkit, prompt, maxToolTurns = 10, review, signal, toolTimeoutMs } = (options ?? {}) as Partial<ToolLoopOptions>;
    if (!session || typeof session.sendWithTools !== "function" || typeof session.sendToolResults !== "function") {
      throw new TypeError("runToolLoop: session must implement sendWithTools and sendToolResults");
    }
    if (!Number.isInteger(maxToolTurns) || maxToolTurns < 1) throw new TypeError("runToolLoop: maxToolTurns must be an integer >= 1");
    const rt = runtimeOf(toolkit as ToolLoopOptions["toolkit"]);
    const tools = options.tools ?? rt.definitions();
    const sendOptions: SessionSendOptions = { signal, emit: (event) => emit(event) };
    const messages: LoopMessage[] = [{ role: "user", content: prompt as string }];
    const turns: TurnRecord[] = [];
    const finish = (stopReason: LoopStopReason, response?: LlmResponse): ToolLoopResult => {
      const result = { text: response ? textOf(response) : "", stopReason, messages, turns };
      emit({ type: "completed", result });
      return result;
    };

    let response: LlmResponse;
    try {
      emit({ type: "turn_start", turn: 1 });
      response = await bounded(session.sendWithTools(prompt as string, tools, sendOptions), { signal });
    } catch (error) {
      if (isAbort(error)) return finish("aborted");
      throw error;
    }
    for (let turn = 1; ; turn++) {
      const stopReason = normaliseStopReason(response.stopReason);
      const calls = toolUses(response);
      messages.push({ role: "assistant", content: response.content ?? [] });
      emit({ type: "response", turn, stopReason, text: textOf(response), toolCalls: calls });
      // A turn cut off by the token limit never runs its (possibly truncated) calls.
      if (stopReason === "max_tokens") return finish("max_tokens", response);
      // Calls decide, not the label: some providers say "stop" while returning calls.
      if (calls.length === 0) return finish(stopReason === "tool_use" ? "end_turn" : stopReason, response);
      if (turn > maxToolTurns) return finish("max_tool_turns", response);

      const record: TurnRecord = { turn, stopReason, calls: [] };
      turns.push(record);
      const results = await runTurn(rt, calls, { review, signal, toolTimeoutMs, emit, record });
      messages.push({ role: "tool", results });
      emit({ type: "turn_end", turn, results });
      if (signal?.aborted) return finish("aborted", response);
      if (calls.some((c) => c.name === "done") && results.some((r) => r.tool_name === "done" && !r.is_error)) {
        return { ...finish("done", response), text: (results.find((r) => r.tool_name === "done") as LoopToolResult).output };
      }
      try {
        emit({ type: "turn_start", turn: turn + 1 });
        response = await bounded(session.sendToolResults(results, sendOptions), { signal });
      } catch (error) {
        if (isAbort(error)) return finish("aborted");
        throw error;
      }
    }
  }

  type TurnOptions = Pick<ToolLoopOptions, "review" | "signal" | "toolTimeoutMs"> & { emit: Emit; record: TurnRecord };

  /** Runs one turn's calls: read-only ones in parallel, then the others one by one (reviewed). */
  async function runTurn(rt: LoopRuntime, calls: ToolUse[], { review, signal, toolTimeoutMs, emit, record }: TurnOptions): Promise<LoopToolResult[]> {
    const results = new Array<LoopToolResult>(calls.length);
    const cancelled = (call: ToolUse): LoopToolResult => ({
      tool_use_id: call.id,
      tool_name: call.name,
      output: "Cancelled: the tool loop was aborted before this call ran",
      is_error: true,
      is_rejected: false,
    });

    const execute = async (call: ToolUse, index: number, args: unknown, approved = false) => {
      const started = Date.now();
      emit({ type: "tool_start", id: call.id, name: call.name, args });
      let result: LoopToolResult;
      try {
        const output = await bounded(rt.output(call.name, args, { signal, approved }), {
          signal,
          ms: toolTimeoutMs,
          onTimeout: () => new Error(`timed out after ${toolTimeoutMs} ms`),
        });
        result = { tool_use_id: call.id, tool_name: call.name, output, is_error: false, is_rejected: false };
      } catch (error) {
        result = isAbort(error)
          ? cancelled(call)
          : { tool_use_id: call.id, tool_name: call.name, output: `Error executing tool: ${messageOf(error)}`, is_error: true, is_rejected: false };
      }
      const duration_ms = Date.now() - started;
      emit({ type: "tool_finish", id: call.id, name: call.name, duration_ms, is_error: result.is_error, is_rejected: false });
      record.calls[index] = { id: call.id, name: call.name, args, started_at: started, duration_ms, is_error: result.is_error, is_rejected: false };
      results[index] = result;
    };

    const parsed = calls.map((call) => parseInput(call));
    const readIdx: number[] = [];
    const laterIdx: number[] = [];
    // Calls a permission rule asks about: reviewed whatever their effect (read ones too).
    const asks = new Set<number>();
    calls.forEach((call, i) => {
      const { error, args } = parsed[i] as ParsedInput;
      if (error || !rt.has(call.name)) {
        const output = error ?? `Error executing tool: unknown tool: ${call.name}`;
        results[i] = { tool_use_id: call.id, tool_name: call.name, output, is_error: true, is_rejected: false };
        record.calls[i] = rejectedCall(call, null, { is_error: true, is_rejected: false });
        return;
      }
      if (review && rt.permission(call.name, args)?.decision === "ask") asks.add(i);
      if (effectClass(call.name, rt.userTool(call.name)) === "read" && !asks.has(i)) readIdx.push(i);
      else laterIdx.push(i);
    });

    await Promise.all(readIdx.map((i) => execute(calls[i] as ToolUse, i, (parsed[i] as ParsedInput).args)));
    for (const i of laterIdx) {
      const call = calls[i] as ToolUse;
      if (signal?.aborted) {
        results[i] = cancelled(call);
        continue;
      }
      let args = (parsed[i] as ParsedInput).args;
      if (review && (asks.has(i) || isReviewed(effectClass(call.name, rt.userTool(call.name))))) {
        const request = reviewRequest(rt, call.id, call.name, args);
        emit({ type: "review_request", ...request });
        const verdict = await askReview(review, request, signal);
        if ("aborted" in verdict) {
          results[i] = cancelled(call);
          continue;
        }
        emit({ type: "review_decision", id: call.id, name: call.name, decision: verdict.decision });
        if ("rejected" in verdict) {
          results[i] = { tool_use_id: call.id, tool_name: call.name, output: verdict.rejected, is_error: false, is_rejected: true };
          record.calls[i] = rejectedCall(call, args, { is_error: false, is_rejected: true });
          continue;
        }
        args = verdict.run;
      }
      // An approval covers the call as the reviewer left it (edited or not).
      await execute(call, i, args, asks.has(i));
    }
    for (let i = 0; i < calls.length; i++) if (!results[i]) results[i] = cancelled(calls[i] as ToolUse);
    return results;
  }

  function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
    return run(options, (event) => options?.onEvent?.(event));
  }

  /** The loop as an async iterator of events; `.result` resolves with the loop's result. */
  function streamToolLoop(options: ToolLoopOptions): AsyncIterable<LoopEvent> & { result: Promise<ToolLoopResult> } {
    const queue = new EventQueue<LoopEvent>();
    const result = run(options, (event) => {
      options?.onEvent?.(event);
      queue.push(event);
    }).finally(() => queue.close());
    result.catch(() => {});
    return { [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](), result };
  }

  return { runToolLoop, streamToolLoop };
}

/** `get()`, or undefined when it throws. */
function attempt<T>(get: () => T): T | undefined {
  try {
    return get();
  } catch {
    return undefined;
  }
}

/** The record of a call that did not run (its arguments were bad, or a review rejected it). */
function rejectedCall(call: ToolUse, args: unknown, flags: { is_error: boolean; is_rejected: boolean }): CallRecord {
  return { id: call.id, name: call.name, args, started_at: Date.now(), duration_ms: 0, ...flags };
}

type ParsedInput = { args?: unknown; error?: string };

/** A call's input as an object: providers give an object or a JSON string. */
function parseInput(call: ToolUse): ParsedInput {
  const parsed = parseArguments(call.input);
  return "error" in parsed ? { error: `Error executing tool: ${parsed.error}` } : parsed;
}

/**
 * A call's arguments as an object: providers and frameworks hand over an object or JSON text;
 * none (`undefined`, `null`, `""`) is `{}`. The one parser of the loop, the adapters and the
 * tools' `executeRaw`.
 */
export function parseArguments(input: unknown): { args: unknown } | { error: string } {
  if (input === undefined || input === null || input === "") return { args: {} };
  if (typeof input !== "string") return { args: input };
  try {
    return { args: JSON.parse(input) };
  } catch (error) {
    return { error: `invalid JSON arguments: ${(error as Error).message}` };
  }
}

/** What the review hook is shown of a call: its preview, and for exec_command the OS sandbox it would run under. */
export function reviewRequest(rt: Pick<LoopRuntime, "userTool" | "execSandbox">, id: string, name: string, args: unknown): ReviewRequest {
  const request: ReviewRequest = { id, name, args, preview: preview(name, args) };
  if (name === "exec_command" && !rt.userTool(name)) {
    // A malformed context.exec leaves it out: the call itself then fails with INVALID_ARGUMENT.
    const sandbox = attempt(() => rt.execSandbox());
    if (sandbox !== undefined) request.sandbox = sandbox;
  }
  return request;
}

/**
 * Asks the review hook about a call — the one way runToolLoop and the adapters do — and says
 * what to run (the arguments as approved or edited), or the text the model reads of a rejection
 * (a hook that throws, or gives no decision, rejects). `aborted`: `signal` fired meanwhile.
 */
export async function askReview(
  review: NonNullable<ToolLoopOptions["review"]>,
  request: ReviewRequest,
  signal: AbortSignal | undefined,
): Promise<{ run: unknown; decision: ReviewDecision } | { rejected: string; decision: ReviewDecision } | { aborted: true }> {
  let decision: ReviewDecision;
  try {
    decision = await bounded(review(request), { signal });
  } catch (error) {
    if (isAbort(error) || signal?.aborted) return { aborted: true };
    decision = { decision: "reject", reason: `review failed: ${messageOf(error)}` };
  }
  if (decision?.decision === "reject") return { rejected: `Rejected by review: ${decision.reason ?? "no reason given"}`, decision };
  if (decision?.decision === "edit") return { run: decision.args, decision };
  if (decision?.decision === "approve") return { run: request.args, decision };
  return { rejected: "Rejected by review: the review hook gave no decision", decision };
}

/** What a reviewer sees of a change: the built-in's review fields, or all arguments of a user tool. */
export function preview(name: string, args: unknown): ReviewRequest["preview"] {
  const fields = BUILT_IN.get(name)?.reviewFields ?? [];
  if (fields.length === 0) return { kind: "tool", args };
  const values = args as Record<string, unknown> | null | undefined;
  return { kind: name, ...Object.fromEntries(fields.map(([key, argument]) => [key, values?.[argument]])) } as ReviewRequest["preview"];
}
