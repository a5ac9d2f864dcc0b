// Tool contexts: `createToolContext`, and the native copy of a context each call hands over
// (kept per context while it stays the same), with the read ledger of a toolkit with edit_file.

import { platform, release } from "node:os";
import type { AllowedToolName, OptInToolName } from "../types/tools.js";
import { loadNative } from "./native.cjs";
import type { ExecOptions, FileAccessMode, PermissionRules, SecurityPolicyConfig, ToolContext, ToolPolicy } from "./types.cjs";

const native = loadNative();

/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
export const createToolContext = function createToolContext<const TUserToolName extends string = never>(params: {
  workspaceRoot: string;
  writeScope?: FileAccessMode;
  policy?: SecurityPolicyConfig<AllowedToolName | OptInToolName | NoInfer<TUserToolName>>;
  exec?: ExecOptions;
  searchCacheBytes?: number;
  permissions?: PermissionRules;
}): ToolContext {
  const problem = params.permissions === undefined ? null : native.permissionsProblem(params.permissions);
  if (problem !== null) throw new TypeError(`createToolContext: ${problem}`);
  const context: ToolContext = {
    workspaceRoot: params.workspaceRoot,
    writeScope: params.writeScope ?? "workspace-write",
    policy: (params.policy ?? { tools: {}, defaultPolicy: "deny" }) as ToolPolicy,
    env: { platform: platform(), osRelease: release() },
  };
  // Only when given: a context without it has exactly agent-tools-ts's fields.
  if (params.exec !== undefined) context.exec = params.exec;
  if (params.searchCacheBytes !== undefined) context.searchCacheBytes = params.searchCacheBytes;
  if (params.permissions !== undefined) context.permissions = params.permissions;
  return context;
};

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
type ContextHandle = ReturnType<typeof native.contextHandle>;
type ReadLedger = ReturnType<typeof native.newReadLedger>;
type ProcessTable = ReturnType<typeof native.newProcessTable>;
/** A toolkit's undo journal and syntax check (`editHooksFor`). */
export type EditHooks = ReturnType<typeof native.newEditHooks>;
type CachedHandle = { key: unknown[]; handle: ContextHandle; reads: ReadLedger | undefined; processes: ProcessTable | undefined };
/** The native copies of each context, one per toolkit settings of the journal and syntax check. */
const contextHandles = new WeakMap<object, Map<EditHooks | undefined, CachedHandle>>();
/**
 * The read ledger of each context a toolkit with edit_file serves: what the context read or wrote
 * through the toolkit (content fingerprints by real path, kept natively), for edit_file's
 * stale-read guard. Kept beside the context, not on it, so the context object keeps its shape.
 */
export const readLedgers = new WeakMap<object, ReadLedger>();

/**
 * The process table of each context a toolkit with the process tools serves: the processes its
 * calls started (kept natively). It goes with the context: garbage-collected, it ends them all;
 * `toolkit.close()` ends them and waits.
 */
export const processTables = new WeakMap<object, ProcessTable>();

/**
 * The undo journal and the syntax check of the toolkits with `checkpoints` or `syntaxCheck`
 * (kept natively): each toolkit's calls use its own settings, and the toolkits over one context
 * with the same settings share one (so what the context's processes change is recorded once).
 */
const editHooksByContext = new WeakMap<object, Map<string, EditHooks>>();

/** The journal and syntax check of a toolkit over `context` with these (checked) settings. */
export function editHooksFor(context: ToolContext, checkpoints: CheckpointSettings | undefined, syntaxCheck: "report" | "reject" | undefined): EditHooks | undefined {
  if (checkpoints === undefined && syntaxCheck === undefined) return undefined;
  const settings = JSON.stringify([checkpoints, syntaxCheck]);
  let byContext = editHooksByContext.get(context);
  if (byContext === undefined) {
    byContext = new Map();
    editHooksByContext.set(context, byContext);
  }
  let hooks = byContext.get(settings);
  if (hooks === undefined) {
    // The user's state directory is placed by the environment as this program sees it.
    const env = process.env as Record<string, string>;
    hooks = native.newEditHooks(checkpoints === undefined ? undefined : { ...checkpoints, env }, syntaxCheck);
    byContext.set(settings, hooks);
  }
  return hooks;
}

/** `createAgentToolkit`'s `checkpoints` option, checked. */
export type CheckpointSettings = { dir?: string; maxBytes?: number; maxCheckpoints?: number };

/**
 * The native copy of `context` for a call of a toolkit whose journal and syntax check are
 * `edits`. Kept per context while the fields the native side reads are plain values (strings,
 * and a whole-number `searchCacheBytes`) and made anew whenever one of them changes, so a policy
 * edited between calls applies at once; a context with `exec` or with any other value there is
 * read afresh for every call.
 */
export function contextHandle(context: ToolContext, edits: EditHooks | undefined): ContextHandle {
  const reads = readLedgers.get(context);
  const processes = processTables.get(context);
  let byEdits = contextHandles.get(context);
  const cached = byEdits?.get(edits);
  // The fields compared one by one with the key kept: no key is made while they stay the same.
  if (cached !== undefined && cached.reads === reads && cached.processes === processes && sameKey(cached.key, context)) {
    return cached.handle;
  }
  const key = contextKey(context);
  const handle = native.contextHandle(context, reads, processes, edits);
  if (key === null) return handle;
  if (byEdits === undefined) {
    byEdits = new Map();
    contextHandles.set(context, byEdits);
  }
  byEdits.set(edits, { key, handle, reads, processes });
  return handle;
}

/**
 * The fields of `context` the native side reads, as a list of plain values (the policy's entries
 * flattened); null unless they are plain strings.
 */
function contextKey(context: ToolContext): unknown[] | null {
  const { workspaceRoot, writeScope, policy, env, exec, searchCacheBytes, permissions } = context as Record<keyof ToolContext, unknown>;
  if (typeof workspaceRoot !== "string" || typeof writeScope !== "string" || !isRecord(policy) || !isRecord(env)) return null;
  // Nor `permissions`: a context with rules is read afresh, so an edited rule applies at once.
  if (permissions !== undefined) return null;
  if (searchCacheBytes !== undefined && !Number.isSafeInteger(searchCacheBytes)) return null;
  // The key has no `exec` (exec_command's OS sandbox): a context that sets it is read afresh.
  if (exec !== undefined) return null;
  const { tools, defaultPolicy } = policy;
  const { platform } = env;
  if (typeof defaultPolicy !== "string" || typeof platform !== "string" || !isRecord(tools)) return null;
  const key: unknown[] = [workspaceRoot, writeScope, defaultPolicy, platform, searchCacheBytes];
  for (const entry of Object.entries(tools)) {
    if (typeof entry[1] !== "string") return null;
    key.push(entry[0], entry[1]);
  }
  return key;
}

/** True when `context`'s fields are still those of `key` (a `contextKey` result). */
function sameKey(key: unknown[], context: ToolContext): boolean {
  const { workspaceRoot, writeScope, policy, env, exec, searchCacheBytes, permissions } = context as Record<keyof ToolContext, unknown>;
  if (workspaceRoot !== key[0] || writeScope !== key[1] || exec !== undefined || permissions !== undefined || !isRecord(policy) || !isRecord(env)) return false;
  if (searchCacheBytes !== key[4]) return false;
  const { tools, defaultPolicy } = policy;
  if (defaultPolicy !== key[2] || env.platform !== key[3] || !isRecord(tools)) return false;
  let at = 5;
  for (const name of Object.keys(tools)) {
    if (name !== key[at] || tools[name] !== key[at + 1]) return false;
    at += 2;
  }
  return at === key.length;
}
