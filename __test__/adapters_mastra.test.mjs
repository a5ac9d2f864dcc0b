// agent-tools-native/mastra: the toolkit as Mastra tools, driven by a Mastra Agent's own
// generate loop over the AI SDK's mock model (MockLanguageModelV4 from ai/test; Mastra takes AI
// SDK models). The scenarios are __test__/adapter_scenarios.mjs.
import { test } from "./harness.mjs";
import fs from "node:fs";
import path from "node:path";
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

adapterScenarios("Mastra", toMastraTools, drive, { abortResolves: true });

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

test("Mastra: a write requires approval (requireApproval): the run suspends; approved it runs, declined it never does; a read does not wait", async () => {
  const { Mastra } = await import("@mastra/core");
  const { InMemoryStore } = await import("@mastra/core/storage");
  const { dir, cleanup } = tempDir("atn-mastra-approval-");
  try {
    fs.writeFileSync(path.join(dir, "a.txt"), "hello\n");
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } }));
    const run = async (file, decide) => {
      const requests = [];
      const model = scriptedModel([
        () => ({ calls: [{ id: "r1", name: "read_file", args: { path: "a.txt" } }, { id: "w1", name: "write_file", args: { path: file, content: "x" } }] }),
        () => ({ text: "done" }),
      ], requests);
      const agent = new Agent({ id: "worker", name: "worker", instructions: "Do the task.", model, tools: toMastraTools(toolkit) });
      const mastra = new Mastra({ agents: { worker: agent }, storage: new InMemoryStore(), logger: false });
      const worker = mastra.getAgent("worker");
      const first = await worker.generate("Do the task.", { maxSteps: 10 });
      assert.equal(first.finishReason, "suspended");
      assert.equal(first.suspendPayload.toolCallId, "w1", "the write waits");
      assert.equal(fs.existsSync(path.join(dir, file)), false, "nothing written before the decision");
      return decide(worker, { runId: first.runId, toolCallId: first.suspendPayload.toolCallId });
    };
    const approved = await run("yes.txt", (worker, ids) => worker.approveToolCallGenerate(ids));
    assert.equal(fs.readFileSync(path.join(dir, "yes.txt"), "utf8"), "x", "approved: it ran");
    assert.equal(approved.text, "done");
    await run("no.txt", (worker, ids) => worker.declineToolCallGenerate({ ...ids, reason: "not now" }));
    assert.equal(fs.existsSync(path.join(dir, "no.txt")), false, "declined: it never ran");
  } finally {
    cleanup();
  }
});
