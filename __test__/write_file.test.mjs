// write_file (docs/tools/write_file.md) through invoke, the secure wrapper and the raw handler.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ToolCatalog } from "agent-tools-native";
import { withWorkspace, rejection, failureResult, sandboxDenied, assertToolError as assertSharedToolError, onlyOn, NEEDS } from "./helpers.mjs";

// ---- helpers -------------------------------------------------------------------------------

const assertToolError = (err, code, message, name = "WriteFileError") => assertSharedToolError(err, name, code, message);




/** Asserts the same tool error through `tools.write_file(...wrapperArgs)` and `invoke(invokeArgs)`. */
async function assertWriteError(ws, wrapperArgs, invokeArgs, code, message) {
  assert.deepStrictEqual(await ws.toolkit.tools.write_file(...wrapperArgs), failureResult(message));
  assertToolError(await rejection(ws.toolkit.invoke("write_file", invokeArgs)), code, message);
}

async function wrapperWrite(ws, p, content) {
  const result = await ws.toolkit.tools.write_file(p, content);
  assert.equal(result.status, "success", JSON.stringify(result));
  assert.deepStrictEqual(Object.keys(result), ["status", "data"]);
  return result.data;
}

async function invokeWrite(ws, args) {
  const out = await ws.toolkit.invoke("write_file", args);
  assert.deepStrictEqual(Object.keys(out), ["role", "name", "content"]);
  assert.equal(out.role, "function");
  assert.equal(out.name, "write_file");
  return out.content;
}

/** deepStrictEqual plus identical key order. */
function assertSameOutput(actual, want) {
  assert.deepStrictEqual(actual, want);
  assert.equal(JSON.stringify(actual), JSON.stringify(want));
}

// The three entry points, each returning the tool output.
const ENTRY_POINTS = {
  invoke: (ws, p, content) => invokeWrite(ws, { path: p, content }),
  wrapper: (ws, p, content) => wrapperWrite(ws, p, content),
  raw: (ws, p, content) => ToolCatalog.write_file.handler(ws.context, ws.abs(p), content),
};

// ---- success ---------------------------------------------------------------------------------

describe("write_file: writing", () => {
  for (const [entry, write] of Object.entries(ENTRY_POINTS)) {
    test(`${entry}: creates parents, reports created/bytes_written, then truncates on rewrite`, () =>
      withWorkspace(async (ws) => {
        const first = await write(ws, "a/b/c.txt", "héllo");
        assertSameOutput(first, { path: "a/b/c.txt", created: true, bytes_written: 6 });
        assert.ok(fs.statSync(ws.abs("a")).isDirectory());
        assert.ok(fs.statSync(ws.abs("a/b")).isDirectory());
        assert.equal(ws.read("a/b/c.txt"), "héllo");
        const second = await write(ws, "a/b/c.txt", "");
        assertSameOutput(second, { path: "a/b/c.txt", created: false, bytes_written: 0 });
        assert.equal(fs.statSync(ws.abs("a/b/c.txt")).size, 0);
      }));
  }

  test("bytes_written counts UTF-8 bytes; CRLF is written verbatim", () =>
    withWorkspace(async (ws) => {
      assertSameOutput(await invokeWrite(ws, { path: "e.txt", content: "😀\r\n" }), { path: "e.txt", created: true, bytes_written: 6 });
      assert.deepStrictEqual([...fs.readFileSync(ws.abs("e.txt"))], [0xf0, 0x9f, 0x98, 0x80, 0x0d, 0x0a]);
      assert.equal((await wrapperWrite(ws, "ascii.txt", "abc")).bytes_written, 3);
      assert.equal((await wrapperWrite(ws, "cjk.txt", "日本")).bytes_written, 6);
    }));

  test("a lone UTF-16 surrogate is written as U+FFFD (EF BF BD)", () =>
    withWorkspace(async (ws) => {
      const data = await wrapperWrite(ws, "s.txt", "a\uD800b");
      assert.equal(data.bytes_written, 5);
      assert.deepStrictEqual([...fs.readFileSync(ws.abs("s.txt"))], [0x61, 0xef, 0xbf, 0xbd, 0x62]);
    }));

  test("large content is written completely", () =>
    withWorkspace(async (ws) => {
      const content = "0123456789abcdef\n".repeat(200_000);
      const data = await invokeWrite(ws, { path: "big.txt", content });
      assert.equal(data.bytes_written, content.length);
      assert.equal(ws.read("big.txt"), content);
    }));

  test("output key order is path, created, bytes_written", () =>
    withWorkspace(async (ws) => {
      assert.deepStrictEqual(Object.keys(await invokeWrite(ws, { path: "k.txt", content: "x" })), ["path", "created", "bytes_written"]);
      assert.deepStrictEqual(Object.keys(await wrapperWrite(ws, "k.txt", "x")), ["path", "created", "bytes_written"]);
    }));

  test("\"newdir/\" creates a regular file named newdir", () =>
    withWorkspace(async (ws) => {
      assertSameOutput(await wrapperWrite(ws, "newdir/", "x"), { path: "newdir", created: true, bytes_written: 1 });
      assert.ok(fs.lstatSync(ws.abs("newdir")).isFile());
      assertSameOutput(await invokeWrite(ws, { path: "other/", content: "yy" }), { path: "other", created: true, bytes_written: 2 });
      assert.ok(fs.lstatSync(ws.abs("other")).isFile());
    }));

  test("paths are sandbox-normalised (backslashes, dot segments, absolute inside the root)", () =>
    withWorkspace(async (ws) => {
      assert.equal((await wrapperWrite(ws, "src\\x.txt", "1")).path, "src/x.txt");
      assert.equal((await invokeWrite(ws, { path: "./src//y/../y.txt", content: "2" })).path, "src/y.txt");
      assert.equal((await invokeWrite(ws, { path: ws.abs("src/z.txt"), content: "3" })).path, "src/z.txt");
      assert.deepStrictEqual(fs.readdirSync(ws.abs("src")).sort(), ["x.txt", "y.txt", "z.txt"]);
    }));

  test("no temporary file remains after writes", () =>
    withWorkspace(async (ws) => {
      await invokeWrite(ws, { path: "d/one.txt", content: "1" });
      await wrapperWrite(ws, "d/one.txt", "one again");
      await wrapperWrite(ws, "d/two.txt", "2".repeat(100_000));
      await ToolCatalog.write_file.handler(ws.context, ws.abs("d/three.txt"), "3");
      assert.deepStrictEqual(fs.readdirSync(ws.abs("d")).sort(), ["one.txt", "three.txt", "two.txt"]);
      assert.deepStrictEqual(fs.readdirSync(ws.root), ["d"]);
    }));

  test("an existing file keeps its mode after a write", onlyOn(["unix"], NEEDS.modes), () =>
    withWorkspace(async (ws) => {
      const file = ws.put("script.sh", "old");
      fs.chmodSync(file, 0o750);
      assertSameOutput(await wrapperWrite(ws, "script.sh", "#!/bin/sh\n"), { path: "script.sh", created: false, bytes_written: 10 });
      assert.equal(fs.statSync(file).mode & 0o777, 0o750);
      await invokeWrite(ws, { path: "script.sh", content: "again" });
      assert.equal(fs.statSync(file).mode & 0o777, 0o750);
      assert.equal(ws.read("script.sh"), "again");
    }));

  test("a new file gets the default mode (like fs.writeFileSync)", onlyOn(["unix"], NEEDS.modes), () =>
    withWorkspace(async (ws) => {
      const reference = ws.put("ref.txt", "r");
      await invokeWrite(ws, { path: "new.txt", content: "n" });
      assert.equal(fs.statSync(ws.abs("new.txt")).mode & 0o777, fs.statSync(reference).mode & 0o777);
    }));

  test("writing through a symlink to a file inside the workspace updates the target and keeps the link", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace(async (ws) => {
      ws.put("target.txt", "before");
      fs.symlinkSync("target.txt", ws.abs("ilink"));
      // A symlink counts as "not existing": created is true.
      assertSameOutput(await wrapperWrite(ws, "ilink", "after"), { path: "ilink", created: true, bytes_written: 5 });
      assert.ok(fs.lstatSync(ws.abs("ilink")).isSymbolicLink());
      assert.equal(fs.readlinkSync(ws.abs("ilink")), "target.txt");
      assert.equal(ws.read("target.txt"), "after");
      assertSameOutput(await invokeWrite(ws, { path: "ilink", content: "again!" }), { path: "ilink", created: true, bytes_written: 6 });
      assert.equal(ws.read("target.txt"), "again!");
      assert.ok(fs.lstatSync(ws.abs("ilink")).isSymbolicLink());
      assert.deepStrictEqual(fs.readdirSync(ws.root).sort(), ["ilink", "target.txt"]);
    }));

  test("a symlinked directory inside the workspace is followed as an intermediate component", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace(async (ws) => {
      fs.mkdirSync(ws.abs("real"));
      fs.symlinkSync("real", ws.abs("dirlink"));
      assertSameOutput(await invokeWrite(ws, { path: "dirlink/new.txt", content: "x" }), { path: "dirlink/new.txt", created: true, bytes_written: 1 });
      assert.equal(ws.read("real/new.txt"), "x");
      assert.ok(fs.lstatSync(ws.abs("dirlink")).isSymbolicLink());
    }));
});

// ---- validation and errors ----------------------------------------------------------------------

describe("write_file: validation", () => {
  const CONTENT = "INVALID_ARGUMENT: content must be a string";
  const PATH = "INVALID_ARGUMENT: path must be a non-empty string";

  test("content that is not a string (number, null, missing, object) → INVALID_ARGUMENT", () =>
    withWorkspace(async (ws) => {
      for (const content of [5, null, undefined, { text: "x" }, ["x"], true]) {
        await assertWriteError(ws, ["n.txt", content], { path: "n.txt", content }, "INVALID_ARGUMENT", CONTENT);
      }
      await assertWriteError(ws, ["n.txt"], { path: "n.txt" }, "INVALID_ARGUMENT", CONTENT);
      assert.equal(fs.existsSync(ws.abs("n.txt")), false);
    }));

  test("content validation happens before the directory check and before creating parents", () =>
    withWorkspace(async (ws) => {
      await assertWriteError(ws, [".", 5], { path: ".", content: 5 }, "INVALID_ARGUMENT", CONTENT);
      await assertWriteError(ws, ["p/q/r.txt", null], { path: "p/q/r.txt", content: null }, "INVALID_ARGUMENT", CONTENT);
      assert.equal(fs.existsSync(ws.abs("p")), false);
    }));

  test("invoke: missing or non-string path → path must be a non-empty string (checked before content)", () =>
    withWorkspace(async (ws) => {
      for (const args of [{}, { content: "x" }, { path: 5, content: "x" }, { path: null }]) {
        assertToolError(await rejection(ws.toolkit.invoke("write_file", args)), "INVALID_ARGUMENT", PATH);
      }
    }));

  test("wrapper: a non-string, non-object first argument → Invalid path argument", () =>
    withWorkspace(async (ws) => {
      for (const p of [5, null, false]) {
        assert.deepStrictEqual(await ws.toolkit.tools.write_file(p, "x"), failureResult("Invalid path argument"));
      }
      assert.deepStrictEqual(fs.readdirSync(ws.root), []);
    }));

  test("raw handler: blank path → INVALID_ARGUMENT", () =>
    withWorkspace(async (ws) => {
      for (const p of ["", "   ", undefined]) {
        assertToolError(await rejection(ToolCatalog.write_file.handler(ws.context, p, "x")), "INVALID_ARGUMENT", PATH);
      }
      assertToolError(await rejection(ToolCatalog.write_file.handler(ws.context, ws.abs("a.txt"), 1)), "INVALID_ARGUMENT", CONTENT);
    }));
});

describe("write_file: errors", () => {
  test("an existing directory → NOT_FILE", () =>
    withWorkspace(async (ws) => {
      fs.mkdirSync(ws.abs("test"));
      const message = `NOT_FILE: path is a directory: ${ws.abs("test")}`;
      await assertWriteError(ws, ["test", "x"], { path: "test", content: "x" }, "NOT_FILE", message);
      assertToolError(await rejection(ToolCatalog.write_file.handler(ws.context, ws.abs("test"), "x")), "NOT_FILE", message);
      assert.deepStrictEqual(fs.readdirSync(ws.abs("test")), []);
    }));

  test("the workspace root (\"\", \".\", absolute root) → NOT_FILE", () =>
    withWorkspace(async (ws) => {
      const message = `NOT_FILE: path is a directory: ${ws.root}`;
      for (const p of ["", ".", ws.root, "./"]) {
        await assertWriteError(ws, [p, "x"], { path: p, content: "x" }, "NOT_FILE", message);
      }
      assert.deepStrictEqual(fs.readdirSync(ws.root), []);
    }));

  // On Windows the lstat finds nothing (ENOENT), so the parent's creation fails as Node's
  // recursive mkdir does over a file: EEXIST.
  test("a parent component that is a regular file → INTERNAL ENOTDIR (EEXIST on Windows)", () =>
    withWorkspace(async (ws) => {
      ws.put("afile", "keep");
      const message = process.platform === "win32"
        ? `INTERNAL: EEXIST: file already exists, mkdir '${ws.abs("afile")}'`
        : `INTERNAL: ENOTDIR: not a directory, lstat '${ws.abs("afile/x.txt")}'`;
      await assertWriteError(ws, ["afile/x.txt", "x"], { path: "afile/x.txt", content: "x" }, "INTERNAL", message);
      assert.equal(ws.read("afile"), "keep");
    }));

  test("a symlink to a directory inside → INTERNAL EISDIR", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace(async (ws) => {
      fs.mkdirSync(ws.abs("real"));
      fs.symlinkSync("real", ws.abs("dirlink"));
      const message = `INTERNAL: EISDIR: illegal operation on a directory, open '${ws.abs("dirlink")}'`;
      await assertWriteError(ws, ["dirlink", "x"], { path: "dirlink", content: "x" }, "INTERNAL", message);
      assert.ok(fs.lstatSync(ws.abs("dirlink")).isSymbolicLink());
      assert.deepStrictEqual(fs.readdirSync(ws.abs("real")), []);
    }));

  test("read-only write scope denies write_file before anything else", () =>
    withWorkspace(
      async (ws) => {
        const message = '[Sandbox Violation] Write operation denied. Current mode: "read-only"';
        assert.deepStrictEqual(await ws.toolkit.tools.write_file("x.txt", "x"), sandboxDenied(message));
        const err = await rejection(ws.toolkit.invoke("write_file", { path: "x.txt", content: "x" }));
        assert.equal(err.name, "InvokeToolError");
        assert.equal(err.code, "TOOL_NOT_ALLOWED");
        assert.equal(err.message, `TOOL_NOT_ALLOWED: ${message}`);
        assert.equal(fs.existsSync(ws.abs("x.txt")), false);
      },
      { writeScope: "read-only" },
    ));
});

// ---- sandbox deviations -------------------------------------------------------------------------

describe("write_file: symlinks pointing outside (deliberate deviation: denied)", onlyOn(["unix"], NEEDS.symlinks), () => {
  function assertDeniedMessage(err, p) {
    assert.ok(err instanceof Error);
    assert.equal(err.name, "Error");
    assert.equal(err.message, `[Sandbox Violation] Attempted to access path outside of workspace: "${p}"`);
  }

  test("flink → an outside file: denied, the outside file is untouched", () =>
    withWorkspace(async (ws) => {
      const outside = ws.outsideDir();
      const victim = path.join(outside, "victim.txt");
      fs.writeFileSync(victim, "ORIGINAL");
      fs.symlinkSync(victim, ws.abs("flink"));
      const message = '[Sandbox Violation] Attempted to access path outside of workspace: "flink"';
      assert.deepStrictEqual(await ws.toolkit.tools.write_file("flink", "PWNED"), sandboxDenied(message));
      assertDeniedMessage(await rejection(ws.toolkit.invoke("write_file", { path: "flink", content: "PWNED" })), "flink");
      assert.equal(fs.readFileSync(victim, "utf8"), "ORIGINAL");
      assert.ok(fs.lstatSync(ws.abs("flink")).isSymbolicLink());
    }));

  test("dlink/new.txt with dlink → an outside directory: denied, nothing created outside", () =>
    withWorkspace(async (ws) => {
      const outside = ws.outsideDir();
      fs.symlinkSync(outside, ws.abs("dlink"));
      for (const p of ["dlink/new.txt", "dlink/deep/er/new.txt"]) {
        const message = `[Sandbox Violation] Attempted to access path outside of workspace: "${p}"`;
        assert.deepStrictEqual(await ws.toolkit.tools.write_file(p, "PWNED"), sandboxDenied(message));
        assertDeniedMessage(await rejection(ws.toolkit.invoke("write_file", { path: p, content: "PWNED" })), p);
      }
      assert.deepStrictEqual(fs.readdirSync(outside), []);
    }));

  test("a dangling symlink to a missing outside file: denied, nothing created", () =>
    withWorkspace(async (ws) => {
      const outside = ws.outsideDir();
      fs.symlinkSync(path.join(outside, "missing.txt"), ws.abs("dangling"));
      const message = '[Sandbox Violation] Attempted to access path outside of workspace: "dangling"';
      assert.deepStrictEqual(await ws.toolkit.tools.write_file("dangling", "PWNED"), sandboxDenied(message));
      assertDeniedMessage(await rejection(ws.toolkit.invoke("write_file", { path: "dangling", content: "PWNED" })), "dangling");
      assert.deepStrictEqual(fs.readdirSync(outside), []);
    }));
});
