// The process tools (docs/tools/process.md): processes that outlive a call, in the sandbox, and
// never outlive their context, their MCP session or their host.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { ALLOW_ALL, NEEDS, WINE, notUnderWine, onlyOn, rejection, tempDir, underWine } from "./helpers.mjs";
import { connectStdio, NODE } from "./mcp_helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const PROCESS_TOOLS = ["process_start", "process_read", "process_write", "process_list", "process_kill"];
const UNIX = onlyOn(["unix"], NEEDS.sh);

/** A workspace and a toolkit with the process tools; `fn(ws)`, then everything is closed. */
async function withProcesses(fn, { exec, policy = ALLOW_ALL } = {}) {
  const { dir, cleanup } = tempDir("atn-proc-");
  const root = path.join(dir, "ws");
  fs.mkdirSync(root);
  const context = createToolContext({ workspaceRoot: root, policy, ...(exec ? { exec } : {}) });
  const toolkit = createAgentToolkit(context, { extraTools: PROCESS_TOOLS });
  const call = async (name, args) => (await toolkit.invoke(name, args)).content;
  try {
    await fn({ root, base: dir, toolkit, call });
  } finally {
    await toolkit.close();
    cleanup();
  }
}

/** Whether `pid` runs (a zombie counts as gone). */
function alive(pid) {
  try {
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Polls `check` every 20 ms for up to 20 s (a busy machine), true once it held. */
async function soon(check) {
  for (const until = Date.now() + 20_000; Date.now() < until; ) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** Whether something accepts connections on `port` of 127.0.0.1. */
function listening(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

const SERVER = `import http from "node:http";
const server = http.createServer((req, res) => { console.log("GET " + req.url); res.end("hello from the dev server"); });
server.listen(0, "127.0.0.1", () => console.log("listening on " + server.address().port));`;

describe("process tools: a dev server, a dialogue, exits", UNIX, () => {
  test("a dev server is started, reached between calls, its log read, killed, and its port freed", async () => {
    await withProcesses(async ({ root, call }) => {
      fs.writeFileSync(path.join(root, "server.mjs"), SERVER);
      const started = await call("process_start", { cwd: root, command: [NODE, "server.mjs"], wait_for: "listening on \\d+", wait_ms: 30000 });
      assert.equal(started.status, "running");
      assert.match(started.process_id, /^p\d+$/);
      const port = Number(/listening on (\d+)/.exec(started.output)[1]);
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/health`)).text(), "hello from the dev server");
      const log = await call("process_read", { process_id: started.process_id, wait_for: "GET /health", wait_ms: 30000 });
      assert.equal(log.output, "GET /health\n");
      assert.equal(log.cursor, started.cursor + "GET /health\n".length);
      const listed = await call("process_list", {});
      assert.deepEqual(listed.processes.map((p) => [p.process_id, p.status, p.command[1]]), [[started.process_id, "running", "server.mjs"]]);
      assert.match(listed.processes[0].started_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const killed = await call("process_kill", { process_id: started.process_id });
      assert.equal(killed.status, "exited");
      assert.equal(killed.signal, "SIGTERM");
      assert.equal(await listening(port), false, "the port is free");
      const gone = await rejection(call("process_read", { process_id: started.process_id }));
      assert.equal(gone.code, "PROCESS_NOT_FOUND");
    });
  });

  test("a stdin dialogue, then end of input: the exit code and the last output stay readable", async () => {
    await withProcesses(async ({ root, call }) => {
      const script = 'echo "name?"; while read line; do echo "hello $line"; done; echo bye; exit 4';
      const p = await call("process_start", { cwd: root, command: ["sh", "-c", script], wait_for: "name\\?" });
      assert.equal(p.output, "name?\n");
      const a = await call("process_write", { process_id: p.process_id, input: "ada\n", wait_for: "hello ada" });
      assert.equal(a.output, "hello ada\n");
      const b = await call("process_write", { process_id: p.process_id, input: "bob\n", close_stdin: true, wait_ms: 30000 });
      assert.equal(b.status, "exited", JSON.stringify(b));
      assert.equal(b.exit_code, 4);
      assert.equal(b.output, "hello bob\nbye\n");
      const after = await rejection(call("process_write", { process_id: p.process_id, input: "x" }));
      assert.equal(after.code, "PROCESS_NOT_FOUND", "its exit was reported: the process is forgotten");
    });
  });

  test("writing after stdin was closed is STDIN_CLOSED; exit codes and signals are reported", async () => {
    await withProcesses(async ({ root, call }) => {
      const p = await call("process_start", { cwd: root, command: ["sh", "-c", "cat >/dev/null; sleep 300"], wait_ms: 0 });
      await call("process_write", { process_id: p.process_id, input: "", close_stdin: true, wait_ms: 0 });
      const closed = await rejection(call("process_write", { process_id: p.process_id, input: "more" }));
      assert.equal(closed.code, "STDIN_CLOSED");
      const killed = await call("process_kill", { process_id: p.process_id, signal: "SIGKILL" });
      assert.deepEqual([killed.status, killed.exit_code, killed.signal], ["exited", null, "SIGKILL"]);
      const trapped = await call("process_start", { cwd: root, command: ["sh", "-c", "trap 'echo bye; exit 7' INT; echo ready; while :; do sleep 0.05; done"], wait_for: "ready" });
      const interrupted = await call("process_kill", { process_id: trapped.process_id, signal: "SIGINT" });
      assert.equal(interrupted.exit_code, 7);
      assert.match(interrupted.output, /bye\n$/);
      const exited = await call("process_start", { cwd: root, command: ["sh", "-c", "echo out; echo err >&2; exit 3"], wait_ms: 30000 });
      assert.deepEqual([exited.status, exited.exit_code, exited.output], ["exited", 3, "out\nerr\n"]);
    });
  });

  test("parallel calls on one process all answer", async () => {
    await withProcesses(async ({ root, call }) => {
      const p = await call("process_start", { cwd: root, command: ["sh", "-c", "while read l; do echo \"got $l\"; done"], wait_ms: 0 });
      // From the start (cursor 0): another call's read may have moved the default cursor on.
      const reads = Array.from({ length: 6 }, () => call("process_read", { process_id: p.process_id, cursor: 0, wait_for: "got 5", wait_ms: 30000 }));
      const writes = [1, 2, 3, 4, 5].map((n) => call("process_write", { process_id: p.process_id, input: `${n}\n`, wait_ms: 0 }));
      // The reads answer once the last line is there, whatever the order the writes landed in.
      await Promise.all(writes);
      const results = await Promise.all(reads);
      // The writes may land in any order: "got 5" can come before another line is echoed.
      let all;
      for (const deadline = Date.now() + 30_000; ; ) {
        all = await call("process_read", { process_id: p.process_id, cursor: 0, wait_ms: 200 });
        if (all.output.trim().split("\n").length >= 5 || Date.now() > deadline) break;
      }
      assert.deepEqual(all.output.trim().split("\n").sort(), ["got 1", "got 2", "got 3", "got 4", "got 5"]);
      for (const r of results) assert.equal(r.status, "running");
    });
  });
});

describe("process tools: pipes, on every platform (the runtime itself as the program)", () => {
  const RUNTIME = process.execPath;
  test("a stdin dialogue, an exit code, and the end of input", async () => {
    await withProcesses(async ({ root, call }) => {
      const script = "console.log('ready'); process.stdin.on('data', (d) => process.stdout.write('got ' + d)); process.stdin.on('end', () => process.exit(5));";
      const p = await call("process_start", { cwd: root, command: [RUNTIME, "-e", script], shell_mode: "direct", wait_for: "ready", wait_ms: 30000 });
      assert.equal(p.status, "running", JSON.stringify(p));
      assert.match(p.output, /^ready\r?\n$/);
      const answer = await call("process_write", { process_id: p.process_id, input: "hello\n", wait_for: "got hello", wait_ms: 30000 });
      assert.match(answer.output, /^got hello\r?\n$/);
      const ended = await call("process_write", { process_id: p.process_id, input: "", close_stdin: true, wait_ms: 30000 });
      assert.deepEqual([ended.status, ended.exit_code], ["exited", 5]);
      const exited = await call("process_start", { cwd: root, command: [RUNTIME, "-e", "console.log('bye'); process.exit(3)"], shell_mode: "direct", wait_ms: 30000 });
      assert.deepEqual([exited.status, exited.exit_code], ["exited", 3]);
      assert.match(exited.output, /^bye\r?\n$/);
    });
  });

  // Windows 10 1809+ has pseudo consoles (ConPTY); under wine 8 one reaches its program only when
  // the host runs on wine's console, and scripts/test-windows.sh gives the runtimes files, not a
  // terminal (the Rust tests of crates/agent-tools-core/src/conpty.rs run on one).
  test("tty on Windows: cmd.exe in a pseudo console: its output as text, input turn by turn, the exit code", { ...onlyOn(["win32"], "starts cmd.exe in a Windows pseudo console"), ...notUnderWine(WINE.console) }, async () => {
    await withProcesses(async ({ root, call }) => {
      const echo = await call("process_start", { cwd: root, command: ["cmd.exe", "/d", "/c", "echo hello"], shell_mode: "direct", tty: true, wait_ms: 30000 });
      assert.deepEqual([echo.status, echo.exit_code], ["exited", 0], JSON.stringify(echo));
      assert.match(echo.output, /(^|\n)hello\n/);
      assert.doesNotMatch(echo.output, /[\u001b\r]/, "escape sequences and carriage returns are stripped");
      const shell = await call("process_start", { cwd: root, command: ["cmd.exe", "/d"], shell_mode: "direct", env: { ATN_ANSWER: "42" }, tty: true, wait_for: ">", wait_ms: 30000 });
      assert.equal(shell.status, "running", JSON.stringify(shell));
      // "\n" ends the line (the console's Enter); the console echoes it, then cmd.exe runs it.
      const answer = await call("process_write", { process_id: shell.process_id, input: "echo the answer is %ATN_ANSWER%\n", wait_for: "answer is 42", wait_ms: 30000 });
      assert.match(answer.output, /the answer is 42/);
      const ended = await call("process_write", { process_id: shell.process_id, input: "exit 6\n", wait_ms: 30000 });
      assert.deepEqual([ended.status, ended.exit_code], ["exited", 6], JSON.stringify(ended));
    });
  });

  test("tty under wine off wine's console: TTY_UNSUPPORTED saying why (pipes work)", underWine ? {} : { skip: "checks wine's refusal of tty when the host is not on wine's console (runs under wine only)" }, async () => {
    await withProcesses(async ({ root, call }) => {
      const refused = await rejection(call("process_start", { cwd: root, command: [RUNTIME, "-e", "1"], shell_mode: "direct", tty: true }));
      assert.equal(refused.code, "TTY_UNSUPPORTED");
      assert.match(refused.message, /under wine a pseudo console reaches the program only when this process runs on wine's console/);
      const piped = await call("process_start", { cwd: root, command: [RUNTIME, "-e", "console.log('piped')"], shell_mode: "direct", wait_ms: 30000 });
      assert.deepEqual([piped.exit_code, piped.output.trim()], [0, "piped"]);
    });
  });

  test("process_kill ends the process and the child it started (which holds its output open)", async () => {
    await withProcesses(async ({ root, call }) => {
      const script = "require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' }); console.log('started'); setInterval(() => {}, 1000);";
      const p = await call("process_start", { cwd: root, command: [RUNTIME, "-e", script], shell_mode: "direct", wait_for: "started", wait_ms: 30000 });
      assert.equal(p.status, "running", JSON.stringify(p));
      assert.equal((await call("process_list", {})).processes.length, 1);
      // The kill waits until the output closes: with the child alive it would not.
      const killed = await call("process_kill", { process_id: p.process_id });
      assert.equal(killed.status, "exited");
      assert.deepEqual((await call("process_list", {})).processes, []);
    });
  });
});

describe("process tools: terminals", UNIX, () => {
  test("tty: the command has a terminal of the size asked for; its output is text", async () => {
    await withProcesses(async ({ root, call }) => {
      const p = await call("process_start", { cwd: root, command: ["sh", "-c", "test -t 0 && echo is-a-tty; stty size; printf '\\033[31mred\\033[0m\\n'"], tty: true, cols: 120, rows: 40, wait_ms: 30000 });
      assert.equal(p.status, "exited", JSON.stringify(p));
      assert.equal(p.output, "is-a-tty\n40 120\nred\n");
      const piped = await call("process_start", { cwd: root, command: ["sh", "-c", "test -t 0 && echo tty || echo no-tty"], wait_ms: 30000 });
      assert.equal(piped.output, "no-tty\n");
      const raw = await call("process_start", { cwd: root, command: ["sh", "-c", "printf '\\033[1mbold\\033[0m\\n'; sleep 300"], tty: true, wait_for: "bold", raw: true });
      assert.equal(raw.output, "\u001b[1mbold\u001b[0m\r\n");
    });
  });

  test("a REPL driven turn by turn; Ctrl-C interrupts the foreground job and the shell survives", async () => {
    await withProcesses(async ({ root, call }) => {
      // The basic REPL (GNU readline; Python 3.13's own one draws with escape sequences). A line
      // written right after the prompt shows can reach the terminal before readline has switched
      // it out of line mode: the terminal echoes it, and readline draws it again after the prompt.
      const py = await call("process_start", { cwd: root, command: ["python3", "-q", "-i"], env: { PYTHON_BASIC_REPL: "1" }, tty: true, wait_for: ">>> $" });
      const answer = await call("process_write", { process_id: py.process_id, input: "print(6 * 7)\n", wait_for: "42\\n>>> $" });
      assert.match(answer.output, /^print\(6 \* 7\)\n(>>> print\(6 \* 7\)\n)?42\n>>> $/);
      await call("process_kill", { process_id: py.process_id });
      const sh = await call("process_start", { cwd: root, command: ["sh", "-i"], env: { PS1: "$ " }, tty: true, wait_for: "\\$ $" });
      // Ctrl-C once the job runs in the foreground (it says so itself): sent earlier, while the
      // shell still reads the line or starts the job, it would reach the shell instead
      await call("process_write", { process_id: sh.process_id, input: "sh -c 'echo sleeping; exec sleep 300'\n", wait_for: "(?m)^sleeping\r?$" });
      const interrupted = await call("process_write", { process_id: sh.process_id, input: "\u0003", wait_for: "\\$ $" });
      assert.match(interrupted.output, /\^C/);
      const status = await call("process_write", { process_id: sh.process_id, input: "echo status $?\n", wait_for: "status \\d+" });
      assert.match(status.output, /status 130/);
      assert.equal(status.status, "running");
      const ended = await call("process_write", { process_id: sh.process_id, input: "", close_stdin: true, wait_ms: 30000 });
      assert.equal(ended.status, "exited");
    });
  });
});

describe("process tools: bounds and bad input", UNIX, () => {
  test("a 200 MB flood keeps 1 MiB, counts what it dropped and leaves the host's memory bounded", async () => {
    await withProcesses(async ({ root, call }) => {
      const before = process.memoryUsage().rss;
      const p = await call("process_start", { cwd: root, command: ["sh", "-c", "head -c 200000000 /dev/zero | tr '\\0' x; echo; echo end"], wait_for: "end", wait_ms: 30000 });
      const out = await call("process_read", { process_id: p.process_id, cursor: 0, wait_for: "end", wait_ms: 30000, max_chars: 2000000 });
      assert.equal(out.output.length, 1 << 20);
      assert.ok(out.output.endsWith("xx\nend\n"));
      assert.equal(out.dropped_bytes, 200_000_005 - (1 << 20));
      assert.equal(out.cursor, 200_000_005);
      const grown = process.memoryUsage().rss - before;
      assert.ok(grown < 96 * 2 ** 20, `the host grew by ${Math.round(grown / 2 ** 20)} MiB`);
    });
  });

  test("unknown ids, a cwd outside, a bad wait_for, a terminal, too many processes: coded errors", async () => {
    await withProcesses(async ({ root, call }) => {
      assert.equal((await rejection(call("process_read", { process_id: "p999" }))).code, "PROCESS_NOT_FOUND");
      assert.equal((await rejection(call("process_kill", { process_id: "nope" }))).code, "PROCESS_NOT_FOUND");
      const outside = await rejection(call("process_start", { cwd: "..", command: ["true"] }));
      assert.match(outside.message, /Sandbox Violation/);
      assert.equal((await rejection(call("process_start", { cwd: root, command: ["true"], wait_for: "(" }))).code, "INVALID_REGEX");
      assert.equal((await rejection(call("process_start", { cwd: root, command: [] }))).code, "INVALID_ARGUMENT");
      assert.equal((await rejection(call("process_start", { cwd: root, command: ["no-such-program-xyz"] }))).code, "COMMAND_NOT_FOUND");
      assert.equal((await rejection(call("process_read", { process_id: "p1", wait_ms: 99999 }))).code, "INVALID_ARGUMENT");
      const running = [];
      for (let i = 0; i < 8; i++) running.push(await call("process_start", { cwd: root, command: ["sleep", "300"], wait_ms: 0 }));
      const ninth = await rejection(call("process_start", { cwd: root, command: ["sleep", "300"], wait_ms: 0 }));
      assert.equal(ninth.code, "TOO_MANY_PROCESSES");
      await call("process_kill", { process_id: running[0].process_id, signal: "SIGKILL" });
      await call("process_start", { cwd: root, command: ["true"], wait_ms: 0 });
    });
  });

  test("the policy applies: a denied process_start is refused", async () => {
    await withProcesses(
      async ({ root, call }) => {
        const denied = await rejection(call("process_start", { cwd: root, command: ["true"] }));
        assert.equal(denied.code, "TOOL_NOT_ALLOWED");
      },
      { policy: { tools: { process_start: "deny" }, defaultPolicy: "allow" } },
    );
  });

  test("500 start/kill cycles leak no descriptor and leave no zombie", async () => {
    const fds = () => fs.readdirSync("/proc/self/fd").length;
    const children = () => spawnSync("sh", ["-c", `ps -o pid=,stat= --ppid ${process.pid} | grep -c Z || true`], { encoding: "utf8" }).stdout.trim();
    await withProcesses(async ({ root, call }) => {
      // One round first: lazily opened descriptors of the runtime are not leaks.
      await call("process_kill", { process_id: (await call("process_start", { cwd: root, command: ["sleep", "300"], wait_ms: 0 })).process_id });
      const before = fds();
      const rssBefore = process.memoryUsage().rss;
      for (let i = 0; i < 500; i++) {
        const p = await call("process_start", { cwd: root, command: ["sh", "-c", "sleep 300 & sleep 300"], wait_ms: 0 });
        await call("process_kill", { process_id: p.process_id, signal: i % 2 ? "SIGKILL" : "SIGTERM" });
      }
      assert.ok(await soon(() => fds() <= before + 2), `descriptors: ${before} before, ${fds()} after`);
      // A leak of a reader's stack (128 KiB) or a ring per cycle would pass 60 MiB here.
      const grown = process.memoryUsage().rss - rssBefore;
      assert.ok(grown < 48 * 2 ** 20, `the host grew by ${Math.round(grown / 2 ** 20)} MiB over 500 cycles`);
      assert.equal(children(), "0");
    });
  });
});

describe("process tools: the OS sandbox holds for background processes", onlyOn(["linux"], NEEDS.landlock), () => {
  test("a write outside the workspace is refused, from the process and from its background child; the network is denied", async () => {
    await withProcesses(
      async ({ root, base, call }) => {
        const outside = path.join(base, "outside.txt");
        const later = path.join(base, "later.txt");
        const script = `echo x > '${outside}' 2>/dev/null || echo refused; (sleep 0.2; echo y > '${later}' 2>/dev/null || echo child refused) & wait; echo inside > inside.txt; echo done`;
        const p = await call("process_start", { cwd: root, command: ["sh", "-c", script], wait_for: "done", wait_ms: 30000 });
        assert.match(p.output, /^refused$/m);
        assert.match(p.output, /^child refused$/m);
        assert.match(p.output, /done\n$/);
        assert.ok(!fs.existsSync(outside) && !fs.existsSync(later));
        assert.equal(fs.readFileSync(path.join(root, "inside.txt"), "utf8"), "inside\n");
        const net = await call("process_start", { cwd: root, command: [NODE, "-e", "require('net').connect(1, '127.0.0.1').on('error', (e) => console.log(e.code))"], wait_for: "\\n", wait_ms: 30000 });
        assert.match(net.output, /EACCES|EPERM/);
      },
      { exec: { sandbox: "required", network: "deny" } },
    );
  });
});

describe("process tools: no orphans", UNIX, () => {
  test("toolkit.close() ends every process and what it started", async () => {
    const { dir, cleanup } = tempDir("atn-proc-");
    try {
      const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL }), { extraTools: PROCESS_TOOLS });
      const p = (await toolkit.invoke("process_start", { cwd: dir, command: ["sh", "-c", "sleep 300 & echo $!; wait"], wait_for: "\\d+\\n" })).content;
      const pids = [p.pid, Number(p.output.trim())];
      assert.ok(pids.every(alive));
      await toolkit.close();
      for (const pid of pids) assert.equal(alive(pid), false, `${pid} outlived close()`);
      assert.deepEqual((await toolkit.invoke("process_list", {})).content.processes, []);
    } finally {
      cleanup();
    }
  });

  for (const [name, ending] of [
    ["the host exits without closing", "exit"],
    ["the host is killed with SIGKILL", "SIGKILL"],
  ]) {
    // Linux: the supervisor's control pipe; macOS and the portable build: the host's watchdog;
    // Windows: the Job Object (its own suite, the command here is sh's).
    test(`${name}: the processes and their children end too`, onlyOn(["linux", "darwin"], "a POSIX shell command"), async () => {
      const { dir, cleanup } = tempDir("atn-proc-host-");
      try {
        const child = spawn(process.execPath, [path.join(here, "process_host_child.mjs"), ending, dir], { stdio: ["pipe", "pipe", "inherit"] });
        let out = "";
        child.stdout.on("data", (d) => {
          out += d;
        });
        const pids = await new Promise((resolve, reject) => {
          child.stdout.on("data", () => {
            const match = /^pids (\d+) (\d+)$/m.exec(out);
            if (match) resolve([Number(match[1]), Number(match[2])]);
          });
          child.on("exit", () => reject(new Error(`the host exited first: ${out}`)));
        });
        assert.ok(pids.every(alive), "started");
        if (ending === "SIGKILL") child.kill("SIGKILL");
        else child.stdin.end("go\n");
        await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on("exit", resolve)));
        for (const pid of pids) assert.ok(await soon(() => !alive(pid)), `${pid} outlived its host (${ending})`);
      } finally {
        cleanup();
      }
    });
  }
});

describe("process tools over MCP and the CLI: they end with the session, the call", UNIX, () => {
  const BIN = path.join(here, "..", "js", "cli.cjs");

  async function stdioClient(root, extra = []) {
    const { client } = await connectStdio(["--root", root, "--extra-tools", PROCESS_TOOLS.join(","), ...extra]);
    return client;
  }

  const json = (result) => {
    assert.ok(!result.isError, JSON.stringify(result));
    return JSON.parse(result.content[0].text);
  };

  test("MCP over stdio: a dev server started, reached, listed; the client leaves (stdin EOF): it is gone", async () => {
    const { dir, cleanup } = tempDir("atn-proc-mcp-");
    try {
      fs.writeFileSync(path.join(dir, "server.mjs"), SERVER);
      const client = await stdioClient(dir);
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const name of PROCESS_TOOLS) assert.ok(names.includes(name), name);
      const started = json(await client.callTool({ name: "process_start", arguments: { cwd: ".", command: [NODE, "server.mjs"], wait_for: "listening on \\d+", wait_ms: 30000 } }));
      const port = Number(/listening on (\d+)/.exec(started.output)[1]);
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), "hello from the dev server");
      assert.equal(json(await client.callTool({ name: "process_list", arguments: {} })).processes.length, 1);
      await client.close();
      assert.ok(await soon(() => !alive(started.pid)), "the server outlived its MCP session");
      assert.equal(await listening(port), false);
    } finally {
      cleanup();
    }
  });

  test("MCP: --max-processes and --process-buffer bound a session's processes", async () => {
    const { dir, cleanup } = tempDir("atn-proc-mcp-");
    try {
      const client = await stdioClient(dir, ["--max-processes", "1", "--process-buffer", "16"]);
      const first = json(await client.callTool({ name: "process_start", arguments: { cwd: ".", command: ["sh", "-c", "echo 0123456789abcdefXYZ; sleep 300"], wait_for: "XYZ" } }));
      assert.equal(first.output, "456789abcdefXYZ\n");
      const second = await client.callTool({ name: "process_start", arguments: { cwd: ".", command: ["true"] } });
      assert.equal(second.isError, true);
      assert.match(second.content[0].text, /TOO_MANY_PROCESSES/);
      await client.close();
      assert.ok(await soon(() => !alive(first.pid)));
    } finally {
      cleanup();
    }
  });

  test("the CLI's call: a process it starts ends with the call", async () => {
    const { dir, cleanup } = tempDir("atn-proc-cli-");
    try {
      const run = spawnSync(NODE, [BIN, "call", "process_start", JSON.stringify({ cwd: ".", command: ["sh", "-c", "echo started; sleep 300"], wait_for: "started" }), "--root", dir, "--extra-tools", "process_start"], { encoding: "utf8", timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr);
      const out = JSON.parse(run.stdout);
      assert.equal(out.output, "started\n");
      assert.ok(await soon(() => !alive(out.pid)), "the process outlived the call");
    } finally {
      cleanup();
    }
  });
});

describe("process tools: the toolkit's bounds", UNIX, () => {
  test("processes: { maxRunning, bufferBytes, maxLifetimeMs } bound the table; bad values are a TypeError", async () => {
    const { dir, cleanup } = tempDir("atn-proc-");
    try {
      const context = createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL });
      const toolkit = createAgentToolkit(context, { extraTools: PROCESS_TOOLS, processes: { maxRunning: 1, bufferBytes: 16, maxLifetimeMs: 500 } });
      const call = async (name, args) => (await toolkit.invoke(name, args)).content;
      const long = await call("process_start", { cwd: dir, command: ["sh", "-c", "echo 0123456789abcdefXYZ; sleep 300"], wait_for: "XYZ" });
      assert.equal(long.output, "456789abcdefXYZ\n");
      assert.equal(long.dropped_bytes, 4);
      assert.equal((await rejection(call("process_start", { cwd: dir, command: ["true"] }))).code, "TOO_MANY_PROCESSES");
      const ended = await call("process_read", { process_id: long.process_id, wait_ms: 30000, wait_for: "never" });
      assert.deepEqual([ended.status, ended.signal], ["exited", "SIGKILL"], "the lifetime ran out");
      await toolkit.close();
      for (const processes of [{ maxRunning: 0 }, { bufferBytes: 1.5 }, { maxLifetimeMs: -1 }, "fast"]) {
        assert.throws(() => createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL }), { extraTools: PROCESS_TOOLS, processes }), TypeError);
      }
    } finally {
      cleanup();
    }
  });
});
