// agent-tools-native/openai-agents: the toolkit as OpenAI Agents SDK function tools, driven by the
// SDK's own Runner (an Agent run of several turns) over a scripted Model (the SDK's Model
// interface: each getResponse answers from the script). The scenarios are
// __test__/adapter_scenarios.mjs.
import { test } from "./harness.mjs";
import assert from "node:assert/strict";
import { Agent, Runner, setTracingDisabled } from "@openai/agents";
import fs from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { toOpenAIAgentsTools } from "agent-tools-native/openai-agents";
import { adapterScenarios } from "./adapter_scenarios.mjs";
import { scriptedAgentsModel } from "./agents_mock.mjs";
import { tempDir } from "./helpers.mjs";

setTracingDisabled(true);
const here = path.dirname(fileURLToPath(import.meta.url));

async function drive({ tools, steps, signal }) {
  const requests = [];
  const runner = new Runner({ modelProvider: { getModel: () => scriptedAgentsModel(steps, requests) }, tracingDisabled: true });
  const agent = new Agent({ name: "worker", instructions: "Do the task.", tools });
  const result = await runner.run(agent, "Do the task.", { signal, maxTurns: 10 });
  return { text: result.finalOutput, requests };
}

adapterScenarios("OpenAI Agents", toOpenAIAgentsTools, drive, { errorFlag: false });

test("OpenAI Agents: the tools are the SDK's non-strict function tools over the toolkit's JSON Schemas", async () => {
  const { dir, cleanup } = tempDir("atn-adapters-");
  try {
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } }));
    const tools = toOpenAIAgentsTools(toolkit);
    const readFile = tools.find((t) => t.name === "read_file");
    assert.equal(readFile.type, "function");
    assert.equal(readFile.strict, false);
    assert.deepEqual(readFile.parameters, toolkit.getAllowedTools().find((d) => d.function.name === "read_file").function.parameters);
  } finally {
    cleanup();
  }
});

test("toOpenAIAgentsTools refuses what is not a toolkit, with a TypeError", () => {
  assert.throws(() => toOpenAIAgentsTools({}), { name: "TypeError", message: "toOpenAIAgentsTools: toolkit must be made by createAgentToolkit" });
});

test("OpenAI Agents: writes interrupt the run (needsApproval); the RunState saved as a string is resumed in another process, one call approved runs, the rejected one never does; the read does not wait", async () => {
  const { dir, cleanup } = tempDir("atn-agents-approval-");
  try {
    fs.writeFileSync(path.join(dir, "a.txt"), "hello\n");
    const tools = toOpenAIAgentsTools(createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } })));
    assert.deepEqual(["write_file", "read_file", "exec_command"].map((n) => tools.find((t) => t.name === n).effect), ["write", "read", "exec"]);
    const steps = [
      () => ({ calls: [
        { id: "w1", name: "write_file", args: { path: "yes.txt", content: "yes" } },
        { id: "w2", name: "write_file", args: { path: "no.txt", content: "no" } },
        { id: "r1", name: "read_file", args: { path: "a.txt" } },
      ] }),
    ];
    const runner = new Runner({ modelProvider: { getModel: () => scriptedAgentsModel(steps) }, tracingDisabled: true });
    const first = await runner.run(new Agent({ name: "worker", instructions: "Do the task.", tools }), "Do the task.", { maxTurns: 10 });
    assert.deepEqual(first.interruptions.map((item) => item.rawItem.callId).sort(), ["w1", "w2"]);
    assert.equal(fs.existsSync(path.join(dir, "yes.txt")), false, "nothing written before the approval");
    const stateFile = path.join(dir, "..", `${path.basename(dir)}-state.json`);
    fs.writeFileSync(stateFile, first.state.toString());
    try {
      const child = spawnSync(process.execPath, [path.join(here, "agents_resume_child.mjs"), dir, stateFile, "w1"], { encoding: "utf8" });
      assert.equal(child.status, 0, child.stderr);
      const resumed = JSON.parse(child.stdout);
      assert.equal(resumed.finalOutput, "done");
      assert.equal(fs.readFileSync(path.join(dir, "yes.txt"), "utf8"), "yes", "approved: it ran");
      assert.equal(fs.existsSync(path.join(dir, "no.txt")), false, "rejected: it never ran");
      assert.match(resumed.seen.find((r) => r.id === "w1").text, /"path":"yes\.txt"/);
      assert.equal(JSON.parse(resumed.seen.find((r) => r.id === "r1").text).content, "hello\n");
    } finally {
      fs.rmSync(stateFile, { force: true });
    }
  } finally {
    cleanup();
  }
});
