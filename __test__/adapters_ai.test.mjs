// agent-tools-native/ai: the toolkit as an AI SDK ToolSet, driven by the AI SDK's own
// generateText loop with its mock model (MockLanguageModelV4 from ai/test). The scenarios are
// __test__/adapter_scenarios.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, stepCountIs } from "ai";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { toAISDKTools } from "agent-tools-native/ai";
import { adapterScenarios } from "./adapter_scenarios.mjs";
import { scriptedModel } from "./ai_sdk_mock.mjs";
import { tempDir } from "./helpers.mjs";

async function drive({ tools, steps, signal }) {
  const requests = [];
  const model = scriptedModel(steps, requests);
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
