// The scenarios every framework adapter is tested with (__test__/adapters_<framework>.test.mjs):
// a multi-step tool call driven by the framework's own loop and its own fake model — a read (a
// built-in, an opt-in tool and a user tool in one step), a write refused by the write scope, a
// write rejected and one approved by the review hook, a large output paged through the output
// cache, an abort through the framework's signal.
//
// Each test file gives `drive({ tools, steps, signal })`: it runs the framework's loop over `tools`
// (the adapter's output) with a fake model that answers request i with `steps[i](seen)`, where
// `seen` is the list of tool results the model was sent in that request, as
// `{ id, name, text, isError }` (`isError` undefined when the framework has no such flag); a step
// returns `{ calls: [{ id, name, args }] }` or `{ text }`. `drive` resolves `{ text, requests }`:
// the run's final text and every request's `seen`.
import { test } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { createAgentToolkit, createToolContext, defineTool, OutputCache } from "agent-tools-native";
import { tempDir, waitUntil } from "./helpers.mjs";

const ALLOW_ALL = { tools: {}, defaultPolicy: "allow" };
const BIG_LINES = 3000;

function setup({ writeScope } = {}) {
  const { dir, cleanup } = tempDir("atn-adapters-");
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "src", "a.txt"), "hello from a\n");
  fs.writeFileSync(path.join(dir, "src", "big.txt"), Array.from({ length: BIG_LINES }, (_, i) => `big line ${i + 1}`).join("\n"));
  const context = createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL, writeScope });
  const shout = defineTool({
    name: "shout",
    description: "Upper-cases a word.",
    input: z.object({ word: z.string() }),
    execute: ({ word }) => word.toUpperCase(),
  });
  const note = defineTool({
    name: "note",
    description: "Appends a line to notes.txt.",
    input: z.object({ line: z.string() }),
    writes: true,
    execute: ({ line }) => {
      fs.appendFileSync(path.join(dir, "notes.txt"), `${line}\n`);
      return "noted";
    },
  });
  const toolkit = createAgentToolkit(context, { tools: [shout, note], extraTools: ["find_files"] });
  return { dir, toolkit, cleanup };
}

const call = (id, name, args) => ({ id, name, args });
const byName = (seen, name) => {
  const found = seen.find((r) => r.name === name);
  assert.ok(found, `the model was sent a result of ${name}: ${JSON.stringify(seen)}`);
  return found;
};

/**
 * Registers the five scenarios for one framework. `adapt(toolkit, options)` is the adapter
 * (e.g. toAISDKTools); `drive` as above. `errorFlag`: whether the framework marks a failed tool
 * result as an error (`isError` true, false otherwise); without one (the OpenAI Agents SDK) the
 * failure is in the text alone and `isError` must stay undefined. `abortResolves`: the framework
 * resolves an aborted run as it stood (Mastra) instead of rejecting it.
 */
export function adapterScenarios(framework, adapt, drive, { errorFlag = true, abortResolves = false } = {}) {
  /** A result the model reads as a success. */
  const succeeded = (r) => assert.equal(r.isError, errorFlag ? false : undefined, r.text);
  /** A result the model reads as a failure, in the framework's own form. */
  const failed = (r) => assert.equal(r.isError, errorFlag ? true : undefined, r.text);
  test(`${framework}: a process started in one step is read and killed in the next; nothing is left after close()`, async () => {
    const { dir, cleanup } = tempDir("atn-adapters-proc-");
    const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL }), { extraTools: ["process_start", "process_read", "process_kill"] });
    try {
      const tools = adapt(toolkit, { approval: "none" });
      const script = "console.log('ready'); setInterval(() => {}, 1000);";
      const { requests } = await drive({
        tools,
        steps: [
          () => ({ calls: [call("p1", "process_start", { cwd: dir, command: [process.execPath, "-e", script], shell_mode: "direct", wait_for: "ready", wait_ms: 30000 })] }),
          // read and kill in separate steps: a framework may run one step's calls concurrently,
          // and a kill that ends first forgets the process before the read looks it up
          (seen) => ({ calls: [call("p2", "process_read", { process_id: JSON.parse(byName(seen, "process_start").text).process_id })] }),
          (seen) => ({ calls: [call("p3", "process_kill", { process_id: JSON.parse(byName(seen, "process_read").text).process_id })] }),
          () => ({ text: "stopped" }),
        ],
      });
      const started = JSON.parse(byName(requests[1], "process_start").text);
      assert.equal(started.status, "running");
      assert.match(started.output, /^ready\r?\n$/);
      const read = JSON.parse(byName(requests[2], "process_read").text);
      assert.equal(read.process_id, started.process_id);
      assert.equal(read.status, "running");
      assert.equal(JSON.parse(byName(requests[3], "process_kill").text).status, "exited");
    } finally {
      await toolkit.close();
      cleanup();
    }
  });

  test(`${framework}: a read — a built-in, an opt-in tool and a user tool in one step, then a final answer`, async () => {
    const { toolkit, cleanup } = setup();
    try {
      const tools = adapt(toolkit);
      const { text, requests } = await drive({
        tools,
        steps: [
          () => ({ calls: [call("c1", "read_file", { path: "src/a.txt" }), call("c2", "find_files", { pattern: "**/*.txt" }), call("c3", "shout", { word: "hey" })] }),
          (seen) => ({ text: `read: ${JSON.parse(byName(seen, "read_file").text).content.trim()}` }),
        ],
      });
      assert.equal(text, "read: hello from a");
      assert.equal(requests.length, 2);
      assert.deepEqual(requests[0], []);
      const seen = requests[1];
      assert.equal(JSON.parse(byName(seen, "read_file").text).content, "hello from a\n");
      assert.match(byName(seen, "find_files").text, /src\/big\.txt/);
      assert.equal(byName(seen, "shout").text, "HEY");
      for (const r of seen) succeeded(r);
    } finally {
      cleanup();
    }
  });

  test(`${framework}: a write refused by the write scope reaches the model as an error it reads, and the run goes on`, async () => {
    const { dir, toolkit, cleanup } = setup({ writeScope: "read-only" });
    try {
      const { text, requests } = await drive({
        tools: adapt(toolkit, { approval: "none" }),
        steps: [
          () => ({ calls: [call("w1", "write_file", { path: "src/new.txt", content: "x" })] }),
          (seen) => ({ text: `saw: ${byName(seen, "write_file").text}` }),
        ],
      });
      const result = byName(requests[1], "write_file");
      // the precise code, where invoke keeps its drop-in TOOL_NOT_ALLOWED
      assert.match(result.text, /Error executing tool: WRITE_SCOPE_DENIED: \[Sandbox Violation\] Write operation denied/);
      failed(result);
      assert.equal(text, `saw: ${result.text}`);
      assert.equal(fs.existsSync(path.join(dir, "src", "new.txt")), false);
    } finally {
      cleanup();
    }
  });

  test(`${framework}: the review hook rejects one write (it never runs) and approves the next, and a user tool that writes`, async () => {
    const { dir, toolkit, cleanup } = setup();
    const asked = [];
    try {
      const review = async (request) => {
        asked.push({ id: request.id, name: request.name, preview: request.preview });
        return request.preview.path === "src/no.txt" ? { decision: "reject", reason: "not this file" } : { decision: "approve" };
      };
      const { requests } = await drive({
        tools: adapt(toolkit, { review }),
        steps: [
          () => ({ calls: [call("r1", "read_file", { path: "src/a.txt" })] }),
          () => ({ calls: [call("w1", "write_file", { path: "src/no.txt", content: "no" })] }),
          () => ({ calls: [call("w2", "write_file", { path: "src/yes.txt", content: "yes" })] }),
          () => ({ calls: [call("n1", "note", { line: "a user tool that writes" })] }),
          () => ({ text: "written" }),
        ],
      });
      // read_file is not reviewed; each write is, with its preview and the framework's call id.
      assert.deepEqual(asked, [
        { id: "w1", name: "write_file", preview: { kind: "write_file", path: "src/no.txt", content: "no" } },
        { id: "w2", name: "write_file", preview: { kind: "write_file", path: "src/yes.txt", content: "yes" } },
        { id: "n1", name: "note", preview: { kind: "tool", args: { line: "a user tool that writes" } } },
      ]);
      // a rejection reaches the model in the framework's error form where it has one
      const rejected = byName(requests[2], "write_file");
      assert.match(rejected.text, /^(Error: )?Rejected by review: not this file$/);
      failed(rejected);
      assert.equal(fs.existsSync(path.join(dir, "src", "no.txt")), false);
      assert.match(byName(requests[3], "write_file").text, /"path":"src\/yes\.txt"/);
      assert.equal(fs.readFileSync(path.join(dir, "src", "yes.txt"), "utf8"), "yes");
      assert.equal(byName(requests[4], "note").text, "noted");
      assert.equal(fs.readFileSync(path.join(dir, "notes.txt"), "utf8"), "a user tool that writes\n");
    } finally {
      cleanup();
    }
  });

  test(`${framework}: a large output comes back as its first lines and a ref id, paged and searched through the output cache tools`, async () => {
    const { toolkit, cleanup } = setup();
    try {
      const cache = new OutputCache();
      const tools = adapt(toolkit, { outputCache: cache, maxOutputChars: 2000 });
      const names = toolNames(tools);
      assert.ok(names.includes("tool_output_cache") && names.includes("tool_output_cache_grep"), names.join(", "));
      let ref;
      const { text, requests } = await drive({
        tools,
        steps: [
          () => ({ calls: [call("b1", "read_file", { path: "src/big.txt", max_lines: 500 })] }),
          (seen) => {
            ref = /ref_id "(out-\d+)"/.exec(byName(seen, "read_file").text)?.[1];
            return {
              calls: [
                call("p1", "tool_output_cache", { ref_id: ref, offset: 250, limit: 3 }),
                call("g1", "tool_output_cache_grep", { ref_id: ref, pattern: "big line 499" }),
              ],
            };
          },
          () => ({ text: "paged" }),
        ],
      });
      assert.equal(text, "paged");
      const first = byName(requests[1], "read_file").text;
      assert.equal(ref, "out-1");
      assert.ok(first.length < 2000, `the model got ${first.length} chars`);
      assert.match(first, /^\[output too long to return whole \(\d+ chars, \d+ lines\); ref_id "out-1"/);
      assert.match(first, /\n {2}big line 1\n {2}big line 2\n/);
      // The cached output is the read_file result as lines: the file's line N is one line of it.
      const paged = byName(requests[2], "tool_output_cache").text;
      assert.match(paged, /continue with offset=253/);
      const page = paged.split("\n").filter((line) => line.includes("\t"));
      assert.equal(page.length, 3);
      const numbers = page.map((line) => Number(/^\s*(\d+)\t {2}big line (\d+)$/.exec(line)?.[2]));
      assert.deepEqual(numbers, [numbers[0], numbers[0] + 1, numbers[0] + 2]);
      assert.ok(numbers[0] > 200 && numbers[0] < 250, page.join("\n"));
      assert.match(byName(requests[2], "tool_output_cache_grep").text, /^\d+: {2}big line 499$/m);
    } finally {
      cleanup();
    }
  });

  test(`${framework}: aborting the framework's signal stops a running command (its process is killed) and ends the run`, async () => {
    const { dir, toolkit, cleanup } = setup();
    const pidFile = path.join(dir, "pid");
    try {
      const controller = new AbortController();
      const run = drive({
        tools: adapt(toolkit, { approval: "none" }),
        signal: controller.signal,
        steps: [
          () => ({
            calls: [call("x1", "exec_command", { cwd: ".", shell_mode: "direct", command: [process.execPath, "-e", SLEEPER, pidFile] })],
          }),
          () => ({ text: "the command finished" }),
        ],
      });
      const settled = run.then(
        (result) => ({ resolved: result }),
        (error) => error,
      );
      await waitUntil(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").trim() !== "", "the command to start");
      const pid = Number(fs.readFileSync(pidFile, "utf8"));
      assert.ok(alive(pid));
      controller.abort();
      const outcome = await settled;
      if (abortResolves) {
        // The run resolves as it stood: the model was never asked again, so the command's
        // result never reached it.
        assert.ok(outcome && "resolved" in outcome, `the run resolves: ${outcome?.name}: ${outcome?.message}`);
        assert.equal(outcome.resolved.requests.length, 1, "the model was not called after the abort");
        assert.notEqual(outcome.resolved.text, "the command finished");
      } else {
        assert.ok(!(outcome && "resolved" in outcome), "the run rejects");
        assert.ok(isAbortLike(outcome), `an abort error: ${outcome?.name}: ${outcome?.message}`);
      }
      await waitUntil(() => !alive(pid), "the command's process to be killed");
    } finally {
      cleanup();
    }
  });
}

/** A script for this runtime that writes its pid to the file named by its argument, then sleeps a minute. */
const SLEEPER = 'require("node:fs").writeFileSync(process.argv.at(-1), String(process.pid)); setTimeout(() => {}, 60_000);';

function toolNames(tools) {
  if (Array.isArray(tools)) return tools.map((t) => t.name);
  return Object.keys(tools);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Frameworks report an abort their own way: an AbortError, or an error whose name or message says so. */
export function isAbortLike(error) {
  if (!error || typeof error !== "object") return false;
  return error.name === "AbortError" || /abort/i.test(`${error.name} ${error.message}`);
}
