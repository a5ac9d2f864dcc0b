// Shared test helpers: temporary workspaces and contexts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createToolContext, createAgentToolkit } from "agent-tools-native";

/** A fresh real (symlink-free) temporary directory; removed by the returned cleanup. */
export function tempDir(prefix = "atn-") {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export const ALLOW_ALL = { tools: {}, defaultPolicy: "allow" };

/** A workspace `<tmp>/ws` next to an `outside` directory holding canary files. */
export function workspace(policy = ALLOW_ALL, writeScope) {
  const { dir, cleanup } = tempDir();
  const root = path.join(dir, "ws");
  const outside = path.join(dir, "outside");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "canary.txt"), "CANARY");
  const context = createToolContext({ workspaceRoot: root, policy, writeScope });
  return { base: dir, root, outside, context, toolkit: createAgentToolkit(context), cleanup };
}

/** Resolves to the rejection of `promise` (fails when it resolves). */
export async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}
