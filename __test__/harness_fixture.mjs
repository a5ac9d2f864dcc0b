// Run by harness.test.mjs, in a process of its own: skips of every kind, each test failing if it
// runs (a hook in a skipped describe too), and two tests that run.
import { test, describe, before, beforeEach, after, afterEach } from "./harness.mjs";

const ran = (what) => () => {
  throw new Error(`${what} ran`);
};

describe("a skipped describe", { skip: "needs what this machine lacks" }, () => {
  before(ran("its before hook"));
  beforeEach(ran("its beforeEach hook"));
  afterEach(ran("its afterEach hook"));
  after(ran("its after hook"));
  test("its test", ran("its test"));
  test("its test with options", { timeout: 1000, skip: "a reason of its own" }, ran("its test with options"));
  describe("a nested describe", () => {
    test("the nested test", ran("the nested test"));
  });
});

describe("a describe that runs", () => {
  test("a skipped test", { skip: "a test's own reason" }, ran("the skipped test"));
  test("a test not skipped", { skip: false }, () => {});
});

test("a top-level test", () => {});
