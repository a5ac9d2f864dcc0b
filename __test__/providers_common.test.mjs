// The provider adapters' common surface: type guards, the history check, provider-safe ids,
// errors and warnings, `getAllowedTools()` feeding every mapping, and histories replayed across
// providers.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { z } from "zod";
import * as api from "agent-tools-native";
import { toolWorkspace } from "./provider_helpers.mjs";

const {
  checkToolHistory,
  createAnthropicStream,
  createGeminiStream,
  createOllamaStream,
  createOpenAIChatStream,
  createOpenAIResponsesStream,
  defineTool,
  fromGeminiResponse,
  fromOpenAIChatResponse,
  hasToolCalls,
  isToolResult,
  toAnthropicRequest,
  toGeminiRequest,
  toOpenAIChatRequest,
  toOpenAIResponsesRequest,
  toolCallIdMap,
} = api;

const call = (id, name = "get_weather", args = '{"city":"Oslo"}') => ({ id, type: "function", function: { name, arguments: args } });
const PROVIDERS = ["openai-chat", "openai-responses", "anthropic", "gemini", "ollama"];

describe("common types", () => {
  test("type guards", () => {
    assert.equal(hasToolCalls({ role: "assistant", content: "", toolCalls: [call("a")] }), true);
    assert.equal(hasToolCalls({ role: "assistant", content: "hi" }), false);
    assert.equal(hasToolCalls({ role: "assistant", content: "", toolCalls: [] }), false);
    assert.equal(hasToolCalls({ role: "user", content: "x", toolCalls: [call("a")] }), false);
    assert.equal(isToolResult({ role: "tool", content: "1", toolCallId: "a" }), true);
    assert.equal(isToolResult({ role: "user", content: "1" }), false);
    assert.equal(hasToolCalls(null), false);
  });

  test("getAllowedTools() output feeds every mapping", () => {
    const { toolkit, cleanup } = toolWorkspace();
    try {
      const tools = toolkit.getAllowedTools();
      const names = tools.map((t) => t.function.name);
      assert.deepEqual(api.toOpenAIChatTools(tools).map((t) => t.function.name), names);
      assert.deepEqual(api.toOpenAIResponsesTools(tools).map((t) => t.name), names);
      assert.deepEqual(api.toAnthropicTools(tools).map((t) => t.name), names);
      assert.deepEqual(api.toGeminiTools(tools)[0].functionDeclarations.map((d) => d.name), names);
      assert.deepEqual(api.toOllamaTools(tools).map((t) => t.function.name), names);
      for (const t of api.toAnthropicTools(tools)) assert.equal(t.input_schema.type, "object");
    } finally {
      cleanup();
    }
  });

  test("the four tool choice forms per provider", () => {
    const named = { type: "function", function: { name: "f" } };
    assert.deepEqual(["auto", "none", "required", named].map(api.toOpenAIChatToolChoice), ["auto", "none", "required", named]);
    assert.deepEqual(["auto", "none", "required", named].map(api.toOpenAIResponsesToolChoice), ["auto", "none", "required", { type: "function", name: "f" }]);
    assert.deepEqual(
      ["auto", "none", "required", named].map((c) => api.toAnthropicToolChoice(c)),
      [{ type: "auto" }, { type: "none" }, { type: "any" }, { type: "tool", name: "f" }],
    );
    assert.deepEqual(
      ["auto", "none", "required", named].map((c) => api.toGeminiToolChoice(c).functionCallingConfig),
      [{ mode: "AUTO" }, { mode: "NONE" }, { mode: "ANY" }, { mode: "ANY", allowedFunctionNames: ["f"] }],
    );
  });
});

describe("history check", () => {
  test("a paired history passes for every provider; a missing result is found by each", () => {
    const paired = [
      { role: "user", content: "x" },
      { role: "assistant", content: "", toolCalls: [call("a"), call("b")] },
      { role: "tool", toolCallId: "b", content: "2" },
      { role: "tool", toolCallId: "a", content: "1" },
    ];
    for (const provider of PROVIDERS) {
      assert.deepEqual(checkToolHistory(paired, provider), [], provider);
      const problems = checkToolHistory(paired.slice(0, 3), provider);
      assert.deepEqual(
        problems.map((p) => [p.kind, p.messageIndex, p.toolCallId]),
        [["unanswered_call", 1, "a"]],
        provider,
      );
      assert.match(problems[0].message, /"a"/);
    }
  });

  test("pairing rules differ: results must follow their calls directly, except for the Responses API", () => {
    const late = [
      { role: "assistant", content: "", toolCalls: [call("a")] },
      { role: "user", content: "wait" },
      { role: "tool", toolCallId: "a", content: "1" },
    ];
    for (const provider of ["openai-chat", "anthropic", "gemini", "ollama"]) {
      assert.deepEqual(
        checkToolHistory(late, provider).map((p) => p.kind),
        ["unanswered_call", "orphan_result"],
        provider,
      );
    }
    assert.deepEqual(checkToolHistory(late, "openai-responses"), []);
    assert.throws(() => checkToolHistory(late, "openai"), (e) => e instanceof TypeError && /provider must be one of/.test(e.message));
  });

  test("ids are kept when they fit and aliased stably, the same on calls and results", () => {
    const kimi = "functions.get_weather:0";
    const messages = [
      { role: "assistant", content: "", toolCalls: [call(kimi), call("call_ok")] },
      { role: "tool", toolCallId: kimi, content: "1" },
      { role: "tool", toolCallId: "call_ok", content: "2" },
    ];
    const map = toolCallIdMap(messages, "anthropic");
    const [alias] = Object.keys(map);
    assert.deepEqual(map, { [alias]: kimi });
    assert.match(alias, /^functions_get_weather_0_[0-9a-f]{8}$/);
    const wire = toAnthropicRequest({ messages }).messages;
    assert.deepEqual(
      wire[0].content.map((b) => b.id),
      [alias, "call_ok"],
    );
    assert.deepEqual(
      wire[1].content.map((b) => b.tool_use_id),
      [alias, "call_ok"],
    );
    assert.deepEqual(toolCallIdMap(messages, "anthropic"), map);
  });
});

describe("errors and warnings", () => {
  test("malformed input throws a TypeError naming the function", () => {
    assert.throws(() => toOpenAIChatRequest({ messages: [{ content: "x" }] }), {
      name: "TypeError",
      message: "toOpenAIChatRequest: messages[0].role must be a string",
    });
    assert.throws(() => toAnthropicRequest({ messages: [], tools: [{ type: "function", function: { name: "bad name" } }] }), {
      name: "TypeError",
      message: 'toAnthropicRequest: tool name "bad name" is not valid for Anthropic (must match ^[a-zA-Z0-9_-]{1,64}$)',
    });
    assert.throws(() => toGeminiRequest({ messages: [{ role: "tool", toolCallId: "x", content: "1" }] }), /Gemini needs the function name/);
    assert.throws(() => api.toOpenAIChatToolChoice("any"), /toolChoice must be/);
    assert.throws(() => fromOpenAIChatResponse("nope"), /must be an object/);
    assert.throws(() => toOpenAIChatRequest(5), /options must be an object/);
    assert.throws(() => createOpenAIChatStream().push(42), /push: a chat completion chunk must be an object/);
  });

  test("strict definitions OpenAI would reject fail before the request; defineTool's strict output passes", () => {
    // mysql-mcp#5, aichat#1049, github-mcp-server#39.
    const strictTool = defineTool({
      name: "query",
      description: "Run a query",
      strict: true,
      input: z.object({ sql: z.string(), params: z.array(z.object({ value: z.string().optional() })).optional() }),
      execute: () => null,
    });
    assert.equal(api.toOpenAIChatTools([strictTool.definition])[0].function.strict, true);
    assert.equal(api.toOpenAIResponsesTools([strictTool.definition])[0].strict, true);
    const open = { type: "function", function: { name: "q", strict: true, parameters: { type: "object", properties: { sql: { type: "string" } }, required: ["sql"] } } };
    assert.throws(() => api.toOpenAIChatTools([open]), /strict mode: an object needs additionalProperties: false at \$/);
    assert.throws(() => api.toOpenAIResponsesRequest({ messages: [], tools: [open] }), TypeError);
    // Providers without strict mode take it as it is.
    assert.equal(api.toAnthropicTools([open]).length, 1);
  });

  test("downgrades go to onWarning, or to process warnings", async () => {
    const tools = [{ type: "function", function: { name: "f" } }];
    const seen = [];
    toAnthropicRequest({ messages: [], tools, toolChoice: "required", thinking: true, onWarning: (w) => seen.push(w) });
    toGeminiRequest({ messages: [], tools, parallelToolCalls: false, onWarning: (w) => seen.push(w) });
    toOpenAIChatRequest({ messages: [], toolChoice: "auto", onWarning: (w) => seen.push(w) });
    assert.equal(seen.length, 3);
    assert.match(seen[0], /downgraded to "auto"/);
    assert.match(seen[1], /no switch to turn parallel calls off/);
    assert.match(seen[2], /toolChoice is ignored because no tools are sent/);

    const warned = new Promise((resolve) => process.once("warning", resolve));
    const request = api.toOllamaRequest({ messages: [], tools, toolChoice: "required" });
    assert.deepEqual(request.tools, [{ type: "function", function: { name: "f" } }]);
    const warning = await warned;
    assert.equal(warning.name, "ProviderWarning");
    assert.match(warning.message, /cannot force a tool call/);
  });
});

describe("streams", () => {
  test("every accumulator starts empty, and finish() can be called at any time", () => {
    for (const create of [createOpenAIChatStream, createOpenAIResponsesStream, createAnthropicStream, createGeminiStream, createOllamaStream]) {
      const accumulator = create();
      const result = accumulator.finish();
      assert.equal(result.content, "");
      assert.equal(result.toolCalls, undefined);
      assert.deepEqual(accumulator.finish(), result);
    }
    const gemini = createGeminiStream();
    assert.equal(gemini.push({ candidates: [{ content: { parts: [{ text: "Hi" }] } }] }), "Hi");
    assert.equal(gemini.finish().content, "Hi");
    assert.equal(gemini.push({ candidates: [{ content: { parts: [{ text: " there" }] }, finishReason: "STOP" }] }), " there");
    assert.equal(gemini.finish().content, "Hi there");
  });
});

describe("histories replayed across providers", () => {
  test("Gemini calls (invented ids, signatures) replay to OpenAI and Anthropic; Responses reasoning stays out of others", () => {
    const turn = fromGeminiResponse({
      candidates: [{ content: { parts: [{ functionCall: { name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "c2ln" }] }, finishReason: "STOP" }],
    });
    const id = turn.toolCalls[0].id;
    const messages = [{ role: "user", content: "x" }, turn.message, { role: "tool", toolCallId: id, content: "21" }];
    const chat = toOpenAIChatRequest({ messages }).messages;
    assert.equal(chat[1].tool_calls[0].id, id);
    assert.equal(chat[2].tool_call_id, id);
    const anthropic = toAnthropicRequest({ messages }).messages;
    assert.deepEqual(anthropic[1].content, [{ type: "tool_use", id, name: "get_weather", input: { city: "Oslo" } }]);
    // Back to Gemini: the invented id stays local.
    const gemini = toGeminiRequest({ messages }).contents;
    assert.deepEqual(gemini[1].parts, [{ functionCall: { name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "c2ln" }]);
    assert.deepEqual(gemini[2].parts, [{ functionResponse: { name: "get_weather", response: { output: "21" } } }]);

    const reasoning = [{ type: "reasoning", id: "rs_1", summary: [] }];
    const fromResponses = [
      { role: "assistant", content: "", toolCalls: [call("call_1")], providerData: { openaiResponses: { reasoning } } },
      { role: "tool", toolCallId: "call_1", content: "21" },
    ];
    assert.deepEqual(toOpenAIResponsesRequest({ messages: fromResponses }).input[0], reasoning[0]);
    assert.deepEqual(toAnthropicRequest({ messages: fromResponses }).messages[0].content, [
      { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Oslo" } },
    ]);
  });
});
