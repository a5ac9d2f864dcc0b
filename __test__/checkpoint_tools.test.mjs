// The checkpoint tools (docs/tools/checkpoint.md): checkpoint_list and checkpoint_restore, the
// undo journal offered to the model — enabled with extraTools, through invoke, toolkit.tools and
// the tool loop; conflicts, force, the write scope, the review hook, and no journal.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createAgentToolkit, createToolContext, runToolLoop } from "agent-tools-native";
import { ALLOW_ALL, assertToolError, failureResult, rejection, tempDir } from "./helpers.mjs";

const TOOLS = ["checkpoint_list", "checkpoint_restore"];
const NO_JOURNAL = "INVALID_ARGUMENT: the toolkit keeps no undo journal: enable it with createAgentToolkit(context, { checkpoints: true })";

/**
 * A workspace `<tmp>/ws` and a toolkit with the two tools and a journal in `<tmp>/journal`
 * (never the user's state directory); `fn(ws)`, then the directory is removed.
 */
async function withJournal(fn, { writeScope, extraTools = TOOLS, checkpoints = true, syntaxCheck } = {}) {
  const { dir, cleanup } = tempDir("atn-cptools-");
  const root = path.join(dir, "ws");
  const journal = path.join(dir, "journal");
  fs.mkdirSync(root);
  const context = createToolContext({ workspaceRoot: root, policy: ALLOW_ALL, ...(writeScope ? { writeScope } : {}) });
  const toolkit = createAgentToolkit(context, {
    extraTools,
    ...(checkpoints ? { checkpoints: { dir: journal } } : {}),
    ...(syntaxCheck ? { syntaxCheck } : {}),
  });
  const file = (rel) => path.join(root, rel);
  const call = async (name, args) => (await toolkit.invoke(name, args)).content;
  try {
    await fn({ dir, root, journal, context, toolkit, file, call });
  } finally {
    cleanup();
  }
}

/** The toolkit of another context over the same workspace and journal. */
function sibling({ root, journal }, options = {}) {
  const context = createToolContext({ workspaceRoot: root, policy: ALLOW_ALL, ...options.context });
  return createAgentToolkit(context, { extraTools: TOOLS, checkpoints: { dir: journal } });
}

describe("enabled with extraTools", () => {
  test("listed by getAllowedTools() after the 13 with their definitions; absent without the opt-in", async () => {
    await withJournal(async ({ context, toolkit }) => {
      const names = toolkit.getAllowedTools().map((d) => d.function.name);
      assert.equal(names.length, 15);
      assert.deepEqual(names.slice(13), TOOLS);
      const [list, restore] = toolkit.getAllowedTools().slice(13).map((d) => d.function);
      assert.deepEqual(list.parameters, { type: "object" });
      assert.deepEqual(Object.keys(restore.parameters.properties), ["id", "force"]);
      assert.deepEqual(restore.parameters.required, ["id"]);
      assert.match(restore.description, /conflict/);
      assert.match(restore.description, /force/);
      assert.match(list.description, /checkpoint_restore/);
      const plain = createAgentToolkit(context);
      assert.ok(!plain.getAllowedTools().some((d) => TOOLS.includes(d.function.name)));
      assert.equal((await rejection(plain.invoke("checkpoint_list", {}))).code, "TOOL_NOT_FOUND");
      assert.equal((await rejection(plain.invoke("checkpoint_restore", { id: "cp-00000001" }))).code, "TOOL_NOT_FOUND");
      // one of them alone
      const one = createAgentToolkit(context, { extraTools: ["checkpoint_list"] });
      assert.deepEqual(one.getAllowedTools().slice(13).map((d) => d.function.name), ["checkpoint_list"]);
      assert.equal((await rejection(one.invoke("checkpoint_restore", { id: "cp-00000001" }))).code, "TOOL_NOT_FOUND");
    });
  });
});

describe("list and restore", () => {
  test("a write is listed, then undone byte for byte with exactly one checkpoint more (the restore's)", async () => {
    await withJournal(async ({ toolkit, file, call }) => {
      const original = Buffer.from("one\r\ntwo\n\xff\x00tail", "latin1");
      fs.writeFileSync(file("a.bin"), original);
      assert.deepEqual(await call("checkpoint_list", {}), { checkpoints: [] });
      await call("write_file", { path: "a.bin", content: "replaced" });
      await call("write_file", { path: "new/b.txt", content: "made" });
      const { checkpoints } = await call("checkpoint_list", {});
      assert.deepEqual(
        checkpoints.map((c) => [c.tool, c.files, c.restorable, c.pruned]),
        [
          ["write_file", [{ path: "a.bin", change: "modified" }], true, false],
          ["write_file", [{ path: "new/b.txt", change: "created" }], true, false],
        ],
      );
      // the same journal as toolkit.checkpoints
      assert.deepEqual(checkpoints, await toolkit.checkpoints.list());

      const outcome = await call("checkpoint_restore", { id: checkpoints[0].id });
      assert.equal(outcome.restored, checkpoints[0].id);
      assert.deepEqual(outcome.files, [
        { path: "a.bin", change: "modified" },
        { path: "new/b.txt", change: "deleted" },
      ]);
      assert.deepEqual(fs.readFileSync(file("a.bin")), original);
      assert.equal(fs.existsSync(file("new/b.txt")), false);

      const after = (await call("checkpoint_list", {})).checkpoints;
      assert.equal(after.length, checkpoints.length + 1, "one new checkpoint");
      assert.deepEqual(after.slice(0, 2), checkpoints);
      assert.equal(after[2].id, outcome.checkpoint);
      assert.equal(after[2].tool, "checkpoint_restore");
      assert.equal(after[2].restored, checkpoints[0].id);

      // restoring the restore redoes the writes
      await call("checkpoint_restore", { id: outcome.checkpoint });
      assert.equal(fs.readFileSync(file("a.bin"), "utf8"), "replaced");
      assert.equal(fs.readFileSync(file("new/b.txt"), "utf8"), "made");
    });
  });

  test("a file changed by hand is a CHECKPOINT_CONFLICT and nothing is restored, unless force", async () => {
    await withJournal(async ({ file, call, toolkit }) => {
      fs.writeFileSync(file("a.txt"), "one");
      fs.writeFileSync(file("b.txt"), "bee");
      await call("write_file", { path: "a.txt", content: "two" });
      await call("write_file", { path: "b.txt", content: "bees" });
      const [first] = (await call("checkpoint_list", {})).checkpoints;
      fs.writeFileSync(file("b.txt"), "by hand");
      const error = await rejection(toolkit.invoke("checkpoint_restore", { id: first.id }));
      assert.equal(error.name, "CheckpointRestoreError");
      assert.equal(error.code, "CHECKPOINT_CONFLICT");
      assert.deepEqual(error.files, ["b.txt"]);
      assert.match(error.message, /^CHECKPOINT_CONFLICT: .*force.*: b\.txt$/);
      // all or nothing: a.txt, which had no conflict, is untouched too
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "two");
      assert.equal(fs.readFileSync(file("b.txt"), "utf8"), "by hand");
      assert.equal((await call("checkpoint_list", {})).checkpoints.length, 2, "a refused restore adds no checkpoint");

      const forced = await call("checkpoint_restore", { id: first.id, force: true });
      assert.equal(forced.restored, first.id);
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "one");
      assert.equal(fs.readFileSync(file("b.txt"), "utf8"), "bee");
    });
  });

  test("an unknown id is CHECKPOINT_NOT_FOUND; bad arguments are INVALID_ARGUMENT of the tool's class", async () => {
    await withJournal(async ({ toolkit }) => {
      const notFound = await rejection(toolkit.invoke("checkpoint_restore", { id: "cp-00000042" }));
      assertToolError(notFound, "CheckpointRestoreError", "CHECKPOINT_NOT_FOUND", 'CHECKPOINT_NOT_FOUND: no checkpoint "cp-00000042" in the journal');
      const badId = "INVALID_ARGUMENT: id must be a checkpoint id (a non-empty string from checkpoint_list)";
      for (const args of [{}, { id: "" }, { id: 7 }, { id: null, force: "yes" }]) {
        assertToolError(await rejection(toolkit.invoke("checkpoint_restore", args)), "CheckpointRestoreError", "INVALID_ARGUMENT", badId);
      }
      assertToolError(
        await rejection(toolkit.invoke("checkpoint_restore", { id: "cp-00000001", force: "yes" })),
        "CheckpointRestoreError",
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT: force must be a boolean",
      );
    });
  });
});

describe("toolkit.tools", () => {
  test("success and failure envelopes", async () => {
    await withJournal(async ({ toolkit, file }) => {
      await toolkit.invoke("write_file", { path: "a.txt", content: "x" });
      const listed = await toolkit.tools.checkpoint_list({});
      assert.equal(listed.status, "success");
      assert.equal(listed.data.checkpoints.length, 1);
      const [cp] = listed.data.checkpoints;
      assert.deepEqual(cp.files, [{ path: "a.txt", change: "created" }]);

      fs.writeFileSync(file("a.txt"), "changed by hand");
      const conflict = await toolkit.tools.checkpoint_restore({ id: cp.id });
      assert.equal(conflict.status, "failure");
      assert.equal(conflict.reason, "runtime");
      assert.match(conflict.message, /^CHECKPOINT_CONFLICT: /);
      assert.deepEqual(conflict.error.details, { files: ["a.txt"] });
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "changed by hand");

      const restored = await toolkit.tools.checkpoint_restore({ id: cp.id, force: true });
      assert.equal(restored.status, "success");
      assert.equal(restored.data.restored, cp.id);
      assert.deepEqual(restored.data.files, [{ path: "a.txt", change: "deleted" }]);
      assert.equal(fs.existsSync(file("a.txt")), false);

      assert.deepEqual(
        await toolkit.tools.checkpoint_restore({ id: 1 }),
        failureResult("INVALID_ARGUMENT: id must be a checkpoint id (a non-empty string from checkpoint_list)"),
      );
    });
  });
});

describe("the write scope and the review hook", () => {
  test('writeScope "read-only" refuses checkpoint_restore and runs checkpoint_list', async () => {
    await withJournal(async (ws) => {
      const { file, call } = ws;
      fs.writeFileSync(file("a.txt"), "one");
      await call("write_file", { path: "a.txt", content: "two" });
      const readOnly = sibling(ws, { context: { writeScope: "read-only" } });
      const { content } = await readOnly.invoke("checkpoint_list", {});
      assert.equal(content.checkpoints.length, 1);
      const id = content.checkpoints[0].id;
      const refused = await rejection(readOnly.invoke("checkpoint_restore", { id }));
      assert.equal(refused.code, "TOOL_NOT_ALLOWED");
      assert.match(refused.message, /Write operation denied/);
      const denied = await readOnly.tools.checkpoint_restore({ id });
      assert.equal(denied.status, "denied");
      assert.equal(denied.reason, "sandbox");
      assert.equal((await readOnly.tools.checkpoint_list({})).status, "success");
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "two");
      assert.equal(content.checkpoints.length, (await call("checkpoint_list", {})).checkpoints.length, "no checkpoint added");
    });
  });

  test("in the tool loop checkpoint_restore is reviewed (id and force shown) and checkpoint_list is not; a rejection changes nothing", async () => {
    await withJournal(async ({ file, call, toolkit }) => {
      fs.writeFileSync(file("a.txt"), "one");
      await call("write_file", { path: "a.txt", content: "two" });
      const [cp] = (await call("checkpoint_list", {})).checkpoints;
      const use = (id, name, input) => ({ type: "tool_use", id, name, input });
      let afterRejection;
      const responses = [
        { content: [use("l", "checkpoint_list", {}), use("r1", "checkpoint_restore", { id: cp.id })], stopReason: "tool_use" },
        () => {
          afterRejection = fs.readFileSync(file("a.txt"), "utf8");
          return { content: [use("r2", "checkpoint_restore", { id: cp.id, force: false })], stopReason: "tool_use" };
        },
        { content: [{ type: "text", text: "done" }], stopReason: "end_turn" },
      ];
      const sent = [];
      let turn = 0;
      const next = () => {
        const response = responses[turn++];
        return typeof response === "function" ? response() : response;
      };
      const session = {
        async sendWithTools(prompt, tools) {
          sent.push({ tools: tools.map((t) => t.function.name) });
          return next();
        },
        async sendToolResults(results) {
          sent.push({ results });
          return next();
        },
      };
      const reviewed = [];
      await runToolLoop({
        session,
        toolkit,
        prompt: "undo",
        review: (request) => {
          reviewed.push(request.preview);
          // the first restore is rejected, the second approved
          return reviewed.length === 1 ? { decision: "reject", reason: "not yet" } : { decision: "approve" };
        },
      });
      assert.ok(TOOLS.every((name) => sent[0].tools.includes(name)));
      assert.deepEqual(reviewed, [
        { kind: "checkpoint_restore", id: cp.id, force: undefined },
        { kind: "checkpoint_restore", id: cp.id, force: false },
      ]);
      const [listed, rejected] = sent[1].results;
      assert.equal(JSON.parse(listed.output).checkpoints[0].id, cp.id);
      assert.match(rejected.output, /Rejected by review: not yet/);
      assert.equal(afterRejection, "two", "the rejected restore changed nothing");
      const restored = JSON.parse(sent[2].results[0].output);
      assert.equal(restored.restored, cp.id);
      assert.deepEqual(restored.files, [{ path: "a.txt", change: "modified" }]);
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "one");
      assert.deepEqual(
        (await call("checkpoint_list", {})).checkpoints.map((c) => c.tool),
        ["write_file", "checkpoint_restore"],
      );
    });
  });
});

describe("without a journal", () => {
  test("both fail with INVALID_ARGUMENT naming the checkpoints option, in their own error classes", async () => {
    await withJournal(
      async ({ toolkit, journal, call }) => {
        assert.equal("checkpoints" in toolkit, false);
        await call("write_file", { path: "a.txt", content: "x" });
        assertToolError(await rejection(toolkit.invoke("checkpoint_list", {})), "CheckpointListError", "INVALID_ARGUMENT", NO_JOURNAL);
        assertToolError(await rejection(toolkit.invoke("checkpoint_restore", { id: "cp-00000001" })), "CheckpointRestoreError", "INVALID_ARGUMENT", NO_JOURNAL);
        assert.deepEqual(await toolkit.tools.checkpoint_list({}), failureResult(NO_JOURNAL));
        assert.equal(fs.existsSync(journal), false);
      },
      { checkpoints: false },
    );
    // with the syntax check alone the toolkit has edit hooks but still no journal
    await withJournal(
      async ({ toolkit }) => {
        assertToolError(await rejection(toolkit.invoke("checkpoint_list", {})), "CheckpointListError", "INVALID_ARGUMENT", NO_JOURNAL);
        assertToolError(await rejection(toolkit.invoke("checkpoint_restore", { id: "cp-00000001" })), "CheckpointRestoreError", "INVALID_ARGUMENT", NO_JOURNAL);
      },
      { checkpoints: false, syntaxCheck: "report" },
    );
  });
});
