// The Anthropic adapter driven through the official `@anthropic-ai/sdk` against a local stand-in
// server: requests built from our common types, messages (plain and streamed, parallel tool_use
// blocks included) parsed into QueryResults, calls run with `invoke`, results sent back.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { checkToolHistory, createAnthropicStream, fromAnthropicResponse, toAnthropicRequest, toAnthropicToolChoice } from "agent-tools-native";
import { drain, runCalls, toolWorkspace, withProvider } from "./provider_helpers.mjs";
import { notUnderWine, WINE } from "./helpers.mjs";

const client = (server) => new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0, timeout: 5000 });
const prompt = () => [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Read notes.txt and tell me the weather in Oslo." },
];
const callsOf = (result) => result.toolCalls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]);
const thinking = { type: "thinking", thinking: "Two independent lookups.", signature: "c2lnbmF0dXJl" };

const messageOf = (content, stop_reason, extra = {}) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-test",
  content,
  stop_reason,
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  ...extra,
});
const parallelMessage = messageOf(
  [
    thinking,
    { type: "text", text: "Let me look.", citations: null },
    { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "notes.txt" } },
    { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Oslo" } },
  ],
  "tool_use",
);
const event = (type, fields = {}) => ({ event: type, data: { type, ...fields } });
const delta = (index, d) => event("content_block_delta", { index, delta: d });
const parallelEvents = [
  event("message_start", { message: messageOf([], null, { usage: { input_tokens: 12, output_tokens: 1 } }) }),
  event("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
  delta(0, { type: "thinking_delta", thinking: "Two independent " }),
  delta(0, { type: "thinking_delta", thinking: "lookups." }),
  delta(0, { type: "signature_delta", signature: "c2lnbmF0dXJl" }),
  event("content_block_stop", { index: 0 }),
  event("content_block_start", { index: 1, content_block: { type: "text", text: "", citations: null } }),
  delta(1, { type: "text_delta", text: "Let me " }),
  event("ping"),
  delta(1, { type: "text_delta", text: "look." }),
  event("content_block_stop", { index: 1 }),
  event("content_block_start", { index: 2, content_block: { type: "tool_use", id: "toolu_a", name: "read_file", input: {} } }),
  delta(2, { type: "input_json_delta", partial_json: "" }),
  delta(2, { type: "input_json_delta", partial_json: '{"path": "no' }),
  delta(2, { type: "input_json_delta", partial_json: 'tes.txt"}' }),
  event("content_block_stop", { index: 2 }),
  event("content_block_start", { index: 3, content_block: { type: "tool_use", id: "toolu_b", name: "get_weather", input: {} } }),
  delta(3, { type: "input_json_delta", partial_json: '{"city": "Oslo"}' }),
  event("content_block_stop", { index: 3 }),
  event("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 8 } }),
  event("message_stop"),
];

describe("Anthropic Messages through @anthropic-ai/sdk", notUnderWine(WINE.nodeFetch, { runtime: "node" }), () => {
  test("parallel tool_use → invoke → tool_result blocks; thinking replayed; the SDK sends what we built", { timeout: 20000 }, async () => {
    const { toolkit, cleanup } = toolWorkspace();
    try {
      const tools = toolkit.getAllowedTools();
      const final = messageOf([{ type: "text", text: "Notes: alpha, beta. Oslo: 21°C.", citations: null }], "end_turn");
      await withProvider([{ json: parallelMessage }, { json: final }], async (server) => {
        const anthropic = client(server);
        const messages = prompt();
        const request = toAnthropicRequest({ messages, tools, toolChoice: "auto", parallelToolCalls: true });
        const result = fromAnthropicResponse(await anthropic.messages.create({ model: "claude-test", max_tokens: 1024, ...request }));

        assert.equal(server.requests[0].url, "/v1/messages");
        assert.deepEqual(server.requests[0].body, {
          model: "claude-test",
          max_tokens: 1024,
          system: "Be brief.",
          messages: [{ role: "user", content: "Read notes.txt and tell me the weather in Oslo." }],
          tools: tools.map(({ function: f }) => ({ name: f.name, description: f.description, input_schema: f.parameters })),
          tool_choice: { type: "auto" },
        });
        assert.equal(result.finishReason, "tool_calls");
        assert.equal(result.rawFinishReason, "tool_use");
        assert.equal(result.content, "Let me look.");
        assert.deepEqual(callsOf(result), [
          ["toolu_a", "read_file", { path: "notes.txt" }],
          ["toolu_b", "get_weather", { city: "Oslo" }],
        ]);
        assert.deepEqual(result.message.providerData, { anthropic: { thinking: [thinking] } });

        const results = await runCalls(toolkit, result.toolCalls);
        messages.push(result.message, ...results, { role: "user", content: "Thanks!" });
        assert.deepEqual(checkToolHistory(messages, "anthropic"), []);
        const answer = fromAnthropicResponse(
          await anthropic.messages.create({ model: "claude-test", max_tokens: 1024, ...toAnthropicRequest({ messages, tools }) }),
        );
        assert.deepEqual(server.requests[1].body.messages.slice(1), [
          {
            role: "assistant",
            content: [
              thinking,
              { type: "text", text: "Let me look." },
              { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "notes.txt" } },
              { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Oslo" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_a", content: results[0].content },
              { type: "tool_result", tool_use_id: "toolu_b", content: results[1].content },
              { type: "text", text: "Thanks!" },
            ],
          },
        ]);
        assert.equal(answer.finishReason, "stop");
        assert.equal(answer.content, "Notes: alpha, beta. Oslo: 21°C.");
      });
    } finally {
      cleanup();
    }
  });

  test("a streamed message gives the same QueryResult, text deltas passed through", { timeout: 20000 }, async () => {
    await withProvider([{ sse: parallelEvents }], async (server) => {
      const stream = await client(server).messages.create({ model: "claude-test", max_tokens: 1024, messages: [{ role: "user", content: "x" }], stream: true });
      const accumulator = createAnthropicStream();
      assert.equal(await drain(accumulator, stream), "Let me look.");
      assert.deepEqual(accumulator.finish(), fromAnthropicResponse(parallelMessage));
    });
  });

  test("the SDK's messages.stream() helper events feed the accumulator too", { timeout: 20000 }, async () => {
    await withProvider([{ sse: parallelEvents }], async (server) => {
      const stream = client(server).messages.stream({ model: "claude-test", max_tokens: 1024, messages: [{ role: "user", content: "x" }] });
      const accumulator = createAnthropicStream();
      await drain(accumulator, stream);
      assert.deepEqual(accumulator.finish(), fromAnthropicResponse(await stream.finalMessage()));
    });
  });

  test("a no-argument tool streamed with empty partial_json gets `{}`; max_tokens mid-tool_use is `length`", { timeout: 20000 }, async () => {
    // litellm#5063 / anthropic-sdk-python#658 (empty deltas), humux#77 (cut input).
    const toolStream = (fragments, stop) => ({
      sse: [
        event("message_start", { message: messageOf([], null) }),
        event("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_x", name: "git_status_summary", input: {} } }),
        ...fragments.map((partial_json) => delta(0, { type: "input_json_delta", partial_json })),
        event("content_block_stop", { index: 0 }),
        event("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 3 } }),
        event("message_stop"),
      ],
    });
    await withProvider([toolStream([""], "tool_use"), toolStream(['{"cwd": "sr'], "max_tokens")], async (server) => {
      const run = async () => {
        const accumulator = createAnthropicStream();
        await drain(accumulator, await client(server).messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }], stream: true }));
        return accumulator.finish();
      };
      const noArgs = await run();
      assert.equal(noArgs.finishReason, "tool_calls");
      assert.equal(noArgs.toolCalls[0].function.arguments, "{}");
      const cut = await run();
      assert.equal(cut.finishReason, "length");
      assert.equal(cut.toolCalls, undefined);
    });
  });

  test("tool choice forms; forced choices downgrade to auto with thinking", { timeout: 20000 }, async () => {
    const warnings = [];
    const onWarning = (w) => warnings.push(w);
    assert.deepEqual(toAnthropicToolChoice("required"), { type: "any" });
    assert.deepEqual(toAnthropicToolChoice("none", { parallelToolCalls: false }), { type: "none" });
    assert.deepEqual(toAnthropicToolChoice({ type: "function", function: { name: "f" } }, { parallelToolCalls: false }), {
      type: "tool",
      name: "f",
      disable_parallel_tool_use: true,
    });
    assert.deepEqual(toAnthropicToolChoice("required", { thinking: true, onWarning }), { type: "auto" });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /thinking/);
    await withProvider([{ json: messageOf([{ type: "text", text: "hi", citations: null }], "end_turn") }], async (server) => {
      const tools = [{ type: "function", function: { name: "f", description: "d" } }];
      const request = toAnthropicRequest({ messages: prompt(), tools, toolChoice: "required", thinking: true, onWarning });
      await client(server).messages.create({ model: "m", max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 1024 }, ...request });
      assert.deepEqual(server.requests[0].body.tool_choice, { type: "auto" });
      assert.deepEqual(server.requests[0].body.tools, [{ name: "f", description: "d", input_schema: { type: "object", properties: {} } }]);
      assert.equal(warnings.length, 2);
    });
  });

  test("ids replayed from other providers are made safe, the same on tool_use and tool_result", { timeout: 20000 }, async () => {
    // langchain#37756 / LibreChat agents#153: Kimi's `functions.get_weather:0`.
    const id = "functions.get_weather:0";
    const messages = [
      { role: "user", content: "x" },
      { role: "assistant", content: "", toolCalls: [{ id, type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
      { role: "tool", toolCallId: id, content: "21" },
    ];
    await withProvider([{ json: messageOf([{ type: "text", text: "ok", citations: null }], "end_turn") }], async (server) => {
      await client(server).messages.create({ model: "m", max_tokens: 5, ...toAnthropicRequest({ messages }) });
      const [, assistant, results] = server.requests[0].body.messages;
      const sent = assistant.content[0].id;
      assert.match(sent, /^[A-Za-z0-9_-]{1,64}$/);
      assert.equal(results.content[0].tool_use_id, sent);
    });
  });
});
