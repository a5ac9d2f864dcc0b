// Attacks on the workspace sandbox through both front doors. Every attempt must be denied (or
// confined to the workspace) and the canary outside must never be read, written or created.
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { workspace, rejection } from "./helpers.mjs";

let attacks = 0;
after(() => console.log(`sandbox: ${attacks} attacks, 0 escapes`));

function fixture() {
  const ws = workspace();
  const link = (target, name) => fs.symlinkSync(target, path.join(ws.root, name));
  link(ws.outside, "dlink");
  link(path.join(ws.outside, "canary.txt"), "flink");
  link(path.join(ws.outside, "missing.txt"), "dangling");
  link(path.join(ws.outside, "newdir", "x"), "dangling-deep");
  link("dlink", "chain");
  link("../../outside", "src/rel");
  return ws;
}

/** Asserts the call was refused by the sandbox through the wrapper and through invoke. */
async function assertDenied(ws, name, wrapperArgs, invokeArgs) {
  attacks += 2;
  const wrapped = await ws.toolkit.tools[name](...wrapperArgs);
  assert.equal(wrapped.status, "denied", `${name} ${JSON.stringify(wrapperArgs)} → ${JSON.stringify(wrapped)}`);
  assert.equal(wrapped.reason, "sandbox");
  assert.equal(wrapped.error.code, "SANDBOX_VIOLATION");
  assert.match(wrapped.message, /^\[Sandbox Violation\] Attempted to access path outside of workspace: /);
  const err = await rejection(ws.toolkit.invoke(name, invokeArgs));
  assert.match(err.message, /^\[Sandbox Violation\] Attempted to access path outside of workspace: /, `${name} ${JSON.stringify(invokeArgs)}`);
}

function assertCanaryIntact(ws) {
  assert.equal(fs.readFileSync(path.join(ws.outside, "canary.txt"), "utf8"), "CANARY");
  assert.deepEqual(fs.readdirSync(ws.outside), ["canary.txt"]);
}

const ESCAPES = [
  "../outside/canary.txt", "../../etc/passwd", "src/../../outside/canary.txt", "..\\outside\\canary.txt",
  "/etc/passwd", "dlink/canary.txt", "flink", "chain/canary.txt", "src/rel/canary.txt", "dangling",
  "dangling-deep", "dlink/new/deep.txt", "..foo", "src/./../..//outside",
];

describe("sandbox attacks", () => {
  test("read_file cannot read outside", async () => {
    const ws = fixture();
    try {
      for (const p of ESCAPES) await assertDenied(ws, "read_file", [p], { path: p });
      await assertDenied(ws, "read_file", [path.join(ws.outside, "canary.txt")], { path: path.join(ws.outside, "canary.txt") });
      assertCanaryIntact(ws);
    } finally {
      ws.cleanup();
    }
  });

  test("write_file cannot write or create outside", async () => {
    const ws = fixture();
    try {
      for (const p of ESCAPES) await assertDenied(ws, "write_file", [p, "PWNED"], { path: p, content: "PWNED" });
      assertCanaryIntact(ws);
    } finally {
      ws.cleanup();
    }
  });

  test("tree cannot list outside", async () => {
    const ws = fixture();
    try {
      for (const p of ["..", "../outside", "dlink", "chain", "src/rel", "/", "..\\"]) await assertDenied(ws, "tree", [p], { path: p });
    } finally {
      ws.cleanup();
    }
  });

  test("object path fields are checked: cwd and root_path", async () => {
    const ws = fixture();
    try {
      await assertDenied(ws, "exec_command", [{ cwd: "dlink", command: ["cat", "canary.txt"] }], { cwd: "dlink", command: ["cat", "canary.txt"] });
      await assertDenied(ws, "regexp_search", [{ pattern: "CANARY", root_path: "../outside" }], { pattern: "CANARY", root_path: "../outside" });
      await assertDenied(ws, "ast_grep_search", [{ language: "ts", rule: {}, cwd: ".", root_path: "dlink" }], { language: "ts", rule: {}, root_path: "dlink" });
      await assertDenied(ws, "git_status_summary", ["chain"], { cwd: "chain" });
      await assertDenied(ws, "apply_patch", ["flink", ""], { filePath: "flink", patch: "" });
    } finally {
      ws.cleanup();
    }
  });

  test("symlinks that stay inside the workspace keep working", async () => {
    const ws = fixture();
    try {
      fs.writeFileSync(path.join(ws.root, "src", "a.txt"), "A");
      fs.symlinkSync("src", path.join(ws.root, "srclink"));
      fs.symlinkSync(path.join(ws.root, "src"), path.join(ws.root, "abslink"));
      assert.equal((await ws.toolkit.invoke("read_file", { path: "srclink/a.txt" })).content.content, "A");
      // a symlink as the final component is not a directory for tree (contract), not a violation
      await assert.rejects(ws.toolkit.invoke("tree", { path: "abslink/" }), { name: "TreeError", code: "NOT_DIRECTORY" });
      assert.equal((await ws.toolkit.invoke("tree", { path: "abslink/.." })).content.root.path, ".");
      const written = await ws.toolkit.tools.write_file("srclink/b.txt", "B");
      assert.equal(written.status, "success");
      assert.equal(fs.readFileSync(path.join(ws.root, "src", "b.txt"), "utf8"), "B");
    } finally {
      ws.cleanup();
    }
  });

  test("a directory swapped for a symlink between check and use never leaks", async () => {
    const ws = fixture();
    try {
      const swap = path.join(ws.root, "swap");
      const parked = path.join(ws.root, "swap.dir");
      fs.mkdirSync(swap);
      fs.writeFileSync(path.join(swap, "canary.txt"), "INSIDE");
      let stop = false;
      let linked = 0;
      // Writes re-create `swap` while it is parked, so every step tolerates losing the race.
      const attempt = (step) => { try { step(); return true; } catch { return false; } };
      const swapper = (async () => {
        for (let n = 0; !stop; n++) {
          const park = `${parked}-${n}`;
          if (attempt(() => fs.renameSync(swap, park)) && attempt(() => fs.symlinkSync(ws.outside, swap))) linked++;
          await new Promise((r) => setImmediate(r));
          attempt(() => fs.unlinkSync(swap));
          attempt(() => fs.renameSync(park, swap));
          await new Promise((r) => setImmediate(r));
        }
      })();
      const reads = [];
      for (let round = 0; round < 20; round++) {
        const batch = Array.from({ length: 25 }, (_, i) =>
          i % 2
            ? ws.toolkit.invoke("read_file", { path: "swap/canary.txt" }).then((r) => r.content.content, (e) => e.message)
            : ws.toolkit.tools.write_file(`swap/new-${round}-${i}.txt`, "PWNED").then((r) => r.status),
        );
        reads.push(...(await Promise.all(batch)));
      }
      stop = true;
      await swapper;
      attacks += reads.length;
      assert.ok(linked > 0, "the swap to a symlink happened");
      assert.ok(!reads.includes("CANARY"), "the outside canary was read");
      assertCanaryIntact(ws);
    } finally {
      ws.cleanup();
    }
  });
});
