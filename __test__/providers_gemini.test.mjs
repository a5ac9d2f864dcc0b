// The Gemini / Vertex AI adapter driven through the official `@google/genai` SDK against a local
// stand-in server: requests built from our common types (as the SDK puts them on the wire),
// responses (plain and streamed, parallel functionCall parts included) parsed into QueryResults,
// calls run with `invoke`, function responses sent back with their thought signatures.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { GoogleGenAI } from "@google/genai";
import { checkToolHistory, createGeminiStream, fromGeminiResponse, toGeminiRequest, toGeminiToolChoice, toGeminiTools } from "agent-tools-native";
import { drain, runCalls, toolWorkspace, withProvider, withoutSyntheticIds } from "./provider_helpers.mjs";
import { notUnderWine, WINE } from "./helpers.mjs";

const gemini = (server) => new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: server.url } });
const vertex = (server) => new GoogleGenAI({ vertexai: true, apiKey: "test-key", httpOptions: { baseUrl: server.url } });
const prompt = () => [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Read notes.txt and tell me the weather in Oslo." },
];
/** Every object key anywhere in `value`. */
function keysOf(value, keys = new Set()) {
  if (Array.isArray(value)) value.forEach((v) => keysOf(v, keys));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) keysOf(v, keys.add(k));
  return keys;
}
const callsOf = (result) => result.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]);

const responseOf = (parts, finishReason = "STOP", extra = {}) => ({
  candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }],
  usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 8, totalTokenCount: 20 },
  modelVersion: "gemini-test",
  ...extra,
});
// Gemini sends no call ids; the first call carries the turn's thought signature.
const parallelParts = [
  { text: "Let me look." },
  { functionCall: { name: "read_file", args: { path: "notes.txt" } }, thoughtSignature: "c2lnLWE=" },
  { functionCall: { name: "get_weather", args: { city: "Oslo" } } },
];
const parallelResponse = responseOf(parallelParts);
const parallelChunks = [
  responseOf([{ text: "Let me " }], undefined),
  responseOf([{ text: "look." }], undefined),
  responseOf(parallelParts.slice(1)),
];
const sse = (chunks) => ({ sse: chunks.map((data) => ({ data })) });

describe("Gemini through @google/genai", notUnderWine(WINE.nodeFetch, { runtime: "node" }), () => {
  for (const [label, make, path] of [
    ["Gemini API", gemini, "/v1beta/models/gemini-test:generateContent"],
    ["Vertex AI", vertex, "/v1beta1/publishers/google/models/gemini-test:generateContent"],
  ]) {
    test(`${label}: parallel calls → invoke → function responses; signatures echoed, invented ids never sent`, { timeout: 20000 }, async () => {
      const { toolkit, cleanup } = toolWorkspace();
      try {
        const tools = toolkit.getAllowedTools();
        const final = responseOf([{ text: "Notes: alpha, beta. Oslo: 21°C." }]);
        await withProvider([{ json: parallelResponse }, { json: final }], async (server) => {
          const ai = make(server);
          const messages = prompt();
          const request = toGeminiRequest({ messages, tools, toolChoice: "auto" });
          const result = fromGeminiResponse(await ai.models.generateContent({ model: "gemini-test", ...request }));

          const sent = server.requests[0];
          assert.equal(sent.url, path);
          assert.deepEqual(sent.body.contents, [{ role: "user", parts: [{ text: "Read notes.txt and tell me the weather in Oslo." }] }]);
          assert.deepEqual(sent.body.systemInstruction, { parts: [{ text: "Be brief." }] });
          assert.deepEqual(sent.body.tools, toGeminiTools(tools));
          assert.deepEqual(sent.body.toolConfig, { functionCallingConfig: { mode: "AUTO" } });
          // The converted schemas: upper-case types, no keys Gemini rejects.
          const declarations = sent.body.tools[0].functionDeclarations;
          const readFile = declarations.find((d) => d.name === "read_file");
          assert.equal(readFile.parameters.type, "OBJECT");
          assert.equal(readFile.parameters.properties.path.type, "STRING");
          for (const rejected of ["additionalProperties", "$schema", "default"]) assert.ok(!keysOf(declarations).has(rejected), rejected);
          // A tool without arguments sends no `parameters` (an OBJECT needs properties).
          assert.equal(declarations.find((d) => d.name === "task_list").parameters, undefined);

          assert.equal(result.finishReason, "tool_calls");
          assert.equal(result.rawFinishReason, "STOP");
          assert.equal(result.content, "Let me look.");
          assert.deepEqual(callsOf(result), [
            ["read_file", { path: "notes.txt" }],
            ["get_weather", { city: "Oslo" }],
          ]);
          assert.notEqual(result.toolCalls[0].id, result.toolCalls[1].id);
          assert.deepEqual(result.toolCalls[0].providerData, { gemini: { syntheticId: true, thoughtSignature: "c2lnLWE=" } });

          // Results without `name`: taken from their calls.
          const results = (await runCalls(toolkit, result.toolCalls)).map(({ name, ...rest }) => rest);
          messages.push(result.message, ...results);
          assert.deepEqual(checkToolHistory(messages, "gemini"), []);
          const answer = fromGeminiResponse(await ai.models.generateContent({ model: "gemini-test", ...toGeminiRequest({ messages, tools }) }));
          assert.deepEqual(server.requests[1].body.contents.slice(1), [
            {
              role: "model",
              parts: [
                { text: "Let me look." },
                { functionCall: { name: "read_file", args: { path: "notes.txt" } }, thoughtSignature: "c2lnLWE=" },
                { functionCall: { name: "get_weather", args: { city: "Oslo" } } },
              ],
            },
            {
              role: "user",
              parts: [
                { functionResponse: { name: "read_file", response: JSON.parse(results[0].content) } },
                { functionResponse: { name: "get_weather", response: { city: "Oslo", celsius: 21 } } },
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
  }

  test("a streamed answer gives the same QueryResult, text deltas passed through", { timeout: 20000 }, async () => {
    await withProvider([sse(parallelChunks)], async (server) => {
      const stream = await gemini(server).models.generateContentStream({ model: "gemini-test", contents: "x" });
      const accumulator = createGeminiStream();
      assert.equal(await drain(accumulator, stream), "Let me look.");
      assert.match(server.requests[0].url, /:streamGenerateContent\?alt=sse$/);
      assert.deepEqual(withoutSyntheticIds(accumulator.finish()), withoutSyntheticIds(fromGeminiResponse(parallelResponse)));
    });
  });

  test("Gemini ids are kept and sent back; foreign calls can get the skip sentinel", { timeout: 20000 }, async () => {
    const withIds = responseOf([
      { functionCall: { id: "fc-1", name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "c2ln" },
      { functionCall: { id: "fc-2", name: "get_weather", args: { city: "Bergen" } } },
    ]);
    await withProvider([{ json: withIds }, { json: responseOf([{ text: "ok" }]) }], async (server) => {
      const ai = gemini(server);
      const result = fromGeminiResponse(await ai.models.generateContent({ model: "gemini-test", contents: "x" }));
      assert.deepEqual(
        result.toolCalls.map((c) => c.id),
        ["fc-1", "fc-2"],
      );
      const foreign = { role: "assistant", content: "", toolCalls: [{ id: "toolu_9", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } }] };
      const messages = [
        { role: "user", content: "x" },
        result.message,
        { role: "tool", toolCallId: "fc-1", content: "21" },
        { role: "tool", toolCallId: "fc-2", content: "not json", isError: true },
        foreign,
        { role: "tool", toolCallId: "toolu_9", content: "{}" },
      ];
      await ai.models.generateContent({
        model: "gemini-test",
        ...toGeminiRequest({ messages, thoughtSignatureForForeignCalls: "skip_thought_signature_validator" }),
      });
      const contents = server.requests[1].body.contents;
      assert.deepEqual(contents[2].parts, [
        { functionResponse: { id: "fc-1", name: "get_weather", response: { output: "21" } } },
        { functionResponse: { id: "fc-2", name: "get_weather", response: { error: "not json" } } },
      ]);
      assert.equal(contents[1].parts[0].functionCall.id, "fc-1");
      assert.equal(contents[1].parts[0].thoughtSignature, "c2ln");
      assert.equal(contents[3].parts[0].thoughtSignature, "skip_thought_signature_validator");
      assert.equal(contents[4].parts[0].functionResponse.name, "get_weather");
    });
  });

  test("MALFORMED_FUNCTION_CALL fails the turn, MAX_TOKENS is `length`; neither offers calls", { timeout: 20000 }, async () => {
    const malformed = responseOf([], "MALFORMED_FUNCTION_CALL");
    malformed.candidates[0].finishMessage = "Malformed function call: print(default_api.get_weather(";
    const cut = responseOf([{ functionCall: { name: "get_weather", args: { city: "Os" } } }], "MAX_TOKENS");
    await withProvider([{ json: malformed }, { json: cut }], async (server) => {
      const ai = gemini(server);
      const bad = fromGeminiResponse(await ai.models.generateContent({ model: "gemini-test", contents: "x" }));
      assert.equal(bad.finishReason, "error");
      // The SDK drops `finishMessage`; the reason is named instead.
      assert.equal(bad.errorMessage, "the model stopped with MALFORMED_FUNCTION_CALL");
      const truncated = fromGeminiResponse(await ai.models.generateContent({ model: "gemini-test", contents: "x" }));
      assert.equal(truncated.finishReason, "length");
      assert.equal(truncated.toolCalls, undefined);
    });
  });

  test("tool choice forms and parametersJsonSchema", { timeout: 20000 }, async () => {
    assert.deepEqual(toGeminiToolChoice("required"), { functionCallingConfig: { mode: "ANY" } });
    assert.deepEqual(toGeminiToolChoice("none"), { functionCallingConfig: { mode: "NONE" } });
    assert.deepEqual(toGeminiToolChoice({ type: "function", function: { name: "get_weather" } }), {
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] },
    });
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
    await withProvider([{ json: responseOf([{ text: "ok" }]) }], async (server) => {
      const tools = [{ type: "function", function: { name: "get_weather", parameters: schema } }];
      const request = toGeminiRequest({ messages: prompt(), tools, toolChoice: "none", schema: "jsonSchema" });
      await gemini(server).models.generateContent({ model: "gemini-test", ...request });
      assert.deepEqual(server.requests[0].body.tools, [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: schema }] }]);
      assert.deepEqual(server.requests[0].body.toolConfig, { functionCallingConfig: { mode: "NONE" } });
    });
  });
});
