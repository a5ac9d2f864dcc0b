// The shipped JavaScript layer is generated: js/*.cjs, their declarations js/*.d.cts and the
// typings entry index.d.ts are what `npm run build:ts` (scripts/build-ts.mjs) makes of ts/*.cts,
// and js/output_schemas.json what it makes of the output types in types/tools.d.ts.
// The build runs into a temporary directory here, and every file must match two copies:
// - the one in git's index: what the next commit holds, and in a fresh clone what HEAD holds.
//   `npm test` runs build:ts before the tests, which rewrites js/ in the working tree, so only
//   this comparison can find generated files committed stale. It needs a git checkout (the
//   published package carries no tests): outside one the test fails and says so.
// - the one in the working tree: what the other tests load.
import { test } from "./harness.mjs";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { notUnderWine, WINE } from "./helpers.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// The hand-written ESM entries: each `import` target of package.json's exports (js/index.mjs and
// the framework adapters' js/<name>.mjs), each re-exporting its CommonJS module.
const esmEntries = Object.values(JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")).exports)
  .map((entry) => entry.import.replace(/^\.\//, ""))
  .sort();
const isGenerated = (file) => file === "index.d.ts" || /^js\/[^/]+\.(cjs|d\.cts|json)$/.test(file);
const generated = (dir) => [
  ...fs.readdirSync(path.join(dir, "js")).map((f) => `js/${f}`).filter(isGenerated),
  "index.d.ts",
];

function git(...args) {
  const run = spawnSync("git", args, { cwd: repo, encoding: "utf8", maxBuffer: 1 << 28 });
  if (run.error) throw run.error;
  return run;
}

// The build takes about 10 s on an idle 2-core machine; the timeout only catches a hang.
test("js/*.cjs, js/*.d.cts, js/output_schemas.json and index.d.ts are fresh (npm run build:ts) in git's index and in the working tree", { ...notUnderWine(WINE.git), timeout: 600_000 }, () => {
  const top = git("rev-parse", "--show-toplevel");
  assert.ok(
    top.status === 0 && fs.realpathSync(top.stdout.trim()) === fs.realpathSync(repo),
    `this test compares the build with the committed files and needs ${repo} to be a git checkout: ${top.stderr.trim() || top.stdout.trim()}`,
  );
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "atn-build-ts-"));
  try {
    const run = spawnSync(process.execPath, [path.join(repo, "scripts", "build-ts.mjs"), "--out", out], { cwd: repo, encoding: "utf8" });
    assert.equal(run.status, 0, `the build failed:\n${run.stdout}${run.stderr}`);
    const built = generated(out).sort();
    const fresh = (f) => fs.readFileSync(path.join(out, f), "utf8");

    // git's index: the generated files it tracks, and their contents
    const tracked = git("ls-files", "-z", "--", "js", "index.d.ts").stdout.split("\0").filter(Boolean);
    assert.deepEqual(tracked.filter(isGenerated).sort(), built, "git tracks exactly the built files: run `npm run build:ts` and `git add js/ index.d.ts`");
    assert.deepEqual(tracked.filter((f) => !isGenerated(f)).sort(), esmEntries, "js/ in git holds only the built files and the ESM entries");
    const staleInGit = built.filter((f) => {
      const blob = git("show", `:${f}`);
      assert.equal(blob.status, 0, `git show :${f}: ${blob.stderr}`);
      return blob.stdout !== fresh(f);
    });
    assert.deepEqual(staleInGit, [], "generated files in git are stale: run `npm run build:ts` and commit js/ and index.d.ts");

    // the working tree
    assert.deepEqual(generated(repo).sort(), built, "js/ holds exactly the built files (and the ESM entries)");
    const stale = built.filter((f) => fresh(f) !== fs.readFileSync(path.join(repo, f), "utf8"));
    assert.deepEqual(stale, [], "stale generated files: run `npm run build:ts` and commit them");
    assert.deepEqual(fs.readdirSync(path.join(repo, "js")).filter((f) => !built.includes(`js/${f}`)).map((f) => `js/${f}`).sort(), esmEntries);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
