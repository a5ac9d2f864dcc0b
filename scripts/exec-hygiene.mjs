// `npm run exec-hygiene [-- <calls>]` (default 1 000; run it with node or bun): exec_command
// process hygiene (issue #9 item 4). Runs the workload of __test__/hygiene.mjs — normal exits,
// timeouts killing a shell and its two `sleep` children (also with SIGTERM ignored), aborts
// through an AbortSignal — then reports surviving processes of those process groups, zombie
// children of this process and the change in open file descriptors. Exits 1 on any leftover.
import { workspace } from "../__test__/helpers.mjs";
import { runWorkload, leftovers, openFds } from "../__test__/hygiene.mjs";

const count = Number(process.argv[2] ?? 1000);
const runtime = typeof Bun === "undefined" ? `node ${process.version}` : `bun ${Bun.version}`;
const marker = `30.${process.pid}${Date.now() % 100000}`;
const ws = workspace();
try {
  // Warm-up: lazily created runtime descriptors (thread pools, event handles) appear here.
  await runWorkload(ws.toolkit, { count: 40, marker });
  const fdsBefore = openFds();
  const started = Date.now();
  const { tally, pgids, silent, failures } = await runWorkload(ws.toolkit, { count, marker });
  const seconds = (Date.now() - started) / 1000;
  const { survivors, zombies } = await leftovers({ pgids, marker });
  const fdsAfter = openFds();
  console.log(`exec hygiene (${runtime}): ${count} calls in ${seconds.toFixed(1)} s — ${JSON.stringify(tally)}`);
  console.log(`  process groups checked: ${pgids.size} (+${silent} timed-out calls made again: their shells were killed before they started children); surviving processes: ${survivors.length}; zombie children: ${zombies.length}`);
  console.log(`  open fds: ${fdsBefore} before, ${fdsAfter} after (${fdsAfter - fdsBefore >= 0 ? "+" : ""}${fdsAfter - fdsBefore})`);
  for (const f of failures) console.log(`  wrong result: ${f}`);
  for (const p of [...survivors, ...zombies]) console.log(`  leftover: ${JSON.stringify(p)}`);
  if (failures.length || survivors.length || zombies.length || fdsAfter !== fdsBefore) process.exitCode = 1;
} finally {
  ws.cleanup();
}
