import { test, describe, afterEach } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ToolCatalog } from "agent-tools-native";
import { workspace, rejection } from "./helpers.mjs";

const ALLOW = { tools: {}, defaultPolicy: "allow" };
const DENY = { tools: {}, defaultPolicy: "deny" };

/** Replaces a catalog handler with a recorder for one test. */
const restore = [];
function mockHandler(name, result = { mocked: true }) {
  const original = ToolCatalog[name].handler;
  const calls = [];
  ToolCatalog[name].handler = async (...args) => {
    calls.push(args);
    return result;
  };
  restore.push(() => { ToolCatalog[name].handler = original; });
  return calls;
}
afterEach(() => { while (restore.length) restore.pop()(); });

describe("invoke: order of checks", () => {
  test("unknown name → TOOL_NOT_FOUND with the full InvokeToolError shape", async () => {
    const ws = workspace(ALLOW);
    try {
      const err = await rejection(ws.toolkit.invoke("nope", {}));
      assert.ok(err instanceof Error);
      assert.equal(err.name, "InvokeToolError");
      assert.equal(err.code, "TOOL_NOT_FOUND");
      assert.equal(err.tool_name, "nope");
      assert.equal(err.message, "TOOL_NOT_FOUND: tool is not registered: nope");
      assert.equal(err.rawMessage, "tool is not registered: nope");
      assert.deepEqual(err.toEnvelope(), { code: "TOOL_NOT_FOUND", message: "tool is not registered: nope", retriable: false, details: { tool_name: "nope" } });
      assert.ok(Object.keys(err).includes("rawMessage"), "rawMessage is an own enumerable property");
    } finally {
      ws.cleanup();
    }
  });

  test("inherited Object.prototype names are not tools (docs/compat.md)", async () => {
    const ws = workspace(ALLOW);
    try {
      for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
        const err = await rejection(ws.toolkit.invoke(name, {}));
        assert.equal(err.code, "TOOL_NOT_FOUND", name);
        assert.equal(err.message, `TOOL_NOT_FOUND: tool is not registered: ${name}`);
      }
    } finally {
      ws.cleanup();
    }
  });

  test("policy before args type; args type before write scope", async () => {
    const denied = workspace(DENY);
    const readOnly = workspace(ALLOW, "read-only");
    try {
      const a = await rejection(denied.toolkit.invoke("read_file", null));
      assert.equal(a.code, "TOOL_NOT_ALLOWED");
      assert.equal(a.rawMessage, '[Security Policy] Access denied for tool: "read_file"');
      const b = await rejection(readOnly.toolkit.invoke("write_file", "x"));
      assert.deepEqual(b.toEnvelope(), { code: "INVALID_TOOL_ARGUMENTS_TYPE", message: "args must be an object", retriable: false, details: { tool_name: "write_file" } });
      assert.equal(b.message, "INVALID_TOOL_ARGUMENTS_TYPE: args must be an object");
      for (const bad of [null, undefined, [], "s", 1, () => {}]) {
        const err = await rejection(readOnly.toolkit.invoke("read_file", bad));
        assert.equal(err.code, "INVALID_TOOL_ARGUMENTS_TYPE", String(bad));
      }
      const c = await rejection(readOnly.toolkit.invoke("write_file", { path: "a", content: "b" }));
      assert.equal(c.code, "TOOL_NOT_ALLOWED");
      assert.equal(c.rawMessage, '[Sandbox Violation] Write operation denied. Current mode: "read-only"');
    } finally {
      denied.cleanup();
      readOnly.cleanup();
    }
  });

  test("a sandbox violation rejects with a plain Error", async () => {
    const ws = workspace(ALLOW);
    try {
      const err = await rejection(ws.toolkit.invoke("read_file", { path: "..\\x" }));
      assert.equal(err.constructor, Error);
      assert.equal(err.message, '[Sandbox Violation] Attempted to access path outside of workspace: "../x"');
      assert.equal(err.code, undefined);
      assert.equal(err.tool_name, undefined);
    } finally {
      ws.cleanup();
    }
  });

  test("tool errors propagate unchanged; results are wrapped as { role, name, content }", async () => {
    const ws = workspace(ALLOW);
    try {
      const err = await rejection(ws.toolkit.invoke("read_file", { path: "nope" }));
      assert.equal(err.name, "ReadFileError");
      assert.equal(err.code, "NOT_FOUND");
      assert.equal(err.message, `NOT_FOUND: path not found: ${path.join(ws.root, "nope")}`);
      fs.writeFileSync(path.join(ws.root, "a.txt"), "A");
      const ok = await ws.toolkit.invoke("read_file", { path: "a.txt", start_line: 1 });
      assert.deepEqual(Object.keys(ok), ["role", "name", "content"]);
      assert.equal(ok.role, "function");
      assert.equal(ok.name, "read_file");
      assert.equal(ok.content.content, "A");
      const missingPath = await rejection(ws.toolkit.invoke("read_file", {}));
      assert.equal(missingPath.message, "INVALID_ARGUMENT: path must be a non-empty string");
    } finally {
      ws.cleanup();
    }
  });
});

describe("invoke: argument mapping to handlers", () => {
  test("handlers receive upstream's positional arguments", async () => {
    const ws = workspace(ALLOW);
    try {
      const read = mockHandler("read_file");
      const out = await ws.toolkit.invoke("read_file", { path: "src/main.ts", extra: 1 });
      assert.deepEqual(out, { role: "function", name: "read_file", content: { mocked: true } });
      assert.equal(read[0][0], ws.context, "the same context object");
      assert.deepEqual(read[0].slice(1), [path.join(ws.root, "src/main.ts"), { start_line: undefined, max_lines: undefined }]);
      assert.deepEqual(Object.keys(read[0][2]), ["start_line", "max_lines"]);

      const git = mockHandler("git_status_summary");
      await ws.toolkit.invoke("git_status_summary", {});
      assert.equal(git[0].length, 2);
      assert.equal(git[0][1], undefined);

      const search = mockHandler("regexp_search");
      await ws.toolkit.invoke("regexp_search", { pattern: "TODO", root_path: "src\\nested\\.." });
      assert.deepEqual(search[0][1], { pattern: "TODO", root_path: path.join(ws.root, "src") });

      const todo = mockHandler("task_list");
      await ws.toolkit.invoke("task_list", { cwd: "../.." });
      assert.deepEqual(todo[0][1], { cwd: "../.." }, "todo args are not path-checked");

      const tree = mockHandler("tree");
      await ws.toolkit.invoke("tree", { path: ".", max_depth: 2, junk: true });
      assert.deepEqual(tree[0][2], { entry_kind: undefined, max_depth: 2, max_entries: undefined, include_hidden: undefined, exclude: undefined });
    } finally {
      ws.cleanup();
    }
  });

  test("invoke looks handlers up per call; tools capture them at creation", async () => {
    const ws = workspace(ALLOW);
    try {
      const calls = mockHandler("tree", { replaced: 1 });
      assert.deepEqual((await ws.toolkit.invoke("tree", { path: "." })).content, { replaced: 1 });
      const captured = await ws.toolkit.tools.tree(".");
      assert.equal(captured.status, "success");
      assert.equal(captured.data.root.kind, "directory", "the toolkit kept the built-in handler");
      assert.equal(calls.length, 1);
    } finally {
      ws.cleanup();
    }
  });

  test("isWriteOp is read from the catalog at call time", async () => {
    const ws = workspace(ALLOW, "read-only");
    const metadata = ToolCatalog.read_file.metadata;
    try {
      metadata.isWriteOp = true;
      assert.equal((await ws.toolkit.tools.read_file("x")).reason, "sandbox");
      assert.equal((await rejection(ws.toolkit.invoke("read_file", { path: "x" }))).code, "TOOL_NOT_ALLOWED");
    } finally {
      metadata.isWriteOp = false;
      ws.cleanup();
    }
  });
});

describe("toolkit.tools: the secure wrapper", () => {
  test("a bad first argument fails before the policy check", async () => {
    const ws = workspace(DENY);
    try {
      for (const bad of [null, 5, true, [], () => {}]) {
        assert.deepEqual(await ws.toolkit.tools.read_file(bad), {
          status: "failure", reason: "runtime", message: "Invalid path argument",
          error: { code: "RUNTIME_ERROR", message: "Invalid path argument", retriable: true, details: {} },
        });
      }
    } finally {
      ws.cleanup();
    }
  });

  test("handlers receive exactly the arguments given, path resolved", async () => {
    const ws = workspace(ALLOW);
    try {
      const read = mockHandler("read_file");
      const git = mockHandler("git_status_summary");
      const search = mockHandler("regexp_search");
      const toolkit = (await import("agent-tools-native")).createAgentToolkit(ws.context);
      await toolkit.tools.read_file("src/main.ts");
      assert.deepEqual(read[0].slice(1), [path.join(ws.root, "src/main.ts")]);
      await toolkit.tools.read_file("src/main.ts", { max_lines: 2 });
      assert.deepEqual(read[1].slice(1), [path.join(ws.root, "src/main.ts"), { max_lines: 2 }]);
      await toolkit.tools.git_status_summary();
      assert.equal(git[0].length, 1);
      await toolkit.tools.git_status_summary(undefined); // same as omitted (docs/compat.md)
      assert.equal(git[1].length, 1);
      await toolkit.tools.regexp_search({ pattern: "TODO" });
      assert.deepEqual(search[0][1], { pattern: "TODO" });
      const both = await toolkit.tools.regexp_search({ pattern: "x", cwd: "src", root_path: "../.." });
      assert.equal(both.reason, "sandbox", "the search tool's root_path is checked (docs/compat.md)");
      const handlerThrows = mockHandler("tree");
      ToolCatalog.tree.handler = async () => { throw new Error("handler broke"); };
      const broken = await (await import("agent-tools-native")).createAgentToolkit(ws.context).tools.tree(".");
      assert.equal(broken.message, "handler broke");
      assert.equal(handlerThrows.length, 0);
    } finally {
      ws.cleanup();
    }
  });

  test("a path containing 'Policy' is classified as a sandbox denial (docs/compat.md)", async () => {
    const ws = workspace(ALLOW);
    try {
      const result = await ws.toolkit.tools.read_file("../Policy");
      assert.equal(result.reason, "sandbox");
      assert.equal(result.error.code, "SANDBOX_VIOLATION");
    } finally {
      ws.cleanup();
    }
  });

  test("raw handlers run without policy or sandbox", async () => {
    const ws = workspace(DENY);
    try {
      const out = await ToolCatalog.read_file.handler(ws.context, path.join(ws.outside, "canary.txt"));
      assert.equal(out.content, "CANARY");
      await assert.rejects(ToolCatalog.read_file.handler(ws.context, path.join(ws.root, "nope")), { name: "ReadFileError", code: "NOT_FOUND" });
    } finally {
      ws.cleanup();
    }
  });
});
