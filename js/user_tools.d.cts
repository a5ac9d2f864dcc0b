// Generated from ts/user_tools.cts by `npm run build:ts`: edit that file, not this one.
import type { OutputCache } from "../binding.js";
import type { ToolDefinition } from "./providers.cjs";
/** Any zod v4 schema (structurally: its `_zod` input/output types), so zod stays a peer dependency. */
type ZodSchemaLike = {
    _zod: {
        input: unknown;
        output: unknown;
    };
    safeParseAsync(value: unknown): Promise<unknown>;
};
type SchemaInput<S> = S extends {
    _zod: {
        input: infer I;
    };
} ? I : never;
type SchemaOutput<S> = S extends {
    _zod: {
        output: infer O;
    };
} ? O : never;
export type DependencyKey<T> = {
    id: string;
    create: () => T | Promise<T>;
};
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
export type TextPart = {
    type: "text";
    text: string;
};
export type ImagePart = {
    type: "image";
    data: string;
    mimeType: string;
} | {
    type: "image";
    url: string;
};
export type ToolResult = {
    type: "text";
    text: string;
} | {
    type: "parts";
    parts: Array<TextPart | ImagePart>;
} | {
    type: "json";
    value: unknown;
};
/** `executeRaw`'s result: errors are results too (`is_error: true`, text `Error executing tool: ...`). */
export type ToolExecutionResult = ToolResult & {
    is_error?: boolean;
};
declare const toolTypes: unique symbol;
export type Tool<TName extends string = string, TInput = unknown, TResult = unknown> = {
    readonly name: TName;
    readonly description: string;
    readonly definition: ToolDefinition;
    executeRaw(rawArgsJson: string, ctx?: ExecuteRawContext): Promise<ToolExecutionResult>;
    /** Type-level only: the tool's input and result types. */
    readonly [toolTypes]?: {
        input: TInput;
        result: TResult;
    };
};
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
/** Which properties strict mode made nullable (their `null` means "absent"). */
type NullPlan = {
    properties: Record<string, NullPlan>;
    items: NullPlan | null;
    nullHere: boolean;
};
type Issue = {
    path: PropertyKey[];
    message: string;
};
type SafeParseResult = {
    success: true;
    data: unknown;
} | {
    success: false;
    error: {
        issues: Issue[];
    };
};
type InputSchema = {
    safeParseAsync(value: unknown): Promise<SafeParseResult>;
};
type Execute = (input: unknown, ctx: ToolExecutionContext) => unknown;
/** Private parts of a Tool: its schema, execute function and the strict-mode null stripping. */
type ToolInternals = {
    input: InputSchema;
    execute: Execute;
    nullable: NullPlan | null;
    writes: boolean;
};
/** Private parts of each Tool, by tool. */
export declare const toolInternals: WeakMap<object, ToolInternals>;
/** Defines a tool the model can call; see the README section "Your own tools". */
export declare function defineTool<const TName extends string, TSchema extends ZodSchemaLike, TResult>(options: DefineToolOptions<TName, TSchema, TResult>): Tool<TName, SchemaInput<TSchema>, Awaited<TResult>>;
export declare function isTool(value: unknown): value is AnyTool;
/** The per-call context handed to `execute`: signal, logger, now, deps and `resolve(key)`. */
export declare function executionContext(base?: ExecuteRawContext): ToolExecutionContext;
export declare function errorResult(text: string): ToolExecutionResult;
/** Validates already-parsed arguments; resolves the parsed input or rejects with the issues. */
export declare function validateInput(tool: object, args: unknown): Promise<unknown>;
/** Runs `execute`, settling early with an abort error when `signal` fires. */
export declare function runExecute(tool: object, input: unknown, ctx: ToolExecutionContext): Promise<unknown>;
/** What `execute` returned, as a ToolResult: strings are text, ToolResults stay, the rest is json. */
export declare function toToolResult(value: unknown): ToolResult;
/** JSON with object keys sorted at every level (stable across runs and engines). */
export declare function stableStringify(value: unknown): string;
/** A ToolResult as tool-message content: text → string, json → key-sorted JSON text, parts → parts. */
export declare function toToolMessageContent(result: ToolResult): string | Array<TextPart | ImagePart>;
type CacheReadInput = {
    ref_id: string;
    offset?: number;
    limit?: number;
};
type CacheGrepInput = {
    ref_id: string;
    pattern: string;
    regex?: boolean;
    before?: number;
    after?: number;
    max_matches?: number;
};
/** `tool_output_cache` and `tool_output_cache_grep` over a cache, ready to register. */
export declare function outputCacheTools(cache: OutputCache): [Tool<"tool_output_cache", CacheReadInput, ToolResult>, Tool<"tool_output_cache_grep", CacheGrepInput, ToolResult>];
/** The optional `done` tool: the model calls it to end a run (the tool loop stops on it). */
export declare const doneTool: Tool<"done", {
    message?: string;
}, ToolResult>;
/**
 * Records the string contents of tool messages (`role: "tool"`) without an `output_ref`, and
 * replaces contents evicted by the budget with a placeholder naming the ref id. Returns a new
 * array; changed messages are new objects carrying `output_ref`.
 */
export declare function applyOutputCache<M extends {
    role?: unknown;
    content?: unknown;
}>(cache: OutputCache, messages: readonly M[]): Array<M & {
    output_ref?: string;
    evicted?: boolean;
}>;
export {};
