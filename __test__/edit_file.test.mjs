// edit_file (docs/tools/edit_file.md), an opt-in tool: the opt-in itself (nothing changes
// without it), its checks through invoke and the secure wrapper, the matching stages, what the
// write keeps, and the stale-read guard.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { createAgentToolkit, createToolContext, defineTool, ToolCatalog, asTools } from "agent-tools-native";
import { tempDir, ALLOW_ALL, rejection, failureResult, sandboxDenied, assertToolError, onlyOn, NEEDS } from "./helpers.mjs";

const BUILT_INS = [
  "git_status_summary", "apply_patch", "write_file", "exec_command", "tree", "read_file", "task_create_many", "task_list",
  "task_update", "task_update_status", "task_validate_completion", "regexp_search", "ast_grep_search",
];

/** A workspace `<tmp>/ws` (with an `outside` sibling) and a toolkit with edit_file enabled. */
async function withEdit(fn, { policy = ALLOW_ALL, writeScope } = {}) {
  const { dir, cleanup } = tempDir();
  const root = path.join(dir, "ws");
  const outside = path.join(dir, "outside");
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "canary.txt"), "CANARY\n");
  const context = createToolContext({ workspaceRoot: root, policy, writeScope });
  const toolkit = createAgentToolkit(context, { extraTools: ["edit_file"] });
  const put = (rel, data) => fs.writeFileSync(path.join(root, rel), data);
  const read = (rel) => fs.readFileSync(path.join(root, rel), "utf8");
  try {
    await fn({ root, outside, context, toolkit, put, read });
  } finally {
    cleanup();
  }
}

const edit = async (toolkit, args) => (await toolkit.invoke("edit_file", args)).content;

describe("the opt-in", () => {
  test("without extraTools nothing changes: 13 tools, no edit_file anywhere", async () => {
    await withEdit(async ({ context }) => {
      const plain = createAgentToolkit(context);
      assert.deepEqual(plain.getAllowedTools().map((d) => d.function.name), BUILT_INS);
      assert.deepEqual(Object.keys(plain.tools).sort(), [...BUILT_INS].sort());
      assert.equal(Object.hasOwn(ToolCatalog, "edit_file"), false);
      assert.equal(Object.keys(ToolCatalog).length, 13);
      const err = await rejection(plain.invoke("edit_file", { path: "a", old_string: "a", new_string: "b" }));
      assert.equal(err.name, "InvokeToolError");
      assert.equal(err.code, "TOOL_NOT_FOUND");
      assert.equal(asTools(plain).length, 13);
    });
  });

  test("with extraTools it is listed after the 13, typed by its definition, and in asTools", async () => {
    await withEdit(async ({ toolkit }) => {
      const names = toolkit.getAllowedTools().map((d) => d.function.name);
      assert.deepEqual(names, [...BUILT_INS, "edit_file"]);
      const def = toolkit.getAllowedTools().at(-1);
      assert.equal(def.type, "function");
      assert.deepEqual(def.function.parameters.required, ["path", "old_string", "new_string"]);
      assert.equal(typeof toolkit.tools.edit_file, "function");
      assert.deepEqual(asTools(toolkit).map((t) => t.name), [...BUILT_INS, "edit_file"]);
    });
  });

  test("the policy decides, as for the built-ins", async () => {
    await withEdit(
      async ({ toolkit, put, read }) => {
        put("a.txt", "x\n");
        assert.deepEqual(toolkit.getAllowedTools().map((d) => d.function.name), ["read_file"]);
        const err = await rejection(toolkit.invoke("edit_file", { path: "a.txt", old_string: "x", new_string: "y" }));
        assert.equal(err.code, "TOOL_NOT_ALLOWED");
        assert.equal(err.message, 'TOOL_NOT_ALLOWED: [Security Policy] Access denied for tool: "edit_file"');
        const result = await toolkit.tools.edit_file("a.txt", { old_string: "x", new_string: "y" });
        assert.equal(result.status, "denied");
        assert.equal(result.reason, "policy");
        assert.equal(read("a.txt"), "x\n");
      },
      { policy: { tools: { read_file: "allow" }, defaultPolicy: "deny" } },
    );
    await withEdit(
      async ({ toolkit }) => {
        assert.deepEqual(toolkit.getAllowedTools().map((d) => d.function.name), ["edit_file"]);
      },
      { policy: { tools: { edit_file: "allow" }, defaultPolicy: "deny" } },
    );
  });

  test("a read-only context refuses it as a write operation", async () => {
    await withEdit(
      async ({ toolkit, put, read }) => {
        put("a.txt", "x\n");
        const err = await rejection(toolkit.invoke("edit_file", { path: "a.txt", old_string: "x", new_string: "y" }));
        assert.equal(err.code, "TOOL_NOT_ALLOWED");
        assert.match(err.message, /Write operation denied/);
        const result = await toolkit.tools.edit_file("a.txt", { old_string: "x", new_string: "y" });
        assert.equal(result.status, "denied");
        assert.equal(result.reason, "sandbox");
        assert.equal(read("a.txt"), "x\n");
      },
      { writeScope: "read-only" },
    );
  });

  test("bad extraTools and clashing user tools are refused; without the opt-in the name is a user tool's", async () => {
    const context = createToolContext({ workspaceRoot: "/tmp", policy: ALLOW_ALL });
    assert.throws(() => createAgentToolkit(context, { extraTools: ["edit_files"] }), /unknown extra tool "edit_files"/);
    assert.throws(() => createAgentToolkit(context, { extraTools: "edit_file" }), TypeError);
    const mine = defineTool({ name: "edit_file", description: "mine", input: z.object({ text: z.string() }), execute: (i) => i.text });
    assert.throws(() => createAgentToolkit(context, { tools: [mine], extraTools: ["edit_file"] }), /clashes with an enabled extra tool/);
    // without the opt-in the name is free for a user tool, which is served as before
    const toolkit = createAgentToolkit(context, { tools: [mine] });
    assert.deepEqual((await toolkit.invoke("edit_file", { text: "hi" })).content, "hi");
  });
});

describe("the sandbox", () => {
  test("paths outside the workspace, by .. or by a symlink, are refused", onlyOn(["unix"], NEEDS.symlinks), async () => {
    await withEdit(async ({ root, outside, toolkit }) => {
      fs.symlinkSync(path.join(outside, "canary.txt"), path.join(root, "link.txt"));
      for (const p of ["../outside/canary.txt", "link.txt", path.join(outside, "canary.txt")]) {
        const err = await rejection(toolkit.invoke("edit_file", { path: p, old_string: "CANARY", new_string: "owned" }));
        assert.match(err.message, /^\[Sandbox Violation\]/, p);
        const result = await toolkit.tools.edit_file(p, { old_string: "CANARY", new_string: "owned" });
        assert.equal(result.status, "denied", p);
        assert.equal(result.reason, "sandbox", p);
      }
      assert.equal(fs.readFileSync(path.join(outside, "canary.txt"), "utf8"), "CANARY\n");
    });
  });

  test("sandboxDenied envelope for a path outside", async () => {
    await withEdit(async ({ toolkit }) => {
      const result = await toolkit.tools.edit_file("../x", { old_string: "a", new_string: "b" });
      assert.deepEqual(result, sandboxDenied(result.message));
    });
  });
});

describe("matching and writing", () => {
  test("every stage, named in the result, with a diff", async () => {
    await withEdit(async ({ toolkit, put, read }) => {
      put("exact.txt", "a\nb\n");
      let out = await edit(toolkit, { path: "exact.txt", old_string: "b", new_string: "B" });
      assert.deepEqual(out, {
        path: "exact.txt", stage: "exact", replacements: 1, lines: [2], dry_run: false,
        diff: "--- a/exact.txt\n+++ b/exact.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n",
      });
      assert.equal(read("exact.txt"), "a\nB\n");

      put("crlf.txt", "one\r\ntwo\r\nthree\r\n");
      out = await edit(toolkit, { path: "crlf.txt", old_string: "one\ntwo\n", new_string: "1\n2\n" });
      assert.equal(out.stage, "line_endings");
      assert.equal(read("crlf.txt"), "1\r\n2\r\nthree\r\n");

      put("ws.txt", "if x {   \n  y();\t\n}\n");
      out = await edit(toolkit, { path: "ws.txt", old_string: "if x {\n  y();\n}", new_string: "if x {\n  z();\n}" });
      assert.equal(out.stage, "trailing_whitespace");
      assert.equal(read("ws.txt"), "if x {\n  z();\n}\n");

      put("tabs.go", "func f() {\n\tif ok {\n\t\trun()\n\t}\n}\n");
      out = await edit(toolkit, { path: "tabs.go", old_string: "    if ok {\n        run()\n    }", new_string: "    if ok {\n        run()\n        log()\n    }" });
      assert.equal(out.stage, "indentation");
      assert.equal(read("tabs.go"), "func f() {\n\tif ok {\n\t\trun()\n\t\tlog()\n\t}\n}\n");
    });
  });

  test("AMBIGUOUS names every candidate; replace_all replaces them all", async () => {
    await withEdit(async ({ toolkit, put, read }) => {
      put("a.txt", "x = 1\ny\nx = 1\n");
      const err = await rejection(toolkit.invoke("edit_file", { path: "a.txt", old_string: "x = 1", new_string: "x = 2" }));
      assertToolError(err, "EditFileError", "AMBIGUOUS",
        "AMBIGUOUS: old_string matches 2 places in a.txt (stage exact) at lines 1, 3: include more surrounding lines to make it unique, or set replace_all");
      assert.equal(read("a.txt"), "x = 1\ny\nx = 1\n");
      const out = await edit(toolkit, { path: "a.txt", old_string: "x = 1", new_string: "x = 2", replace_all: true });
      assert.equal(out.replacements, 2);
      assert.deepEqual(out.lines, [1, 3]);
      assert.equal(read("a.txt"), "x = 2\ny\nx = 2\n");
    });
  });

  test("NOT_FOUND names the closest region and the first difference", async () => {
    await withEdit(async ({ toolkit, put }) => {
      put("m.rs", "fn main() {\n    let total = a + b;\n    println!(\"{total}\");\n}\n");
      const err = await rejection(toolkit.invoke("edit_file", { path: "m.rs", old_string: "let total = a - b;", new_string: "x" }));
      assert.equal(err.name, "EditFileError");
      assert.equal(err.code, "NOT_FOUND");
      assert.match(err.message, /closest region: lines 2-2; line 2: expected "let total = a - b;" but found "    let total = a \+ b;"/);
      const result = await toolkit.tools.edit_file("m.rs", { old_string: "let total = a - b;", new_string: "x" });
      assert.deepEqual(result, failureResult(err.message));
    });
  });

  test("BOM, CRLF, no final newline and permissions are kept; dry_run writes nothing", onlyOn(["unix"], NEEDS.modes), async () => {
    await withEdit(async ({ root, toolkit, put, read }) => {
      put("b.cs", "\ufeffclass A\r\n{\r\n    int x;\r\n}");
      fs.chmodSync(path.join(root, "b.cs"), 0o754);
      const dry = await edit(toolkit, { path: "b.cs", old_string: "int x;", new_string: "int y;\nint z;", dry_run: true });
      assert.equal(dry.dry_run, true);
      assert.match(dry.diff, /-    int x;\n\+    int y;\n\+int z;\n/);
      assert.equal(read("b.cs"), "\ufeffclass A\r\n{\r\n    int x;\r\n}");
      await edit(toolkit, { path: "b.cs", old_string: "}", new_string: "  int w;\n}" });
      assert.equal(read("b.cs"), "\ufeffclass A\r\n{\r\n    int x;\r\n  int w;\r\n}");
      assert.equal(fs.statSync(path.join(root, "b.cs")).mode & 0o777, 0o754);
      assert.deepEqual(fs.readdirSync(root), ["b.cs"], "no temporary file is left");
    });
  });

  test("argument errors are typed", async () => {
    await withEdit(async ({ toolkit, put }) => {
      put("a.txt", "a\n");
      const cases = [
        [{ path: "a.txt", old_string: "", new_string: "b" }, "INVALID_ARGUMENT: old_string must not be empty (use write_file to create a file)"],
        [{ path: "a.txt", old_string: "a", new_string: "a" }, "INVALID_ARGUMENT: new_string is the same as old_string: nothing to change"],
        [{ path: "a.txt", old_string: 5, new_string: "a" }, "INVALID_ARGUMENT: old_string must be a string"],
        [{ path: "a.txt", old_string: "a", new_string: "b", dry_run: "no" }, "INVALID_ARGUMENT: dry_run must be a boolean"],
        [{ old_string: "a", new_string: "b" }, "INVALID_ARGUMENT: path must be a non-empty string"],
      ];
      for (const [args, message] of cases) {
        assertToolError(await rejection(toolkit.invoke("edit_file", args)), "EditFileError", "INVALID_ARGUMENT", message);
      }
      const missing = await rejection(toolkit.invoke("edit_file", { path: "nope.txt", old_string: "a", new_string: "b" }));
      assert.equal(missing.code, "NOT_FOUND");
      const dir = await rejection(toolkit.invoke("edit_file", { path: ".", old_string: "a", new_string: "b" }));
      assert.equal(dir.code, "NOT_FILE");
    });
  });
});

describe("the stale-read guard", () => {
  test("a change since the last read or edit is refused; reading again lifts it", async () => {
    await withEdit(async ({ toolkit, put, read }) => {
      put("s.txt", "one\n");
      // never read: allowed
      await edit(toolkit, { path: "s.txt", old_string: "one", new_string: "two" });
      // its own edit is what it has seen
      await edit(toolkit, { path: "s.txt", old_string: "two", new_string: "three" });
      put("s.txt", "three\nfour\n");
      const err = await rejection(toolkit.invoke("edit_file", { path: "s.txt", old_string: "three", new_string: "3" }));
      assertToolError(err, "EditFileError", "STALE_READ",
        "STALE_READ: s.txt changed since this context last read or edited it; read it again before editing");
      assert.equal(read("s.txt"), "three\nfour\n");
      await toolkit.invoke("read_file", { path: "s.txt" });
      await edit(toolkit, { path: "s.txt", old_string: "three", new_string: "3" });
      assert.equal(read("s.txt"), "3\nfour\n");
      // write_file through the toolkit counts as seen
      await toolkit.invoke("write_file", { path: "s.txt", content: "five\n" });
      await edit(toolkit, { path: "s.txt", old_string: "five", new_string: "5" });
      assert.equal(read("s.txt"), "5\n");
    });
  });

  test("the record belongs to the context: another context's reads do not count", async () => {
    await withEdit(async ({ root, toolkit, put }) => {
      put("s.txt", "a\n");
      await toolkit.invoke("read_file", { path: "s.txt" });
      const other = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL }), { extraTools: ["edit_file"] });
      await other.invoke("edit_file", { path: "s.txt", old_string: "a", new_string: "b" });
      const err = await rejection(toolkit.invoke("edit_file", { path: "s.txt", old_string: "b", new_string: "c" }));
      assert.equal(err.code, "STALE_READ");
    });
  });
});
