// agent-tools-native/ai: the toolkit as an AI SDK ToolSet, driven by the AI SDK's own
// generateText loop with its mock model (MockLanguageModelV4 from ai/test). The scenarios are
// __test__/adapter_scenarios.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { toAISDKTools } from "agent-tools-native/ai";
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
  const result = await generateText({ model, tools, prompt: "Do the task.", stopWhen: stepCountIs(10), abortSignal: signal });
  return { text: result.text, requests };
}

adapterScenarios("AI SDK", toAISDKTools, drive);

test("AI SDK: a failed call is a tool-error part of its step (the run does not throw)", async () => {
  const { dir, cleanup } = tempDir("atn-adapters-");
  try {
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } }));
    const tools = toAISDKTools(toolkit);
    const { requests } = await drive({
      tools,
      steps: [() => ({ calls: [{ id: "e1", name: "read_file", args: { path: "../outside.txt" } }] }), () => ({ text: "ok" })],
    });
    assert.equal(requests[1][0].text, `Error: Error executing tool: [Sandbox Violation] Attempted to access path outside of workspace: "../outside.txt"`);
    assert.equal(requests[1][0].isError, true);
  } finally {
    cleanup();
  }
});

test("toAISDKTools refuses what is not a toolkit, with a TypeError", () => {
  assert.throws(() => toAISDKTools({}), { name: "TypeError", message: "toAISDKTools: toolkit must be made by createAgentToolkit" });
});
