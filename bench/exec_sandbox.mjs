// The cost of exec_command's OS sandbox (README, "Reliability"): the same command (`true`) run
// through `toolkit.invoke` with the sandbox off and on, interleaved in one run so that both see
// the same machine state. Prints the median and p95 per variant and the extra time per call.
//
//   node bench/exec_sandbox.mjs [iterations]      (or: bun bench/exec_sandbox.mjs)
//
// Uses whichever addon `agent-tools-native` loads (the debug build after `npm test`, the release
// build after `npm run bench`); the binary in use is printed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { createAgentToolkit, createToolContext } from "agent-tools-native";

const iterations = Number(process.argv[2] ?? 300);
const warmup = 30;
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-bench-sbx-")));
const policy = { tools: {}, defaultPolicy: "allow" };

const variants = [
  ["off", "workspace-write", undefined],
  ["auto, workspace-write", "workspace-write", { sandbox: "auto" }],
  ["auto, workspace-write, network deny", "workspace-write", { sandbox: "auto", network: "deny" }],
  ["auto, read-only", "read-only", { sandbox: "auto" }],
].map(([name, writeScope, exec]) => ({
  name,
  toolkit: createAgentToolkit(createToolContext({ workspaceRoot: dir, policy, writeScope, exec })),
  samples: [],
}));

const input = { cwd: dir, command: ["true"] };
let sandbox;
for (let i = 0; i < warmup + iterations; i++) {
  for (const variant of variants) {
    const start = performance.now();
    const out = await variant.toolkit.invoke("exec_command", input);
    const took = performance.now() - start;
    if (out.content.exit_code !== 0) throw new Error(`${variant.name}: ${JSON.stringify(out.content)}`);
    if (variant.name !== "off") sandbox = out.content.sandbox;
    if (i >= warmup) variant.samples.push(took);
  }
}
fs.rmSync(dir, { recursive: true, force: true });

const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (v) => `${v.toFixed(3)} ms`;
const runtime = typeof Bun === "undefined" ? `Node ${process.version}` : `Bun ${Bun.version}`;
const addon = Object.keys(createRequire(import.meta.url).cache ?? {}).find((f) => f.endsWith(".node")) ?? "(see binding.js)";
console.log(`${runtime} · ${os.cpus().length} cores · ${iterations} calls per variant · sandbox ${JSON.stringify(sandbox)}`);
console.log(`addon: ${addon}`);
const off = [...variants[0].samples].sort((a, b) => a - b);
console.log("| variant | median | p95 | extra (median) |\n| --- | --- | --- | --- |");
for (const variant of variants) {
  const sorted = [...variant.samples].sort((a, b) => a - b);
  const extra = at(sorted, 0.5) - at(off, 0.5);
  console.log(`| ${variant.name} | ${ms(at(sorted, 0.5))} | ${ms(at(sorted, 0.95))} | ${variant.name === "off" ? "—" : ms(extra)} |`);
}
