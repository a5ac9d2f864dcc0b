// tree (docs/tools/tree.md: upstream's verified fixture, limits, excludes, validation) through
// invoke, the secure wrapper and the raw handler.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { ToolCatalog } from "agent-tools-native";
import { withWorkspace, rejection, failureResult, assertToolError as assertSharedToolError, onlyOn, NEEDS } from "./helpers.mjs";

/** Upstream's verified fixture holds a symlink to /etc and a FIFO. */
const UPSTREAM_FIXTURE = onlyOn(["unix"], `${NEEDS.symlinks}; ${NEEDS.fifo}`);

// ---- helpers -------------------------------------------------------------------------------

const assertToolError = (err, code, message, name = "TreeError") => assertSharedToolError(err, name, code, message);



/**
 * Upstream's verified fixture for tree: dirs `src/logs/deep/deeper/deepest`, `src/empty`, `B`, `a`,
 * `node_modules/x`, `.hidden/in`; files `src/a.log`, `src/main.ts`, `build`, `Zeta.txt`,
 * `alpha.txt`, `src/logs/x.log`, `.env`; symlinks `etc-link` → /etc, `dangling` → missing; FIFO `fifo`.
 */
function buildFixture(root) {
  for (const d of ["src/logs/deep/deeper/deepest", "src/empty", "B", "a", "node_modules/x", ".hidden/in"]) {
    fs.mkdirSync(path.join(root, d), { recursive: true });
  }
  for (const f of ["src/a.log", "src/main.ts", "build", "Zeta.txt", "alpha.txt", "src/logs/x.log", ".env"]) {
    fs.writeFileSync(path.join(root, f), `${f}\n`);
  }
  fs.symlinkSync("/etc", path.join(root, "etc-link"));
  fs.symlinkSync("missing-target", path.join(root, "dangling"));
  execFileSync("mkfifo", [path.join(root, "fifo")]);
}

const withBuilt = (fn, build) => withWorkspace(fn, { build });
const withFixture = (fn) => withBuilt(fn, buildFixture);

/** Asserts the same tool error through `tools.tree(p, options)` and `invoke({ path: p, ...options })`. */
async function assertTreeError(ws, p, options, code, message) {
  const wrapped = options === undefined ? await ws.toolkit.tools.tree(p) : await ws.toolkit.tools.tree(p, options);
  assert.deepStrictEqual(wrapped, failureResult(message), `tools.tree(${JSON.stringify(p)}, ${JSON.stringify(options)})`);
  assertToolError(await rejection(ws.toolkit.invoke("tree", { path: p, ...options })), code, message);
}

/** Runs tree through invoke, the wrapper and the raw handler; asserts all three equal `want` (key order included). */
async function assertTree(ws, p, options, want) {
  const out = await ws.toolkit.invoke("tree", { path: p, ...options });
  assert.deepStrictEqual(Object.keys(out), ["role", "name", "content"]);
  assert.equal(out.name, "tree");
  assertSameOutput(out.content, want, "invoke");
  const wrapped = options === undefined ? await ws.toolkit.tools.tree(p) : await ws.toolkit.tools.tree(p, options);
  assert.equal(wrapped.status, "success", JSON.stringify(wrapped));
  assertSameOutput(wrapped.data, want, "wrapper");
  const raw = await ToolCatalog.tree.handler(ws.context, path.resolve(ws.root, p), options);
  assertSameOutput(raw, want, "raw handler");
}

/** deepStrictEqual plus identical key order at every level (JSON.stringify keeps insertion order). */
function assertSameOutput(actual, want, label) {
  assert.deepStrictEqual(actual, want, label);
  assert.equal(JSON.stringify(actual), JSON.stringify(want), `${label}: key order`);
}

// Node builders, in upstream's key order: kind, name, path, depth, then truncated or children.
const T = { truncated: true };
function D(p, depth, extra = {}) {
  return { kind: "directory", name: p === "." ? "." : path.posix.basename(p), path: p, depth, ...extra };
}
const F = (p, depth) => ({ kind: "file", name: path.posix.basename(p), path: p, depth });
const L = (p, depth) => ({ kind: "symlink", name: path.posix.basename(p), path: p, depth });
const kids = (...children) => ({ children });

function output(root, limit, scanned, dirs, files, symlinks) {
  return { root, limit_reached: limit, scanned_entries: scanned, total_dirs: dirs, total_files: files, total_symlinks: symlinks };
}

// ---- expected outputs of the verified fixture --------------------------------------------------

const TREE_DOT = output(
  D(".", 0, kids(D("B", 1), D("a", 1), D("src", 1, kids(D("src/empty", 2), D("src/logs", 2, kids(D("src/logs/deep", 3, T))))))),
  false, 7, 7, 0, 0,
);

const ALL_DEPTH_1 = output(
  D(".", 0, kids(D("B", 1, T), D("a", 1, T), D("src", 1, T), F("Zeta.txt", 1), F("alpha.txt", 1), L("dangling", 1), L("etc-link", 1))),
  false, 8, 4, 2, 2,
);

const ALL_DEPTH_1_HIDDEN = output(
  D(".", 0, kids(
    D(".hidden", 1, T), D("B", 1, T), D("a", 1, T), D("src", 1, T),
    F(".env", 1), F("Zeta.txt", 1), F("alpha.txt", 1),
    L("dangling", 1), L("etc-link", 1),
  )),
  false, 10, 5, 3, 2,
);

const SRC_ALL_DEPTH_5 = output(
  D("src", 0, kids(
    D("src/empty", 1),
    D("src/logs", 1, kids(
      D("src/logs/deep", 2, kids(D("src/logs/deep/deeper", 3, kids(D("src/logs/deep/deeper/deepest", 4))))),
      F("src/logs/x.log", 2),
    )),
    F("src/a.log", 1),
    F("src/main.ts", 1),
  )),
  false, 9, 6, 3, 0,
);

// ---- traversal -------------------------------------------------------------------------------

describe("tree: verified fixture", () => {
  test("tree(\".\") with defaults: directories only, depth 3, hidden/default-excluded/non-dirs absent", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", undefined, TREE_DOT);
      await assertTree(ws, "", undefined, TREE_DOT);
      await assertTree(ws, ws.root, undefined, TREE_DOT);
    }));

  test("explicit defaults and null options equal the defaults", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", { entry_kind: "directory", max_depth: 3, max_entries: 100, include_hidden: false, exclude: [] }, TREE_DOT);
      await assertTree(ws, ".", { entry_kind: null, max_depth: null, max_entries: null, include_hidden: null }, TREE_DOT);
      await assertTree(ws, ".", {}, TREE_DOT);
    }));

  test("entry_kind all, max_depth 1: exact child order (dirs, files, symlinks; UTF-16 order) and counts", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", { entry_kind: "all", max_depth: 1 }, ALL_DEPTH_1);
    }));

  test("include_hidden shows .hidden and .env; build (a file) and node_modules stay excluded by name", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", { entry_kind: "all", max_depth: 1, include_hidden: true }, ALL_DEPTH_1_HIDDEN);
    }));

  test("tree(\"src\", all, depth 5): depths relative to src, paths relative to the workspace", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, "src", { entry_kind: "all", max_depth: 5 }, SRC_ALL_DEPTH_5);
      await assertTree(ws, "./src/", { entry_kind: "all", max_depth: 5 }, SRC_ALL_DEPTH_5);
    }));

  test("a nested root is named after its last segment", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, "src/logs", { entry_kind: "all" }, output(
        D("src/logs", 0, kids(D("src/logs/deep", 1, kids(D("src/logs/deep/deeper", 2, kids(D("src/logs/deep/deeper/deepest", 3, T))))), F("src/logs/x.log", 1))),
        false, 5, 4, 1, 0,
      ));
    }));

  test("symlinks are leaves and are never followed (etc-link lists nothing from /etc)", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const out = (await ws.toolkit.invoke("tree", { path: ".", entry_kind: "all", max_depth: 12 })).content;
      const etc = out.root.children.find((c) => c.name === "etc-link");
      assert.deepStrictEqual(etc, L("etc-link", 1));
      assert.equal(JSON.stringify(out).includes("passwd"), false);
    }));

  test("hidden filtering and default exclusions do not apply to the root itself", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".hidden", undefined, output(D(".hidden", 0, kids(D(".hidden/in", 1))), false, 2, 2, 0, 0));
      await assertTree(ws, "node_modules", undefined, output(D("node_modules", 0, kids(D("node_modules/x", 1))), false, 2, 2, 0, 0));
    }));

  test("every default-excluded name is excluded, for files and directories alike", () =>
    withBuilt(
      async (ws) => {
        await assertTree(ws, ".", { entry_kind: "all", include_hidden: true }, output(
          D(".", 0, kids(D("keep", 1), F("keep.txt", 1))), false, 3, 2, 1, 0,
        ));
      },
      (root) => {
        for (const d of [".git", "node_modules", "dist", "target", ".vscode", "keep"]) fs.mkdirSync(path.join(root, d));
        for (const f of ["build", ".DS_Store", "keep.txt"]) fs.writeFileSync(path.join(root, f), "");
      },
    ));

  test("names sort by UTF-16 code units, not by code points", () =>
    withBuilt(
      async (ws) => {
        // U+1F600 is D83D DE00 in UTF-16, so it sorts before U+FF61 (code point order would swap them).
        await assertTree(ws, ".", { entry_kind: "all" }, output(
          D(".", 0, kids(D("B", 1), D("a", 1), D("\u{1F600}", 1), D("\uFF61", 1), F("A.txt", 1), F("_.txt", 1))),
          false, 7, 5, 2, 0,
        ));
      },
      (root) => {
        for (const d of ["\uFF61", "\u{1F600}", "a", "B"]) fs.mkdirSync(path.join(root, d));
        for (const f of ["_.txt", "A.txt"]) fs.writeFileSync(path.join(root, f), "");
      },
    ));
});

describe("tree: limits", () => {
  test("max_entries 3 with entry_kind all → root, B, a; the limit-stopped directory has no children", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", { entry_kind: "all", max_entries: 3 }, output(D(".", 0, kids(D("B", 1), D("a", 1))), true, 3, 3, 0, 0));
    }));

  test("max_depth 0 → root only, truncated", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", { max_depth: 0 }, output(D(".", 0, T), false, 1, 1, 0, 0));
      await assertTree(ws, ".", { max_depth: 0, entry_kind: "all" }, output(D(".", 0, T), false, 1, 1, 0, 0));
    }));

  test("max_entries 1 → root only, limit_reached, no truncated", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", { max_entries: 1 }, output(D(".", 0), true, 1, 1, 0, 0));
      await assertTree(ws, ".", { max_entries: 1, max_depth: 0 }, output(D(".", 0), true, 1, 1, 0, 0));
    }));

  test("max_entries equal to the node count reaches the limit", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const out = (await ws.toolkit.invoke("tree", { path: ".", max_entries: 7 })).content;
      assert.equal(out.limit_reached, true);
      assert.equal(out.scanned_entries, 7);
      const more = (await ws.toolkit.invoke("tree", { path: ".", max_entries: 8 })).content;
      assertSameOutput(more, TREE_DOT, "max_entries 8");
    }));

  test("max_depth 12 and max_entries 1000 are accepted", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const out = (await ws.toolkit.invoke("tree", { path: ".", max_depth: 12, max_entries: 1000 })).content;
      assert.equal(out.scanned_entries, 9);
      assert.equal(out.limit_reached, false);
    }));

  test("upstream test fixture", onlyOn(["unix"], NEEDS.symlinks), () =>
    withBuilt(
      async (ws) => {
        const base = (await ws.toolkit.tools.tree(".")).data;
        assert.equal(base.root.children.length, 2);
        assert.equal(base.total_files, 0);
        assert.equal(base.total_symlinks, 0);
        assert.equal(base.scanned_entries, 3);
        const flat = (await ws.toolkit.tools.tree(".", { max_depth: 0 })).data;
        assert.equal(flat.scanned_entries, 1);
        assert.equal(flat.root.children, undefined);
        assert.equal(flat.root.truncated, true);
        const limited = (await ws.toolkit.tools.tree(".", { entry_kind: "all", max_entries: 2 })).data;
        assert.equal(limited.limit_reached, true);
        assert.equal(limited.scanned_entries, 2);
        const all = (await ws.toolkit.tools.tree(".", { entry_kind: "all" })).data;
        // The symlinked directory is a leaf: alpha/a.txt is counted once.
        assert.deepStrictEqual(all.root.children.map((c) => `${c.kind}:${c.name}`), ["directory:alpha", "directory:beta", "file:root.txt", "symlink:alpha-link"]);
        assert.equal(all.total_files, 2);
        const notDir = await ws.toolkit.tools.tree("root.txt");
        assert.equal(notDir.status, "failure");
        assert.match(notDir.message, /NOT_DIRECTORY/);
      },
      (root) => {
        for (const d of ["alpha", "beta", ".hidden-dir"]) fs.mkdirSync(path.join(root, d));
        for (const f of ["root.txt", "alpha/a.txt", ".hidden-file"]) fs.writeFileSync(path.join(root, f), "x");
        fs.symlinkSync("alpha", path.join(root, "alpha-link"));
      },
    ));
});

// ---- exclude globs ---------------------------------------------------------------------------

describe("tree: exclude globs (relative to the workspace root)", () => {
  test("`logs` excludes nothing under tree(\"src\"); `src/logs` excludes the directory", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, "src", { entry_kind: "all", max_depth: 5, exclude: ["logs"] }, SRC_ALL_DEPTH_5);
      await assertTree(ws, "src", { entry_kind: "all", max_depth: 5, exclude: ["src/logs"] }, output(
        D("src", 0, kids(D("src/empty", 1), F("src/a.log", 1), F("src/main.ts", 1))),
        false, 4, 2, 2, 0,
      ));
    }));

  test("`**/*.log` excludes .log files at any depth; `*.log` only top-level ones", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, "src", { entry_kind: "all", max_depth: 5, exclude: ["**/*.log"] }, output(
        D("src", 0, kids(
          D("src/empty", 1),
          D("src/logs", 1, kids(D("src/logs/deep", 2, kids(D("src/logs/deep/deeper", 3, kids(D("src/logs/deep/deeper/deepest", 4))))))),
          F("src/main.ts", 1),
        )),
        false, 7, 6, 1, 0,
      ));
      await assertTree(ws, "src", { entry_kind: "all", max_depth: 5, exclude: ["*.log"] }, SRC_ALL_DEPTH_5);
    }));

  test("`*/` excludes every depth-1 entry, files included, and nothing deeper", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", { entry_kind: "all", max_depth: 1, exclude: ["*/"] }, output(D(".", 0), false, 1, 1, 0, 0));
      await assertTree(ws, "src", { entry_kind: "all", max_depth: 5, exclude: ["*/"] }, SRC_ALL_DEPTH_5);
    }));

  test("`src/*` and `src/**` exclude the src directory itself", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const withoutSrc = output(
        D(".", 0, kids(D("B", 1, T), D("a", 1, T), F("Zeta.txt", 1), F("alpha.txt", 1), L("dangling", 1), L("etc-link", 1))),
        false, 7, 3, 2, 2,
      );
      await assertTree(ws, ".", { entry_kind: "all", max_depth: 1, exclude: ["src/*"] }, withoutSrc);
      await assertTree(ws, ".", { entry_kind: "all", max_depth: 1, exclude: ["src/**"] }, withoutSrc);
    }));

  test("`**/logs/**` excludes directories named logs anywhere", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", { exclude: ["**/logs/**"] }, output(
        D(".", 0, kids(D("B", 1), D("a", 1), D("src", 1, kids(D("src/empty", 2))))),
        false, 5, 5, 0, 0,
      ));
    }));

  test("several patterns, `*` with a suffix, braces and classes", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTree(ws, ".", { entry_kind: "all", max_depth: 1, exclude: ["*.txt", "etc-*"] }, output(
        D(".", 0, kids(D("B", 1, T), D("a", 1, T), D("src", 1, T), L("dangling", 1))),
        false, 5, 4, 0, 1,
      ));
      await assertTree(ws, ".", { entry_kind: "all", max_depth: 1, exclude: ["{B,a}", "[Z]*"] }, output(
        D(".", 0, kids(D("src", 1, T), F("alpha.txt", 1), L("dangling", 1), L("etc-link", 1))),
        false, 5, 2, 1, 2,
      ));
    }));

  test("globs are case-sensitive and `*` matches leading dots", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const out = (await ws.toolkit.invoke("tree", { path: ".", entry_kind: "all", max_depth: 1, include_hidden: true, exclude: ["zeta.txt", ".*"] })).content;
      assert.deepStrictEqual(out.root.children.map((c) => c.name), ["B", "a", "src", "Zeta.txt", "alpha.txt", "dangling", "etc-link"]);
      const star = (await ws.toolkit.invoke("tree", { path: ".", entry_kind: "all", max_depth: 1, include_hidden: true, exclude: ["*"] })).content;
      assertSameOutput(star, output(D(".", 0), false, 1, 1, 0, 0), "exclude *");
    }));
});

// ---- validation and errors ------------------------------------------------------------------------

describe("tree: validation", () => {
  const MSG = {
    path: "INVALID_ARGUMENT: path must be a non-empty string",
    entry_kind: 'INVALID_ARGUMENT: entry_kind must be "directory" or "all"',
    max_depth: "INVALID_ARGUMENT: max_depth must be an integer between 0 and 12",
    max_entries: "INVALID_ARGUMENT: max_entries must be an integer between 1 and 1000",
    include_hidden: "INVALID_ARGUMENT: include_hidden must be a boolean",
    excludeArray: "INVALID_ARGUMENT: exclude must be a string array",
    excludeStrings: "INVALID_ARGUMENT: exclude must contain only strings",
  };
  const BAD = {
    entry_kind: ["file", "ALL", 1, true],
    max_depth: [-1, 13, 1.5, "2", NaN],
    max_entries: [0, 1001, 2.5, "5", Infinity],
    include_hidden: ["true", 1, 0],
  };

  for (const [field, values] of Object.entries(BAD)) {
    test(`${field}: invalid values`, UPSTREAM_FIXTURE, () =>
      withFixture(async (ws) => {
        for (const v of values) await assertTreeError(ws, ".", { [field]: v }, "INVALID_ARGUMENT", MSG[field]);
      }));
  }

  test("exclude: not an array (null included) / non-string elements", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      for (const v of ["x", null, 5, { 0: "a" }]) await assertTreeError(ws, ".", { exclude: v }, "INVALID_ARGUMENT", MSG.excludeArray);
      for (const v of [[1], ["a", null], [["a"]]]) await assertTreeError(ws, ".", { exclude: v }, "INVALID_ARGUMENT", MSG.excludeStrings);
    }));

  test("validation order: entry_kind, max_depth, max_entries, include_hidden, exclude, then the filesystem", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTreeError(ws, "missing", { entry_kind: "x", max_depth: 99, max_entries: 0, include_hidden: "x", exclude: null }, "INVALID_ARGUMENT", MSG.entry_kind);
      await assertTreeError(ws, "missing", { max_depth: 99, max_entries: 0, include_hidden: "x", exclude: null }, "INVALID_ARGUMENT", MSG.max_depth);
      await assertTreeError(ws, "missing", { max_entries: 0, include_hidden: "x", exclude: null }, "INVALID_ARGUMENT", MSG.max_entries);
      await assertTreeError(ws, "missing", { include_hidden: "x", exclude: null }, "INVALID_ARGUMENT", MSG.include_hidden);
      await assertTreeError(ws, "missing", { exclude: [7] }, "INVALID_ARGUMENT", MSG.excludeStrings);
    }));

  test("path: invoke without a string path, raw handler with a blank path, wrapper with a non-string", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      for (const args of [{}, { path: 5 }, { path: null }]) {
        assertToolError(await rejection(ws.toolkit.invoke("tree", args)), "INVALID_ARGUMENT", MSG.path);
      }
      for (const p of ["", "  "]) {
        assertToolError(await rejection(ToolCatalog.tree.handler(ws.context, p)), "INVALID_ARGUMENT", MSG.path);
      }
      assert.deepStrictEqual(await ws.toolkit.tools.tree(5), failureResult("Invalid path argument"));
      assert.deepStrictEqual(await ws.toolkit.tools.tree(), failureResult(MSG.path));
    }));

  test("options === null → INTERNAL (runtime-defined text)", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const err = await rejection(ToolCatalog.tree.handler(ws.context, ws.root, null));
      assert.equal(err.code, "INTERNAL");
      assert.match(err.message, /^INTERNAL: /);
    }));

  test("invoke drops unknown keys", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const out = await ws.toolkit.invoke("tree", { path: ".", cwd: "nowhere", root_path: "..", bogus: 1 });
      assertSameOutput(out.content, TREE_DOT, "extra keys");
    }));
});

describe("tree: errors", () => {
  test("missing path → NOT_FOUND", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTreeError(ws, "missing", {}, "NOT_FOUND", `NOT_FOUND: path not found: ${ws.abs("missing")}`);
      await assertTreeError(ws, "src/nope/deeper", undefined, "NOT_FOUND", `NOT_FOUND: path not found: ${ws.abs("src/nope/deeper")}`);
    }));

  test("a file, a FIFO, a dangling symlink → NOT_DIRECTORY", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      for (const p of ["alpha.txt", "fifo", "build", "dangling"]) {
        await assertTreeError(ws, p, {}, "NOT_DIRECTORY", `NOT_DIRECTORY: path is not a directory: ${ws.abs(p)}`);
      }
    }));

  test("a symlink to a directory inside the workspace → NOT_DIRECTORY", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      fs.symlinkSync("src", ws.abs("src-link"));
      await assertTreeError(ws, "src-link", undefined, "NOT_DIRECTORY", `NOT_DIRECTORY: path is not a directory: ${ws.abs("src-link")}`);
    }));

  test("a file used as a directory → INTERNAL ENOTDIR", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      const abs = ws.abs("alpha.txt/x");
      await assertTreeError(ws, "alpha.txt/x", {}, "INTERNAL", `INTERNAL: ENOTDIR: not a directory, lstat '${abs}'`);
    }));
});

describe("tree: exclude pattern errors (double prefix, code INTERNAL)", () => {
  const PATTERN = {
    empty: "INTERNAL: INVALID_ARGUMENT: exclude must not contain empty pattern",
    nul: "INTERNAL: INVALID_ARGUMENT: exclude pattern must not contain null char",
    square: "INTERNAL: INVALID_ARGUMENT: exclude pattern has unbalanced square brackets",
    braces: "INTERNAL: INVALID_ARGUMENT: exclude pattern has unbalanced braces",
  };
  const CASES = [
    [[""], "empty"],
    [["a\0b"], "nul"],
    [["[a"], "square"],
    [["]"], "square"],
    [["a]b["], "square"],
    [["[]]"], "square"], // the balance check ignores glob class syntax
    [["\\[a"], "square"], // escapes are not considered
    [["{a"], "braces"],
    [["}"], "braces"],
    [["a}{"], "braces"],
    [["{[}"], "square"], // brackets are checked before braces
    [["\0["], "nul"],
    [["ok", "{", "["], "braces"], // patterns in order
    [["{", ""], "braces"], // each pattern fully checked before the next
    [["[", "{"], "square"],
  ];

  for (const [exclude, kind] of CASES) {
    test(`${JSON.stringify(exclude)} → ${kind}`, UPSTREAM_FIXTURE, () =>
      withFixture(async (ws) => {
        await assertTreeError(ws, ".", { exclude }, "INTERNAL", PATTERN[kind]);
      }));
  }

  test("checked even when the traversal would not read anything", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTreeError(ws, ".", { max_depth: 0, exclude: ["{"] }, "INTERNAL", PATTERN.braces);
      await assertTreeError(ws, ".", { max_entries: 1, exclude: [""] }, "INTERNAL", PATTERN.empty);
    }));

  test("reported only after NOT_FOUND / NOT_DIRECTORY", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      await assertTreeError(ws, "missing", { exclude: [""] }, "NOT_FOUND", `NOT_FOUND: path not found: ${ws.abs("missing")}`);
      await assertTreeError(ws, "alpha.txt", { exclude: ["["] }, "NOT_DIRECTORY", `NOT_DIRECTORY: path is not a directory: ${ws.abs("alpha.txt")}`);
    }));

  test("raw handler reports the same double-prefixed error", UPSTREAM_FIXTURE, () =>
    withFixture(async (ws) => {
      assertToolError(await rejection(ToolCatalog.tree.handler(ws.context, ws.root, { exclude: ["a}"] })), "INTERNAL", PATTERN.braces);
    }));
});
