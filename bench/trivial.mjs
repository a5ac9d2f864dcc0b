// The per-call cost of the trivial tools (the todo tools and a small read_file), this package
// next to agent-tools-ts v0.6.0 in the same process, calls interleaved so both see the same
// machine state. agent-tools-ts is not an npm package: pass a checkout of its v0.6.0 source
// (`git clone` of its repository, tag v0.6.0); it is bundled once with `bun build` into .bench/
// so that Node can load it too (its read_file needs Bun: under Node that row has no reference).
//
//   node bench/trivial.mjs --reference <agent-tools-ts checkout> [--write] [--rounds N]
//   bun bench/trivial.mjs --breakdown        where a todo call's time goes (ours; or with node)
//
// Each batch is timed by the clock and by the process's CPU time (`process.cpuUsage()`), which
// leaves out the time the process waited for a core on a loaded machine.
//
// Runs itself under Node and under Bun (a child process each) and prints the table; `--write`
// puts it into bench/README.md ("Per-call cost of the trivial tools"). Uses whichever addon
// `agent-tools-native` loads (build the release addon first: `npm run build`).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync, execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeReadmeTable } from "./readme_table.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const work = path.join(repo, ".bench");
const bun = path.join(repo, "node_modules/.bin/bun");
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);

/** The task list of the todo cases: 20 tasks, every other one with a description. */
const TASKS = Array.from({ length: 20 }, (_, i) => ({
  title: `Step ${i + 1}: change the module and its tests`,
  ...(i % 2 ? { description: "Run the targeted tests, then the whole suite." } : {}),
}));

/** Each case: [label, setup(toolkit, context) → one call]. */
const CASES = [
  ["task_list, 20 tasks", async (tk) => {
    await tk.invoke("task_create_many", { tasks: TASKS });
    return () => tk.invoke("task_list", {});
  }],
  ["task_create_many, 20 tasks", async (tk) => () => tk.invoke("task_create_many", { tasks: TASKS })],
  ["task_update (title changes), 20 tasks", async (tk) => {
    const { content } = await tk.invoke("task_create_many", { tasks: TASKS });
    const id = content.tasks[7].task_id;
    let i = 0;
    return () => tk.invoke("task_update", { task_id: id, title: `Renamed ${i++ % 2}` });
  }],
  ["task_update_status (status changes), 20 tasks", async (tk) => {
    const { content } = await tk.invoke("task_create_many", { tasks: TASKS });
    const id = content.tasks[7].task_id;
    let i = 0;
    return () => tk.invoke("task_update_status", { task_id: id, status: i++ % 2 ? "todo" : "done" });
  }],
  ["task_validate_completion, 20 tasks", async (tk) => {
    await tk.invoke("task_create_many", { tasks: TASKS });
    return () => tk.invoke("task_validate_completion", {});
  }],
  ["read_file, small file (300 lines, first 200)", async (tk) => () => tk.invoke("read_file", { path: "small.txt" })],
  // the same todo calls through `toolkit.tools.<name>(input)` (a result envelope, never rejects)
  ["tools.task_list, 20 tasks", async (tk) => {
    await tk.tools.task_create_many({ tasks: TASKS });
    return () => tk.tools.task_list({});
  }],
  ["tools.task_create_many, 20 tasks", async (tk) => () => tk.tools.task_create_many({ tasks: TASKS })],
  ["tools.task_update (title changes), 20 tasks", async (tk) => {
    const { data } = await tk.tools.task_create_many({ tasks: TASKS });
    const id = data.tasks[7].task_id;
    let i = 0;
    return () => tk.tools.task_update({ task_id: id, title: `Renamed ${i++ % 2}` });
  }],
  ["tools.task_update_status (status changes), 20 tasks", async (tk) => {
    const { data } = await tk.tools.task_create_many({ tasks: TASKS });
    const id = data.tasks[7].task_id;
    let i = 0;
    return () => tk.tools.task_update_status({ task_id: id, status: i++ % 2 ? "todo" : "done" });
  }],
  ["tools.task_validate_completion, 20 tasks", async (tk) => {
    await tk.tools.task_create_many({ tasks: TASKS });
    return () => tk.tools.task_validate_completion({});
  }],
];

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Inside a child: every case, ours and the reference interleaved in batches; µs per call. */
async function child(bundle, rounds) {
  const ours = await import("agent-tools-native");
  const ref = await import(pathToFileURL(bundle).href);
  const policy = { tools: {}, defaultPolicy: "allow" };
  const results = [];
  for (const [label, setup] of CASES) {
    const make = async (lib) => {
      const context = lib.createToolContext({ workspaceRoot: work, policy });
      const call = await setup(lib.createAgentToolkit(context), context);
      try {
        await call();
        return call;
      } catch (error) {
        return { error: String(error?.message ?? error).split("\n")[0] };
      }
    };
    const sides = { ours: await make(ours), ref: await make(ref) };
    const batch = label.startsWith("read_file") ? 20 : 200;
    const samples = { ours: [], ref: [] };
    const cpuSamples = { ours: [], ref: [] };
    const cpu = () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    };
    for (let round = 0; round < rounds + 5; round++) {
      for (const side of round % 2 ? ["ours", "ref"] : ["ref", "ours"]) {
        const call = sides[side];
        if (typeof call !== "function") continue;
        const start = performance.now();
        const startCpu = cpu();
        for (let i = 0; i < batch; i++) await call();
        const perCall = ((performance.now() - start) * 1000) / batch;
        const perCallCpu = (cpu() - startCpu) / batch;
        // the first rounds warm up
        if (round >= 5) {
          samples[side].push(perCall);
          cpuSamples[side].push(perCallCpu);
        }
      }
    }
    const value = (side, from) => (typeof sides[side] === "function" ? median(from[side]) : sides[side].error);
    results.push({ label, ours: value("ours", samples), ref: value("ref", samples), oursCpu: value("ours", cpuSamples), refCpu: value("ref", cpuSamples) });
  }
  return results;
}

/**
 * Where a todo call's time goes, ours only (`--breakdown`, Bun or Node): the whole `invoke`, the
 * native entry with the state and context handles in hand (`callTool` with the packed request:
 * the arguments read by napi, the checks, the tool, its answer), the same entry for an
 * unregistered name (what any call pays before the tool: napi, the request as an object, the
 * arguments, the first check), and the two per-call steps of the JavaScript side that the
 * session tools add: the context handle and the in-step check of the 20-task list; beside them
 * the timing loop alone and the cheapest native call. Medians of CPU time per call.
 */
async function breakdown() {
  const { createRequire } = await import("node:module");
  const require = createRequire(import.meta.url);
  const native = require("../binding.js");
  const { createAgentToolkit, createToolContext } = require("../js/index.cjs");
  const { todoStore } = require("../js/todo_state.cjs");
  const { contextHandle } = require("../js/context.cjs");
  const { packCall, DOOR_INVOKE, REGISTERED, RUN_BUILT_IN } = require("../js/native_call.cjs");
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const time = async (fn) => {
    for (let i = 0; i < 2000; i++) await fn();
    const rounds = [];
    for (let r = 0; r < 15; r++) {
      const start = cpu();
      for (let i = 0; i < 1000; i++) await fn();
      rounds.push((cpu() - start) / 1000);
    }
    return median(rounds);
  };
  const context = createToolContext({ workspaceRoot: work, policy: { tools: {}, defaultPolicy: "allow" } });
  const toolkit = createAgentToolkit(context);
  const id = (await toolkit.invoke("task_create_many", { tasks: TASKS })).content.tasks[7].task_id;
  const handle = contextHandle(context);
  // the request as invoke packs it for a registry tool (ts/native_call.cts, `packCall`)
  const request = (name) => packCall(name, DOOR_INVOKE | REGISTERED | RUN_BUILT_IN);
  const rows = [];
  for (const [name, args] of [["task_list", {}], ["task_validate_completion", {}], ["task_update_status", { task_id: id, status: "done" }]]) {
    const store = todoStore(context);
    rows.push({
      name,
      invoke: await time(() => toolkit.invoke(name, args)),
      callTool: await time(() => native.callTool(request(name), handle, args, store, process.env)),
    });
  }
  const floor = await time(() => native.callTool({ door: "invoke", name: "no_such_tool", registered: false, isWriteOp: false, bypass: false, runBuiltIn: true }, handle, {}, null, process.env));
  const handleCost = await time(() => contextHandle(context));
  const inStep = await time(() => todoStore(context));
  // what the timing loop itself costs (an awaited plain value), and the cheapest native call
  // there is (a new, empty todo store: one small allocation)
  const loop = await time(() => undefined);
  const bareNative = await time(() => native.todoStoreNew());
  return { rows, floor, handle: handleCost, inStep, loop, bareNative };
}

/** The targets of the redesign: todo tools ≤ 2x, a small read_file ≤ 0.35x. */
const target = (label) => (label.startsWith("read_file") ? 0.35 : 2);

function table(byRuntime) {
  const rows = [];
  for (const [i, [label]] of CASES.entries()) {
    for (const [runtime, results] of byRuntime) {
      const { ours, ref, oursCpu, refCpu } = results[i];
      const show = (v) => (typeof v === "number" ? `${v.toFixed(2)} µs` : `— (${v})`);
      const ratioOf = (a, b) => (typeof a === "number" && typeof b === "number" ? a / b : undefined);
      const ratio = ratioOf(ours, ref);
      const cpuRatio = ratioOf(oursCpu, refCpu);
      const verdict = ratio === undefined ? "" : ratio <= target(label) ? " met" : ` missed (≤ ${target(label)}x)`;
      const both = typeof ref === "number";
      rows.push(
        `| ${label} | ${runtime} | ${show(ours)} | ${show(ref)} | ${ratio === undefined ? "—" : `${ratio.toFixed(2)}x`}${verdict} | ${show(oursCpu)}${both ? ` / ${show(refCpu)}` : ""} | ${cpuRatio === undefined ? "—" : `${cpuRatio.toFixed(2)}x`} |`,
      );
    }
  }
  return rows;
}

async function orchestrate() {
  const reference = option("--reference", process.env.AGENT_TOOLS_TS_DIR);
  if (!reference) throw new Error("pass --reference <agent-tools-ts v0.6.0 checkout> (or AGENT_TOOLS_TS_DIR)");
  const rounds = Number(option("--rounds", "100"));
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(work, "small.txt"), Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n"));
  const bundle = path.join(work, "agent-tools-ts.bundle.mjs");
  execFileSync(bun, ["build", path.join(reference, "src/lib.ts"), "--target=node", "--format=esm", `--outfile=${bundle}`], { stdio: "ignore" });
  const version = JSON.parse(fs.readFileSync(path.join(reference, "package.json"), "utf8")).version;
  const byRuntime = [];
  for (const runtime of ["node", "bun"]) {
    const bin = runtime === "bun" ? bun : process.execPath;
    const r = spawnSync(bin, [fileURLToPath(import.meta.url), "--child", bundle, "--rounds", String(rounds)], { cwd: repo, encoding: "utf8", maxBuffer: 1 << 24 });
    const line = r.stdout.trim().split("\n").pop();
    if (r.status !== 0 || !line) throw new Error(`${runtime}: ${r.stderr}`);
    byRuntime.push([runtime, JSON.parse(line)]);
  }
  const cpu = os.cpus()[0]?.model ?? "unknown";
  const load = os.loadavg()[0].toFixed(1);
  const lines = [
    `Run: ${new Date().toISOString()} · ${os.cpus().length} cores (${cpu}), load ≈ ${load} · Node ${process.version} · Bun ${execFileSync(bun, ["--version"]).toString().trim()} · agent-tools-ts ${version} · ${rounds} rounds, medians`,
    "",
    "| case | runtime | ours (µs/call) | agent-tools-ts (µs/call) | ratio | CPU time: ours / agent-tools-ts (µs/call) | CPU ratio |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...table(byRuntime),
  ].join("\n");
  console.log(lines);
  if (args.includes("--write")) writeReadmeTable(path.join(here, "README.md"), "trivial", lines);
}

if (args.includes("--breakdown")) {
  const b = await breakdown();
  const runtime = typeof Bun === "undefined" ? `Node ${process.version}` : `Bun ${Bun.version}`;
  console.log(`${runtime}, CPU µs per call (medians); the timing loop: ${b.loop.toFixed(2)}; the cheapest native call (todoStoreNew): ${b.bareNative.toFixed(2)}; any call's floor (callTool, unregistered name): ${b.floor.toFixed(2)}; context handle: ${b.handle.toFixed(2)}; in-step check, 20 tasks: ${b.inStep.toFixed(2)}`);
  for (const r of b.rows) console.log(`${r.name}: invoke ${r.invoke.toFixed(2)}, callTool ${r.callTool.toFixed(2)}`);
} else if (args.includes("--child")) {
  console.log(JSON.stringify(await child(option("--child"), Number(option("--rounds", "100")))));
} else {
  await orchestrate();
}
