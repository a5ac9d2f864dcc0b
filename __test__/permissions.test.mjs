// Permission rules on a call's arguments (docs/permissions.md): the same rule decides the same
// call on every surface — invoke, toolkit.tools, the tool loop's review, the CLI and MCP — before
// any file or process is touched.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createAgentToolkit, createToolContext, runToolLoop } from "agent-tools-native";
import { failureOf } from "../js/cli.cjs";
import { tempDir, ALLOW_ALL, onlyOn, NEEDS } from "./helpers.mjs";
import { BIN, connectStdio, NODE } from "./mcp_helpers.mjs";

const RULES = {
  exec_command: { "git status*": "allow", "rm *": "deny", "touch *": "ask" },
  read_file: { "secrets/**": "deny", "private/**": "ask" },
  write_file: { "locked/**": "deny" },
};

function setup(permissions = RULES) {
  const { dir, cleanup } = tempDir("atn-perm-");
  for (const d of ["src", "secrets", "private", "locked"]) fs.mkdirSync(path.join(dir, d));
  fs.writeFileSync(path.join(dir, "src", "a.txt"), "a\n");
  fs.writeFileSync(path.join(dir, "secrets", "key"), "k\n");
  fs.writeFileSync(path.join(dir, "private", "notes"), "n\n");
  fs.writeFileSync(path.join(dir, "README.md"), "r\n");
  const context = createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL, permissions });
  return { dir, cleanup, context, toolkit: createAgentToolkit(context) };
}

const rejection = (promise) => promise.then(() => assert.fail("expected a rejection"), (e) => e);

describe("permission rules", () => {
  test("createToolContext refuses malformed rules with a TypeError that says what is wrong", () => {
    const base = { workspaceRoot: ".", policy: ALLOW_ALL };
    for (const [permissions, pattern] of [
      ["exec_command", /object of tool names/],
      [{ exec_command: "allow" }, /permissions\.exec_command must be an object/],
      [{ exec_command: { "git *": "yes" } }, /must be "allow", "ask" or "deny"/],
      [{ read_file: { "": "deny" } }, /empty pattern/],
    ]) {
      assert.throws(() => createToolContext({ ...base, permissions }), (e) => e instanceof TypeError && pattern.test(e.message));
    }
    assert.equal(createToolContext(base).permissions, undefined, "no field unless given");
  });

  test("invoke: a deny is refused before anything runs, the rule named; the code stays TOOL_NOT_ALLOWED", onlyOn(["unix"], NEEDS.sh), async () => {
    const { dir, cleanup, toolkit } = setup();
    try {
      for (const command of [["rm", "-rf", "src"], ["sh", "-c", "git status && rm -rf src"], ["env", "X=1", "rm", "-rf", "src"], ["bash", "-lc", "r\\m -rf src"]]) {
        const error = await rejection(toolkit.invoke("exec_command", { cwd: dir, command }));
        assert.equal(error.code, "TOOL_NOT_ALLOWED", JSON.stringify(command));
        assert.match(error.rawMessage, /denied by the rule exec_command: "rm \*"/);
        assert.deepEqual([failureOf(error).code, failureOf(error).denied], ["PERMISSION_DENIED", "permission"]);
        assert.ok(fs.existsSync(path.join(dir, "src", "a.txt")), "nothing ran");
      }
      // allowed by a rule, and a command no rule names (the policy allows it)
      assert.equal((await toolkit.invoke("exec_command", { cwd: dir, command: ["git", "status"] })).content.exit_code !== undefined, true);
      assert.equal((await toolkit.invoke("exec_command", { cwd: dir, command: ["echo", "hi"] })).content.stdout, "hi\n");
      // what cannot be seen through asks, and nobody can be asked here
      const opaque = await rejection(toolkit.invoke("exec_command", { cwd: dir, command: ["sh", "-c", "echo $(rm -rf src)"] }));
      assert.deepEqual([failureOf(opaque).code, failureOf(opaque).denied], ["APPROVAL_REQUIRED", "approval"]);
      assert.match(opaque.rawMessage, /cannot be checked/);
      assert.ok(fs.existsSync(path.join(dir, "src", "a.txt")));
    } finally {
      cleanup();
    }
  });

  test("paths: normalised before matching; a link is matched where it leads; the secure wrapper answers with the precise code", async () => {
    const { dir, cleanup, toolkit } = setup();
    try {
      for (const p of ["secrets/key", "./secrets/key", "src/../secrets/key", path.join(dir, "secrets", "key")]) {
        const error = await rejection(toolkit.invoke("read_file", { path: p }));
        assert.deepEqual([failureOf(error).code, error.code], ["PERMISSION_DENIED", "TOOL_NOT_ALLOWED"], p);
      }
      if (process.platform !== "win32") {
        fs.symlinkSync(path.join(dir, "secrets"), path.join(dir, "src", "innocent"));
        assert.equal(failureOf(await rejection(toolkit.invoke("read_file", { path: "src/innocent/key" }))).code, "PERMISSION_DENIED");
      }
      assert.equal((await toolkit.invoke("read_file", { path: "README.md" })).content.content, "r\n");
      const denied = await toolkit.tools.read_file("secrets/key");
      assert.deepEqual([denied.status, denied.reason, denied.error.code], ["denied", "policy", "PERMISSION_DENIED"]);
      const asked = await toolkit.tools.read_file("private/notes");
      assert.deepEqual([asked.status, asked.error.code], ["denied", "APPROVAL_REQUIRED"]);
      const write = await toolkit.tools.write_file("locked/x", "data");
      assert.equal(write.error.code, "PERMISSION_DENIED");
      assert.ok(!fs.existsSync(path.join(dir, "locked", "x")), "nothing written");
    } finally {
      cleanup();
    }
  });

  test("an edited rule applies to the next call", async () => {
    const { cleanup, context, toolkit } = setup({ read_file: { "README.md": "deny" } });
    try {
      assert.equal(failureOf(await rejection(toolkit.invoke("read_file", { path: "README.md" }))).code, "PERMISSION_DENIED");
      context.permissions.read_file["README.md"] = "allow";
      assert.equal((await toolkit.invoke("read_file", { path: "README.md" })).content.content, "r\n");
    } finally {
      cleanup();
    }
  });

  test("runToolLoop: an ask goes to the review hook (a read too); approved it runs, rejected it does not; without a hook it is refused", async () => {
    const { dir, cleanup, toolkit } = setup();
    try {
      const reviewed = [];
      const session = (calls) => {
        const sent = [];
        let turn = 0;
        return {
          sent,
          async sendWithTools() {
            return turn++ === 0 ? { content: calls, stop_reason: "tool_use" } : { content: [{ type: "text", text: "done" }], stop_reason: "end_turn" };
          },
          async sendToolResults(results) {
            sent.push(results);
            return { content: [{ type: "text", text: "done" }], stop_reason: "end_turn" };
          },
        };
      };
      const calls = [
        { type: "tool_use", id: "r1", name: "read_file", input: { path: "private/notes" } },
        { type: "tool_use", id: "r2", name: "read_file", input: { path: "README.md" } },
        { type: "tool_use", id: "r3", name: "read_file", input: { path: "secrets/key" } },
      ];
      const approving = session(calls);
      await runToolLoop({ session: approving, toolkit, prompt: "go", review: (request) => (reviewed.push(request.name + ":" + request.args.path), { decision: "approve" }) });
      assert.deepEqual(reviewed, ["read_file:private/notes"], "only the call a rule asks about is reviewed");
      const [asked, plain, denied] = approving.sent[0];
      assert.equal(JSON.parse(asked.output).content, "n\n");
      assert.equal(JSON.parse(plain.output).content, "r\n");
      assert.match(denied.output, /denied by the rule read_file: "secrets\/\*\*"/);
      assert.equal(denied.is_error, true);

      const rejecting = session(calls.slice(0, 1));
      await runToolLoop({ session: rejecting, toolkit, prompt: "go", review: () => ({ decision: "reject", reason: "no" }) });
      assert.deepEqual([rejecting.sent[0][0].is_rejected, rejecting.sent[0][0].output], [true, "Rejected by review: no"]);

      const unreviewed = session(calls.slice(0, 1));
      await runToolLoop({ session: unreviewed, toolkit, prompt: "go" });
      assert.match(unreviewed.sent[0][0].output, /needs an approval/);
      assert.equal(unreviewed.sent[0][0].is_error, true);
      assert.ok(fs.existsSync(dir));
    } finally {
      cleanup();
    }
  });

  test("the CLI and MCP: --permissions FILE; PERMISSION_DENIED and APPROVAL_REQUIRED; a bad file is a usage error", { timeout: 120_000 }, async () => {
    const { dir, cleanup } = setup();
    const rules = path.join(dir, "..", `${path.basename(dir)}-rules.json`);
    fs.writeFileSync(rules, JSON.stringify(RULES));
    try {
      const call = (tool, args, ...flags) => spawnSync(NODE, [BIN, "call", tool, JSON.stringify(args), "--root", dir, "--permissions", rules, ...flags], { encoding: "utf8" });
      const denied = call("read_file", { path: "./secrets/key" });
      assert.equal(denied.status, 1, denied.stderr);
      assert.deepEqual([JSON.parse(denied.stdout).error.code, JSON.parse(denied.stdout).error.denied], ["PERMISSION_DENIED", "permission"]);
      const asked = call("read_file", { path: "private/notes" });
      assert.equal(JSON.parse(asked.stdout).error.code, "APPROVAL_REQUIRED");
      const ok = call("read_file", { path: "README.md" });
      assert.equal(ok.status, 0, ok.stderr);
      fs.writeFileSync(rules, JSON.stringify({ read_file: { "x/**": "maybe" } }));
      const bad = call("read_file", { path: "README.md" });
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /--permissions .*must be "allow", "ask" or "deny"/);
      fs.writeFileSync(rules, JSON.stringify(RULES));

      const { client } = await connectStdio(["--root", dir, "--permissions", rules]);
      try {
        const result = await client.callTool({ name: "read_file", arguments: { path: "src/../secrets/key" } });
        assert.equal(result.isError, true);
        assert.match(result.content[0].text, /PERMISSION_DENIED/);
        const fine = await client.callTool({ name: "read_file", arguments: { path: "README.md" } });
        assert.ok(!fine.isError, JSON.stringify(fine));
      } finally {
        await client.close();
      }
    } finally {
      fs.rmSync(rules, { force: true });
      cleanup();
    }
  });
});
