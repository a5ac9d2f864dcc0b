// Generated from ts/openai_agents.cts by `npm run build:ts`: edit that file, not this one.
import type { FunctionTool } from "@openai/agents-core";
import { type FrameworkAdapterOptions } from "./adapters.cjs";
import type { AnyToolkit } from "./loop.cjs";
export type { FrameworkAdapterOptions } from "./adapters.cjs";
export type { ReviewDecision, ReviewRequest } from "./loop.cjs";
/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as a function tool made with the SDK's `tool()`, its
 * JSON Schema as `parameters` (`strict: false`: the toolkit validates the arguments). The model
 * reads every outcome as the call's output: the tool's output, "Error executing tool: ..." for a
 * failed call (policy denial, sandbox, invalid arguments, the tool's error), "Rejected by review:
 * ..." for a call the review hook rejects. The run's `signal` stops the call's native work and
 * the run rejects with the abort.
 */
export declare function toOpenAIAgentsTools(toolkit: AnyToolkit, options?: FrameworkAdapterOptions): FunctionTool[];
