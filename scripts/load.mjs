// `npm run load [-- <calls> [<warmup> [<every>]] [--json]]` (also `bun scripts/load.mjs ...`):
// sequential invokes of cheap tools on the current runtime (issue #9 item 5); by default
// 100 000 calls, the resident set size sampled every 10 000 calls after a 10 000-call warm-up,
// each sample after a full garbage collection. Prints the samples and the growth in MiB, in
// total and per 10 000 calls (`--json`: the samples as one JSON line, for load.test.mjs).
import { workspace } from "../__test__/helpers.mjs";
import { sequentialLoad } from "../__test__/load_workload.mjs";

const numbers = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number);
const [calls = 100_000, warmup = 10_000, every = 10_000] = numbers;
const json = process.argv.includes("--json");
const runtime = typeof Bun === "undefined" ? `node ${process.version}` : `bun ${Bun.version}`;
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
const ws = workspace();
try {
  const { samples, seconds } = await sequentialLoad(ws, { calls, warmup, every });
  if (json) {
    console.log(JSON.stringify({ runtime, seconds, samples }));
  } else {
    console.log(`load (${runtime}): ${calls} sequential invokes in ${seconds.toFixed(1)} s (${Math.round(calls / seconds)} calls/s)`);
    for (const s of samples) console.log(`  after ${String(s.calls).padStart(6)} calls: rss ${mib(s.rss)} MiB, js heap ${mib(s.heapUsed)} MiB`);
    const first = samples[0];
    const last = samples.at(-1);
    const perTenK = (last.rss - first.rss) / (last.calls / 10_000);
    console.log(`  rss growth: ${mib(last.rss - first.rss)} MiB in total, ${mib(perTenK)} MiB per 10 000 calls`);
  }
} finally {
  ws.cleanup();
}
