import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { applyOutputCache, createAgentToolkit, createToolContext, doneTool, OutputCache, outputCacheTools } from "agent-tools-native";
import { rejection } from "./helpers.mjs";

const lines = (n, f = (i) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join("\n") + "\n";

describe("OutputCache", () => {
  test("keeps outputs whole under the budget, evicts the oldest past it", () => {
    const cache = new OutputCache(10);
    assert.deepEqual(cache.record("aaaa"), { refId: "out-1", evicted: [] });
    assert.deepEqual(cache.record("bbbb"), { refId: "out-2", evicted: [] });
    assert.deepEqual(cache.record("cccc"), { refId: "out-3", evicted: ["out-1"] });
    assert.equal(cache.inlineChars, 8);
    assert.deepEqual(cache.record("x".repeat(50)).evicted, ["out-2", "out-3"]);
    assert.equal(cache.isInline("out-4"), true, "the newest output stays whole");
    assert.equal(cache.isInline("out-1"), false);
    assert.throws(() => cache.isInline("out-9"), /unknown ref_id: out-9/);
    assert.throws(() => new OutputCache(-1), /budgetChars/);
  });

  test("ids are deterministic per cache", () => {
    const a = new OutputCache();
    const b = new OutputCache();
    assert.deepEqual([a.record("x").refId, a.record("y").refId], [b.record("p").refId, b.record("q").refId]);
  });

  test("read pages numbered lines; grep finds lines with context", async () => {
    const cache = new OutputCache();
    const { refId } = cache.record(lines(300));
    const page = await cache.read(refId);
    assert.equal(page.split("\n")[0], "     1\tline 1");
    assert.match(page, /\(100 more lines; continue with offset=201\)\n$/);
    assert.equal(await cache.read(refId, 299, 5), "   299\tline 299\n   300\tline 300\n");
    await assert.rejects(cache.read(refId, 0), /offset must be an integer >= 1/);
    await assert.rejects(cache.read("out-7"), /unknown ref_id: out-7/);
    assert.equal(await cache.grep(refId, { pattern: "line 15" }), "15:line 15\n150:line 150\n151:line 151\n152:line 152\n153:line 153\n154:line 154\n155:line 155\n156:line 156\n157:line 157\n158:line 158\n159:line 159\n");
    assert.equal(await cache.grep(refId, { pattern: "^line 2[05]$", regex: true, before: 1, after: 1 }), "19-line 19\n20:line 20\n21-line 21\n--\n24-line 24\n25:line 25\n26-line 26\n");
    assert.match(await cache.grep(refId, { pattern: "line", maxMatches: 2 }), /^1:line 1\n2:line 2\n\(298 more matches not shown; raise max_matches\)\n$/);
    await assert.rejects(cache.grep(refId, { pattern: "(", regex: true }), /invalid pattern/);
  });

  test("large outputs are searched without a round trip of the whole text", async () => {
    const cache = new OutputCache(1000);
    const { refId } = cache.record(lines(200_000, (i) => (i === 123_456 ? "needle here" : `hay ${i}`)));
    assert.equal(await cache.grep(refId, { pattern: "needle" }), "123456:needle here\n");
  });
});

describe("standard tools", () => {
  test("tool_output_cache and tool_output_cache_grep", async () => {
    const cache = new OutputCache();
    const { refId } = cache.record(lines(5));
    const [read, grep] = outputCacheTools(cache);
    assert.equal(read.name, "tool_output_cache");
    assert.deepEqual(read.definition.function.parameters.required, ["ref_id"]);
    assert.deepEqual(await read.executeRaw(JSON.stringify({ ref_id: refId, offset: 4 })), { type: "text", text: "     4\tline 4\n     5\tline 5\n" });
    assert.deepEqual(await grep.executeRaw(JSON.stringify({ ref_id: refId, pattern: "line [24]", regex: true, max_matches: 1 })), {
      type: "text",
      text: "2:line 2\n(1 more matches not shown; raise max_matches)\n",
    });
    assert.deepEqual(await read.executeRaw('{"ref_id":"out-9"}'), { type: "text", text: "Error executing tool: unknown ref_id: out-9", is_error: true });
    assert.match((await grep.executeRaw(JSON.stringify({ ref_id: refId }))).text, /invalid arguments: pattern: required/);
    assert.match((await read.executeRaw('{"ref_id":"out-1","offset":1.5}')).text, /offset: expected integer/);
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: "/ws", policy: { tools: {}, defaultPolicy: "allow" } }), { tools: [read, grep, doneTool] });
    assert.deepEqual(toolkit.getAllowedTools().slice(-3).map((d) => d.function.name), ["tool_output_cache", "tool_output_cache_grep", "done"]);
    assert.equal((await toolkit.invoke("tool_output_cache", { ref_id: refId, limit: 1 })).content.text, "     1\tline 1\n(4 more lines; continue with offset=2)\n");
    assert.equal((await rejection(toolkit.invoke("tool_output_cache", { ref_id: 1 }))).code, "INVALID_ARGUMENT");
  });

  test("done", async () => {
    assert.deepEqual(await doneTool.executeRaw('{"message":"all set"}'), { type: "text", text: "all set" });
    assert.deepEqual(await doneTool.executeRaw("{}"), { type: "text", text: "done" });
    assert.equal((await doneTool.executeRaw('{"extra":1}')).is_error, true);
  });
});

describe("applyOutputCache", () => {
  test("records tool messages, replaces evicted ones with a placeholder naming the ref", () => {
    const cache = new OutputCache(30);
    const user = { role: "user", content: "hi" };
    const first = { role: "tool", tool_call_id: "a", content: "x".repeat(20) };
    let messages = applyOutputCache(cache, [user, first]);
    assert.equal(messages[0], user, "other messages are untouched");
    assert.deepEqual(messages[1], { ...first, output_ref: "out-1" });
    assert.equal(first.output_ref, undefined, "inputs are not mutated");
    messages = applyOutputCache(cache, [...messages, { role: "tool", tool_call_id: "b", content: "y".repeat(20) }]);
    assert.equal(messages[1].evicted, true);
    assert.match(messages[1].content, /ref_id "out-1": read it with tool_output_cache/);
    assert.equal(messages[2].output_ref, "out-2");
    assert.equal(messages[2].content, "y".repeat(20));
    const again = applyOutputCache(cache, messages);
    assert.deepEqual(again, messages, "idempotent");
  });
});
