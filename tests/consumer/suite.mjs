// The consumer smoke suite: every built-in tool once through the installed package, with the
// results checked. Run by smoke.mjs (ESM) and smoke.cjs (CommonJS) in a directory where
// `npm install agent-tools-native` / `bun add agent-tools-native` was run (scripts/test-install.mjs).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const windows = process.platform === "win32";
/** Whether git is on PATH (wine's prefix has no Git for Windows: scripts/test-install.mjs). */
const hasGit = spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;

/**
 * Removes a tree. bun.exe under wine fails a recursive removal with EFAULT (removing one file or
 * one empty directory works), so that case walks the tree itself.
 */
function removeTree(target) {
  try {
    fs.rmSync(target, { recursive: true, force: true });
  } catch (error) {
    if (error.code !== "EFAULT") throw error;
    if (fs.lstatSync(target).isDirectory()) {
      for (const name of fs.readdirSync(target)) removeTree(path.join(target, name));
      fs.rmdirSync(target);
    } else fs.unlinkSync(target);
  }
}

/** Runs the suite against the module `atn`; returns the names of the tools it called. */
export async function runSuite(atn) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-smoke-")));
  const root = path.join(base, "ws");
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(base, "outside.txt"), "CANARY");
  if (hasGit) execFileSync("git", ["init", "-q", root]);
  const context = atn.createToolContext({ workspaceRoot: root, policy: { tools: {}, defaultPolicy: "allow" } });
  const toolkit = atn.createAgentToolkit(context);
  const called = new Set();
  const invoke = async (name, args) => {
    called.add(name);
    const out = await toolkit.invoke(name, args);
    assert.equal(out.role, "function");
    assert.equal(out.name, name);
    return out.content;
  };
  try {
    const written = await invoke("write_file", { path: "src/a.ts", content: "export const answer = 41;\n" });
    assert.deepEqual(written, { path: "src/a.ts", created: true, bytes_written: 26 });

    const patch = "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const answer = 41;\n+export const answer = 42;\n";
    const patched = await invoke("apply_patch", { filePath: "src/a.ts", patch });
    assert.equal(patched.exit_code, 0, patched.stderr);
    assert.equal(patched.changed, true);

    const read = await invoke("read_file", { path: "src/a.ts" });
    assert.equal(read.content, "export const answer = 42;\n");
    assert.equal(read.meta.line_count, 2); // upstream counts the empty line after the final newline

    const tree = await invoke("tree", { path: ".", entry_kind: "all" });
    const src = tree.root.children.find((c) => c.name === "src");
    assert.deepEqual(src.children.map((c) => c.name), ["a.ts"]);

    const found = await invoke("regexp_search", { pattern: "answer = (\\d+)" });
    assert.equal(found.items.length, 1);
    assert.equal(found.items[0].match, "answer = 42");

    const ast = await invoke("ast_grep_search", { language: "typescript", rule: { pattern: "export const $NAME = $VALUE" } });
    assert.equal(ast.items.length, 1);
    assert.equal(ast.items[0].metaVariables.single.VALUE.text, "42");

    // Windows: cmd.exe through PATHEXT (the default mode would need PowerShell 7)
    const listing = windows ? { command: ["cmd", "/c", "dir", "/b"], shell_mode: "direct" } : { command: ["ls"] };
    const exec = await invoke("exec_command", { cwd: "src", ...listing });
    assert.equal(exec.exit_code, 0, exec.stderr);
    assert.equal(exec.stdout, windows ? "a.ts\r\n" : "a.ts\n");

    if (hasGit) {
      const git = await invoke("git_status_summary", {});
      assert.equal(git.repository_root.replaceAll("/", path.sep), root);
      assert.match(git.raw, /\?\? src\//);
    } else {
      // without git on PATH: a typed error that names the missing command
      called.add("git_status_summary");
      const missing = await toolkit.invoke("git_status_summary", {}).then(() => null, (error) => error);
      assert.equal(missing?.name, "GitStatusSummaryError");
      assert.match(missing.message, /command not found: git$/);
    }

    const created = await invoke("task_create_many", { tasks: [{ title: "build" }, { title: "ship" }] });
    const [first, second] = created.tasks.map((t) => t.task_id);
    assert.equal((await invoke("task_list", {})).tasks.length, 2);
    assert.equal((await invoke("task_update", { task_id: second, title: "ship it" })).task.title, "ship it");
    assert.equal((await invoke("task_update_status", { task_id: first, status: "done" })).task.status, "done");
    assert.deepEqual(await invoke("task_validate_completion", {}), { ok: false, remaining: [second] });

    // the sandbox: a path outside the workspace is refused and nothing outside changes
    await assert.rejects(toolkit.invoke("write_file", { path: "../outside.txt", content: "x" }), /Sandbox Violation/);
    assert.equal(fs.readFileSync(path.join(base, "outside.txt"), "utf8"), "CANARY");
    // the positional form never rejects
    const denied = await atn
      .createAgentToolkit(atn.createToolContext({ workspaceRoot: root, policy: { tools: {}, defaultPolicy: "deny" } }))
      .tools.read_file("src/a.ts");
    assert.equal(denied.status, "denied");
  } finally {
    removeTree(base);
  }
  return [...called];
}

/** The tool names the suite must have called: every tool the package defines. */
export function everyTool(atn) {
  return Object.keys(atn.ToolCatalog).sort();
}
