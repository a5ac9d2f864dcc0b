"use strict";
// Generated from ts/loop_runtime.cts by `npm run build:ts`: edit that file, not this one.
// The tool loop of a toolkit: what `runToolLoop` / `streamToolLoop` (loop.cts) need of a toolkit
// made by `createAgentToolkit`.
exports.streamToolLoop = exports.runToolLoop = void 0;
exports.loopRuntime = loopRuntime;
const catalog_cjs_1 = require("./catalog.cjs");
const loop_cjs_1 = require("./loop.cjs");
const native_cjs_1 = require("./native.cjs");
const toolkit_cjs_1 = require("./toolkit.cjs");
const user_tools_cjs_1 = require("./user_tools.cjs");
const native = (0, native_cjs_1.loadNative)();
/** What the tool loop needs of a toolkit. */
function loopRuntime(toolkit) {
    const state = toolkit_cjs_1.toolkitState.get(toolkit);
    if (!state)
        throw new TypeError("runToolLoop: toolkit must be made by createAgentToolkit");
    const { context, registered } = state;
    return {
        definitions: () => toolkit.getAllowedTools(),
        has: (name) => Object.hasOwn(catalog_cjs_1.catalog, name) || registered.optIns.has(name) || registered.byName.has(name),
        userTool: (name) => {
            const tool = registered.byName.get(name);
            return tool ? { writes: user_tools_cjs_1.toolInternals.get(tool).writes } : undefined;
        },
        execSandbox: () => {
            const preview = native.execSandboxPreview(context);
            return preview === null ? undefined : JSON.parse(preview);
        },
        // Without rules nothing to ask the native side (it would read the whole context for null).
        permission: (name, args) => (context.permissions === undefined ? null : native.permissionDecision(context, name, args)),
        /** The call's output as the model sees it: a user tool's message text, a built-in's JSON text. */
        output: async (name, args, ctx) => {
            const { approved, ...callContext } = ctx;
            const reg = { ...registered, runtime: { ...registered.runtime, ...callContext } };
            if (registered.byName.has(name))
                return messageText((0, user_tools_cjs_1.toToolResult)((await (0, toolkit_cjs_1.invoke)(context, name, args, reg)).content));
            return (0, toolkit_cjs_1.invoke)(context, name, args, reg, true, approved);
        },
    };
}
/** A ToolResult as the loop's string output (parts: their text, images noted). */
function messageText(result) {
    const content = (0, user_tools_cjs_1.toToolMessageContent)(result);
    if (typeof content === "string")
        return content;
    return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}
const loop = (0, loop_cjs_1.makeToolLoop)(loopRuntime);
/** Runs the multi-turn tool loop to its end. */
exports.runToolLoop = loop.runToolLoop;
/** The same loop as an async iterator of events; `result` resolves when it ends. */
exports.streamToolLoop = loop.streamToolLoop;
