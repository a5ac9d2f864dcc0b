// The benchmark suite: `npm run bench` (node bench/run.mjs). Each case runs in a fresh child
// process (so its peak RSS is its own) under Node and under Bun, next to the reference tools
// measured in the same run; the table and the chart go into bench/README.md.
//
//   node bench/run.mjs                 all cases, scales 1000 5000 20000
//   node bench/run.mjs --quick         scale 1000 only, fewer iterations
//   node bench/run.mjs --warm          only the warm/cold search cases (bench/warm.mjs)
//   node bench/run.mjs --warm --scale-200k    the same, with the 200 000-file tree too (~2.4 GB
//                                      under .bench/, written once and kept)
//     (with --warm: --scales 1000,20000, --runtimes node, --kinds regexp_literal,ast_grep to
//     run a part, --keep-fixtures to use the trees already there; results are merged into
//     .bench/warm-results.json (--fresh-results: start it anew), the README table and
//     chart.svg are written from all of it)
//   node bench/run.mjs --case <name> --runtime node|bun --scale N   (one case; prints JSON)
//
// The cold rows of regexp_search and ast_grep_search (and every other case here) run with the
// search cache off (`searchCacheBytes: 0`): they repeat one call, which the cache would make
// warm. The warm and first-call figures are the cases of bench/warm.mjs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ensureTree, makeMiB, makePatchCase, makeTree } from "./fixture.mjs";
import { AST_GREP_PARSE_PATTERN, WARM_KINDS, orchestrateWarm, runWarmCase, warmChart, warmTable, worstTimerDelay } from "./warm.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const work = path.join(repo, ".bench");
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
}

async function measure(fn, { warmup, iterations }) {
  for (let i = 0; i < warmup; i++) await fn();
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return stats(samples);
}

/** Runs a command and times it, from this runtime. */
function command(cmd, cmdArgs, cwd) {
  return () => {
    const r = spawnSync(cmd, cmdArgs, { cwd, stdio: ["ignore", "ignore", "ignore"] });
    if (r.error) throw r.error;
  };
}

const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;

/** A model that answers with the given turns of tool calls, then ends. */
function scriptedSession(turns) {
  let i = 0;
  const next = async () => {
    const calls = turns[i++];
    return calls ? { content: calls, stopReason: "tool_use" } : { content: [{ type: "text", text: "done" }], stopReason: "end_turn" };
  };
  return { sendWithTools: next, sendToolResults: next };
}


// ---- cases (run inside the child) ---------------------------------------------------------------

async function runCase(name, scale, quick) {
  // the runtime alone, for the memory baseline (nothing imported)
  if (name === "baseline_runtime") return { median: 0, p95: 0, n: 1, maxRssKiB: process.resourceUsage().maxRSS };
  if (name.startsWith("warm_")) {
    const result = await runWarmCase(name, { repo, work, scale, kind: option("--kind"), budget: option("--budget", "default"), calls: Number(option("--calls", "1")), refRuns: Number(option("--ref-runs", "0")) });
    return { ...result, maxRssKiB: process.resourceUsage().maxRSS };
  }
  const { createAgentToolkit, createToolContext } = await import("agent-tools-native");
  const tree = path.join(work, `tree-${scale}`);
  // the search cache off: these cases repeat the same call (today's cold path every time)
  const ctx = createToolContext({ workspaceRoot: work, policy: { tools: {}, defaultPolicy: "allow" }, searchCacheBytes: 0 });
  const tk = createAgentToolkit(ctx);
  // at 200 000 files (the reference tools of the warm cases) fewer runs: the ast-grep CLI takes
  // most of a minute there
  const iters = (n) =>
    scale >= 100_000
      ? { warmup: n <= 5 ? 0 : 1, iterations: n <= 5 ? 2 : 5 }
      : { warmup: Math.max(1, Math.floor(n / 10)), iterations: quick ? Math.max(3, Math.floor(n / 5)) : n };
  const rel = (p) => path.relative(work, p);
  const search = () => tk.invoke("regexp_search", { pattern: "no_such_identifier", root_path: rel(tree), max_results: 500, timeout_ms: 30000 });
  /** One turn with 8 read-only calls of `tool` (run in parallel), and the same 8 calls one per turn. */
  const loopCases = (key, tool, input) => {
    const call = (i) => ({ type: "tool_use", id: `c${i}`, name: tool, input });
    const loop = async (turns) => {
      const { runToolLoop } = await import("agent-tools-native");
      return measure(() => runToolLoop({ session: scriptedSession(turns), toolkit: tk, prompt: "go", maxToolTurns: 20 }), iters(10));
    };
    return {
      [`loop_parallel8_${key}`]: () => loop([Array.from({ length: 8 }, (_, i) => call(i))]),
      [`loop_sequential8_${key}`]: () => loop(Array.from({ length: 8 }, (_, i) => [call(i)])),
    };
  };
  const cases = {
    // the addon loaded and used once: its own share of the memory baseline
    baseline_addon: async () => {
      await tk.invoke("read_file", { path: "small.txt" });
      return { median: 0, p95: 0, n: 1 };
    },
    read_small: () => measure(() => tk.invoke("read_file", { path: "small.txt" }), iters(2000)),
    read_mib: () => measure(() => tk.invoke("read_file", { path: "mib.txt", max_lines: 500 }), iters(200)),
    read_mib_floor: () => measure(() => fs.readFileSync(path.join(work, "mib.txt"), "utf8").split("\n").slice(0, 500), iters(200)),
    write_mib: () => {
      const content = "w".repeat(1024 * 1024);
      return measure(() => tk.invoke("write_file", { path: "out/w.txt", content }), iters(200));
    },
    write_mib_floor: () => {
      const content = "w".repeat(1024 * 1024);
      fs.mkdirSync(path.join(work, "out"), { recursive: true });
      return measure(() => fs.writeFileSync(path.join(work, "out/f.txt"), content), iters(200));
    },
    // the same write made atomic in JavaScript: a temporary file, then a rename over the target
    write_mib_atomic_floor: () => {
      const content = "w".repeat(1024 * 1024);
      fs.mkdirSync(path.join(work, "out"), { recursive: true });
      const target = path.join(work, "out/a.txt");
      return measure(() => {
        fs.writeFileSync(`${target}.tmp`, content);
        fs.renameSync(`${target}.tmp`, target);
      }, iters(200));
    },
    tree_all: () => measure(() => tk.invoke("tree", { path: rel(tree), entry_kind: "all", max_depth: 12, max_entries: 1000 }), iters(100)),
    tree_dirs: () => measure(() => tk.invoke("tree", { path: rel(tree), max_depth: 12, max_entries: 1000 }), iters(100)),
    find_all: () => measure(command("sh", ["-c", `find ${tree} -maxdepth 12 -not -name '.*' | head -n 1000 > /dev/null`]), iters(100)),
    find_dirs: () => measure(command("sh", ["-c", `find ${tree} -maxdepth 12 -type d -not -name '.*' | head -n 1000 > /dev/null`]), iters(100)),
    invoke_task_list: async () => {
      await tk.invoke("task_create_many", { tasks: [{ title: "one" }] });
      return measure(() => tk.invoke("task_list", {}), iters(5000));
    },
    regexp_literal: () => measure(search, iters(10)),
    regexp_regex: () => measure(() => tk.invoke("regexp_search", { pattern: "fn \\w+_9\\d{4}\\b", root_path: rel(tree), max_results: 500, timeout_ms: 30000 }), iters(10)),
    rg_literal: () => measure(command("rg", ["--hidden", "--no-ignore", "--glob", "!.git", "-n", "--column", "-F", "no_such_identifier", tree]), iters(10)),
    rg_regex: () => measure(command("rg", ["--hidden", "--no-ignore", "--glob", "!.git", "-n", "--column", "fn \\w+_9\\d{4}\\b", tree]), iters(10)),
    ast_grep: () => measure(() => tk.invoke("ast_grep_search", { language: "typescript", rule: { pattern: "const $A = nonexistent($B)" }, root_path: rel(tree), max_results: 500, timeout_ms: 30000 }), iters(5)),
    // a pattern with no fixed text (only metavariables): every file is parsed, by us and by the CLI
    ast_grep_parse: () => measure(() => tk.invoke("ast_grep_search", { language: "typescript", rule: { pattern: AST_GREP_PARSE_PATTERN }, root_path: rel(tree), max_results: 500, timeout_ms: 30000 }), iters(5)),
    ast_grep_parse_cli: () => measure(command(path.join(repo, "node_modules/.bin/ast-grep"), ["run", "--pattern", AST_GREP_PARSE_PATTERN, "--lang", "ts", "--json=stream", tree]), iters(5)),
    ast_grep_cli: () => measure(command(path.join(repo, "node_modules/.bin/ast-grep"), ["run", "--pattern", "const $A = nonexistent($B)", "--lang", "ts", "--json=stream", tree]), iters(5)),
    git_status: () => measure(() => tk.invoke("git_status_summary", { cwd: rel(tree) }), iters(10)),
    git_status_cli: () => measure(command("git", ["status", "--porcelain", "-b"], tree), iters(10)),
    exec_true: () => measure(() => tk.invoke("exec_command", { cwd: ".", command: ["true"] }), iters(200)),
    spawn_true: () => measure(command("/bin/true", []), iters(200)),
    // what a JavaScript tool does: an asynchronous spawn with piped output, awaited to its close
    spawn_true_async: () =>
      measure(
        () =>
          new Promise((resolve, reject) => {
            const child = spawn("/bin/true", [], { stdio: ["ignore", "pipe", "pipe"] });
            child.stdout.resume();
            child.stderr.resume();
            child.on("error", reject);
            child.on("close", resolve);
          }),
        iters(200),
      ),
    apply_patch: () => {
      const dir = path.join(work, "patch");
      const patch = fs.readFileSync(path.join(dir, "big.patch"), "utf8");
      const original = fs.readFileSync(path.join(dir, "big.txt"));
      return measure(async () => {
        fs.writeFileSync(path.join(dir, "big.txt"), original);
        await tk.invoke("apply_patch", { filePath: "patch/big.txt", patch });
      }, iters(20));
    },
    git_apply: () => {
      const dir = path.join(work, "patch");
      const original = fs.readFileSync(path.join(dir, "big.txt"));
      return measure(() => {
        fs.writeFileSync(path.join(dir, "big.txt"), original);
        command("git", ["apply", "--whitespace=fix", "big.patch"], dir)();
      }, iters(20));
    },
    ...loopCases("git", "git_status_summary", { cwd: rel(tree) }),
    ...loopCases("tree", "tree", { path: rel(tree), entry_kind: "all", max_depth: 12, max_entries: 1000 }),
    ...loopCases("search", "regexp_search", { pattern: "no_such_identifier", root_path: rel(tree), max_results: 500, timeout_ms: 30000 }),
    loop_overhead: async () => {
      // per turn: a loop of 100 turns with one task_list call each, minus 100 direct invokes
      const { runToolLoop } = await import("agent-tools-native");
      await tk.invoke("task_create_many", { tasks: [{ title: "one" }] });
      const turns = Array.from({ length: 100 }, (_, i) => [{ type: "tool_use", id: `c${i}`, name: "task_list", input: {} }]);
      const loop = await measure(() => runToolLoop({ session: scriptedSession(turns), toolkit: tk, prompt: "go", maxToolTurns: 100 }), iters(20));
      const direct = await measure(async () => { for (let i = 0; i < 100; i++) await tk.invoke("task_list", {}); }, iters(20));
      const perTurn = (loop.median - direct.median) / 100;
      return { median: perTurn, p95: perTurn, n: loop.n };
    },
    // the worst delay of a 1 ms timer while searches run
    event_loop: async () => {
      const { worst, value } = await worstTimerDelay(() => measure(search, iters(5)));
      return { ...value, median: worst, p95: worst };
    },
    // the control: the same timer for as long as the searches take, with nothing else running
    event_loop_idle: async () => {
      const searches = await measure(search, iters(5));
      const idle = () => new Promise((resolve) => setTimeout(resolve, searches.median * searches.n));
      const { worst } = await worstTimerDelay(idle);
      return { median: worst, p95: worst, n: 1 };
    },
  };
  if (!cases[name]) throw new Error(`unknown case ${name}`);
  const result = await cases[name]();
  return { ...result, maxRssKiB: process.resourceUsage().maxRSS };
}

// ---- orchestration --------------------------------------------------------------------------------

const PAIRS = [
  // [label, ours, reference, target ratio, scaled]
  ["memory baseline: the runtime alone (peak RSS; time column unused)", "baseline_runtime", null, null, false],
  ["memory baseline: the addon loaded, one read_file (peak RSS)", "baseline_addon", null, null, false],
  ["read_file 200 lines, small file (µs/invoke)", "read_small", null, null, false],
  ["read_file 500 lines of 1 MiB", "read_mib", "read_mib_floor", 2, false],
  ["write_file 1 MiB", "write_mib", "write_mib_floor", 2, false],
  ["write_file 1 MiB vs the same write made atomic in JS (temp file + rename)", "write_mib", "write_mib_atomic_floor", null, false],
  ["tree, all entries", "tree_all", "find_all", 1.5, true],
  ["tree, dirs only", "tree_dirs", "find_dirs", 1.5, true],
  ["regexp_search literal (cold, cache off)", "regexp_literal", "rg_literal", 1.5, true],
  ["regexp_search regex (cold, cache off)", "regexp_regex", "rg_regex", 1.5, true],
  ["ast_grep_search .ts pattern (cold, cache off)", "ast_grep", "ast_grep_cli", 1.0, true],
  ["ast_grep_search .ts pattern without fixed text (every file parsed) (cold, cache off)", "ast_grep_parse", "ast_grep_parse_cli", 1.0, true],
  ["git_status_summary", "git_status", "git_status_cli", 1.1, true],
  ["exec_command true", "exec_true", "spawn_true", 1.2, false],
  ["exec_command true vs an async spawn with piped output (what a JS tool does)", "exec_true", "spawn_true_async", null, false],
  ["apply_patch 100 hunks / 50k lines", "apply_patch", "git_apply", 0.5, false],
  ["invoke overhead: task_list (µs/call)", "invoke_task_list", null, null, false],
  ["tool loop: 8 git_status_summary calls in one turn vs one per turn (ratio = 1 / speed-up)", "loop_parallel8_git", "loop_sequential8_git", 1 / 1.7, false],
  ["tool loop: 8 tree calls in one turn vs one per turn (ratio = 1 / speed-up)", "loop_parallel8_tree", "loop_sequential8_tree", 1 / 1.7, false],
  ["tool loop: 8 regexp_search calls in one turn vs one per turn (cold, cache off; ratio = 1 / speed-up)", "loop_parallel8_search", "loop_sequential8_search", 1 / 1.7, false],
  ["tool loop: overhead per turn, excluding tool time", "loop_overhead", null, null, false],
  ["event loop: worst 1 ms timer delay during a search (cold, cache off; ms)", "event_loop", null, null, true],
  ["event loop: worst 1 ms timer delay, nothing running, as long as the searches (control, ms)", "event_loop_idle", null, null, true],
];

function runChild(runtime, name, scale, quick, extra = []) {
  const bin = runtime === "bun" ? path.join(repo, "node_modules/.bin/bun") : process.execPath;
  const r = spawnSync(bin, [fileURLToPath(import.meta.url), "--case", name, "--scale", String(scale), ...(quick ? ["--quick"] : []), ...extra], {
    cwd: repo, encoding: "utf8", maxBuffer: 1 << 24, env: { ...process.env, RUST_BACKTRACE: "0" },
  });
  const line = r.stdout.trim().split("\n").pop();
  try {
    return JSON.parse(line);
  } catch {
    return { error: (r.stderr || r.stdout || "no output").trim().split("\n").slice(-1)[0] };
  }
}

function fmt(ms) {
  if (ms === undefined) return "n/a";
  return ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`;
}

async function orchestrate() {
  const quick = flag("--quick");
  const warmOnly = flag("--warm");
  const scales = quick ? [1000] : [1000, 5000, 20000];
  const warmScales = option("--scales", null)?.split(",").map(Number) ?? [...scales, ...(flag("--scale-200k") ? [200_000] : [])];
  fs.mkdirSync(work, { recursive: true });
  if (warmOnly) {
    fs.writeFileSync(path.join(work, "small.txt"), Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n"));
    return warm(warmScales, quick);
  }
  fs.writeFileSync(path.join(work, "small.txt"), Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n"));
  makeMiB(path.join(work, "mib.txt"));
  makePatchCase(path.join(work, "patch"));
  const rows = [];
  const chart = {};
  for (const scale of scales) {
    console.error(`fixture: ${scale} files`);
    makeTree(path.join(work, `tree-${scale}`), scale);
  }
  for (const [label, ours, reference, target, scaled] of PAIRS) {
    for (const scale of scaled ? scales : [scales[0]]) {
      for (const runtime of ["node", "bun"]) {
        const a = runChild(runtime, ours, scale, quick);
        const b = reference ? runChild(runtime, reference, scale, quick) : null;
        const ratio = a.median !== undefined && b?.median ? a.median / b.median : undefined;
        const verdict = target && ratio !== undefined ? (ratio <= target ? "met" : `missed (≤ ${Number(target.toFixed(3))}x)`) : "";
        rows.push(`| ${label} | ${scaled ? scale : "—"} | ${runtime} | ${a.error ? `error: ${a.error}` : `${fmt(a.median)} (p95 ${fmt(a.p95)})`} | ${b ? (b.error ? `error: ${b.error}` : fmt(b.median)) : "—"} | ${ratio !== undefined ? ratio.toFixed(2) + "x" : "—"} ${verdict} | ${a.maxRssKiB ? Math.round(a.maxRssKiB / 1024) + " MiB" : "—"} |`);
        if (scaled && runtime === "node" && CHARTED.includes(ours)) (chart[ours] ??= []).push([scale, a.median, b?.median]);
        console.error(rows.at(-1));
      }
    }
  }
  writeReadme(rows, chart, quick);
  await warm(warmScales, quick, true);
}

/** The warm/cold search cases (bench/warm.mjs), their table in the README and chart.svg. */
async function warm(scales, quick, treesMade = false) {
  for (const scale of scales) {
    const root = path.join(work, `tree-${scale}`);
    if (scale >= 100_000) {
      console.error(`fixture: ${scale} files (kept between runs: ${root})`);
      const start = performance.now();
      if (ensureTree(root, scale, { git: false })) console.error(`  written in ${((performance.now() - start) / 1000).toFixed(1)} s`);
    } else if (!treesMade && !(flag("--keep-fixtures") && fs.existsSync(root))) {
      console.error(`fixture: ${scale} files`);
      makeTree(root, scale);
    }
  }
  // the cache does not keep a file changed less than 2 s before the call that read it (its
  // racy-clean window): let the fixtures age first
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const resultsFile = path.join(work, "warm-results.json");
  if (flag("--fresh-results")) fs.rmSync(resultsFile, { force: true });
  orchestrateWarm({
    runChild: (runtime, name, scale, extra) => runChild(runtime, name, scale, quick, extra),
    work,
    scales,
    runtimes: option("--runtimes", "node,bun").split(","),
    kinds: option("--kinds", Object.keys(WARM_KINDS).join(",")).split(","),
    resultsFile,
    log: (line) => console.error(line),
  });
  writeWarmReadme(JSON.parse(fs.readFileSync(resultsFile, "utf8")), quick);
}

function runInfo(quick) {
  const cpu = os.cpus()[0]?.model ?? "unknown";
  return `${os.cpus().length} cores (${cpu}) · Node ${process.version} · Bun ${execFileSync(path.join(repo, "node_modules/.bin/bun"), ["--version"]).toString().trim()}${quick ? " · --quick" : ""}`;
}

function writeWarmReadme(results, quick) {
  fs.writeFileSync(path.join(here, "chart.svg"), warmChart(results));
  const times = Object.values(results).map((r) => r.at).sort();
  const table = [
    `Run: ${times[0]} – ${times.at(-1)} · ${runInfo(quick)} · load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
    "",
    warmTable(results),
    "",
    "![cold and warm search time against tree size](chart.svg)",
  ].join("\n");
  replaceSection("<!-- warm:start -->", "<!-- warm:end -->", table);
}

function replaceSection(start, end, body) {
  const readme = fs.readFileSync(path.join(here, "README.md"), "utf8");
  const next = readme.includes(start)
    ? readme.slice(0, readme.indexOf(start) + start.length) + "\n" + body + "\n" + readme.slice(readme.indexOf(end))
    : `${readme}\n${start}\n${body}\n${end}\n`;
  fs.writeFileSync(path.join(here, "README.md"), next);
}

const CHARTED = ["tree_all", "regexp_literal", "ast_grep", "ast_grep_parse"];

/** Time against tree size, on a logarithmic time axis (the cases span three orders of magnitude). */
function svgChart(chart) {
  const W = 640, H = 320, pad = 50;
  const series = Object.entries(chart);
  const maxX = 20000;
  const values = series.flatMap(([, pts]) => pts.flatMap(([, a, b]) => [a, b])).filter((v) => v > 0);
  const lo = Math.floor(Math.log10(Math.min(...values)));
  const hi = Math.ceil(Math.log10(Math.max(...values)));
  const x = (v) => pad + (v / maxX) * (W - 2 * pad);
  const y = (v) => H - pad - ((Math.log10(v) - lo) / Math.max(1, hi - lo)) * (H - 2 * pad);
  const colors = { tree_all: "#1b6ac9", regexp_literal: "#c92a2a", ast_grep: "#2b8a3e", ast_grep_parse: "#e67700" };
  let out = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`;
  out += `<rect width="${W}" height="${H}" fill="white"/><line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="black"/><line x1="${pad}" y1="${pad}" x2="${pad}" y2="${H - pad}" stroke="black"/>`;
  out += `<text x="${W / 2}" y="${H - 12}" text-anchor="middle">files in the tree</text><text x="14" y="${H / 2}" transform="rotate(-90 14 ${H / 2})" text-anchor="middle">median ms, log scale (solid: ours, dashed: reference)</text>`;
  for (const v of [1000, 5000, 20000]) out += `<text x="${x(v)}" y="${H - pad + 14}" text-anchor="middle">${v}</text>`;
  for (let e = lo; e <= hi; e++) {
    out += `<line x1="${pad}" y1="${y(10 ** e)}" x2="${W - pad}" y2="${y(10 ** e)}" stroke="#ddd"/><text x="${pad - 4}" y="${y(10 ** e) + 4}" text-anchor="end">${10 ** e >= 1 ? 10 ** e : (10 ** e).toFixed(-e)}</text>`;
  }
  series.forEach(([name, pts], i) => {
    const c = colors[name] ?? "#555";
    const line = (k, dash) => `<polyline fill="none" stroke="${c}" stroke-width="2" ${dash ? 'stroke-dasharray="5,4"' : ""} points="${pts.filter((p) => p[k] > 0).map((p) => `${x(p[0])},${y(p[k])}`).join(" ")}"/>`;
    out += line(1, false) + line(2, true) + `<text x="${W - pad - 120}" y="${pad + 14 * i}" fill="${c}">${name}</text>`;
  });
  return out + "</svg>\n";
}

function writeReadme(rows, chart, quick) {
  fs.writeFileSync(path.join(here, "chart-cases.svg"), svgChart(chart));
  const cpu = os.cpus()[0]?.model ?? "unknown";
  const readme = fs.readFileSync(path.join(here, "README.md"), "utf8");
  const table = [
    `Run: ${new Date().toISOString()} · ${os.cpus().length} cores (${cpu}) · Node ${process.version} · Bun ${execFileSync(path.join(repo, "node_modules/.bin/bun"), ["--version"]).toString().trim()}${quick ? " · --quick" : ""}`,
    "",
    "| case | files | runtime | ours (median) | reference (median) | ratio | peak RSS |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    "![time against tree size](chart-cases.svg)",
  ].join("\n");
  const start = "<!-- results:start -->";
  const end = "<!-- results:end -->";
  const next = readme.includes(start)
    ? readme.slice(0, readme.indexOf(start) + start.length) + "\n" + table + "\n" + readme.slice(readme.indexOf(end))
    : `${readme}\n${start}\n${table}\n${end}\n`;
  fs.writeFileSync(path.join(here, "README.md"), next);
}

if (flag("--case")) {
  const result = await runCase(option("--case"), Number(option("--scale", "1000")), flag("--quick"));
  console.log(JSON.stringify(result));
} else {
  await orchestrate();
}
