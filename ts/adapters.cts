// The core shared by the framework adapters (ai.cts, langchain.cts, openai_agents.cts,
// mastra.cts): each tool of a toolkit as a name, a description, a JSON Schema and a `run` that
// goes through the toolkit (policy, write scope, sandbox), asks the review hook before
// write-class calls as runToolLoop does, pages large outputs through an OutputCache and stops
// native work when the framework's abort signal fires. It loads no framework.

import type { OutputCache } from "../binding.js";
import { abortError, isAbort, preciseMessageOf } from "./errors.cjs";
import type { CatalogEntry } from "./native.cjs";
import {
  type AnyToolDefinition,
  type AnyToolkit,
  bounded,
  askReview,
  effectClass,
  isReviewed,
  parseArguments,
  type ReviewDecision,
  type ReviewRequest,
  reviewRequest,
} from "./loop.cjs";
import { loopRuntime } from "./loop_runtime.cjs";
import { toolkitState } from "./toolkit.cjs";
import { type AnyTool, outputCacheTools, toToolMessageContent } from "./user_tools.cjs";

/** The options every adapter takes (`toAISDKTools(toolkit, options)`, ...). */
export type FrameworkAdapterOptions = {
  /**
   * Asked before each write-class call (write_file, apply_patch, exec_command, the opt-in
   * edit_file and apply_patches, user tools with `writes`), exactly as runToolLoop's `review`:
   * approve, reject (the model reads "Rejected by review: <reason>") or edit the arguments.
   * Without it, write-class calls run as the policy allows them.
   */
  review?: (request: ReviewRequest) => ReviewDecision | Promise<ReviewDecision>;
  /**
   * Outputs longer than `maxOutputChars` are stored here and the model gets their first lines and
   * the ref id; the tool set then also holds `tool_output_cache` and `tool_output_cache_grep` to
   * page and search them (unless the toolkit registers them itself).
   */
  outputCache?: OutputCache;
  /** The longest output returned whole when `outputCache` is set (UTF-16 units, default 20 000). */
  maxOutputChars?: number;
  /** The tool definitions offered (default: `toolkit.getAllowedTools()`, the policy-allowed ones). */
  tools?: ReadonlyArray<AnyToolDefinition>;
  /**
   * Which calls wait for the framework's own approval (the AI SDK's and the OpenAI Agents SDK's
   * `needsApproval`): `"writes"` (the default: the `write` and `exec` effect classes), `"none"`,
   * or a function of the tool's name and input. A call a permission rule asks about always
   * waits. With `review`, the hook decides in-process instead and nothing waits.
   */
  approval?: Approval;
};

/** The `approval` option of the adapters. */
export type Approval = "writes" | "none" | ((toolName: string, input: unknown) => boolean | Promise<boolean>);

/**
 * The effect class of a tool, as runToolLoop schedules it: `read` runs at once, `write` and
 * `exec` are reviewed, every class but `read` runs one call at a time.
 */
export type ToolEffect = CatalogEntry["effect"];

/**
 * A call's outcome as the model reads it. `ok`: the output (a built-in's JSON text, a user tool's
 * text); `error`: "Error executing tool: ..." (policy denial, sandbox, bad arguments, the tool's
 * own error); `rejected`: "Rejected by review: ...". An abort is no outcome: `run` rejects with
 * an AbortError, the way each framework stops a run.
 */
export type AdapterOutcome = { status: "ok" | "error" | "rejected"; text: string };

export type AdapterTool = {
  name: string;
  description: string;
  /** The input's JSON Schema (an object schema). */
  parameters: Record<string, unknown>;
  effect: ToolEffect;
  /** Whether a call with this input waits for the framework's approval (the `approval` option). */
  needsApproval(input: unknown): Promise<boolean>;
  /**
   * Runs one call; `input` is the arguments object (or its JSON text). `approved`: the call
   * came through the framework's approval gate, which holds every call `needsApproval` says
   * waits (a permission rule that asks is then satisfied).
   */
  run(input: unknown, call?: { id?: string; signal?: AbortSignal; approved?: boolean }): Promise<AdapterOutcome>;
};

const DEFAULT_MAX_OUTPUT_CHARS = 20_000;
const PREVIEW_CHARS = 2_000;

/**
 * The optional peer an adapter needs (`load` requires it); missing, an Error that names the
 * adapter, the framework and the package to install.
 */
export function requirePeer<T>(adapter: string, framework: string, pkg: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    throw new Error(`${adapter} needs ${framework}: npm install ${pkg} (${(error as Error).message})`);
  }
}

/** The toolkit's tools (and the cache tools) as framework-neutral AdapterTools. */
export function adapterTools(toolkit: AnyToolkit, options: FrameworkAdapterOptions | undefined, caller: string): AdapterTool[] {
  if (!toolkitState.has(toolkit as object)) throw new TypeError(`${caller}: toolkit must be made by createAgentToolkit`);
  const { review, outputCache, maxOutputChars = DEFAULT_MAX_OUTPUT_CHARS, tools, approval = "writes" } = options ?? {};
  if (review !== undefined && typeof review !== "function") throw new TypeError(`${caller}: options.review must be a function`);
  if (approval !== "writes" && approval !== "none" && typeof approval !== "function") {
    throw new TypeError(`${caller}: options.approval must be "writes", "none" or a function`);
  }
  if (!Number.isInteger(maxOutputChars) || maxOutputChars < 1) throw new TypeError(`${caller}: options.maxOutputChars must be an integer >= 1`);
  if (outputCache !== undefined && (typeof outputCache?.record !== "function" || typeof outputCache?.read !== "function")) {
    throw new TypeError(`${caller}: options.outputCache must be an OutputCache`);
  }
  const rt = loopRuntime(toolkit);
  const definitions = tools ?? rt.definitions();
  // Calls of every class but `read` run one at a time, in the order they arrive (as the loop does).
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T,>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };
  let calls = 0;

  const page = (text: string): string => {
    if (!outputCache || text.length <= maxOutputChars) return text;
    const lines = linesOf(text);
    const { refId } = outputCache.record(lines);
    // The first lines, within half the limit (and PREVIEW_CHARS), so the message stays under it.
    const room = Math.min(PREVIEW_CHARS, Math.floor(maxOutputChars / 2));
    const cut = lines.lastIndexOf("\n", room);
    const head = `${lines.slice(0, cut > 0 ? cut : room)}\n…`;
    const count = lines.split("\n").length;
    return (
      `[output too long to return whole (${text.length} chars, ${count} lines); ref_id "${refId}": ` +
      `read it in pages with tool_output_cache or search it with tool_output_cache_grep. It starts with:]\n${head}`
    );
  };

  const make = (definition: AnyToolDefinition): AdapterTool => {
    const { name, description, parameters } = definition.function;
    const effect = effectClass(name, rt.userTool(name));
    const reviewed = review !== undefined && isReviewed(effect);
    const call = async (args: unknown, id: string, signal: AbortSignal | undefined, approved: boolean): Promise<AdapterOutcome> => {
      if (signal?.aborted) throw callAborted();
      let input = args;
      // A permission rule that asks: reviewed whatever the effect, and run as approved.
      const asks = review !== undefined && rt.permission(name, input)?.decision === "ask";
      if (reviewed || asks) {
        const verdict = await askReview(review as NonNullable<typeof review>, reviewRequest(rt, id, name, input), signal);
        if ("aborted" in verdict) throw callAborted();
        if ("rejected" in verdict) return { status: "rejected", text: verdict.rejected };
        input = verdict.run;
      }
      try {
        const output = await bounded(rt.output(name, input, { signal, approved: asks || approved }), { signal });
        return { status: "ok", text: page(output) };
      } catch (error) {
        if (isAbort(error) || signal?.aborted) throw callAborted();
        return { status: "error", text: `Error executing tool: ${preciseMessageOf(error)}` };
      }
    };
    return {
      name,
      description,
      // A plain JSON copy: zod's JSON Schema carries a hidden `~standard` member, which some
      // frameworks take for a Standard Schema.
      parameters: JSON.parse(JSON.stringify(parameters)) as Record<string, unknown>,
      effect,
      async needsApproval(input) {
        if (review !== undefined) return false;
        const parsed = parseArguments(input);
        if ("error" in parsed) return false;
        if (rt.permission(name, parsed.args)?.decision === "ask") return true;
        if (approval === "none") return false;
        if (approval === "writes") return isReviewed(effect);
        return (await approval(name, parsed.args)) === true;
      },
      run(input, { id, signal, approved = false } = {}) {
        const parsed = parseArguments(input);
        if ("error" in parsed) return Promise.resolve({ status: "error", text: `Error executing tool: ${parsed.error}` });
        const callId = id ?? `call-${++calls}`;
        return effect === "read" ? call(parsed.args, callId, signal, approved) : serial(() => call(parsed.args, callId, signal, approved));
      },
    };
  };

  const result = definitions.map(make);
  if (outputCache && !definitions.some((d) => d.function.name === "tool_output_cache")) {
    for (const tool of outputCacheTools(outputCache)) result.push(cacheTool(tool));
  }
  return result;
}

/** A cache tool the adapter adds itself: read-only, outside the policy (it reads only the cache). */
function cacheTool(tool: AnyTool): AdapterTool {
  const fn = tool.definition.function;
  return {
    name: tool.name,
    description: tool.description,
    parameters: JSON.parse(JSON.stringify(fn.parameters)) as Record<string, unknown>,
    effect: "read",
    needsApproval: async () => false,
    async run(input, { signal } = {}) {
      if (signal?.aborted) throw callAborted();
      const parsed = parseArguments(input);
      if ("error" in parsed) return { status: "error", text: `Error executing tool: ${parsed.error}` };
      const result = await tool.executeRaw(JSON.stringify(parsed.args), { signal });
      const content = toToolMessageContent(result);
      const text = typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
      return { status: result.is_error ? "error" : "ok", text };
    },
  };
}


/**
 * An output as lines to page: a built-in's JSON output is one line, so its value is written out
 * as indented `key: value` lines, multi-line strings (file contents, command output) line by
 * line. Text that is not JSON stays as it is.
 */
export function linesOf(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (value === null || typeof value !== "object") return text;
  const out: string[] = [];
  const write = (v: unknown, indent: string, label: string) => {
    if (typeof v === "string" && v.includes("\n")) {
      out.push(`${indent}${label}|`);
      for (const line of v.replace(/\n$/, "").split("\n")) out.push(`${indent}  ${line}`);
    } else if (Array.isArray(v) && v.length > 0) {
      if (label) out.push(`${indent}${label}`.trimEnd());
      for (const item of v) write(item, label ? `${indent}  ` : indent, "- ");
    } else if (v !== null && typeof v === "object" && Object.keys(v).length > 0) {
      if (label) out.push(`${indent}${label}`.trimEnd());
      const inner = label ? `${indent}  ` : indent;
      for (const [key, item] of Object.entries(v)) write(item, inner, `${key}: `);
    } else {
      out.push(`${indent}${label}${JSON.stringify(v)}`);
    }
  };
  write(value, "", "");
  return out.join("\n");
}


/** What `run` rejects with when the framework's signal fires. */
const callAborted = () => abortError("the tool call was aborted");
