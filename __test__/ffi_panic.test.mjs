// FFI safety (issue #9 item 6): a panic inside any tool's native handler becomes an INTERNAL
// error of that call only; the process and later calls are unaffected. The panic is injected
// with the test hook `debugInjectPanic(tool)`, which works only in a process started with
// AGENT_TOOLS_NATIVE_TEST_HOOKS=1: the work runs in such a child process (same runtime as the
// test: process.execPath), see ffi_panic_child.mjs.
import { test, describe, before } from "./harness.mjs";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ToolCatalog } from "agent-tools-native";
import { notUnderWine, WINE, runRuntime } from "./helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The 13, then the opt-in tools (ffi_panic_child.mjs enables them all). */
const OPT_IN = ["edit_file", "find_files", "apply_patches"];
const TOOLS = [...Object.keys(ToolCatalog), ...OPT_IN];

/**
 * Runs `code` (or the child script) in a fresh process of this runtime with `env`. A fixed job
 * (0.3 s of CPU; 4 s on a loaded 2-core machine): the timeouts only catch a hang.
 */
async function runChild(args, env) {
  const { error, stdout, stderr } = await runRuntime(args, { cwd: path.join(here, ".."), env, timeout: 300_000, maxBuffer: 64 << 20 });
  return { code: error ? error.code ?? error.signal : 0, stdout, stderr };
}

function withoutHooks() {
  const env = { ...process.env };
  delete env.AGENT_TOOLS_NATIVE_TEST_HOOKS;
  return env;
}

let report;
let child;
before(async () => {
  child = await runChild([path.join(here, "ffi_panic_child.mjs")], { ...process.env, AGENT_TOOLS_NATIVE_TEST_HOOKS: "1", RUST_BACKTRACE: "0" });
  if (child.code === 0) report = JSON.parse(child.stdout.trim().split("\n").at(-1));
}, { timeout: 310_000 });

// the child (ffi_panic_child.mjs) makes its workspace a git repository
describe("panics inside tools (test hook)", notUnderWine(WINE.git), () => {
  test("the child process survives a panic in every tool and exits normally", () => {
    assert.equal(child.code, 0, child.stderr);
    assert.deepEqual(Object.keys(report.tools), TOOLS);
    assert.match(child.stderr, /injected panic in apply_patch/, "Rust's panic hook reported the panics");
    assert.deepEqual(report.optInListed, OPT_IN, "every opt-in tool is covered");
  });

  for (const name of TOOLS) {
    test(`${name}: INTERNAL for the panicking call only, the next call succeeds`, () => {
      const entry = report.tools[name];
      const message = `INTERNAL: native panic: injected panic in ${name}`;
      // invoke: an InvokeToolError with code INTERNAL (retriable)
      assert.deepEqual(entry.invoke, {
        rejected: {
          isError: true,
          name: "InvokeToolError",
          code: "INTERNAL",
          message,
          tool_name: name,
          envelope: { code: "INTERNAL", message: `native panic: injected panic in ${name}`, retriable: true, details: { tool_name: name } },
        },
      });
      // toolkit.tools.*: a runtime failure carrying the INTERNAL message
      assert.deepEqual(entry.wrapper, {
        resolved: { status: "failure", reason: "runtime", message, error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} } },
      });
      // the raw ToolCatalog handler: an Error with code INTERNAL (the opt-in tools have none)
      if (OPT_IN.includes(name)) assert.deepEqual(entry.raw, { none: true });
      else {
        assert.equal(entry.raw.rejected?.code, "INTERNAL");
        assert.equal(entry.raw.rejected.message, message);
      }
      assert.equal(entry.burstInternal, 20, "every concurrent panicking call is INTERNAL");
      assert.ok(entry.other.resolved, `another tool kept working: ${JSON.stringify(entry.other)}`);
      // after the switch is off, the same tool works again through both doors
      assert.ok(entry.after.invoke.resolved, JSON.stringify(entry.after.invoke));
      assert.equal(entry.after.invoke.resolved.name, name);
      assert.equal(entry.after.wrapper.resolved?.status, "success", JSON.stringify(entry.after.wrapper));
    });
  }

  test("the results after the panics are the tools' normal, correct outputs", () => {
    const after = (name) => report.tools[name].after.invoke.resolved.content;
    assert.equal(after("read_file").content, "hello\n");
    assert.equal(after("write_file").bytes_written, 7);
    assert.equal(after("exec_command").stdout, "hi\n");
    assert.equal(after("apply_patch").changed, true);
    assert.equal(after("tree").root.path, ".");
    assert.deepEqual(after("regexp_search").items.map((i) => i.path), ["a.txt"]);
    assert.deepEqual(after("ast_grep_search").items.map((i) => i.file), ["src/a.ts"]);
    assert.equal(typeof after("git_status_summary").raw, "string");
    assert.equal(after("task_update").task.title, "renamed");
    assert.equal(after("task_update_status").task.status, "done");
    assert.ok(Array.isArray(after("task_list").tasks));
    assert.deepEqual(after("edit_file").replacements, 1);
    assert.ok(after("find_files").items.some((i) => i.path === "a.txt"));
    assert.deepEqual(after("apply_patches").files, [{ path: "p.txt", action: "updated" }]);
  });

  test("the hook refuses unknown tool names", () => {
    assert.match(report.unknownTool.rejected.message, /not a built-in tool: no_such_tool/);
  });

  test("without AGENT_TOOLS_NATIVE_TEST_HOOKS=1 the hook throws a clear error", { timeout: 120_000 }, async () => {
    const script = [
      'const native = require("./binding.js");',
      "try { native.debugInjectPanic('read_file'); console.log('ENABLED'); }",
      "catch (e) { console.log(e.message); }",
    ].join("\n");
    for (const env of [withoutHooks(), { ...withoutHooks(), AGENT_TOOLS_NATIVE_TEST_HOOKS: "0" }]) {
      const out = await runChild(["-e", script], env);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(
        out.stdout.trim(),
        "debugInjectPanic is a test hook: start the process with AGENT_TOOLS_NATIVE_TEST_HOOKS=1 to use it",
      );
    }
  });
});
