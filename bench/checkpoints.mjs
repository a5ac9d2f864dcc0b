// The cost of the undo journal (`createAgentToolkit(context, { checkpoints })`) and of the syntax
// check after edits (`syntaxCheck: "report"`), each variant interleaved with its baseline in one
// run so that both see the same machine state:
//
//   1. write_file of 1 MiB over an existing 1 MiB file, with the journal and without (two
//      workspaces); target: the journal adds at most 20 %.
//   2. edit_file of one line in a 200-line file (read_file first, untimed), with and without,
//      while the journal is short and once it is at its bound of 200 checkpoints; target: at
//      most +1 ms.
//   3. toolkit.checkpoints.restore(first) after 100 write_file calls over 100 small files;
//      target: under 100 ms.
//   4. edit_file of a 5 000-line TypeScript file, a change that keeps it valid and one that adds
//      a syntax error, with `syntaxCheck: "report"` and without; target: under 5 ms added.
//   5. exec_command of a command that changes 10 files (`sh -c`, shell_mode "direct") in a
//      committed git work tree of 5 000 and of 20 000 files, with the journal and without, and
//      `git status --porcelain` in the same tree (spawned from this runtime); the journal's
//      added time per command, half of it ("snapshot": one is taken before the command and one
//      after) and snapshot / git status; target: ≤ 1.5x at 20 000 files. Then the same command
//      in the 20 000 files without `.git` (the journal's metadata scan), with and without.
//
//   node bench/checkpoints.mjs [--quick]      (or: bun bench/checkpoints.mjs)
//
// Each case first waits (10 s at most) for a quiet machine; its rows get a † when it did not
// come. A run starts a minute after the previous one removed its files at the earliest. Prints
// medians and p95 per variant and the added time (median with − median without). Uses whichever
// addon `agent-tools-native` loads (NAPI_RS_NATIVE_LIBRARY_PATH for a given build).
// Everything is written under os.tmpdir() and removed at the end.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawnSync } from "node:child_process";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { makeTree, prng } from "./fixture.mjs";
import { waitQuiet } from "./warm.mjs";

const quick = process.argv.includes("--quick");
const N = (full, small) => (quick ? small : full);
const policy = { tools: {}, defaultPolicy: "allow" };
// A file system that has just freed many inodes (the 45 000 files a previous run removes) can
// make every new file slower for a while, and the journal's cases create files: ext4 without a
// journal (this development machine's root) skips, when it looks for a free inode, each one
// deleted less than 60 s ago, or less than 360 s ago while its inode table block has not been
// written back. So a run removes its files, then runs `sync` (the blocks written back), then
// notes the time in the temporary directory; the next run starts at least COOL_DOWN_MS later.
const COOL_DOWN_MS = 65_000;
const cleanedMark = path.join(os.tmpdir(), "atn-bench-cp.cleaned");
const cleanedAt = fs.existsSync(cleanedMark) ? fs.statSync(cleanedMark).mtimeMs : 0;
const coolDown = cleanedAt + COOL_DOWN_MS - Date.now();
if (coolDown > 0) {
  console.error(`waiting ${(coolDown / 1000).toFixed(0)} s after the previous run's removal of its files`);
  await new Promise((resolve) => setTimeout(resolve, coolDown));
}
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-bench-cp-")));
// removed however the script ends (a failed check throws)
process.on("exit", () => {
  fs.rmSync(base, { recursive: true, force: true });
  spawnSync("sync");
  fs.writeFileSync(cleanedMark, "");
});
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
}

/** A workspace `<base>/<name>/ws` (made if missing) and, with `journal`, its journal beside it. */
function toolkitFor(name, { journal = false, syntaxCheck, root } = {}) {
  const dir = path.join(base, name);
  const ws = root ?? path.join(dir, "ws");
  fs.mkdirSync(ws, { recursive: true });
  const context = createToolContext({ workspaceRoot: ws, policy });
  const toolkit = createAgentToolkit(context, {
    extraTools: ["edit_file"],
    ...(journal ? { checkpoints: { dir: path.join(dir, "journal") } } : {}),
    ...(syntaxCheck ? { syntaxCheck } : {}),
  });
  return { ws, toolkit, file: (rel) => path.join(ws, rel) };
}

async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

/**
 * Runs `step(variant, i)` for every variant, `warmup + iterations` times, the order of the
 * variants rotated each round; returns the samples of the measured rounds by variant.
 */
async function interleaved(variants, { warmup, iterations }, step) {
  const samples = Object.fromEntries(variants.map((v) => [v, []]));
  for (let i = 0; i < warmup + iterations; i++) {
    const order = variants.map((_, k) => variants[(k + i) % variants.length]);
    for (const v of order) {
      const took = await step(v, i);
      if (i >= warmup) samples[v].push(took);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([v, s]) => [v, stats(s)]));
}

const rows = [];
/**
 * Before each case: wait (10 s at most) for a quiet machine (less than 15% of the CPU time busy
 * over half a second); the rows of a case that started on a busy machine are marked †.
 */
function quietMark() {
  spawnSync("sync"); // no write-back of an earlier case's files during this one
  const start = performance.now();
  const quiet = waitQuiet({ maxMs: 10_000 });
  console.error(`${new Date().toISOString()}: ${quiet ? "quiet" : "busy"} after ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return quiet ? "" : " †";
}
const ms = (v) => `${v.toFixed(v < 10 ? 3 : 1)} ms`;
const cell = (s) => `${ms(s.median)} (p95 ${ms(s.p95)})`;
const verdict = (ok) => (ok ? "met" : "**missed**");

// ── 1. write_file 1 MiB ─────────────────────────────────────────────────────────────────────
{
  const mark = quietMark();
  const variants = { plain: toolkitFor("w-plain"), journal: toolkitFor("w-journal", { journal: true }) };
  const line = (i, rev) => `line ${String(i).padStart(7, "0")} rev ${rev} ${"x".repeat(44)}\n`;
  const mib = (rev) => {
    let text = "";
    for (let i = 0; text.length < 1024 * 1024 - 80; i++) text += line(i, rev);
    return text.padEnd(1024 * 1024, "y");
  };
  for (const v of Object.values(variants)) fs.writeFileSync(v.file("big.txt"), mib(-1));
  // new content every call (the prior state the journal keeps is new each time)
  const contents = Array.from({ length: 2 }, (_, k) => mib(k));
  let rev = 0;
  const s = await interleaved(["plain", "journal"], { warmup: 5, iterations: N(60, 15) }, async (v, i) => {
    const content = `rev ${i} ${rev++}\n${contents[i % 2]}`.slice(0, 1024 * 1024);
    const [took, out] = await timed(() => variants[v].toolkit.invoke("write_file", { path: "big.txt", content }));
    if (out.content.bytes_written !== content.length) throw new Error(JSON.stringify(out.content));
    return took;
  });
  const ratio = s.journal.median / s.plain.median;
  rows.push([`write_file 1 MiB over a 1 MiB file${mark}`, cell(s.plain), cell(s.journal), `+${ms(s.journal.median - s.plain.median)} (${ratio.toFixed(2)}x)`, "≤ 1.20x", verdict(ratio <= 1.2)]);
}

// ── 2. edit_file, one line of a 200-line file ───────────────────────────────────────────────
// Each journalled call reads every checkpoint record of the journal (to number the new one and
// to prune), so the cost is taken twice: while the journal is short (20–119 checkpoints) and
// once it is at its bound (200 whole checkpoints and up to as many records of pruned ones: each
// call prunes one).
{
  const mark = quietMark();
  const variants = { plain: toolkitFor("e-plain"), journal: toolkitFor("e-journal", { journal: true }) };
  const text = Array.from({ length: 200 }, (_, i) => (i === 100 ? "export const marker = 0;" : `export function f${i}(x: number): number { return x * ${i}; }`)).join("\n") + "\n";
  for (const v of Object.values(variants)) fs.writeFileSync(v.file("small.ts"), text);
  const total = N(450, 260);
  const phases = [
    ["a journal of 20–119 checkpoints", 20, N(120, 60)],
    ["the journal at its bound (200, pruning each call)", total - N(100, 30), total],
  ];
  const samples = { plain: [], journal: [] };
  for (let n = 0; n < total; n++) {
    for (const v of n % 2 ? ["journal", "plain"] : ["plain", "journal"]) {
      const { toolkit } = variants[v];
      await toolkit.invoke("read_file", { path: "small.ts" });
      const [took] = await timed(() => toolkit.invoke("edit_file", { path: "small.ts", old_string: `export const marker = ${n};`, new_string: `export const marker = ${n + 1};` }));
      samples[v].push(took);
    }
  }
  const kept = (await variants.journal.toolkit.checkpoints.list()).length;
  for (const [label, from, to] of phases) {
    const plain = stats(samples.plain.slice(from, to));
    const journal = stats(samples.journal.slice(from, to));
    const added = journal.median - plain.median;
    rows.push([`edit_file, one line of a 200-line file, ${label}${mark}`, cell(plain), cell(journal), `+${ms(added)}`, "≤ +1 ms", verdict(added <= 1)]);
  }
  console.error(`edit_file: ${total} journalled edits, ${kept} checkpoint records listed at the end`);
}

// ── 3. restore after 100 write_file calls ───────────────────────────────────────────────────
{
  const mark = quietMark();
  const samples = [];
  const listed = [];
  const reps = N(8, 3);
  for (let r = 0; r < reps + 1; r++) {
    const { toolkit, file } = toolkitFor(`r-${r}`, { journal: true });
    fs.mkdirSync(file("src"), { recursive: true });
    const original = (i) => `// file ${i}\n${"export const value = 1;\n".repeat(40)}`;
    for (let i = 0; i < 100; i++) fs.writeFileSync(file(`src/f${i}.ts`), original(i));
    for (let i = 0; i < 100; i++) await toolkit.invoke("write_file", { path: `src/f${i}.ts`, content: `// file ${i}, rewritten\n` });
    const [listTook, list] = await timed(() => toolkit.checkpoints.list());
    if (list.length !== 100) throw new Error(`${list.length} checkpoints`);
    const [took, outcome] = await timed(() => toolkit.checkpoints.restore(list[0].id));
    if (outcome.restored !== list[0].id || fs.readFileSync(file("src/f99.ts"), "utf8") !== original(99)) throw new Error("restore did not restore");
    if (r > 0) {
      samples.push(took); // the first repetition is the warm-up
      listed.push(listTook);
    }
  }
  const s = stats(samples);
  rows.push([`checkpoints.restore(first) of 100 write_file calls (100 files back)${mark}`, "—", cell(s), "—", "< 100 ms", verdict(s.median < 100)]);
  rows.push([`checkpoints.list() of those 100 checkpoints${mark}`, "—", cell(stats(listed)), "—", "—", ""]);
}

// ── 4. syntax check, 5 000-line TypeScript file ─────────────────────────────────────────────
const MARKER = "export const marker = 0;";
/** Deterministic TypeScript: interfaces, classes with methods, functions; `lines` lines. */
function typescript(lines) {
  const rand = prng(5000);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const NAMES = ["User", "Order", "Invoice", "Session", "Route", "Widget", "Cache", "Token", "Report", "Queue"];
  const TYPES = ["string", "number", "boolean", "Date", "string[]", "Map<string, number>", "Record<string, unknown>"];
  const out = ["import { EventEmitter } from \"node:events\";", ""];
  for (let k = 0; ; k++) {
    // the line the edits change, in the middle of the file
    if (!out.includes(MARKER) && out.length >= lines / 2) out.push(MARKER, "");
    const block = [];
    const name = `${pick(NAMES)}${k}`;
    block.push(`/** A ${name.toLowerCase()} record as the service stores it. */`, `export interface ${name}Data {`);
    const fields = 3 + Math.floor(rand() * 5);
    for (let f = 0; f < fields; f++) block.push(`  field${f}${rand() < 0.3 ? "?" : ""}: ${pick(TYPES)};`);
    block.push("}", "");
    block.push(`export class ${name}Store extends EventEmitter {`, `  private readonly items = new Map<string, ${name}Data>();`, `  private hits = 0;`, "");
    block.push(`  constructor(private readonly limit: number = ${10 + Math.floor(rand() * 90)}) {`, "    super();", "  }", "");
    block.push(`  get(id: string): ${name}Data | undefined {`, "    this.hits += 1;", "    return this.items.get(id);", "  }", "");
    block.push(`  put(id: string, value: ${name}Data): void {`, "    if (this.items.size >= this.limit) {", "      const first = this.items.keys().next().value;", "      if (first !== undefined) this.items.delete(first);", "    }", "    this.items.set(id, value);", `    this.emit("put", id);`, "  }", "");
    block.push(`  async *entries(): AsyncGenerator<[string, ${name}Data]> {`, "    for (const entry of this.items) yield entry;", "  }", "}", "");
    block.push(`export function summarize${name}(items: readonly ${name}Data[], scale = ${k + 1}): { count: number; score: number } {`);
    block.push("  let score = 0;", "  for (const [i, item] of items.entries()) {", `    score += (Object.keys(item).length * scale + i) % ${7 + (k % 13)};`, "  }", "  return { count: items.length, score };", "}", "");
    block.push(`export const ${name.toLowerCase()}Handler = async (input: Partial<${name}Data>): Promise<string> => {`, "  const keys = Object.keys(input).filter((key) => key.startsWith(\"field\"));", "  return keys.length > 0 ? `${keys.join(\",\")}` : \"empty\";", "};", "");
    if (out.length + block.length > lines) break;
    out.push(...block);
  }
  while (out.length < lines) out.push(`// padding ${out.length}`);
  return out.join("\n") + "\n";
}
{
  const source = typescript(5000);
  const mark = quietMark();
  const variants = { plain: toolkitFor("s-plain"), report: toolkitFor("s-report", { syntaxCheck: "report" }) };
  for (const v of Object.values(variants)) fs.writeFileSync(v.file("big.ts"), source);
  const count = { plain: 0, report: 0 };
  const valid = { plain: [], report: [] };
  const broken = { plain: [], report: [] };
  const warmup = 5;
  const iterations = N(40, 10);
  let diagnostics;
  for (let i = 0; i < warmup + iterations; i++) {
    for (const v of i % 2 ? ["report", "plain"] : ["plain", "report"]) {
      const { toolkit } = variants[v];
      const edit = async (old_string, new_string) => {
        await toolkit.invoke("read_file", { path: "big.ts" });
        return timed(() => toolkit.invoke("edit_file", { path: "big.ts", old_string, new_string }));
      };
      const n = count[v]++;
      // a change that keeps the file valid
      const [a, okOut] = await edit(`export const marker = ${n};`, `export const marker = ${n + 1};`);
      // one that adds an error, then (untimed) its fix
      const [b, badOut] = await edit(`export const marker = ${n + 1};`, `export const marker = (${n + 1};`);
      await edit(`export const marker = (${n + 1};`, `export const marker = ${n + 1};`);
      if (v === "report") {
        if (okOut.content.diagnostics?.length !== 0) throw new Error(`valid edit: ${JSON.stringify(okOut.content)}`);
        if (!(badOut.content.diagnostics?.length > 0)) throw new Error(`broken edit: ${JSON.stringify(badOut.content)}`);
        diagnostics = badOut.content.diagnostics;
      }
      if (i >= warmup) {
        valid[v].push(a);
        broken[v].push(b);
      }
    }
  }
  for (const [label, samples] of [["keeps it valid", valid], ["adds a syntax error", broken]]) {
    const plain = stats(samples.plain);
    const report = stats(samples.report);
    const added = report.median - plain.median;
    rows.push([`edit_file of a 5 000-line .ts file, a change that ${label}: syntaxCheck "report"${mark}`, cell(plain), cell(report), `+${ms(added)}`, "< +5 ms", verdict(added < 5)]);
  }
  console.error(`syntax check: ${source.length} bytes of TypeScript; the broken edit reported ${JSON.stringify(diagnostics)}`);
}

// ── 5. commands in a git work tree and outside git ──────────────────────────────────────────
const git = (cwd, ...args) => execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", ...args], { cwd, env: GIT_ENV, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 });

/**
 * A committed work tree of `files` files (bench/fixture.mjs's generator, one file per leaf
 * directory) plus the 10 files the command rewrites, its objects packed.
 */
function workTree(root, files) {
  const written = makeTree(root, files, { git: false });
  fs.mkdirSync(path.join(root, "cmd"));
  for (let i = 0; i < 10; i++) {
    written.push(path.join(root, "cmd", `c${i}.txt`));
    fs.writeFileSync(written.at(-1), "initial\n");
  }
  // every file a minute old, so that the index has no racily clean entries (git would hash
  // those again on every status and every snapshot)
  const old = new Date(Date.now() - 60_000);
  for (const file of [...written, path.join(root, ".gitignore")]) fs.utimesSync(file, old, old);
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  // no automatic gc in the background (git commit would start one, detached, that packs the
  // objects while the cases run); the objects packed now instead, as in a clone
  git(root, "-c", "gc.auto=0", "-c", "maintenance.auto=false", "commit", "-q", "-m", "fixture");
  git(root, "gc", "-q");
}

function gitStatus(root) {
  const start = performance.now();
  const r = spawnSync("git", ["status", "--porcelain"], { cwd: root, env: GIT_ENV, stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 26 });
  const took = performance.now() - start;
  if (r.status !== 0) throw new Error(`git status: ${r.status}`);
  return took;
}

/** The 10-file command (new content each call) through `toolkit`; its time. */
async function command(toolkit, n) {
  const script = `for i in 0 1 2 3 4 5 6 7 8 9; do echo "call $1" > cmd/c$i.txt; done`;
  const [took, out] = await timed(() => toolkit.invoke("exec_command", { cwd: ".", command: ["sh", "-c", script, "sh", String(n)], shell_mode: "direct" }));
  if (out.content.exit_code !== 0) throw new Error(JSON.stringify(out.content));
  return took;
}

const commandRows = [];
let callNumber = 0;
async function commandCase(label, root, { gitStatusToo, iterations }) {
  const plain = toolkitFor(`x-plain-${label}`, { root });
  const journal = toolkitFor(`x-journal-${label}`, { root, journal: true });
  const mark = quietMark();
  const variants = ["plain", "journal", ...(gitStatusToo ? ["git status"] : [])];
  const s = await interleaved(variants, { warmup: 2, iterations }, async (v) => {
    if (v === "git status") return gitStatus(root);
    return command(v === "plain" ? plain.toolkit : journal.toolkit, callNumber++);
  });
  // the last checkpoint names the 10 files (restorable in git; outside git a scan keeps no
  // contents, so modified files are named but cannot be put back)
  const list = await journal.toolkit.checkpoints.list();
  const last = list.at(-1);
  if (!last || last.tool !== "exec_command" || last.files.length !== 10 || last.restorable !== gitStatusToo) throw new Error(`checkpoint of the command: ${JSON.stringify(last)}`);
  const added = s.journal.median - s.plain.median;
  const row = { label: `${label}${mark}`, plain: s.plain, journal: s.journal, added, snapshot: added / 2, status: s["git status"], iterations };
  commandRows.push(row);
  return row;
}

{
  const iterations = N(15, 5);
  const t5 = path.join(base, "tree-5000");
  const t20 = path.join(base, "tree-20000");
  const start = performance.now();
  workTree(t5, 5000);
  workTree(t20, 20000);
  // the trees' data written out first, so that no write-back runs during the measurements
  spawnSync("sync");
  console.error(`work trees made in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  for (const root of [t5, t20]) gitStatus(root); // the page cache warm, the index refreshed once
  await commandCase("git work tree, 5 000 files", t5, { gitStatusToo: true, iterations });
  await commandCase("git work tree, 20 000 files", t20, { gitStatusToo: true, iterations });
  // the same tree without git: the metadata scan
  fs.rmSync(path.join(t20, ".git"), { recursive: true, force: true });
  await commandCase("no git, 20 000 files (scan)", t20, { gitStatusToo: false, iterations });
}

// ── the table ───────────────────────────────────────────────────────────────────────────────
const runtime = process.versions.bun ? `Bun ${process.versions.bun}` : `Node ${process.version}`;
console.log(`${runtime} · ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}) · load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}${quick ? " · --quick" : ""}`);
if ([...rows.map((r) => r[0]), ...commandRows.map((r) => r.label)].some((l) => l.endsWith("†"))) console.log("† the case started while the machine was busy (it waited 10 s for a quiet one in vain)");
console.log("");
console.log("| case | without | with | added | target | |\n| --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
for (const r of commandRows) {
  const isGit = Boolean(r.status);
  const target = r.label.includes("20 000") && isGit;
  console.log(`| exec_command changing 10 files, ${r.label}: journal (n=${r.iterations}) | ${cell(r.plain)} | ${cell(r.journal)} | +${ms(r.added)} | ${target ? "snapshot ≤ 1.5x git status" : "—"} | ${target ? verdict(r.snapshot / r.status.median <= 1.5) : ""} |`);
}
console.log("");
console.log("| work tree | journal added per command | snapshot (added / 2) | git status --porcelain | snapshot / git status |\n| --- | --- | --- | --- | --- |");
for (const r of commandRows.filter((r) => r.status)) {
  console.log(`| ${r.label} | ${ms(r.added)} | ${ms(r.snapshot)} | ${cell(r.status)} | ${(r.snapshot / r.status.median).toFixed(3)}x |`);
}
