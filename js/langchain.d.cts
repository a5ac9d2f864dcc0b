// Generated from ts/langchain.cts by `npm run build:ts`: edit that file, not this one.
import type { DynamicStructuredTool } from "@langchain/core/tools" with { "resolution-mode": "import" };
import { type FrameworkAdapterOptions } from "./adapters.cjs";
import type { AnyToolkit } from "./loop.cjs";
export type { FrameworkAdapterOptions } from "./adapters.cjs";
export type { ReviewDecision, ReviewRequest } from "./loop.cjs";
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
export declare function toLangChainTools(toolkit: AnyToolkit, options?: FrameworkAdapterOptions): DynamicStructuredTool[];
/** One tool's entry of humanInTheLoopMiddleware's `interruptOn`. */
export type InterruptOnEntry = {
    allowedDecisions: ("approve" | "edit" | "reject")[];
    when: (request: {
        toolCall: {
            id?: string;
            args: unknown;
        };
    }) => Promise<boolean>;
};
/**
 * The `interruptOn` of LangChain's `humanInTheLoopMiddleware` for tools made by
 * toLangChainTools: a call interrupts the agent when the tools' `approval` option says it waits
 * (by default writes and commands; always a call a permission rule asks about). Approved or
 * edited, it runs (and a permission rule's ask is satisfied); rejected, it never does.
 */
export declare function toLangChainInterruptOn(tools: ReadonlyArray<object>): Record<string, InterruptOnEntry>;
