"use strict";
// Generated from ts/openai_agents.cts by `npm run build:ts`: edit that file, not this one.
// `agent-tools-native/openai-agents`: a toolkit as OpenAI Agents SDK function tools
// (`new Agent({ tools })`). `@openai/agents` is an optional peer dependency, loaded when this
// function is first called.
exports.toOpenAIAgentsTools = toOpenAIAgentsTools;
const adapters_cjs_1 = require("./adapters.cjs");
/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as a function tool made with the SDK's `tool()`, its
 * JSON Schema as `parameters` (`strict: false`: the toolkit validates the arguments). The model
 * reads every outcome as the call's output: the tool's output, "Error executing tool: ..." for a
 * failed call (policy denial, sandbox, invalid arguments, the tool's error), "Rejected by review:
 * ..." for a call the review hook rejects. The run's `signal` stops the call's native work and
 * the run rejects with the abort.
 */
function toOpenAIAgentsTools(toolkit, options) {
    const tools = (0, adapters_cjs_1.adapterTools)(toolkit, options, "toOpenAIAgentsTools");
    const { tool } = (0, adapters_cjs_1.requirePeer)("toOpenAIAgentsTools", "the OpenAI Agents SDK", "@openai/agents", () => require("@openai/agents"));
    return tools.map((t) => Object.assign(tool({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        strict: false,
        needsApproval: async (_context, input) => t.needsApproval(input),
        execute: async (input, _context, details) => {
            // The SDK runs a call that needs approval only once `state.approve` approved it.
            const outcome = await t.run(input, { id: details?.toolCall?.callId, signal: details?.signal, approved: true });
            return outcome.text;
        },
        // Failures are outputs already; only an abort is thrown, and it ends the run.
        errorFunction: null,
    }), { effect: t.effect }));
}
