// The shipped JavaScript layer is generated: js/*.cjs, their declarations js/*.d.cts and the
// typings entry index.d.ts are what `npm run build:ts` (scripts/build-ts.mjs) makes of ts/*.cts,
// and js/output_schemas.json what it makes of the output types in types/tools.d.ts.
// The build runs into a temporary directory here and every file must match the checked-in one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const generated = (dir) => [
  ...fs.readdirSync(path.join(dir, "js")).filter((f) => /\.(cjs|d\.cts|json)$/.test(f)).map((f) => `js/${f}`),
  "index.d.ts",
];

test("js/*.cjs, js/*.d.cts, js/output_schemas.json and index.d.ts are fresh (npm run build:ts)", { timeout: 120_000 }, () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "atn-build-ts-"));
  try {
    const run = spawnSync(process.execPath, [path.join(repo, "scripts", "build-ts.mjs"), "--out", out], { cwd: repo, encoding: "utf8" });
    assert.equal(run.status, 0, `the build failed:\n${run.stdout}${run.stderr}`);
    const built = generated(out).sort();
    assert.deepEqual(generated(repo).sort(), built, "js/ holds exactly the built files (and index.mjs)");
    const stale = built.filter((f) => fs.readFileSync(path.join(out, f), "utf8") !== fs.readFileSync(path.join(repo, f), "utf8"));
    assert.deepEqual(stale, [], "stale generated files: run `npm run build:ts` and commit them");
    assert.deepEqual(fs.readdirSync(path.join(repo, "js")).filter((f) => !built.includes(`js/${f}`)), ["index.mjs"]);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
