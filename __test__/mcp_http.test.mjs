// The MCP server over Streamable HTTP (`agent-tools-native mcp --http`, js/mcp_http.cjs; README
// "Over HTTP"), driven by the official SDK's Streamable HTTP client, raw HTTP requests and the MCP
// Inspector's CLI. Every server listens on port 0 (a free port it reports on stderr).
import { test, describe, before, after } from "./harness.mjs";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { hostAllowed, isLoopback, originAllowed, parseListen, tokenMatches } from "../js/mcp_http.cjs";
import { builtInCatalog } from "../js/native.cjs";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { createHash } from "node:crypto";
import { NEEDS, notUnderWine, onlyOn, runsOn, underWine, WINE } from "./helpers.mjs";
import { alive, BIN, BUN, CACHE_TOOLS, callEveryBuiltIn, cancelKillsTheProcessGroup, errorOf, mcpFixture, NODE, okOf, progressIsNotified, repo, startHttpServer, until } from "./mcp_helpers.mjs";

/** The SDK's HTTP client runs on fetch, which node.exe cannot use under wine. */
const FETCH = notUnderWine(WINE.nodeFetch, { runtime: "node" });
/** describe, skipped where FETCH is. */
const describeFetching = (name, fn) => (FETCH.skip ? describe(name, FETCH, fn) : describe(name, fn));
const POSIX = onlyOn(["unix"], NEEDS.sh);

const INSPECTOR = path.join(repo, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js");
const TOKEN = "test-token-0123456789abcdef";
const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

function fixture() {
  return mcpFixture("atn-mcphttp-", { "a.txt": "hello\nworld\n", "src/main.js": 'console.log("hi");\nconst x = 1;\n' });
}

/** The bin serving MCP over HTTP (mcp_helpers.mjs), with this suite's token by default. */
const startServer = (args, { runtime = NODE, token = TOKEN, env = {} } = {}) => startHttpServer(args, { runtime, token, env });

/**
 * A POST with a chunked body written for up to 5 s or until the server closes the connection:
 * the answer's status, how many bytes were written, and whether the server closed.
 */
function streamBody(port, headers) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunk = Buffer.alloc(1 << 16, 120);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    let written = 0;
    let answer = "";
    let done = false;
    const finish = (closed) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1]), written, closed });
    };
    const timer = setTimeout(() => finish(false), 5000);
    socket.on("data", (d) => {
      answer += d;
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    const pump = () => {
      while (!done && written < 1 << 30) {
        written += frame.length;
        if (!socket.write(frame)) return socket.once("drain", pump);
      }
    };
    socket.on("connect", () => {
      const lines = [`POST /mcp HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Content-Type: application/json", "Transfer-Encoding: chunked", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      pump();
    });
  });
}

/** An SDK Client connected over Streamable HTTP (with the bearer token unless `token` is null). */
async function connect(url, { token = TOKEN } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), token === null ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "atn-http-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** A raw HTTP request (node:http, so that Host can be set): `{ status, headers, body }`. */
function request(url, { method = "POST", headers = {}, body } = {}) {
  const target = new URL(url);
  const data = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method,
        headers: {
          accept: "application/json, text/event-stream",
          ...(data === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(data) }),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/** The JSON-RPC error of a raw answer: `[code, message]`. */
function rpcErrorOf(answer) {
  const parsed = JSON.parse(answer.body);
  assert.equal(parsed.jsonrpc, "2.0");
  return [parsed.error.code, parsed.error.message];
}

const auth = { authorization: `Bearer ${TOKEN}` };

describeFetching("MCP over Streamable HTTP (SDK client)", () => {
  let fx;
  let server;
  let mcp;
  before(async () => {
    fx = fixture();
    // for git_status_summary in the every-built-in test (wine's prefix has no git)
    if (!underWine) execFileSync("git", ["init", "-q"], { cwd: fx.root });
    server = await startServer(["--root", fx.root, "--max-output-chars", "4000"]);
    mcp = await connect(server.url);
  });
  after(async () => {
    await mcp?.close();
    await server?.stop();
    fx?.cleanup();
  });

  test("tools/list: the same list as over stdio, getAllowedTools' tools and the cache tools", { timeout: 120_000 }, async () => {
    const { tools } = await mcp.client.listTools();
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: fx.root, policy: { tools: {}, defaultPolicy: "allow" } }));
    assert.deepEqual(
      tools.map((t) => t.name),
      [...toolkit.getAllowedTools().map((d) => d.function.name), ...CACHE_TOOLS],
    );
    const stdio = new Client({ name: "atn-test", version: "1.0.0" });
    await stdio.connect(new StdioClientTransport({ command: NODE, args: [BIN, "mcp", "--root", fx.root, "--max-output-chars", "4000"], cwd: repo, stderr: "pipe" }));
    try {
      assert.deepEqual(tools, (await stdio.listTools()).tools);
    } finally {
      await stdio.close();
    }
  });

  test("every built-in tool is called", { ...POSIX, timeout: 120_000 }, async () => {
    const called = new Set();
    const call = async (name, args) => {
      const output = okOf(await mcp.client.callTool({ name, arguments: args }));
      called.add(name);
      return output;
    };
    await callEveryBuiltIn(call, fx.root);
    assert.deepEqual([...called].sort(), builtInCatalog().map((e) => e.name).sort());
    // Failures are results, as over stdio.
    assert.equal(errorOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "nope.txt" } })).code, "NOT_FOUND");
    assert.equal(errorOf(await mcp.client.callTool({ name: "read_file", arguments: null })).code, "INVALID_TOOL_ARGUMENTS_TYPE");
  });

  test("the sandbox refuses the root's prefix sibling, symlinks out and ..", { timeout: 120_000 }, async () => {
    const attempts = [
      ["read_file", { path: "../ws_evil/secret.txt" }],
      ["read_file", { path: `${fx.root}_evil/secret.txt` }],
      ["write_file", { path: "../ws_evil/planted.txt", content: "x" }],
      // through the fixture's symlinks, where it has them
      ...(fx.links
        ? [
            ["read_file", { path: "link/canary.txt" }],
            ["read_file", { path: "evil-link.txt" }],
            ["write_file", { path: "link/planted.txt", content: "x" }],
          ]
        : []),
      ["regexp_search", { pattern: "SECRET", root_path: `${fx.root}_evil` }],
      ["exec_command", { cwd: "../ws_evil", command: ["cat", "secret.txt"] }],
    ];
    for (const [name, args] of attempts) {
      const result = await mcp.client.callTool({ name, arguments: args });
      const error = errorOf(result);
      assert.deepEqual([error.code, error.denied], ["SANDBOX_VIOLATION", "sandbox"], `${name} ${JSON.stringify(args)}`);
      assert.doesNotMatch(result.content[0].text, /EVIL-SECRET|CANARY/);
    }
    assert.ok(!fs.existsSync(path.join(fx.base, "outside", "planted.txt")));
    assert.ok(!fs.existsSync(path.join(fx.base, "ws_evil", "planted.txt")));
  });

  test("two sessions are isolated: each has its own todo list and output cache", { ...POSIX, timeout: 120_000 }, async () => {
    const a = await connect(server.url);
    const b = await connect(server.url);
    try {
      assert.notEqual(a.transport.sessionId, b.transport.sessionId);
      okOf(await a.client.callTool({ name: "task_create_many", arguments: { tasks: [{ title: "only in a" }] } }));
      // b has no task list yet.
      assert.equal(errorOf(await b.client.callTool({ name: "task_list", arguments: {} })).code, "STATE_NOT_INITIALIZED");
      okOf(await b.client.callTool({ name: "task_create_many", arguments: { tasks: [{ title: "b1" }, { title: "b2" }] } }));
      assert.deepEqual(okOf(await a.client.callTool({ name: "task_list", arguments: {} })).tasks.map((t) => t.title), ["only in a"]);
      assert.deepEqual(okOf(await b.client.callTool({ name: "task_list", arguments: {} })).tasks.map((t) => t.title), ["b1", "b2"]);
      const big = await a.client.callTool({ name: "exec_command", arguments: { cwd: ".", command: ["seq", "1", "3000"] } });
      const ref = big.structuredContent.output_ref;
      assert.match(ref, /^out-\d+$/);
      assert.ok(!(await a.client.callTool({ name: "tool_output_cache", arguments: { ref_id: ref, offset: 1, limit: 2 } })).isError);
      assert.equal(errorOf(await b.client.callTool({ name: "tool_output_cache", arguments: { ref_id: ref, offset: 1, limit: 2 } })).code, "UNKNOWN_REF_ID");
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("many concurrent calls over two sessions each get their own answer", { ...POSIX, timeout: 180_000 }, async () => {
    const a = await connect(server.url);
    const b = await connect(server.url);
    try {
      const calls = [];
      for (let i = 0; i < 60; i++) {
        const client = i % 2 ? a.client : b.client;
        if (i % 3 === 0) {
          calls.push(client.callTool({ name: "exec_command", arguments: { cwd: ".", command: ["echo", `n${i}`] } }).then((r) => assert.equal(okOf(r).stdout, `n${i}\n`)));
        } else if (i % 3 === 1) {
          calls.push(client.callTool({ name: "read_file", arguments: { path: "a.txt" } }).then((r) => assert.equal(okOf(r).content, "hello\nworld\n")));
        } else {
          calls.push(
            client.callTool({ name: "regexp_search", arguments: { pattern: "const x" } }).then((r) => assert.deepEqual(okOf(r).items.map((x) => x.path), ["src/main.js"])),
          );
        }
      }
      await Promise.all(calls);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("cancellation kills the exec_command's whole process group; progress is notified", { ...onlyOn(["linux"], NEEDS.processGroup), timeout: 240_000 }, async () => {
    await cancelKillsTheProcessGroup(mcp.client, fx.root);
    await progressIsNotified(mcp.client, fx.root);
  });

  test("a request without the token or with a wrong one gets 401", { timeout: 60_000 }, async () => {
    const wrong = `${TOKEN.slice(0, -1)}x`;
    for (const headers of [{}, { authorization: `Bearer ${wrong}` }, { authorization: `Basic ${TOKEN}` }, { authorization: `Bearer ${TOKEN} extra` }, { authorization: "Bearer" }]) {
      const answer = await request(server.url, { body: INIT, headers });
      assert.equal(answer.status, 401, JSON.stringify(headers));
      assert.match(answer.headers["www-authenticate"], /^Bearer /);
      assert.equal(answer.headers["mcp-session-id"], undefined);
    }
    await assert.rejects(connect(server.url, { token: null }), /401|Unauthorized/);
    await assert.rejects(connect(server.url, { token: wrong }), /401|Unauthorized/);
    // The scheme is case-insensitive; the right token opens a session.
    const ok = await request(server.url, { body: INIT, headers: { authorization: `bearer ${TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.match(ok.headers["mcp-session-id"], /^[0-9a-f-]{36}$/);
    await request(server.url, { method: "DELETE", headers: { ...auth, "mcp-session-id": ok.headers["mcp-session-id"] } });
  });

  test("OAuth discovery gets 404 at once (no OAuth here), so a client without the token reports the 401", { timeout: 60_000 }, async () => {
    const base = new URL(server.url);
    for (const p of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const answer = await request(new URL(p, base).href, { method: "GET" });
      assert.equal(answer.status, 404, p);
      assert.match(JSON.parse(answer.body).error.message, /no OAuth/);
    }
  });

  test("a foreign Origin or Host is refused with 403 (DNS rebinding), even with the token", { timeout: 60_000 }, async () => {
    for (const origin of ["http://evil.example", `http://evil.example:${server.port}`, "null", `http://localhost:${server.port + 1}`, `file://${fx.root}`]) {
      const answer = await request(server.url, { body: INIT, headers: { ...auth, origin } });
      assert.equal(answer.status, 403, origin);
      assert.match(rpcErrorOf(answer)[1], /Origin/);
    }
    for (const host of [`evil.example:${server.port}`, "evil.example", `127.0.0.1:${server.port + 1}`, `localhost.evil.example:${server.port}`]) {
      const answer = await request(server.url, { body: INIT, headers: { ...auth, host } });
      assert.equal(answer.status, 403, host);
      assert.match(rpcErrorOf(answer)[1], /Host/);
    }
    // This server's own origin and names are accepted.
    for (const [origin, host] of [
      [`http://127.0.0.1:${server.port}`, `127.0.0.1:${server.port}`],
      [`http://localhost:${server.port}`, `localhost:${server.port}`],
    ]) {
      const answer = await request(server.url, { body: INIT, headers: { ...auth, origin, host } });
      assert.equal(answer.status, 200, `${origin} ${answer.body}`);
      await request(server.url, { method: "DELETE", headers: { ...auth, "mcp-session-id": answer.headers["mcp-session-id"] } });
    }
  });

  test("sessions: an unknown id gets 404, none 400, a batch -32600; DELETE ends a session and cancels its calls", { ...POSIX, timeout: 60_000 }, async () => {
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const unknown = await request(server.url, { body: list, headers: { ...auth, "mcp-session-id": "00000000-0000-0000-0000-000000000000" } });
    assert.equal(unknown.status, 404);
    const none = await request(server.url, { body: list, headers: auth });
    assert.equal(none.status, 400);
    assert.match(rpcErrorOf(none)[1], /Mcp-Session-Id/);
    const batch = await request(server.url, { body: [INIT], headers: auth });
    assert.equal(batch.status, 400);
    assert.deepEqual(rpcErrorOf(batch)[0], -32600);
    const garbage = await request(server.url, { body: "{not json", headers: auth });
    assert.deepEqual([garbage.status, rpcErrorOf(garbage)[0]], [400, -32700]);
    const elsewhere = await request(server.url.replace(/\/mcp$/, "/other"), { body: INIT, headers: auth });
    assert.equal(elsewhere.status, 404);
    const put = await request(server.url, { method: "PUT", body: INIT, headers: auth });
    assert.equal(put.status, 405);
    // DELETE while a call runs: the session ends and its exec_command's process group is killed.
    const session = await connect(server.url);
    const id = session.transport.sessionId;
    const pidFile = path.join(fx.root, "del.pid");
    const running = session.client
      .callTool({ name: "exec_command", arguments: { cwd: ".", command: ["sh", "-c", "sleep 60 & echo $$ $! > del.tmp; mv del.tmp del.pid; wait"], timeout_ms: 120_000 } })
      .catch((error) => error);
    await until(() => fs.existsSync(pidFile), 30_000, "the command to start");
    const pids = fs.readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    assert.ok(pids.length === 2 && pids.every(alive));
    await session.transport.terminateSession();
    await until(() => !pids.some(alive), 20_000, "the process group to be killed");
    fs.rmSync(pidFile);
    await until(() => server.stderr().includes(`MCP session ${id} closed`), 30_000, "the session to close");
    const after = await request(server.url, { body: list, headers: { ...auth, "mcp-session-id": id } });
    assert.equal(after.status, 404);
    // The call's stream ended with the session: closing the client settles it.
    await session.close();
    assert.ok((await running) instanceof Error);
  });
});

describeFetching("MCP over HTTP: limits, timeouts and shutdown", () => {
  let fx;
  before(() => {
    fx = fixture();
  });
  after(() => fx?.cleanup());

  test("--max-sessions: an initialize past the limit gets 503 until a session ends; a body over --max-message-bytes gets 413", { timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root, "--max-sessions", "2", "--max-message-bytes", "4k"]);
    try {
      const a = await connect(server.url);
      const b = await connect(server.url);
      const third = await request(server.url, { body: INIT, headers: auth });
      assert.equal(third.status, 503);
      assert.match(rpcErrorOf(third)[1], /--max-sessions/);
      await a.transport.terminateSession();
      const c = await connect(server.url);
      assert.equal(okOf(await c.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).content, "hello\nworld\n");
      const big = await request(server.url, {
        body: { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "write_file", arguments: { path: "big.txt", content: "x".repeat(8192) } } },
        headers: { ...auth, "mcp-session-id": c.transport.sessionId },
      });
      assert.equal(big.status, 413);
      assert.match(rpcErrorOf(big)[1], /--max-message-bytes/);
      assert.ok(!fs.existsSync(path.join(fx.root, "big.txt")));
      // The session is still served.
      assert.equal(okOf(await c.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).path, "a.txt");
      await Promise.all([a.close(), b.close(), c.close()]);
    } finally {
      await server.stop();
    }
  });

  test("each session has its own read ledger (--extra-tools edit_file): another session's write leaves a read stale", { timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root, "--extra-tools", "edit_file"]);
    try {
      const a = await connect(server.url);
      const b = await connect(server.url);
      fs.writeFileSync(path.join(fx.root, "ledger.txt"), "value = 1\n");
      okOf(await a.client.callTool({ name: "read_file", arguments: { path: "ledger.txt" } }));
      okOf(await b.client.callTool({ name: "write_file", arguments: { path: "ledger.txt", content: "value = 2\n" } }));
      // b wrote the file it edits; a read it before b's write, so its read is stale.
      const stale = errorOf(await a.client.callTool({ name: "edit_file", arguments: { path: "ledger.txt", old_string: "2", new_string: "3" } }));
      assert.equal(stale.code, "STALE_READ");
      assert.equal(fs.readFileSync(path.join(fx.root, "ledger.txt"), "utf8"), "value = 2\n");
      okOf(await b.client.callTool({ name: "edit_file", arguments: { path: "ledger.txt", old_string: "2", new_string: "4" } }));
      assert.equal(fs.readFileSync(path.join(fx.root, "ledger.txt"), "utf8"), "value = 4\n");
      await Promise.all([a.close(), b.close()]);
    } finally {
      await server.stop();
      fs.rmSync(path.join(fx.root, "ledger.txt"), { force: true });
    }
  });

  test("--idle-timeout closes a session no request reached; a running call keeps it", { ...POSIX, timeout: 120_000 }, async () => {
    // The timeout leaves a busy machine seconds between the busy session's initialize and its call.
    const server = await startServer(["--root", fx.root, "--idle-timeout", "4"]);
    try {
      const idle = await connect(server.url);
      const busy = await connect(server.url);
      // A call well past the timeout: its session stays open, the other one is closed meanwhile.
      const call = busy.client.callTool({ name: "exec_command", arguments: { cwd: ".", command: ["sleep", "10"] } });
      await until(() => server.stderr().includes(`MCP session ${idle.transport.sessionId} idle`), 60_000, "the idle session to close");
      okOf(await call);
      assert.ok(!server.stderr().includes(`MCP session ${busy.transport.sessionId} idle`), server.stderr());
      await assert.rejects(idle.client.callTool({ name: "read_file", arguments: { path: "a.txt" } }), /404|Session not found/);
      await Promise.all([busy.close(), idle.close()]);
    } finally {
      await server.stop();
    }
  });

  test("SIGTERM lets a running call finish within --shutdown-grace, refuses new work and exits 0", { ...onlyOn(["unix"], NEEDS.sigterm), timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root, "--shutdown-grace", "60"]);
    const mcp = await connect(server.url);
    const marker = path.join(fx.root, "started.txt");
    const call = mcp.client.callTool({ name: "exec_command", arguments: { cwd: ".", command: ["sh", "-c", "touch started.txt; sleep 2; echo finished"] } });
    await until(() => fs.existsSync(marker), 30_000, "the command to start");
    server.kill("SIGTERM");
    await until(() => server.stderr().includes("shutting down"), 30_000, "the shutdown to begin");
    const refused = await request(server.url, { body: INIT, headers: auth }).catch((error) => ({ status: error.code }));
    assert.ok(refused.status === 503 || refused.status === "ECONNREFUSED" || refused.status === "ECONNRESET", `new work refused: ${refused.status}`);
    assert.equal(okOf(await call).stdout, "finished\n");
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    fs.rmSync(marker);
    await mcp.close().catch(() => {});
  });

  test("SIGTERM past the grace cancels running calls: the exec_command's process group is killed", { ...onlyOn(["unix"], NEEDS.sigterm), timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root, "--shutdown-grace", "0"]);
    const mcp = await connect(server.url);
    const pidFile = path.join(fx.root, "term.pid");
    const call = mcp.client.callTool({
      name: "exec_command",
      arguments: { cwd: ".", command: ["sh", "-c", "sleep 60 & echo $$ $! > term.tmp; mv term.tmp term.pid; wait"], timeout_ms: 120_000 },
    });
    await until(() => fs.existsSync(pidFile), 30_000, "the command to start");
    const pids = fs.readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    assert.ok(pids.length === 2 && pids.every(alive));
    server.kill("SIGTERM");
    // The call is answered, as a cancelled exec_command is in the library.
    assert.match(errorOf(await call).message, /the call was aborted/);
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    await until(() => !pids.some(alive), 20_000, "the shell and its child to be killed");
    fs.rmSync(pidFile);
    await mcp.close().catch(() => {});
  });
});

describe("MCP over HTTP: start-up rules", () => {
  let fx;
  before(() => {
    fx = fixture();
  });
  after(() => fx?.cleanup());

  const run = (args, env = {}) => {
    const childEnv = { ...process.env, ...env };
    if (!("AGENT_TOOLS_NATIVE_TOKEN" in env)) delete childEnv.AGENT_TOOLS_NATIVE_TOKEN;
    return spawnSync(NODE, [BIN, "mcp", ...args], { env: childEnv, encoding: "utf8", timeout: 60_000 });
  };

  test("no token, a short one, one on the command line, --no-auth off loopback, no --root: usage errors", { timeout: 120_000 }, () => {
    const cases = [
      [["--http", "127.0.0.1:0", "--root", fx.root], {}, /needs a bearer token: set AGENT_TOOLS_NATIVE_TOKEN/],
      [["--http", "0.0.0.0:0", "--root", fx.root], {}, /non-loopback address without a token/],
      [["--http", "0.0.0.0:0", "--root", fx.root, "--no-auth"], {}, /--no-auth is refused on 0\.0\.0\.0/],
      [["--http", "192.0.2.1:0", "--root", fx.root, "--no-auth"], {}, /--no-auth is refused/],
      [["--http", "127.0.0.1:0", "--root", fx.root, "--token", TOKEN], {}, /never taken from the command line/],
      [["--http", "127.0.0.1:0", "--root", fx.root], { AGENT_TOOLS_NATIVE_TOKEN: "short" }, /too short/],
      [["--http", "127.0.0.1:0"], { AGENT_TOOLS_NATIVE_TOKEN: TOKEN }, /--http needs --root/],
      [["--http", "nope", "--root", fx.root], { AGENT_TOOLS_NATIVE_TOKEN: TOKEN }, /expected \[HOST:\]PORT/],
      [["--root", fx.root, "--max-sessions", "3"], {}, /--max-sessions needs --http/],
      [["--http", "127.0.0.1:0", "--root", fx.root, "--token-file", path.join(fx.base, "missing")], {}, /--token-file .*missing: ENOENT/],
      [["--http", "127.0.0.1:0", "--root", fx.root, "--token-file", fx.root], {}, /--token-file .*ws: not a file\n/],
      [["--http", "127.0.0.1:0", "--root", fx.root, "--no-auth", "--token-file", fx.root], {}, /contradict/],
    ];
    for (const [args, env, message] of cases) {
      const result = run(args, env);
      assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });

  test("--token-file: its token (trimmed) is required, and wins over the environment", { ...FETCH, timeout: 120_000 }, async () => {
    const file = path.join(fx.base, "token");
    const fileToken = "file-token-abcdefghijklmnop";
    fs.writeFileSync(file, `${fileToken}\n`, { mode: 0o600 });
    const server = await startServer(["--root", fx.root, "--token-file", file], { token: TOKEN });
    try {
      assert.equal((await request(server.url, { body: INIT, headers: auth })).status, 401);
      const mcp = await connect(server.url, { token: fileToken });
      assert.equal(okOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).path, "a.txt");
      await mcp.close();
    } finally {
      await server.stop();
    }
  });

  test("--token-file readable by other users is refused", POSIX, () => {
    const file = path.join(fx.base, "shared-token");
    fs.writeFileSync(file, "file-token-abcdefghijklmnop\n");
    for (const mode of [0o644, 0o640, 0o604]) {
      fs.chmodSync(file, mode);
      const result = run(["--http", "127.0.0.1:0", "--root", fx.root, "--token-file", file]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`readable by other users \\(mode ${mode.toString(8)}\\); make it private with chmod 600`));
    }
  });

  test("a refused request's body is not read: the connection closes", { ...FETCH, timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root]);
    try {
      for (const headers of [{}, { authorization: "Bearer wrong-token-0123456789abcdef" }, { authorization: `Bearer ${TOKEN}`, origin: "http://evil.example" }]) {
        const { status, written, closed } = await streamBody(server.port, headers);
        // The answer may be lost to the reset when the client is still writing (Bun's sockets).
        assert.ok(Number.isNaN(status) || status === 401 || status === 403, `status ${status}`);
        assert.ok(closed, "the server closed the connection");
        // Without the close, the server reads on (gigabytes in seconds) until its request timeout.
        assert.ok(written < 64 << 20, `${written} bytes accepted after the refusal`);
      }
    } finally {
      await server.stop();
    }
  });

  test("a session's processes end with it (DELETE)", { ...FETCH, ...onlyOn(["linux"], "reads /proc"), timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root, "--extra-tools", "process_start,process_list"]);
    try {
      const mcp = await connect(server.url);
      const started = okOf(await mcp.client.callTool({ name: "process_start", arguments: { cwd: fx.root, command: ["sh", "-c", "echo up; sleep 300"], wait_for: "up" } }));
      assert.equal(started.status, "running");
      assert.ok(alive(started.pid));
      await mcp.transport.terminateSession();
      await until(() => !alive(started.pid), 30_000, "the process to end with its session");
      await mcp.close();
    } finally {
      await server.stop();
    }
  });

  test("a session's processes end when the idle timeout closes it", { ...FETCH, ...onlyOn(["linux"], "reads /proc"), timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root, "--extra-tools", "process_start", "--idle-timeout", "1"]);
    try {
      const mcp = await connect(server.url);
      const started = okOf(await mcp.client.callTool({ name: "process_start", arguments: { cwd: fx.root, command: ["sh", "-c", "echo up; sleep 300"], wait_for: "up" } }));
      // Running when the call answered (a look at /proc here could already come after the idle close).
      assert.equal(started.status, "running");
      // No request for longer than the timeout: the server closes the session, and with it the process.
      await until(() => !alive(started.pid), 60_000, "the process to end with its idle session");
      // The server logs before it ends the process, but its stderr reaches this process through a
      // pipe read in its own time: the line may arrive after the process is seen gone.
      await until(() => / closed \(/.test(server.stderr()), 30_000, "the idle session's close to be logged");
      await mcp.close().catch(() => {});
    } finally {
      await server.stop();
    }
  });

  test("commands the server runs do not inherit its token", { ...FETCH, ...POSIX, timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root]);
    try {
      const mcp = await connect(server.url);
      const out = okOf(await mcp.client.callTool({ name: "exec_command", arguments: { cwd: fx.root, command: ["sh", "-c", "echo ${AGENT_TOOLS_NATIVE_TOKEN-absent}"] } }));
      assert.equal(out.stdout, "absent\n");
      await mcp.close();
    } finally {
      await server.stop();
    }
  });

  test("--no-auth on loopback serves without a token, still checking Origin", { ...FETCH, timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root, "--no-auth"], { token: null });
    try {
      assert.match(server.stderr(), /no authentication/);
      const mcp = await connect(server.url, { token: null });
      assert.equal(okOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).path, "a.txt");
      await mcp.close();
      assert.equal((await request(server.url, { body: INIT, headers: { origin: "http://evil.example" } })).status, 403);
    } finally {
      await server.stop();
    }
  });

  test("the server runs under bun too", { ...FETCH, timeout: 120_000 }, async () => {
    const server = await startServer(["--root", fx.root, "--shutdown-grace", "0"], { runtime: BUN });
    try {
      const mcp = await connect(server.url);
      assert.ok((await mcp.client.listTools()).tools.some((t) => t.name === "regexp_search"));
      assert.equal(okOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).content, "hello\nworld\n");
      assert.equal(errorOf(await mcp.client.callTool({ name: "read_file", arguments: { path: "../ws_evil/secret.txt" } })).denied, "sandbox");
      assert.equal((await request(server.url, { body: INIT })).status, 401);
      assert.equal((await request(server.url, { body: INIT, headers: { ...auth, origin: "http://evil.example" } })).status, 403);
      await mcp.close();
      server.kill("SIGTERM");
      const exited = await server.exited;
      // an exit of its own where SIGTERM reaches the process (Windows kills it: NEEDS.sigterm)
      if (runsOn(["unix"])) assert.deepEqual(exited, { code: 0, signal: null });
    } finally {
      await server.stop();
    }
  });
});

describe("MCP over HTTP: the checks as functions", () => {
  const loop = { host: "127.0.0.1", allowHosts: [] };
  test("hostAllowed: loopback names on the bound port, the bound address, --allow-host entries", () => {
    assert.ok(hostAllowed("127.0.0.1:8000", loop, 8000));
    assert.ok(hostAllowed("localhost:8000", loop, 8000));
    assert.ok(hostAllowed("[::1]:8000", loop, 8000));
    assert.ok(hostAllowed("LOCALHOST:8000", loop, 8000));
    assert.ok(!hostAllowed("localhost:8001", loop, 8000));
    assert.ok(!hostAllowed("localhost", loop, 8000));
    assert.ok(!hostAllowed("evil.example:8000", loop, 8000));
    assert.ok(!hostAllowed("x.localhost:8000", loop, 8000));
    assert.ok(!hostAllowed(undefined, loop, 8000));
    assert.ok(!hostAllowed("127.0.0.1:8000@evil", loop, 8000));
    const lan = { host: "192.0.2.7", allowHosts: ["tools.example", "proxy.example:8443"] };
    assert.ok(hostAllowed("192.0.2.7:8000", lan, 8000));
    assert.ok(!hostAllowed("127.0.0.1:8000", lan, 8000));
    assert.ok(hostAllowed("tools.example", lan, 8000));
    assert.ok(hostAllowed("tools.example:443", lan, 8000));
    assert.ok(hostAllowed("proxy.example:8443", lan, 8000));
    assert.ok(!hostAllowed("proxy.example", lan, 8000));
    const any = { host: "0.0.0.0", allowHosts: [] };
    assert.ok(hostAllowed("192.0.2.7:8000", any, 8000));
    assert.ok(!hostAllowed("rebound.example:8000", any, 8000));
  });

  test("originAllowed: absent, or http(s) on an allowed host", () => {
    assert.ok(originAllowed(undefined, loop, 8000));
    assert.ok(originAllowed("http://127.0.0.1:8000", loop, 8000));
    assert.ok(!originAllowed("http://127.0.0.1:9000", loop, 8000));
    assert.ok(!originAllowed("null", loop, 8000));
    assert.ok(!originAllowed("chrome-extension://abc", loop, 8000));
    assert.ok(!originAllowed("https://evil.example", loop, 8000));
    assert.ok(originAllowed("https://tools.example", { host: "127.0.0.1", allowHosts: ["tools.example"] }, 8000));
  });

  test("tokenMatches: Bearer and the exact token only", () => {
    const digest = createHash("sha256").update(TOKEN).digest();
    assert.ok(tokenMatches(`Bearer ${TOKEN}`, digest));
    assert.ok(tokenMatches(`bearer  ${TOKEN}`, digest));
    assert.ok(!tokenMatches(undefined, digest));
    assert.ok(!tokenMatches(TOKEN, digest));
    assert.ok(!tokenMatches(`Bearer ${TOKEN}x`, digest));
    assert.ok(!tokenMatches(`Bearer ${TOKEN.slice(1)}`, digest));
    assert.ok(!tokenMatches("Bearer \0no token", createHash("sha256").update("\0no token").digest()));
  });

  test("parseListen and isLoopback", () => {
    const fail = (m) => {
      throw new Error(m);
    };
    assert.deepEqual(parseListen("8765", fail), { host: "127.0.0.1", port: 8765 });
    assert.deepEqual(parseListen(":8765", fail), { host: "127.0.0.1", port: 8765 });
    assert.deepEqual(parseListen("0.0.0.0:1", fail), { host: "0.0.0.0", port: 1 });
    assert.deepEqual(parseListen("[::1]:0", fail), { host: "::1", port: 0 });
    assert.throws(() => parseListen("localhost:70000", fail), /expected/);
    assert.throws(() => parseListen("::1:80", fail), /expected/);
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) assert.ok(isLoopback(h), h);
    for (const h of ["0.0.0.0", "::", "192.0.2.1", "evil.example", "128.0.0.1"]) assert.ok(!isLoopback(h), h);
  });
});

// The Inspector's CLI (package @modelcontextprotocol/inspector-cli) over Streamable HTTP.
describe("MCP Inspector CLI over HTTP", () => {
  let fx;
  let server;
  before(async () => {
    fx = fixture();
    server = await startServer(["--root", fx.root]);
  });
  after(async () => {
    await server?.stop();
    fx?.cleanup();
  });
  const inspect = (headers, ...args) =>
    spawnSync(NODE, [INSPECTOR, "--cli", server.url, "--transport", "http", ...headers.flatMap((h) => ["--header", h]), ...args], {
      cwd: path.dirname(INSPECTOR),
      encoding: "utf8",
      timeout: 60_000,
    });

  // (the Inspector runs on node, whatever runs the tests)
  test("lists the tools and calls one with the token; fails without it", { ...notUnderWine(WINE.nodeFetch), timeout: 120_000 }, () => {
    const list = inspect([`Authorization: Bearer ${TOKEN}`], "--method", "tools/list");
    assert.equal(list.status, 0, list.stderr);
    const { tools } = JSON.parse(list.stdout);
    assert.deepEqual(tools.slice(-2).map((t) => t.name), CACHE_TOOLS);
    assert.ok(tools.find((t) => t.name === "read_file").outputSchema);
    const call = inspect([`Authorization: Bearer ${TOKEN}`], "--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=a.txt");
    assert.equal(call.status, 0, call.stderr);
    assert.equal(JSON.parse(call.stdout).structuredContent.content, "hello\nworld\n");
    const denied = inspect([`Authorization: Bearer ${TOKEN}`], "--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=link/canary.txt");
    assert.equal(JSON.parse(JSON.parse(denied.stdout).content[0].text).error.denied, "sandbox");
    const refused = inspect([], "--method", "tools/list");
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr + refused.stdout, /401|Unauthorized/);
  });
});
