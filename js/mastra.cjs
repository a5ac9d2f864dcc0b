"use strict";
// Generated from ts/mastra.cts by `npm run build:ts`: edit that file, not this one.
// `agent-tools-native/mastra`: a toolkit as Mastra tools (`new Agent({ tools })`). `@mastra/core`
// is an optional peer dependency, loaded when this function is first called.
exports.toMastraTools = toMastraTools;
const adapters_cjs_1 = require("./adapters.cjs");
/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as a Mastra tool made with `createTool`, its JSON
 * Schema as `inputSchema`, keyed by name (`new Agent({ tools: toMastraTools(toolkit) })`). The
 * model reads the tool's output; a failed call (policy denial, sandbox, permission rule, invalid
 * arguments, the tool's error) throws its "Error executing tool: ..." text and a call the review
 * hook rejects its "Rejected by review: ..." text, which Mastra hands to the model as the call's
 * error output. The
 * run's `abortSignal` stops the call's native work (Mastra then ends the run and calls `onAbort`).
 */
function toMastraTools(toolkit, options) {
    const tools = (0, adapters_cjs_1.adapterTools)(toolkit, options, "toMastraTools");
    const { createTool } = (0, adapters_cjs_1.requirePeer)("toMastraTools", "Mastra", "@mastra/core", () => require("@mastra/core/tools"));
    const set = {};
    for (const t of tools) {
        set[t.name] = Object.assign(createTool({
            id: t.name,
            description: t.description,
            inputSchema: t.parameters,
            requireApproval: (input) => t.needsApproval(input),
            execute: async (input, context) => {
                // Mastra runs a call that requires approval only once it was approved.
                const outcome = await t.run(input, { id: context?.agent?.toolCallId, signal: context?.abortSignal, approved: true });
                if (outcome.status !== "ok")
                    throw new Error(outcome.text);
                return outcome.text;
            },
        }), { effect: t.effect });
    }
    return set;
}
