// MCP round trips over Streamable HTTP next to stdio: the same calls to `agent-tools-native mcp`
// spawned twice, once on stdio and once with `--http 127.0.0.1:0` (bearer token), both driven by
// the official SDK client from this process, calls interleaved in one run so both see the same
// machine.
//
//   node bench/mcp_http.mjs [--iterations N] [--addon FILE] [--write]
//
// Cases (a small workspace under .bench/mcp-http, 20 source files):
// - task_list of a one-task list (the smallest call: the round trip itself);
// - tools/list (the whole tool list, about 30 KB of JSON);
// - read_file of a 100-line file;
// - regexp_search over the 20 files;
// - opening a session: over HTTP initialize + initialized + tools/list on a new session of the
//   running server; over stdio spawning the server and the same three messages.
// `--addon` loads that native binary (NAPI_RS_NATIVE_LIBRARY_PATH); `--write` puts the table into
// bench/README.md between the mcp-http markers.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { writeReadmeTable } from "./readme_table.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const iterations = Number(option("--iterations", "200"));
const addon = option("--addon", undefined);
const env = { ...process.env, ...(addon ? { NAPI_RS_NATIVE_LIBRARY_PATH: path.resolve(addon) } : {}) };
const BIN = path.join(repo, "js", "cli.cjs");

const root = path.join(repo, ".bench", "mcp-http");
fs.mkdirSync(path.join(root, "src"), { recursive: true });
const small = `${Array.from({ length: 100 }, (_, i) => `line ${i + 1}: some text for a small read`).join("\n")}\n`;
fs.writeFileSync(path.join(root, "small.txt"), small);
for (let i = 0; i < 20; i++) {
  fs.writeFileSync(path.join(root, "src", `m${i}.js`), `export function f${i}(x) {\n  return x + ${i};\n}\n`.repeat(20));
}

const token = randomBytes(24).toString("hex");
const headers = { Authorization: `Bearer ${token}` };

/** The HTTP server: spawned once, its URL read from its start-up line. */
const httpServer = spawn(process.execPath, [BIN, "mcp", "--http", "127.0.0.1:0", "--root", root, "--max-sessions", String(iterations + 10)], {
  env: { ...env, AGENT_TOOLS_NATIVE_TOKEN: token },
  stdio: ["ignore", "ignore", "pipe"],
});
const url = await new Promise((resolve, reject) => {
  let text = "";
  httpServer.stderr.on("data", (d) => {
    text += d;
    const match = /MCP server on (http:\/\/\S+)/.exec(text);
    if (match) resolve(new URL(match[1]));
  });
  httpServer.on("exit", (code) => reject(new Error(`the HTTP server exited with ${code}: ${text}`)));
});

async function openStdio() {
  const client = new Client({ name: "atn-bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--root", root], env, stderr: "ignore" }));
  await client.listTools();
  return client;
}

async function openHttp() {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const client = new Client({ name: "atn-bench", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return { client, transport };
}

const sides = { stdio: { client: await openStdio() }, http: await openHttp() };

function fail(what) {
  throw new Error(`unexpected result from ${what}`);
}

for (const side of Object.values(sides)) await side.client.callTool({ name: "task_create_many", arguments: { tasks: [{ title: "one" }] } });

const cases = [
  { title: "task_list, one task", run: (c) => c.callTool({ name: "task_list", arguments: {} }).then((r) => r.structuredContent?.tasks.length === 1 || fail("task_list")) },
  { title: "tools/list", run: (c) => c.listTools().then((r) => r.tools.length >= 13 || fail("tools/list")) },
  {
    title: "read_file, 100-line file",
    run: (c) => c.callTool({ name: "read_file", arguments: { path: "small.txt" } }).then((r) => r.structuredContent?.content === small || fail("read_file")),
  },
  {
    title: "regexp_search, 20 files",
    run: (c) => c.callTool({ name: "regexp_search", arguments: { pattern: "return x \\+ 7;" } }).then((r) => r.structuredContent?.items.length === 20 || fail("regexp_search")),
  },
];

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
const us = (ms) => `${Math.round(ms * 1000).toLocaleString("en-US").replace(/,/g, " ")} µs`;

// Warm-up: every case 30 times on both sides before any is measured (JIT, caches).
for (let i = 0; i < 30; i++) for (const c of cases) for (const side of ["stdio", "http"]) await c.run(sides[side].client);

const rows = [];
for (const c of cases) {
  const samples = { stdio: [], http: [] };
  for (let i = 0; i < iterations; i++) {
    for (const side of i % 2 ? ["http", "stdio"] : ["stdio", "http"]) {
      const begin = performance.now();
      await c.run(sides[side].client);
      samples[side].push(performance.now() - begin);
    }
  }
  const [a, b] = [median(samples.stdio), median(samples.http)];
  rows.push(`| ${c.title} | ${us(a)} | ${us(b)} | ${(b / a).toFixed(2)}x | ${iterations} |`);
}

// Opening a session: fewer runs (stdio spawns a process each time).
const opens = Math.max(5, Math.round(iterations / 20));
const open = { stdio: [], http: [] };
for (let i = 0; i < opens; i++) {
  let begin = performance.now();
  const s = await openStdio();
  open.stdio.push(performance.now() - begin);
  await s.close();
  begin = performance.now();
  const h = await openHttp();
  open.http.push(performance.now() - begin);
  await h.transport.terminateSession();
  await h.client.close();
}
const [oa, ob] = [median(open.stdio), median(open.http)];
rows.push(`| open a session (stdio: spawn; HTTP: new session) + initialize + tools/list | ${us(oa)} | ${us(ob)} | ${(ob / oa).toFixed(2)}x | ${opens} |`);

await sides.stdio.client.close();
await sides.http.transport.terminateSession();
await sides.http.client.close();
httpServer.kill("SIGTERM");

const sdkVersion = JSON.parse(fs.readFileSync(path.join(repo, "node_modules", "@modelcontextprotocol", "sdk", "package.json"), "utf8")).version;
const cpu = os.cpus()[0]?.model.replace(/\s+/g, " ").trim() ?? "unknown CPU";
const table = [
  `Run: ${new Date().toISOString()} · ${os.cpus().length} cores (${cpu}) · Node ${process.version} · SDK ${sdkVersion} · ` +
    `addon: ${addon ? path.basename(addon) : "the repository's build"}`,
  "",
  "| case | stdio (median) | Streamable HTTP (median) | HTTP / stdio | runs |",
  "| --- | --- | --- | --- | --- |",
  ...rows,
].join("\n");
console.log(table);

if (args.includes("--write")) writeReadmeTable(path.join(here, "README.md"), "mcp-http", table);
