// read_file (docs/tools/read_file.md) through invoke, the secure wrapper and the raw handler.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ToolCatalog } from "agent-tools-native";
import { withWorkspace, rejection, failureResult, sandboxDenied, assertToolError as assertSharedToolError, onlyOn, NEEDS } from "./helpers.mjs";

// ---- helpers -------------------------------------------------------------------------------

const assertToolError = (err, code, message, name = "ReadFileError") => assertSharedToolError(err, name, code, message);

const MIB = 1024 * 1024;





/** Asserts the same tool error through `tools.read_file(...wrapperArgs)` and `invoke(invokeArgs)`. */
async function assertReadError(ws, wrapperArgs, invokeArgs, code, message) {
  assert.deepStrictEqual(await ws.toolkit.tools.read_file(...wrapperArgs), failureResult(message));
  assertToolError(await rejection(ws.toolkit.invoke("read_file", invokeArgs)), code, message);
}

/** Reads through invoke (checking the envelope) and returns the content. */
async function invokeRead(ws, args) {
  const out = await ws.toolkit.invoke("read_file", args);
  assert.deepStrictEqual(Object.keys(out), ["role", "name", "content"]);
  assert.equal(out.role, "function");
  assert.equal(out.name, "read_file");
  return out.content;
}

/** Reads through the wrapper (asserting success) and returns the data. */
async function wrapperRead(ws, ...args) {
  const result = await ws.toolkit.tools.read_file(...args);
  assert.equal(result.status, "success", JSON.stringify(result));
  assert.deepStrictEqual(Object.keys(result), ["status", "data"]);
  return result.data;
}

/** The full expected output, in upstream's key order (mtime_ms taken from the actual value). */
function expected(actual, relPath, bytes, window) {
  return {
    path: relPath,
    content: window.content,
    truncated: window.truncated,
    next_start_line: window.next,
    meta: {
      byte_length: bytes.length,
      line_count: window.lines,
      returned_line_count: window.returned,
      mtime_ms: actual.meta.mtime_ms,
    },
  };
}

/** deepStrictEqual plus identical key order (JSON.stringify preserves insertion order). */
function assertSameOutput(actual, want) {
  assert.deepStrictEqual(actual, want);
  assert.equal(JSON.stringify(actual), JSON.stringify(want));
}

/** A test-name label for an option value (`NaN`, `"2"`, `[2]`). */
const label = (v) => (typeof v === "number" ? String(v) : JSON.stringify(v));

const numbered = (n, prefix) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).join("\n");

// ---- output shape --------------------------------------------------------------------------

describe("read_file: output shape", () => {
  test("key order, meta key order, mtime_ms is the lstat mtime (a number)", () =>
    withWorkspace(async (ws) => {
      const file = ws.put("src/main.ts", "a\r\nb\r\nc");
      const data = await invokeRead(ws, { path: "src/main.ts" });
      assert.deepStrictEqual(Object.keys(data), ["path", "content", "truncated", "next_start_line", "meta"]);
      assert.deepStrictEqual(Object.keys(data.meta), ["byte_length", "line_count", "returned_line_count", "mtime_ms"]);
      assert.equal(typeof data.meta.mtime_ms, "number");
      assert.ok(Number.isFinite(data.meta.mtime_ms));
      assert.ok(Math.abs(data.meta.mtime_ms - fs.lstatSync(file).mtimeMs) < 1, `${data.meta.mtime_ms} vs ${fs.lstatSync(file).mtimeMs}`);
      assertSameOutput(data, {
        path: "src/main.ts",
        content: "a\nb\nc",
        truncated: false,
        next_start_line: null,
        meta: { byte_length: 7, line_count: 3, returned_line_count: 3, mtime_ms: data.meta.mtime_ms },
      });
    }));

  test("mtime_ms keeps fractional milliseconds", () =>
    withWorkspace(async (ws) => {
      const file = ws.put("t.txt", "x");
      fs.utimesSync(file, 1700000000.1234, 1700000000.1234);
      const data = await wrapperRead(ws, "t.txt");
      assert.ok(Math.abs(data.meta.mtime_ms - fs.lstatSync(file).mtimeMs) < 0.01, `${data.meta.mtime_ms}`);
      assert.notEqual(data.meta.mtime_ms, Math.trunc(data.meta.mtime_ms));
    }));

  test("wrapper, invoke and raw handler return the same output; path is workspace-relative", () =>
    withWorkspace(async (ws) => {
      ws.put("dir/sub/f.txt", "one\ntwo\n");
      const viaInvoke = await invokeRead(ws, { path: "dir/sub/f.txt" });
      const viaWrapper = await wrapperRead(ws, "dir/sub/f.txt");
      const viaRaw = await ToolCatalog.read_file.handler(ws.context, ws.abs("dir/sub/f.txt"));
      assert.equal(viaInvoke.path, "dir/sub/f.txt");
      assertSameOutput(viaWrapper, viaInvoke);
      assertSameOutput(viaRaw, viaInvoke);
    }));

  test("paths are sandbox-normalised: backslashes, `.`/`..` segments, absolute paths inside the root", () =>
    withWorkspace(async (ws) => {
      ws.put("src/main.ts", "x");
      for (const p of ["src\\main.ts", "./src//a/../main.ts", ws.abs("src/main.ts")]) {
        assert.equal((await wrapperRead(ws, p)).path, "src/main.ts", p);
        assert.equal((await invokeRead(ws, { path: p })).path, "src/main.ts", p);
      }
    }));

  test("invoke drops unknown keys", () =>
    withWorkspace(async (ws) => {
      ws.put("f.txt", "a\nb");
      const data = await invokeRead(ws, { path: "f.txt", start_line: 2, extra: "ignored", cwd: "nowhere" });
      assert.equal(data.content, "b");
    }));
});

// ---- decoding and windowing ------------------------------------------------------------------

// Upstream's verified examples of read_file: file bytes, options, expected window.
const WINDOW_CASES = [
  { name: "CRLF normalised", bytes: "a\r\nb\r\nc", opts: {}, want: { content: "a\nb\nc", lines: 3, returned: 3, truncated: false, next: null } },
  { name: "trailing newline → final empty line", bytes: "a\nb\n", opts: {}, want: { content: "a\nb\n", lines: 3, returned: 3, truncated: false, next: null } },
  { name: "window on the final empty line", bytes: "a\nb\n", opts: { start_line: 3, max_lines: 1 }, want: { content: "", lines: 3, returned: 1, truncated: false, next: null } },
  { name: "start past the end", bytes: "a\nb\n", opts: { start_line: 4 }, want: { content: "", lines: 3, returned: 0, truncated: false, next: null } },
  { name: "start 2, max 2", bytes: "a\nb\n", opts: { start_line: 2, max_lines: 2 }, want: { content: "b\n", lines: 3, returned: 2, truncated: false, next: null } },
  { name: "start 1, max 2 truncates", bytes: "a\nb\n", opts: { start_line: 1, max_lines: 2 }, want: { content: "a\nb", lines: 3, returned: 2, truncated: true, next: 3 } },
  { name: "empty file", bytes: "", opts: {}, want: { content: "", lines: 0, returned: 0, truncated: false, next: null } },
  { name: "single newline", bytes: "\n", opts: {}, want: { content: "\n", lines: 2, returned: 2, truncated: false, next: null } },
  { name: "lone CR kept", bytes: "a\rb\r\nc\n", opts: {}, want: { content: "a\rb\nc\n", lines: 3, returned: 3, truncated: false, next: null } },
  { name: "UTF-8 BOM removed, byte_length counts it", bytes: Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x0a, 0x62]), opts: {}, want: { content: "a\nb", lines: 2, returned: 2, truncated: false, next: null } },
  { name: "only the leading BOM is removed", bytes: Buffer.from("\uFEFFa\uFEFF"), opts: {}, want: { content: "a\uFEFF", lines: 1, returned: 1, truncated: false, next: null } },
  { name: "lossy UTF-8: 61 FF FE 62", bytes: Buffer.from([0x61, 0xff, 0xfe, 0x62]), opts: {}, want: { content: "a\uFFFD\uFFFDb", lines: 1, returned: 1, truncated: false, next: null } },
  { name: "lossy UTF-8: truncated sequence is one maximal subpart", bytes: Buffer.from([0xe2, 0x82, 0x78]), opts: {}, want: { content: "\uFFFDx", lines: 1, returned: 1, truncated: false, next: null } },
  { name: "lossy UTF-8: encoded surrogate → three replacements", bytes: Buffer.from([0xed, 0xa0, 0x80]), opts: {}, want: { content: "\uFFFD\uFFFD\uFFFD", lines: 1, returned: 1, truncated: false, next: null } },
  { name: "multi-byte text is decoded", bytes: "héllo 😀\r\nwörld", opts: {}, want: { content: "héllo 😀\nwörld", lines: 2, returned: 2, truncated: false, next: null } },
  { name: "250 lines with defaults → 200", bytes: numbered(250, "line-"), opts: {}, want: { content: numbered(200, "line-"), lines: 250, returned: 200, truncated: true, next: 201 } },
  { name: "20 lines, start 5, max 3", bytes: numbered(20, "line-"), opts: { start_line: 5, max_lines: 3 }, want: { content: "line-5\nline-6\nline-7", lines: 20, returned: 3, truncated: true, next: 8 } },
  { name: "10 lines, start 8, max 3 (window reaches the end)", bytes: numbered(10, "l"), opts: { start_line: 8, max_lines: 3 }, want: { content: "l8\nl9\nl10", lines: 10, returned: 3, truncated: false, next: null } },
  { name: "10 lines, start 11", bytes: numbered(10, "l"), opts: { start_line: 11 }, want: { content: "", lines: 10, returned: 0, truncated: false, next: null } },
  { name: "start_line 2.0 accepted as 2", bytes: "a\nb\nc", opts: { start_line: 2.0, max_lines: 1 }, want: { content: "b", lines: 3, returned: 1, truncated: true, next: 3 } },
  { name: "null options mean the defaults", bytes: numbered(250, "n"), opts: { start_line: null, max_lines: null }, want: { content: numbered(200, "n"), lines: 250, returned: 200, truncated: true, next: 201 } },
  { name: "max_lines 500 is accepted", bytes: numbered(600, "n"), opts: { max_lines: 500 }, want: { content: numbered(500, "n"), lines: 600, returned: 500, truncated: true, next: 501 } },
  { name: "max_lines 1", bytes: "a\nb", opts: { max_lines: 1 }, want: { content: "a", lines: 2, returned: 1, truncated: true, next: 2 } },
];

describe("read_file: decoding and line windows", () => {
  for (const c of WINDOW_CASES) {
    test(c.name, () =>
      withWorkspace(async (ws) => {
        const bytes = Buffer.from(c.bytes);
        ws.put("f.txt", bytes);
        const viaInvoke = await invokeRead(ws, { path: "f.txt", ...c.opts });
        assertSameOutput(viaInvoke, expected(viaInvoke, "f.txt", bytes, c.want));
        const viaWrapper = Object.keys(c.opts).length ? await wrapperRead(ws, "f.txt", c.opts) : await wrapperRead(ws, "f.txt");
        assertSameOutput(viaWrapper, expected(viaWrapper, "f.txt", bytes, c.want));
      }));
  }

  test("a NUL after byte 8191 is read as text, NUL included", () =>
    withWorkspace(async (ws) => {
      for (const at of [8192, 8500]) {
        const bytes = Buffer.alloc(9000, 0x61);
        bytes[at] = 0;
        ws.put("late-nul.txt", bytes);
        const data = await invokeRead(ws, { path: "late-nul.txt" });
        assert.equal(data.content.length, 9000);
        assert.equal(data.content.indexOf("\u0000"), at);
        assert.equal(data.meta.byte_length, 9000);
      }
    }));

  test("exactly 1 MiB is accepted", () =>
    withWorkspace(async (ws) => {
      ws.put("big.txt", Buffer.alloc(MIB, 0x78));
      const data = await wrapperRead(ws, "big.txt");
      assert.equal(data.meta.byte_length, MIB);
      assert.equal(data.meta.line_count, 1);
      assert.equal(data.content.length, MIB);
    }));

  test("symlinked intermediate directory inside the workspace is followed", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace(async (ws) => {
      ws.put("real/f.txt", "via link");
      fs.symlinkSync("real", ws.abs("dirlink"));
      const data = await invokeRead(ws, { path: "dirlink/f.txt" });
      assert.equal(data.path, "dirlink/f.txt");
      assert.equal(data.content, "via link");
      assert.equal((await wrapperRead(ws, "dirlink/f.txt")).content, "via link");
    }));
});

// ---- validation ------------------------------------------------------------------------------

describe("read_file: validation", () => {
  const START = "INVALID_ARGUMENT: start_line must be an integer >= 1";
  const MAX = "INVALID_ARGUMENT: max_lines must be an integer between 1 and 500";

  for (const bad of [0, -1, 1.5, "2", NaN, Infinity, true, [2]]) {
    test(`start_line ${label(bad)} → INVALID_ARGUMENT`, () =>
      withWorkspace(async (ws) => {
        ws.put("f.txt", "x");
        await assertReadError(ws, ["f.txt", { start_line: bad }], { path: "f.txt", start_line: bad }, "INVALID_ARGUMENT", START);
      }));
  }

  for (const bad of [0, 501, 1.5, "2", NaN, -5, Infinity]) {
    test(`max_lines ${label(bad)} → INVALID_ARGUMENT`, () =>
      withWorkspace(async (ws) => {
        ws.put("f.txt", "x");
        await assertReadError(ws, ["f.txt", { max_lines: bad }], { path: "f.txt", max_lines: bad }, "INVALID_ARGUMENT", MAX);
      }));
  }

  test("start_line is checked before max_lines", () =>
    withWorkspace(async (ws) => {
      ws.put("f.txt", "x");
      await assertReadError(ws, ["f.txt", { start_line: 0, max_lines: 0 }], { path: "f.txt", start_line: 0, max_lines: 0 }, "INVALID_ARGUMENT", START);
    }));

  test("validation happens before any filesystem access", () =>
    withWorkspace(async (ws) => {
      await assertReadError(ws, ["missing.txt", { start_line: 0 }], { path: "missing.txt", start_line: 0 }, "INVALID_ARGUMENT", START);
      await assertReadError(ws, ["missing.txt", { max_lines: 501 }], { path: "missing.txt", max_lines: 501 }, "INVALID_ARGUMENT", MAX);
    }));

  test("invoke: missing or non-string path → path must be a non-empty string", () =>
    withWorkspace(async (ws) => {
      for (const args of [{}, { path: 5 }, { path: null }, { path: ["f.txt"] }]) {
        const err = await rejection(ws.toolkit.invoke("read_file", args));
        assertToolError(err, "INVALID_ARGUMENT", "INVALID_ARGUMENT: path must be a non-empty string");
      }
    }));

  test("wrapper: a first argument that is neither a string nor an object → Invalid path argument", () =>
    withWorkspace(async (ws) => {
      for (const p of [5, null, true, ["f.txt"]]) {
        assert.deepStrictEqual(await ws.toolkit.tools.read_file(p), failureResult("Invalid path argument"), String(p));
      }
    }));

  test("wrapper: omitted / undefined (an omitted argument, docs/compat.md) / object path reach the validator", () =>
    withWorkspace(async (ws) => {
      const want = failureResult("INVALID_ARGUMENT: path must be a non-empty string");
      assert.deepStrictEqual(await ws.toolkit.tools.read_file(), want);
      assert.deepStrictEqual(await ws.toolkit.tools.read_file(undefined), want);
      assert.deepStrictEqual(await ws.toolkit.tools.read_file({ path: "f.txt" }), want);
    }));

  test("raw handler: blank path → path must be a non-empty string", () =>
    withWorkspace(async (ws) => {
      for (const p of ["", "   ", "\t\n", 42]) {
        const err = await rejection(ToolCatalog.read_file.handler(ws.context, p));
        assertToolError(err, "INVALID_ARGUMENT", "INVALID_ARGUMENT: path must be a non-empty string");
      }
    }));

  test("raw handler validates options too", () =>
    withWorkspace(async (ws) => {
      const file = ws.put("f.txt", "x");
      assertToolError(await rejection(ToolCatalog.read_file.handler(ws.context, file, { start_line: "2" })), "INVALID_ARGUMENT", START);
      assertToolError(await rejection(ToolCatalog.read_file.handler(ws.context, file, { max_lines: 501 })), "INVALID_ARGUMENT", MAX);
    }));

  test("options === null → INTERNAL (runtime-defined text)", () =>
    withWorkspace(async (ws) => {
      const file = ws.put("f.txt", "x");
      const err = await rejection(ToolCatalog.read_file.handler(ws.context, file, null));
      assert.equal(err.code, "INTERNAL");
      assert.match(err.message, /^INTERNAL: /);
      const result = await ws.toolkit.tools.read_file("f.txt", null);
      assert.equal(result.status, "failure");
      assert.equal(result.error.code, "RUNTIME_ERROR");
      assert.match(result.message, /^INTERNAL: /);
    }));

  test("a non-object options value behaves like {}", () =>
    withWorkspace(async (ws) => {
      ws.put("f.txt", "a\nb");
      const data = await wrapperRead(ws, "f.txt", 5);
      assert.equal(data.content, "a\nb");
      assert.equal(data.meta.returned_line_count, 2);
    }));
});

// ---- errors ------------------------------------------------------------------------------------

describe("read_file: errors", () => {
  test("missing file → NOT_FOUND", () =>
    withWorkspace(async (ws) => {
      const message = `NOT_FOUND: path not found: ${ws.abs("missing.txt")}`;
      await assertReadError(ws, ["missing.txt"], { path: "missing.txt" }, "NOT_FOUND", message);
      assertToolError(await rejection(ToolCatalog.read_file.handler(ws.context, ws.abs("missing.txt"))), "NOT_FOUND", message);
    }));

  test("missing parent directory → NOT_FOUND", () =>
    withWorkspace(async (ws) => {
      await assertReadError(ws, ["no/such/dir.txt"], { path: "no/such/dir.txt" }, "NOT_FOUND", `NOT_FOUND: path not found: ${ws.abs("no/such/dir.txt")}`);
    }));

  test("Windows drive path on POSIX → NOT_FOUND below the root", onlyOn(["unix"], "a drive path is a relative name on POSIX only"), () =>
    withWorkspace(async (ws) => {
      const message = `NOT_FOUND: path not found: ${ws.root}/C:/x/y`;
      await assertReadError(ws, ["C:\\x\\y"], { path: "C:\\x\\y" }, "NOT_FOUND", message);
    }));

  test("Windows drive path on Windows → outside the workspace", onlyOn(["win32"], "a drive path is absolute on Windows only"), () =>
    withWorkspace(async (ws) => {
      const denied = await ws.toolkit.tools.read_file("Q:\\x\\y");
      assert.equal(denied.status, "denied");
      assert.equal(denied.error.code, "SANDBOX_VIOLATION");
      assert.match(denied.message, /outside of workspace/);
    }));

  test("directory → NOT_FILE", () =>
    withWorkspace(async (ws) => {
      fs.mkdirSync(ws.abs("dir"));
      const message = `NOT_FILE: path is not a file: ${ws.abs("dir")}`;
      await assertReadError(ws, ["dir"], { path: "dir" }, "NOT_FILE", message);
      assertToolError(await rejection(ToolCatalog.read_file.handler(ws.context, ws.abs("dir"))), "NOT_FILE", message);
    }));

  test("the root (`\"\"`, `.`) → NOT_FILE with the root path", () =>
    withWorkspace(async (ws) => {
      const message = `NOT_FILE: path is not a file: ${ws.root}`;
      for (const p of ["", ".", ws.root, `${ws.root}/`]) {
        await assertReadError(ws, [p], { path: p }, "NOT_FILE", message);
      }
    }));

  test("symlink as the final component (to a file inside) → NOT_FILE", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace(async (ws) => {
      ws.put("target.txt", "secret");
      fs.symlinkSync("target.txt", ws.abs("link.txt"));
      const message = `NOT_FILE: path is not a file: ${ws.abs("link.txt")}`;
      await assertReadError(ws, ["link.txt"], { path: "link.txt" }, "NOT_FILE", message);
      assertToolError(await rejection(ToolCatalog.read_file.handler(ws.context, ws.abs("link.txt"))), "NOT_FILE", message);
    }));

  test("symlink to a directory inside → NOT_FILE", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace(async (ws) => {
      fs.mkdirSync(ws.abs("d"));
      fs.symlinkSync("d", ws.abs("dlink"));
      await assertReadError(ws, ["dlink"], { path: "dlink" }, "NOT_FILE", `NOT_FILE: path is not a file: ${ws.abs("dlink")}`);
    }));

  test("size 1 MiB + 1 → SIZE_LIMIT_EXCEEDED", () =>
    withWorkspace(async (ws) => {
      ws.put("big.txt", Buffer.alloc(MIB + 1, 0x78));
      const message = `SIZE_LIMIT_EXCEEDED: file size exceeds 1 MiB limit: ${ws.abs("big.txt")}`;
      await assertReadError(ws, ["big.txt"], { path: "big.txt" }, "SIZE_LIMIT_EXCEEDED", message);
    }));

  test("size limit is checked before the binary check", () =>
    withWorkspace(async (ws) => {
      ws.put("bigbin", Buffer.alloc(MIB + 1, 0));
      const message = `SIZE_LIMIT_EXCEEDED: file size exceeds 1 MiB limit: ${ws.abs("bigbin")}`;
      await assertReadError(ws, ["bigbin"], { path: "bigbin" }, "SIZE_LIMIT_EXCEEDED", message);
    }));

  test("NUL within the first 8192 bytes (index 0 and 8191) → BINARY_NOT_SUPPORTED", () =>
    withWorkspace(async (ws) => {
      for (const at of [0, 8191]) {
        const bytes = Buffer.alloc(9000, 0x61);
        bytes[at] = 0;
        ws.put("bin.dat", bytes);
        const message = `BINARY_NOT_SUPPORTED: binary file is not supported: ${ws.abs("bin.dat")}`;
        await assertReadError(ws, ["bin.dat"], { path: "bin.dat" }, "BINARY_NOT_SUPPORTED", message);
      }
    }));

  test("NUL in a tiny file → BINARY_NOT_SUPPORTED", () =>
    withWorkspace(async (ws) => {
      ws.put("zero", Buffer.from([0x61, 0x00]));
      await assertReadError(ws, ["zero"], { path: "zero" }, "BINARY_NOT_SUPPORTED", `BINARY_NOT_SUPPORTED: binary file is not supported: ${ws.abs("zero")}`);
    }));

  // Windows reports a missing path (ERROR_PATH_NOT_FOUND, ENOENT in Node) where POSIX says ENOTDIR.
  test("a regular file used as a directory → INTERNAL ENOTDIR (NOT_FOUND on Windows)", () =>
    withWorkspace(async (ws) => {
      ws.put("a.txt", "x");
      const abs = ws.abs("a.txt/x");
      if (process.platform === "win32") {
        await assertReadError(ws, ["a.txt/x"], { path: "a.txt/x" }, "NOT_FOUND", `NOT_FOUND: path not found: ${abs}`);
      } else {
        await assertReadError(ws, ["a.txt/x"], { path: "a.txt/x" }, "INTERNAL", `INTERNAL: ENOTDIR: not a directory, lstat '${abs}'`);
      }
    }));

  test("a NUL byte in the path → INTERNAL", () =>
    withWorkspace(async (ws) => {
      const result = await ws.toolkit.tools.read_file("a\0b");
      assert.equal(result.status, "failure");
      assert.equal(result.error.code, "RUNTIME_ERROR");
      assert.match(result.message, /^INTERNAL: .*null bytes/);
      const err = await rejection(ws.toolkit.invoke("read_file", { path: "a\0b" }));
      assert.equal(err.name, "ReadFileError");
      assert.equal(err.code, "INTERNAL");
      assert.match(err.message, /^INTERNAL: .*null bytes/);
    }));
});

// ---- sandbox, policy and the raw handler -------------------------------------------------------

describe("read_file: sandbox and raw handler", () => {
  test("a symlink to a directory outside is denied (deliberate deviation: upstream reads /etc/hostname)", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace(async (ws) => {
      fs.symlinkSync("/etc", ws.abs("etclink"));
      const message = '[Sandbox Violation] Attempted to access path outside of workspace: "etclink/hostname"';
      assert.deepStrictEqual(await ws.toolkit.tools.read_file("etclink/hostname"), sandboxDenied(message));
      const err = await rejection(ws.toolkit.invoke("read_file", { path: "etclink/hostname" }));
      assert.ok(err instanceof Error);
      assert.equal(err.name, "Error");
      assert.equal(err.message, message);
    }));

  test("a symlinked directory pointing outside with a missing file is denied too", onlyOn(["unix"], NEEDS.symlinks), () =>
    withWorkspace(async (ws) => {
      const outside = ws.outsideDir();
      fs.writeFileSync(path.join(outside, "secret.txt"), "SECRET");
      fs.symlinkSync(outside, ws.abs("out"));
      for (const p of ["out/secret.txt", "out/missing.txt"]) {
        const message = `[Sandbox Violation] Attempted to access path outside of workspace: "${p}"`;
        assert.deepStrictEqual(await ws.toolkit.tools.read_file(p), sandboxDenied(message));
        assert.match((await rejection(ws.toolkit.invoke("read_file", { path: p }))).message, /^\[Sandbox Violation\] Attempted to access path outside of workspace/);
      }
    }));

  test("the raw handler applies no policy", () =>
    withWorkspace(
      async (ws) => {
        const file = ws.put("f.txt", "raw");
        assert.equal((await ws.toolkit.tools.read_file("f.txt")).status, "denied");
        const data = await ToolCatalog.read_file.handler(ws.context, file, { start_line: 1, max_lines: 5 });
        assert.equal(data.content, "raw");
        assert.equal(data.path, "f.txt");
      },
      { policy: { tools: {}, defaultPolicy: "deny" } },
    ));

  test("read-only write scope does not block read_file", () =>
    withWorkspace(
      async (ws) => {
        ws.put("f.txt", "ro");
        assert.equal((await wrapperRead(ws, "f.txt")).content, "ro");
        assert.equal((await invokeRead(ws, { path: "f.txt" })).content, "ro");
      },
      { writeScope: "read-only" },
    ));
});
