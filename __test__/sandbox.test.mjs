// Attacks on the workspace sandbox (issue #9 item 1): every tool × every path-bearing field,
// through both front doors (toolkit.invoke and toolkit.tools.*), with `..` chains, absolute
// paths, backslashes, Windows drive letters, NUL bytes, very long paths, unicode look-alikes,
// symlinks (files, directories, dangling, chains, loops, /proc magic links), hard links and a
// directory swapped for a symlink between check and use. The matrix is generated from one table
// of fields and one table of attacks; each attempt has one expected outcome:
//   denied   — refused by the sandbox (wrapper: status "denied"/SANDBOX_VIOLATION; invoke: the
//              plain sandbox Error)
//   refused  — a clean, typed tool error (wrapper: status "failure"; invoke: the tool's error
//              class with a code), e.g. NOT_FOUND for a look-alike name that does not exist
//   ok       — the call succeeds, confined to the workspace (look-alikes are ordinary names)
// After every attempt: nothing outside the workspace was read (no marker in any output), written,
// created or linked (a snapshot of everything next to the workspace is unchanged).
//
// NUL bytes: the lexical rule (docs/compat.md, "The lexical path rule") lets `a\0b` pass the
// sandbox and the tool fail with its INTERNAL error (Node's "must be a string ... without null
// bytes" message), so a NUL path that stays inside lexically is `refused`, one that leaves
// lexically is `denied`; the path never reaches the OS. A path the sandbox cannot resolve (a
// component longer than NAME_MAX, a symlink loop) is denied: the sandbox fails closed.
import { test, describe, after } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createToolContext, createAgentToolkit } from "agent-tools-native";
import { tempDir, ALLOW_ALL, onlyOn } from "./helpers.mjs";

let attacks = 0;
after(() => console.log(`sandbox: ${attacks} attacks, 0 escapes`));

// Markers that exist only outside the workspace: in file contents and in file names.
const CONTENT_MARKER = "CANARY";
const NAME_MARKER = "SECRETNAME";
// Every file the attacks aim at starts with the same two lines, so one patch applies to all.
const OUTSIDE_TEXT = `head\nbody\n${CONTENT_MARKER}\n`;
const DECOY_TEXT = "head\nbody\nDECOY\n";
const HARDLINKED_TEXT = "head\nbody\nHARDLINKED\n";
const HUNK = "@@ -1,2 +1,3 @@\n head\n+PWNED\n body\n";
const UNDO_HUNK = "@@ -1,3 +1,2 @@\n head\n-PWNED\n body\n";
const patchFor = (rel, hunk = HUNK) => `--- a/${rel}\n+++ b/${rel}\n${hunk}`;

/** Names that merely look like `..` or `/`: ordinary names inside the workspace. */
const LOOKALIKES = [
  "．．", // U+FF0E fullwidth full stops
  "．．／outside", // + U+FF0F fullwidth solidus: one name
  "．．＼outside", // + U+FF3C fullwidth reverse solidus
  "\u2025", // two dot leader
  "\u2024\u2024", // one dot leaders
  ".\u200b.", // zero-width space between the dots
  "\u202e..", // right-to-left override, then dots
  "\u2067.\u2069.", // right-to-left isolate around a dot
  "\u00a0..", // no-break space, then dots
  "%2e%2e", // URL-encoded dots
  "%2e%2e%2foutside",
  "．．\u2215outside", // division slash
];

/** The opt-in tools, enabled in every toolkit here: they face the same attacks as the 13. */
const OPT_IN = ["edit_file", "find_files", "apply_patches"];
/** The source of the move attacks (apply_patches: `*** Move to:`, `rename to`). */
const MOVER = "mover.txt";

const GIT = (cwd, ...args) => execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });

/**
 * `<tmp>/ws` (a git repository: the workspace) next to `<tmp>/outside` and `<tmp>/ws2` (a
 * sibling whose name extends the root's), both holding the markers, plus symlinks of every kind
 * inside the workspace and decoys for the look-alike names.
 */
function fixture() {
  const { dir: base, cleanup } = tempDir("atn-sbx-");
  const root = path.join(base, "ws");
  const outside = path.join(base, "outside");
  const put = (file, text) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  for (const dir of [outside, `${root}2`]) {
    put(path.join(dir, "canary.txt"), OUTSIDE_TEXT);
    put(path.join(dir, `${NAME_MARKER}.ts`), `const ${CONTENT_MARKER} = 1;\n`);
    put(path.join(dir, `${NAME_MARKER}-dir`, "canary.txt"), OUTSIDE_TEXT);
  }
  put(path.join(outside, "subdir", "canary.txt"), OUTSIDE_TEXT);
  put(path.join(outside, "hardlinked.txt"), HARDLINKED_TEXT);
  GIT(outside, "init", "-q");
  put(path.join(root, "src", "a.ts"), "head\nbody\nconst inside = 1;\n");
  GIT(root, "init", "-q");
  for (const name of LOOKALIKES) put(path.join(root, name, "canary.txt"), DECOY_TEXT);
  put(path.join(root, "C:", "decoy", "canary.txt"), DECOY_TEXT);
  const link = (target, name) => fs.symlinkSync(target, path.join(root, name));
  link(outside, "dlink"); // absolute, to a directory outside
  link(path.join(outside, "canary.txt"), "flink"); // absolute, to a file outside
  link(path.join(outside, "missing.txt"), "dangling");
  link(path.join(outside, "newdir", "x"), "dangling-deep");
  link("../outside/new.txt", "rel-dangling");
  link("../../outside", "src/rel"); // relative, to a directory outside
  link("dlink", "chain"); // chain → dlink → outside
  link("flink", "chain1");
  link("chain1", "chain2"); // chain2 → chain1 → flink → outside file
  link("src/rel", "inner"); // inside link → inside link → outside
  link("..", "dotdot"); // the workspace's parent
  link("loop2", "loop1");
  link("loop1", "loop2");
  link("/proc/self/root", "proclink"); // magic link to /
  link("/proc/self/cwd", "proccwd"); // magic link to the process's directory (outside)
  link(path.join(root, "src"), "abs-in"); // absolute, inside: allowed
  link(".", "self"); // inside: allowed
  fs.linkSync(path.join(outside, "hardlinked.txt"), path.join(root, "hardlink"));
  put(path.join(root, MOVER), DECOY_TEXT);
  const context = createToolContext({ workspaceRoot: root, policy: ALLOW_ALL });
  return { base, root, outside, context, toolkit: createAgentToolkit(context, { extraTools: OPT_IN }), cleanup };
}

/** Everything next to the workspace (not following symlinks): names, inodes, link counts, contents. */
function snapshot(ws) {
  const out = {};
  const walk = (dir) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (file === ws.root) continue;
      const st = fs.lstatSync(file);
      const key = path.relative(ws.base, file);
      if (st.isSymbolicLink()) out[key] = `link ${fs.readlinkSync(file)}`;
      else if (st.isDirectory()) {
        out[key] = `dir ${st.ino} ${st.mode}`;
        walk(file);
      } else out[key] = `file ${st.ino} ${st.mode} ${st.mtimeMs} ${fs.readFileSync(file, "latin1")}`;
      if (!st.isDirectory() && !st.isSymbolicLink()) out[`${key} nlink`] = st.nlink;
    }
  };
  walk(ws.base);
  return out;
}

/** Link counts may only drop (a write replacing a hard link inside): a new link would raise one. */
function assertNothingOutsideChanged(ws, before, what) {
  const now = snapshot(ws);
  for (const key of Object.keys(before)) {
    if (key.endsWith(" nlink")) {
      assert.ok(now[key] <= before[key], `${what}: a hard link to ${key} was created`);
      now[key] = before[key];
    }
  }
  assert.deepEqual(now, before, `${what}: something outside the workspace changed`);
}

/**
 * For an attack that stays inside: the state of the file it names and of the move source, and a
 * function that puts both back (an attempt that deletes, creates or moves a file must not change
 * what the next attempt meets).
 */
function keepInside(ws, p) {
  const files = [path.join(ws.root, MOVER), path.join(ws.root, "moved.txt")];
  if (!p.includes("\0")) files.push(path.resolve(ws.root, p.replaceAll("\\", "/")));
  const state = (file) => {
    try {
      const st = fs.statSync(file);
      return st.isFile() ? fs.readFileSync(file, "latin1") : "other";
    } catch {
      return "absent";
    }
  };
  const before = files.map(state);
  return () => {
    files.forEach((file, i) => {
      const now = state(file);
      if (now === before[i]) return;
      if (before[i] === "absent") fs.rmSync(file, { force: true });
      else if (before[i] !== "other") fs.writeFileSync(file, before[i], "latin1");
    });
  };
}

function assertNoMarker(value, what) {
  const text = JSON.stringify(value) ?? "";
  assert.ok(!text.includes(CONTENT_MARKER) && !text.includes(NAME_MARKER), `${what}: read outside: ${text.slice(0, 300)}`);
}

const SANDBOX_MESSAGE = /^\[Sandbox Violation\] Attempted to access path outside of workspace: /;
/** The denial of a tool that resolves the paths inside its input itself (apply_patches). */
const TOOL_DENIAL = /^INTERNAL: \[Sandbox Violation\] Attempted to access path outside of workspace: /;

/** One call through the wrapper, classified. */
async function viaWrapper(ws, row, args) {
  const result = await ws.toolkit.tools[row.tool](...args);
  assertNoMarker(result, `${row.tool} wrapper`);
  if (result.status === "denied" && result.reason === "sandbox" && result.error.code === "SANDBOX_VIOLATION" && SANDBOX_MESSAGE.test(result.message)) {
    return "denied";
  }
  if (row.deniedByTool && result.status === "failure" && result.error.code === "RUNTIME_ERROR" && TOOL_DENIAL.test(result.message)) {
    return "denied";
  }
  if (result.status === "failure" && result.reason === "runtime" && result.error.code === "RUNTIME_ERROR") {
    // tool errors carry their code as a message prefix (apply_patch: a bare message)
    if (row.tool === "apply_patch" || /^[A-Z_]+: /.test(result.message)) return "refused";
  }
  if (result.status === "success") return "ok";
  return `unexpected ${JSON.stringify(result).slice(0, 300)}`;
}

/** One call through invoke, classified. */
async function viaInvoke(ws, row, args) {
  try {
    const out = await ws.toolkit.invoke(row.tool, args);
    assertNoMarker(out, `${row.tool} invoke`);
    return "ok";
  } catch (error) {
    assertNoMarker(error.message, `${row.tool} invoke`);
    if (error.constructor === Error && error.code === undefined && SANDBOX_MESSAGE.test(error.message)) return "denied";
    if (row.deniedByTool && error.name === row.errorClass && error.code === "INTERNAL" && TOOL_DENIAL.test(error.message)) return "denied";
    if (error.name === row.errorClass && typeof error.code === "string") return "refused";
    return `unexpected ${error.name} ${error.code} ${error.message.slice(0, 300)}`;
  }
}

// ---- the field table: every path-bearing field of every tool ------------------------------------
// `kind` decides what a confined attempt yields (OUTCOMES); `build(p)` → [wrapper args, invoke args].

const EXEC = ["sh", "-c", "cat canary.txt; ls; echo PWNED > pwned.txt"];
const REGEX = { pattern: `${CONTENT_MARKER.slice(0, 3)}[A]${CONTENT_MARKER.slice(4)}` }; // finds the marker, does not spell it
const AST_RULE = { kind: "identifier", regex: "^CAN.RY$" };
const obj = (o) => [[o], o];
/** apply_patches: one patch through the wrapper, another through invoke (or the same). */
const both = (wrapperPatch, invokePatch) => [[{ patch: wrapperPatch }], { patch: invokePatch }];
const same = (patch) => both(patch, patch);
const codex = (body) => `*** Begin Patch\n${body}*** End Patch\n`;
const CODEX_HUNK = "@@\n head\n+PWNED\n body\n";
const CODEX_UNDO = "@@\n head\n-PWNED\n body\n";

const FIELDS = [
  { tool: "read_file", field: "path", kind: "read", errorClass: "ReadFileError", build: (p) => [[p], { path: p }] },
  { tool: "write_file", field: "path", kind: "write", errorClass: "WriteFileError", build: (p) => [[p, "PWNED"], { path: p, content: "PWNED" }] },
  {
    tool: "apply_patch", field: "filePath", kind: "patch", errorClass: "ApplyPatchError",
    // the wrapper inserts a line, invoke takes it out again: both really write
    build: (p, ws) => {
      const rel = path.relative(ws.root, path.resolve(ws.root, p.replaceAll("\\", "/")));
      return [[p, patchFor(rel)], { filePath: p, patch: patchFor(rel, UNDO_HUNK) }];
    },
  },
  { tool: "tree", field: "path", kind: "dir", errorClass: "TreeError", build: (p) => [[p, { entry_kind: "all" }], { path: p, entry_kind: "all" }] },
  { tool: "exec_command", field: "cwd", kind: "dir", errorClass: "ExecCommandError", build: (p) => obj({ cwd: p, command: EXEC }) },
  // the search tools with `cwd` present too: the wrapper must still check root_path
  // (docs/compat.md, "toolkit.tools checks the path field each tool takes")
  { tool: "regexp_search", field: "root_path", kind: "dir", errorClass: "RegexpSearchError", build: (p) => obj({ ...REGEX, cwd: ".", root_path: p }) },
  { tool: "ast_grep_search", field: "root_path", kind: "dir", errorClass: "AstGrepSearchError", build: (p) => obj({ language: "typescript", rule: AST_RULE, cwd: ".", root_path: p }) },
  { tool: "git_status_summary", field: "cwd", kind: "dir", errorClass: "GitStatusSummaryError", build: (p) => [[p], { cwd: p }] },
  // the opt-in tools
  {
    tool: "edit_file", field: "path", kind: "patch", errorClass: "EditFileError",
    // the wrapper inserts a line, invoke takes it out again: both really write
    build: (p) => [[p, { old_string: "head\nbody\n", new_string: "head\nPWNED\nbody\n" }], { path: p, old_string: "head\nPWNED\nbody\n", new_string: "head\nbody\n" }],
  },
  { tool: "find_files", field: "root_path", kind: "dir", errorClass: "FindFilesError", build: (p) => obj({ pattern: "*", include_hidden: true, root_path: p }) },
  // apply_patches takes its paths inside the patch and checks each one itself: every kind of
  // path a patch can name, in both formats. Each attempt's changes inside are undone (`restores`).
  {
    tool: "apply_patches", field: "*** Update File", trims: true, kind: "patch", errorClass: "ApplyPatchesError", deniedByTool: true,
    build: (p) => both(codex(`*** Update File: ${p}\n${CODEX_HUNK}`), codex(`*** Update File: ${p}\n${CODEX_UNDO}`)),
  },
  { tool: "apply_patches", field: "*** Add File", trims: true, kind: "create", errorClass: "ApplyPatchesError", deniedByTool: true, restores: true, build: (p) => same(codex(`*** Add File: ${p}\n+PWNED\n`)) },
  { tool: "apply_patches", field: "*** Delete File", trims: true, kind: "patch", errorClass: "ApplyPatchesError", deniedByTool: true, restores: true, build: (p) => same(codex(`*** Delete File: ${p}\n`)) },
  {
    tool: "apply_patches", field: "*** Move to", trims: true, kind: "create", errorClass: "ApplyPatchesError", deniedByTool: true, restores: true,
    build: (p) => same(codex(`*** Update File: ${MOVER}\n*** Move to: ${p}\n${CODEX_HUNK}`)),
  },
  {
    tool: "apply_patches", field: "---/+++", kind: "patch", errorClass: "ApplyPatchesError", deniedByTool: true,
    build: (p) => both(`--- a/${p}\n+++ b/${p}\n${HUNK}`, `--- a/${p}\n+++ b/${p}\n${UNDO_HUNK}`),
  },
  { tool: "apply_patches", field: "+++ (new file)", kind: "create", errorClass: "ApplyPatchesError", deniedByTool: true, restores: true, build: (p) => same(`--- /dev/null\n+++ b/${p}\n@@ -0,0 +1 @@\n+PWNED\n`) },
  { tool: "apply_patches", field: "rename from", trims: true, kind: "patch", errorClass: "ApplyPatchesError", deniedByTool: true, restores: true, build: (p) => same(`diff --git a/${p} b/moved.txt\nrename from ${p}\nrename to moved.txt\n`) },
  { tool: "apply_patches", field: "rename to", trims: true, kind: "create", errorClass: "ApplyPatchesError", deniedByTool: true, restores: true, build: (p) => same(`diff --git a/${MOVER} b/${p}\nrename from ${MOVER}\nrename to ${p}\n`) },
  // Keys the tool does not take: neither door checks them and the tool works in the workspace
  // (docs/compat.md, "toolkit.tools checks the path field each tool takes").
  { tool: "exec_command", field: "root_path", kind: "ignored", errorClass: "ExecCommandError", build: (p) => obj({ cwd: ".", root_path: p, command: EXEC }) },
  { tool: "regexp_search", field: "cwd", kind: "ignored", errorClass: "RegexpSearchError", build: (p) => obj({ ...REGEX, cwd: p }) },
  { tool: "ast_grep_search", field: "cwd", kind: "ignored", errorClass: "AstGrepSearchError", build: (p) => obj({ language: "typescript", rule: AST_RULE, cwd: p }) },
];

/** What a confined attempt yields, by field kind and by what the path names inside. */
const OUTCOMES = {
  read: { file: "ok", dir: "refused", none: "refused", bad: "refused" },
  write: { file: "ok", dir: "refused", none: "ok", bad: "refused" },
  patch: { file: "ok", dir: "refused", none: "refused", bad: "refused" },
  dir: { file: "refused", dir: "ok", none: "refused", bad: "refused" },
  create: { file: "refused", dir: "refused", none: "ok", bad: "refused" },
};

function expected(row, attack, door) {
  // a key the tool does not take is never checked and never reaches it, through either door
  if (row.kind === "ignored") return "ok";
  // Patch headers that trim their path (Unicode whitespace, as `str::trim`): a look-alike led
  // by a no-break space becomes a real `..` path, denied.
  if (row.trims && attack.p.trim() !== attack.p && attack.p.trim().startsWith("..")) return "denied";
  // apply_patches opens and checks the directory of every file it reads or writes first, so a
  // NUL after an outside symlink is denied there before the NUL is met.
  if (row.deniedByTool && attack.target === "bad" && attack.p.startsWith("dlink/")) return "denied";
  return attack.denied ? "denied" : OUTCOMES[row.kind][attack.target];
}

// ---- the attack table -----------------------------------------------------------------------------
// `denied`: the sandbox refuses it; otherwise `target` says what the path names inside the
// workspace: an existing file / directory, nothing (`none`), or nothing the OS accepts (`bad`).

function attackTable(ws) {
  const { root, outside, base } = ws;
  const fromSlash = (abs) => abs.slice(1); // a path relative to /
  const denied = (p, why) => ({ p, denied: true, why });
  const inside = (p, target, why) => ({ p, denied: false, target, why });
  const deepDirs = (n) => `${"d".repeat(200)}/`.repeat(n);
  return [
    // `..` chains
    denied("..", "parent"),
    denied("../", "parent, trailing slash"),
    denied("../outside", "sibling dir"),
    denied("../outside/canary.txt", "sibling file"),
    denied("src/../../outside/canary.txt", "down then up"),
    denied("./src/./../../outside/canary.txt", "dots"),
    denied("src//..//..//outside", "doubled slashes"),
    denied("../ws/../outside/canary.txt", "out, in, out"),
    denied("../ws2/canary.txt", "sibling sharing the root's name prefix"),
    denied(`${"../".repeat(40)}${fromSlash(outside)}/canary.txt`, "40 levels up then down"),
    denied(`${"a/../".repeat(300)}../outside/canary.txt`, "300-component a/../ chain, out"),
    inside(`${"a/../".repeat(300)}src/a.ts`, "file", "300-component a/../ chain, in"),
    inside("../ws/src/a.ts", "file", "out and back in (lexical)"),
    denied("..foo", "..-prefixed name (kept, docs/compat.md)"),
    denied("...", "three dots (kept, docs/compat.md)"),
    // absolute paths
    denied(`${outside}/canary.txt`, "absolute file outside"),
    denied(outside, "absolute dir outside"),
    denied("/", "filesystem root"),
    denied(base, "workspace parent"),
    denied(`${root}2/canary.txt`, "absolute sibling sharing the prefix"),
    denied(`${root}/../outside/canary.txt`, "absolute via the root"),
    denied(`/${outside}/canary.txt`, "double leading slash"),
    denied(`/proc/self/root${outside}/canary.txt`, "through /proc/self/root"),
    inside(`${root}/src/a.ts`, "file", "absolute inside"),
    inside(`${root}/`, "dir", "absolute root"),
    // backslashes (normalised to /)
    denied("..\\outside\\canary.txt", "backslash parent"),
    denied("src\\..\\..\\outside", "backslash down then up"),
    denied("\\..\\outside\\canary.txt", "leading backslash = absolute"),
    denied(`${outside.replaceAll("/", "\\")}\\canary.txt`, "absolute with backslashes"),
    denied("\\\\server\\share\\canary.txt", "UNC path"),
    denied("\\\\?\\C:\\outside\\canary.txt", "extended-length path"),
    inside("src\\a.ts", "file", "backslash inside"),
    // Windows drive letters: relative names on POSIX
    inside("C:\\decoy\\canary.txt", "file", "drive letter, backslashes"),
    inside("C:/decoy/canary.txt", "file", "drive letter, slashes"),
    inside("C:\\decoy", "dir", "drive letter directory"),
    inside("c:\\Windows\\System32\\drivers\\etc\\hosts", "none", "system file by drive letter"),
    inside(`C:${outside}\\canary.txt`, "none", "drive letter + absolute POSIX path"),
    inside("C:..\\outside\\canary.txt", "none", "drive-relative parent"),
    denied("C:\\..\\..\\outside\\canary.txt", "drive letter then up"),
    // NUL bytes: never reach the OS
    inside("canary.txt\0", "bad", "trailing NUL"),
    inside("src/a.ts\0.txt", "bad", "NUL inside a name"),
    inside("\0", "bad", "only a NUL"),
    inside("dlink\0/canary.txt", "bad", "NUL hiding a symlink component"),
    inside("dlink/canary.txt\0", "bad", "NUL after an outside symlink"),
    denied("../outside/canary.txt\0", "NUL after an escape"),
    denied("src\0/../../outside/canary.txt", "NUL before an escape"),
    // very long paths: a clean error, no hang
    denied("x".repeat(5000), "one 5 000-character name"),
    denied("x".repeat(100_000), "one 100 000-character name"),
    inside(`${deepDirs(25)}f.txt`, "bad", "5 000 characters in 25 names"),
    inside(deepDirs(500), "bad", "100 000 characters in 500 names"),
    inside(`${"a/../".repeat(20_000)}src/a.ts`, "file", "100 000-character a/../ chain, in"),
    denied(`${"../".repeat(33_000)}${fromSlash(outside)}/canary.txt`, "100 000-character .. chain"),
    // unicode look-alikes: ordinary names, confined (decoys exist inside)
    ...LOOKALIKES.flatMap((l) => [
      inside(`${l}/canary.txt`, "file", `look-alike ${JSON.stringify(l)} file`),
      inside(l, "dir", `look-alike ${JSON.stringify(l)} dir`),
      inside(`${l}/outside/canary.txt`, "none", `look-alike ${JSON.stringify(l)} chain`),
    ]),
    denied("..／outside/canary.txt", "real dots + fullwidth solidus (a ..-prefixed name)"),
    denied("..\u2215outside", "real dots + division slash (a ..-prefixed name)"),
    // symlinks
    denied("dlink", "dir symlink out"),
    denied("dlink/", "dir symlink out, trailing slash"),
    denied("dlink/.", "dir symlink out, dot"),
    denied("dlink/canary.txt", "through a dir symlink"),
    denied("dlink/subdir", "subdir through a dir symlink"),
    denied("dlink/new/deep.txt", "new path through a dir symlink"),
    inside("dlink/../src/a.ts", "file", "through a symlink and back (resolved lexically)"),
    inside("dlink/..", "dir", "symlink/.. is the root lexically"),
    denied("flink", "file symlink out"),
    denied("dangling", "dangling symlink out"),
    denied("dangling-deep", "dangling symlink into a missing dir"),
    denied("rel-dangling", "relative dangling symlink out"),
    denied("src/rel", "relative dir symlink out"),
    denied("src/rel/canary.txt", "through a relative dir symlink"),
    denied("chain", "symlink chain to a dir"),
    denied("chain/canary.txt", "through a symlink chain"),
    denied("chain2", "symlink chain to a file"),
    denied("inner/canary.txt", "inside link to an outside link"),
    denied("dotdot/outside/canary.txt", "symlink to the parent"),
    denied("dotdot", "symlink to the parent, itself"),
    denied("loop1", "symlink loop"),
    denied("loop1/x", "through a symlink loop"),
    denied(`proclink${outside}/canary.txt`, "through a /proc magic link"),
    denied("proccwd", "magic link to the process directory"),
    inside("abs-in/a.ts", "file", "absolute symlink inside"),
    inside("self/src/a.ts", "file", "symlink to the root"),
  ];
}

/** Glob fields cannot widen the walk beyond root_path: patterns that point outside match nothing there. */
const GLOBS = ["../**", "../outside/**", "/**", `**/../../**`, "{..,.}/**", "../*/canary.txt", "..\\outside\\**"];
const GLOB_FIELDS = [
  { tool: "regexp_search", field: "include", errorClass: "RegexpSearchError", build: (g) => obj({ ...REGEX, include: [g] }) },
  { tool: "regexp_search", field: "exclude", errorClass: "RegexpSearchError", build: (g) => obj({ ...REGEX, exclude: [g] }) },
  { tool: "ast_grep_search", field: "include", errorClass: "AstGrepSearchError", build: (g) => obj({ language: "typescript", rule: AST_RULE, include: [g] }) },
  { tool: "ast_grep_search", field: "exclude", errorClass: "AstGrepSearchError", build: (g) => obj({ language: "typescript", rule: AST_RULE, exclude: [g] }) },
  { tool: "find_files", field: "pattern", errorClass: "FindFilesError", build: (g) => obj({ pattern: g, include_hidden: true }) },
  { tool: "tree", field: "exclude", errorClass: "TreeError", build: (g) => [[".", { entry_kind: "all", exclude: [g] }], { path: ".", entry_kind: "all", exclude: [g] }] },
];

describe("sandbox matrix: every tool × every path field × every attack, both doors", onlyOn(["unix"], "builds its attack fixture with symbolic links (some into /proc) and a directory named \"C:\", which Windows cannot hold"), () => {
  // A fixed table of attacks per field (up to 2 s a field on an idle 2-core machine); the
  // timeouts only catch a hang, and no single attack may take 10 s.
  for (const row of FIELDS) {
    test(`${row.tool}.${row.field}`, { timeout: 300_000 }, async () => {
      const ws = fixture();
      try {
        const before = snapshot(ws);
        const table = attackTable(ws);
        assert.ok(table.length > 100);
        for (const attack of table) {
          const [wrapperArgs, invokeArgs] = row.build(attack.p, ws);
          const what = `${row.tool}.${row.field} ← ${attack.why} (${JSON.stringify(attack.p.slice(0, 80))})`;
          const started = Date.now();
          attacks += 2;
          const restore = row.restores && !attack.denied ? keepInside(ws, attack.p) : () => {};
          assert.equal(await viaWrapper(ws, row, wrapperArgs), expected(row, attack, "wrapper"), `${what} via tools.*`);
          restore();
          assert.equal(await viaInvoke(ws, row, invokeArgs), expected(row, attack, "invoke"), `${what} via invoke`);
          restore();
          assert.ok(Date.now() - started < 10_000, `${what} took ${Date.now() - started} ms`);
          assertNothingOutsideChanged(ws, before, what);
        }
      } finally {
        ws.cleanup();
      }
    });
  }

  for (const row of GLOB_FIELDS) {
    test(`${row.tool}.${row.field} (globs)`, { timeout: 300_000 }, async () => {
      const ws = fixture();
      try {
        const before = snapshot(ws);
        for (const glob of GLOBS) {
          const [wrapperArgs, invokeArgs] = row.build(glob);
          attacks += 2;
          const what = `${row.tool}.${row.field} ← ${glob}`;
          assert.equal(await viaWrapper(ws, row, wrapperArgs), "ok", what);
          assert.equal(await viaInvoke(ws, row, invokeArgs), "ok", what);
          assertNothingOutsideChanged(ws, before, what);
        }
      } finally {
        ws.cleanup();
      }
    });
  }

  test("apply_patch: paths inside the diff never reach beyond filePath", async () => {
    const ws = fixture();
    try {
      const before = snapshot(ws);
      const victim = path.join(ws.root, "src", "a.ts");
      const original = fs.readFileSync(victim, "utf8");
      const patches = [
        `--- a/../outside/canary.txt\n+++ b/../outside/canary.txt\n${HUNK}`,
        `--- a/${ws.outside}/canary.txt\n+++ b/${ws.outside}/canary.txt\n${HUNK}`,
        `--- a/dlink/canary.txt\n+++ b/dlink/canary.txt\n${HUNK}`,
        `diff --git a/src/a.ts b/../outside/canary.txt\nrename from src/a.ts\nrename to ../outside/canary.txt\n`,
        `diff --git a/../outside/canary.txt b/src/a.ts\ncopy from ../outside/canary.txt\ncopy to src/a.ts\n`,
        `diff --git a/../outside/canary.txt b/src/a.ts\nrename from ../outside/canary.txt\nrename to src/a.ts\n`,
        `diff --git a/src/a.ts b/src/a.ts\nnew file mode 120000\n--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1 @@\n+${ws.outside}/canary.txt\n\\ No newline at end of file\n`,
      ];
      const row = FIELDS.find((f) => f.tool === "apply_patch");
      for (const patch of patches) {
        attacks += 2;
        const wrapper = await viaWrapper(ws, row, ["src/a.ts", patch]);
        const invoke = await viaInvoke(ws, row, { filePath: "src/a.ts", patch });
        assert.ok(["ok", "refused"].includes(wrapper) && wrapper === invoke, `${patch}: ${wrapper} / ${invoke}`);
        assert.equal(fs.lstatSync(victim).isFile(), true, "the target stays a regular file");
        assert.equal(fs.readFileSync(victim, "utf8"), original, `${patch}: the target changed`);
        assertNothingOutsideChanged(ws, before, patch);
      }
    } finally {
      ws.cleanup();
    }
  });
});

describe("hard links", onlyOn(["unix"], "builds its attack fixture with symbolic links (some into /proc) and a directory named \"C:\", which Windows cannot hold"), () => {
  // A hard link is a second name of the same inode: nothing tells it from a regular file, so a
  // hard link that already exists inside the workspace to a file outside can be READ through
  // (read_file, the search tools, exec_command). That is the sandbox's documented limit; only
  // whoever can already write both places can make such a link. What the tools do guarantee:
  // writes never go through to the outside inode (write_file and apply_patch replace the name
  // with a new file), and no tool call creates a hard link (link counts outside never rise; the
  // matrix checks them after every attempt).
  test("reading through an existing hard link is the documented limit", async () => {
    const ws = fixture();
    try {
      const viaInvoke = await ws.toolkit.invoke("read_file", { path: "hardlink" });
      const viaWrapper = await ws.toolkit.tools.read_file("hardlink");
      attacks += 2;
      assert.equal(viaInvoke.content.content, HARDLINKED_TEXT);
      assert.equal(viaWrapper.data.content, HARDLINKED_TEXT);
    } finally {
      ws.cleanup();
    }
  });

  test("writes through a hard link never reach the outside file, and create no link", async () => {
    const ws = fixture();
    try {
      const outsideFile = path.join(ws.outside, "hardlinked.txt");
      const link = path.join(ws.root, "hardlink");
      const relink = () => {
        fs.rmSync(link, { force: true });
        fs.linkSync(outsideFile, link);
      };
      const writes = [
        () => ws.toolkit.invoke("write_file", { path: "hardlink", content: "PWNED" }),
        () => ws.toolkit.tools.write_file("hardlink", "PWNED").then((r) => assert.equal(r.status, "success")),
        () => ws.toolkit.invoke("apply_patch", { filePath: "hardlink", patch: patchFor("hardlink") }),
        () => ws.toolkit.tools.apply_patch("hardlink", patchFor("hardlink")).then((r) => assert.equal(r.status, "success")),
      ];
      for (const write of writes) {
        relink();
        attacks += 1;
        await write();
        assert.equal(fs.readFileSync(outsideFile, "utf8"), HARDLINKED_TEXT, "the outside file is unchanged");
        assert.equal(fs.statSync(outsideFile).nlink, 1, "the link inside was replaced, not written through");
        assert.match(fs.readFileSync(link, "utf8"), /PWNED/);
        assert.notEqual(fs.statSync(link).ino, fs.statSync(outsideFile).ino);
      }
      // a brand-new file written by the tools is never a link to anything
      await ws.toolkit.invoke("write_file", { path: "fresh.txt", content: "x" });
      assert.equal(fs.statSync(path.join(ws.root, "fresh.txt")).nlink, 1);
    } finally {
      ws.cleanup();
    }
  });
});

describe("symlinks inside the workspace", onlyOn(["unix"], "builds its attack fixture with symbolic links (some into /proc) and a directory named \"C:\", which Windows cannot hold"), () => {
  test("symlinks that stay inside the workspace keep working", async () => {
    const ws = fixture();
    try {
      fs.writeFileSync(path.join(ws.root, "src", "a.txt"), "A");
      fs.symlinkSync("src", path.join(ws.root, "srclink"));
      assert.equal((await ws.toolkit.invoke("read_file", { path: "srclink/a.txt" })).content.content, "A");
      // a symlink as the final component is not a directory for tree (as upstream), not a violation
      await assert.rejects(ws.toolkit.invoke("tree", { path: "abs-in/" }), { name: "TreeError", code: "NOT_DIRECTORY" });
      assert.equal((await ws.toolkit.invoke("tree", { path: "abs-in/.." })).content.root.path, ".");
      const written = await ws.toolkit.tools.write_file("srclink/b.txt", "B");
      assert.equal(written.status, "success");
      assert.equal(fs.readFileSync(path.join(ws.root, "src", "b.txt"), "utf8"), "B");
      const deep = await ws.toolkit.tools.write_file("srclink/new/deeper/c.txt", "C");
      assert.equal(deep.status, "success");
      assert.equal(fs.readFileSync(path.join(ws.root, "src", "new", "deeper", "c.txt"), "utf8"), "C");
    } finally {
      ws.cleanup();
    }
  });
});

/** A toolkit with the opt-in apply_patches over the workspace's context. */
const patches = (ws) => createAgentToolkit(ws.context, { extraTools: ["apply_patches"] });

describe("check-then-use race", onlyOn(["unix"], "builds its attack fixture with symbolic links (some into /proc) and a directory named \"C:\", which Windows cannot hold"), () => {
  test("a directory swapped for a symlink between check and use never leaks, for any tool", { timeout: 60_000 }, async () => {
    const ws = fixture();
    try {
      for (let i = 0; i < 60; i++) {
        fs.mkdirSync(path.join(ws.outside, `d${i}`));
        fs.writeFileSync(path.join(ws.outside, `d${i}`, `${NAME_MARKER}.txt`), OUTSIDE_TEXT);
      }
      const swap = path.join(ws.root, "swap");
      const parked = path.join(ws.root, "swap.dir");
      fs.mkdirSync(swap);
      fs.writeFileSync(path.join(swap, "canary.txt"), DECOY_TEXT);
      // Directories of the same names on both sides, so a walk that enters one by its path while
      // `swap` is the symlink lists the outside one (whose files carry the name marker).
      for (let i = 0; i < 60; i++) {
        fs.mkdirSync(path.join(swap, `d${i}`));
        // enough files that a walk takes a while
        for (let j = 0; j < 10; j++) fs.writeFileSync(path.join(swap, `d${i}`, `inside${j}.txt`), DECOY_TEXT);
      }
      const before = snapshot(ws);
      let stop = false;
      let linked = 0;
      // Writes re-create `swap` while it is parked, so every step tolerates losing the race.
      const attempt = (step) => { try { step(); return true; } catch { return false; } };
      const swapper = (async () => {
        for (let n = 0; !stop; n++) {
          const park = `${parked}-${n}`;
          if (attempt(() => fs.renameSync(swap, park)) && attempt(() => fs.symlinkSync(ws.outside, swap))) linked++;
          await new Promise((r) => setImmediate(r));
          attempt(() => fs.unlinkSync(swap));
          attempt(() => fs.renameSync(park, swap));
          await new Promise((r) => setImmediate(r));
        }
      })();
      const searchSwap = (r, i) => ws.toolkit.invoke("regexp_search", { ...REGEX, root_path: "swap" });
      const findViaInvoke = (r, i) => ws.toolkit.invoke("find_files", { pattern: "*", root_path: "swap" }).then(checkListed);
      const findViaWrapper = (r, i) => ws.toolkit.tools.find_files({ pattern: "**/*.txt", root_path: "swap" }).then(checkListed);
      // Every tool with a path into the swapped directory (writes also into new sub-directories).
      const calls = [
        (r, i) => ws.toolkit.invoke("read_file", { path: "swap/canary.txt" }),
        (r, i) => ws.toolkit.tools.read_file("swap/canary.txt"),
        (r, i) => ws.toolkit.tools.write_file(`swap/new-${r}-${i}.txt`, "PWNED"),
        (r, i) => ws.toolkit.invoke("write_file", { path: `swap/dir-${r}-${i}/deep/new.txt`, content: "PWNED" }),
        (r, i) => ws.toolkit.tools.write_file(`swap/dir-${r}-${i}/new.txt`, "PWNED"),
        (r, i) => ws.toolkit.invoke("apply_patch", { filePath: "swap/canary.txt", patch: patchFor("swap/canary.txt") }),
        (r, i) => ws.toolkit.invoke("tree", { path: "swap", entry_kind: "all" }),
        (r, i) => ws.toolkit.tools.exec_command({ cwd: "swap", command: EXEC }),
        searchSwap,
        (r, i) => ws.toolkit.invoke("ast_grep_search", { language: "typescript", rule: AST_RULE, root_path: "swap" }),
        (r, i) => ws.toolkit.tools.git_status_summary("swap"),
        findViaInvoke,
        findViaWrapper,
        // the edit of the decoy inside and its undo; through the symlink they would edit (and
        // quote) the outside file, which has the same lines
        (r, i) => ws.toolkit.invoke("edit_file", { path: "swap/canary.txt", old_string: "head\nbody\n", new_string: "head\nPWNED\nbody\n" }),
        (r, i) => ws.toolkit.tools.edit_file("swap/canary.txt", { old_string: "head\nPWNED\nbody\n", new_string: "head\nbody\n" }),
        // apply_patches (opt-in): the canary rewritten as it is, moved away and renamed back;
        // outside content read through the swap would land in it, where read_file shows it
        (r, i) => patches(ws).invoke("apply_patches", { patch: "*** Begin Patch\n*** Update File: swap/canary.txt\n@@\n-body\n+body\n*** End Patch" }),
        (r, i) => patches(ws).tools.apply_patches({ patch: "*** Begin Patch\n*** Update File: swap/canary.txt\n*** Move to: swap/canary2.txt\n*** End Patch" }),
        (r, i) => patches(ws).invoke("apply_patches", { patch: "diff --git a/swap/canary2.txt b/swap/canary.txt\nrename from swap/canary2.txt\nrename to swap/canary.txt\n" }),
      ];
      // find_files lists only what the directory holds inside (the outside one has other names)
      const listedOutside = [];
      const checkListed = (out) => {
        for (const item of out.content?.items ?? out.data?.items ?? []) {
          if (!/^swap\/(canary2?\.txt|pwned\.txt|d\d+\/inside\d\.txt|new-[\d-]+\.txt|dir-[\d-]+\/(deep\/)?new\.txt)$/.test(item.path)) listedOutside.push(item.path);
        }
        return out;
      };
      // The walking tools have the longest windows: more rounds of them alone.
      const walkers = [searchSwap, findViaInvoke, findViaWrapper];
      let attempts = 0;
      try {
        for (let round = 0; round < 90; round++) {
          const pick = round < 60 ? calls : walkers;
          const batch = Array.from({ length: 33 }, (_, i) => pick[i % pick.length](round, i).then((out) => out, (e) => e.message));
          for (const out of await Promise.all(batch)) assertNoMarker(out, "race");
          attempts += batch.length;
        }
      } finally {
        stop = true;
        await swapper;
      }
      attacks += attempts;
      assert.ok(linked > 0, "the swap to a symlink happened");
      assert.deepEqual(listedOutside, [], "find_files listed only the names inside");
      // the swapped-in symlink may be left parked as a name inside; outside nothing changed
      assertNothingOutsideChanged(ws, before, "race");
    } finally {
      ws.cleanup();
    }
  });
});
