// The undo journal (`createAgentToolkit(ctx, { checkpoints })`, docs/checkpoints.md) and the
// syntax check after edits (`syntaxCheck`): each change undone byte- and mode-exact, conflicts,
// another process, a process killed while writing the journal, pruning, a tampered journal, and
// report / reject.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { tempDir, ALLOW_ALL, onlyOn, notUnderWine, WINE, runRuntime } from "./helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(here, "checkpoints_child.mjs");

/** A workspace `<tmp>/ws`, a journal directory `<tmp>/journal` beside it, and a toolkit. */
async function withJournal(fn, options = {}) {
  const { dir, cleanup } = tempDir();
  const root = path.join(dir, "ws");
  const journal = path.join(dir, "journal");
  fs.mkdirSync(root);
  const context = createToolContext({ workspaceRoot: root, policy: ALLOW_ALL });
  const toolkit = createAgentToolkit(context, {
    extraTools: ["edit_file", "apply_patches", "process_start", "process_list", "process_kill"],
    checkpoints: { dir: journal, ...options.checkpoints },
    ...(options.syntaxCheck ? { syntaxCheck: options.syntaxCheck } : {}),
  });
  const file = (rel) => path.join(root, rel);
  try {
    await fn({ dir, root, journal, context, toolkit, file });
  } finally {
    cleanup();
  }
}

const modeOf = (p) => fs.statSync(p).mode & 0o777;

/** Every path below `dir`, relative, with `/` (walked by hand: bun.exe under wine lists only two levels with `recursive`). */
function walk(dir, prefix = "") {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = prefix + e.name;
    return e.isDirectory() ? [rel, ...walk(path.join(dir, e.name), `${rel}/`)] : [rel];
  });
}

/** Runs checkpoints_child.mjs with this runtime; resolves with its parsed stdout. */
async function child(args, env = {}) {
  const run = await runRuntime([CHILD, ...args], { env: { ...process.env, ...env }, timeout: 120_000 });
  if (run.error) throw new Error(`${run.error.message}\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

async function rejectsWith(promise, code) {
  const error = await promise.then(
    () => assert.fail(`expected ${code}`),
    (e) => e,
  );
  assert.equal(error.code, code, error.message);
  return error;
}

describe("off by default", () => {
  test("no journal, no toolkit.checkpoints, results without diagnostics", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const context = createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL });
      const toolkit = createAgentToolkit(context);
      assert.equal("checkpoints" in toolkit, false);
      const { content } = await toolkit.invoke("write_file", { path: "a.ts", content: "let = ;" });
      assert.deepEqual(Object.keys(content), ["path", "created", "bytes_written"]);
    } finally {
      cleanup();
    }
  });

  test("options are checked", () => {
    const context = createToolContext({ workspaceRoot: "/nonexistent", policy: ALLOW_ALL });
    assert.throws(() => createAgentToolkit(context, { checkpoints: "yes" }), TypeError);
    assert.throws(() => createAgentToolkit(context, { checkpoints: { maxCheckpoints: 0 } }), TypeError);
    assert.throws(() => createAgentToolkit(context, { checkpoints: { maxBytes: -1 } }), TypeError);
    assert.throws(() => createAgentToolkit(context, { checkpoints: { dir: "" } }), TypeError);
    assert.throws(() => createAgentToolkit(context, { syntaxCheck: "warn" }), TypeError);
  });
});

describe("every change undone exactly", () => {
  test("write_file: bytes, line endings and mode back; a created file removed; the restore redone", async () => {
    await withJournal(async ({ toolkit, file }) => {
      const original = Buffer.from("one\r\ntwo\n\xff\x00binary tail", "latin1");
      fs.writeFileSync(file("a.bin"), original);
      fs.chmodSync(file("a.bin"), 0o751);
      const mode = modeOf(file("a.bin"));
      await toolkit.invoke("write_file", { path: "a.bin", content: "replaced" });
      await toolkit.invoke("write_file", { path: "new/dir/b.txt", content: "made" });
      const list = await toolkit.checkpoints.list();
      assert.equal(list.length, 2);
      assert.deepEqual(
        list.map((c) => [c.tool, c.files, c.restorable, c.pruned]),
        [
          ["write_file", [{ path: "a.bin", change: "modified" }], true, false],
          ["write_file", [{ path: "new/dir/b.txt", change: "created" }], true, false],
        ],
      );
      assert.match(list[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const diff = await toolkit.checkpoints.diff(list[0].id);
      assert.match(diff, /Binary files a\/a\.bin and b\/a\.bin differ/);
      assert.match(diff, /--- a\/new\/dir\/b\.txt\n\+\+\+ \/dev\/null\n@@ -1 \+0,0 @@\n-made/);
      const restored = await toolkit.checkpoints.restore(list[0].id);
      assert.equal(restored.restored, list[0].id);
      assert.deepEqual(fs.readFileSync(file("a.bin")), original);
      if (process.platform !== "win32") assert.equal(modeOf(file("a.bin")), mode);
      assert.equal(fs.existsSync(file("new/dir/b.txt")), false);
      // the restore is a checkpoint of its own: restoring it redoes the two writes
      const after = await toolkit.checkpoints.list();
      assert.equal(after.at(-1).id, restored.checkpoint);
      assert.equal(after.at(-1).tool, "checkpoint_restore");
      assert.equal(after.at(-1).restored, list[0].id);
      await toolkit.checkpoints.restore(restored.checkpoint);
      assert.equal(fs.readFileSync(file("a.bin"), "utf8"), "replaced");
      assert.equal(fs.readFileSync(file("new/dir/b.txt"), "utf8"), "made");
    });
  });

  test("edit_file, apply_patch (a deletion and an executable bit) and apply_patches (a move)", async () => {
    await withJournal(async ({ toolkit, file }) => {
      fs.writeFileSync(file("code.js"), "const a = 1;\r\nconst b = 2;\r\n");
      fs.writeFileSync(file("gone.txt"), "keep me\n");
      fs.writeFileSync(file("run.sh"), "echo hi\n");
      fs.chmodSync(file("run.sh"), 0o644);
      fs.writeFileSync(file("moved.txt"), "moving\n");
      await toolkit.invoke("read_file", { path: "code.js" });
      await toolkit.invoke("edit_file", { path: "code.js", old_string: "const b = 2;", new_string: "const b = 3;" });
      await toolkit.invoke("apply_patch", { filePath: "gone.txt", patch: "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-keep me\n" });
      if (process.platform !== "win32") {
        await toolkit.invoke("apply_patch", { filePath: "run.sh", patch: "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n" });
        assert.equal(modeOf(file("run.sh")), 0o755);
      }
      await toolkit.invoke("apply_patches", {
        patch: "*** Begin Patch\n*** Update File: moved.txt\n*** Move to: there/moved.txt\n@@\n-moving\n+moved\n*** End Patch",
      });
      const list = await toolkit.checkpoints.list();
      assert.deepEqual(
        list.map((c) => c.tool),
        ["edit_file", "apply_patch", ...(process.platform !== "win32" ? ["apply_patch"] : []), "apply_patches"],
      );
      assert.deepEqual(list[1].files, [{ path: "gone.txt", change: "deleted" }]);
      await toolkit.checkpoints.restore(list[0].id);
      assert.equal(fs.readFileSync(file("code.js"), "utf8"), "const a = 1;\r\nconst b = 2;\r\n");
      assert.equal(fs.readFileSync(file("gone.txt"), "utf8"), "keep me\n");
      assert.equal(fs.readFileSync(file("moved.txt"), "utf8"), "moving\n");
      assert.equal(fs.existsSync(file("there/moved.txt")), false);
      if (process.platform !== "win32") assert.equal(modeOf(file("run.sh")), 0o644);
    });
  });

  test("the directories a call created are removed again; those there before stay", async () => {
    await withJournal(async ({ root, toolkit, file }) => {
      fs.mkdirSync(file("kept"));
      await toolkit.invoke("write_file", { path: "new/deep/dir/f.txt", content: "deep\n" });
      await toolkit.invoke("write_file", { path: "kept/g.txt", content: "g" });
      const patch = "*** Begin Patch\n*** Add File: added/sub/h.txt\n+h\n*** End Patch\n";
      await toolkit.invoke("apply_patches", { patch });
      await toolkit.invoke("exec_command", script(root, "fs.mkdirSync(p('made/by/cmd'), { recursive: true }); fs.writeFileSync(p('made/by/cmd/i.txt'), 'i')"));
      const [first, , third] = await toolkit.checkpoints.list();
      // undone from the third: the first two stay
      await toolkit.checkpoints.restore(third.id);
      assert.deepEqual(walk(root).sort(), ["kept", "kept/g.txt", "new", "new/deep", "new/deep/dir", "new/deep/dir/f.txt"]);
      const { checkpoint: redo } = await toolkit.checkpoints.restore(first.id);
      assert.deepEqual(walk(root), ["kept"]);
      // the restore's own checkpoint brings back what it removed, directories too; restoring
      // that one removes them again
      await toolkit.checkpoints.restore(redo);
      assert.deepEqual(walk(root).sort(), ["kept", "kept/g.txt", "new", "new/deep", "new/deep/dir", "new/deep/dir/f.txt"]);
      const last = (await toolkit.checkpoints.list()).at(-1);
      await toolkit.checkpoints.restore(last.id);
      assert.deepEqual(walk(root), ["kept"]);
    });
  });

  test("a directory that holds a file the journal did not record is left in place", async () => {
    await withJournal(async ({ toolkit, file }) => {
      await toolkit.invoke("write_file", { path: "d/a.txt", content: "a" });
      fs.writeFileSync(file("d/by-hand.txt"), "mine");
      const [cp] = await toolkit.checkpoints.list();
      await toolkit.checkpoints.restore(cp.id);
      assert.equal(fs.existsSync(file("d/a.txt")), false);
      assert.equal(fs.readFileSync(file("d/by-hand.txt"), "utf8"), "mine");
    });
  });

  test("a call that changes nothing and a read record nothing", async () => {
    await withJournal(async ({ toolkit, file }) => {
      fs.writeFileSync(file("same.txt"), "same");
      await toolkit.invoke("write_file", { path: "same.txt", content: "same" });
      await toolkit.invoke("read_file", { path: "same.txt" });
      assert.deepEqual(await toolkit.checkpoints.list(), []);
    });
  });
});

describe("conflicts", () => {
  test("a file changed outside the journal: CHECKPOINT_CONFLICT naming it, nothing touched; then forced", async () => {
    await withJournal(async ({ toolkit, file }) => {
      fs.writeFileSync(file("a.txt"), "one");
      await toolkit.invoke("write_file", { path: "a.txt", content: "two" });
      await toolkit.invoke("write_file", { path: "b.txt", content: "b" });
      fs.writeFileSync(file("a.txt"), "edited by hand");
      const [first] = await toolkit.checkpoints.list();
      const error = await rejectsWith(toolkit.checkpoints.restore(first.id), "CHECKPOINT_CONFLICT");
      assert.equal(error.name, "CheckpointError");
      assert.deepEqual(error.files, ["a.txt"]);
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "edited by hand");
      assert.equal(fs.readFileSync(file("b.txt"), "utf8"), "b");
      await toolkit.checkpoints.restore(first.id, { force: true });
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "one");
      assert.equal(fs.existsSync(file("b.txt")), false);
    });
  });

  test("a file where a journalled directory was, or a directory where a file was: a conflict naming it that force does not override", async () => {
    await withJournal(async ({ toolkit, file }) => {
      await toolkit.invoke("write_file", { path: "z/y.txt", content: "y" });
      await toolkit.invoke("write_file", { path: "f.txt", content: "f" });
      const [cp] = await toolkit.checkpoints.list();
      // the restore removed both files and z; its own checkpoint puts them back
      const { checkpoint: redo } = await toolkit.checkpoints.restore(cp.id);
      fs.writeFileSync(file("z"), "a file now");
      fs.mkdirSync(file("f.txt"));
      fs.writeFileSync(file("f.txt/inside"), "x");
      for (const force of [false, true]) {
        const error = await rejectsWith(toolkit.checkpoints.restore(redo, { force }), "CHECKPOINT_CONFLICT");
        assert.deepEqual(error.files, ["z/y.txt", "f.txt"]);
        assert.match(error.message, /z is not a directory now/);
      }
      assert.equal(fs.readFileSync(file("z"), "utf8"), "a file now");
      assert.equal(fs.readFileSync(file("f.txt/inside"), "utf8"), "x");
    });
  });

  test("unknown ids and bad arguments", async () => {
    await withJournal(async ({ toolkit }) => {
      await rejectsWith(toolkit.checkpoints.restore("cp-00000099"), "CHECKPOINT_NOT_FOUND");
      await rejectsWith(toolkit.checkpoints.diff("nope"), "CHECKPOINT_NOT_FOUND");
      await rejectsWith(toolkit.checkpoints.restore(42), "INVALID_ARGUMENT");
      await toolkit.invoke("write_file", { path: "a.txt", content: "a" });
      const [cp] = await toolkit.checkpoints.list();
      await rejectsWith(toolkit.checkpoints.restore(cp.id, { force: "yes" }), "INVALID_ARGUMENT");
      await rejectsWith(toolkit.checkpoints.restore(cp.id, "force"), "INVALID_ARGUMENT");
      assert.equal((await toolkit.checkpoints.list()).length, 1);
    });
  });
});

describe("shared between processes", () => {
  test("a journal written by one process is listed and restored by another", async () => {
    await withJournal(async ({ root, journal, toolkit, file }) => {
      await child([root, journal, "write", "x.txt", "from the child", "y.txt", "second"]);
      await toolkit.invoke("write_file", { path: "x.txt", content: "from the parent" });
      const list = await toolkit.checkpoints.list();
      assert.equal(list.length, 3);
      const seen = await child([root, journal, "list"]);
      assert.deepEqual(seen, list);
      const done = await child([root, journal, "restore", list[0].id]);
      assert.equal(done.restored, list[0].id);
      assert.equal(fs.existsSync(file("x.txt")), false);
      assert.equal(fs.existsSync(file("y.txt")), false);
    });
  });

  test("two processes writing at once leave every checkpoint whole", async () => {
    await withJournal(async ({ root, journal, toolkit }) => {
      const writes = (tag) => Array.from({ length: 15 }, (_, i) => [`${tag}${i}.txt`, `${tag} ${i}`]).flat();
      await Promise.all([
        child([root, journal, "write", ...writes("a")]),
        child([root, journal, "write", ...writes("b")]),
        (async () => {
          for (let i = 0; i < 15; i++) await toolkit.invoke("write_file", { path: `c${i}.txt`, content: `c ${i}` });
        })(),
      ]);
      const list = await toolkit.checkpoints.list();
      assert.equal(list.length, 45);
      assert.equal(new Set(list.map((c) => c.id)).size, 45);
      await toolkit.checkpoints.restore(list[0].id);
      assert.deepEqual(fs.readdirSync(root), []);
    });
  });

  test("the default journal lives in the user's state directory, not in the workspace", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const root = path.join(dir, "ws");
      const state = path.join(dir, "state");
      fs.mkdirSync(root);
      fs.mkdirSync(state);
      const env = { XDG_STATE_HOME: state, HOME: state, LOCALAPPDATA: state };
      await child([root, "", "write", "a.txt", "a"], env);
      const list = await child([root, "", "list"], env);
      assert.equal(list.length, 1);
      assert.deepEqual(fs.readdirSync(root), ["a.txt"]);
      const found = walk(state);
      assert.ok(found.some((p) => /agent-tools-native\/checkpoints\/ws-[0-9a-f]{16}\/checkpoints\/cp-00000001\.json$/.test(p)), found.join("\n"));
    } finally {
      cleanup();
    }
  });

  test("a journal directory inside the workspace is refused before anything is written", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const context = createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL });
      const toolkit = createAgentToolkit(context, { checkpoints: { dir: path.join(dir, ".journal") } });
      await rejectsWith(toolkit.invoke("write_file", { path: "a.txt", content: "a" }), "INVALID_ARGUMENT");
      assert.equal(fs.existsSync(path.join(dir, "a.txt")), false);
    } finally {
      cleanup();
    }
  });
});

describe("crash safety", () => {
  test("a process killed in the middle of a journal write leaves a journal another process reads and restores", async () => {
    await withJournal(async ({ root, journal, toolkit, file }) => {
      fs.writeFileSync(file("a.txt"), "original");
      await toolkit.invoke("write_file", { path: "a.txt", content: "first change" });
      // the child pauses between writing a journal file and renaming it into place
      const proc = spawn(process.execPath, [CHILD, root, journal, "write", "a.txt", "second change"], {
        env: { ...process.env, AGENT_TOOLS_NATIVE_TEST_HOOKS: "1", AGENT_TOOLS_NATIVE_JOURNAL_PAUSE_MS: "60000" },
        stdio: "ignore",
      });
      const exited = new Promise((resolve) => proc.on("exit", resolve));
      const temporaries = () => walk(journal).filter((p) => p.endsWith(".tmp"));
      const deadline = Date.now() + 60_000;
      while (temporaries().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(temporaries().length > 0, "the child never reached its journal write");
      proc.kill("SIGKILL");
      await exited;
      // the interrupted checkpoint is absent, the earlier one whole and restorable
      const list = await toolkit.checkpoints.list();
      assert.equal(list.length, 1, JSON.stringify(list));
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "second change");
      await rejectsWith(toolkit.checkpoints.restore(list[0].id), "CHECKPOINT_CONFLICT");
      await toolkit.checkpoints.restore(list[0].id, { force: true });
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "original");
      // and the journal goes on
      await toolkit.invoke("write_file", { path: "a.txt", content: "third" });
      assert.equal((await toolkit.checkpoints.list()).length, 3);
    });
  });
});

describe("bounds", () => {
  test("pruning at the byte limit: the oldest lose their contents and say so; stored contents stay under it", async () => {
    await withJournal(
      async ({ journal, toolkit, file }) => {
        for (let i = 0; i < 6; i++) {
          fs.writeFileSync(file("big.txt"), String(i).repeat(4000));
          await toolkit.invoke("write_file", { path: "big.txt", content: "x" });
        }
        const list = await toolkit.checkpoints.list();
        assert.equal(list.length, 6);
        const whole = list.filter((c) => !c.pruned);
        assert.equal(whole.length, 2);
        for (const c of list.filter((c) => c.pruned)) assert.equal(c.restorable, false);
        await rejectsWith(toolkit.checkpoints.restore(list[0].id), "CHECKPOINT_PRUNED");
        let stored = 0;
        for (const p of walk(path.join(journal, "objects"))) {
          const st = fs.statSync(path.join(journal, "objects", p));
          if (st.isFile()) stored += st.size;
        }
        assert.ok(stored > 0 && stored <= 10_000, `${stored} bytes stored`);
        // the newest whole one still restores exactly
        await toolkit.checkpoints.restore(whole[0].id);
        assert.equal(fs.readFileSync(file("big.txt"), "utf8"), "4".repeat(4000));
      },
      { checkpoints: { maxBytes: 10_000 } },
    );
  });
});

describe("a tampered journal", () => {
  test("a path leading outside is refused (SANDBOX_VIOLATION) and nothing is written outside", async () => {
    await withJournal(async ({ dir, journal, toolkit, file }) => {
      fs.writeFileSync(file("a.txt"), "orig");
      await toolkit.invoke("write_file", { path: "a.txt", content: "changed" });
      const [cp] = await toolkit.checkpoints.list();
      const record = path.join(journal, "checkpoints", `${cp.id}.json`);
      const text = fs.readFileSync(record, "utf8");
      const outside = path.join(dir, "escaped.txt");
      for (const bad of ["../escaped.txt", path.join(dir, "escaped.txt"), "x/../../escaped.txt", "C:\\escaped.txt", ""]) {
        fs.writeFileSync(record, text.replace('"path":"a.txt"', `"path":${JSON.stringify(bad)}`));
        await rejectsWith(toolkit.checkpoints.restore(cp.id, { force: true }), "SANDBOX_VIOLATION");
        assert.equal(fs.existsSync(outside), false);
      }
      fs.writeFileSync(record, text);
      assert.equal(fs.readFileSync(file("a.txt"), "utf8"), "changed");
    });
  });

  test("a link in the workspace pointing outside does not carry a restore there", onlyOn(["unix"], "symbolic links made without privilege"), async () => {
    await withJournal(async ({ dir, journal, toolkit, file }) => {
      await toolkit.invoke("write_file", { path: "sub/a.txt", content: "new" });
      const [cp] = await toolkit.checkpoints.list();
      fs.rmSync(file("sub"), { recursive: true });
      fs.mkdirSync(path.join(dir, "elsewhere"));
      fs.writeFileSync(path.join(dir, "elsewhere", "a.txt"), "new");
      fs.symlinkSync(path.join(dir, "elsewhere"), file("sub"));
      await rejectsWith(toolkit.checkpoints.restore(cp.id, { force: true }), "SANDBOX_VIOLATION");
      await rejectsWith(toolkit.checkpoints.diff(cp.id), "SANDBOX_VIOLATION");
      assert.equal(fs.readFileSync(path.join(dir, "elsewhere", "a.txt"), "utf8"), "new");
      // a record naming a path below such a link fails the same way, before anything is written
      await toolkit.invoke("write_file", { path: "b.txt", content: "b" });
      const last = (await toolkit.checkpoints.list()).at(-1);
      const record = path.join(journal, "checkpoints", `${last.id}.json`);
      fs.writeFileSync(record, fs.readFileSync(record, "utf8").replace('"path":"b.txt"', '"path":"sub/pwn.txt"'));
      await rejectsWith(toolkit.checkpoints.restore(last.id, { force: true }), "SANDBOX_VIOLATION");
      assert.deepEqual(fs.readdirSync(path.join(dir, "elsewhere")), ["a.txt"]);
    });
  });

  test("a record that cannot be read: a restore across it is refused (CHECKPOINT_CORRUPT), nothing touched", async () => {
    await withJournal(async ({ journal, toolkit, file }) => {
      for (const name of ["a", "b", "c"]) await toolkit.invoke("write_file", { path: `${name}.txt`, content: name });
      const [first, second, third] = await toolkit.checkpoints.list();
      const record = (cp) => path.join(journal, "checkpoints", `${cp.id}.json`);
      const text = fs.readFileSync(record(second), "utf8");
      for (const broken of [text.slice(0, text.length / 2), "{not json", text.replace(second.id, third.id)]) {
        fs.writeFileSync(record(second), broken);
        await rejectsWith(toolkit.checkpoints.restore(first.id), "CHECKPOINT_CORRUPT");
        await rejectsWith(toolkit.checkpoints.restore(second.id, { force: true }), "CHECKPOINT_CORRUPT");
        await rejectsWith(toolkit.checkpoints.diff(first.id), "CHECKPOINT_CORRUPT");
        assert.deepEqual(["a", "b", "c"].map((n) => fs.existsSync(file(`${n}.txt`))), [true, true, true]);
      }
      // a checkpoint after it restores as usual
      await toolkit.checkpoints.restore(third.id);
      assert.equal(fs.existsSync(file("c.txt")), false);
      // a record removed by hand is as unknown
      fs.rmSync(record(second));
      await rejectsWith(toolkit.checkpoints.restore(first.id), "CHECKPOINT_CORRUPT");
      assert.deepEqual(["a", "b"].map((n) => fs.existsSync(file(`${n}.txt`))), [true, true]);
    });
  });
});

describe("toolkits over one context", () => {
  test("each keeps its own settings: a toolkit without them journals and checks nothing", async () => {
    await withJournal(async ({ context, journal, toolkit, file }) => {
      const plain = createAgentToolkit(context);
      const rejecting = createAgentToolkit(context, { syntaxCheck: "reject" });
      const { content } = await plain.invoke("write_file", { path: "a.ts", content: "let = ;" });
      assert.deepEqual(Object.keys(content), ["path", "created", "bytes_written"]);
      await rejectsWith(rejecting.invoke("write_file", { path: "b.ts", content: "let = ;" }), "SYNTAX_ERROR");
      assert.equal(fs.existsSync(file("b.ts")), false);
      // the journalling toolkit (no syntax check) records its own write only
      const written = await toolkit.invoke("write_file", { path: "c.ts", content: "let = ;" });
      assert.equal("diagnostics" in written.content, false);
      assert.deepEqual((await toolkit.checkpoints.list()).map((c) => c.files[0].path), ["c.ts"]);
      // one with the same settings shares the journal
      const same = createAgentToolkit(context, { checkpoints: { dir: journal } });
      assert.deepEqual((await same.checkpoints.list()).map((c) => c.files[0].path), ["c.ts"]);
      assert.equal("checkpoints" in plain, false);
    });
  });
});

describe("where the journal lives", () => {
  test("the state directory is read from process.env as the program set it", async () => {
    const { dir, cleanup } = tempDir();
    const names = ["XDG_STATE_HOME", "HOME", "LOCALAPPDATA"];
    const saved = names.map((n) => process.env[n]);
    try {
      const root = path.join(dir, "ws");
      const state = path.join(dir, "state");
      fs.mkdirSync(root);
      fs.mkdirSync(state);
      for (const n of names) process.env[n] = state;
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL }), { checkpoints: true });
      await toolkit.invoke("write_file", { path: "a.txt", content: "a" });
      const found = walk(state);
      assert.ok(found.some((p) => /agent-tools-native\/checkpoints\/ws-[0-9a-f]{16}\/checkpoints\/cp-00000001\.json$/.test(p)), found.join("\n"));
    } finally {
      names.forEach((n, i) => (saved[i] === undefined ? delete process.env[n] : (process.env[n] = saved[i])));
      cleanup();
    }
  });
});

describe("the syntax check", () => {
  test("report: the result's diagnostics name the new errors; a clean change has none", async () => {
    await withJournal(
      async ({ toolkit }) => {
        const bad = await toolkit.invoke("write_file", { path: "a.ts", content: "export const x = ;\n" });
        assert.equal(bad.content.diagnostics.length, 1);
        assert.deepEqual(Object.keys(bad.content.diagnostics[0]), ["path", "line", "column", "message"]);
        assert.equal(bad.content.diagnostics[0].path, "a.ts");
        assert.equal(bad.content.diagnostics[0].line, 1);
        const good = await toolkit.invoke("write_file", { path: "b.py", content: "def f():\n    return 1\n" });
        assert.deepEqual(good.content.diagnostics, []);
        const text = await toolkit.invoke("write_file", { path: "notes.txt", content: "function ( {" });
        assert.deepEqual(text.content.diagnostics, []);
      },
      { syntaxCheck: "report" },
    );
  });

  test("reject: SYNTAX_ERROR with the diagnostics, the file untouched; an error already there does not block", async () => {
    await withJournal(
      async ({ toolkit, file }) => {
        fs.writeFileSync(file("ok.ts"), "export const y = 1;\n");
        fs.writeFileSync(file("broken.js"), "let a = 1 +;\nlet b = 2;\n");
        const error = await rejectsWith(toolkit.invoke("write_file", { path: "ok.ts", content: "export const y = (;\n" }), "SYNTAX_ERROR");
        assert.equal(error.name, "WriteFileError");
        assert.equal(error.diagnostics[0].path, "ok.ts");
        assert.match(error.message, /^SYNTAX_ERROR: .*ok\.ts:1:/);
        assert.equal(fs.readFileSync(file("ok.ts"), "utf8"), "export const y = 1;\n");
        await toolkit.invoke("read_file", { path: "ok.ts" });
        await rejectsWith(toolkit.invoke("edit_file", { path: "ok.ts", old_string: "= 1", new_string: "= [1" }), "SYNTAX_ERROR");
        assert.equal(fs.readFileSync(file("ok.ts"), "utf8"), "export const y = 1;\n");
        // the error in broken.js was there before: an edit elsewhere in the file goes through
        await toolkit.invoke("apply_patch", {
          filePath: "broken.js",
          patch: "--- a/broken.js\n+++ b/broken.js\n@@ -1,2 +1,3 @@\n let a = 1 +;\n let b = 2;\n+let c = 3;\n",
        });
        assert.equal(fs.readFileSync(file("broken.js"), "utf8"), "let a = 1 +;\nlet b = 2;\nlet c = 3;\n");
        // apply_patches: one bad file refuses the whole patch
        await rejectsWith(
          toolkit.invoke("apply_patches", {
            patch: "*** Begin Patch\n*** Add File: fine.txt\n+fine\n*** Update File: ok.ts\n@@\n-export const y = 1;\n+export const y = (;\n*** End Patch",
          }),
          "SYNTAX_ERROR",
        );
        assert.equal(fs.existsSync(file("fine.txt")), false);
        // a refused new file leaves none of the directories it would have needed
        await rejectsWith(toolkit.invoke("write_file", { path: "x/y/z.ts", content: "let = ;\n" }), "SYNTAX_ERROR");
        await rejectsWith(toolkit.invoke("apply_patches", { patch: "*** Begin Patch\n*** Add File: q/r.ts\n+let = ;\n*** End Patch" }), "SYNTAX_ERROR");
        assert.equal(fs.existsSync(file("x")), false);
        assert.equal(fs.existsSync(file("q")), false);
        // the envelope of toolkit.tools carries them in error.details
        const result = await toolkit.tools.write_file("ok.ts", "export const = 2;\n");
        assert.equal(result.status, "failure");
        assert.equal(result.error.details.diagnostics[0].path, "ok.ts");
        // rejected changes are not journalled; the accepted patch is
        assert.deepEqual(
          (await toolkit.checkpoints.list()).map((c) => c.tool),
          ["apply_patch"],
        );
      },
      { syntaxCheck: "reject" },
    );
  });
});

/**
 * A command run by this runtime itself (`-e`), so it exists wherever the suite runs. Its code
 * names files through `p("rel")`, absolute paths in `root` (bun.exe under wine resolves relative
 * paths against another directory than the one it runs in).
 */
const script = (root, code) => ({
  cwd: ".",
  command: [process.execPath, "-e", `const fs = require("fs"); const p = (r) => require("path").join(${JSON.stringify(root)}, r); ${code}`],
  shell_mode: "direct",
});

/** Runs `code` as script() does through exec_command; it must exit 0. */
async function runScript(toolkit, root, code) {
  const out = await toolkit.invoke("exec_command", script(root, code));
  assert.equal(out.content.exit_code, 0, out.content.stderr);
  return out;
}

/** A checkpoint's files as sorted `change path` lines. */
const changesOf = (cp) => cp.files.map((f) => `${f.change} ${f.path}`).sort();

/** git in `root`, without the user's global configuration. */
const gitIn = (root) => (...args) => execFileSync("git", args, { cwd: root, env: { ...process.env, GIT_CONFIG_GLOBAL: path.join(root, "..", "none") } });

/** A repository in `root` holding every file there, committed. */
function commitAllIn(root) {
  const git = gitIn(root);
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init");
  return git;
}

/**
 * A background process that waits for go.txt, then writes late.txt (by a rename, so that it
 * appears whole: a runtime's writeFileSync may touch the file twice) and runs on. `go()` writes
 * go.txt through the toolkit and waits until late.txt is there.
 */
async function startLateWriter(toolkit, root) {
  const started = await toolkit.invoke("process_start", {
    ...script(root, "console.log('ready'); const t = setInterval(() => { if (fs.existsSync(p('go.txt'))) { fs.writeFileSync(p('late.tmp'), 'late'); fs.renameSync(p('late.tmp'), p('late.txt')); clearInterval(t); setInterval(() => {}, 1000); } }, 20)"),
    wait_for: "ready",
    wait_ms: 30000,
  });
  assert.match(started.content.output, /ready/);
  const late = path.join(root, "late.txt");
  const go = async () => {
    await toolkit.invoke("write_file", { path: "go.txt", content: "go" });
    const deadline = Date.now() + 60_000;
    while (!fs.existsSync(late) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(fs.readFileSync(late, "utf8"), "late");
  };
  return { ...started.content, go };
}

describe("commands", () => {
  test("outside git: a command's creations are undone; a modification is named but not restorable", async () => {
    await withJournal(async ({ root, toolkit, file }) => {
      fs.writeFileSync(file("kept.txt"), "kept");
      const made = await toolkit.invoke("exec_command", script(root, "fs.writeFileSync(p('made.txt'), 'x'); fs.mkdirSync(p('d')); fs.writeFileSync(p('d/e.txt'), 'y')"));
      assert.equal(made.content.exit_code, 0, made.content.stderr);
      await toolkit.invoke("exec_command", script(root, "fs.appendFileSync(p('kept.txt'), '!')"));
      const list = await toolkit.checkpoints.list();
      assert.deepEqual(
        list.map((c) => [c.tool, c.files, c.restorable]),
        [
          ["exec_command", [{ path: "d/e.txt", change: "created" }, { path: "made.txt", change: "created" }], true],
          ["exec_command", [{ path: "kept.txt", change: "modified" }], false],
        ],
      );
      await rejectsWith(toolkit.checkpoints.restore(list[1].id), "CHECKPOINT_NOT_RESTORABLE");
      // restoring the first undoes the second too, which cannot be: refused, even forced, nothing touched
      await rejectsWith(toolkit.checkpoints.restore(list[0].id, { force: true }), "CHECKPOINT_NOT_RESTORABLE");
      assert.equal(fs.readFileSync(file("made.txt"), "utf8"), "x");
    });
  });

  for (const where of ["outside git", "in a git work tree"]) {
    test(`${where}: a command that puts a file where a directory was, and a directory where a file was`, where === "outside git" ? {} : notUnderWine(WINE.git), async () => {
      await withJournal(async ({ root, toolkit, file }) => {
        fs.mkdirSync(file("d2f"));
        fs.writeFileSync(file("d2f/inner.txt"), "inner\n");
        fs.writeFileSync(file("f2d"), "important\n");
        if (where !== "outside git") commitAllIn(root);
        // (no recursive removal: bun.exe cannot do it under wine)
        await runScript(toolkit, root, "fs.unlinkSync(p('d2f/inner.txt')); fs.rmdirSync(p('d2f')); fs.writeFileSync(p('d2f'), 'now a file'); fs.unlinkSync(p('f2d')); fs.mkdirSync(p('f2d')); fs.writeFileSync(p('f2d/new.txt'), 'x')");
        const [cp] = await toolkit.checkpoints.list();
        assert.deepEqual(
          changesOf(cp),
          ["created d2f", "created f2d/new.txt", "deleted d2f/inner.txt", "deleted f2d"],
        );
        if (where === "outside git") {
          // the deleted files' contents were not kept: named, not restorable
          assert.equal(cp.restorable, false);
          await rejectsWith(toolkit.checkpoints.restore(cp.id), "CHECKPOINT_NOT_RESTORABLE");
          return;
        }
        assert.equal(cp.restorable, true);
        const { checkpoint: redo } = await toolkit.checkpoints.restore(cp.id);
        assert.equal(fs.readFileSync(file("d2f/inner.txt"), "utf8"), "inner\n");
        assert.equal(fs.readFileSync(file("f2d"), "utf8"), "important\n");
        await toolkit.checkpoints.restore(redo);
        assert.equal(fs.readFileSync(file("d2f"), "utf8"), "now a file");
        assert.equal(fs.readFileSync(file("f2d/new.txt"), "utf8"), "x");
      });
    });
  }

  test("outside git: swaps across checkpoints (a directory made a file, then a directory again) restore in one go", async () => {
    await withJournal(async ({ root, toolkit }) => {
      await toolkit.invoke("write_file", { path: "d/x.txt", content: "x" });
      await toolkit.invoke("exec_command", script(root, "fs.unlinkSync(p('d/x.txt')); fs.rmdirSync(p('d')); fs.writeFileSync(p('d'), 'F')"));
      await toolkit.invoke("exec_command", script(root, "fs.unlinkSync(p('d')); fs.mkdirSync(p('d/e'), { recursive: true }); fs.writeFileSync(p('d/e/z'), 'z')"));
      const [first, second] = await toolkit.checkpoints.list();
      // the second replaced x.txt, whose content was not kept outside git
      await rejectsWith(toolkit.checkpoints.restore(second.id), "CHECKPOINT_NOT_RESTORABLE");
      // back to before the first, x.txt absent then: no content needed
      await toolkit.checkpoints.restore(first.id);
      assert.deepEqual(walk(root), []);
    });
  });

  test("in a git work tree: swaps across checkpoints restore in one go; a directory made a link, inside or out, is recorded and restored", { ...notUnderWine(WINE.git), ...onlyOn(["unix"], "symbolic links made without privilege") }, async () => {
    await withJournal(async ({ dir, root, toolkit, file }) => {
      const out = path.join(dir, "out");
      fs.mkdirSync(out);
      fs.writeFileSync(path.join(out, "o.txt"), "outside");
      for (const [rel, text] of [["d/x.txt", "x"], ["l/x.txt", "lx"], ["l/y.txt", "ly"], ["real/x.txt", "REAL"], ["m/o.txt", "mo"]]) {
        fs.mkdirSync(path.dirname(file(rel)), { recursive: true });
        fs.writeFileSync(file(rel), text);
      }
      commitAllIn(root);
      const tree = () => walk(root).filter((p) => !p.startsWith(".git")).sort().map((p) => [p, fs.lstatSync(file(p)).isSymbolicLink() ? `-> ${fs.readlinkSync(file(p))}` : fs.statSync(file(p)).isFile() ? fs.readFileSync(file(p), "utf8") : "dir"]);
      const start = tree();
      const run = (code) => runScript(toolkit, root, code);
      await run("fs.unlinkSync(p('d/x.txt')); fs.rmdirSync(p('d')); fs.writeFileSync(p('d'), 'F')");
      await run("fs.unlinkSync(p('d')); fs.mkdirSync(p('d/e'), { recursive: true }); fs.writeFileSync(p('d/e/z'), 'z')");
      // l becomes a link to real/, which holds an x.txt too; m a link outside the workspace, which holds an o.txt
      await run(`for (const f of ['x.txt', 'y.txt']) fs.unlinkSync(p('l/' + f)); fs.rmdirSync(p('l')); fs.symlinkSync('real', p('l')); fs.unlinkSync(p('m/o.txt')); fs.rmdirSync(p('m')); fs.symlinkSync(${JSON.stringify(out)}, p('m'))`);
      const [first, second, third] = await toolkit.checkpoints.list();
      assert.deepEqual(changesOf(third), ["created l", "created m", "deleted l/x.txt", "deleted l/y.txt", "deleted m/o.txt"]);
      const after = tree();
      const { checkpoint: redo } = await toolkit.checkpoints.restore(third.id);
      assert.deepEqual(tree().filter(([p]) => p.startsWith("l") || p.startsWith("m")), start.filter(([p]) => p.startsWith("l") || p.startsWith("m")));
      await toolkit.checkpoints.restore(redo);
      assert.deepEqual(tree(), after);
      await toolkit.checkpoints.restore(first.id);
      assert.deepEqual(tree(), start);
      assert.deepEqual(fs.readdirSync(out), ["o.txt"]);
      assert.equal(fs.readFileSync(path.join(out, "o.txt"), "utf8"), "outside");
      void second;
    });
  });

  test("outside git: a checkpoint of creations alone restores", async () => {
    await withJournal(async ({ root, toolkit, file }) => {
      await toolkit.invoke("exec_command", script(root, "fs.writeFileSync(p('made.txt'), 'x')"));
      const [cp] = await toolkit.checkpoints.list();
      assert.equal(cp.restorable, true);
      await toolkit.checkpoints.restore(cp.id);
      assert.equal(fs.existsSync(file("made.txt")), false);
    });
  });

  test("in a git work tree: edits, a deletion and new files undone byte- and mode-exact; the repository untouched", notUnderWine(WINE.git), async () => {
    await withJournal(async ({ root, toolkit, file }) => {
      const git = gitIn(root);
      git("init", "-q", "-b", "main");
      git("config", "user.name", "t");
      git("config", "user.email", "t@example.com");
      fs.writeFileSync(file("a.txt"), "one\r\ntwo\r\n");
      fs.writeFileSync(file("tool.sh"), "#!/bin/sh\n");
      fs.chmodSync(file("tool.sh"), 0o755);
      git("add", "-A");
      git("commit", "-qm", "init");
      fs.writeFileSync(file("draft.txt"), "untracked");
      const snapshot = () =>
        walk(root)
          .filter((p) => !p.startsWith(".git") && fs.statSync(path.join(root, p)).isFile())
          .sort()
          .map((p) => [p, fs.readFileSync(path.join(root, p), "latin1"), modeOf(path.join(root, p))]);
      const before = snapshot();
      const index = fs.readFileSync(path.join(root, ".git", "index"));
      const head = git("rev-parse", "HEAD").toString();
      const out = await toolkit.invoke(
        "exec_command",
        script(root, "fs.writeFileSync(p('a.txt'), 'changed'); fs.rmSync(p('tool.sh')); fs.appendFileSync(p('draft.txt'), '+'); fs.writeFileSync(p('new.txt'), 'new')"),
      );
      assert.equal(out.content.exit_code, 0, out.content.stderr);
      const [cp] = await toolkit.checkpoints.list();
      assert.equal(cp.restorable, true);
      assert.deepEqual(
        changesOf(cp),
        ["created new.txt", "deleted tool.sh", "modified a.txt", "modified draft.txt"],
      );
      await toolkit.checkpoints.restore(cp.id);
      assert.deepEqual(snapshot(), before);
      assert.deepEqual(fs.readFileSync(path.join(root, ".git", "index")), index);
      assert.equal(git("rev-parse", "HEAD").toString(), head);
      assert.equal(git("status", "--porcelain").toString(), "?? draft.txt\n");
    });
  });

  test("in a git work tree: permission bits a command changed, and a deleted file's, come back exactly", onlyOn(["unix"], "POSIX permission bits"), async () => {
    await withJournal(async ({ root, toolkit, file }) => {
      const git = gitIn(root);
      git("init", "-q", "-b", "main");
      for (const [name, mode] of [["plain.txt", 0o644], ["secret.txt", 0o600], ["tool.sh", 0o755], ["group.txt", 0o640]]) {
        fs.writeFileSync(file(name), name);
        fs.chmodSync(file(name), mode);
      }
      git("add", "-A");
      const modes = () => Object.fromEntries(["plain.txt", "secret.txt", "tool.sh", "group.txt"].map((n) => [n, fs.existsSync(file(n)) ? modeOf(file(n)) : null]));
      const before = modes();
      // a command that changes nothing first: the next one starts from the bits it read
      await toolkit.invoke("exec_command", script(root, "fs.readFileSync(p('plain.txt'))"));
      // bits git does not see (600 -> 604, 644 -> 600), the executable bit, and a removed 0640 file
      await runScript(toolkit, root, "fs.chmodSync(p('secret.txt'), 0o604); fs.chmodSync(p('plain.txt'), 0o600); fs.chmodSync(p('tool.sh'), 0o644); fs.rmSync(p('group.txt'))");
      const [cp] = await toolkit.checkpoints.list();
      assert.deepEqual(
        changesOf(cp),
        ["deleted group.txt", "modified plain.txt", "modified secret.txt", "modified tool.sh"],
      );
      await toolkit.checkpoints.restore(cp.id);
      assert.deepEqual(modes(), before);
      assert.equal(fs.readFileSync(file("group.txt"), "utf8"), "group.txt");
    });
  });

  test("in a git work tree: commands one after another, with hand edits and a commit between them, each name their own changes and restore", notUnderWine(WINE.git), async () => {
    await withJournal(async ({ root, toolkit, file }) => {
      const git = gitIn(root);
      git("init", "-q", "-b", "main");
      git("config", "user.name", "t");
      git("config", "user.email", "t@example.com");
      fs.mkdirSync(file("dir"));
      fs.writeFileSync(file("a.txt"), "a");
      fs.writeFileSync(file("dir/b.txt"), "b");
      git("add", "-A");
      git("commit", "-qm", "init");
      const files = () =>
        walk(root)
          .filter((p) => !p.startsWith(".git") && fs.statSync(path.join(root, p)).isFile())
          .sort()
          .map((p) => [p, fs.readFileSync(path.join(root, p), "latin1")]);
      const run = (code) => runScript(toolkit, root, code);
      await run("fs.writeFileSync(p('dir/new1.txt'), '1'); fs.writeFileSync(p('a.txt'), 'a2')");
      // by hand, between commands: not the next command's changes
      fs.writeFileSync(file("dir/b.txt"), "b by hand");
      fs.writeFileSync(file("dir/hand.txt"), "hand");
      fs.mkdirSync(file("newdir"));
      fs.writeFileSync(file("newdir/x.txt"), "x");
      const beforeSecond = files();
      // a new file in a directory that held untracked files already, a new nested directory,
      // an untracked file removed, one made by hand changed
      await run("fs.writeFileSync(p('dir/new2.txt'), '2'); fs.mkdirSync(p('deep/e'), { recursive: true }); fs.writeFileSync(p('deep/e/f.txt'), 'f'); fs.rmSync(p('dir/hand.txt')); fs.appendFileSync(p('newdir/x.txt'), '+')");
      // the repository's index changes (a commit), the work tree does not
      await run(`require("child_process").execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "more"], { cwd: ${JSON.stringify(root)} })`);
      await run("fs.writeFileSync(p('a.txt'), 'a3'); fs.rmSync(p('dir/new1.txt')); fs.writeFileSync(p('dir/new3.txt'), '3')");
      const list = await toolkit.checkpoints.list();
      assert.deepEqual(
        list.map(changesOf),
        [
          ["created dir/new1.txt", "modified a.txt"],
          ["created deep/e/f.txt", "created dir/new2.txt", "deleted dir/hand.txt", "modified newdir/x.txt"],
          ["created dir/new3.txt", "deleted dir/new1.txt", "modified a.txt"],
        ],
      );
      assert.ok(list.every((cp) => cp.restorable));
      // the second command and every later one undone: the files as the hand edits left them
      await toolkit.checkpoints.restore(list[1].id);
      assert.deepEqual(files(), beforeSecond);
    });
  });

  test("in a git work tree: the snapshot directory kept between commands is removed by toolkit.close(), and made again by a later command", notUnderWine(WINE.git), async () => {
    const { dir, cleanup } = tempDir();
    const root = path.join(dir, "ws");
    const hostTmp = path.join(dir, "host-tmp");
    fs.mkdirSync(root);
    fs.mkdirSync(hostTmp);
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root });
    fs.writeFileSync(path.join(root, "a.txt"), "a");
    // no opt-in tools: close() comes with the journal alone
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL }), { checkpoints: { dir: path.join(dir, "journal") } });
    // the snapshot's private directories are made in the host's TMPDIR, read at call time
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = hostTmp;
    const kept = () => fs.readdirSync(hostTmp).filter((name) => name.startsWith("agent-tools-snapshot-"));
    try {
      const run = (code) => runScript(toolkit, root, code);
      await run("fs.writeFileSync(p('a.txt'), 'a2')");
      assert.equal(kept().length, 1, fs.readdirSync(hostTmp).join(", "));
      await toolkit.close();
      assert.deepEqual(fs.readdirSync(hostTmp), []);
      await run("fs.writeFileSync(p('a.txt'), 'a3')");
      assert.equal(kept().length, 1);
      const list = await toolkit.checkpoints.list();
      assert.deepEqual(list.map((cp) => cp.files.map((f) => `${f.change} ${f.path}`)), [["modified a.txt"], ["modified a.txt"]]);
      await toolkit.checkpoints.restore(list[0].id);
      assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a");
      await toolkit[Symbol.asyncDispose]();
      assert.deepEqual(fs.readdirSync(hostTmp), []);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      cleanup();
    }
  });

  for (const where of ["outside git", "in a git work tree"]) {
    test(`${where}: what a background process changes between calls is a checkpoint of its own, the toolkit's own writes not counted twice`, where === "outside git" ? {} : notUnderWine(WINE.git), async () => {
      await withJournal(async ({ root, toolkit, file }) => {
        if (where !== "outside git") execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root });
        const writer = await startLateWriter(toolkit, root);
        try {
          await writer.go();
          const list = await toolkit.checkpoints.list();
          assert.deepEqual(
            list.map((c) => [c.tool, c.files, c.restorable]),
            [
              ["write_file", [{ path: "go.txt", change: "created" }], true],
              ["background_processes", [{ path: "late.txt", change: "created" }], true],
            ],
          );
          // nothing changed since: no new checkpoint
          await toolkit.invoke("process_list", {});
          assert.deepEqual((await toolkit.checkpoints.list()).slice(2).map((c) => [c.tool, c.files]), []);
          await toolkit.invoke("process_kill", { process_id: writer.process_id });
          // undoing the write undoes what the process did after it
          await toolkit.checkpoints.restore(list[0].id);
          assert.equal(fs.existsSync(file("go.txt")), false);
          assert.equal(fs.existsSync(file("late.txt")), false);
        } finally {
          await toolkit.close();
        }
      });
    });
  }

  test("toolkit.close(): what a process changed after the last call is recorded once the process is gone", async () => {
    await withJournal(async ({ root, toolkit, file }) => {
      const writer = await startLateWriter(toolkit, root);
      try {
        await writer.go();
      } finally {
        // no call looked since the process wrote: the close does
        await toolkit.close();
      }
      assert.throws(() => process.kill(writer.pid, 0), "the process is gone");
      const list = await toolkit.checkpoints.list();
      assert.deepEqual(
        list.map((c) => [c.tool, c.files]),
        [
          ["write_file", [{ path: "go.txt", change: "created" }]],
          ["background_processes", [{ path: "late.txt", change: "created" }]],
        ],
      );
      await toolkit.checkpoints.restore(list[0].id);
      assert.equal(fs.existsSync(file("go.txt")), false);
      assert.equal(fs.existsSync(file("late.txt")), false);
    });
  });

  test("process_start: what the process changed while the call waited is a checkpoint", async () => {
    await withJournal(async ({ root, toolkit, file }) => {
      const started = await toolkit.invoke("process_start", {
        ...script(root, "fs.writeFileSync(p('server.pid'), String(process.pid)); console.log('ready'); setInterval(() => {}, 1000)"),
        wait_for: "ready",
        wait_ms: 30000,
      });
      try {
        assert.match(started.content.output, /ready/);
        const [cp] = await toolkit.checkpoints.list();
        assert.equal(cp.tool, "process_start");
        assert.deepEqual(cp.files, [{ path: "server.pid", change: "created" }]);
      } finally {
        await toolkit.invoke("process_kill", { process_id: started.content.process_id });
        await toolkit.close();
      }
      assert.equal(fs.existsSync(file("server.pid")), true);
    });
  });
});
