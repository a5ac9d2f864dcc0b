"use strict";
// Generated from ts/langchain.cts by `npm run build:ts`: edit that file, not this one.
// `agent-tools-native/langchain`: a toolkit as LangChain tools (`model.bindTools(tools)`, agents).
// `@langchain/core` is an optional peer dependency, loaded when this function is first called.
exports.toLangChainTools = toLangChainTools;
exports.toLangChainInterruptOn = toLangChainInterruptOn;
const adapters_cjs_1 = require("./adapters.cjs");
/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as a LangChain tool, made with `@langchain/core`'s
 * `tool()` over the tool's JSON Schema. Invoked with a tool call (`tool.invoke(aiMessage.tool_calls[i])`,
 * as agents do), it returns a ToolMessage: a failed call (policy denial, sandbox, invalid
 * arguments, the tool's error) has `status: "error"` and its "Error executing tool: ..." text as
 * content, a call the review hook rejects `status: "error"` and "Rejected by review: ...".
 * Invoked with plain arguments, it returns that text. The call's `signal` (the run's config)
 * stops its native work.
 */
function toLangChainTools(toolkit, options) {
    const tools = (0, adapters_cjs_1.adapterTools)(toolkit, options, "toLangChainTools");
    // The calls humanInTheLoopMiddleware interrupted for (its `when` said so): once such a call
    // runs, a human approved or edited it (a rejected one never runs).
    const interrupted = new Set();
    const lc = (0, adapters_cjs_1.requirePeer)("toLangChainTools", "LangChain", "@langchain/core", () => ({ tools: require("@langchain/core/tools"), messages: require("@langchain/core/messages") }));
    return tools.map((t) => Object.assign(lc.tools.tool(async (input, config) => {
        const id = config?.toolCall?.id;
        const outcome = await t.run(input, { id, signal: config?.signal, approved: id !== undefined && interrupted.delete(id) });
        if (id === undefined)
            return outcome.text;
        const status = outcome.status === "ok" ? "success" : "error";
        return new lc.messages.ToolMessage({ content: outcome.text, tool_call_id: id, name: t.name, status });
    }, { name: t.name, description: t.description, schema: t.parameters }), { effect: t.effect })).map((made, i) => {
        approvals.set(made, { tool: tools[i], interrupted });
        return made;
    });
}
/** For each tool of toLangChainTools, its adapter tool and the calls interrupted for. */
const approvals = new WeakMap();
/**
 * The `interruptOn` of LangChain's `humanInTheLoopMiddleware` for tools made by
 * toLangChainTools: a call interrupts the agent when the tools' `approval` option says it waits
 * (by default writes and commands; always a call a permission rule asks about). Approved or
 * edited, it runs (and a permission rule's ask is satisfied); rejected, it never does.
 */
function toLangChainInterruptOn(tools) {
    const entries = {};
    for (const made of tools) {
        const known = approvals.get(made);
        if (!known)
            throw new TypeError("toLangChainInterruptOn: the tools must be made by toLangChainTools");
        const { tool, interrupted } = known;
        entries[tool.name] = {
            allowedDecisions: ["approve", "edit", "reject"],
            when: async ({ toolCall }) => {
                const waits = await tool.needsApproval(toolCall.args);
                if (waits && toolCall.id !== undefined)
                    interrupted.add(toolCall.id);
                return waits;
            },
        };
    }
    return entries;
}
