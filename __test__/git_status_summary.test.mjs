// git_status_summary (docs/tools/git_status_summary.md, and its entries in docs/compat.md)
// through invoke, the secure wrapper and the raw handler, on real git repositories.
import { test, describe, before, after } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { ToolCatalog } from "agent-tools-native";
import { workspace, rejection, onlyOn, notUnderWine, WINE } from "./helpers.mjs";

// git must not find a repository above the temporary directories (the child gets process.env).
let savedCeiling;
before(() => {
  savedCeiling = process.env.GIT_CEILING_DIRECTORIES;
  process.env.GIT_CEILING_DIRECTORIES = fs.realpathSync(os.tmpdir());
});
after(() => {
  if (savedCeiling === undefined) delete process.env.GIT_CEILING_DIRECTORIES;
  else process.env.GIT_CEILING_DIRECTORIES = savedCeiling;
});

function git(cwd, ...args) {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** `git init -b main` in `dir` with a local identity. */
function initRepo(dir) {
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.name", "Test");
  git(dir, "config", "user.email", "test@example.com");
}

/** A workspace whose root is a fresh repository holding untracked `a.txt` and `sub/b.txt`. */
async function withRepo(fn) {
  const ws = workspace();
  try {
    initRepo(ws.root);
    fs.writeFileSync(path.join(ws.root, "a.txt"), "a\n");
    fs.mkdirSync(path.join(ws.root, "sub"));
    fs.writeFileSync(path.join(ws.root, "sub", "b.txt"), "b\n");
    await fn(ws);
  } finally {
    ws.cleanup();
  }
}

/** Output through `tools.git_status_summary(...args)`, expecting success. */
async function viaWrapper(ws, ...args) {
  const result = await ws.toolkit.tools.git_status_summary(...args);
  assert.equal(result.status, "success", JSON.stringify(result));
  assert.deepEqual(Object.keys(result.data), ["repository_root", "branch", "raw"]);
  return result.data;
}

/** Output through `invoke("git_status_summary", args)`. */
async function viaInvoke(ws, args) {
  const out = await ws.toolkit.invoke("git_status_summary", args);
  assert.deepEqual(Object.keys(out), ["role", "name", "content"]);
  assert.equal(out.name, "git_status_summary");
  assert.deepEqual(Object.keys(out.content), ["repository_root", "branch", "raw"]);
  return out.content;
}

/** The same output for `cwd` through the wrapper and invoke (`undefined` = omitted). */
async function viaBoth(ws, cwd) {
  const wrapped = cwd === undefined ? await viaWrapper(ws) : await viaWrapper(ws, cwd);
  const invoked = await viaInvoke(ws, cwd === undefined ? {} : { cwd });
  assert.deepEqual(invoked, wrapped);
  return wrapped;
}

/** The same tool error through invoke and the wrapper. */
async function assertError(ws, cwd, code, message) {
  const err = await rejection(ws.toolkit.invoke("git_status_summary", cwd === undefined ? {} : { cwd }));
  assert.equal(err.name, "GitStatusSummaryError");
  assert.equal(err.code, code);
  assert.equal(err.message, message);
  const result = cwd === undefined ? await ws.toolkit.tools.git_status_summary() : await ws.toolkit.tools.git_status_summary(cwd);
  assert.deepEqual(result, {
    status: "failure",
    reason: "runtime",
    message,
    error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} },
  });
}

/** Runs `fn` with `process.env` changed by `vars` (`undefined` deletes), restoring it after. */
async function withEnv(vars, fn) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    await fn();
  } finally {
    apply(saved);
  }
}

describe("git_status_summary: repository states", notUnderWine(WINE.git), () => {
  test("unborn branch: No commits yet", async () => {
    await withRepo(async (ws) => {
      const out = await viaBoth(ws, undefined);
      assert.deepEqual(out, {
        repository_root: ws.root,
        branch: "main",
        raw: "## No commits yet on main\n?? a.txt\n?? sub/\n",
      });
      assert.equal(JSON.stringify(out), JSON.stringify({ repository_root: ws.root, branch: "main", raw: out.raw }));
    });
  });

  test("after a commit, from the root or any sub-directory, / or \\ separated", async () => {
    await withRepo(async (ws) => {
      git(ws.root, "add", "a.txt");
      git(ws.root, "commit", "-q", "-m", "one");
      const want = { repository_root: ws.root, branch: "main", raw: "## main\n?? sub/\n" };
      for (const cwd of [undefined, ".", "", "sub", "sub\\", "sub/", "./sub/../sub", ws.root]) {
        assert.deepEqual(await viaBoth(ws, cwd), want, String(cwd));
      }
    });
  });

  test("src/tools and src\\tools resolve to the same directory", async () => {
    await withRepo(async (ws) => {
      fs.mkdirSync(path.join(ws.root, "src", "tools"));
      const slash = await viaBoth(ws, "src/tools");
      const backslash = await viaBoth(ws, "src\\tools");
      assert.deepEqual(backslash, slash);
      assert.equal(slash.repository_root, ws.root);
    });
  });

  test("detached HEAD: branch null", async () => {
    await withRepo(async (ws) => {
      git(ws.root, "add", ".");
      git(ws.root, "commit", "-q", "-m", "one");
      git(ws.root, "checkout", "-q", "--detach");
      const out = await viaBoth(ws, undefined);
      assert.equal(out.branch, null);
      assert.ok(out.raw.startsWith("## HEAD (no branch)"), out.raw);
    });
  });

  test("a clone one commit ahead of its upstream", async () => {
    await withRepo(async (origin) => {
      git(origin.root, "add", ".");
      git(origin.root, "commit", "-q", "-m", "one");
      const ws = workspace();
      try {
        fs.rmSync(ws.root, { recursive: true });
        git(path.dirname(ws.root), "clone", "-q", origin.root, ws.root);
        git(ws.root, "config", "user.name", "Test");
        git(ws.root, "config", "user.email", "test@example.com");
        fs.writeFileSync(path.join(ws.root, "c.txt"), "c\n");
        git(ws.root, "add", "c.txt");
        git(ws.root, "commit", "-q", "-m", "two");
        const out = await viaBoth(ws, undefined);
        assert.deepEqual(out, { repository_root: ws.root, branch: "main", raw: "## main...origin/main [ahead 1]\n" });
      } finally {
        ws.cleanup();
      }
    });
  });

  test("a feature branch with a slash and non-ASCII file names unquoted (core.quotePath=false)", async () => {
    await withRepo(async (ws) => {
      git(ws.root, "checkout", "-q", "-b", "feature/example");
      fs.writeFileSync(path.join(ws.root, "é😀.txt"), "x");
      const out = await viaBoth(ws, undefined);
      assert.equal(out.branch, "feature/example");
      assert.equal(out.raw, "## No commits yet on feature/example\n?? a.txt\n?? sub/\n?? é😀.txt\n");
    });
  });

  test("a workspace inside a larger repository: refused, git would use a directory outside it", async () => {
    await withRepo(async (outer) => {
      const inner = path.join(outer.root, "sub");
      const { createToolContext, createAgentToolkit } = await import("agent-tools-native");
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: inner, policy: outer.context.policy }));
      const message = '[Sandbox Violation] Attempted to access path outside of workspace: "the repository holding the workspace"';
      const wrapped = await toolkit.tools.git_status_summary();
      assert.equal(wrapped.status, "denied");
      assert.equal(wrapped.error.code, "SANDBOX_VIOLATION");
      assert.equal(wrapped.message, message);
      const err = await rejection(toolkit.invoke("git_status_summary", {}));
      assert.equal(err.message, message);
    });
  });

  test("the host's GIT_* variables never reach git", async () => {
    await withRepo(async (ws) => {
      const other = path.join(ws.outside, "other");
      fs.mkdirSync(other);
      initRepo(other);
      git(other, "checkout", "-q", "-b", "other-branch");
      fs.writeFileSync(path.join(other, "outside-file.txt"), "x");
      const vars = { GIT_DIR: path.join(other, ".git"), GIT_WORK_TREE: other, GIT_INDEX_FILE: path.join(other, ".git", "index"), GIT_CONFIG_PARAMETERS: "'status.showuntrackedfiles'='all'" };
      await withEnv(vars, async () => {
        assert.deepEqual(await viaBoth(ws, undefined), {
          repository_root: ws.root,
          branch: "main",
          raw: "## No commits yet on main\n?? a.txt\n?? sub/\n",
        });
      });
    });
  });

  test("a linked work tree and the user's settings the repository keeps (autocrlf, untracked files) are honoured", async () => {
    await withRepo(async (ws) => {
      git(ws.root, "add", ".");
      git(ws.root, "commit", "-q", "-m", "one");
      git(ws.root, "worktree", "add", "-q", "wt", "-b", "feature");
      git(ws.root, "config", "status.showUntrackedFiles", "all");
      fs.mkdirSync(path.join(ws.root, "wt", "new"));
      fs.writeFileSync(path.join(ws.root, "wt", "new", "n.txt"), "n");
      const out = await viaBoth(ws, "wt");
      assert.deepEqual(out, { repository_root: path.join(ws.root, "wt"), branch: "feature", raw: "## feature\n?? new/n.txt\n" });
    });
  });
});

describe("git_status_summary: errors", notUnderWine(WINE.git), () => {
  test("a file, a missing or a blank-named directory: NOT_DIRECTORY", async () => {
    await withRepo(async (ws) => {
      for (const cwd of ["a.txt", "missing", "  "]) {
        await assertError(ws, cwd, "NOT_DIRECTORY", `NOT_DIRECTORY: cwd is not a directory: ${path.join(ws.root, cwd)}`);
      }
      // A drive path is relative on POSIX and lands in the workspace (kept, docs/compat.md).
      await assertError(ws, "C:\\work", "NOT_DIRECTORY", `NOT_DIRECTORY: cwd is not a directory: ${path.join(ws.root, "C:/work")}`);
    });
  });

  test("a directory outside any repository: NOT_GIT_REPOSITORY", async () => {
    const ws = workspace();
    try {
      await assertError(ws, undefined, "NOT_GIT_REPOSITORY", `NOT_GIT_REPOSITORY: not a git repository: ${ws.root}`);
      await assertError(ws, "src", "NOT_GIT_REPOSITORY", `NOT_GIT_REPOSITORY: not a git repository: ${path.join(ws.root, "src")}`);
    } finally {
      ws.cleanup();
    }
  });

  test("bad cwd types: Invalid path argument (wrapper) / INVALID_ARGUMENT (invoke)", async () => {
    await withRepo(async (ws) => {
      const wrapped = await ws.toolkit.tools.git_status_summary(5);
      assert.equal(wrapped.status, "failure");
      assert.equal(wrapped.message, "Invalid path argument");
      for (const cwd of [5, null, true]) {
        const err = await rejection(ws.toolkit.invoke("git_status_summary", { cwd }));
        assert.equal(err.name, "GitStatusSummaryError");
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.equal(err.message, "INVALID_ARGUMENT: cwd must be a non-empty string");
      }
      // an explicit undefined is the same as no argument (docs/compat.md)
      assert.equal((await ws.toolkit.tools.git_status_summary(undefined)).status, "success");
    });
  });

  test("outside the workspace: denied by the sandbox", async () => {
    await withRepo(async (ws) => {
      const wrapped = await ws.toolkit.tools.git_status_summary("..");
      assert.equal(wrapped.status, "denied");
      assert.equal(wrapped.message, '[Sandbox Violation] Attempted to access path outside of workspace: ".."');
      const err = await rejection(ws.toolkit.invoke("git_status_summary", { cwd: "..\\x" }));
      assert.equal(err.message, '[Sandbox Violation] Attempted to access path outside of workspace: "../x"');
    });
  });

  test("git missing from PATH: exec_command's error double-prefixed (kept, docs/compat.md)", async () => {
    await withRepo(async (ws) => {
      await withEnv({ PATH: path.join(ws.base, "no-bin") }, async () => {
        await assertError(ws, undefined, "INTERNAL", "INTERNAL: COMMAND_NOT_FOUND: command not found: git");
      });
    });
  });

  test("other git failures: INTERNAL with git's message", async () => {
    await withRepo(async (ws) => {
      // Inside .git there is no work tree: rev-parse --show-toplevel fails differently.
      const err = await rejection(ws.toolkit.invoke("git_status_summary", { cwd: ".git" }));
      assert.equal(err.code, "INTERNAL");
      assert.match(err.message, /^INTERNAL: failed to resolve repository root: fatal: /);
    });
  });

  test("git runs with LC_ALL=C and without LANGUAGE (docs/compat.md)", onlyOn(["unix"], "runs #!/bin/sh scripts as a stand-in git"), async () => {
    await withRepo(async (ws) => {
      // A stand-in git that answers in German unless the C locale is forced.
      const bin = path.join(ws.base, "fakebin");
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, "git"), [
        "#!/bin/sh",
        'if [ "$LC_ALL" = C ] && [ -z "${LANGUAGE+set}" ]; then',
        "  echo 'fatal: not a git repository (or any of the parent directories): .git' >&2",
        "else",
        "  echo 'fatal: Kein Git-Repository (oder irgendeines der Elternverzeichnisse): .git' >&2",
        "fi",
        "exit 128",
        "",
      ].join("\n"), { mode: 0o755 });
      await withEnv({ PATH: `${bin}:${process.env.PATH}`, LC_ALL: "de_DE.UTF-8", LANGUAGE: "de" }, async () => {
        await assertError(ws, undefined, "NOT_GIT_REPOSITORY", `NOT_GIT_REPOSITORY: not a git repository: ${ws.root}`);
      });
    });
  });

  test("a failing status run uses its own INTERNAL prefix; blank stderr leaves the prefix alone", onlyOn(["unix"], "runs #!/bin/sh scripts as a stand-in git"), async () => {
    await withRepo(async (ws) => {
      const bin = path.join(ws.base, "fakebin");
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, "git"), [
        "#!/bin/sh",
        'if [ "$1" = rev-parse ]; then pwd; exit 0; fi',
        "exit 1",
        "",
      ].join("\n"), { mode: 0o755 });
      await withEnv({ PATH: bin }, async () => {
        await assertError(ws, undefined, "INTERNAL", "INTERNAL: failed to get git status");
      });
    });
  });
});

describe("git_status_summary: raw handler", notUnderWine(WINE.git), () => {
  test("upstream tests: drive paths, escapes and blanks", async () => {
    await withRepo(async (ws) => {
      const handler = ToolCatalog.git_status_summary.handler;
      const drive = await rejection(handler(ws.context, "C:\\work"));
      assert.equal(drive.name, "GitStatusSummaryError");
      assert.equal(drive.code, "INVALID_ARGUMENT");
      assert.equal(drive.message, "INVALID_ARGUMENT: cwd must not be an absolute Windows drive path");
      const escape = await rejection(handler(ws.context, ".."));
      assert.equal(escape.code, "INTERNAL");
      assert.equal(escape.message, 'INTERNAL: [Sandbox Violation] Attempted to access path outside of workspace: ".."');
      const blank = await rejection(handler(ws.context, " "));
      assert.equal(blank.message, "INVALID_ARGUMENT: cwd must be a non-empty string");
    });
  });

  test("no argument or a relative path: resolved against the workspace root", async () => {
    await withRepo(async (ws) => {
      const handler = ToolCatalog.git_status_summary.handler;
      const root = await handler(ws.context);
      assert.deepEqual(root, { repository_root: ws.root, branch: "main", raw: "## No commits yet on main\n?? a.txt\n?? sub/\n" });
      assert.deepEqual(await handler(ws.context, "sub"), root);
      assert.deepEqual(await handler(ws.context, "."), root);
    });
  });
});
