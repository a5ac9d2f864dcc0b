// Generated from ts/ai.cts by `npm run build:ts`: edit that file, not this one.
import type { ToolSet } from "ai" with { "resolution-mode": "import" };
import { type FrameworkAdapterOptions } from "./adapters.cjs";
import type { AnyToolkit } from "./loop.cjs";
export type { FrameworkAdapterOptions } from "./adapters.cjs";
export type { ReviewDecision, ReviewRequest } from "./loop.cjs";
/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as an AI SDK tool, made with the AI SDK's `tool()` and
 * `jsonSchema()`, with its effect class as `effect`. Writes and commands (`options.approval`)
 * have `needsApproval`: the AI SDK stops at a `tool-approval-request` and runs the call once a
 * `tool-approval-response` approves it (a denial reaches the model as `execution-denied`). A
 * failed call (policy denial, sandbox, permission rule, invalid arguments, the tool's error) and
 * a call the review hook rejects throw their text, which the AI SDK hands to the model as the
 * call's error output (a `tool-error` part). The call's `abortSignal` stops its native work.
 */
export declare function toAISDKTools(toolkit: AnyToolkit, options?: FrameworkAdapterOptions): ToolSet;
