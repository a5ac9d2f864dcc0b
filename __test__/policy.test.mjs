import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { createToolContext, createAgentToolkit } from "agent-tools-native";
import { workspace, rejection } from "./helpers.mjs";

const DECLARATION_ORDER = [
  "git_status_summary", "apply_patch", "write_file", "exec_command", "tree", "read_file", "task_create_many",
  "task_list", "task_update", "task_update_status", "task_validate_completion", "regexp_search", "ast_grep_search",
];

function allowedNames(policy) {
  return createAgentToolkit(createToolContext({ workspaceRoot: "/ws", policy })).getAllowedTools().map((d) => d.function.name);
}

describe("getAllowedTools", () => {
  test("declaration order, exact 'allow' only, unknown keys ignored", () => {
    assert.deepEqual(allowedNames({ tools: { read_file: "allow", exec_command: "allow", nope: "allow" }, defaultPolicy: "deny" }), ["exec_command", "read_file"]);
    assert.deepEqual(allowedNames({ tools: {}, defaultPolicy: "allow" }), DECLARATION_ORDER);
    assert.deepEqual(allowedNames({ tools: { tree: "deny" }, defaultPolicy: "allow" }), DECLARATION_ORDER.filter((n) => n !== "tree"));
    assert.deepEqual(allowedNames({ tools: { tree: "ALLOW" }, defaultPolicy: "deny" }), []);
    assert.deepEqual(allowedNames({ tools: { tree: null }, defaultPolicy: "allow" }), DECLARATION_ORDER);
  });

  test("fresh array, shared definition objects", () => {
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: "/ws", policy: { tools: {}, defaultPolicy: "allow" } }));
    const a = toolkit.getAllowedTools();
    const b = toolkit.getAllowedTools();
    assert.notEqual(a, b);
    a.forEach((d, i) => assert.equal(d, b[i]));
    for (const d of a) {
      assert.deepEqual(Object.keys(d), ["type", "function"]);
      assert.equal(d.type, "function");
      assert.deepEqual(Object.keys(d.function), ["name", "description", "parameters"]);
    }
  });
});

describe("execution policy (fails closed, docs/compat.md)", () => {
  test("only an effective exact 'allow' runs a tool", async () => {
    for (const [policy, allowed] of [
      [{ tools: { read_file: "allow" }, defaultPolicy: "deny" }, true],
      [{ tools: {}, defaultPolicy: "allow" }, true],
      [{ tools: { read_file: "deny" }, defaultPolicy: "allow" }, false],
      [{ tools: { read_file: "ALLOW" }, defaultPolicy: "allow" }, false],
      [{ tools: {}, defaultPolicy: "Allow" }, false],
      [{ tools: {} }, false],
      [{ tools: { read_file: true }, defaultPolicy: "allow" }, false],
    ]) {
      const ws = workspace(policy);
      try {
        const result = await ws.toolkit.tools.read_file("missing.txt");
        assert.equal(result.status === "denied", !allowed, JSON.stringify(policy));
        if (!allowed) {
          assert.deepEqual(result, {
            status: "denied",
            reason: "policy",
            message: '[Security Policy] Access denied for tool: "read_file"',
            error: { code: "POLICY_DENIED", message: '[Security Policy] Access denied for tool: "read_file"', retriable: false, details: {} },
          });
          const err = await rejection(ws.toolkit.invoke("read_file", { path: "missing.txt" }));
          assert.equal(err.code, "TOOL_NOT_ALLOWED");
        }
      } finally {
        ws.cleanup();
      }
    }
  });

  test("read-only write scope denies the two write tools only", async () => {
    const ws = workspace({ tools: {}, defaultPolicy: "allow" }, "read-only");
    try {
      const message = '[Sandbox Violation] Write operation denied. Current mode: "read-only"';
      assert.deepEqual(await ws.toolkit.tools.write_file("a.txt", "x"), {
        status: "denied", reason: "sandbox", message,
        error: { code: "SANDBOX_VIOLATION", message, retriable: false, details: {} },
      });
      assert.equal((await ws.toolkit.tools.apply_patch("a.txt", "")).reason, "sandbox");
      const err = await rejection(ws.toolkit.invoke("write_file", { path: "a.txt", content: "x" }));
      assert.equal(err.message, `TOOL_NOT_ALLOWED: ${message}`);
      assert.equal((await ws.toolkit.tools.tree(".")).status, "success");
      // exec_command is a read op (docs/compat.md, "Read-only mode does not stop exec_command"): it
      // is not stopped by the write scope
      assert.notEqual((await ws.toolkit.tools.exec_command({ cwd: ".", command: ["true"] })).reason, "sandbox");
    } finally {
      ws.cleanup();
    }
  });

  test("'unrestricted' still sandboxes paths", async () => {
    const ws = workspace({ tools: {}, defaultPolicy: "allow" }, "unrestricted");
    try {
      assert.equal((await ws.toolkit.tools.read_file("../outside/canary.txt")).reason, "sandbox");
    } finally {
      ws.cleanup();
    }
  });
});

describe("the context is read live on every call (session tools use a cached snapshot)", () => {
  test("a policy or write scope edited between calls applies at once; unusual values fail closed", async () => {
    const ctx = createToolContext({ workspaceRoot: "/ws", policy: { tools: {}, defaultPolicy: "allow" } });
    const toolkit = createAgentToolkit(ctx);
    await toolkit.invoke("task_create_many", { tasks: [{ title: "one" }] });
    assert.equal((await toolkit.invoke("task_list", {})).content.tasks.length, 1);
    ctx.policy.tools.task_list = "deny";
    assert.equal((await rejection(toolkit.invoke("task_list", {}))).code, "TOOL_NOT_ALLOWED");
    ctx.policy.tools.task_list = "allow";
    assert.equal((await toolkit.invoke("task_list", {})).content.tasks.length, 1);
    ctx.policy.defaultPolicy = "deny";
    assert.equal((await rejection(toolkit.invoke("task_validate_completion", {}))).code, "TOOL_NOT_ALLOWED");
    // values that are not plain strings take the field-by-field path and still fail closed
    ctx.policy = { tools: { task_list: ["allow"] }, defaultPolicy: "allow" };
    assert.equal((await rejection(toolkit.invoke("task_list", {}))).code, "TOOL_NOT_ALLOWED");
    ctx.policy = { tools: { task_list: "allow" }, defaultPolicy: "deny" };
    assert.equal((await toolkit.invoke("task_list", {})).content.tasks.length, 1);
    Object.defineProperty(ctx.policy.tools, "task_list", { get: () => "deny", enumerable: true });
    assert.equal((await rejection(toolkit.invoke("task_list", {}))).code, "TOOL_NOT_ALLOWED");
  });
});
