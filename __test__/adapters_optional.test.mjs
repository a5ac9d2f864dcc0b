// The frameworks stay optional: loading the package's main entry (CommonJS or ESM) loads none of
// them, and an adapter whose framework is not installed says which package to install.
import { test } from "./harness.mjs";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FRAMEWORKS = ["ai", "@langchain/core", "@openai/agents", "@openai/agents-core", "@mastra/core", "@ai-sdk/provider"];

function node(args, code) {
  const run = spawnSync(process.execPath, [...args, "-e", code], { cwd: repo, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

test("the main entry, required or imported, loads no framework", () => {
  const loaded = JSON.parse(
    node(
      [],
      `require("agent-tools-native");
       import("agent-tools-native").then(() => console.log(JSON.stringify(Object.keys(require.cache))));`,
    ),
  );
  assert.ok(loaded.some((f) => f.endsWith(path.join("js", "index.cjs"))), "the entry itself was loaded");
  const frameworks = loaded.filter((f) => FRAMEWORKS.some((name) => f.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`)));
  assert.deepEqual(frameworks, []);
});

test("an adapter whose framework is missing throws an Error naming the package to install", () => {
  // A resolver that finds none of the frameworks, as in a project that does not install them.
  const hide = `const Module = require("node:module"); const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (${JSON.stringify(FRAMEWORKS)}.some((name) => request === name || request.startsWith(name + "/"))) {
        throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: "MODULE_NOT_FOUND" });
      }
      return resolve.call(this, request, ...rest);
    };`;
  const out = node(
    [],
    `${hide}
     const { createAgentToolkit, createToolContext } = require("agent-tools-native");
     const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: process.cwd(), policy: { tools: {}, defaultPolicy: "allow" } }));
     const results = [];
     for (const [entry, fn] of [["ai", "toAISDKTools"], ["langchain", "toLangChainTools"], ["openai-agents", "toOpenAIAgentsTools"], ["mastra", "toMastraTools"]]) {
       const adapter = require("agent-tools-native/" + entry)[fn];
       try { adapter(toolkit); results.push("no error"); } catch (error) { results.push(error.message); }
     }
     console.log(JSON.stringify(results));`,
  );
  const messages = JSON.parse(out);
  assert.match(messages[0], /^toAISDKTools needs the AI SDK: npm install ai \(Cannot find module 'ai'\)$/);
  assert.match(messages[1], /^toLangChainTools needs LangChain: npm install @langchain\/core \(Cannot find module '@langchain\/core\/tools'\)$/);
  assert.match(messages[2], /^toOpenAIAgentsTools needs the OpenAI Agents SDK: npm install @openai\/agents \(Cannot find module '@openai\/agents'\)$/);
  assert.match(messages[3], /^toMastraTools needs Mastra: npm install @mastra\/core \(Cannot find module '@mastra\/core\/tools'\)$/);
});
