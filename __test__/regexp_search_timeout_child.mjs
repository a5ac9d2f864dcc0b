// Child process of regexp_search.test.mjs, started with AGENT_TOOLS_NATIVE_TEST_HOOKS=1 and
// AGENT_TOOLS_NATIVE_SEARCH_PAUSE_MS: every regexp_search sleeps that long as it starts, its
// timeout already counting (a test hook), so a search with a shorter timeout_ms cannot finish in
// time on any machine. Searches through invoke and toolkit.tools.*, with a timeout_ms under the
// pause and with one far above it; prints one JSON report on stdout, which the parent asserts on.
import fs from "node:fs";
import path from "node:path";
import { workspace } from "./helpers.mjs";

const [short, long] = process.argv.slice(2).map(Number);

/** What a promise ended in, in plain JSON. */
async function observe(promise) {
  try {
    return { resolved: await promise };
  } catch (error) {
    return { rejected: { isError: error instanceof Error, name: error.name, code: error.code, message: error.message } };
  }
}

const ws = workspace();
try {
  fs.writeFileSync(path.join(ws.root, "src", "a.txt"), "TODO\n");
  const input = (timeout_ms) => ({ pattern: "TODO", timeout_ms });
  const report = {
    invoke: await observe(ws.toolkit.invoke("regexp_search", input(short))),
    wrapper: await observe(ws.toolkit.tools.regexp_search(input(short))),
    control: await observe(ws.toolkit.invoke("regexp_search", input(long)).then((out) => out.content.items.map((i) => i.path))),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  ws.cleanup();
}
