// ast_grep_search (docs/tools/ast_grep_search.md: upstream's verified examples, validation, error
// codes, and its entries in docs/compat.md) through invoke, the secure wrapper and the raw
// handler, with real matching.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createToolContext, createAgentToolkit, ToolCatalog } from "agent-tools-native";
import { onlyOn, NEEDS } from "./helpers.mjs";

// ---- helpers -------------------------------------------------------------------------------

const ALLOW_ALL = { tools: {}, defaultPolicy: "allow" };
const CONST_RULE = { pattern: "const $A = $B" };

/** Runs `fn` with a fresh workspace holding `files` (path → text), removed afterwards. */
async function withWorkspace(files, fn) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-")));
  const root = path.join(base, "ws");
  fs.mkdirSync(root);
  const context = createToolContext({ workspaceRoot: root, policy: ALLOW_ALL });
  const ws = {
    base,
    root,
    context,
    toolkit: createAgentToolkit(context),
    put(rel, data) {
      const file = path.join(root, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, data);
    },
  };
  for (const [rel, data] of Object.entries(files)) ws.put(rel, data);
  try {
    await fn(ws);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

/** Upstream's verified fixture for ast_grep_search. */
const CONTRACT_FILES = {
  "src/main.ts": "const a = 1;\nconst b = 2;\n",
  "src/sub/x.ts": "const c = 3;\n",
  "dist/d.ts": "const d = 4;\n",
  "B/b.ts": "const e = 5;\n",
  "a.ts": "const f = 6;\n",
};

async function rejectionOf(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

function failure(message) {
  return { status: "failure", reason: "runtime", message, error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} } };
}

function sandboxDenied(message) {
  return { status: "denied", reason: "sandbox", message, error: { code: "SANDBOX_VIOLATION", message, retriable: false, details: {} } };
}

function assertToolError(err, code, message) {
  assert.ok(err instanceof Error, `not an Error: ${err}`);
  assert.equal(err.name, "AstGrepSearchError");
  assert.equal(err.code, code);
  if (message instanceof RegExp) assert.match(err.message, message);
  else assert.equal(err.message, message);
}

/** The same tool error through `tools.*`, `invoke` and the raw handler; returns the message. */
async function assertSearchError(ws, input, code, message) {
  const err = await rejectionOf(ws.toolkit.invoke("ast_grep_search", input));
  assertToolError(err, code, message);
  assert.ok(err.message.startsWith(`${code}: `), err.message);
  assert.deepStrictEqual(await ws.toolkit.tools.ast_grep_search(input), failure(err.message));
  const rawInput = typeof input.root_path === "string" ? { ...input, root_path: path.resolve(ws.root, input.root_path) } : input;
  assertToolError(await rejectionOf(ToolCatalog.ast_grep_search.handler(ws.context, rawInput)), code, err.message);
  return err.message;
}

/** Searches through invoke, the wrapper and the raw handler; all three must agree (took_ms aside). */
async function search(ws, input) {
  const out = await ws.toolkit.invoke("ast_grep_search", input);
  assert.deepStrictEqual(Object.keys(out), ["role", "name", "content"]);
  assert.equal(out.name, "ast_grep_search");
  const content = out.content;
  assert.deepStrictEqual(Object.keys(content), ["query", "root_path", "took_ms", "truncated", "items", "warnings"]);
  assert.ok(Number.isInteger(content.took_ms) && content.took_ms >= 0);
  assert.deepStrictEqual(content.warnings, []);
  const wrapped = await ws.toolkit.tools.ast_grep_search(input);
  assert.equal(wrapped.status, "success", JSON.stringify(wrapped));
  assert.deepStrictEqual(Object.keys(wrapped), ["status", "data"]);
  const rawInput = typeof input.root_path === "string" ? { ...input, root_path: path.resolve(ws.root, input.root_path) } : input;
  const raw = await ToolCatalog.ast_grep_search.handler(ws.context, rawInput);
  for (const other of [wrapped.data, raw]) {
    assert.equal(JSON.stringify({ ...other, took_ms: 0 }), JSON.stringify({ ...content, took_ms: 0 }));
  }
  return content;
}

/** `file@line:column` of every item. */
function where(out) {
  return out.items.map((i) => `${i.file}@${i.range.start.line}:${i.range.start.column}`);
}

const tsConst = (extra = {}) => ({ language: "typescript", rule: CONST_RULE, ...extra });

// ---- upstream's verified examples ---------------------------------------------------------------

describe("verified examples", () => {
  test("defaults: dist excluded, files in localeCompare order, root_path '.'", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      assert.notEqual(process.cwd(), ws.root, "paths must not depend on the process cwd (docs/compat.md)");
      const out = await search(ws, tsConst());
      assert.deepStrictEqual(where(out), ["a.ts@0:0", "B/b.ts@0:0", "src/main.ts@0:0", "src/main.ts@1:0", "src/sub/x.ts@0:0"]);
      assert.equal(out.truncated, false);
      assert.equal(out.root_path, ".");
      assert.deepStrictEqual(out.query, { language: "typescript", rule: CONST_RULE });
    }));

  test("an item is the CLI's --json=stream object, key order included", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const out = await search(ws, tsConst({ root_path: "src/sub" }));
      const range = (s, e, sl, sc, el, ec) => ({ byteOffset: { start: s, end: e }, start: { line: sl, column: sc }, end: { line: el, column: ec } });
      const expected = {
        text: "const c = 3;",
        range: range(0, 12, 0, 0, 0, 12),
        file: "src/sub/x.ts",
        lines: "const c = 3;",
        charCount: { leading: 0, trailing: 0 },
        language: "TypeScript",
        metaVariables: {
          single: { A: { text: "c", range: range(6, 7, 0, 6, 0, 7) }, B: { text: "3", range: range(10, 11, 0, 10, 0, 11) } },
          multi: {},
          transformed: {},
        },
        ruleId: "ast-grep-search-rule",
        severity: "hint",
        note: null,
        message: "",
        labels: [{ text: "const c = 3;", range: range(0, 12, 0, 0, 0, 12), style: "primary" }],
      };
      assert.deepStrictEqual(out.items, [expected]);
      assert.equal(JSON.stringify(out.items[0]), JSON.stringify(expected));
      assert.equal(out.root_path, "src/sub");
    }));

  test("max_results: 2 items and truncated; exactly max_results matches also count as truncated (kept, docs/compat.md)", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      let out = await search(ws, tsConst({ max_results: 2 }));
      assert.deepStrictEqual(where(out), ["a.ts@0:0", "B/b.ts@0:0"], "the first items of the sorted order");
      assert.equal(out.truncated, true);
      out = await search(ws, tsConst({ max_results: 5 }));
      assert.equal(out.items.length, 5);
      assert.equal(out.truncated, true);
      out = await search(ws, tsConst({ max_results: 6, timeout_ms: null }));
      assert.equal(out.items.length, 5);
      assert.equal(out.truncated, false);
      out = await search(ws, tsConst({ max_results: null }));
      assert.equal(out.items.length, 5);
    }));

  test("root_path and ripgrep-style globs relative to the workspace root (kept, docs/compat.md)", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const src = ["src/main.ts@0:0", "src/main.ts@1:0", "src/sub/x.ts@0:0"];
      let out = await search(ws, tsConst({ root_path: "src" }));
      assert.deepStrictEqual(where(out), src);
      assert.equal(out.root_path, "src");
      out = await search(ws, tsConst({ root_path: "src\\" }));
      assert.equal(out.root_path, "src");
      assert.deepStrictEqual(where(await search(ws, tsConst({ root_path: "src", include: ["*.ts"] }))), src, "*.ts matches at any depth");
      assert.deepStrictEqual(where(await search(ws, tsConst({ include: ["src/**"] }))), src);
      assert.deepStrictEqual(where(await search(ws, tsConst({ include: ["src\\**"] }))), src, "\\ becomes /");
      assert.deepStrictEqual(where(await search(ws, tsConst({ exclude: ["src/sub/**"] }))), ["a.ts@0:0", "B/b.ts@0:0", "src/main.ts@0:0", "src/main.ts@1:0"]);
      assert.equal((await search(ws, tsConst({ exclude: ["sub/**"] }))).items.length, 5, "sub/** is anchored at the workspace root");
      assert.deepStrictEqual(where(await search(ws, tsConst({ root_path: "src", exclude: ["src/sub/**"] }))), ["src/main.ts@0:0", "src/main.ts@1:0"]);
      assert.deepStrictEqual(where(await search(ws, tsConst({ include: ["dist/**"] }))), ["dist/d.ts@0:0"], "a later glob wins (sg --globs order)");
    }));

  test("the language is trimmed and may be any name ast-grep knows", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const out = await search(ws, { language: "  typescript ", rule: CONST_RULE });
      assert.equal(out.query.language, "typescript");
      assert.equal(out.items.length, 5);
      for (const name of ["TypeScript", "ts", "TS"]) {
        const named = await search(ws, { language: name, rule: CONST_RULE });
        assert.equal(named.items.length, 5, name);
        assert.equal(named.query.language, name);
      }
    }));

  test("upstream's pins: item order by file, then line, then column; root_path made relative", () =>
    withWorkspace({ "src/b.ts": " foo(3);\n", "src/a.ts": "   foo(1);\nfoo(2);\n" }, async (ws) => {
      const out = await search(ws, { language: "ts", rule: { pattern: "foo($A)" }, root_path: path.join(ws.root, "src") });
      assert.deepStrictEqual(where(out), ["src/a.ts@0:3", "src/a.ts@1:0", "src/b.ts@0:1"]);
      assert.equal(out.root_path, "src");
    }));

  test("the raw handler defaults root_path to the workspace root (missing or null)", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      for (const input of [tsConst(), tsConst({ root_path: null })]) {
        const out = await ToolCatalog.ast_grep_search.handler(ws.context, input);
        assert.equal(out.root_path, ".");
        assert.equal(out.items.length, 5);
      }
    }));

  test("the rule is echoed as JSON.stringify sees it", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const out = await search(ws, { language: "ts", rule: { pattern: "const $A = 6", helper() {}, skip: undefined } });
      assert.deepStrictEqual(out.query.rule, { pattern: "const $A = 6" });
      assert.deepStrictEqual(where(out), ["a.ts@0:0"]);
    }));
});

// ---- validation and error codes --------------------------------------------------------------

describe("errors", () => {
  test("INVALID_ARGUMENT messages in upstream's order", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const rule = { pattern: "x" };
      const cases = [
        [{ rule }, "language must be a non-empty string"],
        [{ language: "", rule }, "language must be a non-empty string"],
        [{ language: " \t", rule }, "language must be a non-empty string"],
        [{ language: 1, rule: null }, "language must be a non-empty string"],
        [{ language: "ts" }, "rule must be an object"],
        [{ language: "ts", rule: null }, "rule must be an object"],
        [{ language: "ts", rule: [] }, "rule must be an object"],
        [{ language: "ts", rule: "pattern" }, "rule must be an object"],
        [{ language: "ts", rule: { pattern: 1n } }, "rule must be JSON serializable"],
        [{ language: "ts", rule, root_path: 1, include: 1 }, "root_path must be a non-empty string"],
        [{ language: "ts", rule, include: null }, "include must be a string array"],
        [{ language: "ts", rule, include: "*.ts" }, "include must be a string array"],
        [{ language: "ts", rule, include: ["a", 2] }, "include[1] must be a string"],
        [{ language: "ts", rule, include: [""] }, "include must not contain empty pattern"],
        [{ language: "ts", rule, include: ["a\0"] }, "include pattern must not contain null char"],
        [{ language: "ts", rule, include: ["]["] }, "include pattern has unbalanced square brackets"],
        [{ language: "ts", rule, include: ["{a"] }, "include pattern has unbalanced braces"],
        [{ language: "ts", rule, exclude: null }, "exclude must be a string array"],
        [{ language: "ts", rule, exclude: [true] }, "exclude[0] must be a string"],
        [{ language: "ts", rule, exclude: ["a}"], max_results: 0 }, "exclude pattern has unbalanced braces"],
        [{ language: "ts", rule, max_results: 0, timeout_ms: 0 }, "max_results must be an integer between 1 and 500"],
        [{ language: "ts", rule, max_results: 501 }, "max_results must be an integer between 1 and 500"],
        [{ language: "ts", rule, max_results: 2.5 }, "max_results must be an integer between 1 and 500"],
        [{ language: "ts", rule, max_results: "2" }, "max_results must be an integer between 1 and 500"],
        [{ language: "ts", rule, timeout_ms: 0 }, "timeout_ms must be an integer between 1 and 30000"],
        [{ language: "ts", rule, timeout_ms: 30001, root_path: "missing" }, "timeout_ms must be an integer between 1 and 30000"],
        [{ language: "ts", rule, timeout_ms: Number.NaN }, "timeout_ms must be an integer between 1 and 30000"],
      ];
      for (const [input, text] of cases) {
        try {
          await assertSearchError(ws, input, "INVALID_ARGUMENT", `INVALID_ARGUMENT: ${text}`);
        } catch (e) {
          e.message = `${text}: ${e.message}`;
          throw e;
        }
      }
      // A rule that contains itself cannot be serialised either.
      const cyclic = { pattern: "x" };
      cyclic.self = cyclic;
      await assertSearchError(ws, { language: "ts", rule: cyclic }, "INVALID_ARGUMENT", "INVALID_ARGUMENT: rule must be JSON serializable");
      // The raw handler sees what the front doors refuse or resolve earlier (they turn a blank
      // root_path into an absolute path).
      const raw = (input) => rejectionOf(ToolCatalog.ast_grep_search.handler(ws.context, input));
      assertToolError(await raw("x"), "INVALID_ARGUMENT", "INVALID_ARGUMENT: input must be an object");
      assertToolError(await raw({ language: "ts", rule, root_path: " " }), "INVALID_ARGUMENT", "INVALID_ARGUMENT: root_path must be a non-empty string");
    }));

  // The message holds root_path as the tool normalised it: every `\` a `/` (C:/ws/missing on Windows).
  test("NOT_FOUND and NOT_DIRECTORY for root_path", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const root = ws.root.replaceAll("\\", "/");
      await assertSearchError(ws, tsConst({ root_path: "missing" }), "NOT_FOUND", `NOT_FOUND: root_path does not exist: ${root}/missing`);
      await assertSearchError(ws, tsConst({ root_path: "a.ts" }), "NOT_DIRECTORY", `NOT_DIRECTORY: root_path is not a directory: ${root}/a.ts`);
      // root_path is checked before the language and the rule.
      await assertSearchError(ws, { language: "klingon", rule: { bogus: 1 }, root_path: "missing" }, "NOT_FOUND", `NOT_FOUND: root_path does not exist: ${root}/missing`);
    }));

  test("UNSUPPORTED_LANGUAGE", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const message = await assertSearchError(ws, { language: "klingon", rule: { pattern: "x" } }, "UNSUPPORTED_LANGUAGE", /^UNSUPPORTED_LANGUAGE: Error: Cannot parse rule\n/);
      assert.match(message, /data did not match any variant of untagged enum SgLang/);
      assert.match(message, /"klingon"/);
      assert.match(message, /typescript/, "lists the supported languages");
      // The language is read before the rule (the CLI reads the language line first).
      await assertSearchError(ws, { language: "klingon", rule: { bogus: 1 } }, "UNSUPPORTED_LANGUAGE", /^UNSUPPORTED_LANGUAGE: /);
    }));

  test("INVALID_RULE with ast-grep's own explanation", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const cases = [
        [{ bogus: 1 }, "unknown field `bogus`, expected one of pattern, kind, regex"],
        [{ kind: null }, "Maybe field cannot be null."],
        [{}, "Rule must have one positive matcher."],
        [{ pattern: () => 1 }, "Rule must have one positive matcher."], // JSON.stringify drops the function
        [{ kind: "no_such_kind" }, "Kind `no_such_kind` is invalid."],
        [{ regex: "(" }, "unclosed group"],
        [{ pattern: "" }, "No AST root is detected"],
        [{ pattern: "x", inside: { pattern: "y", stopBy: "nowhere" } }, "unknown variant `nowhere`"],
      ];
      for (const [rule, cause] of cases) {
        const message = await assertSearchError(ws, { language: "ts", rule }, "INVALID_RULE", /^INVALID_RULE: Error: Cannot parse rule\n/);
        assert.ok(message.includes(cause), `${JSON.stringify(rule)}: ${message}`);
      }
    }));

  test("TIMEOUT: a search that cannot finish in time fails as a whole", onlyOn(["unix"], NEEDS.fifo), () =>
    withWorkspace({ "a.ts": "[1].map((x) => x);\n" }, async (ws) => {
      // The walk opens the root's .ignore before any file: a FIFO there blocks it until a writer
      // comes, so the search cannot finish, whatever the machine's speed.
      const input = { language: "ts", rule: { pattern: "$A.map($F)" }, timeout_ms: 100 };
      assert.equal((await ws.toolkit.invoke("ast_grep_search", { ...input, timeout_ms: 30_000 })).content.items.length, 1, "without the FIFO the search succeeds");
      const fifo = path.join(ws.root, ".ignore");
      execFileSync("mkfifo", [fifo]);
      try {
        await assertSearchError(ws, input, "TIMEOUT", "TIMEOUT: search timed out");
      } finally {
        // Let the searches go: a descriptor open for writing (O_RDWR does not wait for a reader)
        // ends their wait to open it; once the name is gone and it is closed, they read an end
        // of file, and no later search meets it.
        const fd = fs.openSync(fifo, "r+");
        fs.rmSync(fifo);
        fs.closeSync(fd);
      }
    }));

  test("an invalid glob is INTERNAL", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const message = await assertSearchError(ws, tsConst({ include: ["[z-a]"] }), "INTERNAL", /^INTERNAL: /);
      assert.match(message, /error parsing glob '\[z-a\]'/);
    }));
});

// ---- real matching -------------------------------------------------------------------------

describe("matching", () => {
  test("TypeScript: metavariables, $$$, relational rules, kind and regex", () =>
    withWorkspace({ "a.ts": "foo(foo(1));\nfunction f() { return foo(a, b, c); }\nconst greeting = 'hi';\n" }, async (ws) => {
      assert.deepStrictEqual(where(await search(ws, { language: "ts", rule: { pattern: "foo($A)" } })), ["a.ts@0:0", "a.ts@0:4"], "nested matches");
      const out = await search(ws, { language: "ts", rule: { pattern: "foo($$$ARGS)", inside: { kind: "function_declaration", stopBy: "end" } } });
      assert.deepStrictEqual(where(out), ["a.ts@1:22"]);
      const [item] = out.items;
      assert.deepStrictEqual(item.metaVariables.multi.ARGS.map((n) => n.text), ["a", ",", "b", ",", "c"]);
      assert.deepStrictEqual(item.labels.map((l) => [l.style, l.text]), [["primary", "foo(a, b, c)"], ["secondary", "function f() { return foo(a, b, c); }"]]);
      assert.equal(item.lines, "function f() { return foo(a, b, c); }");
      assert.deepStrictEqual(item.charCount, { leading: 22, trailing: 3 });
      const has = await search(ws, { language: "ts", rule: { kind: "call_expression", has: { kind: "arguments", has: { pattern: "b" } } } });
      assert.deepStrictEqual(where(has), ["a.ts@1:22"]);
      const regex = await search(ws, { language: "ts", rule: { kind: "identifier", regex: "^gree" } });
      assert.deepStrictEqual(where(regex), ["a.ts@2:6"]);
      assert.equal("metaVariables" in regex.items[0], false, "no meta variable bound: no metaVariables key");
      const any = await search(ws, { language: "ts", rule: { any: [{ pattern: "foo(1)" }, { kind: "string" }] } });
      assert.deepStrictEqual(where(any), ["a.ts@0:4", "a.ts@2:17"]);
    }));

  test("Rust and Python", () =>
    withWorkspace({
      "src/lib.rs": "fn main() {\n    let x = Some(1).unwrap();\n    println!(\"{}\", x);\n}\n",
      "tool.py": "def greet(name):\n    print(f\"hi {name}\")\n\nclass A:\n    def m(self):\n        print(1)\n",
    }, async (ws) => {
      const rust = await search(ws, { language: "rust", rule: { pattern: "$E.unwrap()" } });
      assert.deepStrictEqual(where(rust), ["src/lib.rs@1:12"]);
      assert.equal(rust.items[0].language, "Rust");
      assert.equal(rust.items[0].metaVariables.single.E.text, "Some(1)");
      assert.deepStrictEqual(where(await search(ws, { language: "rs", rule: { kind: "macro_invocation" } })), ["src/lib.rs@2:4"]);
      const py = await search(ws, { language: "python", rule: { pattern: "print($X)", inside: { kind: "class_definition", stopBy: "end" } } });
      assert.deepStrictEqual(where(py), ["tool.py@5:8"]);
      assert.equal(py.items[0].language, "Python");
      assert.deepStrictEqual(where(await search(ws, { language: "py", rule: { kind: "function_definition", has: { field: "name", regex: "^gr" } } })), ["tool.py@0:0"]);
    }));

  test("ast-grep-ignore comments and <script> blocks in HTML, as sg scan does", () =>
    withWorkspace({
      "a.js": "foo(1);\n// ast-grep-ignore\nfoo(2);\nfoo(3); // ast-grep-ignore: other-rule\n",
      "p.html": "<html><script>foo(5);</script>\n<script lang=\"ts\">foo(6);</script></html>\n",
    }, async (ws) => {
      const js = await search(ws, { language: "javascript", rule: { pattern: "foo($A)" } });
      assert.deepStrictEqual(where(js), ["a.js@0:0", "a.js@3:0", "p.html@0:14"]);
      assert.equal(js.items[2].language, "JavaScript");
      assert.deepStrictEqual(where(await search(ws, { language: "ts", rule: { pattern: "foo($A)" } })), ["p.html@1:18"]);
    }));

  test("which files are searched: sg scan's defaults", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace({
      "src/s.ts": "const s = 1;\n",
      "src/t.tsx": "const t = 1;\n",
      "src/j.js": "const j = 1;\n",
      "src/.dot.ts": "const dot = 1;\n",
      ".hidden/h.ts": "const h = 1;\n",
      "node_modules/top.ts": "const top = 1;\n",
      "sub/node_modules/n.ts": "const n = 1;\n",
      "ign/g.ts": "const g = 1;\n",
      ".gitignore": "ign/\n",
    }, async (ws) => {
      ws.put("src/bad.ts", Buffer.from([0x63, 0x6f, 0x6e, 0x73, 0x74, 0x20, 0x78, 0x20, 0x3d, 0x20, 0xff, 0x3b, 0x0a]));
      fs.symlinkSync(path.join(ws.root, "src/s.ts"), path.join(ws.root, "link.ts"));
      fs.symlinkSync(path.join(ws.root, "src"), path.join(ws.root, "srclink"));
      const files = async (extra) => [...new Set((await search(ws, tsConst(extra))).items.map((i) => i.file))];
      // Outside a git repository .gitignore is not applied (ripgrep's rule).
      assert.deepStrictEqual(await files(), ["ign/g.ts", "src/.dot.ts", "src/s.ts", "sub/node_modules/n.ts"]);
      fs.mkdirSync(path.join(ws.root, ".git"));
      assert.deepStrictEqual(await files(), ["src/.dot.ts", "src/s.ts", "sub/node_modules/n.ts"]);
      assert.deepStrictEqual(await files({ include: ["ign", "ign/*.ts"] }), ["ign/g.ts"], "a matching glob overrides .gitignore");
      assert.deepStrictEqual((await search(ws, { language: "tsx", rule: CONST_RULE })).items.map((i) => i.file), ["src/t.tsx"]);
    }));
});

// ---- sandbox and environment ---------------------------------------------------------------------

describe("sandbox and environment", () => {
  test("root_path outside the workspace is denied, also behind a symlink or next to cwd (docs/compat.md)", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const outside = path.join(ws.base, "outside");
      fs.mkdirSync(outside);
      fs.writeFileSync(path.join(outside, "secret.ts"), "const secret = 1;\n");
      fs.symlinkSync(outside, path.join(ws.root, "out"));
      for (const root_path of ["..", "out", "../outside"]) {
        const message = `[Sandbox Violation] Attempted to access path outside of workspace: "${root_path}"`;
        assert.deepStrictEqual(await ws.toolkit.tools.ast_grep_search(tsConst({ root_path })), sandboxDenied(message));
        const err = await rejectionOf(ws.toolkit.invoke("ast_grep_search", tsConst({ root_path })));
        assert.equal(err.message, message);
      }
      const both = await ws.toolkit.tools.ast_grep_search(tsConst({ cwd: "src", root_path: ".." }));
      assert.equal(both.status, "denied");
    }));

  test("no ast-grep or sg binary is needed: DEPENDENCY_MISSING cannot occur", () =>
    withWorkspace(CONTRACT_FILES, async (ws) => {
      const script = path.join(ws.base, "search.mjs");
      fs.writeFileSync(script, [
        `import { createToolContext, createAgentToolkit } from ${JSON.stringify(import.meta.resolve("agent-tools-native"))};`,
        `const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: ${JSON.stringify(ws.root)}, policy: { tools: {}, defaultPolicy: "allow" } }));`,
        `const out = await toolkit.invoke("ast_grep_search", { language: "ts", rule: { pattern: "const $A = $B" } });`,
        `console.log(JSON.stringify(out.content.items.map((i) => i.file)));`,
      ].join("\n"));
      const stdout = execFileSync(process.execPath, [script], { env: { PATH: "" }, cwd: ws.base, encoding: "utf8" });
      assert.deepStrictEqual(JSON.parse(stdout.trim()), ["a.ts", "B/b.ts", "src/main.ts", "src/main.ts", "src/sub/x.ts"]);
    }));
});

describe("ast_grep_search: patterns that used to end the process", () => {
  test("5 000 nested parentheses and 5 000 chained operators are INVALID_ARGUMENT; the process lives on", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "atn-ast-"));
    try {
      fs.writeFileSync(path.join(dir, "a.ts"), "f(1)\n");
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL }));
      const search = (pattern) => toolkit.invoke("ast_grep_search", { language: "typescript", rule: { pattern } });
      for (const pattern of [`f(${"(".repeat(5000)}1${")".repeat(5000)})`, Array(5000).fill("a").join(" + ")]) {
        const error = await rejectionOf(search(pattern));
        assert.equal(error.code, "INVALID_ARGUMENT", error.message);
        assert.match(error.message, /rule pattern nests more than/);
      }
      const out = await search("f($A)");
      assert.equal(out.content.items.length, 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("ast_grep_search: a timed-out search stops working", () => {
  // Nested relational rules with `stopBy: end` walk the whole file again for every node tried:
  // minutes of matching in one file, far past any timeout on any machine.
  const slowRule = {
    kind: "identifier",
    inside: { stopBy: "end", kind: "function_declaration", has: { stopBy: "end", kind: "identifier", inside: { stopBy: "end", kind: "program", has: { stopBy: "end", kind: "regex" } } } },
  };

  /** CPU seconds this process uses in `ms` of wall time. */
  async function cpuOver(ms) {
    const start = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, ms));
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1e6;
  }

  test("20 timed-out searches in a row leave no thread busy (CPU back to idle)", { timeout: 180_000 }, async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-ast-")));
    try {
      const source = Array.from({ length: 3000 }, (_, i) => `function f${i}(a, b) { const x = a + b; return g(x, a) + h(b); }`).join("\n");
      fs.writeFileSync(path.join(dir, "big.js"), source);
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL }));
      for (let i = 0; i < 20; i++) {
        const error = await rejectionOf(toolkit.invoke("ast_grep_search", { language: "javascript", rule: slowRule, timeout_ms: 150 }));
        assert.equal(error.code, "TIMEOUT", error.message);
      }
      // One spinning thread alone would use about a second of CPU in every second. Stopping takes
      // a moment, longer on a loaded machine: seconds are measured until one is idle.
      const used = [];
      for (const end = Date.now() + 60_000; !(used.at(-1) < 0.3) && Date.now() < end; ) used.push(await cpuOver(1000));
      assert.ok(used.at(-1) < 0.3, `CPU seconds in each second after the searches timed out: ${used.map((u) => u.toFixed(3)).join(", ")}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the rule's relational nesting and count are limited", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "atn-ast-"));
    try {
      fs.writeFileSync(path.join(dir, "a.js"), "f(1)\n");
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL }));
      let rule = { kind: "identifier" };
      for (let i = 0; i < 7; i++) rule = { kind: "identifier", has: rule };
      const deep = await rejectionOf(toolkit.invoke("ast_grep_search", { language: "javascript", rule }));
      assert.equal(deep.code, "INVALID_ARGUMENT");
      assert.match(deep.message, /more than 6 levels deep/);
      const wide = { any: Array.from({ length: 33 }, () => ({ kind: "call_expression", has: { kind: "number" } })) };
      const many = await rejectionOf(toolkit.invoke("ast_grep_search", { language: "javascript", rule: wide }));
      assert.match(many.message, /more than 32 relational rules/);
      const ok = await toolkit.invoke("ast_grep_search", { language: "javascript", rule: { kind: "call_expression", has: { kind: "number", stopBy: "end" } } });
      assert.equal(ok.content.items.length, 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
