// apply_patches (docs/tools/apply_patches.md), an opt-in tool: both formats through invoke and
// the secure wrapper, all or nothing, the sandbox on every path, the policy and the write scope.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { tempDir, ALLOW_ALL, rejection, onlyOn, NEEDS } from "./helpers.mjs";

function setup({ policy = ALLOW_ALL, writeScope } = {}) {
  const { dir, cleanup } = tempDir();
  const root = path.join(dir, "ws");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "a.ts"), "export const a = 1;\nexport const b = 2;\n");
  fs.writeFileSync(path.join(root, "old.ts"), "legacy\n");
  fs.writeFileSync(path.join(dir, "canary.txt"), "CANARY\n");
  const context = createToolContext({ workspaceRoot: root, policy, writeScope });
  const toolkit = createAgentToolkit(context, { extraTools: ["apply_patches"] });
  const read = (rel) => fs.readFileSync(path.join(root, rel), "utf8");
  return { dir, root, context, toolkit, read, cleanup };
}

const CODEX = `*** Begin Patch
*** Update File: src/a.ts
@@
 export const a = 1;
-export const b = 2;
+export const b = 3;
*** Add File: src/c.ts
+export const c = 4;
*** Delete File: old.ts
*** End Patch
`;

describe("apply_patches", () => {
  test("the Codex format through invoke, a unified diff through the secure wrapper", async () => {
    const ws = setup();
    try {
      const { content } = await ws.toolkit.invoke("apply_patches", { patch: CODEX });
      assert.deepEqual(content, {
        format: "codex",
        files: [
          { path: "src/a.ts", action: "updated" },
          { path: "src/c.ts", action: "added" },
          { path: "old.ts", action: "deleted" },
        ],
      });
      assert.equal(ws.read("src/a.ts"), "export const a = 1;\nexport const b = 3;\n");
      assert.equal(ws.read("src/c.ts"), "export const c = 4;\n");
      assert.equal(fs.existsSync(path.join(ws.root, "old.ts")), false);
      const diff = "diff --git a/src/c.ts b/src/d.ts\nsimilarity index 100%\nrename from src/c.ts\nrename to src/d.ts\n";
      const result = await ws.toolkit.tools.apply_patches({ patch: diff });
      assert.deepEqual(result, { status: "success", data: { format: "unified", files: [{ path: "src/c.ts", action: "moved", moved_to: "src/d.ts" }] } });
      assert.equal(ws.read("src/d.ts"), "export const c = 4;\n");
    } finally {
      ws.cleanup();
    }
  });

  test("all or nothing: a hunk that does not match leaves every file as it was", async () => {
    const ws = setup();
    try {
      const patch = CODEX.replace("-export const b = 2;", "-export const b = 99;");
      const err = await rejection(ws.toolkit.invoke("apply_patches", { patch }));
      assert.equal(err.name, "ApplyPatchesError");
      assert.equal(err.code, "APPLY_FAILED");
      assert.equal(ws.read("src/a.ts"), "export const a = 1;\nexport const b = 2;\n");
      assert.equal(ws.read("old.ts"), "legacy\n");
      assert.equal(fs.existsSync(path.join(ws.root, "src", "c.ts")), false);
    } finally {
      ws.cleanup();
    }
  });

  test("every path, move targets included, passes the sandbox", async () => {
    const ws = setup();
    try {
      for (const patch of [
        "*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: ../canary.txt\n-export const b = 2;\n+x\n*** End Patch",
        "*** Begin Patch\n*** Delete File: ../canary.txt\n*** End Patch",
        `*** Begin Patch\n*** Add File: ${path.join(ws.dir, "new.txt")}\n+x\n*** End Patch`,
      ]) {
        const err = await rejection(ws.toolkit.invoke("apply_patches", { patch }));
        assert.match(err.message, /\[Sandbox Violation\]/, patch);
      }
      assert.equal(fs.readFileSync(path.join(ws.dir, "canary.txt"), "utf8"), "CANARY\n");
      assert.equal(ws.read("src/a.ts"), "export const a = 1;\nexport const b = 2;\n");
    } finally {
      ws.cleanup();
    }
  });

  test("policy, write scope and the opt-in", async () => {
    const ro = setup({ writeScope: "read-only" });
    try {
      const err = await rejection(ro.toolkit.invoke("apply_patches", { patch: CODEX }));
      assert.equal(err.code, "TOOL_NOT_ALLOWED");
      assert.equal(ro.read("old.ts"), "legacy\n");
      const plain = createAgentToolkit(ro.context);
      assert.equal((await rejection(plain.invoke("apply_patches", { patch: CODEX }))).code, "TOOL_NOT_FOUND");
    } finally {
      ro.cleanup();
    }
    const denied = setup({ policy: { tools: { apply_patches: "deny" }, defaultPolicy: "allow" } });
    try {
      const result = await denied.toolkit.tools.apply_patches({ patch: CODEX });
      assert.equal(result.reason, "policy");
    } finally {
      denied.cleanup();
    }
  });
});

// A directory inside the workspace swapped for a symlink to a directory outside (and back, over
// and over) while apply_patches runs: whatever the timing, no outside content may land in the
// workspace (through a read of the swapped path) and nothing outside may change.
describe("apply_patches: check-then-use race", onlyOn(["unix"], NEEDS.symlinks), () => {
  const OUTSIDE_TEXT = "head\nbody\nCANARY\n";
  const INSIDE_TEXT = "head\nbody\nDECOY\n";
  const ROUNDS = 300;
  const BATCH = 30;
  // Until $STOP exists: toggles $SWAP between the directory (parked at $PARK meanwhile) and a
  // symlink to $OUTSIDE (kept at $LINK meanwhile), one rename each way; and points the symlink
  // $FLIP at $FLIP_REAL (inside) and at $OUTSIDE in turn, atomically (no moment without it).
  // Leaves the directory and the inside target in place; prints how often each pointed outside.
  // The retargeted symlink never leaves a moment without the path, so it meets the window
  // between a check and a use far more often than the directory swap (the old code leaked
  // through both, dozens of times a run).
  const SWAPPER = `
    const fs = require("node:fs");
    const { SWAP, PARK, LINK, FLIP, FLIP_REAL, OUTSIDE, STOP } = process.env;
    const attempt = (step) => { try { step(); return true; } catch { return false; } };
    const point = (target) => {
      fs.symlinkSync(target, FLIP + ".new");
      fs.renameSync(FLIP + ".new", FLIP);
    };
    fs.symlinkSync(OUTSIDE, LINK);
    let linked = 0;
    let flipped = 0;
    for (let n = 0; ; n++) {
      if (n % 64 === 0 && fs.existsSync(STOP)) break;
      const parked = attempt(() => fs.renameSync(SWAP, PARK));
      const swapped = parked && attempt(() => fs.renameSync(LINK, SWAP));
      point(OUTSIDE);
      flipped++;
      if (swapped) {
        linked++;
        attempt(() => fs.renameSync(SWAP, LINK));
      }
      // a write that re-created the directory meanwhile: its stray copy is moved aside
      if (parked) while (!attempt(() => fs.renameSync(PARK, SWAP)) && fs.existsSync(PARK)) attempt(() => fs.renameSync(SWAP, SWAP + ".stray-" + n));
      point(FLIP_REAL);
    }
    fs.unlinkSync(LINK);
    process.stdout.write(linked + " " + flipped);
  `;

  /** Every regular file below `dir` (symlinks not followed): relative path → content. */
  function files(dir, base = dir, out = {}) {
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      const st = fs.lstatSync(file);
      if (st.isDirectory()) files(file, base, out);
      else if (st.isFile()) out[path.relative(base, file)] = fs.readFileSync(file, "latin1");
    }
    return out;
  }

  test("Move to, plain updates and git renames never read through the swapped directory", { timeout: 120_000 }, async () => {
    // on tmpfs (where there is one) a swap takes microseconds, on a disk often a millisecond
    const { dir, cleanup } = tempDir("atn-patches-race-", fs.existsSync("/dev/shm") ? "/dev/shm" : undefined);
    let swapper;
    try {
      const root = path.join(dir, "ws");
      const outside = path.join(dir, "outside");
      const swap = path.join(root, "swap");
      const flip = path.join(root, "flip");
      const flipReal = path.join(root, "flip.real");
      fs.mkdirSync(swap, { recursive: true });
      fs.mkdirSync(flipReal);
      fs.symlinkSync(flipReal, flip);
      fs.mkdirSync(path.join(root, "moved"));
      fs.mkdirSync(outside);
      // one source file per call, on both sides of the swap, with the same names
      const calls = ROUNDS * BATCH;
      for (let n = 0; n < calls; n++) {
        fs.writeFileSync(path.join(swap, `f${n}.txt`), INSIDE_TEXT);
        fs.writeFileSync(path.join(flipReal, `f${n}.txt`), INSIDE_TEXT);
        fs.writeFileSync(path.join(outside, `f${n}.txt`), OUTSIDE_TEXT);
      }
      const outsideBefore = files(outside);
      const context = createToolContext({ workspaceRoot: root, policy: ALLOW_ALL });
      const toolkit = createAgentToolkit(context, { extraTools: ["apply_patches"] });
      // Move to, a plain update, a git rename; each through `swap` and through `flip`
      const patches = ["swap", "flip"].flatMap((d) => [
        (n) => `*** Begin Patch\n*** Update File: ${d}/f${n}.txt\n*** Move to: moved/m${n}.txt\n@@\n head\n-body\n+BODY\n*** End Patch\n`,
        (n) => `*** Begin Patch\n*** Update File: ${d}/f${n}.txt\n@@\n head\n-body\n+BODY\n*** End Patch\n`,
        (n) => `diff --git a/${d}/f${n}.txt b/moved/r${n}.txt\nsimilarity index 100%\nrename from ${d}/f${n}.txt\nrename to moved/r${n}.txt\n`,
      ]);
      // The swapper runs in its own process, so it toggles while the tool runs on its thread.
      const stopFile = path.join(dir, "stop");
      swapper = spawn(process.execPath, ["-e", SWAPPER], {
        env: { ...process.env, SWAP: swap, PARK: path.join(root, "swap.parked"), LINK: path.join(root, "swap.link"), FLIP: flip, FLIP_REAL: flipReal, OUTSIDE: outside, STOP: stopFile },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let swapperOut = "";
      swapper.stdout.on("data", (d) => {
        swapperOut += d;
      });
      const swapperDone = new Promise((resolve) => swapper.on("close", resolve));
      const outcomes = { ok: 0, failed: 0 };
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const batch = Array.from({ length: BATCH }, (_, i) => {
            const n = round * BATCH + i;
            return toolkit.invoke("apply_patches", { patch: patches[n % patches.length](n) }).then(
              (out) => {
                outcomes.ok++;
                return out;
              },
              (e) => {
                outcomes.failed++;
                return e.message;
              },
            );
          });
          for (const out of await Promise.all(batch)) assert.ok(!JSON.stringify(out).includes("CANARY"), `read outside: ${JSON.stringify(out)}`);
        }
      } finally {
        fs.writeFileSync(stopFile, "");
        await swapperDone;
      }
      const [linked, flipped] = swapperOut.trim().split(" ").map(Number);
      assert.ok(linked > 0 && flipped > 0, `the swaps happened (${swapperOut})`);
      assert.ok(outcomes.ok > 0, "some calls succeeded");
      const leaked = Object.entries(files(root)).filter(([, text]) => text.includes("CANARY"));
      assert.deepEqual(leaked.map(([name]) => name), [], "outside content landed in the workspace");
      assert.deepEqual(files(outside), outsideBefore, "something outside the workspace changed");
    } finally {
      if (swapper && swapper.exitCode === null) swapper.kill();
      cleanup();
    }
  });
});
