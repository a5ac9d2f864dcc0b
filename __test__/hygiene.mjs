// The exec_command process-hygiene workload (issue #9 item 4), shared by
// exec_hygiene.test.mjs (a short run) and scripts/exec-hygiene.mjs (1 000 calls):
// many exec_command calls — normal exits, timeouts of a shell whose two `sleep` children form a
// process group (also with SIGTERM ignored, so only the SIGKILL after the grace period ends
// them), and aborts through an AbortSignal — then a scan of /proc for survivors, zombies and
// leaked descriptors. Linux only.
import fs from "node:fs";
import { asTools } from "agent-tools-native";

/** Every process, as `{ pid, ppid, pgid, state, cmdline }`. */
export function processes() {
  const list = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, "latin1").replaceAll("\0", " ");
      list.push({ pid: Number(name), ppid: Number(ppid), pgid: Number(pgid), state, cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return list;
}

/** Open descriptors of this process. */
export function openFds() {
  return fs.readdirSync("/proc/self/fd").length;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `count` exec_command calls on `toolkit`, `concurrency` at a time, and checks each result.
 * Every shell prints its pid (= its process group id) first and its `sleep`s carry `marker` as
 * their duration, so what they leave behind can be found.
 */
export async function runWorkload(toolkit, { count, concurrency = 32, marker }) {
  const exec = asTools(toolkit).find((t) => t.name === "exec_command");
  const groupScript = `echo $$; sleep ${marker} & sleep ${marker}`;
  const tally = { normal: 0, sharedSignal: 0, timeout: 0, timeoutIgnoringTerm: 0, abort: 0, abortBeforeStart: 0 };
  // A timed-out shell killed before it printed its pid (on a loaded machine) had not started its
  // children either: the call is made again with a longer timeout (up to 40 times the first, still
  // short of the marker's 30 s sleeps), until one kills a group with children (`silent` counts
  // the calls made again).
  let silent = 0;
  /** Whether the shell printed its group (which is then kept). */
  const groupOf = (stdout) => {
    if (stdout === "") {
      silent++;
      return false;
    }
    pgids.add(Number(stdout.trim()));
    return true;
  };
  const longer = (ms) => [ms, ms * 4, ms * 16, ms * 40];
  // One signal for many calls that is never aborted, as a tool loop passes its own.
  const shared = new AbortController();
  const pgids = new Set();
  const failures = [];
  const check = (ok, what) => {
    if (!ok && failures.length < 20) failures.push(what);
  };
  const calls = {
    async normal(i) {
      const { content } = await toolkit.invoke("exec_command", { cwd: ".", command: ["sh", "-c", `(echo child ${i}) & wait; echo done`] });
      check(content.exit_code === 0 && content.stdout === `child ${i}\ndone\n` && !content.timed_out, `normal ${i}: ${JSON.stringify(content)}`);
    },
    async sharedSignal(i) {
      const result = await exec.executeRaw(JSON.stringify({ cwd: ".", command: ["echo", `shared ${i}`] }), { signal: shared.signal });
      check(result.type === "json" && result.value.stdout === `shared ${i}\n`, `shared signal ${i}: ${JSON.stringify(result)}`);
    },
    async timeout(i) {
      for (const timeout_ms of longer(500)) {
        const result = await toolkit.tools.exec_command({ cwd: ".", command: ["sh", "-c", groupScript], timeout_ms });
        const out = result.data;
        check(result.status === "success" && out.timed_out && out.exit_code === 124, `timeout ${i}: ${JSON.stringify(result)}`);
        if (!out || groupOf(out.stdout)) return;
      }
    },
    async timeoutIgnoringTerm(i) {
      for (const timeout_ms of longer(250)) {
        const { content } = await toolkit.invoke("exec_command", { cwd: ".", command: ["sh", "-c", `trap "" TERM; ${groupScript}`], timeout_ms });
        check(content.timed_out && content.exit_code === 124, `timeout ignoring TERM ${i}: ${JSON.stringify(content)}`);
        if (groupOf(content.stdout)) return;
      }
    },
    async abort(i) {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 20 + (i % 40));
      const result = await exec.executeRaw(JSON.stringify({ cwd: ".", command: ["sh", "-c", groupScript], timeout_ms: 60_000 }), { signal: controller.signal });
      check(result.is_error && result.text === "Error executing tool: INTERNAL: the call was aborted", `abort ${i}: ${JSON.stringify(result)}`);
    },
    async abortBeforeStart(i) {
      const result = await exec.executeRaw(JSON.stringify({ cwd: ".", command: ["sh", "-c", groupScript] }), { signal: AbortSignal.abort() });
      check(result.is_error && result.text === "Error executing tool: the tool loop was aborted", `abort before start ${i}: ${JSON.stringify(result)}`);
    },
  };
  // Per 20 calls: 8 normal exits, 2 normal exits under a shared signal, 4 timeouts, 1 timeout
  // ignoring SIGTERM, 4 aborts while running, 1 abort before the start.
  const plan = ["normal", "timeout", "normal", "abort", "sharedSignal", "timeout", "normal", "abort", "normal", "timeoutIgnoringTerm",
    "normal", "timeout", "normal", "abort", "sharedSignal", "timeout", "normal", "abort", "normal", "abortBeforeStart"];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const kind = plan[i % plan.length];
      tally[kind]++;
      try {
        await calls[kind](i);
      } catch (error) {
        check(false, `${kind} ${i} threw: ${error.message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { tally, pgids, silent, failures };
}

/**
 * Processes left by the workload, after giving killed ones up to `settleMs` to finish dying:
 * living members of its process groups or carrying its marker, and zombie children of this
 * process.
 */
export async function leftovers({ pgids, marker, settleMs = 30_000 }) {
  const find = () => {
    const all = processes();
    return {
      survivors: all.filter((p) => p.state !== "Z" && p.pid !== process.pid && (pgids.has(p.pgid) || p.cmdline.includes(marker))),
      zombies: all.filter((p) => p.state === "Z" && p.ppid === process.pid),
    };
  };
  const started = Date.now();
  let found = find();
  while ((found.survivors.length || found.zombies.length) && Date.now() - started < settleMs) {
    await sleep(50);
    found = find();
  }
  return found;
}
