// regexp_search (docs/tools/regexp_search.md, and the sandbox, glob and search behaviours of
// docs/compat.md) through invoke, the secure wrapper and the raw handler, plus a differential
// check against the runtime's own RegExp running upstream's algorithm.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ToolCatalog } from "agent-tools-native";
import { workspace, rejection, onlyOn, NEEDS, CHILD_RUNTIME_ARGS } from "./helpers.mjs";

/** Upstream's verified fixture holds symlinks. */
const UPSTREAM_FIXTURE = onlyOn(["unix"], NEEDS.symlinks);

// ---- helpers -------------------------------------------------------------------------------

/** Writes `data` (string or bytes) at `rel` below `root`, creating parents. */
function put(root, rel, data) {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

/** Upstream's verified fixture for regexp_search. */
function contractFixture() {
  const ws = workspace();
  const { root } = ws;
  put(root, "src/a.ts", "TODO one\nfoo TODO\n");
  put(root, "src/sub/b.ts", "TODO\r\nx\rTODO\n");
  put(root, "src/build", "TODO file named build\n");
  for (const f of ["dist/d.ts", ".git/g", ".hidden/h.ts", ".env", "B.txt", "a.txt", "_u.txt", "-d.txt", "10.txt", "9.txt", "é.txt", "z.txt"]) {
    put(root, f, "TODO\n");
  }
  put(root, "bom.txt", "\uFEFFTODO\n");
  put(root, "bad.txt", Buffer.concat([Buffer.from("TODO"), Buffer.from([0xff])]));
  put(root, "uni.txt", "😀TODO é TODO\n");
  fs.symlinkSync("a.txt", path.join(root, "link.txt"));
  fs.symlinkSync("src", path.join(root, "srclink"));
  return ws;
}

async function withFixture(fn) {
  const ws = contractFixture();
  try {
    await fn(ws);
  } finally {
    ws.cleanup();
  }
}

/** Runs through invoke and the secure wrapper, checks both agree, returns the output. */
async function search(ws, input) {
  const viaInvoke = await ws.toolkit.invoke("regexp_search", input);
  assert.deepStrictEqual(Object.keys(viaInvoke), ["role", "name", "content"]);
  assert.equal(viaInvoke.role, "function");
  assert.equal(viaInvoke.name, "regexp_search");
  const viaTools = await ws.toolkit.tools.regexp_search(input);
  assert.equal(viaTools.status, "success", JSON.stringify(viaTools));
  const a = { ...viaInvoke.content, took_ms: 0 };
  const b = { ...viaTools.data, took_ms: 0 };
  assert.deepStrictEqual(a, b);
  return viaInvoke.content;
}

/** `path line:column` of every item. */
const located = (out) => out.items.map((i) => `${i.path} ${i.line}:${i.column}`);

function failure(message) {
  return { status: "failure", reason: "runtime", message, error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} } };
}

function sandboxDenied(message) {
  return { status: "denied", reason: "sandbox", message, error: { code: "SANDBOX_VIOLATION", message, retriable: false, details: {} } };
}

/** The same tool error through invoke (a RegexpSearchError) and tools (a failure result). */
async function assertSearchError(ws, input, code, message) {
  const err = await rejection(ws.toolkit.invoke("regexp_search", input));
  assert.ok(err instanceof Error);
  assert.equal(err.name, "RegexpSearchError");
  assert.equal(err.code, code);
  assert.equal(err.message, message);
  assert.deepStrictEqual(await ws.toolkit.tools.regexp_search(input), failure(message));
}

const sandboxMessage = (p) => `[Sandbox Violation] Attempted to access path outside of workspace: "${p}"`;

// ---- upstream's verified examples ------------------------------------------------------------

describe("regexp_search: verified examples", () => {
  test("default search: 18 items in collation order, counters and warnings", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const out = await search(ws, { pattern: "TODO" });
      assert.deepStrictEqual(Object.keys(out), ["query", "root_path", "took_ms", "truncated", "scanned_files", "items", "warnings"]);
      assert.deepStrictEqual(located(out), [
        "_u.txt 1:1", "-d.txt 1:1", ".env 1:1", ".hidden/h.ts 1:1", "10.txt 1:1", "9.txt 1:1",
        "a.txt 1:1", "B.txt 1:1", "bom.txt 1:1", "é.txt 1:1", "src/a.ts 1:1", "src/a.ts 2:5",
        "src/build 1:1", "src/sub/b.ts 1:1", "src/sub/b.ts 3:1", "uni.txt 1:3", "uni.txt 1:10", "z.txt 1:1",
      ]);
      assert.deepStrictEqual(out.query, { pattern: "TODO", flags: "" });
      assert.equal(out.root_path, ".");
      assert.equal(out.truncated, false);
      assert.equal(out.scanned_files, 15);
      assert.deepStrictEqual(out.warnings, ["skipped_binary_files=1"]);
      assert.ok(Number.isInteger(out.took_ms) && out.took_ms >= 0);
      assert.deepStrictEqual(Object.keys(out.items[0]), ["path", "line", "column", "match", "line_text"]);
      assert.deepStrictEqual(out.items[11], { path: "src/a.ts", line: 2, column: 5, match: "TODO", line_text: "foo TODO" });
      assert.deepStrictEqual(out.items[15], { path: "uni.txt", line: 1, column: 3, match: "TODO", line_text: "😀TODO é TODO" });
      assert.equal(out.items[8].line_text, "TODO", "the BOM is removed");
    }));

  test("include globs are Bun.Glob patterns relative to root_path, files only", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      let out = await search(ws, { pattern: "TODO", include: ["*.ts"] });
      assert.equal(out.scanned_files, 0);
      assert.deepStrictEqual(out.items, []);
      assert.deepStrictEqual(out.warnings, []);
      out = await search(ws, { pattern: "TODO", include: ["**/*.ts"] });
      assert.deepStrictEqual(located(out), [".hidden/h.ts 1:1", "src/a.ts 1:1", "src/a.ts 2:5", "src/sub/b.ts 1:1", "src/sub/b.ts 3:1"]);
      out = await search(ws, { pattern: "TODO", root_path: "src", include: ["*.ts"] });
      assert.deepStrictEqual(located(out), ["src/a.ts 1:1", "src/a.ts 2:5"]);
      assert.equal(out.root_path, "src");
    }));

  test("exclude globs are relative to root_path and prune directories", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      let out = await search(ws, { pattern: "TODO", root_path: "src", exclude: ["sub"] });
      assert.deepStrictEqual(located(out), ["src/a.ts 1:1", "src/a.ts 2:5", "src/build 1:1"]);
      out = await search(ws, { pattern: "TODO", root_path: "src", exclude: ["src/sub"] });
      assert.equal(out.items.length, 5, "src/sub is not a path relative to root_path");
      out = await search(ws, { pattern: "TODO", root_path: "src\\sub" });
      assert.equal(out.root_path, "src/sub", "backslashes are separators");
    }));

  test("max_results truncates at the walk position and counts files up to it", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const out = await search(ws, { pattern: "TODO", root_path: "src", max_results: 3 });
      assert.deepStrictEqual(located(out), ["src/a.ts 1:1", "src/a.ts 2:5", "src/build 1:1"]);
      assert.equal(out.truncated, true);
      assert.equal(out.scanned_files, 2);
      const exact = await search(ws, { pattern: "TODO", root_path: "src", max_results: 5 });
      assert.equal(exact.items.length, 5);
      assert.equal(exact.truncated, true, "exactly max_results matches count as truncated");
      const first = await search(ws, { pattern: "TODO", max_results: 2 });
      assert.deepStrictEqual(located(first), ["_u.txt 1:1", "-d.txt 1:1"]);
      assert.deepStrictEqual(first.warnings, [], "bad.txt lies after the stop");
    }));

  test("empty matches: ^ and x* on lone-CR / CRLF lines, including the empty last line", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      let out = await search(ws, { pattern: "^", root_path: "src/sub" });
      assert.deepStrictEqual(located(out), ["src/sub/b.ts 1:1", "src/sub/b.ts 2:1", "src/sub/b.ts 3:1", "src/sub/b.ts 4:1"]);
      assert.ok(out.items.every((i) => i.match === ""));
      assert.deepStrictEqual(out.items.map((i) => i.line_text), ["TODO", "x", "TODO", ""]);
      out = await search(ws, { pattern: "x*", root_path: "src/sub" });
      const expected = [1, 2, 3, 4, 5].map((c) => `src/sub/b.ts 1:${c}`)
        .concat(["src/sub/b.ts 2:1", "src/sub/b.ts 2:2"])
        .concat([1, 2, 3, 4, 5].map((c) => `src/sub/b.ts 3:${c}`))
        .concat(["src/sub/b.ts 4:1"]);
      assert.deepStrictEqual(located(out), expected);
      assert.equal(out.items[5].match, "x");
    }));

  test("JavaScript regex features: lookbehind, named groups and backreferences, flags", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      let out = await search(ws, { pattern: "(?<=foo )TODO" });
      assert.deepStrictEqual(located(out), ["src/a.ts 2:5"]);
      out = await search(ws, { pattern: "(?<w>O)\\k<w>", flags: "i" });
      assert.deepStrictEqual(located(out), ["src/a.ts 2:2"]);
      assert.equal(out.items[0].match, "oo");
      out = await search(ws, { pattern: "todo", flags: "ig" });
      assert.deepStrictEqual(out.query, { pattern: "todo", flags: "ig" });
      assert.equal(out.items.length, 18);
      out = await search(ws, { pattern: "TODO", flags: "gimsu" });
      assert.equal(out.query.flags, "gimsu", "flags are reported as given");
    }));

  test("root_path errors quote the absolute normalised path", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertSearchError(ws, { pattern: "x", root_path: "a.txt" }, "NOT_DIRECTORY", `NOT_DIRECTORY: root_path is not a directory: ${ws.root}/a.txt`);
      await assertSearchError(ws, { pattern: "x", root_path: "nope" }, "NOT_FOUND", `NOT_FOUND: root_path does not exist: ${ws.root}/nope`);
    }));

  test("root_path '..' is denied by the wrapper and a plain Error through invoke", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      assert.deepStrictEqual(await ws.toolkit.tools.regexp_search({ pattern: "x", root_path: ".." }), sandboxDenied(sandboxMessage("..")));
      const err = await rejection(ws.toolkit.invoke("regexp_search", { pattern: "x", root_path: ".." }));
      assert.equal(err.constructor, Error);
      assert.equal(err.message, sandboxMessage(".."));
      assert.equal(err.code, undefined);
    }));

  test("improved: root_path is checked even when cwd is present (docs/compat.md)", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const input = { pattern: "CANARY", cwd: "src", root_path: "../.." };
      assert.deepStrictEqual(await ws.toolkit.tools.regexp_search(input), sandboxDenied(sandboxMessage("../..")));
      const err = await rejection(ws.toolkit.invoke("regexp_search", input));
      assert.equal(err.message, sandboxMessage("../.."));
    }));
});

describe("regexp_search: walk rules", () => {
  test("hidden files are searched; .git/node_modules/dist/build/target/.vscode directories are not", () => {
    const ws = workspace();
    try {
      for (const d of [".git", "node_modules", "dist", "build", "target", ".vscode", ".config", "lib"]) put(ws.root, `${d}/f.txt`, "TODO\n");
      for (const f of ["build", "dist", "target"]) put(ws.root, `files/${f}`, "TODO\n");
      return search(ws, { pattern: "TODO", include: ["dist/**", "src/**", "**/*.txt", "files/*"] }).then((out) => {
        assert.deepStrictEqual(located(out), [".config/f.txt 1:1", "files/build 1:1", "files/dist 1:1", "files/target 1:1", "lib/f.txt 1:1"]);
      }).finally(ws.cleanup);
    } catch (e) {
      ws.cleanup();
      throw e;
    }
  });

  test("exclude beats include and also matches rel + '/'", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      let out = await search(ws, { pattern: "TODO", include: ["**/*.ts"], exclude: ["src/**"] });
      assert.deepStrictEqual(located(out), [".hidden/h.ts 1:1"]);
      out = await search(ws, { pattern: "TODO", exclude: ["*/"] });
      assert.ok(out.items.every((i) => !i.path.includes("/")));
      out = await search(ws, { pattern: "TODO", exclude: ["**/*.txt", ".env"] });
      assert.deepStrictEqual(located(out), [".hidden/h.ts 1:1", "src/a.ts 1:1", "src/a.ts 2:5", "src/build 1:1", "src/sub/b.ts 1:1", "src/sub/b.ts 3:1"]);
    }));

  test("symlinks below the root are skipped; a symlinked root inside the workspace is followed", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const out = await search(ws, { pattern: "TODO", root_path: "srclink" });
      assert.equal(out.root_path, "srclink");
      assert.deepStrictEqual(located(out), ["srclink/a.ts 1:1", "srclink/a.ts 2:5", "srclink/build 1:1", "srclink/sub/b.ts 1:1", "srclink/sub/b.ts 3:1"]);
    }));

  test("improved: a root symlinked outside the workspace is denied (docs/compat.md)", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      fs.symlinkSync(ws.outside, path.join(ws.root, "out"));
      assert.deepStrictEqual(await ws.toolkit.tools.regexp_search({ pattern: "CANARY", root_path: "out" }), sandboxDenied(sandboxMessage("out")));
      const err = await rejection(ws.toolkit.invoke("regexp_search", { pattern: "CANARY", root_path: "out" }));
      assert.equal(err.message, sandboxMessage("out"));
    }));

  test("a directory symlink pointing outside, below the root, is never followed", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      fs.symlinkSync(ws.outside, path.join(ws.root, "src", "escape"));
      const out = await search(ws, { pattern: "CANARY" });
      assert.deepStrictEqual(out.items, []);
    }));

  test("binary (NUL or invalid UTF-8) files are counted as skipped; only non-zero warnings appear", () => {
    const ws = workspace();
    return (async () => {
      put(ws.root, "zero.txt", Buffer.from("TODO\0x"));
      put(ws.root, "latin1.txt", Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0xe9]));
      put(ws.root, "surrogate.txt", Buffer.from([0xed, 0xa0, 0x80]));
      put(ws.root, "ok.txt", "TODO\n");
      put(ws.root, "big.txt", "TODO\n" + "x".repeat(1024 * 1024));
      put(ws.root, "edge.txt", "TODO" + "y".repeat(1024 * 1024 - 4));
      const out = await search(ws, { pattern: "TODO" });
      assert.deepStrictEqual(located(out), ["edge.txt 1:1", "ok.txt 1:1"]);
      assert.deepStrictEqual(out.warnings, ["skipped_binary_files=3", "skipped_size_limit_files=1"]);
      assert.equal(out.scanned_files, 2);
      fs.rmSync(path.join(ws.root, "big.txt"));
      const again = await search(ws, { pattern: "TODO" });
      assert.deepStrictEqual(again.warnings, ["skipped_binary_files=3"]);
    })().finally(ws.cleanup);
  });

  test("ordering: items follow localeCompare of the path (upstream's verified vector)", () => {
    const ws = workspace();
    return (async () => {
      // Upstream's verified vector without the two entries that cannot be file names together
      // with the others ("a.ts/x" clashes with the file a.ts; names cannot hold NUL).
      const all = ["_a", "-a", ".a", "~a", "😀", "10", "9", "ä", "a b", "a_b", "a-b", "a.b", "a.ts", "A.ts", "a/b", "ab", "b.ts", "B.ts", "e", "é", "f", "src_a", "src-a", "src/a", "srcA", "Z", "ｱ", "中"];
      // Where names are compared without case (Windows, macOS by default), A.ts is a.ts: one of each.
      put(ws.root, "probe/Case", "");
      const caseBlind = fs.existsSync(path.join(ws.root, "probe", "case"));
      const vector = caseBlind ? all.filter((n, i) => all.findIndex((m) => m.toLowerCase() === n.toLowerCase()) === i) : all;
      const shuffled = [...vector].reverse();
      for (const name of shuffled) put(ws.root, `v/${name}`, "TODO\n");
      const out = await search(ws, { pattern: "TODO", root_path: "v" });
      assert.deepStrictEqual(out.items.map((i) => i.path), vector.map((n) => `v/${n}`));
      // Same-path items are ordered by line, then column (numerically).
      put(ws.root, "n/x.txt", "a".repeat(9) + "TODO TODO\n".repeat(11));
      const numeric = await search(ws, { pattern: "TODO", root_path: "n" });
      const pairs = numeric.items.map((i) => [i.line, i.column]);
      const sorted = [...pairs].sort((p, q) => p[0] - q[0] || p[1] - q[1]);
      assert.deepStrictEqual(pairs, sorted);
      assert.deepStrictEqual(pairs.slice(0, 3), [[1, 10], [1, 15], [2, 1]]);
    })().finally(ws.cleanup);
  });
});

describe("regexp_search: validation", () => {
  const cases = [
    [{}, "INVALID_ARGUMENT", "pattern must be a non-empty string"],
    [{ pattern: "" }, "INVALID_ARGUMENT", "pattern must be a non-empty string"],
    [{ pattern: 5 }, "INVALID_ARGUMENT", "pattern must be a non-empty string"],
    [{ pattern: "x", flags: null }, "INVALID_ARGUMENT", "flags must be a string"],
    [{ pattern: "x", flags: 1 }, "INVALID_ARGUMENT", "flags must be a string"],
    [{ pattern: "x", flags: "gg" }, "INVALID_ARGUMENT", "flags must not contain duplicate flag: g"],
    [{ pattern: "x", flags: "y" }, "INVALID_ARGUMENT", "flags must contain only g, i, m, s, u"],
    [{ pattern: "x", flags: "iy" }, "INVALID_ARGUMENT", "flags must contain only g, i, m, s, u"],
    [{ pattern: "x", flags: "imi" }, "INVALID_ARGUMENT", "flags must not contain duplicate flag: i"],
    [{ pattern: "(", flags: "x", max_results: 0 }, "INVALID_ARGUMENT", "flags must contain only g, i, m, s, u"],
    [{ pattern: "(" }, "INVALID_REGEX", "Invalid regular expression: missing )"],
    [{ pattern: "a{2,1}" }, "INVALID_REGEX", "Invalid regular expression: numbers out of order in {} quantifier"],
    [{ pattern: "\\p{Foo}", flags: "u" }, "INVALID_REGEX", "Invalid regular expression: invalid property expression"],
    [{ pattern: "(", max_results: 0 }, "INVALID_REGEX", "Invalid regular expression: missing )"],
    [{ pattern: "x", root_path: 5 }, "INVALID_ARGUMENT", "root_path must be a non-empty string"],
    [{ pattern: "x", max_results: 0, include: [""] }, "INVALID_ARGUMENT", "max_results must be an integer between 1 and 500"],
    [{ pattern: "x", max_results: 501 }, "INVALID_ARGUMENT", "max_results must be an integer between 1 and 500"],
    [{ pattern: "x", max_results: 2.5 }, "INVALID_ARGUMENT", "max_results must be an integer between 1 and 500"],
    [{ pattern: "x", max_results: "10" }, "INVALID_ARGUMENT", "max_results must be an integer between 1 and 500"],
    [{ pattern: "x", timeout_ms: 0, max_file_size_bytes: 1 }, "INVALID_ARGUMENT", "timeout_ms must be an integer between 1 and 30000"],
    [{ pattern: "x", timeout_ms: 30001 }, "INVALID_ARGUMENT", "timeout_ms must be an integer between 1 and 30000"],
    [{ pattern: "x", max_file_size_bytes: 1048575, include: null }, "INVALID_ARGUMENT", "max_file_size_bytes must be 1048576"],
    [{ pattern: "x", max_file_size_bytes: "1048576" }, "INVALID_ARGUMENT", "max_file_size_bytes must be 1048576"],
    [{ pattern: "x", include: null }, "INVALID_ARGUMENT", "include must be a string array"],
    [{ pattern: "x", include: "*.ts" }, "INVALID_ARGUMENT", "include must be a string array"],
    [{ pattern: "x", include: ["a", 1] }, "INVALID_ARGUMENT", "include[1] must be a string"],
    [{ pattern: "x", include: ["", 1] }, "INVALID_ARGUMENT", "include must not contain empty pattern"],
    [{ pattern: "x", include: ["a\0b"] }, "INVALID_ARGUMENT", "include pattern must not contain null char"],
    [{ pattern: "x", include: ["[a"] }, "INVALID_ARGUMENT", "include pattern has unbalanced square brackets"],
    [{ pattern: "x", include: ["a}"] }, "INVALID_ARGUMENT", "include pattern has unbalanced braces"],
    [{ pattern: "x", include: ["{a"], exclude: null }, "INVALID_ARGUMENT", "include pattern has unbalanced braces"],
    [{ pattern: "x", exclude: null }, "INVALID_ARGUMENT", "exclude must be a string array"],
    [{ pattern: "x", exclude: [null] }, "INVALID_ARGUMENT", "exclude[0] must be a string"],
    [{ pattern: "x", exclude: [""] }, "INVALID_ARGUMENT", "exclude must not contain empty pattern"],
    [{ pattern: "x", exclude: ["x\0"] }, "INVALID_ARGUMENT", "exclude pattern must not contain null char"],
    [{ pattern: "x", exclude: ["]["] }, "INVALID_ARGUMENT", "exclude pattern has unbalanced square brackets"],
    [{ pattern: "x", exclude: ["}{"] }, "INVALID_ARGUMENT", "exclude pattern has unbalanced braces"],
  ];
  for (const [input, code, text] of cases) {
    test(`${JSON.stringify(input)} → ${code}: ${text}`, UPSTREAM_FIXTURE, () =>
      withFixture((ws) => assertSearchError(ws, input, code, `${code}: ${text}`)));
  }

  test("defaults: null is accepted for max_results, timeout_ms, max_file_size_bytes; limits inclusive", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      let out = await search(ws, { pattern: "TODO", max_results: null, timeout_ms: null, max_file_size_bytes: null });
      assert.equal(out.items.length, 18);
      out = await search(ws, { pattern: "TODO", max_results: 1, timeout_ms: 30000, max_file_size_bytes: 1048576, include: [], exclude: [] });
      assert.deepStrictEqual(located(out), ["_u.txt 1:1"]);
      assert.equal(out.truncated, true);
      out = await search(ws, { pattern: "TODO", max_results: 500 });
      assert.equal(out.truncated, false);
    }));

  test("raw handler: missing/null root_path means the workspace root; bad input is rejected", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const handler = ToolCatalog.regexp_search.handler;
      for (const input of [{ pattern: "foo TODO" }, { pattern: "foo TODO", root_path: null }]) {
        const out = await handler(ws.context, input);
        assert.deepStrictEqual(located(out), ["src/a.ts 2:1"]);
        assert.equal(out.root_path, ".");
      }
      for (const input of [null, "x", [1]]) {
        const err = await rejection(handler(ws.context, input));
        assert.equal(err.name, "RegexpSearchError");
        assert.equal(err.message, "INVALID_ARGUMENT: input must be an object");
      }
      const err = await rejection(handler(ws.context, { pattern: "x", root_path: "   " }));
      assert.equal(err.message, "INVALID_ARGUMENT: root_path must be a non-empty string");
      // The raw handler does not sandbox (as upstream): a root outside gives `../` paths.
      const out = await handler(ws.context, { pattern: "CANARY", root_path: ws.outside });
      assert.deepStrictEqual(located(out), ["../outside/canary.txt 1:1"]);
      assert.equal(out.root_path, "../outside");
    }));
});

describe("regexp_search: upstream's pinned cases", () => {
  test("TODO\\(.*\\) on a small source file", () => {
    const ws = workspace();
    return (async () => {
      put(ws.root, "src/main.ts", "const a = 1;\n// TODO(task)\nconst b = 2;\n");
      const out = await search(ws, { pattern: "TODO\\(.*\\)" });
      assert.deepStrictEqual(out.items, [{ path: "src/main.ts", line: 2, column: 4, match: "TODO(task)", line_text: "// TODO(task)" }]);
      assert.equal(out.root_path, ".");
      put(ws.root, "src/a.ts", "TODO TODO\n");
      put(ws.root, "src/b.ts", "TODO\n");
      const sorted = await search(ws, { pattern: "TODO", include: ["src/?.ts"] });
      assert.deepStrictEqual(located(sorted), ["src/a.ts 1:1", "src/a.ts 1:6", "src/b.ts 1:1"]);
      put(ws.root, "dist/x.ts", "TODO\n");
      const reopened = await search(ws, { pattern: "TODO", include: ["dist/**", "src/**"] });
      assert.ok(reopened.items.every((i) => i.path.startsWith("src/")), "include cannot reopen dist");
    })().finally(ws.cleanup);
  });

  test("a timeout rejects with TIMEOUT and no partial results", { timeout: 120_000 }, async () => {
    // In a child process with a test hook: each search sleeps 200 ms as it starts, its timeout
    // counting, so 20 ms cannot be enough on any machine and 30 s is (regexp_search_timeout_child.mjs).
    const env = { ...process.env, AGENT_TOOLS_NATIVE_TEST_HOOKS: "1", AGENT_TOOLS_NATIVE_SEARCH_PAUSE_MS: "200" };
    const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "regexp_search_timeout_child.mjs");
    const { stdout } = await new Promise((resolve, reject) =>
      execFile(process.execPath, [...CHILD_RUNTIME_ARGS, child, "20", "30000"], { env, timeout: 110_000 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out }),
      ),
    );
    const report = JSON.parse(stdout.trim().split("\n").at(-1));
    const message = "TIMEOUT: search timed out";
    assert.deepStrictEqual(report.invoke, { rejected: { isError: true, name: "RegexpSearchError", code: "TIMEOUT", message } });
    assert.deepStrictEqual(report.wrapper, { resolved: failure(message) });
    assert.deepStrictEqual(report.control, { resolved: ["src/a.txt"] }, "with time to spare, the paused search succeeds");
  });

  test("a non-u pattern can match half of a surrogate pair (lone surrogate in the output)", () => {
    const ws = workspace();
    return (async () => {
      put(ws.root, "e.txt", "😀x\n");
      const out = await search(ws, { pattern: "^." });
      assert.equal(out.items[0].match, "\uD83D");
      const u = await search(ws, { pattern: "^.", flags: "u" });
      assert.equal(u.items[0].match, "😀");
      const col = await search(ws, { pattern: "x" });
      assert.equal(col.items[0].column, 3, "columns count UTF-16 code units");
    })().finally(ws.cleanup);
  });
});

// ---- differential check against the runtime's RegExp -------------------------------------------

/** Upstream's algorithm, written out with the runtime's RegExp and localeCompare. */
function referenceSearch(workspaceRoot, rootPath, pattern, flags, maxResults) {
  const skipped = new Set([".git", "node_modules", "dist", "build", "target", ".vscode"]);
  const items = [];
  let scanned = 0;
  let binary = 0;
  let truncated = false;
  const walk = (dirAbs) => {
    const entries = fs.readdirSync(dirAbs, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (truncated) return;
      const abs = `${dirAbs}/${e.name}`;
      if (e.isSymbolicLink()) continue;
      if (e.isDirectory()) {
        if (!skipped.has(e.name)) walk(abs);
        continue;
      }
      if (!e.isFile()) continue;
      const bytes = fs.readFileSync(abs);
      if (bytes.includes(0)) {
        binary++;
        continue;
      }
      let text;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        binary++;
        continue;
      }
      scanned++;
      const re = new RegExp(pattern, flags.includes("g") ? flags : flags + "g");
      const lines = text.replace(/\r\n/g, "\n").replace(/\r/g, "\n").split("\n");
      for (let i = 0; i < lines.length; i++) {
        re.lastIndex = 0;
        let m;
        while ((m = re.exec(lines[i])) !== null) {
          items.push({ path: path.relative(workspaceRoot, abs).replaceAll(path.sep, "/"), line: i + 1, column: m.index + 1, match: m[0], line_text: lines[i] });
          if (items.length >= maxResults) {
            truncated = true;
            return;
          }
          if (m[0].length === 0) re.lastIndex += 1;
        }
      }
    }
  };
  walk(rootPath);
  items.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column);
  return { truncated, scanned_files: scanned, items, binary };
}

// A fixed amount of work (150 files, 84 searches; about 1.5 s on an idle machine): the timeout
// only catches a hang.
test("differential: random trees and patterns agree with the runtime's RegExp", { timeout: 120_000 }, async () => {
  const ws = workspace();
  try {
    let seed = 7;
    const rand = (n) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const words = ["TODO", "todo", "foo", "bar", "é", "e\u0301", "😀", "𝐀", "ab12", " ", "\t", "x", "Σσς", "(a)", "a.c", "_", "-", "日本"];
    const breaks = ["\n", "\r\n", "\r", ""];
    const names = ["a", "B", "_x", "-y", "10", "9", "é", "e", "src", "src-a", "src_a", "Z", ".h", "中"];
    for (let i = 0; i < 150; i++) {
      const dirs = Array.from({ length: rand(3) }, () => names[rand(names.length)]);
      const rel = [...dirs, `${names[rand(names.length)]}${i}.txt`].join("/");
      let text = rand(9) === 0 ? "\uFEFF" : "";
      const lines = 1 + rand(6);
      for (let l = 0; l < lines; l++) {
        text += Array.from({ length: rand(6) }, () => words[rand(words.length)]).join("");
        text += breaks[rand(breaks.length)];
      }
      const data = rand(15) === 0 ? Buffer.concat([Buffer.from(text), Buffer.from([0xc3])]) : text;
      put(ws.root, rel, data);
    }
    const patterns = [
      ["TODO", ""], ["todo", "i"], ["\\bfoo\\b", ""], ["(?<=foo)bar", ""], ["(\\w)\\1", ""],
      ["^\\s*$", ""], ["x*", ""], [".", ""], [".", "u"], ["\\p{L}+", "u"], ["[^\\x00-\\x7F]+", ""],
      ["é|e\\u0301", ""], ["(?<y>\\d)\\k<y>", ""], ["a.c", "s"], ["^b", "m"], ["\\uD83D", ""],
      ["[😀𝐀]", "u"], ["$", ""], ["σ", "i"], ["Σ", "iu"], ["\\(a\\)", ""], ["[a-c]+", "i"], ["\\S+\\s", ""],
      ["TODO|foo", "g"], ["(?:ab|12)+", ""], ["x*", "u"], ["^\\p{Lu}", "u"], ["\\d{2,}", ""], ["[\\u3040-\\u9FFF]", ""], ["(?!foo)\\w{3}", ""],
      // astral characters written in a pattern without u: JavaScript reads them as two code units
      ["😀", ""], ["😀+", ""], ["[😀]", ""], ["𝐀|foo", ""], ["x😀?", ""], ["\\😀", ""], ["[^😀]", ""],
      ["\\uD83D\\uDE00", ""], ["[\\uD83D\\uDE00]", ""], ["\\uD83D\\uDE00", "u"],
    ];
    for (const [pattern, flags] of patterns) {
      for (const max of [500, 7]) {
        const want = referenceSearch(ws.root, ws.root, pattern, flags, max);
        const got = await search(ws, { pattern, flags, max_results: max });
        const label = `${pattern} /${flags} max ${max}`;
        assert.deepStrictEqual(got.items, want.items, label);
        assert.equal(got.truncated, want.truncated, label);
        assert.equal(got.scanned_files, want.scanned_files, label);
        assert.deepStrictEqual(got.warnings, want.binary ? [`skipped_binary_files=${want.binary}`] : [], label);
      }
    }
  } finally {
    ws.cleanup();
  }
});

describe("regexp_search: patterns that used to end the process", () => {
  test("20 000 alternatives, 5 000 nested groups and a 9 MB pattern are INVALID_ARGUMENT; the process lives on", async () => {
    const ws = workspace();
    try {
      put(ws.root, "src/a.ts", "w1 w19999\n");
      const alternatives = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join("|");
      for (const pattern of [alternatives, `${"(".repeat(5000)}a${")".repeat(5000)}`, "a".repeat(9 << 20)]) {
        const error = await rejection(ws.toolkit.invoke("regexp_search", { pattern }));
        assert.equal(error.code, "INVALID_ARGUMENT", error.message);
        assert.match(error.message, /at most/);
      }
      // A large pattern within the limits (2 000 alternatives) still compiles and searches.
      const within = Array.from({ length: 2000 }, (_, i) => `w${i}`).join("|");
      const out = await ws.toolkit.invoke("regexp_search", { pattern: within });
      // Alternatives are tried in order, as in JavaScript: "w1" wins at both places.
      assert.deepEqual(out.content.items.map((i) => [i.column, i.match]), [[1, "w1"], [4, "w1"]]);
    } finally {
      ws.cleanup();
    }
  });
});
