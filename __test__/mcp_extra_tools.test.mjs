// The opt-in tools (edit_file, find_files, apply_patches) through the MCP server and the CLI
// (`--extra-tools`, README "Use it from an MCP client"): listed only when enabled, with the
// annotations of their effect class and an output schema generated from their output types
// (js/output_schemas.json), called over MCP by the SDK's client and by `call`, refused by the
// policy, the write scope and the sandbox as the built-ins are.
import { test, describe, before, after } from "./harness.mjs";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { mcpTools, parseArgs } from "../js/cli.cjs";
import { nativeCatalog, optInCatalog } from "../js/native.cjs";
import { createAgentToolkit, createToolContext, defineTool } from "agent-tools-native";
import { z } from "zod";
import { BIN, CACHE_TOOLS, connectStdio, errorOf, mcpFixture, NODE, okOf, repo } from "./mcp_helpers.mjs";

const OPT_IN = ["edit_file", "find_files", "apply_patches"];

function fixture() {
  return mcpFixture("atn-mcp-extra-", { "a.txt": "hello\nworld\n", "src/config.ts": "export const retries = 3;\n" });
}

const connect = (args) => connectStdio(args);

const ANNOTATIONS = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  write: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

const CODEX_PATCH = [
  "*** Begin Patch",
  "*** Update File: src/config.ts",
  "@@",
  "-export const retries = 3;",
  "+export const retries = 5;",
  "*** Add File: src/config.test.ts",
  '+import { retries } from "./config";',
  "*** End Patch",
].join("\n");

describe("MCP server: --extra-tools serves the opt-in tools", () => {
  let fx;
  let plain;
  let extra;
  before(async () => {
    fx = fixture();
    plain = await connect(["--root", fx.root]);
    extra = await connect(["--root", fx.root, "--extra-tools", "apply_patches,edit_file", "--extra-tools", "find_files"]);
  });
  after(async () => {
    await plain?.close();
    await extra?.close();
    fx?.cleanup();
  });

  test("tools/list: without the option none of them; with it, getAllowedTools' list with extraTools, effect-class annotations, output schemas", async () => {
    const without = (await plain.client.listTools()).tools.map((t) => t.name);
    for (const name of OPT_IN) assert.ok(!without.includes(name), name);
    const { tools } = await extra.client.listTools();
    const context = createToolContext({ workspaceRoot: fx.root, policy: { tools: {}, defaultPolicy: "allow" } });
    const expected = createAgentToolkit(context, { extraTools: OPT_IN }).getAllowedTools().map((d) => d.function);
    assert.deepEqual(tools.map((t) => t.name), [...expected.map((f) => f.name), ...CACHE_TOOLS]);
    assert.deepEqual(tools.map((t) => t.name).filter((n) => OPT_IN.includes(n)), optInCatalog().map((e) => e.name).filter((n) => OPT_IN.includes(n)), "registry order");
    const effects = Object.fromEntries(nativeCatalog().map((e) => [e.name, e.effect]));
    assert.deepEqual(OPT_IN.map((n) => effects[n]), ["write", "read", "write"]);
    for (const name of OPT_IN) {
      const tool = tools.find((t) => t.name === name);
      const fn = expected.find((f) => f.name === name);
      assert.equal(tool.description, fn.description);
      assert.deepEqual(tool.inputSchema, fn.parameters);
      assert.deepEqual(tool.annotations, ANNOTATIONS[effects[name]], name);
      assert.equal(tool.outputSchema?.type, "object", `${name} has an output schema`);
    }
  });

  test("each opt-in tool is called; its structured content matches its output schema, which rejects a wrong output", async () => {
    const { tools } = await extra.client.listTools();
    const ajv = new AjvJsonSchemaValidator();
    const call = async (name, args) => {
      const output = okOf(await extra.client.callTool({ name, arguments: args }));
      const validate = ajv.getValidator(tools.find((t) => t.name === name).outputSchema);
      assert.equal(validate(output).valid, true, `${name}: ${validate(output).errorMessage}`);
      for (const field of Object.keys(output)) {
        const { [field]: _, ...missing } = output;
        assert.equal(validate(missing).valid, false, `${name} without ${field}`);
        assert.equal(validate({ ...output, [field]: [[[]]] }).valid, false, `${name} with a bad ${field}`);
      }
      return output;
    };
    const found = await call("find_files", { pattern: "*.ts" });
    assert.deepEqual(found.items.map((i) => i.path), ["src/config.ts"]);
    assert.equal(found.truncated, false);
    const edited = await call("edit_file", { path: "a.txt", old_string: "world", new_string: "there" });
    assert.deepEqual([edited.stage, edited.replacements, edited.lines], ["exact", 1, [2]]);
    assert.match(edited.diff, /^-world\n\+there$/m);
    assert.equal(fs.readFileSync(path.join(fx.root, "a.txt"), "utf8"), "hello\nthere\n");
    const patched = await call("apply_patches", { patch: CODEX_PATCH });
    assert.deepEqual(patched.files, [
      { path: "src/config.ts", action: "updated" },
      { path: "src/config.test.ts", action: "added" },
    ]);
    assert.equal(fs.readFileSync(path.join(fx.root, "src", "config.ts"), "utf8"), "export const retries = 5;\n");
    // The schema's enums and $defs have teeth too.
    const validate = ajv.getValidator(tools.find((t) => t.name === "edit_file").outputSchema);
    assert.equal(validate({ ...edited, stage: "fuzzy" }).valid, false);
  });

  test("edit_file keeps the server's read ledger across calls: a file changed since it was read is STALE_READ", async () => {
    okOf(await extra.client.callTool({ name: "read_file", arguments: { path: "src/config.ts" } }));
    fs.writeFileSync(path.join(fx.root, "src", "config.ts"), "export const retries = 7;\n");
    const stale = errorOf(await extra.client.callTool({ name: "edit_file", arguments: { path: "src/config.ts", old_string: "7", new_string: "8" } }));
    assert.equal(stale.code, "STALE_READ");
    assert.equal(fs.readFileSync(path.join(fx.root, "src", "config.ts"), "utf8"), "export const retries = 7;\n");
  });

  test("without --extra-tools a call of an opt-in tool is TOOL_NOT_FOUND, and nothing is written", async () => {
    for (const [name, args] of [
      ["edit_file", { path: "a.txt", old_string: "hello", new_string: "bye" }],
      ["apply_patches", { patch: CODEX_PATCH }],
      ["find_files", { pattern: "*" }],
    ]) {
      assert.equal(errorOf(await plain.client.callTool({ name, arguments: args })).code, "TOOL_NOT_FOUND", name);
    }
    assert.match(fs.readFileSync(path.join(fx.root, "a.txt"), "utf8"), /^hello\n/);
  });

  test("escape attempts through the opt-in tools are denied by the sandbox", async () => {
    const attempts = [
      ["edit_file", { path: "../ws_evil/secret.txt", old_string: "EVIL", new_string: "GOOD" }],
      ["edit_file", { path: path.join(fx.base, "ws_evil", "secret.txt"), old_string: "EVIL", new_string: "GOOD" }],
      ["find_files", { pattern: "*", root_path: "../ws_evil" }],
      ["find_files", { pattern: "*", root_path: `${fx.root}_evil` }],
      ["apply_patches", { patch: "*** Begin Patch\n*** Add File: ../ws_evil/planted.txt\n+x\n*** End Patch" }],
      ["apply_patches", { patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../ws_evil/moved.txt\n@@\n hello\n*** End Patch" }],
      // through the fixture's symlinks, where it has them
      ...(fx.links
        ? [
            ["edit_file", { path: "evil-link.txt", old_string: "EVIL", new_string: "GOOD" }],
            ["edit_file", { path: "link/canary.txt", old_string: "CANARY", new_string: "X" }],
            ["find_files", { pattern: "*", root_path: "link" }],
            ["apply_patches", { patch: "*** Begin Patch\n*** Add File: link/planted.txt\n+x\n*** End Patch" }],
          ]
        : []),
    ];
    for (const [name, args] of attempts) {
      const result = await extra.client.callTool({ name, arguments: args });
      const error = errorOf(result);
      assert.deepEqual([error.code, error.denied], ["SANDBOX_VIOLATION", "sandbox"], `${name} ${JSON.stringify(args)}: ${JSON.stringify(error)}`);
      assert.doesNotMatch(result.content[0].text, /EVIL-SECRET|CANARY|secret\.txt"|canary\.txt"/);
    }
    assert.equal(fs.readFileSync(path.join(fx.base, "ws_evil", "secret.txt"), "utf8"), "EVIL-SECRET\n");
    assert.equal(fs.readFileSync(path.join(fx.base, "outside", "canary.txt"), "utf8"), "CANARY\n");
    for (const planted of ["ws_evil/planted.txt", "outside/planted.txt", "ws_evil/moved.txt"]) assert.ok(!fs.existsSync(path.join(fx.base, planted)), planted);
    assert.ok(fs.existsSync(path.join(fx.root, "a.txt")), "the move's source stays");
  });
});

describe("MCP server: the opt-in tools under the write scope and the policy", () => {
  let fx;
  before(() => {
    fx = fixture();
  });
  after(() => fx?.cleanup());

  test("--write-scope read-only refuses edit_file and apply_patches (scope); find_files still runs", async () => {
    const mcp = await connect(["--root", fx.root, "--write-scope", "read-only", "--extra-tools", OPT_IN.join(",")]);
    try {
      for (const [name, args] of [
        ["edit_file", { path: "a.txt", old_string: "hello", new_string: "bye" }],
        ["apply_patches", { patch: CODEX_PATCH }],
      ]) {
        const error = errorOf(await mcp.client.callTool({ name, arguments: args }));
        assert.deepEqual([error.code, error.denied], ["WRITE_SCOPE_DENIED", "scope"], name);
      }
      assert.equal(fs.readFileSync(path.join(fx.root, "a.txt"), "utf8"), "hello\nworld\n");
      assert.ok(!fs.existsSync(path.join(fx.root, "src", "config.test.ts")));
      assert.equal(okOf(await mcp.client.callTool({ name: "find_files", arguments: { pattern: "a.txt" } })).total_matches, 1);
    } finally {
      await mcp.close();
    }
  });

  test("--allow / --deny name opt-in tools once they are enabled", async () => {
    const mcp = await connect(["--root", fx.root, "--extra-tools", OPT_IN.join(","), "--allow", "read_file,find_files,edit_file", "--deny", "edit_file"]);
    try {
      const { tools } = await mcp.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["read_file", "find_files", ...CACHE_TOOLS]);
      const error = errorOf(await mcp.client.callTool({ name: "edit_file", arguments: { path: "a.txt", old_string: "hello", new_string: "bye" } }));
      assert.deepEqual([error.code, error.denied], ["POLICY_DENIED", "policy"]);
      assert.equal(errorOf(await mcp.client.callTool({ name: "apply_patches", arguments: { patch: CODEX_PATCH } })).denied, "policy");
      assert.equal(fs.readFileSync(path.join(fx.root, "a.txt"), "utf8"), "hello\nworld\n");
    } finally {
      await mcp.close();
    }
  });

  test("a user tool named like an opt-in tool that is not enabled gets neither its schema nor its annotations", () => {
    const impostor = defineTool({ name: "find_files", description: "Not the opt-in one.", input: z.object({}), execute: () => ({ n: 1 }) });
    const [listed] = mcpTools({ definitions: [impostor.definition], userTools: new Map([["find_files", impostor]]) });
    assert.equal(listed.outputSchema, undefined);
    assert.deepEqual(listed.annotations, { readOnlyHint: true });
  });
});

describe("CLI: --extra-tools in tools and call", () => {
  let fx;
  before(() => {
    fx = fixture();
  });
  after(() => fx?.cleanup());
  const cli = (...args) => spawnSync(NODE, [BIN, ...args], { cwd: fx.root, encoding: "utf8" });

  test("tools lists the enabled opt-in tools after the built-ins", { timeout: 120_000 }, () => {
    const names = (run) => run.stdout.trim().split("\n").map((l) => l.split("\t")[0]);
    const plain = cli("tools");
    assert.equal(plain.status, 0, plain.stderr);
    const run = cli("tools", "--extra-tools", "find_files,edit_file");
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(names(run), [...names(plain), "edit_file", "find_files"]);
  });

  test("call runs each opt-in tool; refusals exit 1 with the reason", { timeout: 120_000 }, () => {
    const json = (run) => {
      assert.equal(run.status, 0, run.stderr);
      return JSON.parse(run.stdout);
    };
    const all = ["--extra-tools", OPT_IN.join(",")];
    assert.deepEqual(json(cli("call", "find_files", '{"pattern":"*.txt"}', ...all)).items.map((i) => i.path), ["a.txt"]);
    assert.equal(json(cli("call", "edit_file", '{"path":"a.txt","old_string":"world","new_string":"there"}', ...all)).stage, "exact");
    assert.equal(fs.readFileSync(path.join(fx.root, "a.txt"), "utf8"), "hello\nthere\n");
    assert.deepEqual(json(cli("call", "apply_patches", JSON.stringify({ patch: CODEX_PATCH }), ...all)).files.map((f) => f.action), ["updated", "added"]);
    for (const [args, denied] of [
      [["call", "edit_file", '{"path":"../ws_evil/secret.txt","old_string":"EVIL","new_string":"GOOD"}', ...all], "sandbox"],
      [["call", "apply_patches", JSON.stringify({ patch: "*** Begin Patch\n*** Add File: ../ws_evil/planted.txt\n+x\n*** End Patch" }), ...all], "sandbox"],
      ...(fx.links
        ? [
            [["call", "find_files", '{"pattern":"*","root_path":"link"}', ...all], "sandbox"],
            [["call", "apply_patches", JSON.stringify({ patch: "*** Begin Patch\n*** Add File: link/planted.txt\n+x\n*** End Patch" }), ...all], "sandbox"],
          ]
        : []),
      [["call", "edit_file", '{"path":"a.txt","old_string":"hello","new_string":"bye"}', "--write-scope", "read-only", ...all], "scope"],
      [["call", "apply_patches", JSON.stringify({ patch: CODEX_PATCH }), "--write-scope", "read-only", ...all], "scope"],
    ]) {
      const run = cli(...args);
      assert.equal(run.status, 1, `${args.join(" ")}: ${run.stderr}`);
      assert.equal(JSON.parse(run.stdout).error.denied, denied, args.join(" "));
    }
    assert.equal(fs.readFileSync(path.join(fx.base, "ws_evil", "secret.txt"), "utf8"), "EVIL-SECRET\n");
    assert.ok(!fs.existsSync(path.join(fx.base, "outside", "planted.txt")));
    assert.ok(!fs.existsSync(path.join(fx.base, "ws_evil", "planted.txt")));
    assert.match(fs.readFileSync(path.join(fx.root, "a.txt"), "utf8"), /^hello\n/);
  });

  test("an unknown name in --extra-tools, or an opt-in tool not enabled, is a usage error (exit 2) that says what to do", { timeout: 120_000 }, () => {
    const usage = (args, pattern) => {
      const run = cli(...args);
      assert.equal(run.status, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, pattern);
      assert.match(run.stderr, /--help/);
    };
    usage(["tools", "--extra-tools", "edit_file,nope"], /--extra-tools: unknown opt-in tool nope \(opt-in tools: edit_file, find_files, apply_patches, process_start, process_read, process_write, process_list, process_kill, checkpoint_list, checkpoint_restore\)/);
    usage(["mcp", "--extra-tools", "read_file"], /--extra-tools: unknown opt-in tool read_file/);
    usage(["mcp", "--extra-tools"], /--extra-tools needs a value/);
    usage(["call", "edit_file", '{"path":"a.txt","old_string":"a","new_string":"b"}'], /unknown tool edit_file: .*; edit_file is an opt-in tool: add --extra-tools edit_file/);
    usage(["tools", "--allow", "find_files"], /unknown tool find_files \(known: .*\); find_files is an opt-in tool: add --extra-tools find_files/);
    usage(["tools", "--deny", "apply_patches", "--extra-tools", "find_files"], /apply_patches is an opt-in tool: add --extra-tools apply_patches/);
    assert.deepEqual(parseArgs(["mcp", "--extra-tools", "find_files, edit_file", "--extra-tools=find_files"]).extraTools, ["find_files", "edit_file"]);
  });

  test("a --tools module's tool named like an enabled opt-in tool is a usage error", { timeout: 120_000 }, () => {
    const module = path.join(fx.base, "clash.mjs");
    const index = pathToFileURL(path.join(repo, "js", "index.mjs")).href;
    fs.writeFileSync(
      module,
      `import { defineTool } from ${JSON.stringify(index)};\nimport { z } from ${JSON.stringify(import.meta.resolve("zod"))};\n` +
        `export const t = defineTool({ name: "edit_file", description: "x", input: z.object({}), execute: () => "x" });\n`,
    );
    const run = cli("tools", "--tools", module, "--extra-tools", "edit_file");
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /the tool name "edit_file" clashes with an enabled extra tool/);
    // Not enabled, the name is free.
    const free = cli("tools", "--tools", module);
    assert.equal(free.status, 0, free.stderr);
  });
});
