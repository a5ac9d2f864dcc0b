import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { asTools, createAgentToolkit, createToolContext, defineTool, SecurityBypass, toToolMessageContent } from "agent-tools-native";
import { rejection, workspace, PROMPTLY_MS } from "./helpers.mjs";

const schemaOf = (input, strict = false) =>
  defineTool({ name: "t", description: "d", input, strict, execute: () => null }).definition.function.parameters;

describe("defineTool", () => {
  test("returns a Tool with an OpenAI-shaped definition", () => {
    const tool = defineTool({ name: "echo", description: "Echo text", input: z.object({ text: z.string() }), execute: (i) => i.text });
    assert.deepEqual(Object.keys(tool), ["name", "description", "definition", "executeRaw"]);
    assert.equal(tool.name, "echo");
    assert.deepEqual(tool.definition, {
      type: "function",
      function: {
        name: "echo",
        description: "Echo text",
        parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
      },
    });
  });

  test("names must be portable; other options are checked", () => {
    for (const bad of ["", "1abc", "has space", "dot.name", "x".repeat(65), "ünï", undefined]) {
      assert.throws(() => defineTool({ name: bad, description: "", input: z.object({}), execute: () => 1 }), /name must match/, String(bad));
    }
    for (const good of ["a", "_x", "A-b_9", "x".repeat(64)]) defineTool({ name: good, description: "", input: z.object({}), execute: () => 1 });
    assert.throws(() => defineTool({ name: "a", description: "", input: {}, execute: () => 1 }), /zod v4 schema/);
    assert.throws(() => defineTool({ name: "a", description: "", input: z.object({}) }), /execute must be a function/);
    assert.throws(() => defineTool({ name: "a", description: "", input: z.string(), execute: () => 1 }), /must be an object schema/);
  });
});

describe("JSON Schema (draft-7, io: input, closed objects)", () => {
  test("optionals, defaults, enums, unions, arrays and nested objects", () => {
    const parameters = schemaOf(
      z.object({
        path: z.string().describe("file path"),
        limit: z.number().int().min(1).max(10).default(5),
        mode: z.enum(["fast", "slow"]).optional(),
        value: z.union([z.string(), z.number()]),
        tags: z.array(z.string()),
        nested: z.object({ deep: z.boolean().nullable() }).optional(),
        items: z.array(z.object({ id: z.string() })),
      }),
    );
    assert.deepEqual(parameters, {
      type: "object",
      properties: {
        path: { type: "string", description: "file path" },
        limit: { default: 5, type: "integer", minimum: 1, maximum: 10 },
        mode: { type: "string", enum: ["fast", "slow"] },
        value: { type: ["string", "number"] },
        tags: { type: "array", items: { type: "string" } },
        nested: { type: "object", properties: { deep: { type: ["boolean", "null"] } }, required: ["deep"], additionalProperties: false },
        items: { type: "array", items: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false } },
      },
      required: ["path", "value", "tags", "items"],
      additionalProperties: false,
    });
  });

  test("open records keep their value schema outside strict mode", () => {
    const parameters = schemaOf(z.object({ env: z.record(z.string(), z.string()) }));
    assert.deepEqual(parameters.properties.env.additionalProperties, { type: "string" });
  });

  test("strict mode: every property required, optionals nullable, defaults removed", () => {
    const tool = defineTool({
      name: "s", description: "d", strict: true, execute: () => null,
      input: z.object({ a: z.string().default("x"), b: z.array(z.object({ c: z.number().optional() })).optional(), e: z.enum(["p", "q"]).optional(), u: z.union([z.string(), z.object({ k: z.string() })]).optional() }),
    });
    assert.equal(tool.definition.function.strict, true);
    assert.deepEqual(tool.definition.function.parameters, {
      type: "object",
      properties: {
        a: { type: ["string", "null"] },
        b: { type: ["array", "null"], items: { type: "object", properties: { c: { type: ["number", "null"] } }, additionalProperties: false, required: ["c"] } },
        e: { type: ["string", "null"], enum: ["p", "q", null] },
        u: { anyOf: [{ type: "string" }, { type: "object", properties: { k: { type: "string" } }, required: ["k"], additionalProperties: false }, { type: "null" }] },
      },
      additionalProperties: false,
      required: ["a", "b", "e", "u"],
    });
  });

  test("strict mode refuses what it cannot express, at definition time", () => {
    const cases = [
      [z.object({ r: z.record(z.string(), z.number()) }), /open objects and records/],
      [z.object({ l: z.looseObject({ a: z.string() }) }), /open objects and records/],
      [z.object({ t: z.tuple([z.string(), z.number()]) }), /not supported|tuples/],
    ];
    for (const [input, message] of cases) {
      assert.throws(() => defineTool({ name: "s", description: "", strict: true, input, execute: () => 1 }), (e) => e.name === "ToolDefinitionError" && message.test(e.message));
    }
  });

  test("a strict tool accepts the model's nulls for optional fields", async () => {
    const tool = defineTool({ name: "s", description: "", strict: true, input: z.object({ a: z.string(), b: z.number().optional() }), execute: (i) => i });
    assert.deepEqual(await tool.executeRaw(JSON.stringify({ a: "x", b: null })), { type: "json", value: { a: "x" } });
  });
});

describe("executeRaw", () => {
  const tool = defineTool({
    name: "calc", description: "", input: z.object({ a: z.number(), b: z.number() }),
    execute: (i) => {
      if (i.b === 0) throw new Error("division by zero");
      return { quotient: i.a / i.b };
    },
  });

  test("parse → validate → execute → ToolResult; failures are results, never exceptions", async () => {
    assert.deepEqual(await tool.executeRaw('{"a":6,"b":3}'), { type: "json", value: { quotient: 2 } });
    const badJson = await tool.executeRaw("{a:");
    assert.equal(badJson.is_error, true);
    assert.match(badJson.text, /^Error executing tool: invalid JSON arguments: /);
    const invalid = await tool.executeRaw('{"a":"6"}');
    assert.equal(invalid.is_error, true);
    assert.match(invalid.text, /^Error executing tool: invalid arguments: a: .*expected number.*; b: /);
    const thrown = await tool.executeRaw('{"a":1,"b":0}');
    assert.deepEqual(thrown, { type: "text", text: "Error executing tool: division by zero", is_error: true });
  });

  test("strings become text, ToolResults pass through", async () => {
    const text = defineTool({ name: "x", description: "", input: z.object({}), execute: () => "plain" });
    assert.deepEqual(await text.executeRaw("{}"), { type: "text", text: "plain" });
    const parts = defineTool({ name: "y", description: "", input: z.object({}), execute: () => ({ type: "parts", parts: [{ type: "text", text: "a" }] }) });
    assert.deepEqual(await parts.executeRaw(""), { type: "parts", parts: [{ type: "text", text: "a" }] });
  });

  test("abort via ctx.signal is honoured", async () => {
    let sawSignal;
    const slow = defineTool({
      name: "slow", description: "", input: z.object({}),
      // resolves only after 30 s (an unref'd timer: it keeps no process alive)
      execute: (_, ctx) => { sawSignal = ctx.signal; return new Promise((r) => setTimeout(() => r("late"), 30_000).unref()); },
    });
    const controller = new AbortController();
    const started = Date.now();
    const pending = slow.executeRaw("{}", { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const result = await pending;
    assert.equal(result.is_error, true);
    assert.equal(result.text, "Error executing tool: aborted");
    assert.ok(Date.now() - started < PROMPTLY_MS);
    assert.equal(sawSignal, controller.signal);
    const already = await slow.executeRaw("{}", { signal: AbortSignal.abort() });
    assert.equal(already.text, "Error executing tool: aborted");
  });
});

describe("dependency injection", () => {
  test("create (sync or async), overrides by id, one value per call", async () => {
    let created = 0;
    const counter = { id: "counter", create: () => ({ n: ++created }) };
    const asyncKey = { id: "async", create: async () => "from-create" };
    const tool = defineTool({
      name: "di", description: "", input: z.object({}),
      execute: async (_, ctx) => {
        const a = await ctx.resolve(counter);
        const b = await ctx.resolve(counter);
        ctx.logger?.info?.("resolved");
        return { same: a === b, n: a.n, v: await ctx.resolve(asyncKey), dep: ctx.deps.answer, now: ctx.now().toISOString() };
      },
    });
    const logged = [];
    const first = await tool.executeRaw("{}", { deps: { answer: 42 }, now: () => new Date(0), logger: { info: (m) => logged.push(m) } });
    assert.deepEqual(logged, ["resolved"]);
    assert.deepEqual(first.value, { same: true, n: 1, v: "from-create", dep: 42, now: "1970-01-01T00:00:00.000Z" });
    const second = await tool.executeRaw("{}");
    assert.equal(second.value.n, 2, "a new call creates a new value");
    const overridden = await tool.executeRaw("{}", { overrides: new Map([["async", async () => "overridden"], ["counter", () => ({ n: -1 })]]) });
    assert.equal(overridden.value.v, "overridden");
    assert.equal(overridden.value.n, -1);
    assert.equal(created, 2, "an override replaces create");
  });
});

describe("tool messages", () => {
  test("text → string, json → key-sorted JSON, parts → parts", () => {
    assert.equal(toToolMessageContent({ type: "text", text: "hi" }), "hi");
    assert.equal(toToolMessageContent({ type: "json", value: { b: 1, a: [{ d: 1, c: 2 }], u: undefined } }), '{"a":[{"c":2,"d":1}],"b":1}');
    assert.equal(toToolMessageContent({ type: "json", value: null }), "null");
    const parts = [{ type: "text", text: "x" }, { type: "image", url: "https://example.invalid/a.png" }];
    assert.deepEqual(toToolMessageContent({ type: "parts", parts }), parts);
  });
});

describe("registration in a toolkit", () => {
  const echo = defineTool({ name: "echo", description: "Echo", input: z.object({ text: z.string() }), execute: (i, ctx) => ({ echoed: i.text, dep: ctx.deps.tag ?? null }) });
  const wipe = defineTool({ name: "wipe", description: "Writes", writes: true, input: z.object({}), execute: () => "wiped" });

  test("clashes and foreign objects are errors at creation", () => {
    const ctx = createToolContext({ workspaceRoot: "/ws" });
    const clash = defineTool({ name: "read_file", description: "", input: z.object({}), execute: () => 1 });
    assert.throws(() => createAgentToolkit(ctx, { tools: [clash] }), /clashes with a built-in tool/);
    assert.throws(() => createAgentToolkit(ctx, { tools: [echo, echo] }), /registered twice/);
    assert.throws(() => createAgentToolkit(ctx, { tools: [{ name: "fake", executeRaw() {} }] }), /made by defineTool/);
    assert.deepEqual(Object.keys(createAgentToolkit(ctx, { tools: [echo] })), ["tools", "invoke", "getAllowedTools"]);
  });

  test("same policy, definitions after the built-ins, invoke runs execute", async () => {
    const ctx = createToolContext({ workspaceRoot: "/ws", policy: { tools: { echo: "allow", tree: "allow" }, defaultPolicy: "deny" } });
    const toolkit = createAgentToolkit(ctx, { tools: [wipe, echo], deps: { tag: "t1" } });
    assert.deepEqual(toolkit.getAllowedTools().map((d) => d.function.name), ["tree", "echo"]);
    assert.equal(toolkit.getAllowedTools()[1], echo.definition);
    assert.deepEqual(await toolkit.invoke("echo", { text: "hi" }), { role: "function", name: "echo", content: { echoed: "hi", dep: "t1" } });
    const denied = await rejection(toolkit.invoke("wipe", {}));
    assert.equal(denied.code, "TOOL_NOT_ALLOWED");
    assert.equal(denied.rawMessage, '[Security Policy] Access denied for tool: "wipe"');
    const invalid = await rejection(toolkit.invoke("echo", { text: 1 }));
    assert.equal(invalid.name, "UserToolError");
    assert.equal(invalid.code, "INVALID_ARGUMENT");
    assert.match(invalid.message, /^INVALID_ARGUMENT: text: /);
    const notObject = await rejection(toolkit.invoke("echo", "x"));
    assert.equal(notObject.code, "INVALID_TOOL_ARGUMENTS_TYPE");
    assert.equal((await SecurityBypass.run(() => toolkit.invoke("wipe", {}))).content, "wiped");
    ctx.policy.tools.echo = "ALLOW";
    assert.equal((await rejection(toolkit.invoke("echo", { text: "x" }))).code, "TOOL_NOT_ALLOWED", "fails closed like built-ins");
  });

  test("a writing tool is denied in read-only mode", async () => {
    const ctx = createToolContext({ workspaceRoot: "/ws", writeScope: "read-only", policy: { tools: {}, defaultPolicy: "allow" } });
    const err = await rejection(createAgentToolkit(ctx, { tools: [wipe] }).invoke("wipe", {}));
    assert.equal(err.rawMessage, '[Sandbox Violation] Write operation denied. Current mode: "read-only"');
  });

  test("asTools: every tool as a Tool, run through the toolkit", async () => {
    const ws = workspace({ tools: { read_file: "allow", echo: "allow" }, defaultPolicy: "deny" });
    try {
      fs.writeFileSync(path.join(ws.root, "a.txt"), "A");
      const toolkit = createAgentToolkit(ws.context, { tools: [echo] });
      const all = asTools(toolkit);
      assert.equal(all.length, 14);
      assert.equal(all[0].name, "git_status_summary");
      assert.equal(all.at(-1).name, "echo");
      const read = all.find((t) => t.name === "read_file");
      const result = await read.executeRaw('{"path":"a.txt"}');
      assert.equal(result.type, "json");
      assert.equal(result.value.content, "A");
      const missing = await read.executeRaw('{"path":"nope"}');
      assert.equal(missing.is_error, true);
      assert.match(missing.text, /^Error executing tool: NOT_FOUND: path not found: /);
      const denied = await all.find((t) => t.name === "tree").executeRaw('{"path":"."}');
      assert.match(denied.text, /TOOL_NOT_ALLOWED/);
      assert.deepEqual(await all.at(-1).executeRaw('{"text":"x"}', { deps: { tag: "call" } }), { type: "json", value: { echoed: "x", dep: "call" } });
      assert.throws(() => asTools({}), /not a toolkit/);
    } finally {
      ws.cleanup();
    }
  });
});
