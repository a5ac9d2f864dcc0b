// agent-tools-native/ai: the toolkit as an AI SDK ToolSet, driven by the AI SDK's own
// generateText loop with its mock model (MockLanguageModelV4 from ai/test). The scenarios are
// __test__/adapter_scenarios.mjs.
import { test, describe } from "./harness.mjs";
import fs from "node:fs";
import path from "node:path";
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

describe("AI SDK: the framework's own approval (needsApproval, on by default for writes)", () => {
  /** One generateText round: the model's script goes on from the requests it already answered. */
  function rounds(steps) {
    const requests = [];
    const model = scriptedModel(steps, requests);
    return { requests, model };
  }

  test("a write waits for a tool-approval-request, a read in the same step does not; approved it runs, denied it never does", async () => {
    const { dir, cleanup } = tempDir("atn-ai-approval-");
    try {
      fs.writeFileSync(path.join(dir, "a.txt"), "hello\n");
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } }));
      const tools = toAISDKTools(toolkit);
      assert.deepEqual([tools.write_file.effect, tools.read_file.effect, tools.exec_command.effect], ["write", "read", "exec"]);
      const { requests, model } = rounds([
        () => ({ calls: [
          { id: "w1", name: "write_file", args: { path: "yes.txt", content: "yes" } },
          { id: "w2", name: "write_file", args: { path: "no.txt", content: "no" } },
          { id: "r1", name: "read_file", args: { path: "a.txt" } },
        ] }),
        () => ({ text: "done" }),
      ]);
      const messages = [{ role: "user", content: "Do the task." }];
      const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(10) });
      const asked = first.content.filter((p) => p.type === "tool-approval-request");
      assert.deepEqual(asked.map((p) => p.toolCall.toolCallId).sort(), ["w1", "w2"], "the writes wait; the read ran");
      assert.equal(fs.existsSync(path.join(dir, "yes.txt")), false, "nothing written before the approval");
      const read = first.content.find((p) => p.type === "tool-result" && p.toolCallId === "r1");
      assert.equal(JSON.parse(read.output).content, "hello\n");

      const answer = (id, approved) => ({ type: "tool-approval-response", approvalId: asked.find((p) => p.toolCall.toolCallId === id).approvalId, approved, ...(approved ? {} : { reason: "not that one" }) });
      const second = await generateText({
        model,
        tools,
        messages: [...messages, ...first.response.messages, { role: "tool", content: [answer("w1", true), answer("w2", false)] }],
        stopWhen: stepCountIs(10),
      });
      assert.equal(second.text, "done");
      assert.equal(fs.readFileSync(path.join(dir, "yes.txt"), "utf8"), "yes", "approved: it ran");
      assert.equal(fs.existsSync(path.join(dir, "no.txt")), false, "denied: it never ran");
      const seen = requests.at(-1);
      assert.match(seen.find((r) => r.id === "w1").text, /"path":"yes\.txt"/);
    } finally {
      cleanup();
    }
  });

  test("approval: \"none\" runs writes at once; a function decides per call; a permission rule that asks always waits, and approved it runs", async () => {
    const { dir, cleanup } = tempDir("atn-ai-approval-");
    try {
      fs.mkdirSync(path.join(dir, "private"));
      fs.writeFileSync(path.join(dir, "private", "n.txt"), "secret\n");
      const context = createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" }, permissions: { read_file: { "private/**": "ask" } } });
      const toolkit = createAgentToolkit(context);
      const none = toAISDKTools(toolkit, { approval: "none" });
      assert.equal(await none.write_file.needsApproval({ path: "x", content: "" }, {}), false);
      assert.equal(await none.read_file.needsApproval({ path: "private/n.txt" }, {}), true, "the rule asks");
      assert.equal(await none.read_file.needsApproval({ path: "a.txt" }, {}), false);
      const picky = toAISDKTools(toolkit, { approval: (name, input) => name === "write_file" && input.path.startsWith("src/") });
      assert.equal(await picky.write_file.needsApproval({ path: "src/a", content: "" }, {}), true);
      assert.equal(await picky.write_file.needsApproval({ path: "docs/a", content: "" }, {}), false);
      assert.throws(() => toAISDKTools(toolkit, { approval: "sometimes" }), { name: "TypeError" });
      // the function is asked once a call: running the call does not ask it again
      const asked = [];
      const counted = toAISDKTools(toolkit, { approval: (name, input) => (asked.push(input.path), false) });
      const once = rounds([() => ({ calls: [{ id: "d1", name: "write_file", args: { path: "docs.txt", content: "d" } }] }), () => ({ text: "ok" })]);
      await generateText({ model: once.model, tools: counted, prompt: "go", stopWhen: stepCountIs(10) });
      assert.deepEqual(asked, ["docs.txt"]);
      assert.equal(fs.readFileSync(path.join(dir, "docs.txt"), "utf8"), "d");

      const { requests, model } = rounds([() => ({ calls: [{ id: "p1", name: "read_file", args: { path: "private/n.txt" } }] }), () => ({ text: "read" })]);
      const messages = [{ role: "user", content: "Read it." }];
      const first = await generateText({ model, tools: none, messages, stopWhen: stepCountIs(10) });
      const request = first.content.find((p) => p.type === "tool-approval-request");
      assert.ok(request, "the read a rule asks about waits");
      const second = await generateText({
        model,
        tools: none,
        messages: [...messages, ...first.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }] }],
        stopWhen: stepCountIs(10),
      });
      assert.equal(second.text, "read");
      // the approved call ran before the model's next request, which reads its result
      const result = requests.at(-1).find((r) => r.id === "p1");
      assert.equal(JSON.parse(result.text).content, "secret\n", "approved through the framework, the rule's ask is satisfied");
    } finally {
      cleanup();
    }
  });
});
