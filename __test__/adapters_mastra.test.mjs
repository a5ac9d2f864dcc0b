// agent-tools-native/mastra: the toolkit as Mastra tools, driven by a Mastra Agent's own
// generate loop over the AI SDK's mock model (MockLanguageModelV4 from ai/test; Mastra takes AI
// SDK models). The scenarios are __test__/adapter_scenarios.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent } from "@mastra/core/agent";
import { MockLanguageModelV4 } from "ai/test";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { toMastraTools } from "agent-tools-native/mastra";
import { adapterScenarios } from "./adapter_scenarios.mjs";
import { tempDir } from "./helpers.mjs";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The tool results of a prompt's last turn, as the model reads them. */
function seenIn(prompt) {
  const seen = [];
  for (let i = prompt.length - 1; i >= 0 && prompt[i].role === "tool"; i--) {
    for (const part of prompt[i].content) {
      if (part.type !== "tool-result") continue;
      const { type, value } = part.output;
      seen.unshift({ id: part.toolCallId, name: part.toolName, text: typeof value === "string" ? value : JSON.stringify(value), isError: type.startsWith("error") });
    }
  }
  return seen;
}

async function drive({ tools, steps, signal }) {
  const requests = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      // As a real provider's request would, an aborted signal fails the call.
      options.abortSignal?.throwIfAborted();
      const seen = seenIn(options.prompt);
      requests.push(seen);
      const step = steps[requests.length - 1](seen);
      if (step.calls) {
        return {
          content: step.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) })),
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: "text", text: step.text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
  const agent = new Agent({ id: "worker", name: "worker", instructions: "Do the task.", model, tools });
  // An abort while a tool runs does not reject: Mastra resolves the run as it stood, without the
  // call's result and without asking the model again (the abort scenario checks exactly that).
  const result = await agent.generate("Do the task.", { maxSteps: 10, abortSignal: signal });
  if (result.error) throw result.error;
  if (signal?.aborted) assert.deepEqual(result.toolResults, []);
  return { text: result.text, requests };
}

adapterScenarios("Mastra", toMastraTools, drive);

test("toMastraTools refuses what is not a toolkit, with a TypeError", () => {
  assert.throws(() => toMastraTools({}), { name: "TypeError", message: "toMastraTools: toolkit must be made by createAgentToolkit" });
});

test("Mastra: each tool is a Mastra tool keyed by its name, with the toolkit's JSON Schema", async () => {
  const { dir, cleanup } = tempDir("atn-adapters-");
  try {
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } }));
    const tools = toMastraTools(toolkit);
    assert.deepEqual(Object.keys(tools), toolkit.getAllowedTools().map((d) => d.function.name));
    assert.equal(tools.read_file.id, "read_file");
    assert.equal(typeof tools.read_file.execute, "function");
  } finally {
    cleanup();
  }
});
