// The MCP server and the CLI (bin `agent-tools-native`, js/cli.cjs; README "Use it from an MCP
// client"), driven by real clients: the official SDK's Client over stdio spawning the bin (with
// node, and once with bun), a raw JSON-RPC exchange over the pipes, and the MCP Inspector's CLI.
import { test, describe, before, after } from "./harness.mjs";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { failureOf, parseArgs } from "../js/cli.cjs";
import { refusalOf } from "../js/errors.cjs";
import { TopLevelIdScanner } from "../js/mcp_stdio.cjs";
import { builtInCatalog } from "../js/native.cjs";
import { createAgentToolkit, createToolContext, defineTool, ToolCatalog } from "agent-tools-native";
import { z } from "zod";
import { tempDir, PROMPTLY_MS, onlyOn, NEEDS, underWine } from "./helpers.mjs";
import { alive, BIN, BUN, CACHE_TOOLS, callEveryBuiltIn, cancelKillsTheProcessGroup, connectStdio, errorOf, mcpFixture, NODE, okOf, progressIsNotified, repo, until } from "./mcp_helpers.mjs";

const USER_TOOLS = path.join(repo, "__test__", "mcp_user_tools.mjs");

function fixture() {
  return mcpFixture("atn-mcp-", { "a.txt": "hello\nworld\n", "src/main.js": 'console.log("hi");\nconst x = 1;\n' });
}

/** An SDK Client connected to the bin over stdio; `roots`: the directories, or a function giving them (it may throw) on each roots/list. */
function connect(args, { runtime = NODE, roots, cwd = repo } = {}) {
  if (!roots) return connectStdio(args, { runtime, cwd });
  const list = () => (typeof roots === "function" ? roots() : roots);
  return connectStdio(args, {
    runtime,
    cwd,
    clientOptions: { capabilities: { roots: { listChanged: true } } },
    setup: (client) => client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: list().map((r) => ({ uri: pathToFileURL(r).href })) })),
  });
}

describe("MCP server over stdio (SDK client)", () => {
  let fx;
  let mcp;
  before(async () => {
    fx = fixture();
    // for git_status_summary in the every-built-in test (wine's prefix has no git)
    if (!underWine) execFileSync("git", ["init", "-q"], { cwd: fx.root });
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

  test("every built-in tool is called; structured content matches its output schema, which has teeth", onlyOn(["unix"], NEEDS.sh), async () => {
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
    await callEveryBuiltIn(call, fx.root);
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

  test("escape attempts are denied by the sandbox: .., absolute paths, symlinks out, the root's prefix sibling", onlyOn(["unix"], NEEDS.symlinks), async () => {
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

  test("a large output goes to the tool-output cache: a first page and a ref_id to page and grep", onlyOn(["unix"], NEEDS.sh), async () => {
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

  test("notifications/cancelled kills the exec_command's whole process group", { ...onlyOn(["linux"], NEEDS.processGroup), timeout: 120_000 }, async () => {
    await cancelKillsTheProcessGroup(mcp.client, fx.root);
    // The server goes on serving.
    assert.equal(okOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).path, "a.txt");
  });

  test("a progressToken gets progress notifications while a call runs", { ...onlyOn(["unix"], NEEDS.sh), timeout: 240_000 }, async () => {
    await progressIsNotified(mcp.client, fx.root);
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

  test("without --root the workspace is the client's first MCP root; without either a call fails cleanly", { timeout: 120_000 }, async () => {
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
      // The server asks for the roots again and moves when the answer comes: calls read the old
      // root until then.
      let content;
      await until(async () => (content = okOf(await moving.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).content) === "moved\n", 30_000, "the workspace to move");
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

  test("stdin closing during a running exec_command: the command is killed and the server exits 0", { ...onlyOn(["linux"], NEEDS.processGroup), timeout: 120_000 }, async () => {
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

/**
 * The bin over raw pipes: `send` writes one line as it is, `next` waits for the next line of
 * stdout (parsed), `rss` reads the server's resident set from /proc.
 */
async function rawServer(args) {
  const child = spawn(NODE, [BIN, "mcp", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const lines = [];
  let partial = "";
  let stderr = "";
  // Woken on each line of stdout and on exit.
  let wake = () => {};
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (data) => {
    partial += data;
    for (let nl = partial.indexOf("\n"); nl !== -1; nl = partial.indexOf("\n")) {
      lines.push(partial.slice(0, nl));
      partial = partial.slice(nl + 1);
      wake();
    }
  });
  child.stderr.on("data", (data) => {
    stderr += data;
  });
  // A write into a server that already exited must fail the test through `next`, not crash it.
  child.stdin.on("error", () => {});
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  exited.then(() => wake());
  let taken = 0;
  const server = {
    child,
    stderr: () => stderr,
    send: (line) => new Promise((resolve) => child.stdin.write(`${line}\n`, () => resolve())),
    next: async (what) => {
      if (lines.length <= taken && child.exitCode === null) {
        let timer;
        await new Promise((resolve, reject) => {
          wake = resolve;
          timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 60_000);
        }).finally(() => clearTimeout(timer));
      }
      assert.ok(lines.length > taken, `${what}: the server exited with ${child.exitCode} and no answer; stderr: ${stderr}`);
      const line = lines[taken++];
      return JSON.parse(line);
    },
    /** Sends a message (an object, as JSON) or a raw line and returns the next response. */
    ask: async (message, what = String(message).slice(0, 80)) => {
      await server.send(typeof message === "string" ? message : JSON.stringify(message));
      return server.next(what);
    },
    rss: () => Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) * 1024,
    close: async () => {
      child.stdin.end();
      return exited;
    },
  };
  const init = await server.ask({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  });
  assert.equal(init.result.serverInfo.name, "agent-tools-native");
  await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  return server;
}

/** The error of a JSON-RPC error response: `[id, code, message]`. */
function rpcError(response) {
  assert.ok(response.error, `expected an error response: ${JSON.stringify(response)}`);
  assert.equal(response.jsonrpc, "2.0");
  assert.ok(!("result" in response));
  return [response.id, response.error.code, response.error.message];
}

describe("the server's error results: a refusal is known by what the toolkit recorded, never by its message", () => {
  let fx;
  before(() => {
    fx = fixture();
  });
  after(() => fx?.cleanup());
  const rejection = (promise) =>
    promise.then(
      (value) => assert.fail(`expected a rejection, got ${JSON.stringify(value)}`),
      (error) => error,
    );
  const WRITE_SCOPE = '[Sandbox Violation] Write operation denied. Current mode: "read-only"';

  test("policy, write scope and sandbox refusals of invoke each get their code; the errors keep agent-tools-ts's shape", async () => {
    const policy = { tools: { exec_command: "deny" }, defaultPolicy: "allow" };
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: fx.root, writeScope: "read-only", policy }));
    const scope = await rejection(toolkit.invoke("write_file", { path: "x", content: "" }));
    assert.deepEqual(failureOf(scope), { code: "WRITE_SCOPE_DENIED", message: WRITE_SCOPE, denied: "scope" });
    assert.deepEqual(Object.keys(scope), ["name", "code", "tool_name", "rawMessage"]);
    assert.deepEqual(Object.getOwnPropertySymbols(scope), []);
    assert.equal(scope.message, `TOOL_NOT_ALLOWED: ${WRITE_SCOPE}`);
    const denied = await rejection(toolkit.invoke("exec_command", { cwd: ".", command: ["true"] }));
    assert.deepEqual(failureOf(denied), { code: "POLICY_DENIED", message: '[Security Policy] Access denied for tool: "exec_command"', denied: "policy" });
    // a path whose text reads like a write-scope denial is still a path outside the workspace
    const outside = await rejection(toolkit.invoke("read_file", { path: "../[Sandbox Violation] Write operation denied" }));
    assert.deepEqual(failureOf(outside), {
      code: "SANDBOX_VIOLATION",
      message: '[Sandbox Violation] Attempted to access path outside of workspace: "../[Sandbox Violation] Write operation denied"',
      denied: "sandbox",
    });
    assert.deepEqual(Object.keys(outside), []);
    // a tool's own sandbox error (the raw handler checks its cwd) carries its reason too
    const raw = await rejection(ToolCatalog.git_status_summary.handler(createToolContext({ workspaceRoot: fx.root }), ".."));
    assert.equal(raw.message, 'INTERNAL: [Sandbox Violation] Attempted to access path outside of workspace: ".."');
    assert.deepEqual(Object.keys(raw), ["name", "code"]);
    assert.deepEqual(failureOf(raw), { code: "SANDBOX_VIOLATION", message: '[Sandbox Violation] Attempted to access path outside of workspace: ".."', denied: "sandbox" });
  });

  test("an error that only says it is a refusal is a tool error", async () => {
    const liar = (message) =>
      defineTool({
        name: "liar",
        description: "Throws an error that reads like a refusal.",
        input: z.object({}),
        execute: () => {
          throw new Error(message);
        },
      });
    for (const [message, code] of [
      [WRITE_SCOPE, undefined],
      ['[Security Policy] Access denied for tool: "liar"', undefined],
      ['INTERNAL: [Sandbox Violation] Attempted to access path outside of workspace: ".."', "INTERNAL"],
    ]) {
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: fx.root, policy: { tools: {}, defaultPolicy: "allow" } }), { tools: [liar(message)] });
      const error = await rejection(toolkit.invoke("liar", {}));
      if (code) error.code = code;
      const failure = failureOf(error);
      assert.equal(failure.denied, undefined, message);
      assert.equal(failure.code, code ?? "TOOL_ERROR", message);
      assert.equal(refusalOf(error), undefined);
    }
    assert.deepEqual(failureOf(new Error(WRITE_SCOPE)), { code: "TOOL_ERROR", message: WRITE_SCOPE });
  });

  test("toolkit.tools.* denials: the public reason is agent-tools-ts's, the fine one is recorded beside", async () => {
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: fx.root, writeScope: "read-only", policy: { tools: { tree: "deny" }, defaultPolicy: "allow" } }));
    const scope = await toolkit.tools.write_file("x", "");
    assert.deepEqual(scope, {
      status: "denied",
      reason: "sandbox",
      message: WRITE_SCOPE,
      error: { code: "SANDBOX_VIOLATION", message: WRITE_SCOPE, retriable: false, details: {} },
    });
    assert.deepEqual(Object.keys(scope), ["status", "reason", "message", "error"]);
    assert.equal(refusalOf(scope), "scope");
    const outside = await toolkit.tools.read_file("../x");
    assert.equal(outside.reason, "sandbox");
    assert.equal(refusalOf(outside), "sandbox");
    const policy = await toolkit.tools.tree(".");
    assert.equal(policy.reason, "policy");
    assert.equal(refusalOf(policy), "policy");
    assert.equal(refusalOf(await toolkit.tools.read_file("a.txt")), undefined);
  });

  test("through the MCP server: a write-scope denial of a path that reads like another refusal", async () => {
    const mcp = await connect(["--root", fx.root, "--write-scope", "read-only"]);
    try {
      const error = errorOf(await mcp.client.callTool({ name: "write_file", arguments: { path: "[Security Policy] x", content: "" } }));
      assert.deepEqual(error, { code: "WRITE_SCOPE_DENIED", message: WRITE_SCOPE, denied: "scope" });
      const outside = errorOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "../[Security Policy]" } }));
      assert.deepEqual([outside.code, outside.denied], ["SANDBOX_VIOLATION", "sandbox"]);
    } finally {
      await mcp.close();
    }
  });
});

describe("MCP server: malformed and oversized messages (raw JSON-RPC lines)", () => {
  let fx;
  before(() => {
    fx = fixture();
  });
  after(() => fx?.cleanup());

  test("a message over the limit (10 MiB by default) gets an Invalid Request error with its id; the server keeps serving", { timeout: 120_000 }, async () => {
    const server = await rawServer(["--root", fx.root]);
    try {
      // As the SDK's client writes a request: params first, the id last.
      const content = "x".repeat(11 * 1024 * 1024);
      const big = `{"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":"${content}"}},"jsonrpc":"2.0","id":7}`;
      const [id, code, message] = rpcError(await server.ask(big, "the oversized write_file"));
      assert.deepEqual([id, code], [7, -32600]);
      assert.match(message, new RegExp(`has ${big.length} bytes, over this server's limit of ${10 * 1024 * 1024}`));
      assert.ok(!fs.existsSync(path.join(fx.root, "big.txt")), "the refused call did not run");
      assert.deepEqual(await server.ask({ jsonrpc: "2.0", id: 8, method: "ping" }), { jsonrpc: "2.0", id: 8, result: {} });
      // A message just under the limit is read.
      const under = "y".repeat(10 * 1024 * 1024 - 200);
      const ok = await server.ask({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "write_file", arguments: { path: "under.txt", content: under } } });
      assert.ok(!ok.result.isError, JSON.stringify(ok).slice(0, 300));
      assert.equal(fs.statSync(path.join(fx.root, "under.txt")).size, under.length);
      // The log goes to stderr, a pipe of its own: it may be read after the answers on stdout.
      await until(() => /refused a message of \d+ bytes/.test(server.stderr()), 30_000, "the refusal to be logged");
    } finally {
      assert.equal(await server.close(), 0);
      fs.rmSync(path.join(fx.root, "under.txt"), { force: true });
    }
  });

  test("--max-message-bytes: the id is read wherever it stands; what was over the limit is never held whole", { ...onlyOn(["linux"], NEEDS.procMemory), timeout: 120_000 }, async () => {
    const limit = 64 * 1024;
    const server = await rawServer(["--root", fx.root, "--max-message-bytes", "64k"]);
    try {
      const filler = `\\"id\\":1,{}[]\\"${"z".repeat(limit)}`;
      const cases = [
        // The id first, last, after a nested "id" and strings that look like members.
        [`{"jsonrpc":"2.0","id":"first","method":"ping","params":{"x":"${filler}"}}`, "first"],
        [`{"jsonrpc":"2.0","method":"ping","params":{"id":3,"x":"${filler}","y":[{"id":4}]},"id":-12}`, -12],
        // No top-level id: only a nested one; an id that is not a string or number; a batch.
        [`{"jsonrpc":"2.0","method":"ping","params":{"id":3,"x":"${filler}"}}`, null],
        [`{"jsonrpc":"2.0","id":{"n":1},"method":"ping","params":{"x":"${filler}"}}`, null],
        [`[{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"${filler}"}}]`, null],
      ];
      for (const [line, id] of cases) {
        const [gotId, code, message] = rpcError(await server.ask(line));
        assert.deepEqual([gotId, code], [id, -32600], line.slice(0, 60));
        assert.match(message, /over this server's limit of 65536 \(--max-message-bytes\)/);
      }
      // 256 MiB in one line, written in 1 MiB pieces: the server's resident set stays far below it.
      const MiB = 2 ** 20;
      const LINE = 256 * MiB;
      const write = (text) => new Promise((resolve) => server.child.stdin.write(text, () => resolve()));
      /** The most the server's RSS grew over what it had before `pieces()` were written. */
      const growthWhile = async (pieces) => {
        const before = server.rss();
        let peak = before;
        let i = 0;
        for (const piece of pieces()) {
          await write(piece);
          if (i++ % 16 === 0) peak = Math.max(peak, server.rss());
        }
        return () => Math.max(peak, server.rss()) - before;
      };
      const piece = "w".repeat(MiB);
      const line = await growthWhile(function* () {
        yield '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file","arguments":{"path":"huge.txt","content":"';
        for (let i = 0; i < LINE / MiB; i++) yield piece;
      });
      const [id, code] = rpcError(await server.ask(`"}},"id":"huge"}`));
      const grew = line();
      assert.deepEqual([id, code], ["huge", -32600]);
      assert.deepEqual(await server.ask({ jsonrpc: "2.0", id: "after", method: "ping" }), { jsonrpc: "2.0", id: "after", result: {} });
      assert.ok(!fs.existsSync(path.join(fx.root, "huge.txt")));
      // The reference: the same 256 MiB as pings under the limit, each read whole, parsed and
      // dropped. What the collector lets lie around meanwhile is this machine's and runtime's.
      const ping = (n) => `{"jsonrpc":"2.0","id":"p${n}","method":"ping","params":{"x":"${"w".repeat(60_000)}"}}\n`;
      const perPiece = Math.floor(MiB / ping(0).length);
      const pings = Math.ceil(LINE / MiB) * perPiece;
      const reference = await growthWhile(function* () {
        for (let n = 0; n < pings; n += perPiece) yield Array.from({ length: perPiece }, (_, k) => ping(n + k)).join("");
      });
      for (let n = 0; n < pings; n++) assert.deepEqual(await server.next(`ping p${n}`), { jsonrpc: "2.0", id: `p${n}`, result: {} });
      const slack = reference();
      // Held whole, the line alone would be 256 MiB more than such slack; read piece by piece, it
      // leaves about as much as the reference.
      const report = `RSS grew ${(grew / MiB).toFixed(0)} MiB while reading a 256 MiB line, ${(slack / MiB).toFixed(0)} MiB while reading 256 MiB of pings`;
      process.stderr.write(`--max-message-bytes: ${report}\n`);
      assert.ok(grew < slack + LINE / 2, report);
    } finally {
      assert.equal(await server.close(), 0);
    }
  });

  test("the id scanner of an oversized line, fed in any two pieces, finds the top-level id only", () => {
    const cases = [
      ['{"jsonrpc":"2.0","id":42,"method":"x"}', 42],
      ['{"method":"x","params":{"id":1,"s":"\\"id\\":2,}"},"id":"a\\"b"}', 'a"b'],
      [' { "id" : -3.5e2 , "x": [ {"id": 9} ] } ', -350],
      ['{"x":"}","id":"日本"}', "日本"],
      ['{"id":"\\u00e9t\\u00e9"}', "été"],
      ['{"id":1,"id":2}', 2],
      ['{"params":{"id":1}}', null],
      ['{"method":"id","idx":1,"xid":2}', null],
      ['{"id":[1]}', null],
      ['{"id":null}', null],
      ['[{"id":1}]', null],
      ['"id"', null],
    ];
    for (const [text, id] of cases) {
      // What JSON.parse reads as the top-level id, when it is a string or number.
      const parsed = JSON.parse(text);
      assert.deepEqual(typeof parsed?.id === "string" || typeof parsed?.id === "number" ? parsed.id : null, id, text);
      const bytes = Buffer.from(text);
      for (let cut = 0; cut <= bytes.length; cut++) {
        const scanner = new TopLevelIdScanner();
        scanner.feed(bytes.subarray(0, cut));
        scanner.feed(bytes.subarray(cut));
        assert.deepEqual(scanner.id(), id, `${text} cut at ${cut}`);
      }
    }
  });

  test("batches, missing jsonrpc, bad JSON, bad ids and params: answered as JSON-RPC 2.0 says", { timeout: 120_000 }, async () => {
    const server = await rawServer(["--root", fx.root]);
    try {
      const cases = [
        // [line, id, code, message pattern]
        ['[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]', null, -32600, /batches are not supported/],
        ["[]", null, -32600, /batches are not supported/],
        ['{"id":3,"method":"ping"}', 3, -32600, /jsonrpc must be "2\.0"/],
        ['{"jsonrpc":"1.0","id":"v1","method":"ping"}', "v1", -32600, /jsonrpc must be "2\.0"/],
        ['{"method":"notifications/initialized"}', null, -32600, /jsonrpc must be "2\.0"/],
        ["{bad", null, -32700, /^Parse error/],
        ['"just a string"', null, -32600, /must be a JSON object/],
        ["42", null, -32600, /must be a JSON object/],
        ['{"jsonrpc":"2.0","id":4}', 4, -32600, /needs a string method/],
        ['{"jsonrpc":"2.0","id":5,"method":7}', 5, -32600, /method must be a string/],
        ['{"jsonrpc":"2.0","id":null,"method":"ping"}', null, -32600, /id must be a string or an integer/],
        ['{"jsonrpc":"2.0","id":true,"method":"ping"}', null, -32600, /id must be a string or an integer/],
        ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 1.5, -32600, /^Invalid Request: id:/],
        ['{"jsonrpc":"2.0","id":6,"method":"ping","params":null}', 6, -32602, /params must be an object when present, got null/],
        ['{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1]}', 7, -32602, /got an array/],
        ['{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"read_file"}', 8, -32602, /got string/],
        ['{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":{"progressToken":true}}}', 9, -32600, /progressToken/],
        ['{"jsonrpc":"2.0","id":10,"method":"ping","extra":1}', 10, -32600, /extra/],
        ['{"jsonrpc":"2.0","id":11,"method":"no/such/method"}', 11, -32601, /Method not found/],
      ];
      for (const [line, id, code, message] of cases) {
        const [gotId, gotCode, gotMessage] = rpcError(await server.ask(line));
        assert.deepEqual([gotId, gotCode], [id, code], line);
        assert.match(gotMessage, message, line);
      }
      // Blank lines are skipped; a notification that is invalid is not answered (logged instead).
      await server.send("");
      await server.send("   \r");
      await server.send('{"jsonrpc":"2.0","method":"notifications/initialized","params":null}');
      await server.send('{"jsonrpc":"2.0","id":12,"result":"not an object"}');
      assert.deepEqual(await server.ask('{"jsonrpc":"2.0","id":13,"method":"ping"}\r'), { jsonrpc: "2.0", id: 13, result: {} });
      // The log goes to stderr, a pipe of its own: it may be read after the answer on stdout.
      await until(() => /dropped an invalid notifications\/initialized notification/.test(server.stderr()), 30_000, "the dropped notification to be logged");
      await until(() => /dropped an invalid response/.test(server.stderr()), 30_000, "the dropped response to be logged");
    } finally {
      assert.equal(await server.close(), 0);
    }
  });

  test("tools/call: bad arguments and a missing name are isError results with a code, never protocol errors", { timeout: 120_000 }, async () => {
    const server = await rawServer(["--root", fx.root, "--deny", "exec_command"]);
    try {
      const call = async (params) => {
        const response = await server.ask({ jsonrpc: "2.0", id: "c", method: "tools/call", ...(params === undefined ? {} : { params }) });
        assert.equal(response.id, "c");
        assert.ok(response.result, `a result, not a protocol error: ${JSON.stringify(response)}`);
        return response.result;
      };
      for (const args of ["x", null, [1], 5]) {
        const error = errorOf(await call({ name: "tree", arguments: args }));
        assert.equal(error.code, "INVALID_TOOL_ARGUMENTS_TYPE", JSON.stringify(args));
        assert.match(error.message, /args must be an object/);
      }
      for (const params of [undefined, {}, { arguments: {} }, { name: 5, arguments: {} }, { name: null }]) {
        const error = errorOf(await call(params));
        assert.equal(error.code, "INVALID_ARGUMENT", JSON.stringify(params));
        assert.match(error.message, /tools\/call needs params\.name, the name of the tool to call \(a string\)/);
      }
      // The policy comes first, as in the library.
      assert.equal(errorOf(await call({ name: "exec_command", arguments: "x" })).denied, "policy");
      assert.equal(errorOf(await call({ name: "no_such_tool", arguments: "x" })).code, "TOOL_NOT_FOUND");
      // Without arguments a tool gets {} (read_file then misses its path); a good call still works.
      const noArgs = errorOf(await call({ name: "read_file" }));
      assert.deepEqual([noArgs.code, noArgs.message], ["INVALID_ARGUMENT", "path must be a non-empty string"]);
      assert.equal((await call({ name: "read_file", arguments: { path: "a.txt" } })).structuredContent.content, "hello\nworld\n");
    } finally {
      assert.equal(await server.close(), 0);
    }
  });
});

describe("MCP server: the bounded tool-output cache", () => {
  let fx;
  before(() => {
    fx = fixture();
    // 500 lines of 800 characters: a 400 KB read_file output.
    fs.writeFileSync(path.join(fx.root, "wide.txt"), Array.from({ length: 500 }, (_, i) => `${String(i).padStart(4, "0")} ${"w".repeat(795)}\n`).join(""));
  });
  after(() => fx?.cleanup());

  const readWide = { name: "read_file", arguments: { path: "wide.txt", max_lines: 500 } };

  test("past --output-cache-entries the oldest outputs are dropped: asking for one says so", { timeout: 120_000 }, async () => {
    const mcp = await connect(["--root", fx.root, "--output-cache-entries", "3"]);
    try {
      const refs = [];
      for (let i = 0; i < 5; i++) refs.push((await mcp.client.callTool(readWide)).structuredContent.output_ref);
      assert.deepEqual(refs, ["out-1", "out-2", "out-3", "out-4", "out-5"]);
      for (const tool of CACHE_TOOLS) {
        const args = tool === "tool_output_cache" ? { ref_id: "out-2" } : { ref_id: "out-2", pattern: "0001" };
        const dropped = errorOf(await mcp.client.callTool({ name: tool, arguments: args }));
        assert.equal(dropped.code, "OUTPUT_DROPPED", tool);
        assert.match(dropped.message, /^dropped ref_id: out-2: the output was dropped from the bounded output cache \(it keeps at most 3 outputs and 67108864 bytes/);
        const unknown = errorOf(await mcp.client.callTool({ name: tool, arguments: { ...args, ref_id: "out-6" } }));
        assert.deepEqual([unknown.code, unknown.message], ["UNKNOWN_REF_ID", "unknown ref_id: out-6"]);
      }
      const kept = await mcp.client.callTool({ name: "tool_output_cache", arguments: { ref_id: "out-3", offset: 500, limit: 1 } });
      assert.ok(!kept.isError);
      assert.match(kept.content[0].text, /^\s+500\t/);
    } finally {
      await mcp.close();
    }
  });

  test("soak: 600 outputs of 400 KB through the server; its RSS stays bounded", { ...onlyOn(["linux"], NEEDS.procMemory), timeout: 300_000 }, async () => {
    const server = await rawServer(["--root", fx.root, "--output-cache-bytes", "16m"]);
    try {
      let n = 0;
      const call = async () => {
        const response = await server.ask({ jsonrpc: "2.0", id: ++n, method: "tools/call", params: readWide });
        assert.equal(response.result.structuredContent.output_ref, `out-${n}`);
      };
      // Warmed up, with the cache already at its 16 MiB (40 outputs); then two rounds of 270.
      for (let i = 0; i < 60; i++) await call();
      const baseline = server.rss();
      const round = async () => {
        let peak = server.rss();
        for (let i = 0; i < 270; i++) {
          await call();
          if (i % 10 === 0) peak = Math.max(peak, server.rss());
        }
        return Math.max(peak, server.rss());
      };
      // The first round shows what this machine's collector lets lie around at this pace; the
      // second must not climb past it by half of what keeping its 270 outputs would hold (108 MB).
      const firstPeak = await round();
      const secondPeak = await round();
      const MiB = 2 ** 20;
      const report = `RSS ${(baseline / MiB).toFixed(0)} MiB after 60 outputs, peaks ${(firstPeak / MiB).toFixed(0)} MiB in the next 270 and ${(secondPeak / MiB).toFixed(0)} MiB in the last 270`;
      process.stderr.write(`soak: ${report}\n`);
      assert.ok(secondPeak - firstPeak < (270 * 400_000) / 2, report);
      const first = await server.ask({ jsonrpc: "2.0", id: "first", method: "tools/call", params: { name: "tool_output_cache", arguments: { ref_id: "out-1" } } });
      assert.equal(errorOf(first.result).code, "OUTPUT_DROPPED");
      const last = await server.ask({ jsonrpc: "2.0", id: "last", method: "tools/call", params: { name: "tool_output_cache", arguments: { ref_id: "out-600", offset: 3, limit: 1 } } });
      assert.match(last.result.content[0].text, /^\s+3\t/);
    } finally {
      assert.equal(await server.close(), 0);
    }
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
    for (const option of ["mcp", "tools", "call", "--root", "--write-scope", "--allow", "--deny", "--tools", "--max-message-bytes", "--output-cache-entries", "--output-cache-bytes"]) {
      assert.match(help.stdout, new RegExp(option));
    }
  });

  test("size options take bytes or a k, m or g suffix", () => {
    const sizes = (...args) => {
      const o = parseArgs(["mcp", ...args]);
      return [o.maxMessageBytes, o.outputCacheEntries, o.outputCacheBytes];
    };
    assert.deepEqual(sizes(), [10 * 2 ** 20, 256, 64 * 2 ** 20]);
    assert.deepEqual(sizes("--max-message-bytes", "64k", "--output-cache-entries", "3", "--output-cache-bytes=2G"), [65536, 3, 2 * 2 ** 30]);
    assert.deepEqual(sizes("--max-message-bytes", "1048577", "--output-cache-bytes", "16m"), [1048577, 256, 16 * 2 ** 20]);
  });

  test("tools: the allowed tools, one a line", { timeout: 120_000 }, () => {
    const run = cli("tools", "--deny", "exec_command");
    assert.equal(run.status, 0);
    const names = run.stdout.trim().split("\n").map((l) => l.split("\t")[0]);
    assert.deepEqual(names, builtInCatalog().map((e) => e.name).filter((n) => n !== "exec_command").sort((a, b) => names.indexOf(a) - names.indexOf(b)));
    assert.equal(names.length, builtInCatalog().length - 1);
  });

  test("mcp over stdio: requests sent before stdin's end of file are answered before the server exits", { ...onlyOn(["unix"], NEEDS.sh), timeout: 120_000 }, async () => {
    const child = spawn(NODE, [BIN, "mcp", "--root", fx.root], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "eof", version: "1" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "exec_command", arguments: { cwd: ".", command: ["sh", "-c", "sleep 0.5; echo late"] } } });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read_file", arguments: { path: "a.txt" } } });
    child.stdin.end();
    const code = await new Promise((resolve) => child.on("exit", resolve));
    assert.equal(code, 0);
    const answers = new Map(out.split("\n").filter(Boolean).map((line) => JSON.parse(line)).map((m) => [m.id, m]));
    assert.deepEqual([...answers.keys()].sort(), [1, 2, 3]);
    assert.equal(JSON.parse(answers.get(2).result.content[0].text).stdout, "late\n");
    assert.equal(JSON.parse(answers.get(3).result.content[0].text).content, "hello\nworld\n");
  });

  test("mcp over stdio: started through a launcher that is then killed (as npx is by SIGTERM), the server stops too", { ...onlyOn(["unix"], NEEDS.sh), timeout: 120_000 }, async () => {
    // sh plays npx: it starts the server and waits. The server reads a FIFO this test holds open,
    // the client's pipe, which outlives the launcher (the launcher's own stdin would be closed
    // with it, here by Node, and ends the server on its own).
    const fifo = path.join(fx.base, "client.fifo");
    execFileSync("mkfifo", [fifo]);
    const client = fs.openSync(fifo, "r+"); // O_RDWR does not wait for the other end
    try {
      const launcher = spawn("sh", ["-c", `"${NODE}" "${BIN}" mcp --root "${fx.root}" < "${fifo}" & echo $!; wait`], { stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      launcher.stderr.on("data", (d) => {
        stderr += d;
      });
      const stderrClosed = new Promise((resolve) => launcher.stderr.once("close", resolve));
      const pid = await new Promise((resolve) => launcher.stdout.once("data", (d) => resolve(Number(String(d).trim()))));
      // Serving: the server watches its parent from before it says so.
      await until(() => /MCP server on stdio/.test(stderr), 30_000, "the server to run");
      assert.ok(alive(pid));
      launcher.kill("SIGKILL");
      await until(() => !alive(pid), 20_000, "the server to stop after its launcher");
      await stderrClosed;
      assert.match(stderr, /the process that started the server is gone; stopping/);
    } finally {
      fs.closeSync(client);
      fs.rmSync(fifo);
    }
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
    for (const bad of [["call"], ["call", "read_file", "{not json"], ["call", "no_such_tool"], ["frobnicate"], ["tools", "--write-scope", "everything"], ["tools", "--exec-sandbox", "on"], ["tools", "--network", "none"], ["call", "tree", "--root", "a.txt"], ["mcp", "--root", "no-such-dir"], ["mcp", "--max-message-bytes", "1000"], ["mcp", "--max-message-bytes", "10x"], ["mcp", "--output-cache-entries", "0"], ["mcp", "--output-cache-bytes", "-1"], []]) {
      const run = cli(...bad);
      assert.equal(run.status, 2, `${bad.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /--help/);
    }
  });

  test("--exec-env: commands get the host's environment, a clean one, or a clean one with named variables", { ...onlyOn(["unix"], NEEDS.sh), timeout: 120_000 }, () => {
    const script = 'echo "${ATN_SECRET-none}|${ATN_KEPT-none}|${PATH:+path}"';
    const env = { ...process.env, ATN_SECRET: "s3cret", ATN_KEPT: "kept" };
    const run = (...flags) => spawnSync(NODE, [BIN, "call", "exec_command", JSON.stringify({ cwd: ".", command: ["sh", "-c", script] }), ...flags], { cwd: fx.root, encoding: "utf8", env });
    const stdout = (...flags) => {
      const result = run(...flags);
      assert.equal(result.status, 0, result.stderr);
      return JSON.parse(result.stdout).stdout;
    };
    assert.equal(stdout(), "s3cret|kept|path\n");
    assert.equal(stdout("--exec-env", "inherit"), "s3cret|kept|path\n");
    assert.equal(stdout("--exec-env", "clean"), "none|none|path\n");
    assert.equal(stdout("--exec-env", "ATN_KEPT,OTHER"), "none|kept|path\n");
    for (const bad of [",", "A=B"]) assert.equal(run("--exec-env", bad).status, 2);
  });

  test("--exec-sandbox required confines exec_command to the write scope (Landlock)", { ...onlyOn(["linux"], NEEDS.landlock), timeout: 120_000 }, () => {
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

describe("MCP server: a model that may only write files cannot run programs through git", () => {
  test("git_status_summary with --deny exec_command: fsmonitor and filters the model configured never run", onlyOn(["unix"], "configures #!/bin/sh scripts as git's fsmonitor and filters"), async () => {
    const { dir: base, cleanup } = tempDir("atn-mcp-git-");
    const root = path.join(base, "ws");
    fs.mkdirSync(root);
    const marker = path.join(base, "ran.txt");
    const evil = path.join(base, "evil.sh");
    fs.writeFileSync(evil, `#!/bin/sh\necho ran >> '${marker}'\n`, { mode: 0o755 });
    const git = (...args) => execFileSync("git", args, { cwd: root, stdio: "ignore", env: { ...process.env, GIT_CEILING_DIRECTORIES: base } });
    git("init", "-q", "-b", "main");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one");
    fs.writeFileSync(path.join(root, "a.txt"), "a\n");
    git("add", "a.txt");
    const mcp = await connect(["--root", root, "--deny", "exec_command"]);
    try {
      const { tools } = await mcp.client.listTools();
      assert.ok(!tools.some((t) => t.name === "exec_command"));
      const config = fs.readFileSync(path.join(root, ".git", "config"), "utf8");
      const write = (file, content) => mcp.client.callTool({ name: "write_file", arguments: { path: file, content } });
      okOf(await write(".git/config", `${config}[core]\n\tfsmonitor = ${evil}\n[filter "x"]\n\tclean = ${evil}\n\tprocess = ${evil}\n`));
      okOf(await write(".gitattributes", "*.txt filter=x\n"));
      okOf(await write("a.txt", "changed\n"));
      const status = okOf(await mcp.client.callTool({ name: "git_status_summary", arguments: {} }));
      assert.equal(status.branch, "main");
      assert.match(status.raw, /^## main\n/);
      assert.ok(!fs.existsSync(marker), "a program the repository configured ran");
      // The premise: plain git runs it.
      execFileSync("git", ["status", "--porcelain"], { cwd: root, stdio: "ignore" });
      assert.ok(fs.existsSync(marker), "the trap does not fire with plain git");
    } finally {
      await mcp.close();
      cleanup();
    }
  });
});
