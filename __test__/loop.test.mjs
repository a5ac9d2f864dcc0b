import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { z } from "zod";
import { createAgentToolkit, defineTool, doneTool, runToolLoop, streamToolLoop } from "agent-tools-native";
import { workspace, PROMPTLY_MS, waitUntil, onlyOn, NEEDS, notUnderWine, WINE } from "./helpers.mjs";

const text = (t) => ({ type: "text", text: t });
const use = (id, name, input) => ({ type: "tool_use", id, name, input });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A scripted model: each response in turn; records what it was sent. */
function scripted(responses) {
  const sent = [];
  let i = 0;
  const next = () => {
    const r = responses[Math.min(i++, responses.length - 1)];
    return typeof r === "function" ? r() : r;
  };
  return {
    sent,
    async sendWithTools(prompt, tools, options) {
      sent.push({ prompt, tools: tools.map((t) => t.function.name) });
      options.emit({ type: "text_delta", text: "thinking" });
      return next();
    },
    async sendToolResults(results) {
      sent.push({ results });
      return next();
    },
  };
}

/** A tool that records its running interval. `unref`: its timer keeps no process alive. */
function timedTool(name, ms, log, writes = false, unref = false) {
  return defineTool({
    name, description: name, writes, input: z.object({ tag: z.string() }),
    execute: async ({ tag }) => {
      const start = performance.now();
      await (unref ? new Promise((r) => setTimeout(r, ms).unref()) : sleep(ms));
      log.push({ tag, start, end: performance.now() });
      return tag;
    },
  });
}

/**
 * A read-only tool whose calls each wait until `n` of them are running at once (or 10 s passed),
 * recording the most that ran at once in `stats.peak`: calls run one at a time reach 1, whatever
 * the machine's speed.
 */
function latchedRead(name, n, log, stats) {
  let running = 0;
  stats.peak = 0;
  let release;
  const allStarted = new Promise((r) => { release = r; });
  return defineTool({
    name, description: name, input: z.object({ tag: z.string() }),
    execute: async ({ tag }) => {
      const start = performance.now();
      running++;
      stats.peak = Math.max(stats.peak, running);
      if (running === n) release();
      let timer;
      await Promise.race([allStarted, new Promise((r) => { timer = setTimeout(r, 10_000); })]);
      clearTimeout(timer);
      running--;
      log.push({ tag, start, end: performance.now() });
      return tag;
    },
  });
}

function setup(tools = [], policy) {
  const ws = workspace(policy);
  fs.writeFileSync(path.join(ws.root, "a.txt"), "alpha\n");
  return { ...ws, toolkit: createAgentToolkit(ws.context, { tools }) };
}

describe("tool output text", () => {
  test("a built-in's output is JSON.stringify of the value invoke returns, for every read tool", notUnderWine(WINE.git), async () => {
    const ws = setup();
    try {
      fs.writeFileSync(path.join(ws.root, "b.ts"), "const x = f(1);\n// é \u2028 \u0001 \"q\"\n");
      fs.utimesSync(path.join(ws.root, "a.txt"), 1_700_000_000, 1_700_000_000); // a whole-ms mtime
      execFileSync("git", ["init", "-q"], { cwd: ws.root });
      await ws.toolkit.invoke("task_create_many", { tasks: [{ title: "one" }] });
      const calls = [
        ["read_file", { path: "a.txt" }],
        ["read_file", { path: "b.ts", max_lines: 1 }],
        ["tree", { path: ".", entry_kind: "all" }],
        ["regexp_search", { pattern: "f\\(", root_path: "." }],
        ["ast_grep_search", { language: "typescript", rule: { pattern: "f($X)" } }],
        ["git_status_summary", {}],
        ["task_list", {}],
        ["task_validate_completion", {}],
      ];
      const session = scripted([
        { content: calls.map(([name, input], i) => use(`c${i}`, name, input)), stopReason: "tool_use" },
        { content: [text("done")], stopReason: "end_turn" },
      ]);
      await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go" });
      const outputs = session.sent[1].results.map((r) => r.output);
      const untimed = (value) => JSON.parse(JSON.stringify(value, (key, v) => (key === "took_ms" ? 0 : v)));
      for (const [i, [name, input]] of calls.entries()) {
        assert.equal(outputs[i], JSON.stringify(JSON.parse(outputs[i])), name);
        const { content } = await ws.toolkit.invoke(name, input);
        assert.deepEqual(untimed(JSON.parse(outputs[i])), untimed(content), name);
      }
      assert.match(outputs[0], /"mtime_ms":1700000000000[,}]/);
    } finally {
      ws.cleanup();
    }
  });
});

describe("stop reasons and turns", () => {
  test("end_turn returns the text; tool results pair with calls in order", async () => {
    const ws = setup();
    try {
      const session = scripted([
        { content: [text("reading"), use("c1", "read_file", { path: "a.txt" }), use("c2", "tree", '{"path":"."}')], stopReason: "tool_use" },
        { content: [text("all good")], stopReason: "end_turn" },
      ]);
      const result = await runToolLoop({ session, toolkit: ws.toolkit, prompt: "check" });
      assert.equal(result.stopReason, "end_turn");
      assert.equal(result.text, "all good");
      const results = session.sent[1].results;
      assert.deepEqual(results.map((r) => [r.tool_use_id, r.tool_name, r.is_error, r.is_rejected]), [["c1", "read_file", false, false], ["c2", "tree", false, false]]);
      assert.equal(JSON.parse(results[0].output).content, "alpha\n");
      assert.deepEqual(Object.keys(results[0]), ["tool_use_id", "tool_name", "output", "is_error", "is_rejected"]);
      assert.equal(result.turns.length, 1);
      assert.deepEqual(result.messages.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
      assert.ok(session.sent[0].tools.includes("read_file"), "the allowed tools are offered");
    } finally {
      ws.cleanup();
    }
  });

  test("calls from a max_tokens turn are never executed", async () => {
    const ws = setup();
    try {
      const session = scripted([{ content: [use("c1", "write_file", { path: "w.txt", content: "x" })], stopReason: "max_tokens" }]);
      const result = await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go" });
      assert.equal(result.stopReason, "max_tokens");
      assert.equal(fs.existsSync(path.join(ws.root, "w.txt")), false);
      assert.equal(session.sent.length, 1);
    } finally {
      ws.cleanup();
    }
  });

  test("calls decide over the label; other stop reasons end the loop", async () => {
    const ws = setup();
    try {
      const session = scripted([
        { content: [use("c1", "read_file", { path: "a.txt" })], stopReason: "stop" },
        { content: [text("filtered")], stopReason: "content_filter" },
      ]);
      const result = await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go" });
      assert.equal(session.sent.length, 2, "the call with a 'stop' label ran");
      assert.deepEqual(result.stopReason, { other: "content_filter" });
    } finally {
      ws.cleanup();
    }
  });

  test("the turn limit stops a model that never ends", async () => {
    const ws = setup();
    try {
      let n = 0;
      const session = scripted([() => ({ content: [use(`c${++n}`, "read_file", { path: "a.txt" })], stopReason: "tool_use" })]);
      const result = await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go", maxToolTurns: 3 });
      assert.equal(result.stopReason, "max_tool_turns");
      assert.equal(result.turns.length, 3);
      await assert.rejects(runToolLoop({ session, toolkit: ws.toolkit, prompt: "x", maxToolTurns: 0 }), /maxToolTurns/);
    } finally {
      ws.cleanup();
    }
  });

  test("the done tool ends the run with its message", async () => {
    const ws = setup([doneTool]);
    try {
      const session = scripted([{ content: [use("d", "done", { message: "finished" })], stopReason: "tool_use" }, { content: [text("never")], stopReason: "end_turn" }]);
      const result = await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go" });
      assert.equal(result.stopReason, "done");
      assert.equal(result.text, "finished");
      assert.equal(session.sent.length, 1);
    } finally {
      ws.cleanup();
    }
  });
});

describe("scheduling by risk", () => {
  test("read-only calls overlap in time; write calls run one at a time in model order", { timeout: 120_000 }, async () => {
    const log = [];
    const reading = {};
    const ws = setup([latchedRead("slow_read", 4, log, reading), timedTool("slow_write", 60, log, true)]);
    try {
      const calls = [
        use("w1", "slow_write", { tag: "w1" }), use("r1", "slow_read", { tag: "r1" }), use("r2", "slow_read", { tag: "r2" }),
        use("w2", "slow_write", { tag: "w2" }), use("r3", "slow_read", { tag: "r3" }), use("r4", "slow_read", { tag: "r4" }),
      ];
      const session = scripted([{ content: calls, stopReason: "tool_use" }, { content: [text("ok")], stopReason: "end_turn" }]);
      await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go" });
      const span = (tag) => log.find((l) => l.tag === tag);
      const reads = ["r1", "r2", "r3", "r4"].map(span);
      assert.equal(reading.peak, 4, "all four reads were running at the same moment");
      const [w1, w2] = [span("w1"), span("w2")];
      assert.ok(w1.end <= w2.start, "writes never overlap and keep the model's order");
      assert.ok(reads.every((r) => r.end <= w1.start), "reads run first, then writes");
      assert.deepEqual(session.sent[1].results.map((r) => r.tool_use_id), ["w1", "r1", "r2", "w2", "r3", "r4"], "results in call order");
    } finally {
      ws.cleanup();
    }
  });
});

describe("review", () => {
  test("approve, reject and edit", async () => {
    const ws = setup();
    try {
      const requests = [];
      const decisions = { a: { decision: "approve" }, b: { decision: "reject", reason: "not this file" }, c: { decision: "edit", args: { path: "edited.txt", content: "E" } } };
      const session = scripted([
        { content: [use("a", "write_file", { path: "a-new.txt", content: "A" }), use("b", "write_file", { path: "b.txt", content: "B" }), use("c", "write_file", { path: "c.txt", content: "C" })], stopReason: "tool_use" },
        { content: [text("ok")], stopReason: "end_turn" },
      ]);
      await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go", review: async (req) => { requests.push(req); return decisions[req.id]; } });
      assert.deepEqual(requests[0].preview, { kind: "write_file", path: "a-new.txt", content: "A" });
      const results = session.sent[1].results;
      assert.equal(results[0].is_rejected, false);
      assert.deepEqual([results[1].is_rejected, results[1].is_error, results[1].output], [true, false, "Rejected by review: not this file"]);
      assert.equal(fs.readFileSync(path.join(ws.root, "a-new.txt"), "utf8"), "A");
      assert.equal(fs.existsSync(path.join(ws.root, "b.txt")), false);
      assert.equal(fs.existsSync(path.join(ws.root, "c.txt")), false);
      assert.equal(fs.readFileSync(path.join(ws.root, "edited.txt"), "utf8"), "E");
    } finally {
      ws.cleanup();
    }
  });

  test("read-only calls are not reviewed", async () => {
    const ws = setup();
    try {
      let asked = 0;
      const session = scripted([{ content: [use("r", "read_file", { path: "a.txt" })], stopReason: "tool_use" }, { content: [], stopReason: "end_turn" }]);
      await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go", review: () => { asked++; return { decision: "reject" }; } });
      assert.equal(asked, 0);
    } finally {
      ws.cleanup();
    }
  });
});

describe("robustness", () => {
  test("unknown tools, bad JSON, invalid args and tool errors become readable error results", async () => {
    const strictTool = defineTool({ name: "needs_n", description: "", input: z.object({ n: z.number() }), execute: ({ n }) => n });
    const ws = setup([strictTool], { tools: { tree: "deny" }, defaultPolicy: "allow" });
    try {
      const session = scripted([
        { content: [use("u", "no_such_tool", {}), use("j", "read_file", "{oops"), use("v", "needs_n", { n: "1" }), use("m", "read_file", { path: "missing" }), use("p", "tree", { path: "." })], stopReason: "tool_use" },
        { content: [text("I see the errors")], stopReason: "end_turn" },
      ]);
      const result = await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go" });
      const results = session.sent[1].results;
      assert.ok(results.every((r) => r.is_error));
      assert.equal(results[0].output, "Error executing tool: unknown tool: no_such_tool");
      assert.match(results[1].output, /^Error executing tool: invalid JSON arguments/);
      assert.match(results[2].output, /^Error executing tool: INVALID_ARGUMENT: n: /);
      assert.match(results[3].output, /^Error executing tool: NOT_FOUND: path not found/);
      assert.match(results[4].output, /TOOL_NOT_ALLOWED/);
      assert.equal(result.stopReason, "end_turn", "the model can go on after errors");
    } finally {
      ws.cleanup();
    }
  });

  test("a per-call timeout becomes an error result", async () => {
    const log = [];
    const ws = setup([timedTool("slow_read", 300, log)]);
    try {
      const session = scripted([{ content: [use("s", "slow_read", { tag: "s" })], stopReason: "tool_use" }, { content: [], stopReason: "end_turn" }]);
      await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go", toolTimeoutMs: 30 });
      assert.equal(session.sent[1].results[0].output, "Error executing tool: timed out after 30 ms");
    } finally {
      ws.cleanup();
    }
  });

  test("abort mid-turn: the loop ends and every call still has exactly one result", { timeout: 60_000 }, async () => {
    const log = [];
    // slow_read would hold the turn for 30 s (its timer is unref'd, so it keeps no process alive)
    const ws = setup([timedTool("slow_read", 30_000, log, false, true), timedTool("slow_write", 10, log, true)]);
    try {
      const controller = new AbortController();
      const session = scripted([{ content: [use("r", "slow_read", { tag: "r" }), use("w", "slow_write", { tag: "w" }), use("f", "read_file", { path: "a.txt" })], stopReason: "tool_use" }]);
      const started = Date.now();
      setTimeout(() => controller.abort(), 50);
      const result = await runToolLoop({ session, toolkit: ws.toolkit, prompt: "go", signal: controller.signal });
      assert.ok(Date.now() - started < PROMPTLY_MS, "returned promptly");
      assert.equal(result.stopReason, "aborted");
      const toolMessage = result.messages.find((m) => m.role === "tool");
      assert.deepEqual(toolMessage.results.map((r) => r.tool_use_id), ["r", "w", "f"]);
      assert.match(toolMessage.results[0].output, /^Cancelled/);
      assert.match(toolMessage.results[1].output, /^Cancelled/, "the write never started");
      assert.equal(log.some((l) => l.tag === "w"), false);
    } finally {
      ws.cleanup();
    }
  });
});

describe("events", () => {
  test("streamToolLoop yields the run as events, text deltas included", async () => {
    const ws = setup();
    try {
      const session = scripted([{ content: [use("c1", "read_file", { path: "a.txt" })], stopReason: "tool_use" }, { content: [text("done")], stopReason: "end_turn" }]);
      const stream = streamToolLoop({ session, toolkit: ws.toolkit, prompt: "go" });
      const types = [];
      for await (const event of stream) types.push(event.type);
      assert.deepEqual(types, ["turn_start", "text_delta", "response", "tool_start", "tool_finish", "turn_end", "turn_start", "response", "completed"]);
      assert.equal((await stream.result).text, "done");
    } finally {
      ws.cleanup();
    }
  });
});

describe("abort and processes", onlyOn(["linux"], NEEDS.processGroup), () => {
  /** Processes of a group that are still alive (zombies left to an init that does not reap are dead). */
  function livingGroupMembers(pgid) {
    const alive = [];
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) === pgid && fields[0] !== "Z") alive.push(Number(entry));
      } catch {}
    }
    return alive;
  }

  test("aborting the loop kills a running exec_command's whole process group", { timeout: 120_000 }, async () => {
    const ws = setup();
    try {
      const controller = new AbortController();
      let ownHandlerRan = 0;
      controller.signal.onabort = () => ownHandlerRan++; // the caller's handler stays theirs
      const session = scripted([{ content: [use("x", "exec_command", { cwd: ".", command: ["sh", "-c", "echo $$ > pid.txt; sleep 300 & sleep 300"], timeout_ms: 60000 })], stopReason: "tool_use" }]);
      const started = Date.now();
      const pidFile = path.join(ws.root, "pid.txt");
      const waitForPid = async () => {
        while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, "utf8").trim() === "") await sleep(10);
        return Number(fs.readFileSync(pidFile, "utf8").trim());
      };
      const running = runToolLoop({ session, toolkit: ws.toolkit, prompt: "go", signal: controller.signal, review: () => ({ decision: "approve" }) });
      const pgid = await waitForPid();
      assert.ok(livingGroupMembers(pgid).length > 0, "the group is running");
      controller.abort();
      const result = await running;
      assert.equal(result.stopReason, "aborted");
      assert.equal(ownHandlerRan, 1);
      assert.ok(Date.now() - started < PROMPTLY_MS);
      // the sleeps would live 300 s: a killed group is gone long before
      try {
        await waitUntil(() => livingGroupMembers(pgid).length === 0, "no process of the group to survive", { ms: 60_000 });
      } finally {
        for (const pid of livingGroupMembers(pgid)) process.kill(pid, "SIGKILL");
      }
    } finally {
      ws.cleanup();
    }
  });
});

describe("the process tools in the loop", () => {
  test("process_start and process_kill are reviewed (exec class), process_read is not; the model reads the output", async () => {
    const ws = workspace();
    try {
      const toolkit = createAgentToolkit(ws.context, { extraTools: ["process_start", "process_read", "process_kill"] });
      const script = "console.log('ready'); setInterval(() => {}, 1000);";
      const session = scripted([
        { content: [use("s", "process_start", { cwd: ws.root, command: [process.execPath, "-e", script], shell_mode: "direct", wait_for: "ready", wait_ms: 30000 })], stopReason: "tool_use" },
        () => {
          const started = JSON.parse(session.sent.at(-1).results[0].output);
          return { content: [use("r", "process_read", { process_id: started.process_id }), use("k", "process_kill", { process_id: started.process_id })], stopReason: "tool_use" };
        },
        { content: [text("done")], stopReason: "end_turn" },
      ]);
      const reviewed = [];
      await runToolLoop({ session, toolkit, prompt: "go", review: (req) => { reviewed.push(req.preview.kind); return { decision: "approve" }; } });
      assert.ok(session.sent[0].tools.includes("process_start"));
      assert.deepEqual(reviewed, ["process_start", "process_kill"]);
      const started = JSON.parse(session.sent[1].results[0].output);
      assert.equal(started.status, "running");
      assert.match(started.output, /^ready\r?\n$/);
      const [read, killed] = session.sent[2].results.map((r) => JSON.parse(r.output));
      assert.equal(read.status, "running");
      assert.equal(killed.status, "exited");
      await toolkit.close();
    } finally {
      ws.cleanup();
    }
  });
});
