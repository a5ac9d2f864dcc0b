"use strict";
// Generated from ts/ai.cts by `npm run build:ts`: edit that file, not this one.
// `agent-tools-native/ai`: a toolkit as an AI SDK ToolSet (`generateText({ tools })`). The AI SDK
// (`ai`) is an optional peer dependency, loaded when this function is first called.
exports.toAISDKTools = toAISDKTools;
const adapters_cjs_1 = require("./adapters.cjs");
/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as an AI SDK tool, made with the AI SDK's `tool()` and
 * `jsonSchema()`, with its effect class as `effect`. Writes and commands (`options.approval`)
 * have `needsApproval`: the AI SDK stops at a `tool-approval-request` and runs the call once a
 * `tool-approval-response` approves it (a denial reaches the model as `execution-denied`). A
 * failed call (policy denial, sandbox, permission rule, invalid arguments, the tool's error) and
 * a call the review hook rejects throw their text, which the AI SDK hands to the model as the
 * call's error output (a `tool-error` part). The call's `abortSignal` stops its native work.
 */
function toAISDKTools(toolkit, options) {
    const tools = (0, adapters_cjs_1.adapterTools)(toolkit, options, "toAISDKTools");
    const { tool, jsonSchema } = (0, adapters_cjs_1.requirePeer)("toAISDKTools", "the AI SDK", "ai", () => require("ai"));
    const set = {};
    for (const t of tools) {
        const made = tool({
            description: t.description,
            inputSchema: jsonSchema(t.parameters),
            needsApproval: (input) => t.needsApproval(input),
            execute: async (input, { toolCallId, abortSignal }) => {
                // The AI SDK runs a call that needs approval only once it was approved.
                const outcome = await t.run(input, { id: toolCallId, signal: abortSignal, approved: true });
                if (outcome.status !== "ok")
                    throw new Error(outcome.text);
                return outcome.text;
            },
        });
        set[t.name] = Object.assign(made, { effect: t.effect });
    }
    return set;
}
