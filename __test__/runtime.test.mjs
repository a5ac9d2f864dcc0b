import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { ALLOW_ALL, tempDir, workspace, onlyOn, NEEDS } from "./helpers.mjs";
import { createAgentToolkit, createToolContext } from "agent-tools-native";

const native = createRequire(import.meta.url)("../binding.js");

describe("off the JavaScript thread", () => {
  // A fixed amount of work (60 walks of 1 000 entries, about 1 s on an idle machine). On a busy
  // machine the JavaScript thread itself may get no time while they run (the first burst of
  // calls also starts the pool's threads, which the walks slow down), so the measurement is taken
  // up to three times: work done on the JavaScript thread would leave no tick in any of them.
  test("the event loop keeps ticking during large tree walks", { timeout: 120_000 }, async () => {
    const ws = workspace();
    try {
      for (let i = 0; i < 40; i++) {
        for (let j = 0; j < 40; j++) fs.mkdirSync(path.join(ws.root, `d${i}`, `e${j}`), { recursive: true });
      }
      const attempts = [];
      let ticks = 0;
      for (let attempt = 0; attempt < 3 && ticks < 2; attempt++) {
        ticks = 0;
        const timer = setInterval(() => { ticks++; }, 1);
        const started = Date.now();
        const walks = await Promise.all(
          Array.from({ length: 60 }, () => ws.toolkit.invoke("tree", { path: ".", max_entries: 1000, max_depth: 12, entry_kind: "all" })),
        );
        const elapsed = Date.now() - started;
        clearInterval(timer);
        for (const w of walks) assert.equal(w.content.scanned_entries, 1000);
        attempts.push(`${ticks} timer ticks in ${elapsed} ms`);
      }
      assert.ok(ticks >= 2, `the event loop stood still: ${attempts.join("; ")}`);
    } finally {
      ws.cleanup();
    }
  });

  test("many concurrent calls all complete", async () => {
    const ws = workspace();
    try {
      fs.writeFileSync(path.join(ws.root, "a.txt"), "a\nb\n");
      const results = await Promise.all(Array.from({ length: 500 }, () => ws.toolkit.invoke("read_file", { path: "a.txt" })));
      assert.ok(results.every((r) => r.content.meta.line_count === 3));
    } finally {
      ws.cleanup();
    }
  });
});

describe("panics never cross the boundary", () => {
  test("a panic on the worker pool becomes an internal outcome", async () => {
    const outcome = await native.debugPanic("async");
    assert.equal(outcome.kind, "internal");
    assert.match(outcome.message, /native panic: debug panic on the worker pool/);
  });

  test("a panic on the JavaScript thread becomes a thrown Error", () => {
    assert.throws(() => native.debugPanic("sync"), /debug panic on the JavaScript thread/);
  });

  test("cyclic and over-deep arguments fail with an error, not a crash", async () => {
    const ws = workspace();
    try {
      // A cycle is cut where the object reappears; a tool that needs the value refuses it the
      // way JSON.stringify would.
      const rule = { pattern: "x" };
      rule.self = rule;
      const cyclic = await ws.toolkit.tools.ast_grep_search({ language: "ts", rule });
      assert.equal(cyclic.status, "failure");
      assert.equal(cyclic.message, "INVALID_ARGUMENT: rule must be JSON serializable");
      let deep = { path: "a.txt" };
      for (let i = 0; i < 100; i++) deep = { deep };
      const result = await ws.toolkit.tools.exec_command(deep);
      assert.equal(result.status, "failure");
      assert.match(result.message, /nesting is too deep/);
    } finally {
      ws.cleanup();
    }
  });
});

describe("one native entry for every call (callTool)", () => {
  const request = (door, name, extra = {}) =>
    door === "handler" ? { door, name } : { door, name, isWriteOp: false, bypass: false, runBuiltIn: true, ...(door === "invoke" ? { registered: true } : {}), ...extra };

  test("session tools answer synchronously through every door; tree walks resolve later", async () => {
    const ws = workspace();
    try {
      const created = await ws.toolkit.invoke("task_create_many", { tasks: [{ title: "a" }] });
      const id = created.content.tasks[0].task_id;
      const handle = native.contextHandle(ws.context);
      // the context's task list, loaded into a store of its own
      const state = native.todoStoreNew();
      native.todoStoreLoad(state, JSON.stringify({ tasks: [...ws.context.todo.tasks], order: ws.context.todo.order }));
      for (const [door, args] of [["invoke", {}], ["tools", []], ["handler", []]]) {
        // an ok without a state change is its JSON text alone
        const output = native.callTool(request(door, "task_validate_completion"), handle, args, state, process.env);
        assert.equal(typeof output, "string", `${door}: answered at once`);
        assert.deepEqual(JSON.parse(output), { ok: false, remaining: [id] });
        // task_list's is empty: the list is the state's, which the caller renders from context.todo
        assert.equal(native.callTool(request(door, "task_list"), handle, args, state, process.env), "");
      }
      const changed = native.callTool(request("invoke", "task_update_status"), handle, { task_id: id, status: "done" }, state, process.env);
      assert.equal(changed.kind, "ok");
      assert.equal(JSON.parse(changed.change).set.status, "done");
      // the change is applied to the store too
      const listed = native.callTool(request("invoke", "task_validate_completion"), handle, {}, state, process.env);
      assert.deepEqual(JSON.parse(listed), { ok: true, remaining: [] });
      // without a store: no task list
      const none = native.callTool(request("invoke", "task_list"), handle, {}, null, process.env);
      assert.equal(none.code, "STATE_NOT_INITIALIZED");
      const walk = native.callTool(request("invoke", "tree"), handle, { path: "." }, null, process.env);
      assert.equal(typeof walk.then, "function");
      assert.equal(JSON.parse(await walk).root.path, ".");
    } finally {
      ws.cleanup();
    }
  });

  test("each door answers with its own typed outcome", async () => {
    const ws = workspace();
    try {
      const handle = native.contextHandle(ws.context);
      const unknown = native.callTool(request("invoke", "nope", { registered: false }), handle, {}, null, process.env);
      assert.deepEqual(unknown, { kind: "invoke_error", code: "TOOL_NOT_FOUND", message: "tool is not registered: nope" });
      const outside = await native.callTool(request("tools", "read_file"), handle, ["../x"], null, process.env);
      assert.equal(outside.kind, "denied");
      assert.equal(outside.reason, "sandbox");
      const replaced = await native.callTool(request("invoke", "read_file", { runBuiltIn: false }), handle, { path: "a.txt", start_line: 2, max_lines: 5 }, null, process.env);
      assert.equal(replaced.kind, "prepared");
      assert.deepEqual(replaced.args, [path.join(fs.realpathSync(ws.root), "a.txt"), { start_line: 2, max_lines: 5 }]);
    } finally {
      ws.cleanup();
    }
  });

  test("a context kept between calls resolves its root afresh for each call", onlyOn(["unix"], NEEDS.symlinks), async () => {
    const { dir, cleanup } = tempDir();
    try {
      for (const name of ["one", "two"]) {
        fs.mkdirSync(path.join(dir, name));
        fs.writeFileSync(path.join(dir, name, "f.txt"), `${name}\n`);
      }
      const root = path.join(dir, "root");
      fs.symlinkSync(path.join(dir, "one"), root);
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL }));
      for (const read of [(p) => toolkit.invoke("read_file", { path: p }).then((r) => r.content.content), (p) => toolkit.tools.read_file(p).then((r) => r.data.content)]) {
        fs.rmSync(root);
        fs.symlinkSync(path.join(dir, "one"), root);
        assert.equal(await read("f.txt"), "one\n");
        fs.rmSync(root);
        fs.symlinkSync(path.join(dir, "two"), root);
        assert.equal(await read("f.txt"), "two\n");
      }
    } finally {
      cleanup();
    }
  });

  test("a malformed request is a thrown error, not a crash", () => {
    const ws = workspace();
    try {
      const handle = native.contextHandle(ws.context);
      assert.throws(() => native.callTool({ door: "elsewhere", name: "tree" }, handle, {}, null, process.env));
      assert.throws(() => native.callTool({ door: "invoke", name: "tree" }, handle, {}, null, process.env));
      assert.throws(() => native.callTool(request("invoke", "tree"), ws.context, {}, null, process.env));
    } finally {
      ws.cleanup();
    }
  });
});
