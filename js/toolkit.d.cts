// Generated from ts/toolkit.cts by `npm run build:ts`: edit that file, not this one.
import type { OutputCache as NativeOutputCache } from "../binding.js";
import type { OptInToolName } from "../types/tools.js";
import { type EditHooks } from "./context.cjs";
import { type AnyToolkit } from "./loop.cjs";
import { type CatalogEntry } from "./native.cjs";
import type { AgentToolkit, AgentToolkitOptions, ToolContext } from "./types.cjs";
import { type AnyTool, type ExecuteRawContext, type Tool } from "./user_tools.cjs";
/** What a user tool's execution context starts from (the toolkit's defaults, then the call's). */
type Runtime = ExecuteRawContext;
export type Registered = {
    byName: Map<string, AnyTool>;
    runtime: Runtime;
    optIns: Map<string, CatalogEntry>;
    edits?: EditHooks;
};
type InvokeOutput = {
    role: "function";
    name: unknown;
    content: unknown;
};
/**
 * `toolkit.invoke(name, args)`: resolves with `{ role, name, content }`, rejects on any error.
 * With `asText` it resolves with the output as JSON text instead (the tool loop's output for the
 * model): a built-in's text as it left Rust, which is `JSON.stringify` of its parsed value.
 */
export declare function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText?: false): Promise<InvokeOutput>;
export declare function invoke(context: ToolContext, name: unknown, args: unknown, registered: Registered, asText: true, approved?: boolean): Promise<string>;
/** Toolkit internals (user tools, enabled opt-in tools, DI defaults), for `asTools`, the tool loop and `invokeWithSignal`. */
export declare const toolkitState: WeakMap<object, {
    context: ToolContext;
    registered: Registered;
}>;
/**
 * `createAgentToolkit(context)` exactly as agent-tools-ts; `options.tools` registers user tools
 * (from `defineTool`), `options.extraTools` enables opt-in tools, `options.deps` /
 * `options.overrides` / `options.logger` / `options.now` are the defaults of the user tools'
 * execution context.
 */
export declare const createAgentToolkit: {
    (context: ToolContext): AgentToolkit;
    <const TTools extends readonly AnyTool[], const TOptIn extends OptInToolName = never>(context: ToolContext, options: AgentToolkitOptions<TTools, TOptIn>): AgentToolkit<TTools[number], TOptIn>;
};
/**
 * Every tool of a toolkit (built-ins in declaration order, then the enabled opt-in tools, then
 * user tools) as a `Tool`, whose `executeRaw(json, ctx)` goes through the toolkit's `invoke`
 * (policy, sandbox, validation) and never throws, so a loop can treat all tools alike.
 */
export declare const asTools: (toolkit: AnyToolkit) => Tool[];
/**
 * `toolkit.invoke(name, args)` with an AbortSignal for the call (a built-in's native work and an
 * `exec_command`'s process group are stopped when it fires) and a user tool's execute receiving it.
 * Resolves the output (the invoke result's `content`) and rejects as `invoke` does. Not part of
 * the package's API: the command line and MCP server (cli.cts) use it.
 */
export declare function invokeWithSignal(toolkit: object, name: string, args: unknown, signal?: AbortSignal): Promise<unknown>;
/**
 * Tool outputs kept whole while their total stays under `budgetChars` (UTF-16 units, default
 * 100 000); older ones are evicted from the conversation but stay readable by id (`out-1`, ...).
 */
export declare const OutputCache: typeof NativeOutputCache;
export type OutputCache = NativeOutputCache;
export {};
