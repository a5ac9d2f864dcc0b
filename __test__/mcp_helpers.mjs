// What the MCP suites share: the bin, the node that runs it, a client connected to it over stdio,
// and the workspace they attack.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { isWineSpawnGlitch, runsOn, tempDir } from "./helpers.mjs";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const BIN = path.join(repo, "js", "cli.cjs");
/** node, also when the test runner is bun. */
export const NODE = !process.versions.bun ? process.execPath : runsOn(["unix"]) ? execFileSync("sh", ["-c", "command -v node"], { encoding: "utf8" }).trim() : "node";
/**
 * The bun of node_modules (the package's binary is bin/bun.exe on every platform), or the one
 * $ATN_TEST_BUN names: scripts/test-windows.sh gives wine's Windows bun there.
 */
export const BUN = process.env.ATN_TEST_BUN || path.join(repo, "node_modules", "bun", "bin", "bun.exe");
export const CACHE_TOOLS = ["tool_output_cache", "tool_output_cache_grep"];

/**
 * An SDK client connected over stdio to `runtime BIN mcp ...args`: `{ client, transport, stderr(),
 * close() }`. `setup(client)` runs before the connection (request handlers, say); `clientOptions`
 * are the Client's (its capabilities). A start wine fails (`isWineSpawnGlitch`) is tried
 * again, up to three times in all.
 */
export async function connectStdio(args, { runtime = NODE, cwd = repo, env, clientOptions = {}, setup } = {}) {
  for (let attempt = 1; ; attempt++) {
    const transport = new StdioClientTransport({ command: runtime, args: [BIN, "mcp", ...args], cwd, env, stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const client = new Client({ name: "atn-test", version: "1.0.0" }, clientOptions);
    setup?.(client);
    try {
      await client.connect(transport);
    } catch (error) {
      if (isWineSpawnGlitch(error) && attempt < 3) continue;
      throw error;
    }
    return { client, transport, stderr: () => stderr, close: () => client.close() };
  }
}

/**
 * A workspace `<base>/ws` holding `files` (relative path → text), with a sibling `<base>/ws_evil`
 * and an `outside` dir, both holding secrets; where symlinks can be made (`links`), `ws/link` points to
 * `outside` and `ws/evil-link.txt` to the sibling's secret.
 */
export function mcpFixture(prefix, files) {
  const { dir: base, cleanup } = tempDir(prefix);
  const root = path.join(base, "ws");
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(base, "ws_evil"));
  fs.mkdirSync(path.join(base, "outside"));
  fs.writeFileSync(path.join(base, "ws_evil", "secret.txt"), "EVIL-SECRET\n");
  fs.writeFileSync(path.join(base, "outside", "canary.txt"), "CANARY\n");
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  const links = runsOn(["unix"]);
  if (links) {
    fs.symlinkSync(path.join(base, "outside"), path.join(root, "link"));
    fs.symlinkSync(path.join(base, "ws_evil", "secret.txt"), path.join(root, "evil-link.txt"));
  }
  return { base, root, links, cleanup };
}

/** The error a failed call carries: `{ code, message, denied? }` (isError result, JSON text). */
export function errorOf(result) {
  assert.equal(result.isError, true, `expected an error result: ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined);
  return JSON.parse(result.content[0].text).error;
}

/** A successful built-in call: structured content that the text content repeats. */
export function okOf(result) {
  assert.ok(!result.isError, `expected success: ${JSON.stringify(result)}`);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

/** Whether process `pid` runs (a killed child not reaped yet, a zombie, is gone too). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Waits until `check()` (sync or async) holds, polling every 25 ms; throws after `ms`. */
export async function until(check, ms, what) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Calls every built-in tool once through `call(name, args)` (a transport's call returning the
 * structured output) in the fixture's workspace `root` (mcpFixture with `a.txt` and
 * `src/main.js`, a git repository) and checks each output.
 */
export async function callEveryBuiltIn(call, root) {
  assert.deepEqual(await call("write_file", { path: "b.txt", content: "one\ntwo\n" }), { path: "b.txt", created: true, bytes_written: 8 });
  assert.equal((await call("read_file", { path: "a.txt" })).content, "hello\nworld\n");
  const patched = await call("apply_patch", { filePath: "b.txt", patch: "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n" });
  assert.equal(patched.changed, true);
  assert.equal(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "one\nthree\n");
  assert.ok((await call("tree", { path: ".", entry_kind: "all" })).total_files >= 3);
  assert.deepEqual((await call("regexp_search", { pattern: "wor.d" })).items.map((i) => [i.path, i.line]), [["a.txt", 2]]);
  assert.equal((await call("ast_grep_search", { language: "javascript", rule: { pattern: "console.log($A)" } })).items.length, 1);
  const exec = await call("exec_command", { cwd: ".", command: ["sh", "-c", "echo out; echo err >&2; exit 3"] });
  assert.deepEqual([exec.stdout, exec.stderr, exec.exit_code], ["out\n", "err\n", 3]);
  assert.match((await call("git_status_summary", {})).raw, /b\.txt/);
  const created = await call("task_create_many", { tasks: [{ title: "first" }, { title: "second" }] });
  const [t1, t2] = created.tasks.map((t) => t.task_id);
  assert.equal((await call("task_list", {})).tasks.length, 2);
  assert.equal((await call("task_update", { task_id: t1, title: "renamed" })).task.title, "renamed");
  await call("task_update_status", { task_id: t1, status: "done" });
  assert.deepEqual(await call("task_validate_completion", {}), { ok: false, remaining: [t2] });
}

/**
 * An exec_command called with a progress token through `client` gets progress notifications
 * while it runs: the command (in the workspace `root`) waits until the second has come, however
 * long that takes (at most its 120 s timeout, which fails the check).
 */
export async function progressIsNotified(client, root) {
  const seen = [];
  const release = path.join(root, "progress-seen");
  fs.rmSync(release, { force: true });
  try {
    const command = ["sh", "-c", "while [ ! -e progress-seen ]; do sleep 0.05; done"];
    const result = await client.callTool({ name: "exec_command", arguments: { cwd: ".", command, timeout_ms: 120_000 } }, undefined, {
      timeout: 150_000,
      onprogress: (p) => {
        seen.push(p);
        if (seen.length === 2) fs.writeFileSync(release, "");
      },
    });
    assert.deepEqual([okOf(result).exit_code, okOf(result).timed_out], [0, false], "the command ended when the second notification came");
  } finally {
    fs.rmSync(release, { force: true });
  }
  assert.ok(seen.length >= 2, `progress notifications: ${JSON.stringify(seen)}`);
  assert.ok(seen[1].progress > seen[0].progress);
  assert.match(seen[0].message, /exec_command: running/);
}

/**
 * Starts an exec_command whose shell leaves a background `sleep` in its process group, cancels
 * the call through `client` once both run (`notifications/cancelled`), and waits until both are
 * gone: cancellation kills the whole group.
 */
export async function cancelKillsTheProcessGroup(client, root) {
  const pidFile = path.join(root, "pids.txt");
  const controller = new AbortController();
  const call = client.callTool(
    { name: "exec_command", arguments: { cwd: ".", command: ["sh", "-c", "sleep 300 & echo $$ $! > pids.txt.tmp; mv pids.txt.tmp pids.txt; wait"], timeout_ms: 120_000 } },
    undefined,
    { signal: controller.signal },
  );
  await until(() => fs.existsSync(pidFile), 30_000, "the command to start");
  const pids = fs.readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
  assert.equal(pids.length, 2);
  assert.ok(pids.every(alive), "the shell and its background sleep run");
  controller.abort();
  await assert.rejects(call);
  // the sleep would live 300 s: a killed group is gone long before
  try {
    await until(() => !pids.some(alive), 60_000, "the process group to be killed");
  } finally {
    for (const pid of pids.filter(alive)) process.kill(pid, "SIGKILL");
  }
  fs.rmSync(pidFile);
}

/**
 * The bin serving MCP over HTTP on a free port (`runtime`: node or bun; `token`: the
 * AGENT_TOOLS_NATIVE_TOKEN it gets, null for none): `url` (parsed from its start-up line), `stderr()`,
 * `exited` (its exit code and signal), `kill(signal)`.
 */
export async function startHttpServer(args, { runtime, token = null, env = {} }) {
  const childEnv = { ...process.env, ...env };
  delete childEnv.AGENT_TOOLS_NATIVE_TOKEN;
  if (token !== null) childEnv.AGENT_TOOLS_NATIVE_TOKEN = token;
  const child = spawn(runtime, [BIN, "mcp", "--http", "127.0.0.1:0", ...args], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${stderr}`)), 60_000);
    child.stderr.on("data", (d) => {
      stderr += d;
      const match = /MCP server on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}: ${stderr}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
    kill: (signal = "SIGTERM") => child.kill(signal),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
