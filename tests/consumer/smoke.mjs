// ESM consumer: `import` by package name, the whole suite, and one module instance shared with
// `require` of the same package.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as atn from "agent-tools-native";
import { everyTool, runSuite } from "./suite.mjs";

const called = await runSuite(atn);
assert.deepEqual(called.sort(), everyTool(atn));
assert.equal(createRequire(import.meta.url)("agent-tools-native").ToolCatalog, atn.ToolCatalog);
const runtime = typeof Bun === "undefined" ? `node ${process.version}` : `bun ${Bun.version}`;
console.log(`smoke (esm, ${runtime}, ${process.platform}-${process.arch}): ${called.length} tools passed`);
