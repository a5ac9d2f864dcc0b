// Tool contexts: `createToolContext`, and the native copy of a context each call hands over
// (kept per context while it stays the same), with the read ledger of a toolkit with edit_file.

import { platform, release } from "node:os";
import type { AllowedToolName, OptInToolName } from "../types/tools.js";
import { loadNative } from "./native.cjs";
import type { ExecOptions, FileAccessMode, SecurityPolicyConfig, ToolContext, ToolPolicy } from "./types.cjs";

const native = loadNative();

/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
export const createToolContext = function createToolContext<const TExtraToolName extends string = never>(params: {
  workspaceRoot: string;
  writeScope?: FileAccessMode;
  policy?: SecurityPolicyConfig<AllowedToolName | OptInToolName | NoInfer<TExtraToolName>>;
  exec?: ExecOptions;
  searchCacheBytes?: number;
}): ToolContext {
  const context: ToolContext = {
    workspaceRoot: params.workspaceRoot,
    writeScope: params.writeScope ?? "workspace-write",
    policy: (params.policy ?? { tools: {}, defaultPolicy: "deny" }) as ToolPolicy,
    env: { platform: platform(), osRelease: release() },
  };
  // Only when given: a context without it has exactly agent-tools-ts's fields.
  if (params.exec !== undefined) context.exec = params.exec;
  if (params.searchCacheBytes !== undefined) context.searchCacheBytes = params.searchCacheBytes;
  return context;
};

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
type ContextHandle = ReturnType<typeof native.contextHandle>;
type ReadLedger = ReturnType<typeof native.newReadLedger>;
const contextHandles = new WeakMap<object, { key: string; handle: ContextHandle; reads: ReadLedger | undefined }>();
/**
 * The read ledger of each context a toolkit with edit_file serves: what the context read or wrote
 * through the toolkit (content fingerprints by real path, kept natively), for edit_file's
 * stale-read guard. Kept beside the context, not on it, so the context object keeps its shape.
 */
export const readLedgers = new WeakMap<object, ReadLedger>();

/**
 * The native copy of `context` for a call. Kept per context while the fields the checks read are
 * all plain strings, and made anew whenever one of them changes, so a policy edited between calls
 * applies at once; any other context is read afresh for every call.
 */
export function contextHandle(context: ToolContext): ContextHandle {
  const reads = readLedgers.get(context);
  const key = contextKey(context);
  if (key === null) return native.contextHandle(context, reads);
  const cached = contextHandles.get(context);
  if (cached !== undefined && cached.key === key && cached.reads === reads) return cached.handle;
  const handle = native.contextHandle(context, reads);
  contextHandles.set(context, { key, handle, reads });
  return handle;
}

/** The fields of `context` the native side reads, as a key; null unless they are plain strings. */
function contextKey(context: ToolContext): string | null {
  const { workspaceRoot, writeScope, policy, env, exec, searchCacheBytes } = context as Record<keyof ToolContext, unknown>;
  if (typeof workspaceRoot !== "string" || typeof writeScope !== "string" || !isRecord(policy) || !isRecord(env)) return null;
  if (searchCacheBytes !== undefined && !Number.isSafeInteger(searchCacheBytes)) return null;
  // The key has no `exec` (exec_command's OS sandbox): a context that sets it is read afresh.
  if (exec !== undefined) return null;
  const { tools, defaultPolicy } = policy;
  const { platform } = env;
  if (typeof defaultPolicy !== "string" || typeof platform !== "string" || !isRecord(tools)) return null;
  const entries = Object.entries(tools);
  for (const entry of entries) if (typeof entry[1] !== "string") return null;
  return JSON.stringify([workspaceRoot, writeScope, defaultPolicy, platform, entries, searchCacheBytes ?? null]);
}
