// Peak RSS of one call against the baseline with the addon loaded (after one call and a full
// GC), with the size of the data returned:
//   node --expose-gc bench/memory.mjs   |   bun bench/memory.mjs
// Needs the fixtures of `npm run bench` (.bench/).
//
// The one-call cases run with the search cache off (`searchCacheBytes: 0`, the cold path);
// `regexp_search_warm` is the cache at its default budget: a cold call, `searchCacheWait()`
// (the background index built), then 10 warm calls, over 20 000 files.
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const work = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", ".bench");
const { createAgentToolkit, createToolContext } = await import("agent-tools-native");
const native = createRequire(import.meta.url)("../binding.js");
const policy = { tools: {}, defaultPolicy: "allow" };
const tk = createAgentToolkit(createToolContext({ workspaceRoot: work, policy, searchCacheBytes: 0 }));
// the default budget (no searchCacheBytes)
const tkWarm = createAgentToolkit(createToolContext({ workspaceRoot: work, policy }));
const gc = globalThis.gc ?? globalThis.Bun?.gc;
const peakMiB = () => process.resourceUsage().maxRSS / 1024;
const calls = {
  tree: () => tk.invoke("tree", { path: "tree-20000", entry_kind: "all", max_depth: 12, max_entries: 1000 }),
  regexp_search: () => tk.invoke("regexp_search", { pattern: "no_such_identifier", root_path: "tree-20000", max_results: 500, timeout_ms: 30000 }),
  ast_grep_search: () => tk.invoke("ast_grep_search", { language: "typescript", rule: { pattern: "$F($A, $B, $C, $D, $E)" }, root_path: "tree-1000", max_results: 500, timeout_ms: 30000 }),
  git_status_summary: () => tk.invoke("git_status_summary", { cwd: "tree-20000" }),
  read_file_mib: () => tk.invoke("read_file", { path: "mib.txt", max_lines: 500 }),
  regexp_search_warm: async () => {
    const search = () => tkWarm.invoke("regexp_search", { pattern: "no_such_identifier", root_path: "tree-20000", max_results: 500, timeout_ms: 30000 });
    let result = await search();
    if (typeof native.searchCacheWait === "function") await native.searchCacheWait();
    else console.error("(no searchCacheWait in this build: the search cache is not there)");
    for (let i = 0; i < 10; i++) result = await search();
    return result;
  },
};
const which = process.argv[2];
if (!which) {
  // each case in a fresh process, so one peak does not hide the next
  const { spawnSync } = await import("node:child_process");
  const runtime = typeof Bun === "undefined" ? [process.execPath, "--expose-gc"] : [process.execPath];
  for (const name of Object.keys(calls)) {
    const r = spawnSync(runtime[0], [...runtime.slice(1), fileURLToPath(import.meta.url), name], { encoding: "utf8" });
    process.stdout.write(r.stdout || r.stderr);
  }
} else {
  await tk.invoke("read_file", { path: "small.txt" });
  gc?.(true);
  const baseline = peakMiB();
  const result = await calls[which]();
  const data = JSON.stringify(result.content).length / 2 ** 20;
  const peak = peakMiB();
  console.log(`${which}: baseline ${baseline.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB (${(peak / baseline).toFixed(2)}x), data returned ${data.toFixed(2)} MiB of JSON`);
}
