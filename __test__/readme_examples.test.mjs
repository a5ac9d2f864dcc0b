// The README's framework examples ("// README example: <name>" blocks), as written: type-checked
// with `tsc --strict` (module nodenext) and run against each framework's test model. They are
// written next to this file (inside the package, so `agent-tools-native` resolves to it) and
// removed afterwards.
import { test, describe, before, after } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { scriptedAgentsModel } from "./agents_mock.mjs";
import { scriptedModel } from "./ai_sdk_mock.mjs";
import { tempDir } from "./helpers.mjs";
import { ScriptedChatModel } from "./langchain_mock.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.join(here, "..");

/** The README's examples by name. */
function examples() {
  const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8");
  const found = new Map();
  for (const [, body] of readme.matchAll(/```ts\n(\/\/ README example: [^\n]+\n[\s\S]*?)```/g)) {
    const name = /^\/\/ README example: (.+)$/m.exec(body)[1].trim();
    found.set(name, body);
  }
  return found;
}

const WRITE = { id: "w1", name: "write_file", args: { path: "fixed.txt", content: "ok\n" } };

describe("the README's framework examples", () => {
  let dir;
  let modules;
  before(() => {
    dir = fs.mkdtempSync(path.join(here, ".readme-examples-"));
    const found = examples();
    assert.deepEqual([...found.keys()].sort(), ["ai", "langchain", "mastra", "openai-agents"]);
    for (const [name, body] of found) fs.writeFileSync(path.join(dir, `${name}.mts`), body);
    fs.writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "es2022", module: "nodenext", moduleResolution: "nodenext", strict: true, rootDir: ".", outDir: "out", skipLibCheck: true, types: ["node"] },
        include: ["*.mts"],
      }),
    );
    modules = found;
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("they compile under tsc --strict as written", { timeout: 180_000 }, () => {
    const tsc = spawnSync(process.execPath, [path.join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(dir, "tsconfig.json")], { encoding: "utf8" });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    for (const name of modules.keys()) assert.ok(fs.existsSync(path.join(dir, "out", `${name}.mjs`)), name);
  });

  const load = (name) => import(pathToFileURL(path.join(dir, "out", `${name}.mjs`)).href);
  const approveAll = async () => true;

  for (const [name, model] of [
    ["ai", () => scriptedModel([() => ({ calls: [WRITE] }), () => ({ text: "fixed" })], [])],
    ["mastra", () => scriptedModel([() => ({ calls: [WRITE] }), () => ({ text: "fixed" })], [])],
    ["openai-agents", () => scriptedAgentsModel([() => ({ calls: [WRITE] }), () => ({ text: "fixed" })])],
    [
      "langchain",
      () => {
        let n = 0;
        return new ScriptedChatModel((messages) => {
          n += 1;
          if (n === 1) {
            // a write, and a tool the toolkit does not have: the loop answers it with an error
            return new AIMessage({ content: "", tool_calls: [{ ...WRITE, type: "tool_call" }, { id: "x1", name: "no_such_tool", args: {}, type: "tool_call" }] });
          }
          // the history a provider requires: the assistant's turn, then one result per call
          const last = messages.slice(-3);
          assert.ok(AIMessage.isInstance(last[0]) && last[0].tool_calls.length === 2, "the assistant's message comes before its tool results");
          assert.deepEqual(last.slice(1).map((m) => ToolMessage.isInstance(m) && [m.tool_call_id, m.status]), [["w1", "success"], ["x1", "error"]]);
          return new AIMessage("fixed");
        });
      },
    ],
  ]) {
    test(`${name}: runs as written — the write is reviewed, approved and done`, { timeout: 120_000 }, async () => {
      const { dir: workspace, cleanup } = tempDir("atn-readme-");
      try {
        const asked = [];
        const approve = async (request) => (asked.push(request.name), approveAll());
        const text = await (await load(name)).fixTheTest(model(), workspace, approve);
        assert.equal(text, "fixed");
        assert.deepEqual(asked, ["write_file"]);
        assert.equal(fs.readFileSync(path.join(workspace, "fixed.txt"), "utf8"), "ok\n");
      } finally {
        cleanup();
      }
    });
  }

  test("ai: a declined write never runs, and the run goes on", { timeout: 120_000 }, async () => {
    const { dir: workspace, cleanup } = tempDir("atn-readme-");
    try {
      const model = scriptedModel([() => ({ calls: [WRITE] }), () => ({ text: "fixed" })], []);
      const text = await (await load("ai")).fixTheTest(model, workspace, async () => false);
      assert.equal(text, "fixed");
      assert.equal(fs.existsSync(path.join(workspace, "fixed.txt")), false);
    } finally {
      cleanup();
    }
  });
});
