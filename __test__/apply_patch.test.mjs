// apply_patch through toolkit.tools, invoke and the raw handler: upstream's examples,
// validation, limits and error codes, and the fixed behaviour (docs/compat.md, "apply_patch
// applies the patch in-process"): the patch really is
// applied to filePath, like `git apply --whitespace=fix --include <path>` at the workspace root,
// in process (no git needed), atomically.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ToolCatalog } from "agent-tools-native";
import { workspace, rejection, failureResult, assertToolError, onlyOn, NEEDS } from "./helpers.mjs";

const TARGET = "src/main.ts";
const HEADERS = "--- a/src/main.ts\n+++ b/src/main.ts\n";
const OLD_TO_NEW = `${HEADERS}@@ -1 +1 @@\n-old\n+new\n`;

/** A workspace with src/main.ts; `run` resets the file, then calls through one front door. */
function fixture(content = "old\n") {
  const ws = workspace();
  const file = path.join(ws.root, TARGET);
  fs.writeFileSync(file, content);
  const reset = () => fs.writeFileSync(file, content);
  const viaTools = async (patch, filePath = TARGET) => {
    reset();
    return ws.toolkit.tools.apply_patch(filePath, patch);
  };
  const viaInvoke = async (patch, filePath = TARGET) => {
    reset();
    try {
      return { resolved: await ws.toolkit.invoke("apply_patch", { filePath, patch }) };
    } catch (error) {
      return { rejected: error };
    }
  };
  const read = () => fs.readFileSync(file, "utf8");
  return { ...ws, file, viaTools, viaInvoke, read };
}

/** Asserts a success with `data` through both doors, and the file content after each. */
async function assertSuccess(fx, patch, data, after) {
  const wrapped = await fx.viaTools(patch);
  assert.deepEqual(wrapped, { status: "success", data });
  assert.deepEqual(Object.keys(wrapped.data), ["file_path", "exit_code", "changed", "stderr"]);
  assert.equal(fx.read(), after);
  const invoked = await fx.viaInvoke(patch);
  assert.deepEqual(invoked.resolved, { role: "function", name: "apply_patch", content: data });
  assert.equal(fx.read(), after);
}

/** Asserts the same ApplyPatchError through both doors and that the file is unchanged. */
async function assertFailure(fx, patch, code, message, filePath = TARGET) {
  const before = fx.read();
  assert.deepEqual(await fx.viaTools(patch, filePath), failureResult(message));
  assert.equal(fx.read(), before);
  const { rejected } = await fx.viaInvoke(patch, filePath);
  // apply_patch messages carry no code prefix
  assertToolError(rejected, "ApplyPatchError", code, message);
  assert.equal(fx.read(), before);
}

const success = (fx, changed, stderr = "") => ({ file_path: fx.file, exit_code: 0, changed, stderr });

describe("apply_patch: upstream's examples, now applied (docs/compat.md)", () => {
  test("only a hunk, no headers (upstream README example) → exit 128, unchanged", async () => {
    const fx = fixture();
    try {
      await assertFailure(fx, "@@ -1 +1 @@\n-old\n+new\n", "APPLY_FAILED",
        "git apply failed with exit code 128: error: patch fragment without header at line 1: @@ -1 +1 @@");
    } finally {
      fx.cleanup();
    }
  });

  test("--- a/ +++ b/ headers, diff --git line, or no prefixes: the file is patched", async () => {
    const fx = fixture();
    try {
      for (const patch of [
        OLD_TO_NEW,
        `diff --git a/src/main.ts b/src/main.ts\n${OLD_TO_NEW}`,
        "diff --git a/src/main.ts b/src/main.ts\nindex 3367afd..3e75765 100644\n" + OLD_TO_NEW,
        "--- src/main.ts\n+++ src/main.ts\n@@ -1 +1 @@\n-old\n+new\n",
        "diff --git src/main.ts src/main.ts\n--- src/main.ts\n+++ src/main.ts\n@@ -1 +1 @@\n-old\n+new\n",
      ]) {
        await assertSuccess(fx, patch, success(fx, true), "new\n");
      }
    } finally {
      fx.cleanup();
    }
  });

  test("context that does not match → APPLY_FAILED with git's exit code 1 and stderr", async () => {
    const fx = fixture("a\nb\nc\n");
    try {
      await assertFailure(fx, `${HEADERS}@@ -1,3 +1,3 @@\n a\n-X\n+B\n c\n`, "APPLY_FAILED",
        "git apply failed with exit code 1: error: patch failed: src/main.ts:1\nerror: src/main.ts: patch does not apply");
    } finally {
      fx.cleanup();
    }
  });

  test("a patch for a different file is skipped: success, unchanged", async () => {
    const fx = fixture();
    try {
      await assertSuccess(fx, "--- a/src/other.ts\n+++ b/src/other.ts\n@@ -1 +1 @@\n-old\n+new\n",
        success(fx, false), "old\n");
    } finally {
      fx.cleanup();
    }
  });

  test("headers with the absolute path → exit 128 invalid path", async () => {
    const fx = fixture();
    try {
      const abs = fx.file;
      await assertFailure(fx, `--- a/${abs}\n+++ b/${abs}\n@@ -1 +1 @@\n-old\n+new\n`, "APPLY_FAILED",
        `git apply failed with exit code 128: error: invalid path '${abs}'`);
    } finally {
      fx.cleanup();
    }
  });

  test("empty patch → exit 128 No valid patches", async () => {
    const fx = fixture();
    try {
      await assertFailure(fx, "", "APPLY_FAILED",
        'git apply failed with exit code 128: error: No valid patches in input (allow with "--allow-empty")');
    } finally {
      fx.cleanup();
    }
  });

  test("a directory as filePath → NOT_FOUND", async () => {
    const fx = fixture();
    try {
      await assertFailure(fx, OLD_TO_NEW, "NOT_FOUND", `file not found: ${path.join(fx.root, "src")}`, "src");
    } finally {
      fx.cleanup();
    }
  });

  test("a symlink to a file outside the workspace is refused by the sandbox (docs/compat.md)", onlyOn(["unix"], NEEDS.symlinks), async () => {
    const fx = fixture();
    try {
      fs.symlinkSync(path.join(fx.outside, "canary.txt"), path.join(fx.root, "flink"));
      const patch = "--- a/flink\n+++ b/flink\n@@ -1 +1 @@\n-CANARY\n\\ No newline at end of file\n+PWNED\n";
      const wrapped = await fx.toolkit.tools.apply_patch("flink", patch);
      assert.equal(wrapped.status, "denied");
      assert.equal(wrapped.error.code, "SANDBOX_VIOLATION");
      const err = await rejection(fx.toolkit.invoke("apply_patch", { filePath: "flink", patch }));
      assert.equal(err.message, '[Sandbox Violation] Attempted to access path outside of workspace: "flink"');
      assert.equal(fs.readFileSync(path.join(fx.outside, "canary.txt"), "utf8"), "CANARY");
    } finally {
      fx.cleanup();
    }
  });
});

describe("apply_patch: validation, limits, error codes", () => {
  test("filePath must be a non-empty string; patch must be a string", async () => {
    const fx = fixture();
    try {
      for (const filePath of [undefined, 5, null]) {
        const err = await rejection(fx.toolkit.invoke("apply_patch", { filePath, patch: OLD_TO_NEW }));
        assert.equal(err.name, "ApplyPatchError");
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.equal(err.message, "filePath must be a non-empty string");
        // the wrapper refuses a path argument that is neither a string nor an object itself; an
        // undefined one is an omitted argument, which the tool's validation answers
        const wrapped = await fx.toolkit.tools.apply_patch(filePath, OLD_TO_NEW);
        assert.equal(wrapped.message, filePath === undefined ? "filePath must be a non-empty string" : "Invalid path argument");
      }
      for (const filePath of ["", "   "]) {
        const err = await rejection(ToolCatalog.apply_patch.handler(fx.context, filePath, OLD_TO_NEW));
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.equal(err.message, "filePath must be a non-empty string");
      }
      for (const patch of [undefined, null, 42, { a: 1 }]) {
        const err = await rejection(fx.toolkit.invoke("apply_patch", { filePath: TARGET, patch }));
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.equal(err.message, "patch must be a string");
        const wrapped = await fx.toolkit.tools.apply_patch(TARGET, patch);
        assert.equal(wrapped.status, "failure");
        assert.equal(wrapped.message, "patch must be a string");
      }
      // the argument check comes before the existence check
      const err = await rejection(fx.toolkit.invoke("apply_patch", { filePath: "missing.ts", patch: 1 }));
      assert.equal(err.message, "patch must be a string");
      assert.equal(fx.read(), "old\n");
    } finally {
      fx.cleanup();
    }
  });

  test("missing file → NOT_FOUND with the absolute path", async () => {
    const fx = fixture();
    try {
      await assertFailure(fx, OLD_TO_NEW, "NOT_FOUND", `file not found: ${path.join(fx.root, "src/missing.ts")}`, "src/missing.ts");
      assert.equal(fs.existsSync(path.join(fx.root, "src/missing.ts")), false);
    } finally {
      fx.cleanup();
    }
  });

  test("FILE_TOO_LARGE above 10 MiB, with the size in MiB to two decimals", async () => {
    const fx = fixture();
    try {
      const big = path.join(fx.root, "big.txt");
      const patch = "--- a/big.txt\n+++ b/big.txt\n@@ -1 +1 @@\n-old\n+new\n";
      fs.writeFileSync(big, "");
      fs.truncateSync(big, 10 * 1024 * 1024);
      const exact = await rejection(fx.toolkit.invoke("apply_patch", { filePath: "big.txt", patch }));
      assert.equal(exact.code, "APPLY_FAILED", "exactly 10 MiB passes the size check");
      for (const [size, shown] of [[10 * 1024 * 1024 + 1, "10.00"], [15 * 1024 * 1024 + 123456, "15.12"]]) {
        fs.truncateSync(big, size);
        const err = await rejection(fx.toolkit.invoke("apply_patch", { filePath: "big.txt", patch }));
        assert.equal(err.code, "FILE_TOO_LARGE");
        assert.equal(err.message, `file size exceeds the 10 MB limit (actual: ${shown})`);
        const wrapped = await fx.toolkit.tools.apply_patch("big.txt", patch);
        assert.equal(wrapped.error.code, "RUNTIME_ERROR");
        assert.equal(wrapped.message, `file size exceeds the 10 MB limit (actual: ${shown})`);
      }
    } finally {
      fx.cleanup();
    }
  });

  test("a NUL byte in the path → INTERNAL with Node's message", async () => {
    const fx = fixture();
    try {
      const err = await rejection(ToolCatalog.apply_patch.handler(fx.context, "/ws/a\0b", OLD_TO_NEW));
      assert.equal(err.code, "INTERNAL");
      assert.equal(err.message, 'The argument \'path\' must be a string, Uint8Array, or URL without null bytes. Received "/ws/a\\u0000b"');
    } finally {
      fx.cleanup();
    }
  });

  test("read-only write scope denies it (isWriteOp)", async () => {
    const ws = workspace(undefined, "read-only");
    try {
      fs.writeFileSync(path.join(ws.root, TARGET), "old\n");
      assert.equal((await ws.toolkit.tools.apply_patch(TARGET, OLD_TO_NEW)).reason, "sandbox");
      const err = await rejection(ws.toolkit.invoke("apply_patch", { filePath: TARGET, patch: OLD_TO_NEW }));
      assert.equal(err.code, "TOOL_NOT_ALLOWED");
      assert.equal(fs.readFileSync(path.join(ws.root, TARGET), "utf8"), "old\n");
    } finally {
      ws.cleanup();
    }
  });

  test("the raw handler applies too and echoes the path it was given", async () => {
    const fx = fixture();
    try {
      const out = await ToolCatalog.apply_patch.handler(fx.context, fx.file, OLD_TO_NEW);
      assert.deepEqual(out, success(fx, true));
      assert.equal(fx.read(), "new\n");
    } finally {
      fx.cleanup();
    }
  });
});

describe("apply_patch: git apply semantics", () => {
  test("only the target's sections of a multi-file patch apply; other files are untouched", async () => {
    const fx = fixture("a\nb\n");
    try {
      const other = path.join(fx.root, "src/other.ts");
      fs.writeFileSync(other, "a\nb\n");
      const patch =
        "diff --git a/src/other.ts b/src/other.ts\n--- a/src/other.ts\n+++ b/src/other.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+OTHER\n" +
        "diff --git a/src/main.ts b/src/main.ts\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+MAIN\n";
      await assertSuccess(fx, patch, success(fx, true), "a\nMAIN\n");
      assert.equal(fs.readFileSync(other, "utf8"), "a\nb\n");
    } finally {
      fx.cleanup();
    }
  });

  test("--whitespace=fix: trailing whitespace and space before tab are fixed on added lines", async () => {
    const fx = fixture("a\n");
    try {
      const patch = `${HEADERS}@@ -1 +1,3 @@\n a\n+b  \n+ \tc\n`;
      const stderr = "<stdin>:5: trailing whitespace.\nb  \n<stdin>:6: space before tab in indent.\n \tc\n" +
        "warning: 2 lines applied after fixing whitespace errors.";
      await assertSuccess(fx, patch, success(fx, true, stderr), "a\nb\n\tc\n");
      // new blank lines at the end of the file are dropped
      const blank = `${HEADERS}@@ -1 +1,3 @@\n a\n+b\n+\n`;
      await assertSuccess(fx, blank, success(fx, true, "<stdin>:6: new blank line at EOF.\n+\nwarning: 1 line adds whitespace errors."), "a\nb\n");
    } finally {
      fx.cleanup();
    }
  });

  test("CRLF lines and a missing final newline are kept", async () => {
    const crlf = fixture("a\r\nb\r\nc\r\n");
    const nonl = fixture("a\nb");
    try {
      await assertSuccess(crlf, `${HEADERS}@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n`, success(crlf, true), "a\r\nB\r\nc\r\n");
      await assertSuccess(nonl, `${HEADERS}@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n`,
        success(nonl, true), "a\nB");
    } finally {
      crlf.cleanup();
      nonl.cleanup();
    }
  });

  test("hunks move to where their context is; several hunks apply in one go", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const fx = fixture(["added", "above", ...lines].join("\n") + "\n");
    try {
      const patch = `${HEADERS}@@ -4,3 +4,3 @@\n line 4\n-line 5\n+LINE 5\n line 6\n@@ -15,3 +15,3 @@\n line 15\n-line 16\n+LINE 16\n line 17\n`;
      const expected = ["added", "above", ...lines.map((l) => (l === "line 5" || l === "line 16" ? l.toUpperCase() : l))].join("\n") + "\n";
      await assertSuccess(fx, patch, success(fx, true), expected);
    } finally {
      fx.cleanup();
    }
  });

  test("creation of an existing file fails; a deletion removes the file", async () => {
    const fx = fixture("a\n");
    try {
      const create = "diff --git a/src/main.ts b/src/main.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/main.ts\n@@ -0,0 +1 @@\n+a\n";
      await assertFailure(fx, create, "APPLY_FAILED", "git apply failed with exit code 1: error: src/main.ts: already exists in working directory");
      const del = "diff --git a/src/main.ts b/src/main.ts\ndeleted file mode 100644\n--- a/src/main.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n";
      assert.deepEqual(await fx.viaTools(del), { status: "success", data: success(fx, true) });
      assert.equal(fs.existsSync(fx.file), false);
    } finally {
      fx.cleanup();
    }
  });

  test("no git is needed: it works with an empty PATH", async () => {
    const fx = fixture();
    const saved = process.env.PATH;
    try {
      process.env.PATH = "/nonexistent";
      assert.deepEqual(await fx.viaTools(OLD_TO_NEW), { status: "success", data: success(fx, true) });
      assert.equal(fx.read(), "new\n");
    } finally {
      process.env.PATH = saved;
      fx.cleanup();
    }
  });
});

describe("apply_patch: atomic replacement", () => {
  test("the mode is kept, the file is replaced by rename, no temporary file is left", onlyOn(["unix"], NEEDS.modes), async () => {
    const fx = fixture();
    try {
      fs.chmodSync(fx.file, 0o750);
      const inode = fs.statSync(fx.file).ino;
      const out = await fx.toolkit.invoke("apply_patch", { filePath: TARGET, patch: OLD_TO_NEW });
      assert.equal(out.content.changed, true);
      const after = fs.statSync(fx.file);
      assert.equal(after.mode & 0o777, 0o750);
      assert.notEqual(after.ino, inode, "the new content arrived by rename");
      assert.deepEqual(fs.readdirSync(path.join(fx.root, "src")), ["main.ts"]);
    } finally {
      fx.cleanup();
    }
  });

  test("on failure the file is byte-for-byte untouched (not even rewritten)", async () => {
    const original = Buffer.from([0x61, 0x0d, 0x0a, 0x62, 0xff, 0x0a, 0x63, 0x0a]);
    const fx = fixture(original);
    try {
      const stat = fs.statSync(fx.file);
      // the first hunk would apply, the second does not: nothing is written
      const patch = `${HEADERS}@@ -1 +1 @@\n-a\r\n+A\r\n@@ -3 +3 @@\n-x\n+y\n`;
      const err = await rejection(fx.toolkit.invoke("apply_patch", { filePath: TARGET, patch }));
      assert.equal(err.code, "APPLY_FAILED");
      assert.deepEqual(fs.readFileSync(fx.file), original);
      const after = fs.statSync(fx.file);
      assert.equal(after.ino, stat.ino);
      assert.equal(after.mtimeMs, stat.mtimeMs);
      assert.deepEqual(fs.readdirSync(path.join(fx.root, "src")), ["main.ts"]);
    } finally {
      fx.cleanup();
    }
  });

  test("through a symlink inside the workspace the link's target is patched, the link stays", onlyOn(["unix"], NEEDS.symlinks), async () => {
    const fx = fixture();
    try {
      fs.symlinkSync("main.ts", path.join(fx.root, "src/link.ts"));
      const patch = "--- a/src/link.ts\n+++ b/src/link.ts\n@@ -1 +1 @@\n-old\n+new\n";
      const out = await fx.toolkit.tools.apply_patch("src/link.ts", patch);
      assert.equal(out.data.changed, true);
      assert.equal(fx.read(), "new\n");
      assert.ok(fs.lstatSync(path.join(fx.root, "src/link.ts")).isSymbolicLink());
    } finally {
      fx.cleanup();
    }
  });
});
