// CommonJS consumer: `require` by package name, the whole suite.
const assert = require("node:assert/strict");
const atn = require("agent-tools-native");

(async () => {
  const { everyTool, runSuite } = await import("./suite.mjs");
  const called = await runSuite(atn);
  assert.deepEqual(called.sort(), everyTool(atn));
  const runtime = typeof Bun === "undefined" ? `node ${process.version}` : `bun ${Bun.version}`;
  console.log(`smoke (cjs, ${runtime}, ${process.platform}-${process.arch}): ${called.length} tools passed`);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
