// User-defined tools (README, "Your own tools"): defineTool over a zod v4 schema, JSON Schema for
// the model, executeRaw (parse → validate → execute → ToolResult, never throwing), dependency
// injection and the conversion of results to tool-message content. zod is a peer dependency, loaded
// on first use.

import type { OutputCache } from "../binding.js";
import { parseArguments } from "./loop.cjs";
import type { ToolDefinition } from "./providers.cjs";

// ---- public types ---------------------------------------------------------------------------------

/** Any zod v4 schema (structurally: its `_zod` input/output types), so zod stays a peer dependency. */
type ZodSchemaLike = { _zod: { input: unknown; output: unknown }; safeParseAsync(value: unknown): Promise<unknown> };
type SchemaInput<S> = S extends { _zod: { input: infer I } } ? I : never;
type SchemaOutput<S> = S extends { _zod: { output: infer O } } ? O : never;

export type DependencyKey<T> = { id: string; create: () => T | Promise<T> };
export type DependencyOverrides = Map<string, () => unknown | Promise<unknown>>;
export type Logger = {
  debug?(...args: unknown[]): void;
  info?(...args: unknown[]): void;
  warn?(...args: unknown[]): void;
  error?(...args: unknown[]): void;
};

/** What `execute` receives (not named `ToolContext`: that is the workspace context). */
export type ToolExecutionContext = {
  signal?: AbortSignal;
  logger?: Logger;
  now: () => Date;
  deps: Record<string, unknown>;
  /** Resolves a dependency: an override with the same id, else `create()`; cached for the call. */
  resolve: <T>(key: DependencyKey<T>) => Promise<T>;
};

/** The context `executeRaw` accepts (everything optional). */
export type ExecuteRawContext = {
  signal?: AbortSignal;
  logger?: Logger;
  now?: () => Date;
  deps?: Record<string, unknown>;
  overrides?: DependencyOverrides;
};

export type TextPart = { type: "text"; text: string };
export type ImagePart = { type: "image"; data: string; mimeType: string } | { type: "image"; url: string };
export type ToolResult = { type: "text"; text: string } | { type: "parts"; parts: Array<TextPart | ImagePart> } | { type: "json"; value: unknown };
/** `executeRaw`'s result: errors are results too (`is_error: true`, text `Error executing tool: ...`). */
export type ToolExecutionResult = ToolResult & { is_error?: boolean };

declare const toolTypes: unique symbol;
export type Tool<TName extends string = string, TInput = unknown, TResult = unknown> = {
  readonly name: TName;
  readonly description: string;
  readonly definition: ToolDefinition;
  executeRaw(rawArgsJson: string, ctx?: ExecuteRawContext): Promise<ToolExecutionResult>;
  /** Type-level only: the tool's input and result types. */
  readonly [toolTypes]?: { input: TInput; result: TResult };
};
// biome-ignore lint/suspicious/noExplicitAny: a tool of any input and result type
export type AnyTool = Tool<string, any, any>;
export type ToolInput<T> = T extends Tool<string, infer I, unknown> ? I : never;
export type ToolOutput<T> = T extends Tool<string, unknown, infer R> ? R : never;

export type DefineToolOptions<TName extends string, TSchema extends ZodSchemaLike, TResult> = {
  /** Portable name: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`. */
  name: TName;
  description: string;
  input: TSchema;
  /** Emit an OpenAI strict-mode schema; throws at definition time when the schema cannot be strict. */
  strict?: boolean;
  /** A tool that changes things: denied in `read-only` write scope, like write_file. */
  writes?: boolean;
  execute: (input: SchemaOutput<TSchema>, ctx: ToolExecutionContext) => TResult | Promise<TResult>;
};

// ---- internals ------------------------------------------------------------------------------------

/** A JSON Schema node as zod emits it (the keywords the rewriting below reads). */
type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  definitions?: Record<string, JsonSchema>;
  $defs?: Record<string, JsonSchema>;
  enum?: unknown[];
  [keyword: string]: unknown;
};

/** Which properties strict mode made nullable (their `null` means "absent"). */
type NullPlan = { properties: Record<string, NullPlan>; items: NullPlan | null; nullHere: boolean };

type Issue = { path: PropertyKey[]; message: string };
type SafeParseResult = { success: true; data: unknown } | { success: false; error: { issues: Issue[] } };
type InputSchema = { safeParseAsync(value: unknown): Promise<SafeParseResult> };
type Execute = (input: unknown, ctx: ToolExecutionContext) => unknown;

/** Private parts of a Tool: its schema, execute function and the strict-mode null stripping. */
type ToolInternals = { input: InputSchema; execute: Execute; nullable: NullPlan | null; writes: boolean };

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
export const toolInternals = new WeakMap<object, ToolInternals>();

/** The internals of a tool made here (callers check `isTool` first). */
const internalsOf = (tool: object) => toolInternals.get(tool) as ToolInternals;

type ZodApi = { toJSONSchema(schema: unknown, params: { target: "draft-7"; io: "input" }): JsonSchema };

let zodModule: (ZodApi & { z?: ZodApi }) | undefined;
function zod(): ZodApi {
  if (!zodModule) {
    try {
      zodModule = require("zod");
    } catch {
      throw new Error("defineTool needs zod v4: npm install zod@4");
    }
  }
  const loaded = zodModule as ZodApi & { z?: ZodApi };
  return loaded.z ?? loaded;
}

class ToolDefinitionError extends TypeError {
  constructor(toolName: unknown, message: string) {
    super(`defineTool(${JSON.stringify(toolName)}): ${message}`);
    this.name = "ToolDefinitionError";
  }
}

/** Defines a tool the model can call; see the README section "Your own tools". */
export function defineTool<const TName extends string, TSchema extends ZodSchemaLike, TResult>(
  options: DefineToolOptions<TName, TSchema, TResult>,
): Tool<TName, SchemaInput<TSchema>, Awaited<TResult>> {
  const { name, description, input, execute, strict = false, writes = false } = (options ?? {}) as Partial<DefineToolOptions<TName, TSchema, TResult>>;
  if (typeof name !== "string" || !PORTABLE_TOOL_NAME.test(name)) {
    throw new ToolDefinitionError(name, "the name must match ^[A-Za-z_][A-Za-z0-9_-]{0,63}$ (portable across providers)");
  }
  if (typeof description !== "string") throw new ToolDefinitionError(name, "description must be a string");
  if (!input || typeof input.safeParseAsync !== "function") throw new ToolDefinitionError(name, "input must be a zod v4 schema");
  if (typeof execute !== "function") throw new ToolDefinitionError(name, "execute must be a function");

  const { parameters, nullable } = toolParameters(input, name, strict);
  const fn = strict ? { name, description, parameters, strict: true } : { name, description, parameters };
  const tool: Tool<TName, SchemaInput<TSchema>, Awaited<TResult>> = {
    name,
    description,
    definition: { type: "function", function: fn },
    executeRaw: (rawArgsJson, ctx) => executeRaw(tool, rawArgsJson, ctx),
  };
  toolInternals.set(tool, { input: input as unknown as InputSchema, execute: execute as Execute, nullable, writes: writes === true });
  return Object.freeze(tool);
}

export function isTool(value: unknown): value is AnyTool {
  return toolInternals.has(value as object);
}

// ---- JSON Schema -------------------------------------------------------------------------------

function toolParameters(schema: unknown, toolName: string, strict: boolean): { parameters: JsonSchema; nullable: NullPlan | null } {
  let json: JsonSchema;
  try {
    json = zod().toJSONSchema(schema, { target: "draft-7", io: "input" });
  } catch (error) {
    throw new ToolDefinitionError(toolName, `the input schema cannot be expressed as JSON Schema: ${(error as Error).message}`);
  }
  delete json.$schema;
  if (json.type !== "object") throw new ToolDefinitionError(toolName, "the input schema must be an object schema (z.object(...))");
  closeObjects(json);
  const nullable = strict ? makeStrict(json, toolName, "$") : null;
  return { parameters: json, nullable };
}

type Step = { property: string } | { items: true } | { same: true } | null;

/** Sub-schemas of a JSON Schema node, with the step that reaches them (for null stripping). */
function* children(node: JsonSchema): Generator<[JsonSchema, Step]> {
  for (const [key, child] of Object.entries(node.properties ?? {})) yield [child, { property: key }];
  if (node.items && !Array.isArray(node.items)) yield [node.items, { items: true }];
  if (Array.isArray(node.items)) for (const child of node.items) yield [child, null];
  for (const key of ["anyOf", "allOf", "oneOf"] as const) for (const child of node[key] ?? []) yield [child, { same: true }];
  for (const key of ["definitions", "$defs"] as const) for (const child of Object.values(node[key] ?? {})) yield [child, null];
  if (node.additionalProperties && typeof node.additionalProperties === "object") yield [node.additionalProperties, null];
}

/** `additionalProperties: false` on every object that does not say otherwise. */
function closeObjects(node: JsonSchema): void {
  if (!node || typeof node !== "object") return;
  if ((node.type === "object" || node.properties) && !("additionalProperties" in node)) node.additionalProperties = false;
  for (const [child] of children(node)) closeObjects(child);
}

/**
 * Rewrites `node` for OpenAI strict mode: every property required, optional ones nullable,
 * `default` removed; refuses what strict mode cannot express. Returns the plan of properties made
 * nullable, used to turn the model's `null` back into "absent" before validation.
 */
function makeStrict(node: JsonSchema, toolName: string, path: string): NullPlan {
  const refuse = (why: string): never => {
    throw new ToolDefinitionError(toolName, `strict mode: ${why} at ${path}`);
  };
  const isObject = node.type === "object" || node.properties;
  const isArray = node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"));
  if (isObject && node.additionalProperties !== false) refuse("open objects and records (z.record, z.looseObject) are not supported");
  if (isArray && (!node.items || Array.isArray(node.items))) refuse("arrays need a single items schema (tuples are not supported)");
  for (const key of STRICT_UNSUPPORTED) if (key in node) refuse(`the keyword "${key}" is not supported`);
  delete node.default;
  const plan: NullPlan = { properties: {}, items: null, nullHere: false };
  if (isObject) {
    const required = new Set(node.required ?? []);
    const properties = node.properties ?? {};
    for (const key of Object.keys(properties)) {
      const childPlan = makeStrict(properties[key] as JsonSchema, toolName, `${path}.${key}`);
      if (!required.has(key)) {
        properties[key] = nullable(properties[key] as JsonSchema);
        childPlan.nullHere = true;
      }
      plan.properties[key] = childPlan;
    }
    node.properties = properties;
    node.required = Object.keys(properties);
  }
  if (isArray) {
    plan.items = makeStrict(node.items as JsonSchema, toolName, `${path}[]`);
  }
  for (const key of ["anyOf", "allOf"] as const) {
    (node[key] ?? []).forEach((child, i) => {
      makeStrict(child, toolName, `${path}.${key}[${i}]`);
    });
  }
  for (const key of ["definitions", "$defs"] as const) {
    for (const [name, child] of Object.entries(node[key] ?? {})) makeStrict(child, toolName, `${path}.${key}.${name}`);
  }
  return plan;
}

function nullable(schema: JsonSchema): JsonSchema {
  const copy = { ...schema };
  if (typeof copy.type === "string") copy.type = [copy.type, "null"];
  else if (Array.isArray(copy.type)) copy.type = copy.type.includes("null") ? copy.type : [...copy.type, "null"];
  else if (Array.isArray(copy.anyOf)) return { ...copy, anyOf: [...copy.anyOf, { type: "null" }] };
  else return { anyOf: [copy, { type: "null" }] };
  if (Array.isArray(copy.enum) && !copy.enum.includes(null)) copy.enum = [...copy.enum, null];
  return copy;
}

/** Deletes the `null`s a strict-mode model sends for optional properties. */
function stripNulls(value: unknown, plan: NullPlan | null | undefined): unknown {
  if (!plan || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return plan.items ? value.map((v) => stripNulls(v, plan.items)) : value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const childPlan = plan.properties[key];
    if (v === null && childPlan?.nullHere) continue;
    out[key] = stripNulls(v, childPlan);
  }
  return out;
}

// ---- execution ----------------------------------------------------------------------------------

/** The per-call context handed to `execute`: signal, logger, now, deps and `resolve(key)`. */
export function executionContext(base: ExecuteRawContext = {}): ToolExecutionContext {
  const overrides = base.overrides instanceof Map ? base.overrides : new Map<string, () => unknown>();
  const resolved = new Map<string, Promise<unknown>>();
  return {
    signal: base.signal,
    logger: base.logger,
    now: base.now ?? (() => new Date()),
    deps: base.deps ?? {},
    resolve<T>(key: DependencyKey<T>): Promise<T> {
      if (!key || typeof key.id !== "string" || typeof key.create !== "function") {
        return Promise.reject(new TypeError("resolve(key) needs a DependencyKey { id, create }"));
      }
      if (!resolved.has(key.id)) {
        const create = overrides.get(key.id) ?? key.create;
        resolved.set(key.id, Promise.resolve().then(() => create()));
      }
      return resolved.get(key.id) as Promise<T>;
    },
  };
}

export function errorResult(text: string): ToolExecutionResult {
  return { type: "text", text: `Error executing tool: ${text}`, is_error: true };
}

function formatIssues(issues: Issue[]): string {
  return issues.map((issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`).join("; ");
}

/** Validates already-parsed arguments; resolves the parsed input or rejects with the issues. */
export async function validateInput(tool: object, args: unknown): Promise<unknown> {
  const { input, nullable } = internalsOf(tool);
  const parsed = await input.safeParseAsync(stripNulls(args, nullable));
  if (!parsed.success) {
    const error = new Error(`INVALID_ARGUMENT: ${formatIssues(parsed.error.issues)}`) as Error & { code?: string; issues?: Issue[] };
    error.name = "UserToolError";
    error.code = "INVALID_ARGUMENT";
    error.issues = parsed.error.issues;
    throw error;
  }
  return parsed.data;
}

/** Runs `execute`, settling early with an abort error when `signal` fires. */
export function runExecute(tool: object, input: unknown, ctx: ToolExecutionContext): Promise<unknown> {
  const { execute } = internalsOf(tool);
  const work = Promise.resolve().then(() => execute(input, ctx));
  const signal = ctx.signal;
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new Error("aborted"));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** JSON text in, ToolResult out; every failure becomes an `is_error` result. */
async function executeRaw(tool: object, rawArgsJson: string | null | undefined, ctx: ExecuteRawContext = {}): Promise<ToolExecutionResult> {
  try {
    const parsed = parseArguments(rawArgsJson);
    if ("error" in parsed) return errorResult(parsed.error);
    const { args } = parsed;
    let input: unknown;
    try {
      input = await validateInput(tool, args);
    } catch (error) {
      return errorResult(`invalid arguments: ${formatIssues((error as { issues?: Issue[] }).issues ?? [])}`);
    }
    return toToolResult(await runExecute(tool, input, executionContext(ctx)));
  } catch (error) {
    return errorResult(error instanceof Error ? error.message : String(error));
  }
}

// ---- results ------------------------------------------------------------------------------------

function isToolResult(value: unknown): value is ToolResult {
  if (!value || typeof value !== "object") return false;
  const v = value as { type?: unknown; text?: unknown; parts?: unknown };
  return (v.type === "text" && typeof v.text === "string") || (v.type === "parts" && Array.isArray(v.parts)) || (v.type === "json" && "value" in v);
}

/** What `execute` returned, as a ToolResult: strings are text, ToolResults stay, the rest is json. */
export function toToolResult(value: unknown): ToolResult {
  if (typeof value === "string") return { type: "text", text: value };
  if (isToolResult(value)) return value;
  return { type: "json", value };
}

/** JSON with object keys sorted at every level (stable across runs and engines). */
export function stableStringify(value: unknown): string {
  const sort = (input: unknown): unknown => {
    let v = input;
    if (v && typeof (v as { toJSON?: unknown }).toJSON === "function") v = (v as { toJSON(): unknown }).toJSON();
    if (Array.isArray(v)) return v.map((item) => (item === undefined || typeof item === "function" ? null : sort(item)));
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) out[key] = sort((v as Record<string, unknown>)[key]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value)) ?? "null";
}

/** A ToolResult as tool-message content: text → string, json → key-sorted JSON text, parts → parts. */
export function toToolMessageContent(result: ToolResult): string | Array<TextPart | ImagePart> {
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

// ---- standard tools -------------------------------------------------------------------------------

type StandardToolSpec<TName extends string, TInput> = {
  name: TName;
  description: string;
  parameters: JsonSchema;
  /** The issues of `args` (empty when valid). */
  validate: (args: Record<string, unknown>) => Issue[];
  execute: (input: TInput) => ToolResult | Promise<ToolResult>;
};

/** A tool with a hand-written JSON Schema and validator (the standard tools need no zod). */
function defineStandardTool<TName extends string, TInput>({
  name,
  description,
  parameters,
  validate,
  execute,
}: StandardToolSpec<TName, TInput>): Tool<TName, TInput, ToolResult> {
  const input: InputSchema = {
    async safeParseAsync(value) {
      const issues =
        value && typeof value === "object" && !Array.isArray(value)
          ? validate(value as Record<string, unknown>)
          : [{ path: [], message: "expected an object" }];
      return issues.length ? { success: false, error: { issues } } : { success: true, data: value };
    },
  };
  const tool: Tool<TName, TInput, ToolResult> = {
    name,
    description,
    definition: { type: "function", function: { name, description, parameters } },
    executeRaw: (rawArgsJson, ctx) => executeRaw(tool, rawArgsJson, ctx),
  };
  toolInternals.set(tool, { input, execute: execute as Execute, nullable: null, writes: false });
  return Object.freeze(tool);
}

type JsType = "string" | "boolean" | "integer";

/** Issues for the properties of `value` that do not have the expected JavaScript type. */
function typeIssues(value: Record<string, unknown>, expected: Record<string, JsType>, required: string[]): Issue[] {
  const issues: Issue[] = [];
  for (const key of required) if (value[key] === undefined) issues.push({ path: [key], message: "required" });
  for (const [key, type] of Object.entries(expected)) {
    const v = value[key];
    if (v === undefined) continue;
    if (type === "integer" ? !Number.isInteger(v) : typeof v !== type) issues.push({ path: [key], message: `expected ${type}` });
  }
  for (const key of Object.keys(value)) if (!(key in expected)) issues.push({ path: [key], message: "unknown property" });
  return issues;
}

const integer = (description: string) => ({ type: "integer", description });

type CacheReadInput = { ref_id: string; offset?: number; limit?: number };
type CacheGrepInput = { ref_id: string; pattern: string; regex?: boolean; before?: number; after?: number; max_matches?: number };

/** `tool_output_cache` and `tool_output_cache_grep` over a cache, ready to register. */
export function outputCacheTools(
  cache: OutputCache,
): [Tool<"tool_output_cache", CacheReadInput, ToolResult>, Tool<"tool_output_cache_grep", CacheGrepInput, ToolResult>] {
  const read = defineStandardTool<"tool_output_cache", CacheReadInput>({
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
  const grep = defineStandardTool<"tool_output_cache_grep", CacheGrepInput>({
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
    validate: (v) =>
      typeIssues(v, { ref_id: "string", pattern: "string", regex: "boolean", before: "integer", after: "integer", max_matches: "integer" }, [
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
export const doneTool: Tool<"done", { message?: string }, ToolResult> = defineStandardTool<"done", { message?: string }>({
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
function evictedPlaceholder(refId: string, chars: number): string {
  return `[tool output removed from the conversation (${chars} chars); ref_id "${refId}": read it with tool_output_cache or search it with tool_output_cache_grep]`;
}

type CachedMessage = { role?: unknown; content?: unknown; output_ref?: string; evicted?: boolean };

/**
 * Records the string contents of tool messages (`role: "tool"`) without an `output_ref`, and
 * replaces contents evicted by the budget with a placeholder naming the ref id. Returns a new
 * array; changed messages are new objects carrying `output_ref`.
 */
export function applyOutputCache<M extends { role?: unknown; content?: unknown }>(
  cache: OutputCache,
  messages: readonly M[],
): Array<M & { output_ref?: string; evicted?: boolean }> {
  const out = (messages as readonly CachedMessage[]).map((message) => {
    if (message?.role !== "tool" || message.output_ref !== undefined || typeof message.content !== "string") return message;
    const { refId } = cache.record(message.content);
    return { ...message, output_ref: refId };
  });
  return out.map((message) => {
    if (message?.role !== "tool" || message.output_ref === undefined || message.evicted === true) return message;
    if (cache.isInline(message.output_ref)) return message;
    return { ...message, content: evictedPlaceholder(message.output_ref, (message.content as string).length), evicted: true };
  }) as Array<M & { output_ref?: string; evicted?: boolean }>;
}
