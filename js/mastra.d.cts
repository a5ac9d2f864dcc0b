// Generated from ts/mastra.cts by `npm run build:ts`: edit that file, not this one.
import { type FrameworkAdapterOptions } from "./adapters.cjs";
import type { AnyToolkit } from "./loop.cjs";
export type { FrameworkAdapterOptions } from "./adapters.cjs";
export type { ReviewDecision, ReviewRequest } from "./loop.cjs";
/**
 * A Mastra tool as `createTool` makes it, the members `new Agent({ tools })` needs. Written out
 * here rather than imported: @mastra/core's bundled typings do not pass a full type check
 * (skipLibCheck: false), which this package's build runs.
 */
export type MastraTool = {
    id: string;
    description: string;
    execute?: (inputData: any, context: any) => Promise<any>;
};
/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as a Mastra tool made with `createTool`, its JSON
 * Schema as `inputSchema`, keyed by name (`new Agent({ tools: toMastraTools(toolkit) })`). The
 * model reads the tool's output; a failed call (policy denial, sandbox, permission rule, invalid
 * arguments, the tool's error) throws its "Error executing tool: ..." text and a call the review
 * hook rejects its "Rejected by review: ..." text, which Mastra hands to the model as the call's
 * error output. The
 * run's `abortSignal` stops the call's native work (Mastra then ends the run and calls `onAbort`).
 */
export declare function toMastraTools(toolkit: AnyToolkit, options?: FrameworkAdapterOptions): Record<string, MastraTool>;
