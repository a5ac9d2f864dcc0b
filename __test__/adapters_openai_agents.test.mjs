// agent-tools-native/openai-agents: the toolkit as OpenAI Agents SDK function tools, driven by the
// SDK's own Runner (an Agent run of several turns) over a scripted Model (the SDK's Model
// interface: each getResponse answers from the script). The scenarios are
// __test__/adapter_scenarios.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Runner, RunState, setTracingDisabled, Usage } from "@openai/agents";
import fs from "node:fs";
import path from "node:path";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { toOpenAIAgentsTools } from "agent-tools-native/openai-agents";
import { adapterScenarios } from "./adapter_scenarios.mjs";
import { tempDir } from "./helpers.mjs";

setTracingDisabled(true);

/** The function call results at the end of a request's input, as the model reads them. */
function seenIn(input) {
  const seen = [];
  if (!Array.isArray(input)) return seen;
  for (let i = input.length - 1; i >= 0 && input[i].type === "function_call_result"; i--) {
    const { callId, name, output } = input[i];
    seen.unshift({ id: callId, name, text: typeof output === "string" ? output : output.text });
  }
  return seen;
}

/** A Model answering each request from the script; it fails on an aborted signal, as a real one does. */
function scriptedModel(steps, requests) {
  return {
    async getResponse(request) {
      request.signal?.throwIfAborted();
      const seen = seenIn(request.input);
      requests.push(seen);
      const step = steps[requests.length - 1](seen);
      const output = step.calls
        ? step.calls.map((c) => ({ type: "function_call", callId: c.id, name: c.name, arguments: JSON.stringify(c.args), status: "completed" }))
        : [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: step.text }] }];
      return { usage: new Usage(), output, responseId: `r${requests.length}` };
    },
    // biome-ignore lint/correctness/useYield: the runs here do not stream
    async *getStreamedResponse() {
      throw new Error("not used");
    },
  };
}

async function drive({ tools, steps, signal }) {
  const requests = [];
  const runner = new Runner({ modelProvider: { getModel: () => scriptedModel(steps, requests) }, tracingDisabled: true });
  const agent = new Agent({ name: "worker", instructions: "Do the task.", tools });
  const result = await runner.run(agent, "Do the task.", { signal, maxTurns: 10 });
  return { text: result.finalOutput, requests };
}

adapterScenarios("OpenAI Agents", toOpenAIAgentsTools, drive);

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

test("OpenAI Agents: writes interrupt the run (needsApproval); approved after the RunState's round trip through a string, one runs, the rejected one never does; the read does not wait", async () => {
  const { dir, cleanup } = tempDir("atn-agents-approval-");
  try {
    fs.writeFileSync(path.join(dir, "a.txt"), "hello\n");
    const make = () => toOpenAIAgentsTools(createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } })));
    const tools = make();
    assert.deepEqual(["write_file", "read_file", "exec_command"].map((n) => tools.find((t) => t.name === n).effect), ["write", "read", "exec"]);
    const requests = [];
    const steps = [
      () => ({ calls: [
        { id: "w1", name: "write_file", args: { path: "yes.txt", content: "yes" } },
        { id: "w2", name: "write_file", args: { path: "no.txt", content: "no" } },
        { id: "r1", name: "read_file", args: { path: "a.txt" } },
      ] }),
      () => ({ text: "done" }),
    ];
    const runner = new Runner({ modelProvider: { getModel: () => scriptedModel(steps, requests) }, tracingDisabled: true });
    const first = await runner.run(new Agent({ name: "worker", instructions: "Do the task.", tools }), "Do the task.", { maxTurns: 10 });
    assert.deepEqual(first.interruptions.map((item) => item.rawItem.callId).sort(), ["w1", "w2"]);
    assert.equal(fs.existsSync(path.join(dir, "yes.txt")), false, "nothing written before the approval");
    const saved = first.state.toString();
    assert.equal(typeof saved, "string");

    // A new toolkit and agent, as another process would make them, resume the saved run.
    const agent = new Agent({ name: "worker", instructions: "Do the task.", tools: make() });
    const state = await RunState.fromString(agent, saved);
    for (const item of state.getInterruptions()) {
      if (item.rawItem.callId === "w1") state.approve(item);
      else state.reject(item);
    }
    const second = await runner.run(agent, state, { maxTurns: 10 });
    assert.equal(second.finalOutput, "done");
    assert.equal(fs.readFileSync(path.join(dir, "yes.txt"), "utf8"), "yes", "approved: it ran");
    assert.equal(fs.existsSync(path.join(dir, "no.txt")), false, "rejected: it never ran");
    const seen = requests.at(-1);
    assert.match(seen.find((r) => r.id === "w1").text, /"path":"yes\.txt"/);
    assert.equal(JSON.parse(seen.find((r) => r.id === "r1").text).content, "hello\n");
  } finally {
    cleanup();
  }
});
