import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { createAgentToolkit, createToolContext, runToolLoop, ToolCatalog } from "agent-tools-native";
import { rejection } from "./helpers.mjs";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function session(writeScope) {
  const context = createToolContext({ workspaceRoot: "/ws", writeScope, policy: { tools: {}, defaultPolicy: "allow" } });
  return { context, toolkit: createAgentToolkit(context) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe("task_create_many", () => {
  test("creates tasks, trims titles, keeps descriptions, stores the state on the context", async () => {
    const { context, toolkit } = session();
    assert.equal("todo" in context, false);
    const { content } = await toolkit.invoke("task_create_many", {
      tasks: [{ title: "  a  ", description: "  d  " }, { title: "b" }, { title: "c", description: undefined }],
    });
    assert.deepEqual(content.tasks.map((t) => t.title), ["a", "b", "c"]);
    const [first, second, third] = content.tasks;
    assert.deepEqual(Object.keys(first), ["task_id", "status", "title", "created_at", "updated_at", "description"]);
    assert.equal(first.description, "  d  ");
    assert.equal("description" in second, false);
    assert.equal("description" in third, false);
    for (const t of content.tasks) {
      assert.match(t.task_id, UUID_V4);
      assert.match(t.created_at, ISO);
      assert.equal(t.created_at, t.updated_at);
      assert.equal(t.status, "todo");
    }
    assert.equal(new Set(content.tasks.map((t) => t.task_id)).size, 3);
    assert.ok(context.todo.tasks instanceof Map);
    assert.deepEqual(context.todo.order, content.tasks.map((t) => t.task_id));
    assert.deepEqual(context.todo.tasks.get(first.task_id), first);
    assert.notEqual(context.todo.tasks.get(first.task_id), first, "returned tasks are copies");
  });

  test("a second create replaces the list; a failing one leaves it untouched", async () => {
    const { context, toolkit } = session();
    await toolkit.invoke("task_create_many", { tasks: [{ title: "step 1" }, { title: "step 2", description: "d2" }] });
    const before = context.todo;
    await assert.rejects(toolkit.invoke("task_create_many", { tasks: [] }), { name: "TodoError", code: "INVALID_ARGUMENT" });
    assert.equal(context.todo, before);
    const again = await toolkit.invoke("task_create_many", { tasks: [{ title: "only" }] });
    assert.equal(context.todo.order.length, 1);
    assert.deepEqual((await toolkit.invoke("task_list", {})).content.tasks, again.content.tasks);
  });

  test("validation messages", async () => {
    const { toolkit } = session();
    const cases = [
      [{ tasks: {} }, "tasks must be an array"],
      [{}, "tasks must be an array"],
      [{ tasks: [] }, "tasks must contain 1..100 items"],
      [{ tasks: Array.from({ length: 101 }, () => ({ title: "x" })) }, "tasks must contain 1..100 items"],
      [{ tasks: [null] }, "tasks[0] must be an object"],
      [{ tasks: [{ title: "a" }, "b"] }, "tasks[1] must be an object"],
      [{ tasks: [{ title: 5 }] }, "title must be a string"],
      [{ tasks: [{ title: "   " }] }, "title must be 1..200 chars after trim"],
      [{ tasks: [{ title: "x".repeat(201) }] }, "title must be 1..200 chars after trim"],
      [{ tasks: [{ title: "😀".repeat(101) }] }, "title must be 1..200 chars after trim"],
      [{ tasks: [{ title: "x", description: null }] }, "description must be a string"],
      [{ tasks: [{ title: "x", description: "d".repeat(2001) }] }, "description must be 0..2000 chars"],
    ];
    for (const [args, text] of cases) {
      const err = await rejection(toolkit.invoke("task_create_many", args));
      assert.equal(err.name, "TodoError");
      assert.equal(err.code, "INVALID_ARGUMENT");
      assert.equal(err.message, `INVALID_ARGUMENT: ${text}`);
    }
    await toolkit.invoke("task_create_many", { tasks: [{ title: `  ${"x".repeat(200)}  ` }] });
    await toolkit.invoke("task_create_many", { tasks: [{ title: "😀".repeat(100), description: "d".repeat(2000) }] });
    const noArg = await toolkit.tools.task_create_many();
    assert.equal(noArg.message, "INTERNAL: undefined is not an object (evaluating 'input.tasks')");
  });
});

describe("updates, status and completion", () => {
  test("upstream's test flow", async () => {
    const { context, toolkit } = session();
    const created = await toolkit.invoke("task_create_many", { tasks: [{ title: "a" }, { title: "b" }, { title: "c" }] });
    const [a, b, c] = created.content.tasks.map((t) => t.task_id);

    const same = await toolkit.invoke("task_update", { task_id: b, title: " b " });
    assert.equal(same.content.task.updated_at, created.content.tasks[1].updated_at, "no change keeps updated_at");
    await sleep(3);
    const described = await toolkit.invoke("task_update", { task_id: b, title: "b", description: "" });
    assert.equal(described.content.task.description, "");
    assert.ok(described.content.task.updated_at > created.content.tasks[1].updated_at);
    assert.deepEqual(Object.keys(described.content.task), ["task_id", "status", "title", "created_at", "updated_at", "description"]);
    assert.equal(context.todo.tasks.get(b).description, "");
    const kept = await toolkit.invoke("task_update", { task_id: b, title: "b2" });
    assert.equal(kept.content.task.description, "", "a description cannot be removed");

    const upper = b.toUpperCase();
    const err = await rejection(toolkit.invoke("task_update", { task_id: upper, title: "b" }));
    assert.equal(err.message, `NOT_FOUND: task not found: ${upper}`);

    await toolkit.invoke("task_update_status", { task_id: a, status: "done" });
    await toolkit.invoke("task_update_status", { task_id: a, status: "todo" });
    await toolkit.invoke("task_update_status", { task_id: b, status: "canceled" });
    const unchanged = await toolkit.invoke("task_update_status", { task_id: b, status: "canceled" });
    assert.equal(unchanged.content.task.status, "canceled");
    assert.deepEqual((await toolkit.invoke("task_validate_completion", {})).content, { ok: false, remaining: [a, c] });
    await toolkit.invoke("task_update_status", { task_id: a, status: "done" });
    await toolkit.invoke("task_update_status", { task_id: c, status: "done" });
    assert.deepEqual((await toolkit.invoke("task_validate_completion", {})).content, { ok: true, remaining: [] });
    const list = await toolkit.tools.task_list({});
    assert.deepEqual(list.data.tasks.map((t) => [t.title, t.status]), [["a", "done"], ["b2", "canceled"], ["c", "done"]]);
  });

  test("validation before the state check", async () => {
    const { toolkit } = session();
    const valid = "123e4567-e89b-42d3-a456-426614174000";
    const cases = [
      ["task_update", { task_id: "nope", title: "x" }, "INVALID_ARGUMENT: task_id must be UUID v4"],
      ["task_update", { task_id: valid, title: "" }, "INVALID_ARGUMENT: title must be 1..200 chars after trim"],
      ["task_update", { task_id: valid }, "INVALID_ARGUMENT: title must be a string"],
      ["task_update", { task_id: valid, title: "x", description: 1 }, "INVALID_ARGUMENT: description must be a string"],
      ["task_update_status", { task_id: valid, status: "open" }, 'INVALID_ARGUMENT: status must be one of "todo", "done", "canceled"'],
      ["task_update", { task_id: valid, title: "x" }, "STATE_NOT_INITIALIZED: task state is not initialized. call task_create_many first"],
      ["task_update_status", { task_id: valid, status: "done" }, "STATE_NOT_INITIALIZED: task state is not initialized. call task_create_many first"],
      ["task_list", {}, "STATE_NOT_INITIALIZED: task state is not initialized. call task_create_many first"],
      ["task_validate_completion", {}, "STATE_NOT_INITIALIZED: task state is not initialized. call task_create_many first"],
    ];
    for (const [name, args, message] of cases) {
      const err = await rejection(toolkit.invoke(name, args));
      assert.equal(err.name, "TodoError");
      assert.equal(err.message, message, name);
    }
  });
});

describe("state model", () => {
  test("shared by toolkits of one context, separate between contexts", async () => {
    const context = createToolContext({ workspaceRoot: "/ws", policy: { tools: {}, defaultPolicy: "allow" } });
    const one = createAgentToolkit(context);
    const two = createAgentToolkit(context);
    await one.invoke("task_create_many", { tasks: [{ title: "shared" }] });
    assert.equal((await two.invoke("task_list", {})).content.tasks[0].title, "shared");
    const other = session();
    assert.equal((await other.toolkit.tools.task_list({})).status, "failure");
  });

  test("works in read-only mode and through the raw handler", async () => {
    const { context, toolkit } = session("read-only");
    assert.equal((await toolkit.tools.task_create_many({ tasks: [{ title: "x" }] })).status, "success");
    const listed = await ToolCatalog.task_list.handler(context, {});
    assert.equal(listed.tasks.length, 1);
  });

  test("a corrupted state is an INTERNAL error", async () => {
    const { context, toolkit } = session();
    await toolkit.invoke("task_create_many", { tasks: [{ title: "x" }] });
    context.todo.order.push("ghost");
    const err = await rejection(toolkit.invoke("task_list", {}));
    assert.equal(err.message, "INTERNAL: task not found in state: ghost");
  });

  test("a cwd key the todo tools do not take is ignored by both doors (docs/compat.md, \"toolkit.tools checks the path field each tool takes\")", async () => {
    const { toolkit } = session();
    const wrapped = await toolkit.tools.task_create_many({ tasks: [{ title: "x" }], cwd: "../.." });
    assert.equal(wrapped.status, "success", JSON.stringify(wrapped));
    assert.equal(wrapped.data.tasks.length, 1);
    const ok = await toolkit.invoke("task_create_many", { tasks: [{ title: "x" }], cwd: "../.." });
    assert.equal(ok.content.tasks.length, 1);
  });

  test("concurrent updates are not lost", async () => {
    const { context, toolkit } = session();
    const created = await toolkit.invoke("task_create_many", { tasks: Array.from({ length: 50 }, (_, i) => ({ title: `t${i}` })) });
    await Promise.all(created.content.tasks.map((t) => toolkit.invoke("task_update_status", { task_id: t.task_id, status: "done" })));
    assert.ok([...context.todo.tasks.values()].every((t) => t.status === "done"));
    assert.deepEqual((await toolkit.invoke("task_validate_completion", {})).content, { ok: true, remaining: [] });
  });
});

// The task list is kept natively per context and follows `context.todo` (ts/todo_state.cts).
// Every expectation below is what agent-tools-ts v0.6.0 gives for the same calls.
describe("context.todo between calls, as agent-tools-ts", () => {
  const native = createRequire(import.meta.url)("../binding.js");
  const THREE = { tasks: [{ title: "a" }, { title: "b", description: "d" }, { title: "c" }] };
  const ID = "11111111-1111-4111-8111-111111111111";
  const STAMP = "2020-01-01T00:00:00.000Z";
  const created = async (toolkit) => (await toolkit.invoke("task_create_many", THREE)).content.tasks.map((t) => t.task_id);
  const titles = async (toolkit) => (await toolkit.invoke("task_list", {})).content.tasks.map((t) => [t.title, t.status]);

  /** Counts the times a call loaded `context.todo` into its native store again. */
  function countLoads() {
    const load = native.todoStoreLoad;
    const counter = { loads: 0, restore: () => (native.todoStoreLoad = load) };
    native.todoStoreLoad = (...args) => {
      counter.loads++;
      return load(...args);
    };
    return counter;
  }

  test("an untouched context.todo is not loaded again; a changed one is, once", async () => {
    const { context, toolkit } = session();
    const counter = countLoads();
    try {
      const [a] = await created(toolkit);
      for (let i = 0; i < 5; i++) await toolkit.invoke("task_list", {});
      await toolkit.invoke("task_update_status", { task_id: a, status: "done" });
      await toolkit.invoke("task_validate_completion", {});
      void context.todo.tasks.get(a).title; // reading is not changing
      assert.equal(counter.loads, 0, "the store followed every call");
      context.todo.tasks.get(a).title = "renamed";
      assert.deepEqual(await titles(toolkit), [["renamed", "done"], ["b", "todo"], ["c", "todo"]]);
      assert.equal(counter.loads, 1);
      await toolkit.invoke("task_list", {});
      assert.equal(counter.loads, 1);
    } finally {
      counter.restore();
    }
  });

  test("a state assigned between calls is the one the tools use and change", async () => {
    const { context, toolkit } = session();
    await created(toolkit);
    const mine = { task_id: ID, status: "todo", title: "mine", created_at: STAMP, updated_at: STAMP };
    context.todo = { tasks: new Map([[ID, mine]]), order: [ID] };
    assert.deepEqual((await toolkit.invoke("task_list", {})).content, { tasks: [mine] });
    const { task } = (await toolkit.invoke("task_update_status", { task_id: ID, status: "done" })).content;
    assert.equal(task.status, "done");
    assert.notEqual(task.updated_at, STAMP);
    assert.equal(context.todo.tasks.get(ID).status, "done");
    assert.equal(mine.status, "todo", "entries are replaced, not mutated");
    assert.deepEqual((await toolkit.invoke("task_validate_completion", {})).content, { ok: true, remaining: [] });
  });

  test("a task changed, replaced or removed in the Map, or an order changed, between calls", async () => {
    const { context, toolkit } = session();
    const [a, b, c] = await created(toolkit);
    await toolkit.invoke("task_list", {});
    context.todo.tasks.get(b).status = "done";
    assert.deepEqual((await toolkit.invoke("task_validate_completion", {})).content, { ok: false, remaining: [a, c] });
    // unchanged against the mutated task: no new updated_at
    const same = (await toolkit.invoke("task_update_status", { task_id: b, status: "done" })).content.task;
    assert.equal(same.updated_at, context.todo.tasks.get(b).updated_at);
    context.todo.tasks.set(a, { ...context.todo.tasks.get(a), title: "replaced" });
    assert.deepEqual(await titles(toolkit), [["replaced", "todo"], ["b", "done"], ["c", "todo"]]);
    context.todo.order.splice(0, 1);
    assert.deepEqual(await titles(toolkit), [["b", "done"], ["c", "todo"]]);
    // still in the Map: found by id, and its entry replaced there
    assert.equal((await toolkit.invoke("task_update_status", { task_id: a, status: "done" })).content.task.title, "replaced");
    assert.equal(context.todo.tasks.get(a).status, "done");
    context.todo.tasks.delete(c);
    const ghost = await rejection(toolkit.invoke("task_list", {}));
    assert.equal(ghost.message, `INTERNAL: task not found in state: ${c}`);
    const missing = await rejection(toolkit.invoke("task_update", { task_id: c, title: "x" }));
    assert.equal(missing.message, `NOT_FOUND: task not found: ${c}`);
  });

  test("fields a task gained stay in results and in the updated entry", async () => {
    const { context, toolkit } = session();
    const [a, b] = await created(toolkit);
    context.todo.tasks.get(b).note = "kept";
    const { task } = (await toolkit.invoke("task_update", { task_id: b, title: "b2", description: "x" })).content;
    assert.deepEqual(Object.keys(task), ["task_id", "status", "title", "created_at", "updated_at", "description", "note"]);
    assert.equal(task.note, "kept");
    context.todo.tasks.set(a, { ...context.todo.tasks.get(a), extra: 1 });
    const updated = (await toolkit.invoke("task_update", { task_id: a, title: "a2", description: "new" })).content.task;
    assert.deepEqual(Object.keys(updated), ["task_id", "status", "title", "created_at", "updated_at", "extra", "description"]);
    const listed = (await toolkit.invoke("task_list", {})).content.tasks;
    assert.equal(listed[0].extra, 1);
    assert.equal(listed[1].note, "kept");
  });

  test("updates go into the Map the caller holds; task_create_many detaches it", async () => {
    const { context, toolkit } = session();
    const [a] = await created(toolkit);
    const held = context.todo;
    await toolkit.invoke("task_update_status", { task_id: a, status: "done" });
    assert.equal(context.todo, held);
    assert.equal(held.tasks.get(a).status, "done");
    await toolkit.invoke("task_create_many", { tasks: [{ title: "z" }] });
    assert.notEqual(context.todo, held);
    assert.equal(held.order.length, 3, "the old state is left as it was");
    assert.deepEqual(await titles(toolkit), [["z", "todo"]]);
  });

  test("a deleted or undefined context.todo is an uninitialized state", async () => {
    const { context, toolkit } = session();
    await created(toolkit);
    delete context.todo;
    assert.equal((await rejection(toolkit.invoke("task_list", {}))).code, "STATE_NOT_INITIALIZED");
    assert.equal("todo" in context, false);
    await created(toolkit);
    context.todo = undefined;
    assert.equal((await rejection(toolkit.invoke("task_validate_completion", {}))).code, "STATE_NOT_INITIALIZED");
  });

  test("results are copies: changing one changes neither the state nor later results", async () => {
    const { context, toolkit } = session();
    const [a, b] = await created(toolkit);
    const listed = (await toolkit.invoke("task_list", {})).content;
    listed.tasks[0].title = "MUT";
    listed.tasks.pop();
    const updated = (await toolkit.invoke("task_update_status", { task_id: b, status: "done" })).content;
    updated.task.status = "MUT";
    assert.deepEqual(await titles(toolkit), [["a", "todo"], ["b", "done"], ["c", "todo"]]);
    assert.equal(context.todo.tasks.get(a).title, "a");
    assert.deepEqual(listed.tasks.map((t) => [t.title, t.status]), [["MUT", "todo"], ["b", "todo"]], "an earlier result does not follow the state");
  });

  test("two toolkits over one context, and the raw handler, share the list", async () => {
    const { context, toolkit } = session();
    const other = createAgentToolkit(context);
    const [a] = await created(toolkit);
    await other.invoke("task_update_status", { task_id: a, status: "done" });
    assert.deepEqual((await toolkit.tools.task_list({})).data.tasks.map((t) => t.status), ["done", "todo", "todo"]);
    await ToolCatalog.task_update.handler(context, { task_id: a, title: "raw" });
    assert.deepEqual((await other.invoke("task_list", {})).content.tasks.map((t) => t.title), ["raw", "b", "c"]);
  });

  test("the context serializes, lists its keys and clones as before", async () => {
    const { context, toolkit } = session();
    const ids = await created(toolkit);
    await toolkit.invoke("task_list", {});
    assert.deepEqual(Object.keys(context), ["workspaceRoot", "writeScope", "policy", "env", "todo"]);
    assert.deepEqual(JSON.parse(JSON.stringify(context)).todo, { tasks: {}, order: ids });
    const clone = structuredClone(context);
    assert.ok(clone.todo.tasks instanceof Map);
    assert.deepEqual([...clone.todo.tasks.keys()], ids);
    assert.deepEqual(clone.todo.tasks.get(ids[1]), context.todo.tasks.get(ids[1]));
  });

  test("a hand-written context literal, a repeated id in the order, calls in one tick", async () => {
    const context = { workspaceRoot: "/ws", writeScope: "read-only", policy: { tools: {}, defaultPolicy: "allow" }, env: { platform: "linux", osRelease: "6" } };
    const toolkit = createAgentToolkit(context);
    await toolkit.tools.task_create_many({ tasks: [{ title: "p" }, { title: "q" }] });
    context.todo.order.push(context.todo.order[0]);
    assert.deepEqual(await titles(toolkit), [["p", "todo"], ["q", "todo"], ["p", "todo"]]);
    // started in one tick: the list sees the updates made before it, as agent-tools-ts's does
    const [p, q] = context.todo.order;
    const calls = [toolkit.invoke("task_update_status", { task_id: p, status: "done" }), toolkit.invoke("task_update_status", { task_id: q, status: "canceled" }), toolkit.invoke("task_list", {})];
    const listed = (await Promise.all(calls))[2].content.tasks.map((t) => t.status);
    assert.deepEqual(listed, ["done", "canceled", "done"]);
  });

  test("the tool loop's text is the JSON of the same result", async () => {
    const { context, toolkit } = session();
    const [, b] = await created(toolkit);
    context.todo.tasks.get(b).note = "kept";
    const sent = [];
    const answers = [{ content: [{ type: "tool_use", id: "c1", name: "task_list", input: {} }], stopReason: "tool_use" }, { content: [{ type: "text", text: "done" }], stopReason: "end_turn" }];
    const model = { sendWithTools: async () => answers.shift(), sendToolResults: async (results) => (sent.push(...results), answers.shift()) };
    await runToolLoop({ session: model, toolkit, prompt: "go" });
    assert.equal(sent[0].output, JSON.stringify((await toolkit.invoke("task_list", {})).content));
    assert.equal(JSON.parse(sent[0].output).tasks[1].note, "kept");
  });
});
