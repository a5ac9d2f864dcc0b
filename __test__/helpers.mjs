// Shared test helpers: temporary workspaces and contexts.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { createToolContext, createAgentToolkit } from "agent-tools-native";

/** A fresh real (symlink-free) temporary directory (in `base`, by default the system's); removed by the returned cleanup. */
export function tempDir(prefix = "atn-", base = os.tmpdir()) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, prefix)));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export const ALLOW_ALL = { tools: {}, defaultPolicy: "allow" };

/** A workspace `<tmp>/ws` next to an `outside` directory holding canary files. */
export function workspace(policy = ALLOW_ALL, writeScope) {
  const { dir, cleanup } = tempDir();
  const root = path.join(dir, "ws");
  const outside = path.join(dir, "outside");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "canary.txt"), "CANARY");
  const context = createToolContext({ workspaceRoot: root, policy, writeScope });
  return { base: dir, root, outside, context, toolkit: createAgentToolkit(context), cleanup };
}

/** Resolves to the rejection of `promise` (fails when it resolves). */
export async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/**
 * Runs `fn` with a fresh workspace (root = a realpath'd temp dir), removed afterwards. `build(root)`
 * prepares files first. The workspace offers `abs`, `read`, `put` (creates parents) and
 * `outsideDir()` (a second temp dir, removed with it).
 */
export async function withWorkspace(fn, { policy = ALLOW_ALL, writeScope, build } = {}) {
  const { dir: root } = tempDir();
  const extra = [];
  const context = createToolContext({ workspaceRoot: root, policy, writeScope });
  const ws = {
    root,
    context,
    toolkit: createAgentToolkit(context),
    abs: (rel) => path.join(root, rel),
    read: (rel) => fs.readFileSync(path.join(root, rel), "utf8"),
    put(rel, data) {
      const file = path.join(root, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, data);
      return file;
    },
    outsideDir() {
      const { dir } = tempDir();
      extra.push(dir);
      return dir;
    },
  };
  try {
    build?.(root);
    await fn(ws);
  } finally {
    for (const dir of [root, ...extra]) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The ToolResult of a tool error seen through `tools.*`. */
export function failureResult(message) {
  return { status: "failure", reason: "runtime", message, error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} } };
}

/** The ToolResult of a sandbox denial. */
export function sandboxDenied(message) {
  return { status: "denied", reason: "sandbox", message, error: { code: "SANDBOX_VIOLATION", message, retriable: false, details: {} } };
}

/** Asserts an Error with the tool error class `name`, `code` and exact `message`. */
export function assertToolError(err, name, code, message) {
  assert.ok(err instanceof Error, `not an Error: ${err}`);
  assert.equal(err.name, name);
  assert.equal(err.code, code);
  assert.equal(err.message, message);
}

/**
 * How soon a call must come back when it must not wait for a command that would run 30 s or more
 * (killed on a timeout or an abort): a third of that wait, so a loaded machine has room and a call
 * that waited still fails.
 */
export const PROMPTLY_MS = 10_000;

/**
 * Waits until `check()` holds, polling every `every` ms; throws after `ms` (generous: a wait that
 * succeeds ends as soon as the condition holds, whatever the machine's speed).
 */
export async function waitUntil(check, what, { ms = 30_000, every = 20 } = {}) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/**
 * Platform guards. `onlyOn(platforms, reason)` gives the options of a `test` or `describe` call
 * that runs only where `process.platform` is one of `platforms` ("unix" stands for every
 * platform but win32) and is otherwise skipped with `reason`, which says what the test needs:
 * `test("…", onlyOn(["linux"], "reads /proc"), fn)`, or merged with other options:
 * `{ ...onlyOn(["unix"], NEEDS.sh), timeout: 60_000 }`. harness.mjs reports each skipped test
 * with the reason (a skipped describe's tests one by one).
 */
export function onlyOn(platforms, reason) {
  if (runsOn(platforms)) return {};
  return { skip: `${reason} (runs on ${platforms.join(", ")}; this is ${process.platform})` };
}

/** Whether this host is one of `platforms` (as for `onlyOn`). */
export function runsOn(platforms) {
  return platforms.some((p) => p === process.platform || (p === "unix" && process.platform !== "win32"));
}

/** The common reasons, so the same need reads the same everywhere. */
export const NEEDS = {
  landlock: "expects Landlock",
  processGroup: "reads /proc to see which processes of a killed process group still live",
  procMemory: "reads a child process's resident set from /proc",
  sigterm: "sends SIGTERM, which Windows cannot deliver (Node kills the process there)",
  sh: "runs POSIX shell commands (sh, printf, sleep, …)",
  modes: "checks POSIX permission bits (chmod)",
  symlinks: "creates symbolic links (Windows allows them only with Developer Mode or a privilege, and they are reparse points there)",
  fifo: "creates a FIFO",
};

/**
 * Whether this is Windows emulated by wine, as `scripts/test-windows.sh` runs the suites (it sets
 * ATN_UNDER_WINE=1). Nothing sets it on Windows itself.
 */
export const underWine = process.platform === "win32" && process.env.ATN_UNDER_WINE === "1";

/**
 * `notUnderWine(reason)` gives the options of a test that holds on Windows but not under wine,
 * skipped there with `reason` (what wine lacks), like `onlyOn`:
 * `test("…", notUnderWine(WINE.git), fn)` or `{ ...notUnderWine(WINE.git), timeout: 60_000 }`.
 * On Windows itself, and on every other platform, the test runs.
 */
export function notUnderWine(reason, { runtime } = {}) {
  if (!underWine) return {};
  // `runtime: "node"` or `"bun"`: the limit is that runtime's under wine only
  if (runtime && runtime !== (process.versions.bun ? "bun" : "node")) return {};
  return { skip: `${reason} (does not hold under wine; runs on Windows)` };
}

/**
 * What a child process of this runtime needs before its script: under wine, bun.exe's children
 * get the preload scripts/test-windows.sh gives the suites (wine-bun-preload.mjs). Nothing elsewhere.
 */
export const CHILD_RUNTIME_ARGS =
  underWine && process.versions.bun ? ["--preload", fileURLToPath(new URL("wine-bun-preload.mjs", import.meta.url))] : [];

/**
 * Under wine, node.exe's CreateProcess now and then fails with an error libuv does not know
 * ("spawn UNKNOWN") before the program runs at all. Such a start may be tried again; any other
 * failure is the test's.
 */
export function isWineSpawnGlitch(error) {
  return underWine && error?.code === "UNKNOWN" && typeof error?.syscall === "string" && error.syscall.startsWith("spawn");
}

/**
 * Runs `process.execPath` with `args` and execFile's `options`; resolves `{ error, stdout, stderr }` (`error` null on exit 0). A start
 * wine fails (`isWineSpawnGlitch`) is tried again, up to three times in all.
 */
export async function runRuntime(args, options = {}) {
  for (let attempt = 1; ; attempt++) {
    const run = await new Promise((resolve) =>
      execFile(process.execPath, args, options, (error, stdout, stderr) => resolve({ error, stdout, stderr })),
    );
    if (isWineSpawnGlitch(run.error) && attempt < 3) continue;
    return run;
  }
}

/** What wine lacks, so the same limit reads the same everywhere. */
export const WINE = {
  git: "runs git, and wine's prefix has no Git for Windows (no registry this repository installs from offers it)",
  pwsh: "runs PowerShell 7 (pwsh.exe, the default shell mode on Windows), which wine's prefix does not have",
  npm: "runs npm, which wine's prefix does not have",
  nodeFetch: "calls a local HTTP server with fetch, which node.exe cannot under wine 8 (connect UNKNOWN; http.get works)",
  console: "needs a pseudo console (ConPTY), which under wine 8 reaches its program only when the host runs on wine's console, and the suites run with files as their output",
};
