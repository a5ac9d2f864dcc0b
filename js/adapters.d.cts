// Generated from ts/adapters.cts by `npm run build:ts`: edit that file, not this one.
import type { OutputCache } from "../binding.js";
import type { CatalogEntry } from "./native.cjs";
import { type AnyToolDefinition, type AnyToolkit, type ReviewDecision, type ReviewRequest } from "./loop.cjs";
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
export type AdapterOutcome = {
    status: "ok" | "error" | "rejected";
    text: string;
};
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
    run(input: unknown, call?: {
        id?: string;
        signal?: AbortSignal;
        approved?: boolean;
    }): Promise<AdapterOutcome>;
};
/**
 * The optional peer an adapter needs (`load` requires it); missing, an Error that names the
 * adapter, the framework and the package to install.
 */
export declare function requirePeer<T>(adapter: string, framework: string, pkg: string, load: () => T): T;
/** The toolkit's tools (and the cache tools) as framework-neutral AdapterTools. */
export declare function adapterTools(toolkit: AnyToolkit, options: FrameworkAdapterOptions | undefined, caller: string): AdapterTool[];
/**
 * An output as lines to page: a built-in's JSON output is one line, so its value is written out
 * as indented `key: value` lines, multi-line strings (file contents, command output) line by
 * line. Text that is not JSON stays as it is.
 */
export declare function linesOf(text: string): string;
