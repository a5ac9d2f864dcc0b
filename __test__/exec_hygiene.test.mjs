// exec_command process hygiene (issue #9 item 4): 1 000 calls — normal exits (also under one
// long-lived AbortSignal, as a tool loop passes), timeouts killing a shell and its two `sleep`
// children (also with SIGTERM ignored), aborts while running and before the start — leave no
// living process of those process groups, no zombie child and no open descriptor behind.
// The same workload with other counts: `npm run exec-hygiene -- <calls>`.
import { test } from "./harness.mjs";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { workspace, onlyOn, NEEDS } from "./helpers.mjs";
import { runWorkload, leftovers, openFds } from "./hygiene.mjs";

const CALLS = 1000;

// A fixed amount of work (about 4 s on an idle 2-core machine); the timeout only catches a hang.
test(`${CALLS} exec_command calls leave no process, zombie or descriptor behind`, { ...onlyOn(["linux"], NEEDS.processGroup), timeout: 600_000 }, async () => {
  const ws = workspace();
  // A `sleep` duration no other process uses: the marker the /proc scan looks for.
  const marker = `30.${process.pid}${Date.now() % 100000}`;
  try {
    // The scan does find a living process that carries the marker.
    const control = spawn("sleep", [marker], { stdio: "ignore" });
    await new Promise((resolve) => control.once("spawn", resolve));
    const seen = await leftovers({ pgids: new Set(), marker, settleMs: 0 });
    assert.deepEqual(seen.survivors.map((p) => p.pid), [control.pid]);
    const exited = new Promise((resolve) => control.once("exit", resolve));
    control.kill("SIGKILL");
    await exited;

    // Warm-up, so descriptors a runtime opens lazily on its first child processes do not count
    // (measured: none on Node 20 and Bun 1.4, the count returns exactly even without it).
    await runWorkload(ws.toolkit, { count: 40, marker });
    const fdsBefore = openFds();
    const { tally, pgids, silent, failures } = await runWorkload(ws.toolkit, { count: CALLS, marker });
    assert.deepEqual(failures, [], "every call has the right result");
    assert.deepEqual(tally, { normal: 400, sharedSignal: 100, timeout: 200, timeoutIgnoringTerm: 50, abort: 200, abortBeforeStart: 50 });
    assert.equal(pgids.size, 250, `every timed-out call killed a group with children (${silent} made again with a longer timeout)`);

    const { survivors, zombies } = await leftovers({ pgids, marker });
    assert.deepEqual(survivors, [], "no process of those groups survives");
    assert.deepEqual(zombies, [], "no zombie child of this process");
    assert.equal(openFds(), fdsBefore, "open descriptors are back to their count before the calls");
  } finally {
    ws.cleanup();
  }
});
