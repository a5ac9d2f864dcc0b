// agent-tools-native/mastra: the toolkit as Mastra tools, driven by a Mastra Agent's own
// generate loop over the AI SDK's mock model (MockLanguageModelV4 from ai/test; Mastra takes AI
// SDK models). The scenarios are __test__/adapter_scenarios.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent } from "@mastra/core/agent";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { toMastraTools } from "agent-tools-native/mastra";
import { adapterScenarios } from "./adapter_scenarios.mjs";
import { scriptedModel } from "./ai_sdk_mock.mjs";
import { tempDir } from "./helpers.mjs";

async function drive({ tools, steps, signal }) {
  const requests = [];
  const model = scriptedModel(steps, requests);
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
    assert.deepEqual([tools.read_file.effect, tools.write_file.effect, tools.exec_command.effect], ["read", "write", "exec"]);
  } finally {
    cleanup();
  }
});
