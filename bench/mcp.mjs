// MCP round trips, side by side: `tools/call` latency of this package's MCP server (bin
// `agent-tools-native mcp`) and of the protocol's reference file server
// (`@modelcontextprotocol/server-filesystem`), each spawned over stdio and driven by the official
// SDK client from this process, calls interleaved in one run so both see the same machine.
//
//   node bench/mcp.mjs [--iterations N] [--addon FILE] [--write]
//
// Cases (the 5 000-file tree of bench/fixture.mjs, under .bench/):
// - a small read: our read_file vs its read_text_file, a 100-line file;
// - a content search: our regexp_search for an identifier that is not there (every file is read)
//   vs its search_files, the nearest it has: a glob over file *names* (it cannot search contents),
//   so its figure is a directory walk only and the two do not do the same work.
// `--addon` loads that native binary (NAPI_RS_NATIVE_LIBRARY_PATH), e.g. a release build;
// `--write` puts the table into bench/README.md between the mcp markers.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { makeTree } from "./fixture.mjs";
import { writeReadmeTable } from "./readme_table.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const iterations = Number(option("--iterations", "40"));
const addon = option("--addon", undefined);

const root = path.join(repo, ".bench", "mcp-tree-5000");
if (!fs.existsSync(path.join(root, ".complete"))) {
  console.error("== generating the 5 000-file fixture");
  makeTree(root, 5000, { git: false });
  fs.writeFileSync(path.join(root, ".complete"), "");
}
const small = Array.from({ length: 100 }, (_, i) => `line ${i + 1}: some text for a small read`).join("\n") + "\n";
fs.writeFileSync(path.join(root, "small.txt"), small);

async function start(label, command, commandArgs, env = {}) {
  const began = performance.now();
  const transport = new StdioClientTransport({ command, args: commandArgs, env: { ...process.env, ...env }, stderr: "ignore" });
  const client = new Client({ name: "atn-bench", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return { label, client, startup: performance.now() - began };
}

const ours = await start("agent-tools-native mcp", process.execPath, [path.join(repo, "js", "cli.cjs"), "mcp", "--root", root], addon ? { NAPI_RS_NATIVE_LIBRARY_PATH: path.resolve(addon) } : {});
const theirs = await start("server-filesystem", process.execPath, [
  path.join(repo, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"),
  root,
]);

/** One call, checked: a result, not an error. */
async function call(server, name, callArgs, check) {
  const result = await server.client.callTool({ name, arguments: callArgs });
  if (result.isError) throw new Error(`${server.label} ${name}: ${JSON.stringify(result.content)}`);
  check(result);
}

const cases = [
  {
    title: "small read (100-line file)",
    ours: ["read_file", { path: "small.txt" }, (r) => r.structuredContent.content === small || fail("read_file")],
    theirs: ["read_text_file", { path: path.join(root, "small.txt") }, (r) => r.content[0].text === small || fail("read_text_file")],
    theirsWhat: "read_text_file",
  },
  {
    title: "search, 5 000 files",
    ours: [
      "regexp_search",
      { pattern: "no_such_identifier" },
      (r) => (r.structuredContent.items.length === 0 && r.structuredContent.scanned_files >= 4900) || fail("regexp_search"),
    ],
    theirs: ["search_files", { path: root, pattern: "**/*no_such_identifier*" }, (r) => /No matches/i.test(r.content[0].text) || fail("search_files")],
    theirsWhat: "search_files (file names only: no content search)",
    iterations: Math.max(10, Math.round(iterations / 2)),
  },
];

function fail(what) {
  throw new Error(`unexpected result from ${what}`);
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
}

const ms = (v) => (v < 1 ? `${(v * 1000).toFixed(0)} µs` : `${v.toFixed(2)} ms`);
const rows = [];
for (const c of cases) {
  const n = c.iterations ?? iterations;
  const samples = { ours: [], theirs: [] };
  for (let i = 0; i < 3; i++) {
    await call(ours, ...c.ours);
    await call(theirs, ...c.theirs);
  }
  for (let i = 0; i < n; i++) {
    // Interleaved, alternating who goes first.
    for (const side of i % 2 ? ["theirs", "ours"] : ["ours", "theirs"]) {
      const server = side === "ours" ? ours : theirs;
      const begin = performance.now();
      await call(server, ...c[side]);
      samples[side].push(performance.now() - begin);
    }
  }
  const a = stats(samples.ours);
  const b = stats(samples.theirs);
  rows.push(
    `| ${c.title} | ${c.ours[0]}: ${ms(a.median)} (p95 ${ms(a.p95)}) | ${c.theirsWhat}: ${ms(b.median)} (p95 ${ms(b.p95)}) | ${(a.median / b.median).toFixed(2)}x | ${n} |`,
  );
}
rows.push(`| start-up (spawn → initialize → tools/list) | ${ms(ours.startup)} | ${ms(theirs.startup)} | ${(ours.startup / theirs.startup).toFixed(2)}x | 1 |`);
await ours.client.close();
await theirs.client.close();

const fsVersion = JSON.parse(fs.readFileSync(path.join(repo, "node_modules", "@modelcontextprotocol", "server-filesystem", "package.json"), "utf8")).version;
const sdkVersion = JSON.parse(fs.readFileSync(path.join(repo, "node_modules", "@modelcontextprotocol", "sdk", "package.json"), "utf8")).version;
const cpu = os.cpus()[0]?.model.replace(/\s+/g, " ").trim() ?? "unknown CPU";
const table = [
  `Run: ${new Date().toISOString()} · ${os.cpus().length} cores (${cpu}) · Node ${process.version} · ` +
    `server-filesystem ${fsVersion} · SDK ${sdkVersion} · addon: ${addon ? path.basename(addon) : "the repository's build"}`,
  "",
  "| case | agent-tools-native mcp (median) | server-filesystem (median) | ratio | calls |",
  "| --- | --- | --- | --- | --- |",
  ...rows,
].join("\n");
console.log(table);

if (args.includes("--write")) writeReadmeTable(path.join(here, "README.md"), "mcp", table);
