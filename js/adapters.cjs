"use strict";
// Generated from ts/adapters.cts by `npm run build:ts`: edit that file, not this one.
// The core shared by the framework adapters (ai.cts, langchain.cts, openai_agents.cts,
// mastra.cts): each tool of a toolkit as a name, a description, a JSON Schema and a `run` that
// goes through the toolkit (policy, write scope, sandbox), asks the review hook before
// write-class calls as runToolLoop does, pages large outputs through an OutputCache and stops
// native work when the framework's abort signal fires. It loads no framework.
exports.requirePeer = requirePeer;
exports.adapterTools = adapterTools;
exports.linesOf = linesOf;
const errors_cjs_1 = require("./errors.cjs");
const loop_cjs_1 = require("./loop.cjs");
const loop_runtime_cjs_1 = require("./loop_runtime.cjs");
const toolkit_cjs_1 = require("./toolkit.cjs");
const user_tools_cjs_1 = require("./user_tools.cjs");
const DEFAULT_MAX_OUTPUT_CHARS = 20_000;
const PREVIEW_CHARS = 2_000;
/**
 * The optional peer an adapter needs (`load` requires it); missing, an Error that names the
 * adapter, the framework and the package to install.
 */
function requirePeer(adapter, framework, pkg, load) {
    try {
        return load();
    }
    catch (error) {
        throw new Error(`${adapter} needs ${framework}: npm install ${pkg} (${error.message})`);
    }
}
/** The toolkit's tools (and the cache tools) as framework-neutral AdapterTools. */
function adapterTools(toolkit, options, caller) {
    if (!toolkit_cjs_1.toolkitState.has(toolkit))
        throw new TypeError(`${caller}: toolkit must be made by createAgentToolkit`);
    const { review, outputCache, maxOutputChars = DEFAULT_MAX_OUTPUT_CHARS, tools, approval = "writes" } = options ?? {};
    if (review !== undefined && typeof review !== "function")
        throw new TypeError(`${caller}: options.review must be a function`);
    if (approval !== "writes" && approval !== "none" && typeof approval !== "function") {
        throw new TypeError(`${caller}: options.approval must be "writes", "none" or a function`);
    }
    if (!Number.isInteger(maxOutputChars) || maxOutputChars < 1)
        throw new TypeError(`${caller}: options.maxOutputChars must be an integer >= 1`);
    if (outputCache !== undefined && (typeof outputCache?.record !== "function" || typeof outputCache?.read !== "function")) {
        throw new TypeError(`${caller}: options.outputCache must be an OutputCache`);
    }
    const rt = (0, loop_runtime_cjs_1.loopRuntime)(toolkit);
    const definitions = tools ?? rt.definitions();
    // Calls of every class but `read` run one at a time, in the order they arrive (as the loop does).
    let queue = Promise.resolve();
    const serial = (work) => {
        const next = queue.then(work, work);
        queue = next.catch(() => { });
        return next;
    };
    let calls = 0;
    const page = (text) => {
        if (!outputCache || text.length <= maxOutputChars)
            return text;
        const lines = linesOf(text);
        const { refId } = outputCache.record(lines);
        // The first lines, within half the limit (and PREVIEW_CHARS), so the message stays under it.
        const room = Math.min(PREVIEW_CHARS, Math.floor(maxOutputChars / 2));
        const cut = lines.lastIndexOf("\n", room);
        const head = `${lines.slice(0, cut > 0 ? cut : room)}\n…`;
        const count = lines.split("\n").length;
        return (`[output too long to return whole (${text.length} chars, ${count} lines); ref_id "${refId}": ` +
            `read it in pages with tool_output_cache or search it with tool_output_cache_grep. It starts with:]\n${head}`);
    };
    const make = (definition) => {
        const { name, description, parameters } = definition.function;
        const effect = (0, loop_cjs_1.effectClass)(name, rt.userTool(name));
        const reviewed = review !== undefined && (0, loop_cjs_1.isReviewed)(effect);
        const call = async (args, id, signal, approved) => {
            if (signal?.aborted)
                throw callAborted();
            let input = args;
            // A permission rule that asks: reviewed whatever the effect, and run as approved.
            const asks = review !== undefined && rt.permission(name, input)?.decision === "ask";
            if (reviewed || asks) {
                const verdict = await (0, loop_cjs_1.askReview)(review, (0, loop_cjs_1.reviewRequest)(rt, id, name, input), signal);
                if ("aborted" in verdict)
                    throw callAborted();
                if ("rejected" in verdict)
                    return { status: "rejected", text: verdict.rejected };
                input = verdict.run;
            }
            try {
                const output = await (0, loop_cjs_1.bounded)(rt.output(name, input, { signal, approved: asks || approved }), { signal });
                return { status: "ok", text: page(output) };
            }
            catch (error) {
                if ((0, errors_cjs_1.isAbort)(error) || signal?.aborted)
                    throw callAborted();
                return { status: "error", text: `Error executing tool: ${(0, errors_cjs_1.preciseMessageOf)(error)}` };
            }
        };
        return {
            name,
            description,
            // A plain JSON copy: zod's JSON Schema carries a hidden `~standard` member, which some
            // frameworks take for a Standard Schema.
            parameters: JSON.parse(JSON.stringify(parameters)),
            effect,
            async needsApproval(input) {
                if (review !== undefined)
                    return false;
                const parsed = (0, loop_cjs_1.parseArguments)(input);
                if ("error" in parsed)
                    return false;
                if (rt.permission(name, parsed.args)?.decision === "ask")
                    return true;
                if (approval === "none")
                    return false;
                if (approval === "writes")
                    return (0, loop_cjs_1.isReviewed)(effect);
                return (await approval(name, parsed.args)) === true;
            },
            run(input, { id, signal, approved = false } = {}) {
                const parsed = (0, loop_cjs_1.parseArguments)(input);
                if ("error" in parsed)
                    return Promise.resolve({ status: "error", text: `Error executing tool: ${parsed.error}` });
                const callId = id ?? `call-${++calls}`;
                return effect === "read" ? call(parsed.args, callId, signal, approved) : serial(() => call(parsed.args, callId, signal, approved));
            },
        };
    };
    const result = definitions.map(make);
    if (outputCache && !definitions.some((d) => d.function.name === "tool_output_cache")) {
        for (const tool of (0, user_tools_cjs_1.outputCacheTools)(outputCache))
            result.push(cacheTool(tool));
    }
    return result;
}
/** A cache tool the adapter adds itself: read-only, outside the policy (it reads only the cache). */
function cacheTool(tool) {
    const fn = tool.definition.function;
    return {
        name: tool.name,
        description: tool.description,
        parameters: JSON.parse(JSON.stringify(fn.parameters)),
        effect: "read",
        needsApproval: async () => false,
        async run(input, { signal } = {}) {
            if (signal?.aborted)
                throw callAborted();
            const parsed = (0, loop_cjs_1.parseArguments)(input);
            if ("error" in parsed)
                return { status: "error", text: `Error executing tool: ${parsed.error}` };
            const result = await tool.executeRaw(JSON.stringify(parsed.args), { signal });
            const content = (0, user_tools_cjs_1.toToolMessageContent)(result);
            const text = typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
            return { status: result.is_error ? "error" : "ok", text };
        },
    };
}
/**
 * An output as lines to page: a built-in's JSON output is one line, so its value is written out
 * as indented `key: value` lines, multi-line strings (file contents, command output) line by
 * line. Text that is not JSON stays as it is.
 */
function linesOf(text) {
    let value;
    try {
        value = JSON.parse(text);
    }
    catch {
        return text;
    }
    if (value === null || typeof value !== "object")
        return text;
    const out = [];
    const write = (v, indent, label) => {
        if (typeof v === "string" && v.includes("\n")) {
            out.push(`${indent}${label}|`);
            for (const line of v.replace(/\n$/, "").split("\n"))
                out.push(`${indent}  ${line}`);
        }
        else if (Array.isArray(v) && v.length > 0) {
            if (label)
                out.push(`${indent}${label}`.trimEnd());
            for (const item of v)
                write(item, label ? `${indent}  ` : indent, "- ");
        }
        else if (v !== null && typeof v === "object" && Object.keys(v).length > 0) {
            if (label)
                out.push(`${indent}${label}`.trimEnd());
            const inner = label ? `${indent}  ` : indent;
            for (const [key, item] of Object.entries(v))
                write(item, inner, `${key}: `);
        }
        else {
            out.push(`${indent}${label}${JSON.stringify(v)}`);
        }
    };
    write(value, "", "");
    return out.join("\n");
}
/** What `run` rejects with when the framework's signal fires. */
const callAborted = () => (0, errors_cjs_1.abortError)("the tool call was aborted");
