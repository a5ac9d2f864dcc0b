// Child process of git_attacks.test.mjs, started with AGENT_TOOLS_NATIVE_TEST_HOOKS=1. For each
// attack on git_status_summary it builds a repository whose files name a program (the setup a
// model could write with write_file), calls the tool and reports whether the program ran and
// whether anything from outside the workspace reached the result. argv[2]: "landlock" or
// "no-landlock" (the test hook hides Landlock, as on an old kernel or macOS and Windows).
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { createToolContext, createAgentToolkit } from "agent-tools-native";
import { tempDir, ALLOW_ALL } from "./helpers.mjs";

const native = createRequire(import.meta.url)("../binding.js");
native.debugSimulateNoLandlock(process.argv[2] === "no-landlock");

const SECRET = "SECRET-OUTSIDE-4711";
const policy = { tools: { git_status_summary: "allow", write_file: "allow" }, defaultPolicy: "deny" };

const git = (cwd, ...args) => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const pad = (n) => `[filter "${n}${"p".repeat(100_000)}"]\n\tclean = cat\n`;

/** name → setup(ws, evil, outside), run with the model's write_file where it can be. */
const VECTORS = {
  fsmonitor: (ws, evil) => git(ws, "config", "core.fsmonitor", evil),
  "clean filter after 200 KB of padding": async (ws, evil, _outside, write) => {
    fs.appendFileSync(path.join(ws, ".git", "config"), pad(1) + pad(2));
    git(ws, "config", "filter.evil.clean", evil);
    await write(".gitattributes", "*.txt filter=evil\n");
  },
  "process filter, required": async (ws, evil, _outside, write) => {
    git(ws, "config", "filter.long.process", evil);
    git(ws, "config", "filter.long.required", "true");
    await write(".git/info/attributes", "*.txt filter=long\n");
  },
  "hooks path": (ws, evil) => {
    fs.mkdirSync(path.join(ws, "hooks"));
    fs.copyFileSync(evil, path.join(ws, "hooks", "post-index-change"));
    fs.chmodSync(path.join(ws, "hooks", "post-index-change"), 0o755);
    git(ws, "config", "core.hooksPath", path.join(ws, "hooks"));
  },
  "include outside": (ws, evil, outside) => {
    fs.writeFileSync(path.join(outside, "included"), `${SECRET}\n[core]\n\tfsmonitor = ${evil}\n`);
    git(ws, "config", "include.path", path.join(outside, "included"));
  },
  "includeIf with a filter": async (ws, evil, outside, write) => {
    fs.writeFileSync(path.join(outside, "included"), `[filter "x=y"]\n\tclean = ${evil}\n`);
    git(ws, "config", "includeIf.gitdir:/.path", path.join(outside, "included"));
    await write(".gitattributes", "a.txt filter=x=y\n");
  },
  "core.worktree outside": (ws, _evil, outside) => {
    git(ws, "config", "core.worktree", outside);
    git(ws, "config", "status.showUntrackedFiles", "all");
  },
  "gitdir of another repository": async (ws, _evil, outside, write) => {
    const other = path.join(outside, "other");
    fs.mkdirSync(other);
    git(other, "init", "-q", "-b", `branch-${SECRET}`);
    fs.writeFileSync(path.join(other, `${SECRET}.txt`), "x");
    git(other, "add", ".");
    git(other, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "x");
    fs.rmSync(path.join(ws, ".git"), { recursive: true });
    await write(".git", `gitdir: ${path.join(other, ".git")}\n`);
  },
};

/** A `git` of the model's, in the workspace, with `.` on PATH and the host's cwd there. */
async function relativePathEntry() {
  const { dir, cleanup } = tempDir("atn-git-attack-");
  try {
    const root = path.join(dir, "ws");
    fs.mkdirSync(root);
    git(root, "init", "-q", "-b", "main");
    const marker = path.join(dir, "marker");
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: { ...policy, tools: { ...policy.tools, apply_patch: "allow" } } }));
    await toolkit.invoke("write_file", { path: "git", content: `#!/bin/sh\necho ran >> '${marker}'\n` });
    const patch = await toolkit.invoke("apply_patch", { filePath: "git", patch: "diff --git a/git b/git\nold mode 100644\nnew mode 100755\n" });
    const executable = (fs.statSync(path.join(root, "git")).mode & 0o111) !== 0;
    process.chdir(root);
    process.env.PATH = `.:${process.env.PATH}`;
    let ok = true;
    try {
      await toolkit.invoke("git_status_summary", {});
    } catch {
      ok = false;
    }
    return { executable, patched: patch.content?.success ?? patch.content, ran: fs.existsSync(marker), ok };
  } finally {
    process.chdir(dir);
    cleanup();
  }
}

if (process.argv[2] === "relative-path") {
  console.log(JSON.stringify(await relativePathEntry()));
  process.exit(0);
}

const report = {};
for (const [name, setup] of Object.entries(VECTORS)) {
  const { dir, cleanup } = tempDir("atn-git-attack-");
  try {
    const root = path.join(dir, "ws");
    const outside = path.join(dir, "outside");
    fs.mkdirSync(root);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, "secret.txt"), SECRET);
    const marker = path.join(outside, "marker");
    const evil = path.join(outside, "evil.sh");
    fs.writeFileSync(evil, `#!/bin/sh\ncat '${path.join(outside, "secret.txt")}' >&2\necho ran >> '${marker}'\ncat\n`, { mode: 0o755 });
    git(root, "init", "-q", "-b", "main");
    fs.writeFileSync(path.join(root, "a.txt"), "a\n");
    git(root, "add", "a.txt");
    git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "one");
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: root, policy }));
    const write = async (file, content) => {
      const out = await toolkit.invoke("write_file", { path: file, content });
      if (out.content?.bytes_written === undefined) throw new Error(`write_file ${file}: ${JSON.stringify(out)}`);
    };
    await setup(root, evil, outside, write);
    // An old modification time: git has to read the tracked file again.
    const old = new Date("2001-01-01");
    fs.utimesSync(path.join(root, "a.txt"), old, old);
    let outcome;
    try {
      const out = await toolkit.invoke("git_status_summary", {});
      outcome = { ok: true, text: JSON.stringify(out.content) };
    } catch (error) {
      outcome = { ok: false, code: error.code, name: error.name, text: String(error.message) };
    }
    report[name] = {
      ran: fs.existsSync(marker),
      ok: outcome.ok,
      code: outcome.code,
      leaked: outcome.text.includes(SECRET) || outcome.text.includes("secret.txt"),
      text: outcome.text.slice(0, 300),
    };
  } finally {
    cleanup();
  }
}
console.log(JSON.stringify(report));
