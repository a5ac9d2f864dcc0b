"use strict";
// Generated from ts/context.cts by `npm run build:ts`: edit that file, not this one.
// Tool contexts: `createToolContext`, and the native copy of a context each call hands over
// (kept per context while it stays the same), with the read ledger of a toolkit with edit_file.
exports.readLedgers = exports.createToolContext = void 0;
exports.contextHandle = contextHandle;
const node_os_1 = require("node:os");
const native_cjs_1 = require("./native.cjs");
const native = (0, native_cjs_1.loadNative)();
/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
const createToolContext = function createToolContext(params) {
    const context = {
        workspaceRoot: params.workspaceRoot,
        writeScope: params.writeScope ?? "workspace-write",
        policy: (params.policy ?? { tools: {}, defaultPolicy: "deny" }),
        env: { platform: (0, node_os_1.platform)(), osRelease: (0, node_os_1.release)() },
    };
    // Only when given: a context without it has exactly agent-tools-ts's fields.
    if (params.exec !== undefined)
        context.exec = params.exec;
    if (params.searchCacheBytes !== undefined)
        context.searchCacheBytes = params.searchCacheBytes;
    return context;
};
exports.createToolContext = createToolContext;
const isRecord = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const contextHandles = new WeakMap();
/**
 * The read ledger of each context a toolkit with edit_file serves: what the context read or wrote
 * through the toolkit (content fingerprints by real path, kept natively), for edit_file's
 * stale-read guard. Kept beside the context, not on it, so the context object keeps its shape.
 */
exports.readLedgers = new WeakMap();
/**
 * The native copy of `context` for a call. Kept per context while the fields the checks read are
 * all plain strings, and made anew whenever one of them changes, so a policy edited between calls
 * applies at once; any other context is read afresh for every call.
 */
function contextHandle(context) {
    const reads = exports.readLedgers.get(context);
    const key = contextKey(context);
    if (key === null)
        return native.contextHandle(context, reads);
    const cached = contextHandles.get(context);
    if (cached !== undefined && cached.key === key && cached.reads === reads)
        return cached.handle;
    const handle = native.contextHandle(context, reads);
    contextHandles.set(context, { key, handle, reads });
    return handle;
}
/** The fields of `context` the native side reads, as a key; null unless they are plain strings. */
function contextKey(context) {
    const { workspaceRoot, writeScope, policy, env, exec, searchCacheBytes } = context;
    if (typeof workspaceRoot !== "string" || typeof writeScope !== "string" || !isRecord(policy) || !isRecord(env))
        return null;
    if (searchCacheBytes !== undefined && !Number.isSafeInteger(searchCacheBytes))
        return null;
    // The key has no `exec` (exec_command's OS sandbox): a context that sets it is read afresh.
    if (exec !== undefined)
        return null;
    const { tools, defaultPolicy } = policy;
    const { platform } = env;
    if (typeof defaultPolicy !== "string" || typeof platform !== "string" || !isRecord(tools))
        return null;
    const entries = Object.entries(tools);
    for (const entry of entries)
        if (typeof entry[1] !== "string")
            return null;
    return JSON.stringify([workspaceRoot, writeScope, defaultPolicy, platform, entries, searchCacheBytes ?? null]);
}
