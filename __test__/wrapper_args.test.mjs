// How toolkit.tools.* treats arguments a tool does not take: an explicit `undefined` anywhere is
// an omitted argument, and object keys a tool does not take are neither checked nor passed on
// (docs/compat.md).
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { workspace, onlyOn, NEEDS } from "./helpers.mjs";

describe("toolkit.tools.*: arguments the tool does not take", () => {
  test("exec_command ignores a root_path key, even one pointing outside", onlyOn(["unix"], NEEDS.sh), async () => {
    const ws = workspace();
    try {
      const result = await ws.toolkit.tools.exec_command({ cwd: ".", command: ["echo", "x"], root_path: ".." });
      assert.equal(result.status, "success", JSON.stringify(result));
      assert.equal(result.data.stdout, "x\n");
      assert.equal(result.data.cwd, ws.root);
    } finally {
      ws.cleanup();
    }
  });

  test("the search tools ignore a cwd key and check their root_path", async () => {
    const ws = workspace();
    try {
      const found = await ws.toolkit.tools.regexp_search({ pattern: "x", cwd: "../..", root_path: "src" });
      assert.equal(found.status, "success", JSON.stringify(found));
      const escaped = await ws.toolkit.tools.ast_grep_search({ language: "typescript", rule: { pattern: "$A" }, cwd: ".", root_path: "../.." });
      assert.equal(escaped.status, "denied");
      assert.equal(escaped.reason, "sandbox");
    } finally {
      ws.cleanup();
    }
  });

  test("a leading undefined is an omitted path, like a trailing one: the tool's own validation answers", async () => {
    const ws = workspace();
    try {
      const leading = await ws.toolkit.tools.read_file(undefined, { start_line: 1 });
      const trailing = await ws.toolkit.tools.read_file(undefined);
      const omitted = await ws.toolkit.tools.read_file();
      assert.equal(leading.status, "failure");
      assert.notEqual(leading.message, "Invalid path argument");
      assert.deepEqual(leading, trailing);
      assert.deepEqual(trailing, omitted);
      const tree = await ws.toolkit.tools.tree(undefined, { max_depth: 1 });
      assert.deepEqual(tree, await ws.toolkit.tools.tree());
    } finally {
      ws.cleanup();
    }
  });

  test("values that are not paths are still refused before the policy check", async () => {
    const ws = workspace({ tools: {}, defaultPolicy: "deny" });
    try {
      for (const bad of [null, 5, ["a"]]) {
        assert.equal((await ws.toolkit.tools.read_file(bad, { start_line: 1 })).message, "Invalid path argument");
      }
    } finally {
      ws.cleanup();
    }
  });
});
