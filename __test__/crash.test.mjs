// Crash safety: a process killed (SIGKILL) in the middle of write_file or apply_patch on large
// files leaves each target with the old or the new content, never a mix, and the next run of the
// tool leaves no temporary file behind.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { tempDir, ALLOW_ALL } from "./helpers.mjs";
import { createAgentToolkit, createToolContext } from "agent-tools-native";

const SIZE = 8 * 1024 * 1024;
const repo = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** A child that writes the target over and over, alternating two full contents. */
const WRITER = `
const { createAgentToolkit, createToolContext } = require(${JSON.stringify(path.join(repo, "js/index.cjs"))});
const [root, tool] = process.argv.slice(1);
const tk = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: { tools: {}, defaultPolicy: "allow" } }));
const a = "A".repeat(${SIZE}) + "\\n";
const b = "B".repeat(${SIZE}) + "\\n";
const patchAB = "--- a/big.txt\\n+++ b/big.txt\\n@@ -1 +1 @@\\n-" + a.slice(0, -1) + "\\n+" + b.slice(0, -1) + "\\n";
const patchBA = "--- a/big.txt\\n+++ b/big.txt\\n@@ -1 +1 @@\\n-" + b.slice(0, -1) + "\\n+" + a.slice(0, -1) + "\\n";
(async () => {
  process.stdout.write("ready\\n");
  for (let i = 0; ; i++) {
    const done = tool === "write_file"
      ? tk.invoke("write_file", { path: "big.txt", content: i % 2 ? a : b })
      : tk.invoke("apply_patch", { filePath: "big.txt", patch: i % 2 ? patchBA : patchAB });
    // "ok" after each completed write, so the parent knows the writer made progress
    if (await done.then(() => true, () => false)) process.stdout.write("ok\\n");
  }
})();
`;

/**
 * Runs the writer until it has completed `writes` writes, then kills it with SIGKILL after
 * `fraction` of the time one write took, so the kill lands inside the next write whatever the
 * machine's speed. Resolves with the number of completed writes the child reported.
 */
function killMidway(root, tool, writes, fraction) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", WRITER, root, tool], { stdio: ["ignore", "pipe", "inherit"] });
    let completed = 0;
    let last = 0;
    let killing = false;
    let buffered = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop();
      for (const line of lines) {
        const now = performance.now();
        if (line === "ok") completed++;
        const took = now - last;
        last = now;
        if (line === "ok" && completed >= writes && !killing) {
          killing = true;
          setTimeout(() => child.kill("SIGKILL"), took * fraction);
        }
      }
    });
    // "close" waits for stdout to drain, so `completed` counts every write the child finished
    child.on("close", () => resolve(completed));
    child.on("error", reject);
  });
}

/** Asserts the file holds one whole version; returns which. */
function assertWhole(file) {
  const content = fs.readFileSync(file, "latin1");
  assert.equal(content.length, SIZE + 1, "size of one whole version");
  const first = content[0];
  assert.ok(first === "A" || first === "B");
  assert.equal(content.indexOf(first === "A" ? "B" : "A"), -1, "never a mix of two versions");
  return first;
}

describe("crash safety", () => {
  for (const tool of ["write_file", "apply_patch"]) {
    // The work is fixed (12 rounds of 8 MiB writes, about 15 s for apply_patch with the debug
    // addon on an idle 2-core machine); the timeout only catches a hang.
    test(`${tool}: SIGKILL mid-write leaves the old or the new content`, { timeout: 600_000 }, async () => {
      const { dir: root, cleanup } = tempDir();
      try {
        const target = path.join(root, "big.txt");
        fs.writeFileSync(target, "A".repeat(SIZE) + "\n");
        for (let round = 0; round < 12; round++) {
          const completed = await killMidway(root, tool, 1 + (round % 2), ((round * 37) % 100) / 100);
          assert.ok(completed >= 1, "the writer completed a write before the kill");
          assertWhole(target);
        }
        // the next run of the tool leaves no temporary file behind
        const tk = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL }));
        await tk.invoke("write_file", { path: "big.txt", content: "A".repeat(SIZE) + "\n" });
        assert.deepEqual(fs.readdirSync(root), ["big.txt"]);
      } finally {
        cleanup();
      }
    });
  }
});
