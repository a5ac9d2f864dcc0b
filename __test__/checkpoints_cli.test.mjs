// The undo journal and the syntax check from the command line and over MCP: `call` and `mcp`
// (stdio and --http) with --checkpoints-dir / --syntax-check, and the `checkpoints list | diff |
// restore` command (README, "Use it from an MCP client"). The bin runs under this test's runtime
// (process.execPath). Every journal lives in a temporary directory beside the workspace, never in
// the user's state directory (XDG_STATE_HOME points at a temporary one too, in case).
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parseArgs } from "../js/cli.cjs";
import { notUnderWine, onlyOn, tempDir, WINE } from "./helpers.mjs";
import { BIN, connectStdio, errorOf, okOf, startHttpServer } from "./mcp_helpers.mjs";

const RUNTIME = process.execPath;
const TIMEOUT = { timeout: 120_000 };

/**
 * A workspace, a journal directory and a state home, three sibling temporary directories;
 * `cli(...args)` runs the bin (exit status, stdout, stderr), `file(rel)` is a workspace path.
 */
async function withWorkspace(fn) {
  const ws = tempDir("atn-cpcli-ws-");
  const journal = tempDir("atn-cpcli-journal-");
  const state = tempDir("atn-cpcli-state-");
  const env = { ...process.env, XDG_STATE_HOME: state.dir };
  const cli = (...args) => spawnSync(RUNTIME, [BIN, ...args], { cwd: ws.dir, encoding: "utf8", env, timeout: 60_000 });
  const file = (rel) => path.join(ws.dir, rel);
  try {
    await fn({ root: ws.dir, journal: journal.dir, state: state.dir, env, cli, file });
    // nothing went to the (temporary) default place: every run named its journal
    assert.deepEqual(fs.readdirSync(state.dir), []);
  } finally {
    ws.cleanup();
    journal.cleanup();
    state.cleanup();
  }
}

/** The parsed JSON stdout of a run that exited with `status`. */
function jsonOf(run, status = 0) {
  assert.equal(run.status, status, `exit ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

describe("checkpoints from the command line", () => {
  test("call write_file twice; checkpoints list, diff and restore; a hand edit is a conflict, --force restores", TIMEOUT, async () => {
    await withWorkspace(async ({ root, journal, cli, file }) => {
      const call = (args) => cli("call", "write_file", JSON.stringify(args), "--root", root, "--checkpoints-dir", journal);
      const journalOf = (...args) => cli("checkpoints", ...args, "--root", root, "--checkpoints-dir", journal);
      assert.equal(jsonOf(call({ path: "a.txt", content: "one\n" })).created, true);
      assert.equal(jsonOf(call({ path: "a.txt", content: "two\n" })).created, false);
      // the journal is outside the workspace
      assert.deepEqual(fs.readdirSync(root), ["a.txt"]);
      assert.ok(fs.readdirSync(journal).includes("checkpoints"));

      const list = journalOf("list");
      assert.equal(list.status, 0, list.stderr);
      const lines = list.stdout.trimEnd().split("\n");
      assert.equal(lines.length, 2, list.stdout);
      assert.match(lines[0], /^(cp-\d+) {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}write_file {2}created a\.txt$/);
      assert.match(lines[1], /^(cp-\d+) {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}write_file {2}modified a\.txt$/);
      const checkpoints = jsonOf(journalOf("list", "--json"));
      assert.deepEqual(
        checkpoints.map((c) => [c.tool, c.files, c.restorable, c.pruned]),
        [
          ["write_file", [{ path: "a.txt", change: "created" }], true, false],
          ["write_file", [{ path: "a.txt", change: "modified" }], true, false],
        ],
      );
      const [first, second] = checkpoints.map((c) => c.id);
      assert.ok(lines[0].startsWith(`${first}  `) && lines[1].startsWith(`${second}  `));
      // another journal directory holds none of them
      const other = tempDir("atn-cpcli-other-");
      try {
        assert.deepEqual(jsonOf(cli("checkpoints", "list", "--json", "--root", root, "--checkpoints-dir", other.dir)), []);
      } finally {
        other.cleanup();
      }

      const diff = journalOf("diff", second);
      assert.equal(diff.status, 0, diff.stderr);
      assert.match(diff.stdout, /--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ -1 \+1 @@\n-two\n\+one\n/);
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "two\n", "diff changes nothing");
      assert.equal(jsonOf(journalOf("diff", second, "--json")).diff, diff.stdout);

      const restore = journalOf("restore", second);
      assert.equal(restore.status, 0, restore.stderr);
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "one\n");
      assert.match(restore.stdout, new RegExp(`^restored ${second}\\b`));
      assert.match(restore.stdout, /^ {2}modified a\.txt$/m);
      const restoreId = /checkpoint (cp-\d+)/.exec(restore.stdout)?.[1];
      const after = jsonOf(journalOf("list", "--json"));
      assert.equal(after.length, 3);
      assert.deepEqual([after[2].id, after[2].tool, after[2].restored], [restoreId, "checkpoint_restore", second]);
      assert.match(journalOf("list").stdout.trimEnd().split("\n")[2], new RegExp(`checkpoint_restore {2}modified a\\.txt \\(restore of ${second}\\)$`));

      // a hand edit since: refused, naming the file, nothing touched
      fs.writeFileSync(file("a.txt"), "by hand\n");
      const conflict = journalOf("restore", first);
      assert.equal(conflict.status, 1);
      assert.equal(conflict.stdout, "");
      assert.match(conflict.stderr, /^CHECKPOINT_CONFLICT: .*a\.txt/);
      assert.match(conflict.stderr, /^ {2}a\.txt$/m);
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "by hand\n");
      const asJson = jsonOf(journalOf("restore", first, "--json"), 1);
      assert.equal(asJson.error.code, "CHECKPOINT_CONFLICT");
      assert.deepEqual(asJson.error.files, ["a.txt"]);
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "by hand\n");

      const forced = journalOf("restore", first, "--force", "--json");
      const outcome = jsonOf(forced);
      assert.equal(outcome.restored, first);
      assert.deepEqual(outcome.files, [{ path: "a.txt", change: "deleted" }]);
      assert.equal(fs.existsSync(file("a.txt")), false, "the file the first call created is gone");

      const missing = journalOf("diff", "cp-99999999");
      assert.equal(missing.status, 1);
      assert.match(missing.stderr, /^CHECKPOINT_NOT_FOUND: .*cp-99999999/);
    });
  });

  test("a reader that stops early (| head) ends the output quietly", { ...TIMEOUT, ...onlyOn(["unix"], "a shell pipeline") }, async () => {
    await withWorkspace(async ({ root, journal, env, cli, file }) => {
      // a diff of some MiB: far more than a pipe holds
      fs.writeFileSync(file("big.txt"), Array.from({ length: 200_000 }, (_, i) => `line ${i}\n`).join(""));
      jsonOf(cli("call", "write_file", JSON.stringify({ path: "big.txt", content: "short\n" }), "--root", root, "--checkpoints-dir", journal));
      const [cp] = jsonOf(cli("checkpoints", "list", "--json", "--root", root, "--checkpoints-dir", journal));
      const script = `"$0" "$1" checkpoints diff ${cp.id} --root "$2" --checkpoints-dir "$3" | head -n 1`;
      const run = spawnSync("sh", ["-c", script, RUNTIME, BIN, root, journal], { encoding: "utf8", env, timeout: 60_000 });
      assert.equal(run.stdout, `diff --checkpoint a/big.txt b/big.txt\n`);
      assert.equal(run.stderr, "");
    });
  });

  test("--syntax-check on call: reject refuses with SYNTAX_ERROR and its diagnostics, file untouched; report adds diagnostics", TIMEOUT, async () => {
    await withWorkspace(async ({ root, journal, cli, file }) => {
      fs.writeFileSync(file("ok.ts"), "export const x = 1;\n");
      const call = (args, ...flags) => cli("call", "write_file", JSON.stringify(args), "--root", root, "--checkpoints-dir", journal, ...flags);
      const broken = { path: "ok.ts", content: "export const x = (;\n" };

      const rejected = jsonOf(call(broken, "--syntax-check", "reject"), 1);
      assert.equal(rejected.error.code, "SYNTAX_ERROR");
      assert.match(rejected.error.message, /ok\.ts:1:/);
      assert.equal(rejected.error.diagnostics.length, 1);
      assert.deepEqual(Object.keys(rejected.error.diagnostics[0]), ["path", "line", "column", "message"]);
      assert.equal(rejected.error.diagnostics[0].path, "ok.ts");
      assert.equal(fs.readFileSync(file("ok.ts"), "utf8"), "export const x = 1;\n");
      assert.deepEqual(jsonOf(cli("checkpoints", "list", "--json", "--root", root, "--checkpoints-dir", journal)), [], "a refused change records nothing");

      const reported = jsonOf(call(broken, "--syntax-check", "report"));
      assert.equal(reported.diagnostics.length, 1);
      assert.equal(reported.diagnostics[0].path, "ok.ts");
      assert.equal(reported.diagnostics[0].line, 1);
      assert.equal(fs.readFileSync(file("ok.ts"), "utf8"), broken.content);
      assert.deepEqual(jsonOf(call({ path: "clean.ts", content: "export const y = 2;\n" }, "--syntax-check", "report")).diagnostics, []);

      // without the option: no check, no diagnostics
      const plain = jsonOf(call({ path: "other.ts", content: "let = ;\n" }));
      assert.equal("diagnostics" in plain, false);
      assert.equal(fs.readFileSync(file("other.ts"), "utf8"), "let = ;\n");
    });
  });

  test("options and usage errors: exit 2, nothing run, nothing made", TIMEOUT, async () => {
    await withWorkspace(async ({ root, journal, cli, file }) => {
      const parsed = parseArgs(["call", "write_file", "--checkpoints", "--syntax-check", "report"]);
      assert.deepEqual([parsed.checkpoints, parsed.syntaxCheck], [true, "report"]);
      const defaults = parseArgs(["mcp"]);
      assert.deepEqual([defaults.checkpoints, defaults.syntaxCheck], [undefined, undefined]);
      assert.deepEqual(parseArgs(["mcp", "--checkpoints-dir", journal, "--checkpoints", "--syntax-check=reject"]).checkpoints, { dir: journal });
      assert.deepEqual(parseArgs(["checkpoints", "restore", "cp-1", "--root", root, "--force", "--json"]).positional, ["restore", "cp-1"]);

      fs.writeFileSync(file("a.txt"), "keep\n");
      const bad = [
        ["call", "write_file", '{"path":"a.txt","content":"x"}', "--syntax-check", "maybe"],
        ["mcp", "--root", root, "--syntax-check", "maybe"],
        ["tools", "--syntax-check"],
        ["call", "write_file", '{"path":"a.txt","content":"x"}', "--checkpoints=yes"],
        ["call", "write_file", '{"path":"a.txt","content":"x"}', "--checkpoints-dir", file("a.txt")],
        ["call", "write_file", '{"path":"a.txt","content":"x"}', "--root", root, "--checkpoints-dir", file("journal")],
        ["call", "write_file", '{"path":"a.txt","content":"x"}', "--json"],
        ["checkpoints", "--root", root],
        ["checkpoints", "undo", "--root", root],
        ["checkpoints", "diff", "--root", root],
        ["checkpoints", "list", "cp-1", "--root", root],
        ["checkpoints", "list", "--root", root, "--force"],
        ["checkpoints", "list", "--root", file("a.txt")],
      ];
      for (const args of bad) {
        const run = cli(...args, ...(args.includes("--checkpoints-dir") ? [] : ["--checkpoints-dir", journal]));
        assert.equal(run.status, 2, `${args.join(" ")}: ${run.stderr}`);
        assert.equal(run.stdout, "", args.join(" "));
        assert.match(run.stderr, /--help/, args.join(" "));
      }
      assert.match(cli(...bad[0], "--checkpoints-dir", journal).stderr, /--syntax-check must be one of report, reject/);
      assert.match(cli(...bad[5]).stderr, /--checkpoints-dir .*must lie outside the workspace/);
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "keep\n");
      assert.deepEqual(fs.readdirSync(root), ["a.txt"], "no journal made in the workspace");
      assert.deepEqual(fs.readdirSync(journal), []);

      // without --root: the current directory's journal, as `call` works there
      assert.deepEqual(jsonOf(cli("checkpoints", "list", "--json", "--checkpoints-dir", journal)), []);

      const help = cli("--help");
      for (const option of ["--checkpoints ", "--checkpoints-dir DIR", "--syntax-check MODE", "--force", "--json", "checkpoints list|diff ID|restore ID"]) {
        assert.ok(help.stdout.includes(option), option);
      }
    });
  });
});

describe("checkpoints over MCP", () => {
  test("stdio, --checkpoints-dir D --syntax-check report: results carry diagnostics; checkpoints list sees the calls", TIMEOUT, async () => {
    await withWorkspace(async ({ root, journal, env, cli, file }) => {
      fs.writeFileSync(file("ok.ts"), "export const x = 1;\n");
      const connect = async (...flags) => {
        const { client } = await connectStdio(["--root", root, "--checkpoints-dir", journal, ...flags], { runtime: RUNTIME, env });
        // the output schemas (which the client checks structured content against) are known
        await client.listTools();
        return client;
      };
      const report = await connect("--syntax-check", "report");
      try {
        const bad = okOf(await report.callTool({ name: "write_file", arguments: { path: "ok.ts", content: "export const x = (;\n" } }));
        assert.equal(bad.diagnostics.length, 1);
        assert.equal(bad.diagnostics[0].path, "ok.ts");
        const good = okOf(await report.callTool({ name: "write_file", arguments: { path: "new.ts", content: "export const y = 2;\n" } }));
        assert.deepEqual(good.diagnostics, []);
      } finally {
        await report.close();
      }
      const reject = await connect("--syntax-check", "reject");
      try {
        const error = errorOf(await reject.callTool({ name: "write_file", arguments: { path: "new.ts", content: "export const y = [;\n" } }));
        assert.equal(error.code, "SYNTAX_ERROR");
        assert.equal(error.diagnostics[0].path, "new.ts");
        assert.equal(fs.readFileSync(file("new.ts"), "utf8"), "export const y = 2;\n");
      } finally {
        await reject.close();
      }

      const list = jsonOf(cli("checkpoints", "list", "--json", "--root", root, "--checkpoints-dir", journal));
      assert.deepEqual(
        list.map((c) => [c.tool, c.files]),
        [
          ["write_file", [{ path: "ok.ts", change: "modified" }]],
          ["write_file", [{ path: "new.ts", change: "created" }]],
        ],
      );
      const restore = cli("checkpoints", "restore", list[0].id, "--root", root, "--checkpoints-dir", journal);
      assert.equal(restore.status, 0, restore.stderr);
      assert.equal(fs.readFileSync(file("ok.ts"), "utf8"), "export const x = 1;\n");
      assert.equal(fs.existsSync(file("new.ts")), false);
    });
  });

  test("--http with --checkpoints-dir and --syntax-check reject", { ...TIMEOUT, ...notUnderWine(WINE.nodeFetch, { runtime: "node" }) }, async () => {
    await withWorkspace(async ({ root, journal, env, cli, file }) => {
      const server = await startHttpServer(["--no-auth", "--root", root, "--checkpoints-dir", journal, "--syntax-check", "reject"], { runtime: RUNTIME, env });
      try {
        const url = server.url;
        const client = new Client({ name: "atn-checkpoints-http", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        try {
          await client.listTools();
          const error = errorOf(await client.callTool({ name: "write_file", arguments: { path: "x.ts", content: "let = ;\n" } }));
          assert.equal(error.code, "SYNTAX_ERROR");
          assert.equal(error.diagnostics[0].path, "x.ts");
          assert.equal(fs.existsSync(file("x.ts")), false);
          assert.equal(okOf(await client.callTool({ name: "write_file", arguments: { path: "x.ts", content: "let y = 1;\n" } })).created, true);
        } finally {
          await client.close();
        }
      } finally {
        await server.stop();
      }
      const list = jsonOf(cli("checkpoints", "list", "--json", "--root", root, "--checkpoints-dir", journal));
      assert.deepEqual(
        list.map((c) => [c.tool, c.files]),
        [["write_file", [{ path: "x.ts", change: "created" }]]],
      );
    });
  });
});
