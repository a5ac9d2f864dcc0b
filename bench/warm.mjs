// Warm and cold searches: regexp_search and ast_grep_search with the per-workspace search cache
// (`createToolContext({ searchCacheBytes })`, `native.searchCacheWait()`), each against its
// reference tool. Used by run.mjs: `node bench/run.mjs --warm` runs only these cases (scales
// 1 000, 5 000, 20 000; `--scale-200k` adds 200 000), a full `node bench/run.mjs` runs them after
// the other cases.
//
// Per search (kind), scale and runtime:
//   - `reps` pairs of fresh processes, interleaved: one whose context has the cache off
//     (`searchCacheBytes: 0`) makes ONE call (today's cold first call); one with the default
//     budget makes the first call and the call right after it (no wait);
//   - one process that makes a first call, awaits `searchCacheWait()`, then times warm calls
//     (median of `WARM_CALLS`), the worst delay of a 1 ms timer during more warm calls, and
//     calls after editing 10 files each (the edits checked in the results, then undone);
//   - the reference tool (rg / ast-grep CLI), the same commands as the cold rows.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { restoreTreeEdits, treeEditor, treeFileExt } from "./fixture.mjs";

export const AST_GREP_PARSE_PATTERN = "$F($A, $B, $C, $D, $E)";

/** The searches: the same inputs as the cold rows of run.mjs. */
export const WARM_KINDS = {
  regexp_literal: {
    label: "regexp_search literal",
    tool: "regexp_search",
    input: (root) => ({ pattern: "no_such_identifier", root_path: root, max_results: 500, timeout_ms: 30000 }),
    reference: "rg_literal",
    referenceName: "rg",
    warmTarget: 0.25,
    editTarget: 0.35,
    counts: () => true,
  },
  regexp_regex: {
    label: "regexp_search regex",
    tool: "regexp_search",
    input: (root) => ({ pattern: "fn \\w+_9\\d{4}\\b", root_path: root, max_results: 500, timeout_ms: 30000 }),
    reference: "rg_regex",
    referenceName: "rg",
    warmTarget: 0.25,
    editTarget: 0.35,
    counts: () => true,
  },
  ast_grep: {
    label: "ast_grep_search .ts pattern",
    tool: "ast_grep_search",
    input: (root) => ({ language: "typescript", rule: { pattern: "const $A = nonexistent($B)" }, root_path: root, max_results: 500, timeout_ms: 30000 }),
    reference: "ast_grep_cli",
    referenceName: "ast-grep CLI",
    warmTarget: 0.1,
    editTarget: 0.15,
    counts: (ext) => ext === "ts",
  },
  ast_grep_parse: {
    label: "ast_grep_search .ts pattern without fixed text (every file parsed)",
    tool: "ast_grep_search",
    input: (root) => ({ language: "typescript", rule: { pattern: AST_GREP_PARSE_PATTERN }, root_path: root, max_results: 500, timeout_ms: 30000 }),
    reference: "ast_grep_parse_cli",
    referenceName: "ast-grep CLI",
    warmTarget: 0.1,
    editTarget: 0.15,
    counts: (ext) => ext === "ts",
  },
};

/**
 * The line appended to an edited file: one match for each of the four searches (the literal,
 * the regex `fn \w+_9\d{4}\b`, `const $A = nonexistent($B)` and a five-argument call), so the
 * call after the edits must report exactly the edited lines (of `.ts` files for ast_grep_search).
 */
export const editLine = (n) => `const edited${n} = nonexistent(no_such_identifier); f(1, 2, 3, 4, 5); // fn edited_9${String(n % 10000).padStart(4, "0")}`;

export const FILES_PER_EDIT = 10;
const WARM_CALLS = 12;
const EDIT_CALLS = 10;

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
}

/** The binding itself (for `searchCacheWait`), the one the package loads. */
function nativeBinding(repo) {
  return createRequire(path.join(repo, "package.json"))("./binding.js");
}

/** One timed call: its time, the number of items, or the error code. */
function timedCall(tk, kind, root) {
  const def = WARM_KINDS[kind];
  const input = def.input(root);
  return async () => {
    const start = performance.now();
    try {
      const result = await tk.invoke(def.tool, input);
      return { ms: performance.now() - start, items: result.content.items.length, truncated: result.content.truncated };
    } catch (error) {
      return { ms: performance.now() - start, error: String(error.code ?? error.message) };
    }
  };
}

/** Calls `call` `count` times, but stops after `budgetMs` (of its own time) once `min` calls are done. */
async function repeat(call, { count, min = 3, budgetMs = 60_000, before, after }) {
  const out = [];
  let spent = 0;
  for (let i = 0; i < count; i++) {
    if (i >= min && spent > budgetMs) break;
    if (before) await before(i);
    const start = performance.now();
    out.push(await call());
    spent += performance.now() - start;
    if (after) await after(i);
  }
  return out;
}

/** The reference tool's command for a search: the same as run.mjs's reference cases. */
function referenceCommand(kind, repo, tree) {
  const rg = (...a) => ["rg", ["--hidden", "--no-ignore", "--glob", "!.git", "-n", "--column", ...a, tree]];
  const astGrep = (pattern) => [path.join(repo, "node_modules/.bin/ast-grep"), ["run", "--pattern", pattern, "--lang", "ts", "--json=stream", tree]];
  return {
    regexp_literal: () => rg("-F", "no_such_identifier"),
    regexp_regex: () => rg("fn \\w+_9\\d{4}\\b"),
    ast_grep: () => astGrep("const $A = nonexistent($B)"),
    ast_grep_parse: () => astGrep(AST_GREP_PARSE_PATTERN),
  }[kind]();
}

const summary = (calls) => ({
  ...stats(calls.map((c) => c.ms)),
  errors: [...new Set(calls.filter((c) => c.error).map((c) => c.error))],
  items: [...new Set(calls.map((c) => c.items))],
});

/** The worst lateness of a 1 ms interval timer while `during()` runs, and its value. */
export async function worstTimerDelay(during) {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 1);
    last = now;
  }, 1);
  try {
    return { value: await during(), worst };
  } finally {
    clearInterval(timer);
  }
}

/** How late a tick of a 1 ms timer may be (the event loop bound). */
export const TIMER_BOUND_MS = 5;
/** The least length of one busy window of `timerWindows`. */
const TIMER_WINDOW_MS = 1000;

/**
 * A 1 ms interval timer in alternating windows: `busy` runs once per window (it returns how many
 * calls it made), then a window as long with nothing running; at least 3 rounds and 5 s of
 * busy windows. Per side: the worst lateness of a tick, and
 * how many ticks were later than `TIMER_BOUND_MS`.
 */
export async function timerWindows(busy) {
  const sides = { busy: { worst: 0, late: 0, ticks: 0, ms: 0 }, idle: { worst: 0, late: 0, ticks: 0, ms: 0 } };
  let side = sides.busy;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const lateness = now - last - 1;
    side.worst = Math.max(side.worst, lateness);
    side.late += lateness > TIMER_BOUND_MS ? 1 : 0;
    side.ticks += 1;
    last = now;
  }, 1);
  let calls = 0;
  let rounds = 0;
  try {
    while (rounds < 3 || sides.busy.ms < 5000) {
      side = sides.busy;
      const t = performance.now();
      calls += await busy();
      const ms = performance.now() - t;
      sides.busy.ms += ms;
      side = sides.idle;
      await new Promise((resolve) => setTimeout(resolve, ms));
      sides.idle.ms += ms;
      rounds += 1;
    }
  } finally {
    clearInterval(timer);
  }
  return { worst: sides.busy.worst, idleWorst: sides.idle.worst, late: sides.busy.late, idleLate: sides.idle.late, ticks: sides.busy.ticks, idleTicks: sides.idle.ticks, ms: sides.busy.ms, calls, rounds };
}

/**
 * The child-process side: `warm_first` (one call, or the first two, in a fresh process, with
 * the budget given) and `warm_seq` (first call, wait, warm calls, timer, calls after edits).
 */
export async function runWarmCase(name, { repo, work, scale, kind, budget, calls, refRuns = 0 }) {
  const { createAgentToolkit, createToolContext } = await import("agent-tools-native");
  const native = nativeBinding(repo);
  const hasWait = typeof native.searchCacheWait === "function";
  const wait = hasWait ? () => native.searchCacheWait() : async () => {};
  const policy = { tools: {}, defaultPolicy: "allow" };
  const ctx = createToolContext(budget === "default" ? { workspaceRoot: work, policy } : { workspaceRoot: work, policy, searchCacheBytes: Number(budget) });
  const tk = createAgentToolkit(ctx);
  const tree = path.join(work, `tree-${scale}`);
  const call = timedCall(tk, kind, path.relative(work, tree));
  const big = scale >= 100_000;

  if (name === "warm_first") {
    const first = await call();
    const second = calls > 1 ? await call() : undefined;
    return { median: first.ms, p95: first.ms, n: 1, first, second, hasWait };
  }
  if (name !== "warm_seq") throw new Error(`unknown warm case ${name}`);

  const start = performance.now();
  const first = await call();
  await wait();
  const readyMs = performance.now() - start;
  // what the cache holds once its background work is done (files known, indexed, bytes)
  const cacheStats = () => {
    try {
      return native.searchCacheStats?.(fs.realpathSync(work)) ?? null;
    } catch {
      return null;
    }
  };
  const cacheReady = cacheStats();
  // the reference tool, run between the warm calls (so both share whatever else the machine
  // does at the time): `refRuns` runs after one unmeasured run (none for the CLI at 200 000)
  const [refCmd, refArgs] = referenceCommand(kind, repo, tree);
  const refSamples = [];
  const runRef = () => {
    const t = performance.now();
    const r = spawnSync(refCmd, refArgs, { stdio: ["ignore", "ignore", "ignore"] });
    if (r.error) throw r.error;
    return performance.now() - t;
  };
  if (refRuns > 0 && !(big && kind.startsWith("ast_grep"))) runRef();
  const warm = await repeat(call, {
    count: WARM_CALLS,
    budgetMs: big ? 60_000 : 40_000,
    after: (i) => {
      if (i < refRuns) refSamples.push(runRef());
    },
  });
  while (refSamples.length < refRuns) refSamples.push(runRef());
  // the timer: windows of warm calls (and the background work they leave) alternating with
  // windows as long with nothing running (the control), so both meet the same machine noise
  const eventLoop = await timerWindows(async () => {
    let calls = 0;
    const t = performance.now();
    do {
      await call();
      calls += 1;
    } while (performance.now() - t < TIMER_WINDOW_MS);
    await wait();
    return calls;
  });
  // after edits: the cache settled (the wait), then 10 files edited, then the measured call
  const def = WARM_KINDS[kind];
  const editor = treeEditor(tree, scale, scale * 31 + Object.keys(WARM_KINDS).indexOf(kind));
  const checks = [];
  let edits;
  try {
    edits = await repeat(
      async () => {
        const result = await call();
        const expected = editor.appended.filter(([i]) => def.counts(treeFileExt(i))).length;
        if (!result.error && result.items !== expected) checks.push(`call ${checks.length + 1}: ${result.items} items, ${expected} expected`);
        return result;
      },
      {
        count: EDIT_CALLS,
        budgetMs: big ? 60_000 : 40_000,
        before: async () => {
          await wait();
          editor.edit(FILES_PER_EDIT, editLine);
        },
      },
    );
  } finally {
    editor.restore();
  }
  return {
    median: warm.length ? stats(warm.map((c) => c.ms)).median : undefined,
    p95: undefined,
    n: warm.length,
    hasWait,
    first,
    readyMs,
    cacheReady,
    cacheAfterWarm: cacheStats(),
    reference: refSamples.length ? stats(refSamples) : undefined,
    warm: summary(warm),
    eventLoop,
    edits: { ...summary(edits), editedLines: editor.appended.length, mismatches: checks },
  };
}

// ---- orchestration (the parent) -----------------------------------------------------------------

const median = (xs) => {
  const v = xs.filter((x) => typeof x === "number").sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : undefined;
};

/** The share of the machine's CPU time busy over `ms` (from /proc/stat; 0 where there is none). */
function busyShare(ms) {
  const read = () => {
    try {
      const [, ...v] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
      const idle = v[3] + (v[4] ?? 0);
      return { idle, total: v.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const a = read();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const b = read();
  if (!a || !b || b.total === a.total) return 0;
  return 1 - (b.idle - a.idle) / (b.total - a.total);
}

/**
 * Waits (up to `maxMs`) until the machine is quiet: less than `share` of its CPU time busy over
 * half a second, so a measurement does not share the cores with someone else's build. Returns
 * whether it was quiet.
 */
export function waitQuiet({ share = 0.15, maxMs = 90_000 } = {}) {
  const start = Date.now();
  while (Date.now() - start < maxMs) if (busyShare(500) < share) return true;
  return false;
}

/**
 * Runs the warm cases for `kinds` × `scales` × `runtimes` through `runChild(runtime, name,
 * scale, extraArgs)`, merging each record into `resultsFile` as it comes.
 */
export function orchestrateWarm({ runChild: runChildGiven, work, scales, runtimes, kinds, resultsFile, log }) {
  const results = fs.existsSync(resultsFile) ? JSON.parse(fs.readFileSync(resultsFile, "utf8")) : {};
  const references = {};
  // every process waits for a quiet machine first (counted when it waited in vain)
  // (5 s at most, 1 s while the last three waits were in vain)
  let contended = 0;
  let inVain = 0;
  const runChild = (...a) => {
    if (waitQuiet({ maxMs: inVain >= 3 ? 1000 : 5000 })) inVain = 0;
    else {
      contended++;
      inVain++;
    }
    return runChildGiven(...a);
  };
  for (const scale of scales) {
    restoreTreeEdits(path.join(work, `tree-${scale}`));
    const big = scale >= 100_000;
    for (const kind of kinds) {
      const def = WARM_KINDS[kind];
      for (const runtime of runtimes) {
        // at 200 000 files the reference tools are measured once (from the first runtime):
        // the ast-grep CLI takes most of a minute a run there
        const refKey = big ? `${kind}|${scale}` : `${kind}|${scale}|${runtime}`;
        const reps = big ? (kind === "ast_grep_parse" ? 1 : 3) : 5;
        contended = 0;
        const off = [];
        const on = [];
        for (let r = 0; r < reps; r++) {
          off.push(runChild(runtime, "warm_first", scale, ["--kind", kind, "--budget", "0", "--calls", "1"]));
          on.push(runChild(runtime, "warm_first", scale, ["--kind", kind, "--budget", "default", "--calls", "2"]));
        }
        // the reference runs inside the warm process, between its warm calls
        const refRuns = references[refKey] ? 0 : big ? (kind.startsWith("ast_grep") ? 2 : 5) : kind.startsWith("ast_grep") ? 5 : 10;
        const seq = runChild(runtime, "warm_seq", scale, ["--kind", kind, "--budget", "default", "--ref-runs", String(refRuns)]);
        if (seq.reference) references[refKey] = { ...seq.reference, runtime };
        const ref = references[refKey] ?? { error: "no reference" };
        const errs = [...off, ...on, seq, ref].map((r) => r.error).filter(Boolean);
        const callErrors = [
          ...off.map((r) => r.first?.error),
          ...on.flatMap((r) => [r.first?.error, r.second?.error]),
          seq.first?.error,
          ...(seq.warm?.errors ?? []),
          ...(seq.edits?.errors ?? []),
        ].filter(Boolean);
        const record = {
          kind,
          scale,
          runtime,
          at: new Date().toISOString(),
          hasWait: seq.hasWait ?? on[0]?.hasWait,
          reps,
          firstOff: median(off.map((r) => r.first?.ms)),
          firstOn: median(on.map((r) => r.first?.ms)),
          second: median(on.map((r) => r.second?.ms)),
          firstOffErrors: [...new Set(off.map((r) => r.first?.error ?? r.error).filter(Boolean))],
          firstOnErrors: [...new Set(on.map((r) => r.first?.error ?? r.error).filter(Boolean))],
          secondErrors: [...new Set(on.map((r) => r.second?.error ?? r.error).filter(Boolean))],
          firstOffAll: off.map((r) => r.first?.ms),
          firstOnAll: on.map((r) => r.first?.ms),
          secondAll: on.map((r) => r.second?.ms),
          seqFirst: seq.first?.ms,
          readyMs: seq.readyMs,
          cache: seq.cacheAfterWarm ?? seq.cacheReady ?? null,
          warm: seq.warm,
          eventLoop: seq.eventLoop,
          edits: seq.edits,
          reference: ref.median,
          referenceN: ref.n,
          referenceRuntime: ref.runtime,
          rssOffMiB: Math.max(...off.map((r) => (r.maxRssKiB ?? 0) / 1024)),
          rssFirstMiB: Math.max(...on.map((r) => (r.maxRssKiB ?? 0) / 1024)),
          rssWarmMiB: (seq.maxRssKiB ?? 0) / 1024,
          itemsSeen: [...new Set([...off, ...on].flatMap((r) => [r.first?.items, r.second?.items]).filter((x) => x !== undefined))],
          errors: [...new Set([...errs, ...callErrors])],
          contended,
        };
        results[`${kind}|${scale}|${runtime}`] = record;
        fs.writeFileSync(resultsFile, JSON.stringify(results, null, 1));
        log(`${kind} ${scale} ${runtime}: first on ${fmt(record.firstOn)} off ${fmt(record.firstOff)}, second ${fmt(record.second)}, warm ${fmt(record.warm?.median)}, edits ${fmt(record.edits?.median)}, ref ${fmt(record.reference)}, timer ${fmt(record.eventLoop?.worst)} (idle ${fmt(record.eventLoop?.idleWorst)}, late ticks ${record.eventLoop?.late} / idle ${record.eventLoop?.idleLate}), ready ${fmt(record.readyMs)}, rss ${Math.round(record.rssWarmMiB)} MiB${record.contended ? `, ${record.contended} processes started on a busy machine` : ""}${record.errors.length ? `, errors: ${record.errors.join("; ")}` : ""}${record.edits?.mismatches?.length ? `, edit check: ${record.edits.mismatches.join("; ")}` : ""}`);
      }
    }
  }
  return results;
}

export function fmt(ms) {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return "n/a";
  return ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : ms < 1000 ? `${ms.toFixed(2)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** A time, with the errors of the calls it is made of (a TIMEOUT is the call's 30 s limit). */
const cell = (ms, errors) => (errors?.length ? `${fmt(ms)} (${errors.join(", ")})` : fmt(ms));

function ratio(a, b, target, errors) {
  if (errors?.length) return `— (${errors.join(", ")})`;
  if (typeof a !== "number" || typeof b !== "number" || !b) return "—";
  const r = a / b;
  if (!target) return `${r.toFixed(2)}x`;
  return `${r.toFixed(r < 0.1 ? 3 : 2)}x ${r <= target ? "met" : `**missed** (≤ ${target}x)`}`;
}

/** The markdown table of the warm results. */
export function warmTable(results) {
  const order = Object.keys(WARM_KINDS);
  const rows = Object.values(results).sort(
    (a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || a.scale - b.scale || a.runtime.localeCompare(b.runtime),
  );
  const lines = [
    "| case | files | runtime | first call, cache off | first call, cache on | on / off (≤ 1.05x) | second call | warm (median of n) | after 10 edits (median of n) | reference | warm / reference | edits / reference | timer worst (≤ 5 ms; idle control; ticks late over 5 ms, calls / idle) | index ready | cache: indexed / files, MiB held | peak RSS off / first / warm |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    const def = WARM_KINDS[r.kind];
    // † : some of its processes started while something else kept the machine busy
    const errNote = r.contended ? " †" : "";
    const editNote = r.edits?.mismatches?.length ? ` **wrong results**: ${r.edits.mismatches.length} calls` : "";
    const loop = r.eventLoop;
    const lateTicks = loop?.late !== undefined ? `; ${loop.late} / ${loop.idleLate} ticks over ${TIMER_BOUND_MS} ms in ${(loop.ms / 1000).toFixed(0)} s each` : "";
    const timer = loop ? `${fmt(loop.worst)} ${loop.worst <= TIMER_BOUND_MS ? "met" : "**missed**"} (idle ${fmt(loop.idleWorst)}${lateTicks})` : "—";
    lines.push(
      `| ${def.label}${errNote} | ${r.scale} | ${r.runtime} | ${cell(r.firstOff, r.firstOffErrors)} | ${cell(r.firstOn, r.firstOnErrors)} | ${ratio(r.firstOn, r.firstOff, 1.05, [...(r.firstOffErrors ?? []), ...(r.firstOnErrors ?? [])])} | ${cell(r.second, r.secondErrors)} | ${cell(r.warm?.median, r.warm?.errors)} (${r.warm?.n ?? 0}) | ${cell(r.edits?.median, r.edits?.errors)} (${r.edits?.n ?? 0})${editNote} | ${def.referenceName} ${fmt(r.reference)}${r.referenceRuntime !== r.runtime ? ` (from ${r.referenceRuntime})` : ""} | ${ratio(r.warm?.median, r.reference, def.warmTarget, r.warm?.errors)} | ${ratio(r.edits?.median, r.reference, def.editTarget, r.edits?.errors)} | ${timer} | ${fmt(r.readyMs)} | ${r.cache ? `${r.cache.indexed} / ${r.cache.files}, ${(r.cache.bytes / 2 ** 20).toFixed(0)} MiB` : "—"} | ${Math.round(r.rssOffMiB)} / ${Math.round(r.rssFirstMiB)} / ${Math.round(r.rssWarmMiB)} MiB |`,
    );
  }
  return lines.join("\n");
}

/**
 * Two panels (regexp_search, ast_grep_search), time against tree size on log-log axes: for
 * each search the first call with the cache off (cold, dashed), the warm call (solid) and the
 * reference tool (dotted). Node's figures.
 */
export function warmChart(results, runtime = "node") {
  const W = 900, H = 380, pad = 56, gap = 40;
  const panelW = (W - 2 * pad - gap) / 2;
  const recs = Object.values(results).filter((r) => r.runtime === runtime);
  const scales = [...new Set(recs.map((r) => r.scale))].sort((a, b) => a - b);
  const measures = [
    ["firstOff", "cold (first call, cache off)", "6,4"],
    ["warm", "warm", null],
    ["reference", "reference tool", "2,3"],
  ];
  // a time made of calls that failed (a TIMEOUT at 30 s) is left out of the chart
  const value = (r, m) => (m === "warm" ? (r.warm?.errors?.length ? undefined : r.warm?.median) : m === "firstOff" && r.firstOffErrors?.length ? undefined : r[m]);
  const tick = (v) => (v >= 1000 ? `${v / 1000} s` : v >= 1 ? `${v} ms` : `${Math.round(v * 1000)} µs`);
  const all = recs.flatMap((r) => measures.map(([m]) => value(r, m))).filter((v) => v > 0);
  if (!all.length || !scales.length) return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="40"><text x="10" y="20">no results</text></svg>\n`;
  const lo = Math.floor(Math.log10(Math.min(...all)));
  const hi = Math.ceil(Math.log10(Math.max(...all)));
  const xLo = Math.log10(Math.min(...scales)) - 0.1;
  const xHi = Math.log10(Math.max(...scales)) + 0.1;
  const y = (v) => H - pad - ((Math.log10(v) - lo) / Math.max(1, hi - lo)) * (H - 2 * pad);
  const colors = { regexp_literal: "#c92a2a", regexp_regex: "#1b6ac9", ast_grep: "#2b8a3e", ast_grep_parse: "#e67700" };
  const panels = [
    ["regexp_search (reference: rg)", ["regexp_literal", "regexp_regex"]],
    ["ast_grep_search (reference: ast-grep CLI)", ["ast_grep", "ast_grep_parse"]],
  ];
  let out = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`;
  out += `<rect width="${W}" height="${H}" fill="white"/>`;
  out += `<text x="14" y="${H / 2}" transform="rotate(-90 14 ${H / 2})" text-anchor="middle">median time (log scale)</text>`;
  out += `<text x="${W / 2}" y="${H - 8}" text-anchor="middle">files in the tree (log scale) · solid: warm · dashed: cold, cache off · dotted: reference tool · ${runtime}</text>`;
  panels.forEach(([title, kinds], p) => {
    const x0 = pad + p * (panelW + gap);
    const x = (s) => x0 + ((Math.log10(s) - xLo) / (xHi - xLo)) * panelW;
    out += `<text x="${x0 + panelW / 2}" y="${pad - 24}" text-anchor="middle" font-weight="bold">${title}</text>`;
    out += `<line x1="${x0}" y1="${H - pad}" x2="${x0 + panelW}" y2="${H - pad}" stroke="black"/><line x1="${x0}" y1="${pad}" x2="${x0}" y2="${H - pad}" stroke="black"/>`;
    for (const s of scales) out += `<text x="${x(s)}" y="${H - pad + 14}" text-anchor="middle">${s}</text>`;
    for (let e = lo; e <= hi; e++) {
      out += `<line x1="${x0}" y1="${y(10 ** e)}" x2="${x0 + panelW}" y2="${y(10 ** e)}" stroke="#ddd"/><text x="${x0 - 4}" y="${y(10 ** e) + 4}" text-anchor="end">${tick(10 ** e)}</text>`;
    }
    kinds.forEach((kind, k) => {
      const c = colors[kind];
      const pts = recs.filter((r) => r.kind === kind).sort((a, b) => a.scale - b.scale);
      for (const [m, , dash] of measures) {
        const ok = pts.filter((r) => value(r, m) > 0);
        if (!ok.length) continue;
        out += `<polyline fill="none" stroke="${c}" stroke-width="2" ${dash ? `stroke-dasharray="${dash}"` : ""} points="${ok.map((r) => `${x(r.scale).toFixed(1)},${y(value(r, m)).toFixed(1)}`).join(" ")}"/>`;
        for (const r of ok) out += `<circle cx="${x(r.scale).toFixed(1)}" cy="${y(value(r, m)).toFixed(1)}" r="2.5" fill="${c}"/>`;
      }
      out += `<text x="${x0 + 6}" y="${pad - 8 + 0 * k}" dx="${k * panelW * 0.5}" fill="${c}">${WARM_KINDS[kind].label.replace(/^\S+ /, "").replace(" without fixed text (every file parsed)", ", every file parsed")}</text>`;
    });
  });
  return out + "</svg>\n";
}
