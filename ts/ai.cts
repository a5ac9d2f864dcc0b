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
 * `jsonSchema()`, with its effect class as `effect`. Writes and commands (`options.approval`)
 * have `needsApproval`: the AI SDK stops at a `tool-approval-request` and runs the call once a
 * `tool-approval-response` approves it (a denial reaches the model as `execution-denied`). A
 * failed call (policy denial, sandbox, permission rule, invalid arguments, the tool's error) and
 * a call the review hook rejects throw their text, which the AI SDK hands to the model as the
 * call's error output (a `tool-error` part). The call's `abortSignal` stops its native work.
 */
export function toAISDKTools(toolkit: AnyToolkit, options?: FrameworkAdapterOptions): ToolSet {
  const tools = adapterTools(toolkit, options, "toAISDKTools");
  const { tool, jsonSchema } = requirePeer("toAISDKTools", "the AI SDK", "ai", (): AiModule => require("ai"));
  const set: ToolSet = {};
  for (const t of tools) {
    const made = tool({
      description: t.description,
      inputSchema: jsonSchema<unknown>(t.parameters as Parameters<typeof jsonSchema>[0]),
      needsApproval: (input: unknown) => t.needsApproval(input),
      execute: async (input: unknown, { toolCallId, abortSignal }: { toolCallId: string; abortSignal?: AbortSignal }) => {
        // The AI SDK runs a call that needs approval only once it was approved.
        const outcome = await t.run(input, { id: toolCallId, signal: abortSignal, approved: true });
        if (outcome.status !== "ok") throw new Error(outcome.text);
        return outcome.text;
      },
    });
    set[t.name] = Object.assign(made, { effect: t.effect });
  }
  return set;
}
