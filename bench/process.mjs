// The process tools against Node's child_process, in one run: the time from process_start to the
// first output (a command that prints at once and stays), against spawn to the first `data`
// event; and a process_read of output already buffered. The sandboxed variant adds
// `exec: { sandbox: "auto" }`. Prints medians and p95 and the ratios.
//
//   node bench/process.mjs [iterations]      (or: bun bench/process.mjs)
//
// Uses whichever addon `agent-tools-native` loads (the release build after `npm run bench`).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import v8 from "node:v8";
import vm from "node:vm";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { worstTimerDelay } from "./warm.mjs";

const iterations = Number(process.argv[2] ?? 200);
const warmup = 20;
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-bench-proc-")));
const policy = { tools: {}, defaultPolicy: "allow" };
const TOOLS = ["process_start", "process_read", "process_kill"];
const toolkit = (exec) => createAgentToolkit(createToolContext({ workspaceRoot: dir, policy, ...(exec ? { exec } : {}) }), { extraTools: TOOLS });
const plain = toolkit();
const sandboxed = toolkit({ sandbox: "auto" });
const command = ["sh", "-c", "echo ready; exec sleep 300"];

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95) };
}

async function viaTool(tk) {
  const start = performance.now();
  const p = (await tk.invoke("process_start", { cwd: dir, command, wait_for: "ready", wait_ms: 30000 })).content;
  const took = performance.now() - start;
  await tk.invoke("process_kill", { process_id: p.process_id, signal: "SIGKILL" });
  return took;
}

function viaChildProcess() {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn(command[0], command.slice(1), { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    child.stdout.once("data", () => {
      const took = performance.now() - start;
      child.kill("SIGKILL");
      child.once("exit", () => resolve(took));
    });
  });
}

const variants = { child_process: [], process_start: [], "process_start (sandbox auto)": [] };
for (let i = 0; i < warmup + iterations; i++) {
  const a = await viaChildProcess();
  const b = await viaTool(plain);
  const c = await viaTool(sandboxed);
  if (i >= warmup) {
    variants.child_process.push(a);
    variants.process_start.push(b);
    variants["process_start (sandbox auto)"].push(c);
  }
}

// A read of buffered output: 100 lines waiting in the buffer, read again and again from cursor 0.
const p = (await plain.invoke("process_start", { cwd: dir, command: ["sh", "-c", "seq 1 100; exec sleep 300"], wait_for: "^100$", wait_ms: 30000 })).content;
const reads = [];
for (let i = 0; i < warmup + iterations * 5; i++) {
  const start = performance.now();
  await plain.invoke("process_read", { process_id: p.process_id, cursor: 0 });
  if (i >= warmup) reads.push(performance.now() - start);
}
await plain.invoke("process_kill", { process_id: p.process_id, signal: "SIGKILL" });

// The host memory of idle processes: RSS before and after starting 32 that print nothing, the
// JavaScript heap collected both times (the calls' own garbage is not the processes' cost).
const collect = () => {
  if (globalThis.Bun) Bun.gc(true);
  else {
    v8.setFlagsFromString("--expose-gc");
    vm.runInNewContext("gc")();
  }
};
const IDLE = 32;
const idleToolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy }), { extraTools: TOOLS, processes: { maxRunning: IDLE } });
const idleStart = () => idleToolkit.invoke("process_start", { cwd: dir, command: ["sleep", "300"], wait_ms: 0 });
// one start and kill first, so that what the first call sets up once is not counted
await idleToolkit.invoke("process_kill", { process_id: (await idleStart()).content.process_id, signal: "SIGKILL" });
const idle = [];
await new Promise((resolve) => setTimeout(resolve, 200));
collect();
const idleBefore = process.memoryUsage().rss;
for (let i = 0; i < IDLE; i++) idle.push((await idleStart()).content.process_id);
await new Promise((resolve) => setTimeout(resolve, 500));
collect();
const perIdle = (process.memoryUsage().rss - idleBefore) / IDLE;
for (const id of idle) await idleToolkit.invoke("process_kill", { process_id: id, signal: "SIGKILL" });
await idleToolkit.close();

// The event loop while a 200 MB flood drains: the worst delay of a 1 ms timer.
const floodCommand = ["sh", "-c", "head -c 200000000 /dev/zero | tr '\\0' x; echo; echo end"];
const { worst, value: flood } = await worstTimerDelay(async () => (await plain.invoke("process_start", { cwd: dir, command: floodCommand, wait_for: "end", wait_ms: 30000 })).content);
await plain.close();
await sandboxed.close();
fs.rmSync(dir, { recursive: true, force: true });

const runtime = process.versions.bun ? `Bun ${process.versions.bun}` : `Node ${process.version}`;
console.log(`${runtime} · ${os.cpus().length} cores · ${iterations} starts per variant, ${iterations * 5} reads`);
console.log("| variant | median | p95 | vs child_process (median) |\n| --- | --- | --- | --- |");
const base = stats(variants.child_process).median;
for (const [name, samples] of Object.entries(variants)) {
  const s = stats(samples);
  console.log(`| ${name}: start to first output | ${s.median.toFixed(3)} ms | ${s.p95.toFixed(3)} ms | ${(s.median / base).toFixed(2)}x |`);
}
const r = stats(reads);
console.log(`| process_read of buffered output (100 lines) | ${r.median.toFixed(3)} ms | ${r.p95.toFixed(3)} ms | — |`);
console.log(`idle process: ${(perIdle / 1024).toFixed(0)} KiB of host RSS each (${IDLE} started, nothing written, the heap collected)`);
console.log(`200 MB flood (${flood.status}, ${flood.dropped_bytes} bytes dropped): worst 1 ms timer delay ${worst.toFixed(2)} ms`);
