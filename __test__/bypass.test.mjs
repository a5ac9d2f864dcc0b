import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { SecurityBypass } from "agent-tools-native";
import { workspace, rejection } from "./helpers.mjs";

const DENY_ALL = { tools: {}, defaultPolicy: "deny" };

describe("SecurityBypass", () => {
  test("run returns a promise, passes values and rejections through", async () => {
    const sync = SecurityBypass.run(() => 42);
    assert.ok(sync instanceof Promise);
    assert.equal(await sync, 42);
    assert.equal(await SecurityBypass.run(async () => "v"), "v");
    const err = await rejection(SecurityBypass.run(() => { throw new Error("boom"); }));
    assert.equal(err.message, "boom");
  });

  test("isEnabled is scoped to the task's async call tree", async () => {
    assert.equal(SecurityBypass.isEnabled(), false);
    const seen = await SecurityBypass.run(async () => {
      await null;
      const inTimer = await new Promise((resolve) => setTimeout(() => resolve(SecurityBypass.isEnabled()), 1));
      return [SecurityBypass.isEnabled(), inTimer];
    });
    assert.deepEqual(seen, [true, true]);
    assert.equal(SecurityBypass.isEnabled(), false);
  });

  test("bypass skips the policy check only, and only inside the scope", async () => {
    const ws = workspace(DENY_ALL);
    try {
      let release;
      const gate = new Promise((r) => { release = r; });
      const inside = SecurityBypass.run(async () => {
        await gate;
        return ws.toolkit.tools.read_file("missing.txt");
      });
      // a concurrent call started outside the scope is still denied
      const outside = await ws.toolkit.tools.read_file("missing.txt");
      release();
      assert.equal(outside.reason, "policy");
      const result = await inside;
      assert.equal(result.status, "failure");
      assert.match(result.message, /^NOT_FOUND: path not found: /);

      const viaInvoke = await rejection(SecurityBypass.run(() => ws.toolkit.invoke("read_file", { path: "missing.txt" })));
      assert.equal(viaInvoke.code, "NOT_FOUND");
      // the sandbox still applies
      const escape = await SecurityBypass.run(() => ws.toolkit.tools.read_file("../outside/canary.txt"));
      assert.equal(escape.reason, "sandbox");
      // getAllowedTools is not affected
      assert.deepEqual(await SecurityBypass.run(() => ws.toolkit.getAllowedTools()), []);
    } finally {
      ws.cleanup();
    }
  });

  test("bypass does not skip the write scope", async () => {
    const ws = workspace(DENY_ALL, "read-only");
    try {
      const result = await SecurityBypass.run(() => ws.toolkit.tools.write_file("a.txt", "x"));
      assert.equal(result.reason, "sandbox");
    } finally {
      ws.cleanup();
    }
  });

  test("enforce switches the bypass off, also inside run (docs/compat.md)", async () => {
    const ws = workspace(DENY_ALL);
    try {
      assert.equal(await SecurityBypass.enforce(() => SecurityBypass.isEnabled()), false);
      const nested = await SecurityBypass.run(() =>
        SecurityBypass.enforce(async () => [SecurityBypass.isEnabled(), await ws.toolkit.tools.read_file("x")]),
      );
      assert.equal(nested[0], false);
      assert.equal(nested[1].reason, "policy");
      assert.equal(await SecurityBypass.run(() => SecurityBypass.enforce(() => 1).then(() => SecurityBypass.isEnabled())), true);
    } finally {
      ws.cleanup();
    }
  });
});
