// find_files (docs/tools/find_files.md), an opt-in tool: through invoke and the secure wrapper,
// its order (newest first), .gitignore, the sandbox on root_path and the policy.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { tempDir, ALLOW_ALL, rejection, assertToolError, onlyOn, NEEDS } from "./helpers.mjs";

function setup(policy = ALLOW_ALL) {
  const { dir, cleanup } = tempDir();
  const root = path.join(dir, "ws");
  const outside = path.join(dir, "outside");
  fs.mkdirSync(path.join(root, "src", "deep"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "secret.ts"), "x");
  const files = [["src/a.ts", 1000], ["src/deep/b.ts", 3000], ["src/c.ts", 2000], ["ignored/d.ts", 4000], ["src/e.md", 5000]];
  for (const [rel, secs] of files) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), "x");
    fs.utimesSync(path.join(root, rel), secs, secs);
  }
  fs.writeFileSync(path.join(root, ".gitignore"), "ignored/\n");
  const context = createToolContext({ workspaceRoot: root, policy });
  return { root, outside, toolkit: createAgentToolkit(context, { extraTools: ["find_files"] }), context, cleanup };
}

describe("find_files", () => {
  test("newest first, .gitignore honoured, capped with truncated", async () => {
    const ws = setup();
    try {
      const { content } = await ws.toolkit.invoke("find_files", { pattern: "*.ts" });
      assert.deepEqual(content.items.map((i) => i.path), ["src/deep/b.ts", "src/c.ts", "src/a.ts"]);
      assert.deepEqual(content.items[0], { path: "src/deep/b.ts", size: 1, mtime_ms: 3000000 });
      assert.equal(content.truncated, false);
      const capped = await ws.toolkit.tools.find_files({ pattern: "**/*.{ts,md}", root_path: "src", max_results: 2 });
      assert.equal(capped.status, "success");
      assert.deepEqual(capped.data.items.map((i) => i.path), ["src/e.md", "src/deep/b.ts"]);
      assert.equal(capped.data.truncated, true);
      assert.equal(capped.data.total_matches, 4);
    } finally {
      ws.cleanup();
    }
  });

  test("only with the opt-in; listed after the 13 and after edit_file", async () => {
    const ws = setup();
    try {
      const plain = createAgentToolkit(ws.context);
      assert.equal((await rejection(plain.invoke("find_files", { pattern: "*" }))).code, "TOOL_NOT_FOUND");
      const both = createAgentToolkit(ws.context, { extraTools: ["find_files", "edit_file"] });
      assert.deepEqual(both.getAllowedTools().slice(13).map((d) => d.function.name), ["edit_file", "find_files"]);
    } finally {
      ws.cleanup();
    }
  });

  test("root_path outside the workspace is a sandbox violation; bad input a typed error", onlyOn(["unix"], NEEDS.symlinks), async () => {
    const ws = setup();
    try {
      fs.symlinkSync(ws.outside, path.join(ws.root, "link"));
      for (const root_path of ["..", "../outside", "link", ws.outside]) {
        const err = await rejection(ws.toolkit.invoke("find_files", { pattern: "*.ts", root_path }));
        assert.match(err.message, /^\[Sandbox Violation\]/, root_path);
        const result = await ws.toolkit.tools.find_files({ pattern: "*.ts", root_path });
        assert.equal(result.reason, "sandbox", root_path);
      }
      const { content } = await ws.toolkit.invoke("find_files", { pattern: "secret.ts" });
      assert.deepEqual(content.items, [], "a symlinked directory is not followed");
      assertToolError(await rejection(ws.toolkit.invoke("find_files", { pattern: "" })), "FindFilesError", "INVALID_ARGUMENT",
        "INVALID_ARGUMENT: pattern must be a non-empty string");
      assert.equal((await rejection(ws.toolkit.invoke("find_files", { pattern: "*", max_results: 5000 }))).code, "INVALID_ARGUMENT");
    } finally {
      ws.cleanup();
    }
  });

  test("the policy decides; a read-only context may use it", async () => {
    const denied = setup({ tools: { find_files: "deny" }, defaultPolicy: "allow" });
    try {
      assert.equal((await rejection(denied.toolkit.invoke("find_files", { pattern: "*" }))).code, "TOOL_NOT_ALLOWED");
      assert.equal(denied.toolkit.getAllowedTools().some((d) => d.function.name === "find_files"), false);
    } finally {
      denied.cleanup();
    }
    const { dir, cleanup } = tempDir();
    try {
      fs.writeFileSync(path.join(dir, "x.txt"), "x");
      const ctx = createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL, writeScope: "read-only" });
      const { content } = await createAgentToolkit(ctx, { extraTools: ["find_files"] }).invoke("find_files", { pattern: "*.txt" });
      assert.deepEqual(content.items.map((i) => i.path), ["x.txt"]);
    } finally {
      cleanup();
    }
  });
});
