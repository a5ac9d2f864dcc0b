// Generated from ts/context.cts by `npm run build:ts`: edit that file, not this one.
import type { AllowedToolName, OptInToolName } from "../types/tools.js";
import type { ExecOptions, FileAccessMode, PermissionRules, SecurityPolicyConfig, ToolContext } from "./types.cjs";
declare const native: typeof import("../binding.js");
/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
export declare const createToolContext: <const TUserToolName extends string = never>(params: {
    workspaceRoot: string;
    writeScope?: FileAccessMode;
    policy?: SecurityPolicyConfig<AllowedToolName | OptInToolName | NoInfer<TUserToolName>>;
    exec?: ExecOptions;
    searchCacheBytes?: number;
    permissions?: PermissionRules;
}) => ToolContext;
type ContextHandle = ReturnType<typeof native.contextHandle>;
/** A toolkit's undo journal and syntax check (`editHooksFor`). */
export type EditHooks = ReturnType<typeof native.newEditHooks>;
/**
 * The read ledger of each context a toolkit with edit_file serves: what the context read or wrote
 * through the toolkit (content fingerprints by real path, kept natively), for edit_file's
 * stale-read guard. Kept beside the context, not on it, so the context object keeps its shape.
 */
export declare const readLedgers: WeakMap<object, import("../binding.js").ExternalObject<"ReadLedger">>;
/**
 * The process table of each context a toolkit with the process tools serves: the processes its
 * calls started (kept natively). It goes with the context: garbage-collected, it ends them all;
 * `toolkit.close()` ends them and waits.
 */
export declare const processTables: WeakMap<object, import("../binding.js").ExternalObject<"ProcessTable">>;
/** The journal and syntax check of a toolkit over `context` with these (checked) settings. */
export declare function editHooksFor(context: ToolContext, checkpoints: CheckpointSettings | undefined, syntaxCheck: "report" | "reject" | undefined): EditHooks | undefined;
/** `createAgentToolkit`'s `checkpoints` option, checked. */
export type CheckpointSettings = {
    dir?: string;
    maxBytes?: number;
    maxCheckpoints?: number;
};
/**
 * The native copy of `context` for a call of a toolkit whose journal and syntax check are
 * `edits`. Kept per context while the fields the native side reads are plain values (strings,
 * and a whole-number `searchCacheBytes`) and made anew whenever one of them changes, so a policy
 * edited between calls applies at once; a context with `exec` or with any other value there is
 * read afresh for every call.
 */
export declare function contextHandle(context: ToolContext, edits: EditHooks | undefined): ContextHandle;
export {};
