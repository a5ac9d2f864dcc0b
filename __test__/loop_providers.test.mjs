// The tool loop end to end through each provider adapter, with the official SDK clients talking to
// a local stand-in server: calls are run, results go back in the provider's format.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { Ollama } from "ollama";
import { createProviderSession, runToolLoop, streamToolLoop } from "agent-tools-native";
import { toolWorkspace, withProvider } from "./provider_helpers.mjs";
import { notUnderWine, WINE } from "./helpers.mjs";

const READ = { path: "notes.txt" };
const WEATHER = { city: "Oslo" };

const openaiChat = (message, finish) => ({
  json: { id: "c", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, message, finish_reason: finish, logprobs: null }] },
});

const CASES = {
  "openai-chat": {
    client: (url) => new OpenAI({ apiKey: "k", baseURL: `${url}/v1`, maxRetries: 0, timeout: 5000 }),
    replies: [
      openaiChat({ role: "assistant", content: null, tool_calls: [
        { id: "call_1", type: "function", function: { name: "read_file", arguments: JSON.stringify(READ) } },
        { id: "call_2", type: "function", function: { name: "get_weather", arguments: JSON.stringify(WEATHER) } },
      ] }, "tool_calls"),
      openaiChat({ role: "assistant", content: "notes read" }, "stop"),
    ],
    results: (body) => body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]),
  },
  "openai-responses": {
    client: (url) => new OpenAI({ apiKey: "k", baseURL: `${url}/v1`, maxRetries: 0, timeout: 5000 }),
    replies: [
      { json: { id: "resp_1", object: "response", created_at: 0, status: "completed", model: "m", output: [
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "read_file", arguments: JSON.stringify(READ), status: "completed" },
        { type: "function_call", id: "fc_2", call_id: "call_2", name: "get_weather", arguments: JSON.stringify(WEATHER), status: "completed" },
      ] } },
      { json: { id: "resp_2", object: "response", created_at: 0, status: "completed", model: "m", output: [
        { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "notes read", annotations: [] }] },
      ] } },
    ],
    results: (body) => body.input.filter((i) => i.type === "function_call_output").map((i) => [i.call_id, i.output]),
  },
  anthropic: {
    client: (url) => new Anthropic({ apiKey: "k", baseURL: url, maxRetries: 0, timeout: 5000 }),
    replies: [
      { json: { id: "msg_1", type: "message", role: "assistant", model: "m", stop_reason: "tool_use", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 }, content: [
        { type: "tool_use", id: "toolu_1", name: "read_file", input: READ },
        { type: "tool_use", id: "toolu_2", name: "get_weather", input: WEATHER },
      ] } },
      { json: { id: "msg_2", type: "message", role: "assistant", model: "m", stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 }, content: [{ type: "text", text: "notes read" }] } },
    ],
    results: (body) => body.messages.at(-1).content.filter((b) => b.type === "tool_result").map((b) => [b.tool_use_id, typeof b.content === "string" ? b.content : JSON.stringify(b.content)]),
  },
  gemini: {
    client: (url) => new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: url } }),
    replies: [
      { json: { candidates: [{ index: 0, finishReason: "STOP", content: { role: "model", parts: [{ functionCall: { name: "read_file", args: READ } }, { functionCall: { name: "get_weather", args: WEATHER } }] } }] } },
      { json: { candidates: [{ index: 0, finishReason: "STOP", content: { role: "model", parts: [{ text: "notes read" }] } }] } },
    ],
    results: (body) => body.contents.at(-1).parts.filter((p) => p.functionResponse).map((p) => [p.functionResponse.name, JSON.stringify(p.functionResponse.response)]),
  },
  ollama: {
    client: (url) => new Ollama({ host: url }),
    replies: [
      { json: { model: "m", created_at: "2026-01-01T00:00:00Z", done: true, done_reason: "stop", message: { role: "assistant", content: "", tool_calls: [
        { function: { name: "read_file", arguments: READ } },
        { function: { name: "get_weather", arguments: WEATHER } },
      ] } } },
      { json: { model: "m", created_at: "2026-01-01T00:00:00Z", done: true, done_reason: "stop", message: { role: "assistant", content: "notes read" } } },
    ],
    results: (body) => body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_name, m.content]),
  },
};

describe("the tool loop through each provider adapter and official SDK client", notUnderWine(WINE.nodeFetch, { runtime: "node" }), () => {
  for (const [provider, spec] of Object.entries(CASES)) {
    test(provider, async () => {
      const ws = toolWorkspace();
      try {
        await withProvider(spec.replies, async (server) => {
          const session = createProviderSession({ provider, client: spec.client(server.url), model: "m" });
          const result = await runToolLoop({ session, toolkit: ws.toolkit, prompt: "Read notes.txt and check the weather in Oslo." });
          assert.equal(result.stopReason, "end_turn");
          assert.equal(result.text, "notes read");
          assert.equal(server.requests.length, 2);
          const offered = JSON.stringify(server.requests[0].body);
          assert.ok(offered.includes("read_file") && offered.includes("get_weather"), "the allowed tools were offered");
          const results = spec.results(server.requests[1].body);
          assert.equal(results.length, 2, JSON.stringify(server.requests[1].body));
          assert.ok(results[0][1].includes("alpha"), `read_file's output went back: ${results[0][1]}`);
          assert.ok(results[1][1].includes("21"), `get_weather's output went back: ${results[1][1]}`);
          assert.equal(session.messages.filter((m) => m.role === "tool").length, 2);
        });
      } finally {
        ws.cleanup();
      }
    });
  }

  test("streaming (OpenAI SSE): text deltas reach the loop's events", async () => {
    const ws = toolWorkspace();
    const chunk = (delta, finish = null) => ({ data: { id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] } });
    try {
      await withProvider([
        { sse: [
          chunk({ role: "assistant", content: "Let me " }),
          chunk({ content: "look." }),
          chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read_file", arguments: "" } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(READ) } }] }),
          chunk({}, "tool_calls"),
          { data: "[DONE]" },
        ] },
        { sse: [chunk({ role: "assistant", content: "done" }), chunk({}, "stop"), { data: "[DONE]" }] },
      ], async (server) => {
        const session = createProviderSession({ provider: "openai-chat", client: CASES["openai-chat"].client(server.url), model: "m", stream: true });
        const deltas = [];
        const callDeltas = [];
        const run = streamToolLoop({ session, toolkit: ws.toolkit, prompt: "go" });
        for await (const event of run) {
          if (event.type === "text_delta") deltas.push(event.text);
          if (event.type === "tool_call_delta") callDeltas.push(event);
        }
        const result = await run.result;
        assert.deepEqual(deltas, ["Let me ", "look.", "done"]);
        assert.deepEqual(callDeltas, [
          { type: "tool_call_delta", index: 0, id: "call_1", name: "read_file", arguments_delta: "" },
          { type: "tool_call_delta", index: 0, arguments_delta: JSON.stringify(READ) },
        ]);
        assert.equal(result.stopReason, "end_turn");
        assert.equal(result.turns[0].calls[0].name, "read_file");
        assert.equal(server.requests[0].body.stream, true);
      });
    } finally {
      ws.cleanup();
    }
  });

  test("streaming (Anthropic SSE): tool-call fragments reach the loop's events", async () => {
    const ws = toolWorkspace();
    const ev = (type, data) => ({ event: type, data: { type, ...data } });
    const start = (id) => ev("message_start", { message: { id, type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 0 } } });
    try {
      await withProvider([
        { sse: [
          start("msg_1"),
          ev("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "read_file", input: {} } }),
          ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"path":' } }),
          ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '"notes.txt"}' } }),
          ev("content_block_stop", { index: 0 }),
          ev("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 5 } }),
          ev("message_stop", {}),
        ] },
        { sse: [
          start("msg_2"),
          ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
          ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "done" } }),
          ev("content_block_stop", { index: 0 }),
          ev("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } }),
          ev("message_stop", {}),
        ] },
      ], async (server) => {
        const session = createProviderSession({ provider: "anthropic", client: CASES.anthropic.client(server.url), model: "m", stream: true });
        const callDeltas = [];
        const run = streamToolLoop({ session, toolkit: ws.toolkit, prompt: "go" });
        for await (const event of run) if (event.type === "tool_call_delta") callDeltas.push(event);
        const result = await run.result;
        assert.deepEqual(callDeltas, [
          { type: "tool_call_delta", index: 0, id: "toolu_1", name: "read_file" },
          { type: "tool_call_delta", index: 0, arguments_delta: '{"path":' },
          { type: "tool_call_delta", index: 0, arguments_delta: '"notes.txt"}' },
        ]);
        assert.equal(result.text, "done");
        const sent = server.requests[1].body.messages.at(-1).content[0];
        assert.equal(sent.tool_use_id, "toolu_1");
      });
    } finally {
      ws.cleanup();
    }
  });

  test("unknown providers and missing clients are refused", () => {
    assert.throws(() => createProviderSession({ provider: "nope", client: {}, model: "m" }), /unknown provider/);
    assert.throws(() => createProviderSession({ provider: "anthropic", model: "m" }), /client is required/);
  });
});
