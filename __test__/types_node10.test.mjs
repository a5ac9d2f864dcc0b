// The subpath entries' types (agent-tools-native/ai, …) for a consumer still on the older
// `moduleResolution: "node"`, which reads no `exports`: package.json's typesVersions maps them.
// A consumer directory links this package in as its dependency and type-checks
// tests/consumer/typed-node10.ts.
import { test } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { onlyOn, tempDir } from "./helpers.mjs";

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");

test("moduleResolution node finds the subpath entries' types (typesVersions)", { ...onlyOn(["unix"], "a type check, the same on every system (it links the package in with a symlink)"), timeout: 120_000 }, () => {
  const { dir, cleanup } = tempDir("atn-node10-");
  try {
    fs.mkdirSync(path.join(dir, "node_modules"));
    fs.symlinkSync(repo, path.join(dir, "node_modules", "agent-tools-native"), "junction");
    fs.symlinkSync(path.join(repo, "node_modules", "@types"), path.join(dir, "node_modules", "@types"), "junction");
    for (const f of ["typed-node10.ts", "tsconfig.node10.json"]) fs.copyFileSync(path.join(repo, "tests", "consumer", f), path.join(dir, f));
    const tsc = spawnSync(process.execPath, [path.join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.node10.json"], { cwd: dir, encoding: "utf8" });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  } finally {
    cleanup();
  }
});
