"use strict";
// Generated from ts/langchain.cts by `npm run build:ts`: edit that file, not this one.
// `agent-tools-native/langchain`: a toolkit as LangChain tools (`model.bindTools(tools)`, agents).
// `@langchain/core` is an optional peer dependency, loaded when this function is first called.
exports.toLangChainTools = toLangChainTools;
const adapters_cjs_1 = require("./adapters.cjs");
/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as a LangChain tool, made with `@langchain/core`'s
 * `tool()` over the tool's JSON Schema. Invoked with a tool call (`tool.invoke(aiMessage.tool_calls[i])`,
 * as agents do), it returns a ToolMessage: a failed call (policy denial, sandbox, invalid
 * arguments, the tool's error) has `status: "error"` and its "Error executing tool: ..." text as
 * content, a call the review hook rejects `status: "error"` and "Rejected by review: ...". Invoked
 * with plain arguments,
 * it returns that text. The call's `signal` (the run's config) stops its native work.
 */
function toLangChainTools(toolkit, options) {
    const tools = (0, adapters_cjs_1.adapterTools)(toolkit, options, "toLangChainTools");
    const lc = (0, adapters_cjs_1.requirePeer)("toLangChainTools", "LangChain", "@langchain/core", () => ({ tools: require("@langchain/core/tools"), messages: require("@langchain/core/messages") }));
    return tools.map((t) => Object.assign(lc.tools.tool(async (input, config) => {
        const id = config?.toolCall?.id;
        const outcome = await t.run(input, { id, signal: config?.signal });
        if (id === undefined)
            return outcome.text;
        const status = outcome.status === "ok" ? "success" : "error";
        return new lc.messages.ToolMessage({ content: outcome.text, tool_call_id: id, name: t.name, status });
    }, { name: t.name, description: t.description, schema: t.parameters }), { effect: t.effect }));
}
