// `agent-tools-native/openai-agents`: a toolkit as OpenAI Agents SDK function tools
// (`new Agent({ tools })`). `@openai/agents` is an optional peer dependency, loaded when this
// function is first called.

// Types from @openai/agents-core, the package @openai/agents re-exports (its own typings do not
// check from CommonJS); the runtime `tool` is @openai/agents' (the package users install).
import type { FunctionTool, tool as toolFunction } from "@openai/agents-core";
import { adapterTools, type FrameworkAdapterOptions, requirePeer } from "./adapters.cjs";
import type { AnyToolkit } from "./loop.cjs";

export type { FrameworkAdapterOptions } from "./adapters.cjs";
export type { ReviewDecision, ReviewRequest } from "./loop.cjs";

type AgentsModule = { tool: typeof toolFunction };
type ToolOptions = Parameters<AgentsModule["tool"]>[0];

/**
 * Each tool of `toolkit` (built-ins the policy allows, enabled opt-in tools, user tools; with
 * `options.outputCache`, the cache tools) as a function tool made with the SDK's `tool()`, its
 * JSON Schema as `parameters` (`strict: false`: the toolkit validates the arguments). The model
 * reads every outcome as the call's output: the tool's output, "Error executing tool: ..." for a
 * failed call (policy denial, sandbox, invalid arguments, the tool's error), "Rejected by review:
 * ..." for a call the review hook rejects. The run's `signal` stops the call's native work and
 * the run rejects with the abort.
 */
export function toOpenAIAgentsTools(toolkit: AnyToolkit, options?: FrameworkAdapterOptions): FunctionTool[] {
  const tools = adapterTools(toolkit, options, "toOpenAIAgentsTools");
  const { tool } = requirePeer("toOpenAIAgentsTools", "the OpenAI Agents SDK", "@openai/agents", (): AgentsModule => require("@openai/agents"));
  return tools.map((t) =>
    Object.assign(
    tool({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
      needsApproval: async (_context: unknown, input: unknown) => t.needsApproval(input),
      execute: async (input: unknown, _context: unknown, details?: { toolCall?: { callId?: string }; signal?: AbortSignal }) => {
        // The SDK runs a call that needs approval only once `state.approve` approved it.
        const outcome = await t.run(input, { id: details?.toolCall?.callId, signal: details?.signal, approved: true });
        return outcome.text;
      },
      // Failures are outputs already; only an abort is thrown, and it ends the run.
      errorFunction: null,
    } as unknown as ToolOptions),
    { effect: t.effect },
    ),
  ) as unknown as FunctionTool[];
}
