// The OpenAI adapters (Chat Completions and Responses) driven through the official `openai` SDK
// against a local stand-in server: requests built from our common types, responses (plain and
// streamed, parallel calls included) parsed into QueryResults, calls run with `invoke`.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import OpenAI from "openai";
import {
  checkToolHistory,
  createOpenAIChatStream,
  createOpenAIResponsesStream,
  fromOpenAIChatResponse,
  fromOpenAIResponsesResponse,
  toOpenAIChatRequest,
  toOpenAIResponsesRequest,
} from "agent-tools-native";
import { drain, runCalls, toolWorkspace, withProvider } from "./provider_helpers.mjs";
import { notUnderWine, WINE } from "./helpers.mjs";

const client = (server) => new OpenAI({ apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 5000 });
const prompt = () => [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Read notes.txt and tell me the weather in Oslo." },
];
const READ = { name: "read_file", arguments: '{"path":"notes.txt"}' };
const WEATHER = { name: "get_weather", arguments: '{"city":"Oslo"}' };
const callsOf = (result) => result.toolCalls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]);

// ---- Chat Completions ----------------------------------------------------------------------------

const completion = (message, finish_reason) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-test",
  choices: [{ index: 0, finish_reason, logprobs: null, message: { role: "assistant", refusal: null, ...message } }],
  usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
});
const parallelCompletion = completion(
  {
    content: "Let me look.",
    tool_calls: [
      { id: "call_a", type: "function", function: READ },
      { id: "call_b", type: "function", function: WEATHER },
    ],
  },
  "tool_calls",
);
const chunk = (delta, finish_reason = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-test",
  choices: [{ index: 0, delta, finish_reason }],
});
/** The parallel completion as a stream: interleaved argument fragments, a final usage chunk. */
const parallelChunks = [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Let me " }),
  chunk({ content: "look." }),
  chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "read_file", arguments: "" } }] }),
  chunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "get_weather", arguments: '{"ci' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
  chunk({ tool_calls: [{ index: 1, function: { arguments: 'ty":"Oslo"}' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"notes.txt"}' } }] }),
  chunk({}, "tool_calls"),
  { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-test", choices: [], usage: parallelCompletion.usage },
];
const sse = (events) => ({ sse: [...events.map((data) => ({ data })), { data: "[DONE]" }] });

describe("OpenAI Chat Completions through the openai SDK", notUnderWine(WINE.nodeFetch, { runtime: "node" }), () => {
  test("parallel calls → invoke → results → final answer; the SDK sends what we built", { timeout: 20000 }, async () => {
    const { toolkit, cleanup } = toolWorkspace();
    try {
      const tools = toolkit.getAllowedTools();
      const final = completion({ content: "Notes: alpha, beta. Oslo: 21°C." }, "stop");
      await withProvider([{ json: parallelCompletion }, { json: final }], async (server) => {
        const openai = client(server);
        const messages = prompt();
        const request = toOpenAIChatRequest({ messages, tools, toolChoice: "auto", parallelToolCalls: true });
        const result = fromOpenAIChatResponse(await openai.chat.completions.create({ model: "gpt-test", ...request }));

        assert.equal(server.requests[0].url, "/v1/chat/completions");
        assert.deepEqual(server.requests[0].body, {
          model: "gpt-test",
          messages: prompt(),
          tools: tools.map((t) => ({ type: "function", function: t.function })),
          tool_choice: "auto",
          parallel_tool_calls: true,
        });
        assert.equal(result.finishReason, "tool_calls");
        assert.equal(result.content, "Let me look.");
        assert.deepEqual(callsOf(result), [
          ["call_a", "read_file", { path: "notes.txt" }],
          ["call_b", "get_weather", { city: "Oslo" }],
        ]);
        assert.deepEqual(result.usage, { promptTokens: 12, completionTokens: 8, totalTokens: 20 });

        const results = await runCalls(toolkit, result.toolCalls);
        assert.equal(JSON.parse(results[0].content).content, "alpha\nbeta\n");
        assert.deepEqual(JSON.parse(results[1].content), { city: "Oslo", celsius: 21 });
        messages.push(result.message, ...results);
        assert.deepEqual(checkToolHistory(messages, "openai-chat"), []);

        const answer = fromOpenAIChatResponse(await openai.chat.completions.create({ model: "gpt-test", ...toOpenAIChatRequest({ messages, tools }) }));
        assert.deepEqual(server.requests[1].body.messages.slice(2), [
          {
            role: "assistant",
            content: "Let me look.",
            tool_calls: [
              { id: "call_a", type: "function", function: READ },
              { id: "call_b", type: "function", function: WEATHER },
            ],
          },
          { role: "tool", tool_call_id: "call_a", content: results[0].content },
          { role: "tool", tool_call_id: "call_b", content: results[1].content },
        ]);
        assert.equal(answer.finishReason, "stop");
        assert.equal(answer.content, "Notes: alpha, beta. Oslo: 21°C.");
        assert.equal(answer.toolCalls, undefined);
      });
    } finally {
      cleanup();
    }
  });

  test("a streamed answer gives the same QueryResult, text deltas passed through", { timeout: 20000 }, async () => {
    await withProvider([sse(parallelChunks)], async (server) => {
      const stream = await client(server).chat.completions.create({
        model: "gpt-test",
        ...toOpenAIChatRequest({ messages: prompt() }),
        stream: true,
        stream_options: { include_usage: true },
      });
      const accumulator = createOpenAIChatStream();
      const deltas = [];
      for await (const delta of accumulator.textStream(stream)) deltas.push(delta);
      assert.deepEqual(deltas, ["Let me ", "look."]);
      assert.deepEqual(accumulator.finish(), fromOpenAIChatResponse(parallelCompletion));
      assert.equal(server.requests[0].body.stream, true);
    });
  });

  test("compatible servers: every call on index 0, or no index at all", { timeout: 20000 }, async () => {
    // ollama#15457 / agno#8880 (new id on a reused index), ollama#7881 / openai-python#3246 (no index).
    const onIndexZero = [
      chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: READ }] }),
      chunk({ tool_calls: [{ index: 0, id: "call_b", type: "function", function: WEATHER }] }),
      chunk({}, "stop"),
    ];
    const noIndex = [
      chunk({ tool_calls: [{ id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path"' } }] }),
      chunk({ tool_calls: [{ function: { arguments: ':"notes.txt"}' } }] }),
      chunk({ tool_calls: [{ id: "call_b", type: "function", function: WEATHER }] }),
      chunk({}, "tool_calls"),
    ];
    await withProvider([sse(onIndexZero), sse(noIndex)], async (server) => {
      for (const _ of [onIndexZero, noIndex]) {
        const stream = await client(server).chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }], stream: true });
        const accumulator = createOpenAIChatStream();
        assert.equal(await drain(accumulator, stream), "");
        const result = accumulator.finish();
        assert.equal(result.finishReason, "tool_calls");
        assert.deepEqual(callsOf(result), [
          ["call_a", "read_file", { path: "notes.txt" }],
          ["call_b", "get_weather", { city: "Oslo" }],
        ]);
      }
    });
  });

  test("a turn cut by max tokens is `length` and offers no calls to run", { timeout: 20000 }, async () => {
    const cut = completion({ content: null, tool_calls: [{ id: "call_a", type: "function", function: { name: "read_file", arguments: '{"pa' } }] }, "length");
    await withProvider([{ json: cut }], async (server) => {
      const result = fromOpenAIChatResponse(await client(server).chat.completions.create({ model: "gpt-test", messages: prompt() }));
      assert.equal(result.finishReason, "length");
      assert.equal(result.toolCalls, undefined);
      assert.deepEqual(result.message, { role: "assistant", content: "" });
    });
  });

  test("forced tool choice and ids from other providers reach the wire in OpenAI's form", { timeout: 20000 }, async () => {
    const foreignId = "toolu_01ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij";
    const messages = [
      ...prompt(),
      { role: "assistant", content: "", toolCalls: [{ id: foreignId, type: "function", function: WEATHER }] },
      { role: "tool", toolCallId: foreignId, content: "21" },
    ];
    await withProvider([{ json: completion({ content: "ok" }, "stop") }], async (server) => {
      const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
      await client(server).chat.completions.create({
        model: "gpt-test",
        ...toOpenAIChatRequest({ messages, tools, toolChoice: { type: "function", function: { name: "get_weather" } } }),
      });
      const body = server.requests[0].body;
      assert.deepEqual(body.tool_choice, { type: "function", function: { name: "get_weather" } });
      const sentId = body.messages[2].tool_calls[0].id;
      assert.ok(sentId.length <= 40 && /^[A-Za-z0-9_-]+$/.test(sentId), sentId);
      assert.equal(body.messages[2].content, null);
      assert.equal(body.messages[3].tool_call_id, sentId);
    });
  });
});

// ---- Responses API --------------------------------------------------------------------------------

const reasoning = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAAB" };
const responseOf = (output, extra = {}) => ({
  id: "resp_1",
  object: "response",
  created_at: 1,
  status: "completed",
  model: "gpt-test",
  error: null,
  incomplete_details: null,
  output,
  usage: { input_tokens: 12, output_tokens: 8, total_tokens: 20 },
  ...extra,
});
const fc = (n, call) => ({ type: "function_call", id: `fc_${n}`, call_id: `call_${n}`, ...call, status: "completed" });
const parallelResponse = responseOf([
  reasoning,
  { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Let me look.", annotations: [] }] },
  fc("a", READ),
  fc("b", WEATHER),
]);
const event = (type, fields) => ({ event: type, data: { type, ...fields } });
const parallelEvents = (withItemDone = true) =>
  [
    event("response.created", { response: responseOf([], { status: "in_progress", usage: null }) }),
    event("response.output_item.added", { output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } }),
    event("response.output_item.done", { output_index: 0, item: reasoning }),
    event("response.output_item.added", { output_index: 1, item: { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] } }),
    event("response.output_text.delta", { output_index: 1, item_id: "msg_1", content_index: 0, delta: "Let me " }),
    event("response.output_text.delta", { output_index: 1, item_id: "msg_1", content_index: 0, delta: "look." }),
    withItemDone && event("response.output_item.done", { output_index: 1, item: parallelResponse.output[1] }),
    event("response.output_item.added", { output_index: 2, item: { ...fc("a", READ), arguments: "", status: "in_progress" } }),
    event("response.output_item.added", { output_index: 3, item: { ...fc("b", WEATHER), arguments: "", status: "in_progress" } }),
    event("response.function_call_arguments.delta", { output_index: 2, item_id: "fc_a", delta: '{"path":' }),
    event("response.function_call_arguments.delta", { output_index: 3, item_id: "fc_b", delta: '{"city":' }),
    event("response.function_call_arguments.delta", { output_index: 2, item_id: "fc_a", delta: '"notes.txt"}' }),
    event("response.function_call_arguments.delta", { output_index: 3, item_id: "fc_b", delta: '"Oslo"}' }),
    withItemDone && event("response.output_item.done", { output_index: 2, item: fc("a", READ) }),
    withItemDone && event("response.output_item.done", { output_index: 3, item: fc("b", WEATHER) }),
    event("response.completed", { response: parallelResponse }),
  ]
    .filter(Boolean)
    .map((e, i) => ({ ...e, data: { ...e.data, sequence_number: i } }));

describe("OpenAI Responses API through the openai SDK", notUnderWine(WINE.nodeFetch, { runtime: "node" }), () => {
  test("parallel calls with a reasoning item → invoke → outputs; reasoning replayed before the calls", { timeout: 20000 }, async () => {
    const { toolkit, cleanup } = toolWorkspace();
    try {
      const tools = toolkit.getAllowedTools();
      const final = responseOf([{ type: "message", id: "msg_2", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Done.", annotations: [] }] }]);
      await withProvider([{ json: parallelResponse }, { json: final }], async (server) => {
        const openai = client(server);
        const messages = prompt();
        const response = await openai.responses.create({ model: "gpt-test", ...toOpenAIResponsesRequest({ messages, tools, toolChoice: "required" }) });
        assert.equal(server.requests[0].url, "/v1/responses");
        assert.deepEqual(server.requests[0].body, {
          model: "gpt-test",
          input: prompt(),
          tools: tools.map(({ function: f }) => ({ type: "function", name: f.name, description: f.description, parameters: f.parameters, strict: f.strict === true })),
          tool_choice: "required",
        });
        const result = fromOpenAIResponsesResponse(response);
        assert.equal(result.finishReason, "tool_calls");
        assert.deepEqual(callsOf(result), [
          ["call_a", "read_file", { path: "notes.txt" }],
          ["call_b", "get_weather", { city: "Oslo" }],
        ]);
        assert.deepEqual(result.toolCalls[0].providerData, { openaiResponses: { itemId: "fc_a" } });
        assert.deepEqual(result.message.providerData, { openaiResponses: { reasoning: [reasoning] } });

        const results = await runCalls(toolkit, result.toolCalls);
        messages.push(result.message, ...results);
        assert.deepEqual(checkToolHistory(messages, "openai-responses"), []);
        const answer = fromOpenAIResponsesResponse(await openai.responses.create({ model: "gpt-test", ...toOpenAIResponsesRequest({ messages, tools }) }));
        assert.deepEqual(server.requests[1].body.input.slice(2), [
          reasoning,
          { role: "assistant", content: "Let me look." },
          { type: "function_call", call_id: "call_a", name: "read_file", arguments: READ.arguments, id: "fc_a" },
          { type: "function_call", call_id: "call_b", name: "get_weather", arguments: WEATHER.arguments, id: "fc_b" },
          { type: "function_call_output", call_id: "call_a", output: results[0].content },
          { type: "function_call_output", call_id: "call_b", output: results[1].content },
        ]);
        assert.equal(answer.finishReason, "stop");
        assert.equal(answer.content, "Done.");
      });
    } finally {
      cleanup();
    }
  });

  test("streamed events give the same QueryResult, also when output_item.done is skipped", { timeout: 20000 }, async () => {
    // opencode#46084: compatible servers that skip output_item.done.
    await withProvider([{ sse: parallelEvents(true) }, { sse: parallelEvents(false) }], async (server) => {
      for (let i = 0; i < 2; i++) {
        const stream = await client(server).responses.create({ model: "gpt-test", input: "x", stream: true });
        const accumulator = createOpenAIResponsesStream();
        assert.equal(await drain(accumulator, stream), "Let me look.");
        assert.deepEqual(accumulator.finish(), fromOpenAIResponsesResponse(parallelResponse));
      }
    });
  });

  test("an incomplete response (max_output_tokens) is `length` without calls", { timeout: 20000 }, async () => {
    // strands#4135: a function_call started before the cut must not run.
    const cut = responseOf([{ ...fc("a", READ), arguments: '{"pa', status: "incomplete" }], {
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
    await withProvider([{ json: cut }], async (server) => {
      const result = fromOpenAIResponsesResponse(await client(server).responses.create({ model: "gpt-test", input: "x" }));
      assert.equal(result.finishReason, "length");
      assert.equal(result.rawFinishReason, "max_output_tokens");
      assert.equal(result.toolCalls, undefined);
    });
  });
});

describe("OpenAI-compatible servers", notUnderWine(WINE.nodeFetch, { runtime: "node" }), () => {
  test("compat cuts long descriptions (1024-character caps) and strips defaults (Azure)", () => {
    const warnings = [];
    const tools = [{ type: "function", function: { name: "t", description: "x".repeat(2000), parameters: { type: "object", properties: { n: { type: "number", default: 3 } } } } }];
    const request = toOpenAIChatRequest({ messages: [{ role: "user", content: "hi" }], tools, compat: { maxDescriptionLength: 1024, stripDefaults: true }, onWarning: (w) => warnings.push(w) });
    assert.equal(request.tools[0].function.description.length, 1024);
    assert.deepEqual(request.tools[0].function.parameters, { type: "object", properties: { n: { type: "number" } } });
    assert.equal(warnings.length, 2);
    const untouched = toOpenAIChatRequest({ messages: [{ role: "user", content: "hi" }], tools });
    assert.equal(untouched.tools[0].function.description.length, 2000);
  });
});
