import { test, describe } from "./harness.mjs";
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

  test("bounded by maxEntries and maxBytes: the oldest evicted outputs are dropped, and say so", async () => {
    const cache = new OutputCache(0, { maxEntries: 3 });
    for (let i = 1; i <= 5; i++) assert.equal(cache.record(`text ${i}`).refId, `out-${i}`);
    assert.deepEqual([cache.heldCount, cache.heldBytes], [3, 18]);
    assert.equal(await cache.read("out-3"), "     1\ttext 3\n");
    const dropped = /dropped ref_id: out-2: the output was dropped from the bounded output cache \(it keeps at most 3 outputs and 67108864 bytes, dropping the oldest\); run the tool again for a fresh copy$/;
    await assert.rejects(cache.read("out-2"), dropped);
    await assert.rejects(cache.grep("out-2", { pattern: "text" }), dropped);
    await assert.rejects(cache.read("out-6"), /unknown ref_id: out-6$/);
    assert.equal(cache.isInline("out-1"), false, "a dropped output is not in the conversation");
    assert.throws(() => cache.isInline("out-6"), /unknown ref_id: out-6/);
    // every failure carries its code, the class's own errors included
    const codeOf = async (promise) => (await rejection(promise)).code;
    assert.equal(await codeOf(cache.read("out-2")), "OUTPUT_DROPPED");
    assert.equal(await codeOf(cache.grep("out-2", { pattern: "text" })), "OUTPUT_DROPPED");
    assert.equal(await codeOf(cache.read("out-6")), "UNKNOWN_REF_ID");
    assert.equal(await codeOf(cache.read("out-3", 0)), "INVALID_ARGUMENT");
    assert.equal(await codeOf(cache.grep("out-3", { pattern: "(", regex: true })), "INVALID_REGEX");
    assert.throws(() => cache.isInline("out-6"), (e) => e instanceof Error && e.code === "UNKNOWN_REF_ID");

    const bytes = new OutputCache(0, { maxBytes: 10 });
    bytes.record("aaaa");
    bytes.record("bbbb");
    bytes.record("ccc€");
    assert.deepEqual([bytes.heldCount, bytes.heldBytes], [2, 10], "UTF-8 bytes are counted");
    await assert.rejects(bytes.read("out-1"), /dropped ref_id: out-1/);

    for (const bad of [{ maxEntries: -1 }, { maxEntries: 1.5 }, { maxBytes: Number.NaN }, { maxBytes: 2 ** 53 }]) {
      assert.throws(() => new OutputCache(10, bad), /(maxEntries|maxBytes) must be an integer >= 0/, JSON.stringify(bad));
    }
  });

  test("outputs still whole in the conversation are never dropped", () => {
    // Budget 100: five outputs of 10 stay inline although the cache is bounded to 2.
    const cache = new OutputCache(100, { maxEntries: 2 });
    for (let i = 0; i < 5; i++) cache.record("x".repeat(10));
    assert.equal(cache.heldCount, 5);
    assert.equal(cache.isInline("out-1"), true);
    // One of 85 evicts the four oldest; the bound then drops them.
    cache.record("y".repeat(85));
    assert.equal(cache.isInline("out-5"), true);
    assert.deepEqual([cache.heldCount, cache.heldBytes], [2, 95]);
  });

  test("the defaults: at most 256 outputs and 64 MiB of them", { timeout: 60_000 }, () => {
    const cache = new OutputCache();
    const text = "z".repeat(4_000_000);
    for (let i = 0; i < 20; i++) cache.record(text);
    assert.equal(cache.heldCount, Math.floor((64 * 2 ** 20) / 4_000_000));
    assert.ok(cache.heldBytes <= 64 * 2 ** 20);
    const small = new OutputCache(0);
    for (let i = 0; i < 300; i++) small.record("s");
    assert.equal(small.heldCount, 256);
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

  test("a dropped or unknown ref_id is an error with a code", async () => {
    const cache = new OutputCache(0, { maxEntries: 1 });
    cache.record(lines(3));
    cache.record(lines(3));
    const [read, grep] = outputCacheTools(cache);
    assert.match((await read.executeRaw('{"ref_id":"out-1"}')).text, /^Error executing tool: dropped ref_id: out-1: the output was dropped from the bounded output cache/);
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: "/ws", policy: { tools: {}, defaultPolicy: "allow" } }), { tools: [read, grep] });
    assert.equal((await rejection(toolkit.invoke("tool_output_cache", { ref_id: "out-1" }))).code, "OUTPUT_DROPPED");
    assert.equal((await rejection(toolkit.invoke("tool_output_cache_grep", { ref_id: "out-1", pattern: "x" }))).code, "OUTPUT_DROPPED");
    assert.equal((await rejection(toolkit.invoke("tool_output_cache", { ref_id: "out-3" }))).code, "UNKNOWN_REF_ID");
    assert.equal((await rejection(toolkit.invoke("tool_output_cache_grep", { ref_id: "out-2", pattern: "(", regex: true }))).code, "INVALID_REGEX");
    assert.equal((await rejection(toolkit.invoke("tool_output_cache", { ref_id: "out-2", limit: 5000 }))).code, "INVALID_ARGUMENT");
    assert.match((await toolkit.invoke("tool_output_cache", { ref_id: "out-2" })).content.text, /^\s+1\tline 1\n/);
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

  test("more tool messages than the cache holds: the dropped ones become placeholders, nothing throws", async () => {
    const cache = new OutputCache(25, { maxEntries: 2 });
    const messages = Array.from({ length: 6 }, (_, i) => ({ role: "tool", tool_call_id: String(i), content: `${i}`.repeat(10) }));
    const out = applyOutputCache(cache, messages);
    assert.deepEqual(out.map((m) => m.output_ref), ["out-1", "out-2", "out-3", "out-4", "out-5", "out-6"]);
    assert.deepEqual(out.map((m) => m.evicted === true), [true, true, true, true, false, false]);
    assert.match(out[0].content, /ref_id "out-1"/);
    await assert.rejects(cache.read("out-1"), /dropped ref_id: out-1/);
    assert.equal(await cache.read("out-6"), "     1\t5555555555\n");
  });
});
