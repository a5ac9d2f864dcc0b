import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { workspace } from "./helpers.mjs";

const native = createRequire(import.meta.url)("../binding.js");

describe("off the JavaScript thread", () => {
  test("the event loop keeps ticking during large tree walks", async () => {
    const ws = workspace();
    try {
      for (let i = 0; i < 40; i++) {
        for (let j = 0; j < 40; j++) fs.mkdirSync(path.join(ws.root, `d${i}`, `e${j}`), { recursive: true });
      }
      let ticks = 0;
      const timer = setInterval(() => { ticks++; }, 1);
      const started = Date.now();
      const walks = await Promise.all(
        Array.from({ length: 60 }, () => ws.toolkit.invoke("tree", { path: ".", max_entries: 1000, max_depth: 12, entry_kind: "all" })),
      );
      const elapsed = Date.now() - started;
      clearInterval(timer);
      for (const w of walks) assert.equal(w.content.scanned_entries, 1000);
      assert.ok(ticks >= 2, `only ${ticks} timer ticks in ${elapsed} ms`);
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
