// The sequential load workload (issue #9 item 5), shared by load.test.mjs (a short run) and
// scripts/load.mjs (100 000 calls): cheap invokes in a fixed mix — successes, tool errors and
// sandbox denials through invoke and toolkit.tools.*, worker-pool and session tools — with the
// resident set size sampled at fixed intervals after a warm-up, each sample after a full
// garbage collection so that only memory that is really kept shows.
import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import assert from "node:assert/strict";

/** A full garbage collection, in Bun and in Node (where `gc` is exposed on demand). */
export function forceGc() {
  if (typeof Bun !== "undefined") return Bun.gc(true);
  if (typeof globalThis.gc !== "function") {
    v8.setFlagsFromString("--expose-gc");
    globalThis.gc = vm.runInNewContext("gc");
  }
  globalThis.gc();
}

/** The mix: one entry per call kind, each checking its result. */
function mix(ws) {
  const { toolkit } = ws;
  return [
    async () => assert.equal((await toolkit.invoke("read_file", { path: "a.txt" })).content.content, "alpha\nbeta\n"),
    async () => assert.equal((await toolkit.tools.read_file("a.txt", { start_line: 2 })).data.content, "beta\n"),
    async () => assert.equal((await toolkit.invoke("tree", { path: "src" })).content.root.path, "src"),
    async () => assert.equal((await toolkit.invoke("task_list", {})).content.tasks.length, 1),
    async () => assert.equal((await toolkit.invoke("task_validate_completion", {})).content.ok, false),
    async () => assert.equal((await toolkit.invoke("write_file", { path: "out.txt", content: "x" })).content.bytes_written, 1),
    async () => assert.equal((await toolkit.invoke("regexp_search", { pattern: "beta", root_path: "src" })).content.items.length, 1),
    async () => {
      await assert.rejects(toolkit.invoke("read_file", { path: "missing.txt" }), { code: "NOT_FOUND" });
    },
    async () => {
      await assert.rejects(toolkit.invoke("read_file", { path: "../x" }), /Sandbox Violation/);
    },
    async () => assert.equal((await toolkit.tools.tree("../x")).status, "denied"),
  ];
}

/**
 * Runs `warmup` then `calls` sequential invokes on `ws` (from helpers.workspace()) and samples
 * the RSS (and the JS heap) after the warm-up and after every `every` calls.
 */
export async function sequentialLoad(ws, { calls, warmup, every }) {
  fs.writeFileSync(path.join(ws.root, "a.txt"), "alpha\nbeta\n");
  fs.writeFileSync(path.join(ws.root, "src", "b.txt"), "beta\n");
  await ws.toolkit.invoke("task_create_many", { tasks: [{ title: "one" }] });
  const kinds = mix(ws);
  const sample = (done) => {
    forceGc();
    const { rss, heapUsed } = process.memoryUsage();
    return { calls: done, rss, heapUsed };
  };
  for (let i = 0; i < warmup; i++) await kinds[i % kinds.length]();
  const samples = [sample(0)];
  const started = Date.now();
  for (let i = 0; i < calls; i++) {
    await kinds[i % kinds.length]();
    if ((i + 1) % every === 0) samples.push(sample(i + 1));
  }
  return { samples, seconds: (Date.now() - started) / 1000 };
}
