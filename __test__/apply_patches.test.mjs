// apply_patches (docs/tools/apply_patches.md), an opt-in tool: both formats through invoke and
// the secure wrapper, all or nothing, the sandbox on every path, the policy and the write scope.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { tempDir, ALLOW_ALL, rejection } from "./helpers.mjs";

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
