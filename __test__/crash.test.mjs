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
    if (tool === "write_file") await tk.invoke("write_file", { path: "big.txt", content: i % 2 ? a : b });
    else await tk.invoke("apply_patch", { filePath: "big.txt", patch: i % 2 ? patchBA : patchAB }).catch(() => {});
  }
})();
`;

function killMidway(root, tool, delayMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", WRITER, root, tool], { stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.once("data", () => setTimeout(() => child.kill("SIGKILL"), delayMs));
    child.on("exit", resolve);
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
    test(`${tool}: SIGKILL mid-write leaves the old or the new content`, { timeout: 60_000 }, async () => {
      const { dir: root, cleanup } = tempDir();
      try {
        const target = path.join(root, "big.txt");
        fs.writeFileSync(target, "A".repeat(SIZE) + "\n");
        const seen = new Set();
        for (let round = 0; round < 12; round++) {
          // spread the kills over a few writes (apply_patch of 8 MiB is much slower than write_file)
          const delay = tool === "write_file" ? 20 + ((round * 37) % 150) : 100 + ((round * 173) % 900);
          await killMidway(root, tool, delay);
          seen.add(assertWhole(target));
        }
        assert.deepEqual([...seen].sort(), ["A", "B"], "the writer really ran between the kills");
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
