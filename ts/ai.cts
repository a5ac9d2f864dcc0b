// `agent-tools-native/ai`: a toolkit as an AI SDK ToolSet (`generateText({ tools })`). The AI SDK
// (`ai`) is an optional peer dependency, loaded when this function is first called.

import type { ToolSet } from "ai" with { "resolution-mode": "import" };
import { adapterTools, type FrameworkAdapterOptions, requirePeer } from "./adapters.cjs";
import type { AnyToolkit } from "./loop.cjs";

export type { FrameworkAdapterOptions } from "./adapters.cjs";
export type { ReviewDecision, ReviewRequest } from "./loop.cjs";

type AiModule = typeof import("ai", { with: { "resolution-mode": "import" } });

/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as an AI SDK tool, made with the AI SDK's `tool()` and
 * `jsonSchema()`. A failed call (policy denial, sandbox, invalid arguments, the tool's error)
 * throws its "Error executing tool: ..." text, which the AI SDK hands to the model as the call's
 * error output (a `tool-error` part of the step); a call the review hook rejects returns
 * "Rejected by review: ...". The call's `abortSignal` (generateText's) stops its native work.
 */
export function toAISDKTools(toolkit: AnyToolkit, options?: FrameworkAdapterOptions): ToolSet {
  const tools = adapterTools(toolkit, options, "toAISDKTools");
  const { tool, jsonSchema } = requirePeer("toAISDKTools", "the AI SDK", "ai", (): AiModule => require("ai"));
  const set: ToolSet = {};
  for (const t of tools) {
    set[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema<unknown>(t.parameters as Parameters<typeof jsonSchema>[0]),
      execute: async (input: unknown, { toolCallId, abortSignal }: { toolCallId: string; abortSignal?: AbortSignal }) => {
        const outcome = await t.run(input, { id: toolCallId, signal: abortSignal });
        if (outcome.status === "error") throw new Error(outcome.text);
        return outcome.text;
      },
    });
  }
  return set;
}
