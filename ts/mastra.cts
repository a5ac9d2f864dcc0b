// `agent-tools-native/mastra`: a toolkit as Mastra tools (`new Agent({ tools })`). `@mastra/core`
// is an optional peer dependency, loaded when this function is first called.

import { adapterTools, type FrameworkAdapterOptions, requirePeer } from "./adapters.cjs";
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
  // biome-ignore lint/suspicious/noExplicitAny: the tool's input is described by its JSON Schema only
  execute?: (inputData: any, context: any) => Promise<any>;
};
type CreateTool = (options: {
  id: string;
  description: string;
  inputSchema: Record<string, unknown>;
  requireApproval: (input: unknown) => Promise<boolean>;
  execute: (input: unknown, context: { abortSignal?: AbortSignal; agent?: { toolCallId?: string } }) => Promise<string>;
}) => MastraTool;

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
export function toMastraTools(toolkit: AnyToolkit, options?: FrameworkAdapterOptions): Record<string, MastraTool> {
  const tools = adapterTools(toolkit, options, "toMastraTools");
  const { createTool } = requirePeer("toMastraTools", "Mastra", "@mastra/core", (): { createTool: CreateTool } => require("@mastra/core/tools"));
  const set: Record<string, MastraTool> = {};
  for (const t of tools) {
    set[t.name] = Object.assign(createTool({
      id: t.name,
      description: t.description,
      inputSchema: t.parameters,
      requireApproval: (input) => t.needsApproval(input),
      execute: async (input, context) => {
        // Mastra runs a call that requires approval only once it was approved.
        const outcome = await t.run(input, { id: context?.agent?.toolCallId, signal: context?.abortSignal, approved: true });
        if (outcome.status !== "ok") throw new Error(outcome.text);
        return outcome.text;
      },
    }), { effect: t.effect });
  }
  return set;
}
