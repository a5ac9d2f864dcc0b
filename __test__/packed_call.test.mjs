// callTool's packed request (a number: door, flags, registry index) answers exactly as the
// CallRequest object with the same facts, and a malformed number is a thrown error.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import { workspace } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const native = require("../binding.js");
const { packCall, DOOR_INVOKE, DOOR_TOOLS, DOOR_HANDLER, REGISTERED, IS_WRITE_OP, BYPASS, RUN_BUILT_IN } = require("../js/native_call.cjs");

/** The object form and the packed form of one request. */
function both(door, name, { registered = true, isWriteOp = false, bypass = false, runBuiltIn = true } = {}) {
  const doors = { invoke: DOOR_INVOKE, tools: DOOR_TOOLS, handler: DOOR_HANDLER };
  const flags = (registered ? REGISTERED : 0) | (isWriteOp ? IS_WRITE_OP : 0) | (bypass ? BYPASS : 0) | (runBuiltIn ? RUN_BUILT_IN : 0);
  const object =
    door === "handler" ? { door, name } : { door, name, isWriteOp, bypass, runBuiltIn, ...(door === "invoke" ? { registered } : {}) };
  return [object, packCall(name, doors[door] | flags)];
}

describe("callTool: the packed request", () => {
  test("answers as the request object with the same facts", async () => {
    const ws = workspace({ tools: {}, defaultPolicy: "deny" });
    try {
      fs.writeFileSync(`${ws.root}/a.txt`, "one\ntwo\n");
      const handle = native.contextHandle(ws.context);
      const state = native.todoStoreNew();
      const cases = [
        ["invoke", "task_list", {}, {}],
        ["invoke", "task_list", {}, { bypass: true }],
        ["invoke", "task_validate_completion", {}, { bypass: true }],
        ["tools", "task_list", [], { bypass: true }],
        ["handler", "task_list", [], {}],
        ["invoke", "read_file", { path: "a.txt" }, { bypass: true }],
        ["invoke", "read_file", { path: "a.txt" }, { bypass: true, runBuiltIn: false }],
        ["invoke", "read_file", { path: "a.txt" }, { bypass: true, registered: false }],
        ["invoke", "write_file", { path: "../b.txt", content: "x" }, { bypass: true, isWriteOp: true }],
        ["tools", "read_file", ["../x"], { bypass: true }],
        ["invoke", "edit_file", { path: "a.txt", old_string: "one", new_string: "1" }, { registered: false }],
      ];
      let denied = 0;
      for (const [door, name, args, facts] of cases) {
        const [object, packed] = both(door, name, facts);
        assert.equal(typeof packed, "number", name);
        const fromObject = await native.callTool(object, handle, args, state, process.env);
        const fromPacked = await native.callTool(packed, handle, args, state, process.env);
        assert.deepEqual(fromPacked, fromObject, `${door} ${name} ${JSON.stringify(facts)}`);
        if (fromObject.reason === "policy") denied++;
      }
      // the flags are read: the deny policy refuses the calls without the bypass bit
      assert.ok(denied >= 1);
    } finally {
      ws.cleanup();
    }
  });

  test("task_validate_completion's output is written natively from the store; an update's changed task is left to the caller", async () => {
    const ws = workspace();
    try {
      const created = await ws.toolkit.invoke("task_create_many", { tasks: [{ title: "a" }, { title: "b" }] });
      const [first] = created.content.tasks.map((t) => t.task_id);
      const handle = native.contextHandle(ws.context);
      const state = native.todoStoreNew();
      const flags = DOOR_INVOKE | REGISTERED | RUN_BUILT_IN;
      const validate = packCall("task_validate_completion", flags);
      assert.equal(native.callTool(validate, handle, {}, state, process.env).code, "STATE_NOT_INITIALIZED");
      native.todoStoreLoad(state, JSON.stringify({ tasks: [...ws.context.todo.tasks], order: ws.context.todo.order }));
      assert.deepEqual(JSON.parse(native.callTool(validate, handle, {}, state, process.env)), { ok: false, remaining: created.content.tasks.map((t) => t.task_id) });
      // an update that changes its task leaves its output to the caller too (the change holds it)
      const update = native.callTool(packCall("task_update_status", flags), handle, { task_id: first, status: "done" }, state, process.env);
      assert.equal(update.json, "");
      assert.equal(JSON.parse(update.change).set.status, "done");
      // a corrupt list is still refused
      native.todoStoreLoad(state, JSON.stringify({ tasks: [], order: [first] }));
      assert.equal(native.callTool(validate, handle, {}, state, process.env).code, "INTERNAL");
      // and through the toolkit the output is agent-tools-ts's
      assert.deepEqual((await ws.toolkit.invoke("task_validate_completion", {})).content, { ok: false, remaining: created.content.tasks.map((t) => t.task_id) });
      assert.deepEqual((await ws.toolkit.tools.task_validate_completion({})).data, { ok: false, remaining: created.content.tasks.map((t) => t.task_id) });
    } finally {
      ws.cleanup();
    }
  });

  test("a name outside the registry has no packed form", () => {
    assert.equal(packCall("no_such_tool", DOOR_INVOKE), undefined);
    assert.equal(packCall("toString", DOOR_INVOKE), undefined);
  });

  test("a malformed number is a thrown error, not a crash", () => {
    const ws = workspace();
    try {
      const handle = native.contextHandle(ws.context);
      const index = packCall("task_list", 0);
      for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 32, 255 << 8, index | 3]) {
        assert.throws(() => native.callTool(bad, handle, {}, null, process.env), /not a packed call request/, String(bad));
      }
    } finally {
      ws.cleanup();
    }
  });
});
