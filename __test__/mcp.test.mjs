// The MCP server and the CLI (bin `agent-tools-native`, js/cli.cjs; README "Use it from an MCP
// client"), driven by real clients: the official SDK's Client over stdio spawning the bin (with
// node, and once with bun), a raw JSON-RPC exchange over the pipes, and the MCP Inspector's CLI.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { builtInCatalog } from "../js/native.cjs";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { tempDir, PROMPTLY_MS } from "./helpers.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(repo, "js", "cli.cjs");
const USER_TOOLS = path.join(repo, "__test__", "mcp_user_tools.mjs");
const BUN = path.join(repo, "node_modules", ".bin", "bun");
/** node, also when the test runner is bun. */
const NODE = process.versions.bun ? execFileSync("sh", ["-c", "command -v node"], { encoding: "utf8" }).trim() : process.execPath;
const CACHE_TOOLS = ["tool_output_cache", "tool_output_cache_grep"];

/** A workspace `<base>/ws` with a sibling `<base>/ws_evil` and an `outside` dir, both holding secrets. */
function fixture() {
  const { dir: base, cleanup } = tempDir("atn-mcp-");
  const root = path.join(base, "ws");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.mkdirSync(path.join(base, "ws_evil"));
  fs.mkdirSync(path.join(base, "outside"));
  fs.writeFileSync(path.join(base, "ws_evil", "secret.txt"), "EVIL-SECRET\n");
  fs.writeFileSync(path.join(base, "outside", "canary.txt"), "CANARY\n");
  fs.writeFileSync(path.join(root, "a.txt"), "hello\nworld\n");
  fs.writeFileSync(path.join(root, "src", "main.js"), 'console.log("hi");\nconst x = 1;\n');
  fs.symlinkSync(path.join(base, "outside"), path.join(root, "link"));
  fs.symlinkSync(path.join(base, "ws_evil", "secret.txt"), path.join(root, "evil-link.txt"));
  return { base, root, cleanup };
}

/** An SDK Client connected to the bin over stdio. */
async function connect(args, { runtime = NODE, roots, cwd = repo } = {}) {
  const transport = new StdioClientTransport({ command: runtime, args: [BIN, "mcp", ...args], cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: "atn-test", version: "1.0.0" }, roots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (roots) {
    // `roots`: the directories, or a function giving them (it may throw) on each roots/list.
    const list = () => (typeof roots === "function" ? roots() : roots);
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: list().map((r) => ({ uri: pathToFileURL(r).href })) }));
  }
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, close: () => client.close() };
}

/** The error a failed call carries: `{ code, message, denied? }` (isError result, JSON text). */
function errorOf(result) {
  assert.equal(result.isError, true, `expected an error result: ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined);
  return JSON.parse(result.content[0].text).error;
}

/** A successful built-in call: structured content that the text content repeats. */
function okOf(result) {
  assert.ok(!result.isError, `expected success: ${JSON.stringify(result)}`);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A killed child not reaped yet (a zombie) is gone too.
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

async function until(check, ms, what) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("MCP server over stdio (SDK client)", () => {
  let fx;
  let mcp;
  before(async () => {
    fx = fixture();
    execFileSync("git", ["init", "-q"], { cwd: fx.root });
    mcp = await connect(["--root", fx.root, "--max-output-chars", "4000"]);
  });
  after(async () => {
    await mcp?.close();
    fx?.cleanup();
  });

  test("tools/list: getAllowedTools' names, descriptions and input schemas, output schemas, annotations", async () => {
    const { tools } = await mcp.client.listTools();
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: fx.root, policy: { tools: {}, defaultPolicy: "allow" } }));
    const expected = toolkit.getAllowedTools().map((d) => d.function);
    assert.deepEqual(tools.map((t) => t.name), [...expected.map((f) => f.name), ...CACHE_TOOLS]);
    for (const fn of expected) {
      const tool = tools.find((t) => t.name === fn.name);
      assert.equal(tool.description, fn.description);
      assert.deepEqual(tool.inputSchema, fn.parameters);
      assert.equal(tool.outputSchema?.type, "object", `${fn.name} has an output schema`);
    }
    const effects = Object.fromEntries(builtInCatalog().map((e) => [e.name, e.effect]));
    for (const tool of tools.filter((t) => effects[t.name])) {
      const effect = effects[tool.name];
      assert.equal(tool.annotations.readOnlyHint, effect === "read", tool.name);
      assert.equal(tool.annotations.destructiveHint, effect === "write" || effect === "exec", tool.name);
      assert.equal(tool.annotations.openWorldHint, effect === "exec", tool.name);
    }
    assert.equal(tools.find((t) => t.name === "tool_output_cache").annotations.readOnlyHint, true);
  });

  test("every built-in tool is called; structured content matches its output schema, which has teeth", async () => {
    const { tools } = await mcp.client.listTools();
    const ajv = new AjvJsonSchemaValidator();
    const called = new Set();
    const call = async (name, args) => {
      const output = okOf(await mcp.client.callTool({ name, arguments: args }));
      const validate = ajv.getValidator(tools.find((t) => t.name === name).outputSchema);
      assert.equal(validate(output).valid, true, `${name}: ${validate(output).errorMessage}`);
      // The schema rejects the output with a required field gone or of the wrong type.
      const [first] = Object.keys(output);
      const { [first]: _, ...missing } = output;
      assert.equal(validate(missing).valid, false, `${name} without ${first}`);
      assert.equal(validate({ ...output, [first]: [[[]]] }).valid, false, `${name} with a bad ${first}`);
      called.add(name);
      return output;
    };
    assert.deepEqual(await call("write_file", { path: "b.txt", content: "one\ntwo\n" }), {
      path: "b.txt",
      created: true,
      bytes_written: 8,
    });
    assert.equal((await call("read_file", { path: "a.txt" })).content, "hello\nworld\n");
    const patched = await call("apply_patch", { filePath: "b.txt", patch: "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n" });
    assert.equal(patched.changed, true);
    assert.equal(fs.readFileSync(path.join(fx.root, "b.txt"), "utf8"), "one\nthree\n");
    assert.ok((await call("tree", { path: ".", entry_kind: "all" })).total_files >= 3);
    const found = await call("regexp_search", { pattern: "wor.d" });
    assert.deepEqual(found.items.map((i) => [i.path, i.line]), [["a.txt", 2]]);
    const ast = await call("ast_grep_search", { language: "javascript", rule: { pattern: "console.log($A)" } });
    assert.equal(ast.items.length, 1);
    const exec = await call("exec_command", { cwd: ".", command: ["sh", "-c", "echo out; echo err >&2; exit 3"] });
    assert.deepEqual([exec.stdout, exec.stderr, exec.exit_code], ["out\n", "err\n", 3]);
    assert.match((await call("git_status_summary", {})).raw, /b\.txt/);
    const created = await call("task_create_many", { tasks: [{ title: "first" }, { title: "second" }] });
    const [t1, t2] = created.tasks.map((t) => t.task_id);
    assert.equal((await call("task_list", {})).tasks.length, 2);
    assert.equal((await call("task_update", { task_id: t1, title: "renamed" })).task.title, "renamed");
    await call("task_update_status", { task_id: t1, status: "done" });
    assert.deepEqual(await call("task_validate_completion", {}), { ok: false, remaining: [t2] });
    assert.deepEqual([...called].sort(), builtInCatalog().map((e) => e.name).sort());
  });

  test("failures are isError results with code and message, never protocol errors", async () => {
    const missing = errorOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "nope.txt" } }));
    assert.equal(missing.code, "NOT_FOUND");
    assert.match(missing.message, /nope\.txt/);
    assert.equal(errorOf(await mcp.client.callTool({ name: "no_such_tool", arguments: {} })).code, "TOOL_NOT_FOUND");
    assert.equal(errorOf(await mcp.client.callTool({ name: "read_file", arguments: {} })).code, "INVALID_ARGUMENT");
    const patch = errorOf(await mcp.client.callTool({ name: "apply_patch", arguments: { filePath: "a.txt", patch: "garbage" } }));
    assert.equal(patch.code, "APPLY_FAILED");
    // The server is still there.
    assert.equal(okOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).path, "a.txt");
  });

  test("escape attempts are denied by the sandbox: .., absolute paths, symlinks out, the root's prefix sibling", async () => {
    const attempts = [
      ["read_file", { path: "../ws_evil/secret.txt" }],
      ["read_file", { path: path.join(fx.base, "ws_evil", "secret.txt") }],
      ["read_file", { path: `${fx.root}_evil/secret.txt` }],
      ["read_file", { path: "link/canary.txt" }],
      ["read_file", { path: "evil-link.txt" }],
      ["write_file", { path: "link/planted.txt", content: "x" }],
      ["write_file", { path: "../ws_evil/planted.txt", content: "x" }],
      ["tree", { path: "../ws_evil" }],
      ["regexp_search", { pattern: "SECRET", root_path: `${fx.root}_evil` }],
      ["exec_command", { cwd: "../ws_evil", command: ["cat", "secret.txt"] }],
    ];
    for (const [name, args] of attempts) {
      const result = await mcp.client.callTool({ name, arguments: args });
      const error = errorOf(result);
      assert.equal(error.denied, "sandbox", `${name} ${JSON.stringify(args)}: ${JSON.stringify(error)}`);
      assert.equal(error.code, "SANDBOX_VIOLATION");
      assert.doesNotMatch(result.content[0].text, /EVIL-SECRET|CANARY/);
    }
    assert.ok(!fs.existsSync(path.join(fx.base, "outside", "planted.txt")));
    assert.ok(!fs.existsSync(path.join(fx.base, "ws_evil", "planted.txt")));
  });

  test("a large output goes to the tool-output cache: a first page and a ref_id to page and grep", async () => {
    const result = await mcp.client.callTool({ name: "exec_command", arguments: { cwd: ".", command: ["seq", "1", "3000"] } });
    assert.ok(!result.isError);
    assert.ok(result.content[0].text.length < 4000 + 1000, "the client gets a page, not the output");
    const { output_ref: ref, total_chars: total, page } = result.structuredContent;
    assert.match(ref, /^out-\d+$/);
    assert.ok(total > 4000);
    assert.match(result.content[0].text, new RegExp(`ref_id "${ref}"`));
    // The cached text: the other fields as indented JSON, then stdout written out as its lines.
    assert.match(page, /^\s+1\t\{$/m);
    assert.match(page, /--- stdout \(3001 lines\) ---/);
    const next = await mcp.client.callTool({ name: "tool_output_cache", arguments: { ref_id: ref, offset: 201, limit: 3 } });
    assert.ok(!next.isError);
    const lines = next.content[0].text.split("\n").filter((l) => /^\s*\d+\t/.test(l)).map((l) => l.trim().split("\t"));
    assert.match(next.content[0].text, /more lines; continue with offset=204/);
    assert.deepEqual(lines.map((l) => l[0]), ["201", "202", "203"]);
    const first = Number(lines[0][1]);
    assert.deepEqual(lines.map((l) => Number(l[1])), [first, first + 1, first + 2], "consecutive lines of seq's output");
    const grep = await mcp.client.callTool({ name: "tool_output_cache_grep", arguments: { ref_id: ref, pattern: "2999" } });
    assert.match(grep.content[0].text, /2999/);
    // A page of the cache over the limit comes whole, not as another ref_id.
    const big = await mcp.client.callTool({ name: "tool_output_cache", arguments: { ref_id: ref, offset: 1, limit: 2000 } });
    assert.ok(big.content[0].text.length > 4000);
    assert.doesNotMatch(big.content[0].text, /ref_id "out-/);
  });

  test("notifications/cancelled kills the exec_command's whole process group", { timeout: 120_000 }, async () => {
    const pidFile = path.join(fx.root, "pids.txt");
    const controller = new AbortController();
    const call = mcp.client.callTool(
      { name: "exec_command", arguments: { cwd: ".", command: ["sh", "-c", "sleep 60 & echo $$ $! > pids.txt.tmp; mv pids.txt.tmp pids.txt; wait"], timeout_ms: 120_000 } },
      undefined,
      { signal: controller.signal },
    );
    await until(() => fs.existsSync(pidFile), 30_000, "the command to start");
    const pids = fs.readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    assert.equal(pids.length, 2);
    assert.ok(pids.every(alive), "the shell and its background sleep run");
    controller.abort();
    await assert.rejects(call);
    await until(() => !pids.some(alive), 20_000, "the process group to be killed");
    // The server goes on serving.
    assert.equal(okOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).path, "a.txt");
  });

  test("a progressToken gets progress notifications while a call runs", { timeout: 60_000 }, async () => {
    const seen = [];
    const result = await mcp.client.callTool({ name: "exec_command", arguments: { cwd: ".", command: ["sleep", "2"] } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    assert.equal(okOf(result).exit_code, 0);
    assert.ok(seen.length >= 2, `progress notifications: ${JSON.stringify(seen)}`);
    assert.ok(seen[1].progress > seen[0].progress);
    assert.match(seen[0].message, /exec_command: running/);
  });
});

describe("MCP server: options", () => {
  let fx;
  before(() => {
    fx = fixture();
  });
  after(() => fx?.cleanup());

  test("--write-scope read-only refuses writes (scope) and still reads", async () => {
    const mcp = await connect(["--root", fx.root, "--write-scope", "read-only"]);
    try {
      for (const [name, args] of [
        ["write_file", { path: "new.txt", content: "x" }],
        ["apply_patch", { filePath: "a.txt", patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+bye\n" }],
      ]) {
        const error = errorOf(await mcp.client.callTool({ name, arguments: args }));
        assert.equal(error.denied, "scope", name);
        assert.match(error.message, /read-only/);
      }
      assert.ok(!fs.existsSync(path.join(fx.root, "new.txt")));
      assert.equal(fs.readFileSync(path.join(fx.root, "a.txt"), "utf8"), "hello\nworld\n");
      assert.equal(okOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).content, "hello\nworld\n");
    } finally {
      await mcp.close();
    }
  });

  test("--allow / --deny: only the allowed tools are listed; a denied call says policy", async () => {
    const mcp = await connect(["--root", fx.root, "--allow", "read_file,tree,exec_command", "--deny", "exec_command"]);
    try {
      const { tools } = await mcp.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["tree", "read_file", ...CACHE_TOOLS]);
      const error = errorOf(await mcp.client.callTool({ name: "exec_command", arguments: { cwd: ".", command: ["true"] } }));
      assert.deepEqual([error.code, error.denied], ["POLICY_DENIED", "policy"]);
      assert.equal(errorOf(await mcp.client.callTool({ name: "write_file", arguments: { path: "x", content: "" } })).denied, "policy");
    } finally {
      await mcp.close();
    }
  });

  test("--tools serves user tools made with defineTool; their failures are error results", async () => {
    const mcp = await connect(["--root", fx.root, "--tools", USER_TOOLS]);
    try {
      const { tools } = await mcp.client.listTools();
      assert.deepEqual(tools.slice(-4).map((t) => t.name), ["shout", "always_fails", ...CACHE_TOOLS]);
      assert.deepEqual(tools.find((t) => t.name === "shout").annotations, { readOnlyHint: true });
      assert.deepEqual(tools.find((t) => t.name === "always_fails").annotations, { readOnlyHint: false });
      assert.equal(tools.find((t) => t.name === "shout").outputSchema, undefined);
      const shout = await mcp.client.callTool({ name: "shout", arguments: { text: "hi" } });
      assert.deepEqual(shout.structuredContent, { loud: "HI", length: 2 });
      const failed = errorOf(await mcp.client.callTool({ name: "always_fails", arguments: {} }));
      assert.deepEqual(failed, { code: "BROKEN", message: "this tool always fails" });
      assert.equal(errorOf(await mcp.client.callTool({ name: "shout", arguments: { text: 3 } })).code, "INVALID_ARGUMENT");
    } finally {
      await mcp.close();
    }
  });

  test("without --root the workspace is the client's first MCP root; without either a call fails cleanly", async () => {
    const other = tempDir("atn-mcp-other-");
    const mcp = await connect([], { roots: [fx.root, other.dir], cwd: other.dir });
    try {
      assert.equal(okOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).content, "hello\nworld\n");
      assert.equal(errorOf(await mcp.client.callTool({ name: "read_file", arguments: { path: `${other.dir}/x` } })).denied, "sandbox");
    } finally {
      await mcp.close();
      other.cleanup();
    }
    // A failed roots/list is a clean error and is asked again; a roots change moves the workspace.
    let answer = () => {
      throw new Error("not yet");
    };
    const moving = await connect([], { roots: () => answer() });
    try {
      const failed = errorOf(await moving.client.callTool({ name: "read_file", arguments: { path: "a.txt" } }));
      assert.equal(failed.code, "NO_WORKSPACE_ROOT");
      assert.match(failed.message, /roots\/list failed/);
      answer = () => [fx.root];
      assert.equal(okOf(await moving.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).content, "hello\nworld\n");
      fs.writeFileSync(path.join(fx.base, "outside", "a.txt"), "moved\n");
      answer = () => [path.join(fx.base, "outside")];
      await moving.client.sendRootsListChanged();
      let content;
      for (let i = 0; i < 40 && content !== "moved\n"; i++) {
        content = okOf(await moving.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).content;
        if (content !== "moved\n") await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(content, "moved\n");
    } finally {
      await moving.close();
      fs.rmSync(path.join(fx.base, "outside", "a.txt"), { force: true });
    }
    const rootless = await connect([]);
    try {
      assert.equal(errorOf(await rootless.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).code, "NO_WORKSPACE_ROOT");
    } finally {
      await rootless.close();
    }
  });

  test("the bin runs under bun too", async () => {
    const mcp = await connect(["--root", fx.root], { runtime: BUN });
    try {
      assert.ok((await mcp.client.listTools()).tools.some((t) => t.name === "regexp_search"));
      assert.equal(okOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).content, "hello\nworld\n");
      assert.equal(errorOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "../ws_evil/secret.txt" } })).denied, "sandbox");
    } finally {
      await mcp.close();
    }
  });

  test("only protocol on stdout; the server exits 0 when stdin closes", { timeout: 120_000 }, async () => {
    const child = spawn(NODE, [BIN, "mcp", "--root", fx.root], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const send = (msg) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...msg })}\n`);
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: "read_file", arguments: { path: "a.txt" } } });
    await until(() => stdout.split("\n").filter(Boolean).length >= 2, 30_000, "two responses");
    const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    const started = Date.now();
    child.stdin.end();
    assert.equal(await exited, 0);
    assert.ok(Date.now() - started < PROMPTLY_MS, "exits promptly");
    const lines = stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => [l.jsonrpc, l.id]), [["2.0", 1], ["2.0", 2]]);
    assert.equal(lines[1].result.structuredContent.content, "hello\nworld\n");
    assert.match(stderr, /MCP server on stdio/);
  });

  test("stdin closing during a running exec_command: the command is killed and the server exits 0", { timeout: 120_000 }, async () => {
    const child = spawn(NODE, [BIN, "mcp", "--root", fx.root], { stdio: ["pipe", "pipe", "ignore"] });
    const send = (msg) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...msg })}\n`);
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: "exec_command", arguments: { cwd: ".", command: ["sh", "-c", "sleep 60 & echo $$ $! > busy.tmp; mv busy.tmp busy.pid; wait"] } } });
    const pidFile = path.join(fx.root, "busy.pid");
    await until(() => fs.existsSync(pidFile), 30_000, "the command to start");
    const pids = fs.readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    assert.ok(pids.length === 2 && pids.every(alive));
    const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    child.stdin.end();
    assert.equal(await exited, 0);
    await until(() => !pids.some(alive), 20_000, "the shell and its child to be killed");
    fs.rmSync(pidFile);
  });
});

// `npx @modelcontextprotocol/inspector --cli …` (v1) runs the inspector's cli/build/cli.js, the
// file the package @modelcontextprotocol/inspector-cli publishes as build/cli.js: that package
// alone is the devDependency (the whole inspector brings its web UI, and v2 needs Node ≥ 22).
describe("MCP Inspector CLI (a third-party client)", () => {
  const INSPECTOR = path.join(repo, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js");
  let fx;
  before(() => {
    fx = fixture();
  });
  after(() => fx?.cleanup());
  // Each test runs one to three processes of a fixed job (up to 2 s on an idle 2-core machine); the
  // timeouts only catch a hang.
  // The inspector reads its own package.json through a path relative to the working directory:
  // it runs from its build directory.
  const inspect = (...args) =>
    spawnSync(NODE, [INSPECTOR, "--cli", NODE, BIN, "mcp", "--root", fx.root, ...args], {
      cwd: path.dirname(INSPECTOR),
      encoding: "utf8",
      timeout: 60_000,
    });

  test("lists the tools", { timeout: 120_000 }, () => {
    const run = inspect("--method", "tools/list");
    assert.equal(run.status, 0, run.stderr);
    const { tools } = JSON.parse(run.stdout);
    assert.ok(tools.length >= 13);
    assert.ok(tools.find((t) => t.name === "read_file").outputSchema);
  });

  test("calls read_file, and gets a denial as an error result", { timeout: 120_000 }, () => {
    const ok = inspect("--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=a.txt");
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).structuredContent.content, "hello\nworld\n");
    const denied = inspect("--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=../ws_evil/secret.txt");
    const result = JSON.parse(denied.stdout);
    assert.equal(result.isError, true);
    assert.equal(JSON.parse(result.content[0].text).error.denied, "sandbox");
  });
});

describe("CLI", () => {
  let fx;
  before(() => {
    fx = fixture();
  });
  after(() => fx?.cleanup());
  const cli = (...args) => spawnSync(NODE, [BIN, ...args], { cwd: fx.root, encoding: "utf8" });

  test("--version and --help", { timeout: 120_000 }, () => {
    const version = cli("--version");
    assert.equal(version.status, 0);
    assert.equal(version.stdout.trim(), JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")).version);
    const help = cli("--help");
    assert.equal(help.status, 0);
    for (const option of ["mcp", "tools", "call", "--root", "--write-scope", "--allow", "--deny", "--tools"]) assert.match(help.stdout, new RegExp(option));
  });

  test("tools: the allowed tools, one a line", { timeout: 120_000 }, () => {
    const run = cli("tools", "--deny", "exec_command");
    assert.equal(run.status, 0);
    const names = run.stdout.trim().split("\n").map((l) => l.split("\t")[0]);
    assert.deepEqual(names, builtInCatalog().map((e) => e.name).filter((n) => n !== "exec_command").sort((a, b) => names.indexOf(a) - names.indexOf(b)));
    assert.equal(names.length, builtInCatalog().length - 1);
  });

  test("call: result JSON and exit 0; tool error exit 1; bad usage exit 2", { timeout: 120_000 }, () => {
    const ok = cli("call", "read_file", '{"path":"a.txt"}');
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).content, "hello\nworld\n");
    const rooted = spawnSync(NODE, [BIN, "call", "read_file", '{"path":"a.txt"}', "--root", fx.root], { cwd: fx.base, encoding: "utf8" });
    assert.equal(JSON.parse(rooted.stdout).content, "hello\nworld\n");
    const escape = cli("call", "read_file", '{"path":"../ws_evil/secret.txt"}');
    assert.equal(escape.status, 1);
    assert.equal(JSON.parse(escape.stdout).error.denied, "sandbox");
    const readOnly = cli("call", "write_file", '{"path":"n.txt","content":"x"}', "--write-scope", "read-only");
    assert.equal(readOnly.status, 1);
    assert.equal(JSON.parse(readOnly.stdout).error.denied, "scope");
    assert.ok(!fs.existsSync(path.join(fx.root, "n.txt")));
    for (const bad of [["call"], ["call", "read_file", "{not json"], ["call", "no_such_tool"], ["frobnicate"], ["tools", "--write-scope", "everything"], ["tools", "--exec-sandbox", "on"], ["tools", "--network", "none"], ["call", "tree", "--root", "a.txt"], ["mcp", "--root", "no-such-dir"], []]) {
      const run = cli(...bad);
      assert.equal(run.status, 2, `${bad.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /--help/);
    }
  });

  test("--exec-sandbox required confines exec_command to the write scope (Landlock)", { timeout: 120_000 }, () => {
    const outside = path.join(fx.base, "cli-sandbox-canary.txt");
    const script = `echo in > inside.txt; echo out > ${JSON.stringify(outside)}; true`;
    const run = cli("call", "exec_command", JSON.stringify({ cwd: ".", command: ["sh", "-c", script] }), "--exec-sandbox", "required", "--network", "deny");
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.sandbox.kind, "landlock");
    assert.equal(result.sandbox.write, "workspace");
    assert.equal(result.sandbox.network, "denied");
    assert.equal(fs.readFileSync(path.join(fx.root, "inside.txt"), "utf8"), "in\n");
    assert.ok(!fs.existsSync(outside), "nothing written outside the workspace");
    assert.match(result.stderr, /Permission denied/);
  });
});
