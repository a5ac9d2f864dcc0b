"use strict";
// Generated from ts/context.cts by `npm run build:ts`: edit that file, not this one.
// Tool contexts: `createToolContext`, and the native copy of a context each call hands over
// (kept per context while it stays the same), with the read ledger of a toolkit with edit_file.
exports.processTables = exports.readLedgers = exports.createToolContext = void 0;
exports.editHooksFor = editHooksFor;
exports.contextHandle = contextHandle;
const node_os_1 = require("node:os");
const native_cjs_1 = require("./native.cjs");
const native = (0, native_cjs_1.loadNative)();
/**
 * Creates a live context. Policies name built-in tools; to also name your own tools, pass their
 * names explicitly: `createToolContext<"my_tool">({ ... })` (typos stay compile errors).
 */
const createToolContext = function createToolContext(params) {
    const problem = params.permissions === undefined ? null : native.permissionsProblem(params.permissions);
    if (problem !== null)
        throw new TypeError(`createToolContext: ${problem}`);
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
    if (params.permissions !== undefined)
        context.permissions = params.permissions;
    return context;
};
exports.createToolContext = createToolContext;
const isRecord = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
/** The native copies of each context, one per toolkit settings of the journal and syntax check. */
const contextHandles = new WeakMap();
/**
 * The read ledger of each context a toolkit with edit_file serves: what the context read or wrote
 * through the toolkit (content fingerprints by real path, kept natively), for edit_file's
 * stale-read guard. Kept beside the context, not on it, so the context object keeps its shape.
 */
exports.readLedgers = new WeakMap();
/**
 * The process table of each context a toolkit with the process tools serves: the processes its
 * calls started (kept natively). It goes with the context: garbage-collected, it ends them all;
 * `toolkit.close()` ends them and waits.
 */
exports.processTables = new WeakMap();
/**
 * The undo journal and the syntax check of the toolkits with `checkpoints` or `syntaxCheck`
 * (kept natively): each toolkit's calls use its own settings, and the toolkits over one context
 * with the same settings share one (so what the context's processes change is recorded once).
 */
const editHooksByContext = new WeakMap();
/** The journal and syntax check of a toolkit over `context` with these (checked) settings. */
function editHooksFor(context, checkpoints, syntaxCheck) {
    if (checkpoints === undefined && syntaxCheck === undefined)
        return undefined;
    const settings = JSON.stringify([checkpoints, syntaxCheck]);
    let byContext = editHooksByContext.get(context);
    if (byContext === undefined) {
        byContext = new Map();
        editHooksByContext.set(context, byContext);
    }
    let hooks = byContext.get(settings);
    if (hooks === undefined) {
        // The user's state directory is placed by the environment as this program sees it.
        const env = process.env;
        hooks = native.newEditHooks(checkpoints === undefined ? undefined : { ...checkpoints, env }, syntaxCheck);
        byContext.set(settings, hooks);
    }
    return hooks;
}
/**
 * The native copy of `context` for a call of a toolkit whose journal and syntax check are
 * `edits`. Kept per context while the fields the native side reads are plain values (strings,
 * and a whole-number `searchCacheBytes`) and made anew whenever one of them changes, so a policy
 * edited between calls applies at once; a context with `exec` or with any other value there is
 * read afresh for every call.
 */
function contextHandle(context, edits) {
    const reads = exports.readLedgers.get(context);
    const processes = exports.processTables.get(context);
    let byEdits = contextHandles.get(context);
    const cached = byEdits?.get(edits);
    // The fields compared one by one with the key kept: no key is made while they stay the same.
    if (cached !== undefined && cached.reads === reads && cached.processes === processes && sameKey(cached.key, context)) {
        return cached.handle;
    }
    const key = contextKey(context);
    const handle = native.contextHandle(context, reads, processes, edits);
    if (key === null)
        return handle;
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
function contextKey(context) {
    const { workspaceRoot, writeScope, policy, env, exec, searchCacheBytes, permissions } = context;
    if (typeof workspaceRoot !== "string" || typeof writeScope !== "string" || !isRecord(policy) || !isRecord(env))
        return null;
    // Nor `permissions`: a context with rules is read afresh, so an edited rule applies at once.
    if (permissions !== undefined)
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
    const key = [workspaceRoot, writeScope, defaultPolicy, platform, searchCacheBytes];
    for (const entry of Object.entries(tools)) {
        if (typeof entry[1] !== "string")
            return null;
        key.push(entry[0], entry[1]);
    }
    return key;
}
/** True when `context`'s fields are still those of `key` (a `contextKey` result). */
function sameKey(key, context) {
    const { workspaceRoot, writeScope, policy, env, exec, searchCacheBytes, permissions } = context;
    if (workspaceRoot !== key[0] || writeScope !== key[1] || exec !== undefined || permissions !== undefined || !isRecord(policy) || !isRecord(env))
        return false;
    if (searchCacheBytes !== key[4])
        return false;
    const { tools, defaultPolicy } = policy;
    if (defaultPolicy !== key[2] || env.platform !== key[3] || !isRecord(tools))
        return false;
    let at = 5;
    for (const name of Object.keys(tools)) {
        if (name !== key[at] || tools[name] !== key[at + 1])
            return false;
        at += 2;
    }
    return at === key.length;
}
