"use strict";
// Generated from ts/user_tools.cts by `npm run build:ts`: edit that file, not this one.
// User-defined tools (README, "Your own tools"): defineTool over a zod v4 schema, JSON Schema for
// the model, executeRaw (parse → validate → execute → ToolResult, never throwing), dependency
// injection and the conversion of results to tool-message content. zod is a peer dependency, loaded
// on first use.
exports.doneTool = exports.toolInternals = void 0;
exports.defineTool = defineTool;
exports.isTool = isTool;
exports.executionContext = executionContext;
exports.errorResult = errorResult;
exports.validateInput = validateInput;
exports.runExecute = runExecute;
exports.toToolResult = toToolResult;
exports.stableStringify = stableStringify;
exports.toToolMessageContent = toToolMessageContent;
exports.outputCacheTools = outputCacheTools;
exports.applyOutputCache = applyOutputCache;
const loop_cjs_1 = require("./loop.cjs");
const PORTABLE_TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
/** Keywords OpenAI strict mode rejects (refused at definition time). */
const STRICT_UNSUPPORTED = [
    "patternProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "oneOf",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "additionalItems",
    "contains",
];
/** Private parts of each Tool, by tool. */
exports.toolInternals = new WeakMap();
/** The internals of a tool made here (callers check `isTool` first). */
const internalsOf = (tool) => exports.toolInternals.get(tool);
let zodModule;
function zod() {
    if (!zodModule) {
        try {
            zodModule = require("zod");
        }
        catch {
            throw new Error("defineTool needs zod v4: npm install zod@4");
        }
    }
    const loaded = zodModule;
    return loaded.z ?? loaded;
}
class ToolDefinitionError extends TypeError {
    constructor(toolName, message) {
        super(`defineTool(${JSON.stringify(toolName)}): ${message}`);
        this.name = "ToolDefinitionError";
    }
}
/** Defines a tool the model can call; see the README section "Your own tools". */
function defineTool(options) {
    const { name, description, input, execute, strict = false, writes = false } = (options ?? {});
    if (typeof name !== "string" || !PORTABLE_TOOL_NAME.test(name)) {
        throw new ToolDefinitionError(name, "the name must match ^[A-Za-z_][A-Za-z0-9_-]{0,63}$ (portable across providers)");
    }
    if (typeof description !== "string")
        throw new ToolDefinitionError(name, "description must be a string");
    if (!input || typeof input.safeParseAsync !== "function")
        throw new ToolDefinitionError(name, "input must be a zod v4 schema");
    if (typeof execute !== "function")
        throw new ToolDefinitionError(name, "execute must be a function");
    const { parameters, nullable } = toolParameters(input, name, strict);
    const fn = strict ? { name, description, parameters, strict: true } : { name, description, parameters };
    const tool = {
        name,
        description,
        definition: { type: "function", function: fn },
        executeRaw: (rawArgsJson, ctx) => executeRaw(tool, rawArgsJson, ctx),
    };
    exports.toolInternals.set(tool, { input: input, execute: execute, nullable, writes: writes === true });
    return Object.freeze(tool);
}
function isTool(value) {
    return exports.toolInternals.has(value);
}
// ---- JSON Schema -------------------------------------------------------------------------------
function toolParameters(schema, toolName, strict) {
    let json;
    try {
        json = zod().toJSONSchema(schema, { target: "draft-7", io: "input" });
    }
    catch (error) {
        throw new ToolDefinitionError(toolName, `the input schema cannot be expressed as JSON Schema: ${error.message}`);
    }
    delete json.$schema;
    if (json.type !== "object")
        throw new ToolDefinitionError(toolName, "the input schema must be an object schema (z.object(...))");
    closeObjects(json);
    const nullable = strict ? makeStrict(json, toolName, "$") : null;
    return { parameters: json, nullable };
}
/** Sub-schemas of a JSON Schema node, with the step that reaches them (for null stripping). */
function* children(node) {
    for (const [key, child] of Object.entries(node.properties ?? {}))
        yield [child, { property: key }];
    if (node.items && !Array.isArray(node.items))
        yield [node.items, { items: true }];
    if (Array.isArray(node.items))
        for (const child of node.items)
            yield [child, null];
    for (const key of ["anyOf", "allOf", "oneOf"])
        for (const child of node[key] ?? [])
            yield [child, { same: true }];
    for (const key of ["definitions", "$defs"])
        for (const child of Object.values(node[key] ?? {}))
            yield [child, null];
    if (node.additionalProperties && typeof node.additionalProperties === "object")
        yield [node.additionalProperties, null];
}
/** `additionalProperties: false` on every object that does not say otherwise. */
function closeObjects(node) {
    if (!node || typeof node !== "object")
        return;
    if ((node.type === "object" || node.properties) && !("additionalProperties" in node))
        node.additionalProperties = false;
    for (const [child] of children(node))
        closeObjects(child);
}
/**
 * Rewrites `node` for OpenAI strict mode: every property required, optional ones nullable,
 * `default` removed; refuses what strict mode cannot express. Returns the plan of properties made
 * nullable, used to turn the model's `null` back into "absent" before validation.
 */
function makeStrict(node, toolName, path) {
    const refuse = (why) => {
        throw new ToolDefinitionError(toolName, `strict mode: ${why} at ${path}`);
    };
    const isObject = node.type === "object" || node.properties;
    const isArray = node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"));
    if (isObject && node.additionalProperties !== false)
        refuse("open objects and records (z.record, z.looseObject) are not supported");
    if (isArray && (!node.items || Array.isArray(node.items)))
        refuse("arrays need a single items schema (tuples are not supported)");
    for (const key of STRICT_UNSUPPORTED)
        if (key in node)
            refuse(`the keyword "${key}" is not supported`);
    delete node.default;
    const plan = { properties: {}, items: null, nullHere: false };
    if (isObject) {
        const required = new Set(node.required ?? []);
        const properties = node.properties ?? {};
        for (const key of Object.keys(properties)) {
            const childPlan = makeStrict(properties[key], toolName, `${path}.${key}`);
            if (!required.has(key)) {
                properties[key] = nullable(properties[key]);
                childPlan.nullHere = true;
            }
            plan.properties[key] = childPlan;
        }
        node.properties = properties;
        node.required = Object.keys(properties);
    }
    if (isArray) {
        plan.items = makeStrict(node.items, toolName, `${path}[]`);
    }
    for (const key of ["anyOf", "allOf"]) {
        (node[key] ?? []).forEach((child, i) => {
            makeStrict(child, toolName, `${path}.${key}[${i}]`);
        });
    }
    for (const key of ["definitions", "$defs"]) {
        for (const [name, child] of Object.entries(node[key] ?? {}))
            makeStrict(child, toolName, `${path}.${key}.${name}`);
    }
    return plan;
}
function nullable(schema) {
    const copy = { ...schema };
    if (typeof copy.type === "string")
        copy.type = [copy.type, "null"];
    else if (Array.isArray(copy.type))
        copy.type = copy.type.includes("null") ? copy.type : [...copy.type, "null"];
    else if (Array.isArray(copy.anyOf))
        return { ...copy, anyOf: [...copy.anyOf, { type: "null" }] };
    else
        return { anyOf: [copy, { type: "null" }] };
    if (Array.isArray(copy.enum) && !copy.enum.includes(null))
        copy.enum = [...copy.enum, null];
    return copy;
}
/** Deletes the `null`s a strict-mode model sends for optional properties. */
function stripNulls(value, plan) {
    if (!plan || value === null || typeof value !== "object")
        return value;
    if (Array.isArray(value))
        return plan.items ? value.map((v) => stripNulls(v, plan.items)) : value;
    const out = {};
    for (const [key, v] of Object.entries(value)) {
        const childPlan = plan.properties[key];
        if (v === null && childPlan?.nullHere)
            continue;
        out[key] = stripNulls(v, childPlan);
    }
    return out;
}
// ---- execution ----------------------------------------------------------------------------------
/** The per-call context handed to `execute`: signal, logger, now, deps and `resolve(key)`. */
function executionContext(base = {}) {
    const overrides = base.overrides instanceof Map ? base.overrides : new Map();
    const resolved = new Map();
    return {
        signal: base.signal,
        logger: base.logger,
        now: base.now ?? (() => new Date()),
        deps: base.deps ?? {},
        resolve(key) {
            if (!key || typeof key.id !== "string" || typeof key.create !== "function") {
                return Promise.reject(new TypeError("resolve(key) needs a DependencyKey { id, create }"));
            }
            if (!resolved.has(key.id)) {
                const create = overrides.get(key.id) ?? key.create;
                resolved.set(key.id, Promise.resolve().then(() => create()));
            }
            return resolved.get(key.id);
        },
    };
}
function errorResult(text) {
    return { type: "text", text: `Error executing tool: ${text}`, is_error: true };
}
function formatIssues(issues) {
    return issues.map((issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`).join("; ");
}
/** Validates already-parsed arguments; resolves the parsed input or rejects with the issues. */
async function validateInput(tool, args) {
    const { input, nullable } = internalsOf(tool);
    const parsed = await input.safeParseAsync(stripNulls(args, nullable));
    if (!parsed.success) {
        const error = new Error(`INVALID_ARGUMENT: ${formatIssues(parsed.error.issues)}`);
        error.name = "UserToolError";
        error.code = "INVALID_ARGUMENT";
        error.issues = parsed.error.issues;
        throw error;
    }
    return parsed.data;
}
/** Runs `execute`, settling early with an abort error when `signal` fires. */
function runExecute(tool, input, ctx) {
    const { execute } = internalsOf(tool);
    const work = Promise.resolve().then(() => execute(input, ctx));
    const signal = ctx.signal;
    if (!signal)
        return work;
    if (signal.aborted)
        return Promise.reject(new Error("aborted"));
    return new Promise((resolve, reject) => {
        const onAbort = () => reject(new Error("aborted"));
        signal.addEventListener("abort", onAbort, { once: true });
        work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
}
/** JSON text in, ToolResult out; every failure becomes an `is_error` result. */
async function executeRaw(tool, rawArgsJson, ctx = {}) {
    try {
        const parsed = (0, loop_cjs_1.parseArguments)(rawArgsJson);
        if ("error" in parsed)
            return errorResult(parsed.error);
        const { args } = parsed;
        let input;
        try {
            input = await validateInput(tool, args);
        }
        catch (error) {
            return errorResult(`invalid arguments: ${formatIssues(error.issues ?? [])}`);
        }
        return toToolResult(await runExecute(tool, input, executionContext(ctx)));
    }
    catch (error) {
        return errorResult(error instanceof Error ? error.message : String(error));
    }
}
// ---- results ------------------------------------------------------------------------------------
function isToolResult(value) {
    if (!value || typeof value !== "object")
        return false;
    const v = value;
    return (v.type === "text" && typeof v.text === "string") || (v.type === "parts" && Array.isArray(v.parts)) || (v.type === "json" && "value" in v);
}
/** What `execute` returned, as a ToolResult: strings are text, ToolResults stay, the rest is json. */
function toToolResult(value) {
    if (typeof value === "string")
        return { type: "text", text: value };
    if (isToolResult(value))
        return value;
    return { type: "json", value };
}
/** JSON with object keys sorted at every level (stable across runs and engines). */
function stableStringify(value) {
    const sort = (input) => {
        let v = input;
        if (v && typeof v.toJSON === "function")
            v = v.toJSON();
        if (Array.isArray(v))
            return v.map((item) => (item === undefined || typeof item === "function" ? null : sort(item)));
        if (v && typeof v === "object") {
            const out = {};
            for (const key of Object.keys(v).sort())
                out[key] = sort(v[key]);
            return out;
        }
        return v;
    };
    return JSON.stringify(sort(value)) ?? "null";
}
/** A ToolResult as tool-message content: text → string, json → key-sorted JSON text, parts → parts. */
function toToolMessageContent(result) {
    switch (result.type) {
        case "text":
            return result.text;
        case "json":
            return stableStringify(result.value);
        case "parts":
            return result.parts;
        default:
            throw new TypeError(`not a ToolResult: ${JSON.stringify(result)}`);
    }
}
/** A tool with a hand-written JSON Schema and validator (the standard tools need no zod). */
function defineStandardTool({ name, description, parameters, validate, execute, }) {
    const input = {
        async safeParseAsync(value) {
            const issues = value && typeof value === "object" && !Array.isArray(value)
                ? validate(value)
                : [{ path: [], message: "expected an object" }];
            return issues.length ? { success: false, error: { issues } } : { success: true, data: value };
        },
    };
    const tool = {
        name,
        description,
        definition: { type: "function", function: { name, description, parameters } },
        executeRaw: (rawArgsJson, ctx) => executeRaw(tool, rawArgsJson, ctx),
    };
    exports.toolInternals.set(tool, { input, execute: execute, nullable: null, writes: false });
    return Object.freeze(tool);
}
/** Issues for the properties of `value` that do not have the expected JavaScript type. */
function typeIssues(value, expected, required) {
    const issues = [];
    for (const key of required)
        if (value[key] === undefined)
            issues.push({ path: [key], message: "required" });
    for (const [key, type] of Object.entries(expected)) {
        const v = value[key];
        if (v === undefined)
            continue;
        if (type === "integer" ? !Number.isInteger(v) : typeof v !== type)
            issues.push({ path: [key], message: `expected ${type}` });
    }
    for (const key of Object.keys(value))
        if (!(key in expected))
            issues.push({ path: [key], message: "unknown property" });
    return issues;
}
const integer = (description) => ({ type: "integer", description });
/** `tool_output_cache` and `tool_output_cache_grep` over a cache, ready to register. */
function outputCacheTools(cache) {
    const read = defineStandardTool({
        name: "tool_output_cache",
        description: "Reads an earlier tool output that was removed from the conversation, as numbered lines.",
        parameters: {
            type: "object",
            properties: {
                ref_id: { type: "string", description: 'The output_ref of the tool output (e.g. "out-3").' },
                offset: integer("1-based line to start from (default: 1)."),
                limit: integer("Maximum number of lines (default: 200, max: 2000)."),
            },
            required: ["ref_id"],
            additionalProperties: false,
        },
        validate: (v) => typeIssues(v, { ref_id: "string", offset: "integer", limit: "integer" }, ["ref_id"]),
        execute: async (input) => ({ type: "text", text: await cache.read(input.ref_id, input.offset, input.limit) }),
    });
    const grep = defineStandardTool({
        name: "tool_output_cache_grep",
        description: "Searches an earlier tool output that was removed from the conversation; returns numbered matching lines.",
        parameters: {
            type: "object",
            properties: {
                ref_id: { type: "string", description: 'The output_ref of the tool output (e.g. "out-3").' },
                pattern: { type: "string", description: "Text to find (a regular expression when regex is true)." },
                regex: { type: "boolean", description: "Treat pattern as a regular expression (default: false)." },
                before: integer("Context lines before each match (default: 0, max: 20)."),
                after: integer("Context lines after each match (default: 0, max: 20)."),
                max_matches: integer("Maximum number of matches (default: 50, max: 1000)."),
            },
            required: ["ref_id", "pattern"],
            additionalProperties: false,
        },
        validate: (v) => typeIssues(v, { ref_id: "string", pattern: "string", regex: "boolean", before: "integer", after: "integer", max_matches: "integer" }, [
            "ref_id",
            "pattern",
        ]),
        execute: async ({ ref_id, pattern, regex, before, after, max_matches }) => ({
            type: "text",
            text: await cache.grep(ref_id, { pattern, regex, before, after, maxMatches: max_matches }),
        }),
    });
    return [read, grep];
}
/** The optional `done` tool: the model calls it to end a run (the tool loop stops on it). */
exports.doneTool = defineStandardTool({
    name: "done",
    description: "Call when the task is complete, with a short final message for the user.",
    parameters: {
        type: "object",
        properties: { message: { type: "string", description: "Final message for the user." } },
        additionalProperties: false,
    },
    validate: (v) => typeIssues(v, { message: "string" }, []),
    execute: (input) => ({ type: "text", text: input.message ?? "done" }),
});
/** The text that replaces an evicted output in the conversation. */
function evictedPlaceholder(refId, chars) {
    return `[tool output removed from the conversation (${chars} chars); ref_id "${refId}": read it with tool_output_cache or search it with tool_output_cache_grep]`;
}
/**
 * Records the string contents of tool messages (`role: "tool"`) without an `output_ref`, and
 * replaces contents evicted by the budget with a placeholder naming the ref id. Returns a new
 * array; changed messages are new objects carrying `output_ref`.
 */
function applyOutputCache(cache, messages) {
    const out = messages.map((message) => {
        if (message?.role !== "tool" || message.output_ref !== undefined || typeof message.content !== "string")
            return message;
        const { refId } = cache.record(message.content);
        return { ...message, output_ref: refId };
    });
    return out.map((message) => {
        if (message?.role !== "tool" || message.output_ref === undefined || message.evicted === true)
            return message;
        if (cache.isInline(message.output_ref))
            return message;
        return { ...message, content: evictedPlaceholder(message.output_ref, message.content.length), evicted: true };
    });
}
