// Generated from ts/context.cts by `npm run build:ts`: edit that file, not this one.
import type { AllowedToolName, OptInToolName } from "../types/tools.js";
import type { ExecOptions, FileAccessMode, SecurityPolicyConfig, ToolContext } from "./types.cjs";
declare const native: typeof import("../binding.js");
/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
export declare const createToolContext: <const TExtraToolName extends string = never>(params: {
    workspaceRoot: string;
    writeScope?: FileAccessMode;
    policy?: SecurityPolicyConfig<AllowedToolName | OptInToolName | NoInfer<TExtraToolName>>;
    exec?: ExecOptions;
    searchCacheBytes?: number;
}) => ToolContext;
type ContextHandle = ReturnType<typeof native.contextHandle>;
/**
 * The read ledger of each context a toolkit with edit_file serves: what the context read or wrote
 * through the toolkit (content fingerprints by real path, kept natively), for edit_file's
 * stale-read guard. Kept beside the context, not on it, so the context object keeps its shape.
 */
export declare const readLedgers: WeakMap<object, import("../binding.js").ExternalObject<"ReadLedger">>;
/**
 * The native copy of `context` for a call. Kept per context while the fields the checks read are
 * all plain strings, and made anew whenever one of them changes, so a policy edited between calls
 * applies at once; any other context is read afresh for every call.
 */
export declare function contextHandle(context: ToolContext): ContextHandle;
export {};
