import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import { createToolContext, createAgentToolkit, ToolCatalog } from "agent-tools-native";

const allowAll = () => createAgentToolkit(createToolContext({ workspaceRoot: "/ws", policy: { tools: {}, defaultPolicy: "allow" } }));

describe("tool definitions", () => {
  test("byte-identical to agent-tools-ts v0.6.0 (length and SHA-256 of the JSON)", () => {
    const json = JSON.stringify(allowAll().getAllowedTools());
    assert.equal(json.length, 7331);
    assert.equal(createHash("sha256").update(json).digest("hex"), "4a5a10b574316ea9dc5713160f07d852a675b49c64fda700b1419fe36b082c33");
  });

  test("read_file's entry, key by key", () => {
    const readFile = allowAll().getAllowedTools().find((d) => d.function.name === "read_file");
    assert.deepEqual(readFile, {
      type: "function",
      function: {
        name: "read_file",
        description: "Reads a UTF-8 text file in the workspace and returns a line-limited content window.",
        parameters: {
          type: "object",
          properties: {
            path: { type: "string", description: 'Workspace-root-relative file path to read (e.g., "src/main.ts").' },
            start_line: { type: "number", default: 1, description: "1-based start line of the returned window (default: 1)." },
            max_lines: { type: "number", default: 200, description: "Maximum number of lines to return (default: 200)." },
          },
          required: ["path"],
        },
      },
    });
  });

  test("every definition's parameters are the schema generated from the tool's input type (an opt-in tool's with its key order)", () => {
    const generated = new Map(createRequire(import.meta.url)("../binding.js").toolCatalog().map((t) => [t.name, t.parameters]));
    const published = JSON.parse(fs.readFileSync(new URL("../crates/agent-tools-core/src/opt_in_definitions.json", import.meta.url), "utf8"));
    const context = createToolContext({ workspaceRoot: "/ws", policy: { tools: {}, defaultPolicy: "allow" } });
    const served = createAgentToolkit(context, { extraTools: published.map((d) => d.function.name) }).getAllowedTools();
    assert.equal(served.length, generated.size);
    for (const definition of served) {
      const name = definition.function.name;
      assert.ok(generated.has(name), name);
      // the 13 built-ins keep agent-tools-ts's text, whose keywords stand in another order
      if (published.some((d) => d.function.name === name)) {
        assert.equal(JSON.stringify(definition.function.parameters), JSON.stringify(generated.get(name)), name);
      } else {
        assert.deepEqual(definition.function.parameters, generated.get(name), name);
      }
    }
  });

  test("the opt-in tools' definitions, after the 13, are the published ones as JSON text (key order included)", () => {
    const published = JSON.parse(fs.readFileSync(new URL("../crates/agent-tools-core/src/opt_in_definitions.json", import.meta.url), "utf8"));
    const optIn = published.map((d) => d.function.name);
    const context = createToolContext({ workspaceRoot: "/ws", policy: { tools: {}, defaultPolicy: "allow" } });
    const listed = createAgentToolkit(context, { extraTools: optIn }).getAllowedTools().slice(13);
    assert.equal(JSON.stringify(listed), JSON.stringify(published));
  });
});

describe("ToolCatalog", () => {
  test("13 entries in toolkit order with upstream's metadata", () => {
    assert.deepEqual(Object.keys(ToolCatalog), [
      "apply_patch", "exec_command", "write_file", "tree", "read_file", "regexp_search", "ast_grep_search",
      "git_status_summary", "task_create_many", "task_list", "task_update", "task_update_status", "task_validate_completion",
    ]);
    for (const [name, entry] of Object.entries(ToolCatalog)) {
      assert.deepEqual(Object.keys(entry), ["metadata", "handler"]);
      assert.deepEqual(Object.keys(entry.metadata), ["name", "isWriteOp", "description"]);
      assert.equal(entry.metadata.name, name);
      assert.equal(entry.metadata.isWriteOp, name === "apply_patch" || name === "write_file");
      assert.equal(typeof entry.handler, "function");
    }
    assert.equal(ToolCatalog.apply_patch.metadata.description, "Applies a unified diff patch to a file within the workspace.");
    assert.equal(ToolCatalog.git_status_summary.metadata.description, "Returns current git branch and raw porcelain status output for a workspace directory.");
  });
});
