// Compile-time checks for user-defined tools (README, "Your own tools").
import { z } from "zod";
import {
  asTools,
  createAgentToolkit,
  createToolContext,
  defineTool,
  toToolMessageContent,
  type DependencyKey,
  type Tool,
  type ToolExecutionResult,
} from "agent-tools-native";

const clock: DependencyKey<{ now(): number }> = { id: "clock", create: () => ({ now: () => 1 }) };

const weather = defineTool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string(), days: z.number().int().default(1) }),
  execute: async (input, ctx) => {
    const city: string = input.city;
    const days: number = input.days; // output type: the default is applied
    const c = await ctx.resolve(clock);
    const t: number = c.now();
    return { city, days, t };
  },
});

const name: "get_weather" = weather.name;
void name;

// @ts-expect-error execute's input is typed from the schema
defineTool({ name: "x", description: "", input: z.object({ a: z.string() }), execute: (input) => input.b });

export async function usage(): Promise<void> {
  const ctx = createToolContext<"get_weather">({
    workspaceRoot: "/ws",
    policy: { tools: { get_weather: "allow", read_file: "allow" }, defaultPolicy: "deny" },
  });
  const toolkit = createAgentToolkit(ctx, { tools: [weather] });
  const out = await toolkit.invoke("get_weather", { city: "Oslo" }); // `days` optional on input
  const days: number = out.content.days;
  const outName: "get_weather" = out.name;
  const read = await toolkit.invoke("read_file", { path: "a" });
  const text: string = read.content.content;
  // @ts-expect-error city must be a string
  await toolkit.invoke("get_weather", { city: 5 });
  // @ts-expect-error city is required
  await toolkit.invoke("get_weather", {});
  // @ts-expect-error unknown tool
  await toolkit.invoke("get_wether", { city: "x" });
  // @ts-expect-error the result has no such field
  out.content.temperature;
  const all: Tool[] = asTools(toolkit);
  const result: ToolExecutionResult = await all[0].executeRaw("{}");
  const content = toToolMessageContent(result);
  void days, outName, text, content;
}

// @ts-expect-error user tool names in a policy need the explicit type argument
createToolContext({ workspaceRoot: "/ws", policy: { tools: { get_weather: "allow" }, defaultPolicy: "deny" } });

import { applyOutputCache, doneTool, OutputCache, outputCacheTools } from "agent-tools-native";

export async function cacheTyping(): Promise<void> {
  const cache = new OutputCache(1000);
  const { refId, evicted } = cache.record("text");
  const page: string = await cache.read(refId, 1, 10);
  const hits: string = await cache.grep(refId, { pattern: "x", maxMatches: 3 });
  const [read, grep] = outputCacheTools(cache);
  const ctx = createToolContext<"tool_output_cache" | "tool_output_cache_grep" | "done">({
    workspaceRoot: "/ws",
    policy: { tools: { done: "allow" }, defaultPolicy: "deny" },
  });
  const toolkit = createAgentToolkit(ctx, { tools: [read, grep, doneTool] });
  await toolkit.invoke("tool_output_cache", { ref_id: refId });
  // @ts-expect-error ref_id is required
  await toolkit.invoke("tool_output_cache_grep", { pattern: "x" });
  const messages = applyOutputCache(cache, [{ role: "tool", content: "x", tool_call_id: "1" }]);
  const ref: string | undefined = messages[0].output_ref;
  const bounded = new OutputCache(undefined, { maxEntries: 16, maxBytes: 1 << 20 });
  const held: number = bounded.heldCount + bounded.heldBytes;
  // @ts-expect-error the bounds are numbers
  new OutputCache(1000, { maxEntries: "16" });
  void evicted, page, hits, ref, held;
}

import { runToolLoop, streamToolLoop, type LlmSession, type LoopEvent, type ReviewDecision } from "agent-tools-native";

export async function loopTyping(): Promise<void> {
  const session: LlmSession = {
    async sendWithTools(prompt, tools, { emit }) {
      emit({ type: "text_delta", text: prompt });
      return { content: [{ type: "tool_use", id: "1", name: tools[0].function.name, input: {} }], stopReason: "tool_use" };
    },
    async sendToolResults(results) {
      return { content: [{ type: "text", text: results[0].output }], stopReason: "end_turn" };
    },
  };
  const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: "/ws" }));
  const review = async (): Promise<ReviewDecision> => ({ decision: "edit", args: { path: "x" } });
  const result = await runToolLoop({ session, toolkit, prompt: "go", review, maxToolTurns: 3 });
  const stop: typeof result.stopReason = "max_tool_turns";
  for await (const event of streamToolLoop({ session, toolkit, prompt: "go" })) {
    const e: LoopEvent = event;
    if (e.type === "tool_finish") {
      const ms: number = e.duration_ms;
      void ms;
    }
  }
  // @ts-expect-error a session needs sendToolResults
  await runToolLoop({ session: { sendWithTools: session.sendWithTools }, toolkit, prompt: "go" });
  void stop;
}

import { createProviderSession } from "agent-tools-native";
import OpenAI from "openai";

export async function providerSessionTyping(): Promise<void> {
  const session = createProviderSession({ provider: "openai-chat", client: new OpenAI({ apiKey: "k" }), model: "gpt-4.1", stream: true });
  const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: "/ws" }));
  const result = await runToolLoop({ session, toolkit, prompt: "go" });
  const history = session.messages.length;
  // @ts-expect-error an unknown provider
  createProviderSession({ provider: "openai", client: {}, model: "m" });
  void result, history;
}
