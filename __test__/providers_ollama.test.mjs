// The Ollama adapter driven through the official `ollama` client against a local stand-in
// `/api/chat`: requests built from our common types, responses (plain and NDJSON-streamed,
// parallel calls included) parsed into QueryResults, calls run with `invoke`, results sent back.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { Ollama } from "ollama";
import { checkToolHistory, createOllamaStream, fromOllamaResponse, toOllamaRequest } from "agent-tools-native";
import { drain, runCalls, toolWorkspace, withProvider, withoutSyntheticIds } from "./provider_helpers.mjs";
import { notUnderWine, WINE } from "./helpers.mjs";

const client = (server) => new Ollama({ host: server.url });
const prompt = () => [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Read notes.txt and tell me the weather in Oslo." },
];
const callsOf = (result) => result.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]);

const chatOf = (message, done_reason = "stop", extra = {}) => ({
  model: "llama-test",
  created_at: "2026-01-01T00:00:00Z",
  message: { role: "assistant", content: "", ...message },
  done: true,
  done_reason,
  total_duration: 1,
  load_duration: 1,
  prompt_eval_count: 12,
  prompt_eval_duration: 1,
  eval_count: 8,
  eval_duration: 1,
  ...extra,
});
// Ollama's calls carry object arguments and usually no id.
const parallelCalls = [
  { function: { name: "read_file", arguments: { path: "notes.txt" } } },
  { function: { name: "get_weather", arguments: { city: "Oslo" } } },
];
const parallelChat = chatOf({ content: "Let me look.", thinking: "Two lookups.", tool_calls: parallelCalls });
const part = (message) => ({ model: "llama-test", created_at: "2026-01-01T00:00:00Z", message: { role: "assistant", content: "", ...message }, done: false });
const parallelChunks = [
  part({ thinking: "Two " }),
  part({ thinking: "lookups." }),
  part({ content: "Let me " }),
  part({ content: "look." }),
  part({ tool_calls: parallelCalls }),
  chatOf({}),
];

describe("Ollama /api/chat through the ollama client", notUnderWine(WINE.nodeFetch, { runtime: "node" }), () => {
  test("parallel calls → invoke → tool messages with object arguments; the client sends what we built", { timeout: 20000 }, async () => {
    const { toolkit, cleanup } = toolWorkspace();
    try {
      const tools = toolkit.getAllowedTools();
      await withProvider([{ json: parallelChat }, { json: chatOf({ content: "Notes: alpha, beta. Oslo: 21°C." }) }], async (server) => {
        const ollama = client(server);
        const messages = prompt();
        const result = fromOllamaResponse(await ollama.chat({ model: "llama-test", ...toOllamaRequest({ messages, tools }) }));
        assert.equal(server.requests[0].url, "/api/chat");
        assert.deepEqual(server.requests[0].body, {
          model: "llama-test",
          stream: false,
          messages: prompt(),
          tools: tools.map(({ function: { strict, ...f } }) => ({ type: "function", function: f })),
        });
        assert.equal(result.finishReason, "tool_calls");
        assert.equal(result.rawFinishReason, "stop");
        assert.deepEqual(callsOf(result), [
          ["read_file", { path: "notes.txt" }],
          ["get_weather", { city: "Oslo" }],
        ]);
        assert.deepEqual(result.message.providerData, { ollama: { thinking: "Two lookups." } });

        const results = await runCalls(toolkit, result.toolCalls);
        messages.push(result.message, ...results);
        assert.deepEqual(checkToolHistory(messages, "ollama"), []);
        const answer = fromOllamaResponse(await ollama.chat({ model: "llama-test", ...toOllamaRequest({ messages, tools }) }));
        assert.deepEqual(server.requests[1].body.messages.slice(2), [
          { role: "assistant", content: "Let me look.", thinking: "Two lookups.", tool_calls: parallelCalls },
          { role: "tool", content: results[0].content, tool_name: "read_file" },
          { role: "tool", content: results[1].content, tool_name: "get_weather" },
        ]);
        assert.equal(answer.finishReason, "stop");
        assert.equal(answer.content, "Notes: alpha, beta. Oslo: 21°C.");
      });
    } finally {
      cleanup();
    }
  });

  test("a streamed (NDJSON) answer gives the same QueryResult, text deltas passed through", { timeout: 20000 }, async () => {
    await withProvider([{ ndjson: parallelChunks }], async (server) => {
      const stream = await client(server).chat({ model: "llama-test", messages: prompt(), stream: true });
      const accumulator = createOllamaStream();
      assert.equal(await drain(accumulator, stream), "Let me look.");
      assert.deepEqual(withoutSyntheticIds(accumulator.finish()), withoutSyntheticIds(fromOllamaResponse(parallelChat)));
      assert.equal(server.requests[0].body.stream, true);
    });
  });

  test("stringified arguments from a model are read; history always goes back as objects", { timeout: 20000 }, async () => {
    // ollama#12413 (stringified arguments), openclaw#47182 ("Value looks like object, but can't find closing '}'").
    const stringified = chatOf({ tool_calls: [{ function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] });
    await withProvider([{ json: stringified }, { json: chatOf({ content: "ok" }) }], async (server) => {
      const ollama = client(server);
      const result = fromOllamaResponse(await ollama.chat({ model: "llama-test", messages: prompt() }));
      assert.deepEqual(callsOf(result), [["get_weather", { city: "Oslo" }]]);
      const messages = [...prompt(), result.message, { role: "tool", toolCallId: result.toolCalls[0].id, content: "21" }];
      await ollama.chat({ model: "llama-test", ...toOllamaRequest({ messages }) });
      assert.deepEqual(server.requests[1].body.messages[2].tool_calls, [{ function: { name: "get_weather", arguments: { city: "Oslo" } } }]);
      assert.equal(server.requests[1].body.messages[3].tool_name, "get_weather");
    });
  });

  test("tool choice is emulated: none sends no tools, a named choice only that tool (with a warning)", { timeout: 20000 }, async () => {
    const tools = [
      { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } },
      { type: "function", function: { name: "get_time" } },
    ];
    const warnings = [];
    await withProvider([{ json: chatOf({ content: "a" }) }, { json: chatOf({ content: "b" }) }], async (server) => {
      const ollama = client(server);
      await ollama.chat({ model: "llama-test", ...toOllamaRequest({ messages: prompt(), tools, toolChoice: "none" }) });
      assert.equal(server.requests[0].body.tools, undefined);
      const named = toOllamaRequest({ messages: prompt(), tools, toolChoice: { type: "function", function: { name: "get_time" } }, onWarning: (w) => warnings.push(w) });
      await ollama.chat({ model: "llama-test", ...named });
      assert.deepEqual(server.requests[1].body.tools, [{ type: "function", function: { name: "get_time" } }]);
      assert.equal(warnings.length, 1);
    });
  });

  test("done_reason length is `length` and offers no calls", { timeout: 20000 }, async () => {
    await withProvider([{ json: chatOf({ tool_calls: parallelCalls }, "length") }], async (server) => {
      const result = fromOllamaResponse(await client(server).chat({ model: "llama-test", messages: prompt() }));
      assert.equal(result.finishReason, "length");
      assert.equal(result.toolCalls, undefined);
    });
  });
});
