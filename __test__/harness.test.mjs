// The suites' test API (harness.mjs): under this runtime, every test that does not run is counted
// as a skip and listed with its reason, a skipped describe's tests one by one.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CHILD_RUNTIME_ARGS } from "./helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const DESCRIBED = "needs what this machine lacks";
/** The fixture's skipped tests: describe path, name, reason. */
const SKIPPED = [
  [["a skipped describe"], "its test", DESCRIBED],
  [["a skipped describe"], "its test with options", DESCRIBED],
  [["a skipped describe", "a nested describe"], "the nested test", DESCRIBED],
  [["a describe that runs"], "a skipped test", "a test's own reason"],
];

/** harness_fixture.mjs run by this runtime's test runner: its exit status and output. */
function runFixture() {
  const env = { ...process.env };
  // Under `node --test`, a test process is told so; the runner started here is a runner of its own.
  delete env.NODE_TEST_CONTEXT;
  const args = process.versions.bun
    ? ["test", ...CHILD_RUNTIME_ARGS, "./__test__/harness_fixture.mjs"]
    : ["--test", "--test-reporter=tap", path.join(here, "harness_fixture.mjs")];
  const run = spawnSync(process.execPath, args, { cwd: path.join(here, ".."), env, encoding: "utf8", timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("skips are counted and listed one by one", () => {
  test("a skipped describe's tests, with its reason; a skipped test with its own; hooks of a skipped describe do not run", { timeout: 120_000 }, () => {
    const { status, output } = runFixture();
    assert.equal(status, 0, output);
    const lines = output.split(/\r?\n/);
    const total = (re) => lines.map((l) => re.exec(l)?.[1]).filter(Boolean).map(Number);
    if (process.versions.bun) {
      assert.deepEqual([total(/^ *(\d+) pass$/), total(/^ *(\d+) skip$/), total(/^ *(\d+) fail$/)], [[2], [SKIPPED.length], [0]], output);
      const listed = lines.filter((l) => l.startsWith("(skip) ")).map((l) => l.slice("(skip) ".length));
      const reasons = lines.filter((l) => l.startsWith("skipped: ")).map((l) => l.slice("skipped: ".length));
      assert.deepEqual(listed.sort(), SKIPPED.map(([within, name]) => [...within, name].join(" > ")).sort(), output);
      assert.deepEqual(reasons.sort(), SKIPPED.map(([within, name, why]) => `${[...within, name].join(" > ")} # ${why}`).sort(), output);
    } else {
      assert.deepEqual([total(/^# tests (\d+)$/), total(/^# pass (\d+)$/), total(/^# skipped (\d+)$/), total(/^# fail (\d+)$/)], [[6], [2], [SKIPPED.length], [0]], output);
      const listed = lines.map((l) => /^ *ok \d+ - (.*) # SKIP (.*)$/.exec(l)).filter(Boolean).map(([, name, why]) => `${name} # ${why}`);
      assert.deepEqual(listed.sort(), SKIPPED.map(([, name, why]) => `${name} # ${why}`).sort(), output);
    }
  });

  test("a skip without a reason, and arguments that are not (name, [options], fn), are refused", () => {
    assert.throws(() => test("x", { skip: true }, () => {}), /a skip needs its reason/);
    assert.throws(() => describe("x", { skip: "" }, () => {}), /a skip needs its reason/);
    // options in two objects: the second would be taken for the function, the body never run
    assert.throws(() => test("x", {}, { timeout: 1 }, () => {}), /expected \(name, fn\) or \(name, options, fn\)/);
    assert.throws(() => test("x", {}), /expected/);
    assert.throws(() => describe("x"), /expected/);
  });

  test("every suite takes test, describe and the hooks from harness.mjs", () => {
    const direct = fs
      .readdirSync(here)
      .filter((f) => f.endsWith(".mjs") && f !== "harness.mjs")
      .filter((f) => /\bfrom\s+["'](node:test|bun:test)["']|require\(["'](node:test|bun:test)["']\)|import\(["'](node:test|bun:test)["']\)/.test(fs.readFileSync(path.join(here, f), "utf8")));
    assert.deepEqual(direct, []);
  });
});
