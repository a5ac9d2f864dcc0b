// The library installs lean (README, "Install"): the MCP SDK, which brings the HTTP frameworks
// express and hono, is an optional peer dependency that only the `mcp` command loads
// (ts/mcp_sdk.cts). A copy of the package with nothing installed beside it (no node_modules in
// any parent directory) stands for `npm install agent-tools-native` on a clean machine: the
// library, `tools` and `call` work there, and `mcp` fails with the one command that fetches the
// SDK too. scripts/test-install.mjs checks the same through a registry.
import { test, describe, before, after } from "./harness.mjs";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { mcpCommand, SDK_SPEC } from "../js/mcp_sdk.cjs";
import { publishedRootManifest } from "../scripts/packaging.mjs";
import { tempDir } from "./helpers.mjs";
// node, also when the test runner is bun (bun would install a missing package by itself)
import { NODE } from "./mcp_helpers.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SDK = "@modelcontextprotocol/sdk";
const manifest = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));

describe("the package without the MCP SDK", () => {
  let base;
  let cleanup;
  let pkg;
  let ws;
  before(() => {
    ({ dir: base, cleanup } = tempDir("atn-lean-"));
    pkg = path.join(base, "node_modules", "agent-tools-native");
    ws = path.join(base, "ws");
    fs.mkdirSync(pkg, { recursive: true });
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, "a.txt"), "hello\n");
    for (const entry of ["package.json", "binding.js", "js", "types", "index.d.ts"]) fs.cpSync(path.join(repo, entry), path.join(pkg, entry), { recursive: true });
    // (Windows makes file symlinks only with a privilege: a copy there)
    const place = process.platform === "win32" ? fs.copyFileSync : fs.symlinkSync;
    for (const addon of fs.readdirSync(repo).filter((f) => f.endsWith(".node"))) place(path.join(repo, addon), path.join(pkg, addon));
  });
  after(() => cleanup?.());

  test("the premise: neither the SDK nor any HTTP framework can be resolved from the copy", () => {
    const require = createRequire(path.join(pkg, "js", "cli.cjs"));
    for (const name of [`${SDK}/types.js`, "express", "hono", "zod"]) assert.throws(() => require.resolve(name), { code: "MODULE_NOT_FOUND" }, name);
  });

  test("the library loads and runs a tool, from CommonJS and ESM", { timeout: 120_000 }, () => {
    const script = (load) =>
      `${load}\nconst toolkit = api.createAgentToolkit(api.createToolContext({ workspaceRoot: ${JSON.stringify(ws)}, policy: { tools: {}, defaultPolicy: "allow" } }), { extraTools: ["find_files"] });\n` +
      `toolkit.invoke("read_file", { path: "a.txt" }).then((r) => process.stdout.write(r.content.content));`;
    for (const [flag, load] of [
      ["--input-type=commonjs", 'const api = require("agent-tools-native");'],
      ["--input-type=module", 'import * as api from "agent-tools-native";'],
    ]) {
      const run = spawnSync(NODE, [flag, "-e", script(load)], { cwd: base, encoding: "utf8" });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, "hello\n");
    }
  });

  test("tools and call work; mcp fails with exit 1 and names the one-line command, with its own arguments", { timeout: 120_000 }, () => {
    const cli = (...args) => spawnSync(NODE, [path.join(pkg, "js", "cli.cjs"), ...args], { cwd: ws, encoding: "utf8", input: "" });
    const tools = cli("tools", "--extra-tools", "edit_file");
    assert.equal(tools.status, 0, tools.stderr);
    assert.ok(tools.stdout.split("\n").some((l) => l.startsWith("edit_file\t")));
    const call = cli("call", "read_file", '{"path":"a.txt"}');
    assert.equal(call.status, 0, call.stderr);
    assert.equal(JSON.parse(call.stdout).content, "hello\n");
    const mcp = cli("--write-scope", "read-only", "mcp", "--root", ".", "--deny", "exec_command");
    assert.equal(mcp.status, 1, mcp.stderr);
    assert.equal(mcp.stdout, "", "nothing on stdout, where a client expects protocol");
    assert.match(mcp.stderr, /^agent-tools-native: the MCP server needs @modelcontextprotocol\/sdk, which is not installed: it is an optional peer dependency/);
    const command = `npx -y -p agent-tools-native -p ${SDK_SPEC} agent-tools-native mcp --write-scope read-only --root . --deny exec_command`;
    assert.ok(mcp.stderr.includes(`\n  ${command}\n`), mcp.stderr);
    assert.ok(mcp.stderr.includes(`npm install ${SDK_SPEC}`));
    assert.doesNotMatch(mcp.stderr, /\n\s+at /, "no stack trace");
    // A usage error is still a usage error.
    assert.equal(cli("mcp", "--extra-tools", "nope").status, 2);
  });
});

describe("the manifest: the SDK an optional peer dependency", () => {
  test("no dependencies at all; the SDK an optional peer at the range the tests use (devDependency)", () => {
    for (const m of [manifest, publishedRootManifest()]) {
      assert.equal(m.dependencies, undefined);
      assert.match(m.peerDependencies[SDK], /^\^1\./);
      assert.deepEqual(m.peerDependenciesMeta[SDK], { optional: true });
    }
    assert.equal(manifest.devDependencies[SDK], manifest.peerDependencies[SDK]);
    assert.equal(SDK_SPEC, `${SDK}@${manifest.peerDependencies[SDK].match(/\d+/)[0]}`);
  });

  test("the one-line command is the README's, in its shell form and in the MCP client config", () => {
    const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8");
    assert.ok(readme.includes(mcpCommand()), mcpCommand());
    const args = mcpCommand().split(" ").slice(1);
    assert.ok(readme.includes(`"command": "npx",\n      "args": ${JSON.stringify(args).replaceAll(",", ", ")}`), JSON.stringify(args));
    assert.equal(mcpCommand(["--root", "my dir", "--allow", "it's"]).endsWith(`mcp --root 'my dir' --allow 'it'\\''s'`), true);
  });
});
