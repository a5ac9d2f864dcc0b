import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import * as esm from "agent-tools-native";
import { createToolContext, createAgentToolkit } from "agent-tools-native";
import { workspace, rejection } from "./helpers.mjs";

describe("module surface", () => {
  test("agent-tools-ts's four runtime exports plus the user-tool API, from ESM and CommonJS alike", () => {
    const expected = [
      "createToolContext", "createAgentToolkit", "ToolCatalog", "SecurityBypass",
      "defineTool", "asTools", "toToolMessageContent", "OutputCache", "outputCacheTools", "applyOutputCache", "doneTool",
      "runToolLoop", "streamToolLoop", "createProviderSession",
      // provider adapters (js/providers.cjs)
      "hasToolCalls", "isToolResult", "checkToolHistory", "toolCallIdMap",
      ...["OpenAIChat", "OpenAIResponses", "Anthropic", "Gemini", "Ollama"].flatMap((p) => [
        `to${p}Tools`, ...(p === "Ollama" ? [] : [`to${p}ToolChoice`]), `to${p}Request`, `from${p}Response`, `create${p}Stream`,
      ]),
    ];
    assert.deepEqual(Object.keys(esm).sort(), [...expected].sort());
    const cjs = createRequire(import.meta.url)("agent-tools-native");
    assert.deepEqual(Object.keys(cjs), expected);
    assert.equal(cjs.ToolCatalog, esm.ToolCatalog, "one module instance for both entry points");
  });
});

describe("createToolContext", () => {
  test("returns a plain object with defaults, in upstream's key order", () => {
    const ctx = createToolContext({ workspaceRoot: "rel/root" });
    assert.deepEqual(Object.keys(ctx), ["workspaceRoot", "writeScope", "policy", "env"]);
    assert.equal(ctx.workspaceRoot, "rel/root", "stored as given, not resolved");
    assert.equal(ctx.writeScope, "workspace-write");
    assert.deepEqual(ctx.policy, { tools: {}, defaultPolicy: "deny" });
    assert.deepEqual(ctx.env, { platform: os.platform(), osRelease: os.release() });
    assert.equal("todo" in ctx, false);
  });

  test("searchCacheBytes is set only when given (the search cache's budget)", () => {
    assert.equal("searchCacheBytes" in createToolContext({ workspaceRoot: "/ws" }), false);
    const ctx = createToolContext({ workspaceRoot: "/ws", searchCacheBytes: 0 });
    assert.deepEqual(Object.keys(ctx), ["workspaceRoot", "writeScope", "policy", "env", "searchCacheBytes"]);
    assert.equal(ctx.searchCacheBytes, 0);
  });

  test("keeps the given policy object by reference", () => {
    const policy = { tools: { read_file: "allow" }, defaultPolicy: "deny" };
    const ctx = createToolContext({ workspaceRoot: "/ws", writeScope: "read-only", policy });
    assert.equal(ctx.policy, policy);
    assert.equal(ctx.writeScope, "read-only");
  });

  test("toolkit keys and tool names are in upstream's order", () => {
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: "/ws" }));
    assert.deepEqual(Object.keys(toolkit), ["tools", "invoke", "getAllowedTools"]);
    assert.deepEqual(Object.keys(toolkit.tools), [
      "apply_patch", "exec_command", "write_file", "tree", "read_file", "regexp_search", "ast_grep_search",
      "git_status_summary", "task_create_many", "task_list", "task_update", "task_update_status", "task_validate_completion",
    ]);
  });
});

describe("liveness", () => {
  test("policy, writeScope and workspaceRoot are re-read on every call", async () => {
    const ws = workspace({ tools: {}, defaultPolicy: "deny" });
    try {
      fs.writeFileSync(path.join(ws.root, "a.txt"), "A");
      const denied = await ws.toolkit.tools.read_file("a.txt");
      assert.equal(denied.status, "denied");
      ws.context.policy.defaultPolicy = "allow";
      assert.equal((await ws.toolkit.tools.read_file("a.txt")).status, "success");
      ws.context.policy = { tools: { read_file: "deny" }, defaultPolicy: "allow" };
      assert.equal((await ws.toolkit.tools.read_file("a.txt")).reason, "policy");
      assert.deepEqual(ws.toolkit.getAllowedTools().map((d) => d.function.name).includes("read_file"), false);

      ws.context.policy = { tools: {}, defaultPolicy: "allow" };
      ws.context.writeScope = "read-only";
      assert.equal((await ws.toolkit.tools.write_file("b.txt", "x")).reason, "sandbox");
      ws.context.writeScope = "workspace-write";
      assert.equal((await ws.toolkit.tools.write_file("b.txt", "x")).status, "success");

      const other = path.join(ws.base, "outside");
      ws.context.workspaceRoot = other;
      const read = await ws.toolkit.invoke("read_file", { path: "canary.txt" });
      assert.equal(read.content.content, "CANARY");
    } finally {
      ws.cleanup();
    }
  });

  test("a relative workspaceRoot is resolved against the process cwd at each call", async () => {
    const ws = workspace();
    const cwd = process.cwd();
    try {
      fs.writeFileSync(path.join(ws.root, "a.txt"), "A");
      process.chdir(ws.base);
      ws.context.workspaceRoot = "ws";
      const out = await ws.toolkit.invoke("read_file", { path: "a.txt" });
      assert.equal(out.content.path, "a.txt");
      const err = await rejection(ws.toolkit.invoke("read_file", { path: "nope" }));
      assert.equal(err.message, `NOT_FOUND: path not found: ${path.join(ws.root, "nope")}`);
    } finally {
      process.chdir(cwd);
      ws.cleanup();
    }
  });

  test("a hand-written context literal works like a created one", async () => {
    const ws = workspace();
    try {
      const literal = { workspaceRoot: ws.root, writeScope: "workspace-write", policy: { tools: {}, defaultPolicy: "allow" }, env: { platform: "linux", osRelease: "x" } };
      const out = await createAgentToolkit(literal).invoke("write_file", { path: "l.txt", content: "L" });
      assert.deepEqual(out, { role: "function", name: "write_file", content: { path: "l.txt", created: true, bytes_written: 1 } });
    } finally {
      ws.cleanup();
    }
  });
});

describe("a workspaceRoot that is not a directory", () => {
  test("every tool's error names the root (not a file under it), on both doors; nothing is created; a root made later works", async () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-root-")));
    try {
      const file = path.join(base, "a-file");
      fs.writeFileSync(file, "x");
      const missing = path.join(base, "missing");
      const policy = { tools: {}, defaultPolicy: "allow" };
      for (const [root, code, message] of [
        [missing, "NOT_FOUND", `workspaceRoot does not exist: ${missing}`],
        [file, "NOT_DIRECTORY", `workspaceRoot is not a directory: ${file}`],
      ]) {
        const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: root, policy }));
        for (const [name, args] of [["read_file", { path: "a.txt" }], ["write_file", { path: "a.txt", content: "x" }], ["tree", { path: "." }], ["regexp_search", { pattern: "x" }], ["exec_command", { cwd: ".", command: ["true"] }]]) {
          const error = await rejection(toolkit.invoke(name, args));
          assert.deepEqual([error.code, error.message], [code, `${code}: ${message}`], `${name} in ${root}`);
        }
        const failed = await toolkit.tools.write_file("a.txt", "x");
        assert.deepEqual([failed.status, failed.message], ["failure", `${code}: ${message}`]);
      }
      assert.equal(fs.existsSync(missing), false, "the missing root was not created");
      // the root is read afresh on every call: made later, it works
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: missing, policy }));
      fs.mkdirSync(missing);
      assert.equal((await toolkit.invoke("write_file", { path: "a.txt", content: "x" })).content.created, true);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("typings surface", () => {
  test("index.d.ts exports agent-tools-ts's four values and twelve types, plus the user-tool API and the exec sandbox types", () => {
    const dts = fs.readFileSync(new URL("../index.d.ts", import.meta.url), "utf8");
    const values = [...dts.matchAll(/^export declare (?:function|const|class) (\w+)/gm)].map((m) => m[1]);
    const types = [
      ...[...dts.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]),
      ...[...dts.matchAll(/^export type \{([^}]*)\}/gm)].flatMap((m) => m[1].split(",").map((s) => s.trim()).filter(Boolean)),
    ];
    assert.deepEqual([...new Set(values)].sort(), [
      "OutputCache", "SecurityBypass", "ToolCatalog", "applyOutputCache", "asTools", "createAgentToolkit", "createToolContext",
      "createProviderSession", "defineTool", "doneTool", "outputCacheTools", "runToolLoop", "streamToolLoop", "toToolMessageContent",
    ].sort());
    const upstream = [
      "AccessLevel", "AllowedToolName", "FileAccessMode", "Invoke", "InvokeToolErrorCode", "SecurityPolicyConfig",
      "ToolArgsByName", "ToolContext", "ToolErrorEnvelope", "ToolPolicy", "ToolResultByName", "ToolkitInvokeOutput",
    ];
    const userToolApi = [
      "AgentToolkit", "AgentToolkitOptions", "DefineToolOptions", "DependencyKey", "DependencyOverrides", "ExecuteRawContext",
      "ImagePart", "Logger", "TextPart", "Tool", "ToolExecutionContext", "ToolExecutionResult", "ToolResult",
    ];
    const loopApi = [
      "LlmContentBlock", "LlmResponse", "LlmSession", "LoopEvent", "LoopMessage", "LoopStopReason", "LoopToolResult", "ReviewDecision",
      "ReviewRequest", "SessionEvent", "SessionSendOptions", "StopReason", "ToolCallDelta", "ToolLoopOptions", "ToolLoopResult", "TurnRecord",
      "ProviderSessionOptions",
    ];
    // exec_command's opt-in OS sandbox: the context option and the result's `sandbox` field
    const execSandboxApi = ["ExecOptions", "ExecSandbox"];
    // the opt-in tools' names and maps (createAgentToolkit(context, { extraTools }))
    const optInApi = ["OptInToolArgsByName", "OptInToolDefinitions", "OptInToolName", "OptInToolResultByName"];
    // permission rules on a call's arguments (createToolContext({ permissions }))
    const permissionsApi = ["PermissionDecision", "PermissionRules"];
    // the undo journal (createAgentToolkit(context, { checkpoints, syntaxCheck }))
    const checkpointsApi = ["CheckpointSummary", "CheckpointsApi", "Diagnostic", "RestoreOutcome"];
    assert.deepEqual(
      types.sort(),
      [...upstream, ...userToolApi, ...loopApi, ...execSandboxApi, ...optInApi, ...permissionsApi, ...checkpointsApi].sort(),
    );
  });
});
