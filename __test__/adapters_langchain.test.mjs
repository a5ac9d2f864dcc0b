// agent-tools-native/langchain: the toolkit as LangChain tools, driven by LangChain's own agent
// (langchain's createAgent: it binds the tools, invokes each AIMessage tool call on its tool and
// sends the ToolMessages back) over a scripted chat model built on @langchain/core's
// BaseChatModel. The scenarios are __test__/adapter_scenarios.mjs.
import { test } from "./harness.mjs";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { toLangChainInterruptOn, toLangChainTools } from "agent-tools-native/langchain";
import fs from "node:fs";
import path from "node:path";
import { adapterScenarios } from "./adapter_scenarios.mjs";
import { tempDir } from "./helpers.mjs";
import { ScriptedChatModel } from "./langchain_mock.mjs";

/** The ToolMessages at the end of a request, as the model reads them. */
function seenIn(messages) {
  const seen = [];
  for (let i = messages.length - 1; i >= 0 && ToolMessage.isInstance(messages[i]); i--) {
    const m = messages[i];
    seen.unshift({ id: m.tool_call_id, name: m.name, text: m.content, isError: m.status === "error" });
  }
  return seen;
}

async function drive({ tools, steps, signal }) {
  const { createAgent } = await import("langchain");
  const requests = [];
  const model = new ScriptedChatModel((messages) => {
    const seen = seenIn(messages);
    requests.push(seen);
    const step = steps[requests.length - 1](seen);
    if (step.calls) return new AIMessage({ content: "", tool_calls: step.calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" })) });
    return new AIMessage(step.text);
  });
  // LangChain's own agent loop: it binds the tools, runs each turn's calls and sends the results back.
  const agent = createAgent({ model, tools });
  const result = await agent.invoke({ messages: [new HumanMessage("Do the task.")] }, { signal, recursionLimit: 25 });
  assert.deepEqual(model.boundTools, tools.map((t) => t.name));
  return { text: result.messages.at(-1).content, requests };
}

adapterScenarios("LangChain", toLangChainTools, drive);

test("LangChain: a failed call is a ToolMessage with status error; invoked with plain arguments, the tool returns the text", async () => {
  const { dir, cleanup } = tempDir("atn-adapters-");
  try {
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } }));
    const readFile = toLangChainTools(toolkit).find((t) => t.name === "read_file");
    const message = await readFile.invoke({ id: "e1", name: "read_file", args: { path: "../outside.txt" }, type: "tool_call" });
    assert.ok(ToolMessage.isInstance(message));
    assert.equal(message.status, "error");
    assert.equal(message.tool_call_id, "e1");
    assert.equal(message.content, 'Error executing tool: [Sandbox Violation] Attempted to access path outside of workspace: "../outside.txt"');
    assert.equal(await readFile.invoke({ path: "../outside.txt" }), message.content);
    const effects = Object.fromEntries(toLangChainTools(toolkit).map((t) => [t.name, t.effect]));
    assert.deepEqual([effects.read_file, effects.write_file, effects.exec_command], ["read", "write", "exec"]);
  } finally {
    cleanup();
  }
});

test("toLangChainTools refuses what is not a toolkit, with a TypeError", () => {
  assert.throws(() => toLangChainTools({}), { name: "TypeError", message: "toLangChainTools: toolkit must be made by createAgentToolkit" });
});

test("LangChain: createAgent with humanInTheLoopMiddleware (interruptOn from toLangChainInterruptOn): writes interrupt, a read does not; approved they run, rejected they never do", async () => {
  const { createAgent, humanInTheLoopMiddleware } = await import("langchain");
  const { Command, MemorySaver } = await import("@langchain/langgraph");
  const { dir, cleanup } = tempDir("atn-lc-hitl-");
  try {
    fs.mkdirSync(path.join(dir, "private"));
    fs.writeFileSync(path.join(dir, "a.txt"), "hello\n");
    fs.writeFileSync(path.join(dir, "private", "n.txt"), "secret\n");
    const context = createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" }, permissions: { read_file: { "private/**": "ask" } } });
    const tools = toLangChainTools(createAgentToolkit(context));
    // The first answer of a thread calls the tools (the file named in the prompt), the next one ends it.
    const model = new ScriptedChatModel((messages) => {
      const last = messages.at(-1);
      if (!HumanMessage.isInstance(last)) return new AIMessage("done");
      return new AIMessage({
        content: "",
        tool_calls: [
          { id: "w1", name: "write_file", args: { path: last.content, content: "x" }, type: "tool_call" },
          { id: "r1", name: "read_file", args: { path: "a.txt" }, type: "tool_call" },
          { id: "p1", name: "read_file", args: { path: "private/n.txt" }, type: "tool_call" },
        ],
      });
    });
    const agent = createAgent({ model, tools, middleware: [humanInTheLoopMiddleware({ interruptOn: toLangChainInterruptOn(tools) })], checkpointer: new MemorySaver() });
    const run = async (thread, file, decision) => {
      const config = { configurable: { thread_id: thread } };
      const first = await agent.invoke({ messages: [new HumanMessage(file)] }, config);
      const requests = first.__interrupt__?.[0]?.value?.actionRequests ?? [];
      assert.deepEqual(requests.map((r) => `${r.name}:${r.args.path}`), [`write_file:${file}`, "read_file:private/n.txt"], "the write and the read a rule asks about wait; the other read does not");
      assert.equal(fs.existsSync(path.join(dir, file)), false, "nothing written before the decision");
      const second = await agent.invoke(new Command({ resume: { decisions: [decision, decision] } }), config);
      assert.equal(second.messages.at(-1).content, "done");
      return new Map(second.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m]));
    };
    const approved = await run("t1", "yes.txt", { type: "approve" });
    assert.equal(fs.readFileSync(path.join(dir, "yes.txt"), "utf8"), "x", "approved: it ran");
    assert.equal(JSON.parse(approved.get("r1").content).content, "hello\n");
    assert.equal(JSON.parse(approved.get("p1").content).content, "secret\n", "approved in the middleware, the rule's ask is satisfied");
    const rejected = await run("t2", "no.txt", { type: "reject", message: "not now" });
    assert.equal(fs.existsSync(path.join(dir, "no.txt")), false, "rejected: it never ran");
    assert.deepEqual([rejected.get("w1").content, rejected.get("w1").status], ["not now", "error"]);
  } finally {
    cleanup();
  }
});
