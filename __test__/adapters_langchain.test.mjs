// agent-tools-native/langchain: the toolkit as LangChain tools, driven by LangChain's tool-calling
// loop (a chat model with bound tools; each AIMessage tool call invoked on its tool, the
// ToolMessages sent back) over a scripted chat model built on @langchain/core's BaseChatModel. The
// scenarios are __test__/adapter_scenarios.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { toLangChainTools } from "agent-tools-native/langchain";
import { adapterScenarios } from "./adapter_scenarios.mjs";
import { tempDir } from "./helpers.mjs";

/** A chat model answering each request with `respond(messages)`; it fails on an aborted signal, as a real one does. */
class ScriptedChatModel extends BaseChatModel {
  constructor(respond) {
    super({});
    this.respond = respond;
  }
  _llmType() {
    return "scripted";
  }
  bindTools(tools) {
    this.boundTools = tools.map((t) => t.name);
    return this;
  }
  async _generate(messages, options) {
    options?.signal?.throwIfAborted();
    const message = this.respond(messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

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
  const requests = [];
  const model = new ScriptedChatModel((messages) => {
    const seen = seenIn(messages);
    requests.push(seen);
    const step = steps[requests.length - 1](seen);
    if (step.calls) return new AIMessage({ content: "", tool_calls: step.calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" })) });
    return new AIMessage(step.text);
  });
  const bound = model.bindTools(tools);
  assert.deepEqual(model.boundTools, tools.map((t) => t.name));
  const toolsByName = new Map(tools.map((t) => [t.name, t]));
  const messages = [new HumanMessage("Do the task.")];
  for (let turn = 0; turn < 10; turn++) {
    const reply = await bound.invoke(messages, { signal });
    messages.push(reply);
    if (!reply.tool_calls?.length) return { text: reply.content, requests };
    messages.push(...(await Promise.all(reply.tool_calls.map((call) => toolsByName.get(call.name).invoke(call, { signal })))));
  }
  throw new Error("the model did not finish in 10 turns");
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
