"use strict";
// Generated from ts/ai.cts by `npm run build:ts`: edit that file, not this one.
// `agent-tools-native/ai`: a toolkit as an AI SDK ToolSet (`generateText({ tools })`). The AI SDK
// (`ai`) is an optional peer dependency, loaded when this function is first called.
exports.toAISDKTools = toAISDKTools;
const adapters_cjs_1 = require("./adapters.cjs");
/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as an AI SDK tool, made with the AI SDK's `tool()` and
 * `jsonSchema()`. A failed call (policy denial, sandbox, invalid arguments, the tool's error)
 * throws its "Error executing tool: ..." text, which the AI SDK hands to the model as the call's
 * error output (a `tool-error` part of the step); a call the review hook rejects returns
 * "Rejected by review: ...". The call's `abortSignal` (generateText's) stops its native work.
 */
function toAISDKTools(toolkit, options) {
    const tools = (0, adapters_cjs_1.adapterTools)(toolkit, options, "toAISDKTools");
    const { tool, jsonSchema } = (0, adapters_cjs_1.requirePeer)("toAISDKTools", "the AI SDK", "ai", () => require("ai"));
    const set = {};
    for (const t of tools) {
        set[t.name] = tool({
            description: t.description,
            inputSchema: jsonSchema(t.parameters),
            execute: async (input, { toolCallId, abortSignal }) => {
                const outcome = await t.run(input, { id: toolCallId, signal: abortSignal });
                if (outcome.status === "error")
                    throw new Error(outcome.text);
                return outcome.text;
            },
        });
    }
    return set;
}
