// git_status_summary against repositories written to run programs or to show what lies outside
// the workspace (README, "Reliability"): every attack, with Landlock and with it hidden (the
// layer macOS, Windows and old kernels lack for git), with the real git and with a shell-script
// git on PATH (as Nix, asdf and mise install it). The attacks run in a child process
// (git_attack_child.mjs) because hiding Landlock is a test hook of the whole process.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { tempDir, notUnderWine, onlyOn, WINE } from "./helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const child = path.join(here, "git_attack_child.mjs");

/** The child's report, run by this runtime with the test hooks on and `env` added. */
function attack(mode, env = {}) {
  const out = execFileSync(process.execPath, [child, mode], {
    encoding: "utf8",
    env: { ...process.env, AGENT_TOOLS_NATIVE_TEST_HOOKS: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(out.trim().split("\n").pop());
}

/** A directory outside every workspace holding a shell-script `git` that runs the real one. */
function shimGit() {
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const bin = tempDir("atn-shim-");
  fs.writeFileSync(path.join(bin.dir, "git"), `#!/bin/sh\nexec '${real}' "$@"\n`, { mode: 0o755 });
  return bin;
}

const REFUSED = ["core.worktree outside", "gitdir of another repository"];

function assertHeld(report) {
  assert.ok(Object.keys(report).length >= 8, JSON.stringify(report));
  for (const [name, r] of Object.entries(report)) {
    assert.equal(r.ran, false, `${name}: the program ran: ${r.text}`);
    assert.equal(r.leaked, false, `${name}: outside content reached the result: ${r.text}`);
    if (REFUSED.includes(name)) {
      assert.equal(r.ok, false, `${name}: ${r.text}`);
      assert.match(r.text, /^\[Sandbox Violation\] Attempted to access path outside of workspace: /, name);
    } else {
      assert.equal(r.ok, true, `${name}: ${r.text}`);
      assert.match(r.text, /"branch":"main"/, name);
    }
  }
}

describe("git_status_summary: no program a repository names runs, nothing outside is shown", notUnderWine(WINE.git), () => {
  const unix = onlyOn(["unix"], "shell-script programs and git's POSIX configuration");
  test("with the OS sandbox where the kernel has it", unix, () => {
    assertHeld(attack("landlock"));
  });

  test("without Landlock", unix, () => {
    assertHeld(attack("no-landlock"));
  });

  test("with a shell-script git on PATH, without Landlock", unix, () => {
    const shim = shimGit();
    try {
      assertHeld(attack("no-landlock", { PATH: `${shim.dir}:${process.env.PATH}` }));
    } finally {
      shim.cleanup();
    }
  });

  test("with a shell-script git on PATH, with the OS sandbox", unix, () => {
    const shim = shimGit();
    try {
      assertHeld(attack("landlock", { PATH: `${shim.dir}:${process.env.PATH}` }));
    } finally {
      shim.cleanup();
    }
  });

  test("a git the model wrote, reached through a relative PATH entry, never runs", unix, () => {
    const r = attack("relative-path");
    assert.equal(r.executable, true, "the attack's setup: apply_patch made the file executable");
    assert.equal(r.ran, false);
    assert.equal(r.ok, true, "the real git answered");
  });
});
