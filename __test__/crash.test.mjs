// Crash safety: a process killed (SIGKILL) in the middle of write_file, apply_patch, or the
// opt-in edit_file and apply_patches, on large files leaves each target with the old or the new
// content, never a mix, and the next run of the tool leaves no temporary file behind.
import { test, describe } from "./harness.mjs";
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
const tk = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: { tools: {}, defaultPolicy: "allow" } }), { extraTools: ["edit_file", "apply_patches"] });
const a = "A".repeat(${SIZE}) + "\\n";
const b = "B".repeat(${SIZE}) + "\\n";
const patchAB = "--- a/big.txt\\n+++ b/big.txt\\n@@ -1 +1 @@\\n-" + a.slice(0, -1) + "\\n+" + b.slice(0, -1) + "\\n";
const patchBA = "--- a/big.txt\\n+++ b/big.txt\\n@@ -1 +1 @@\\n-" + b.slice(0, -1) + "\\n+" + a.slice(0, -1) + "\\n";
(async () => {
  process.stdout.write("ready\\n");
  for (let i = 0; ; i++) {
    // (a run that starts on the other version fails its first edit or patch, then goes on)
    const done = {
      write_file: () => tk.invoke("write_file", { path: "big.txt", content: i % 2 ? a : b }),
      apply_patch: () => tk.invoke("apply_patch", { filePath: "big.txt", patch: i % 2 ? patchBA : patchAB }),
      edit_file: () => tk.invoke("edit_file", { path: "big.txt", old_string: (i % 2 ? b : a).slice(0, -1), new_string: (i % 2 ? a : b).slice(0, -1) }),
      apply_patches: () => tk.invoke("apply_patches", { patch: i % 2 ? patchBA : patchAB }),
    }[tool]();
    // "start" before each write and "ok" after each completed one: the parent knows the writer
    // made progress, and whether the kill found a write under way
    process.stdout.write("start\\n");
    if (await done.then(() => true, () => false)) process.stdout.write("ok\\n");
  }
})();
`;

/**
 * Runs the writer until it has completed `writes` writes, then kills it with SIGKILL after
 * `fraction` of the time one write took, so the kill lands inside the next write whatever the
 * machine's speed. Resolves with the number of completed writes the child reported and whether
 * the kill found a write under way (the child's last line was its "start").
 */
function killMidway(root, tool, writes, fraction) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", WRITER, root, tool], { stdio: ["ignore", "pipe", "inherit"] });
    let completed = 0;
    let last = 0;
    let killing = false;
    let buffered = "";
    let lastLine = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop();
      for (const line of lines) {
        lastLine = line;
        if (line === "start") continue;
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
    child.on("close", () => resolve({ completed, midWrite: lastLine === "start" }));
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

/** One more run of each tool, from the version the file holds (`"A"` or `"B"`) to the other. */
const other = (version) => (version === "A" ? "B" : "A");
const patchTo = (from) => `--- a/big.txt\n+++ b/big.txt\n@@ -1 +1 @@\n-${from.repeat(SIZE)}\n+${other(from).repeat(SIZE)}\n`;
const NEXT_RUN = {
  write_file: (tk, from) => tk.invoke("write_file", { path: "big.txt", content: other(from).repeat(SIZE) + "\n" }),
  apply_patch: (tk, from) => tk.invoke("apply_patch", { filePath: "big.txt", patch: patchTo(from) }),
  edit_file: (tk, from) => tk.invoke("edit_file", { path: "big.txt", old_string: from.repeat(SIZE), new_string: other(from).repeat(SIZE) }),
  apply_patches: (tk, from) => tk.invoke("apply_patches", { patch: patchTo(from) }),
};

describe("crash safety", () => {
  for (const tool of ["write_file", "apply_patch", "edit_file", "apply_patches"]) {
    // The work is fixed (12 rounds of 8 MiB writes; edit_file also returns a 16 MiB diff: about
    // 47 s under Bun on a loaded machine); the timeout only catches a hang.
    test(`${tool}: SIGKILL mid-write leaves the old or the new content`, { timeout: 600_000 }, async () => {
      const { dir: root, cleanup } = tempDir();
      try {
        const target = path.join(root, "big.txt");
        fs.writeFileSync(target, "A".repeat(SIZE) + "\n");
        let midWrite = 0;
        for (let round = 0; round < 12; round++) {
          const killed = await killMidway(root, tool, 1 + (round % 2), ((round * 37) % 100) / 100);
          assert.ok(killed.completed >= 1, "the writer completed a write before the kill");
          if (killed.midWrite) midWrite++;
          assertWhole(target);
        }
        // the test proves something only where kills landed inside a write
        assert.ok(midWrite >= 1, `no kill of 12 landed inside a write`);
        // the next run of the tool leaves no temporary file behind
        const tk = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL }), { extraTools: ["edit_file", "apply_patches"] });
        const last = assertWhole(target);
        await NEXT_RUN[tool](tk, last);
        assert.equal(assertWhole(target), other(last));
        assert.deepEqual(fs.readdirSync(root), ["big.txt"]);
      } finally {
        cleanup();
      }
    });
  }
});
