// exec_command's opt-in OS sandbox (docs/tools/exec_command.md, "OS sandbox") on the real kernel
// (Landlock, no_new_privs, seccomp): outside the allowed area every kind of write fails and
// changes nothing (a canary directory next to the workspace is compared before and after),
// inside it works, read-only refuses everywhere, grandchildren inherit the restriction, the
// network can be denied, reading works everywhere and the timeout still kills the whole group.
// A kernel without Landlock is simulated in a child process (exec_sandbox_child.mjs), because
// the test hook only works in a process started with AGENT_TOOLS_NATIVE_TEST_HOOKS=1.
import { test, describe, before, after } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { createToolContext, createAgentToolkit, runToolLoop } from "agent-tools-native";
import { tempDir, ALLOW_ALL, PROMPTLY_MS, waitUntil, onlyOn, NEEDS } from "./helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const native = createRequire(import.meta.url)("../binding.js");
const linux = process.platform === "linux";

/** Node's executable (Bun closes inherited descriptors at start, Node keeps them). */
function nodePath() {
  if (!process.versions.bun) return process.execPath;
  const found = (process.env.PATH ?? "").split(path.delimiter).map((d) => path.join(d, "node")).find((p) => fs.existsSync(p));
  assert.ok(found, "node is not on PATH");
  return found;
}

/** The kernel's Landlock ABI is 6 or later (what a sandboxed call reports). */
function landlockAbi6() {
  if (!linux) return false;
  const preview = createToolContext({ workspaceRoot: here, policy: ALLOW_ALL, exec: { sandbox: "auto" } });
  return (native.execSandboxPreview ? JSON.parse(native.execSandboxPreview(preview))?.abi ?? 0 : 0) >= 6;
}

/** `<tmp>/ws` (the workspace) next to `<tmp>/outside` (the canary directory). */
function setup() {
  const { dir, cleanup } = tempDir("atn-sbx-");
  const root = path.join(dir, "ws");
  const outside = path.join(dir, "outside");
  for (const base of [root, outside]) {
    fs.mkdirSync(path.join(base, "sub"), { recursive: true });
    fs.mkdirSync(path.join(base, "empty"));
    fs.writeFileSync(path.join(base, "canary.txt"), "CANARY");
    fs.writeFileSync(path.join(base, "sub", "inner.txt"), "INNER");
  }
  return { dir, root, outside, cleanup };
}

/** Every entry below `dir`: its kind and its content or link target. */
function snapshot(dir) {
  const out = {};
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const child = path.join(rel, entry.name);
      const abs = path.join(dir, child);
      if (entry.isDirectory()) {
        out[child] = "dir";
        walk(child);
      } else if (entry.isSymbolicLink()) out[child] = `link -> ${fs.readlinkSync(abs)}`;
      else if (entry.isFile()) out[child] = `file ${fs.readFileSync(abs, "utf8")}`;
      else out[child] = "other";
    }
  };
  walk("");
  return out;
}

function toolkitFor(root, writeScope, exec) {
  return createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL, writeScope, exec }));
}

/** Runs `script` with sh in `cwd` through invoke; returns the output. */
async function sh(toolkit, cwd, script, extra = {}) {
  const out = await toolkit.invoke("exec_command", { cwd, command: ["sh", "-c", script], ...extra });
  return out.content;
}

/**
 * A script that tries one operation per line and prints `name:ok` or `name:refused` for each.
 * `t` is where the writes go, `w` a directory where a sandboxed command may write (the
 * workspace) and `o` a directory where it may not.
 */
function writeAttempts(t, w) {
  const q = (p) => `'${p}'`;
  const ops = [
    ["create", `echo new > ${q(`${t}/new.txt`)}`],
    ["overwrite", `echo pwned > ${q(`${t}/canary.txt`)}`],
    ["append", `echo pwned >> ${q(`${t}/canary.txt`)}`],
    ["truncate-syscall", `truncate -s 0 ${q(`${t}/canary.txt`)}`],
    ["truncate-redirect", `: > ${q(`${t}/sub/inner.txt`)}`],
    ["rename-within", `mv ${q(`${t}/canary.txt`)} ${q(`${t}/renamed.txt`)}`],
    ["rename-out", `mv -T ${q(`${t}/sub/inner.txt`)} ${q(`${w}/moved-out.txt`)} && test ! -e ${q(`${t}/sub/inner.txt`)}`],
    ["rename-in", `echo in > ${q(`${w}/to-move.txt`)}; mv ${q(`${w}/to-move.txt`)} ${q(`${t}/moved-in.txt`)}`],
    ["hardlink", `ln ${q(`${t}/canary.txt`)} ${q(`${t}/hard.txt`)}`],
    ["hardlink-into-writable", `ln ${q(`${t}/canary.txt`)} ${q(`${w}/hard-${path.basename(t)}.txt`)} && echo pwned >> ${q(`${w}/hard-${path.basename(t)}.txt`)}`],
    ["symlink", `ln -s /etc/hostname ${q(`${t}/sym`)}`],
    ["write-through-symlink", `ln -sf ${q(`${t}/canary.txt`)} ${q(`${w}/via-${path.basename(t)}`)}; echo pwned > ${q(`${w}/via-${path.basename(t)}`)}`],
    ["remove", `rm ${q(`${t}/canary.txt`)}`],
    ["rmdir", `rmdir ${q(`${t}/empty`)}`],
    ["remove-tree", `rm -r ${q(`${t}/sub`)}`],
    ["mkdir", `mkdir ${q(`${t}/newdir`)}`],
    ["mkfifo", `mkfifo ${q(`${t}/fifo`)}`],
  ];
  return {
    names: ops.map(([name]) => name),
    script: ops.map(([name, op]) => `if ( ${op} ) 2>/dev/null; then echo ${name}:ok; else echo ${name}:refused; fi`).join("\n"),
  };
}

/** `{ name: "ok" | "refused" }` from the script's output. */
function verdicts(stdout) {
  return Object.fromEntries(stdout.trim().split("\n").map((line) => line.split(":")));
}

const all = (names, verdict) => Object.fromEntries(names.map((name) => [name, verdict]));

describe("exec_command OS sandbox", onlyOn(["linux"], NEEDS.landlock), () => {
  let ws;
  before(() => {
    ws = setup();
  });
  after(() => ws.cleanup());

  test("workspace-write: every kind of write outside fails and changes nothing", async () => {
    const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required" });
    const before = snapshot(ws.outside);
    const { names, script } = writeAttempts(ws.outside, ws.root);
    const out = await sh(toolkit, ws.root, script);
    assert.equal(out.exit_code, 0, out.stderr);
    assert.deepEqual(verdicts(out.stdout), all(names, "refused"));
    assert.deepEqual(snapshot(ws.outside), before);
    assert.equal(out.sandbox.kind, "landlock");
    assert.ok(Number.isInteger(out.sandbox.abi) && out.sandbox.abi >= 1);
    assert.deepEqual(out.sandbox, { kind: "landlock", abi: out.sandbox.abi, write: "workspace", network: "allowed" });
  });

  test("workspace-write: the same writes inside the workspace work", async () => {
    const inside = path.join(ws.root, "target");
    fs.mkdirSync(path.join(inside, "sub"), { recursive: true });
    fs.mkdirSync(path.join(inside, "empty"));
    fs.writeFileSync(path.join(inside, "canary.txt"), "CANARY");
    fs.writeFileSync(path.join(inside, "sub", "inner.txt"), "INNER");
    const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required" });
    const { names, script } = writeAttempts(inside, ws.root);
    // Each step on a fresh copy (`rename-within` moves canary.txt away, `remove-tree` sub/, ...).
    const perStep = script
      .split("\n")
      .map((line) => `echo CANARY > '${inside}/canary.txt'; mkdir -p '${inside}/sub' '${inside}/empty'; echo INNER > '${inside}/sub/inner.txt'; ${line}`)
      .join("\n");
    const again = await sh(toolkit, ws.root, perStep);
    assert.equal(again.exit_code, 0, again.stderr);
    assert.deepEqual(verdicts(again.stdout), all(names, "ok"));
  });

  test("the private TMPDIR and the usual devices are writable; the host's temp dir is not", async () => {
    const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required" });
    const hostTmp = path.dirname(ws.dir);
    const out = await sh(
      toolkit,
      ws.root,
      [
        'echo t > "$TMPDIR/x" && cat "$TMPDIR/x"',
        'mktemp >/dev/null && echo mktemp-ok',
        "echo x > /dev/null && echo null-ok",
        "head -c 4 /dev/urandom > /dev/null && echo urandom-ok",
        "echo to-stdout > /dev/stdout",
        `echo x > '${hostTmp}/atn-sbx-escape-${process.pid}' 2>/dev/null || echo host-tmp-refused`,
        'echo "$TMPDIR"',
      ].join("\n"),
    );
    const lines = out.stdout.trim().split("\n");
    assert.deepEqual(lines.slice(0, -1), ["t", "mktemp-ok", "null-ok", "urandom-ok", "to-stdout", "host-tmp-refused"]);
    const tmpdir = lines.at(-1);
    assert.match(path.basename(tmpdir), /^agent-tools-exec-/);
    assert.equal(fs.existsSync(tmpdir), false, "the private TMPDIR is removed after the call");
    assert.equal(fs.existsSync(`${hostTmp}/atn-sbx-escape-${process.pid}`), false);
  });

  test("read-only: writes fail everywhere, the workspace included; devices still work", async () => {
    const toolkit = toolkitFor(ws.root, "read-only", { sandbox: "required" });
    const before = snapshot(ws.dir);
    for (const target of [ws.root, ws.outside]) {
      const { names, script } = writeAttempts(target, ws.root);
      const out = await sh(toolkit, ws.root, script);
      assert.deepEqual(verdicts(out.stdout), all(names, "refused"), target);
      assert.deepEqual(out.sandbox, { kind: "landlock", abi: out.sandbox.abi, write: "none", network: "allowed" });
    }
    assert.deepEqual(snapshot(ws.dir), before);
    const out = await sh(toolkit, ws.root, 'echo x > /dev/null && echo ok; echo "$TMPDIR" | grep -c agent-tools-exec');
    assert.equal(out.stdout, "ok\n0\n", "no private TMPDIR in read-only");
  });

  test("unrestricted: no file restriction", async () => {
    const toolkit = toolkitFor(ws.root, "unrestricted", { sandbox: "auto" });
    const target = path.join(ws.outside, "unrestricted.txt");
    const out = await sh(toolkit, ws.root, `echo free > '${target}'`);
    assert.equal(out.exit_code, 0, out.stderr);
    assert.equal(fs.readFileSync(target, "utf8"), "free\n");
    assert.deepEqual(out.sandbox, { kind: "landlock", abi: out.sandbox.abi, write: "all", network: "allowed" });
    fs.rmSync(target);
  });

  test("grandchildren inherit the restriction (nested shells, background jobs, new sessions)", async () => {
    const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required" });
    const before = snapshot(ws.outside);
    const o = ws.outside;
    const out = await sh(
      toolkit,
      ws.root,
      [
        `sh -c "sh -c 'echo x > ${o}/nested.txt'" 2>/dev/null || echo nested-refused`,
        `(echo x > ${o}/bg.txt 2>/dev/null || echo bg-refused) & wait`,
        `setsid sh -c 'echo x > ${o}/setsid.txt' 2>/dev/null || echo setsid-refused`,
        "sh -c 'echo x > grandchild-inside.txt' && echo inside-ok",
      ].join("\n"),
    );
    assert.equal(out.stdout, "nested-refused\nbg-refused\nsetsid-refused\ninside-ok\n");
    assert.deepEqual(snapshot(ws.outside), before);
    assert.equal(fs.readFileSync(path.join(ws.root, "grandchild-inside.txt"), "utf8"), "x\n");
  });

  test("reading works everywhere: outside the workspace, system files, executables", async () => {
    const toolkit = toolkitFor(ws.root, "read-only", { sandbox: "required", network: "deny" });
    const out = await sh(toolkit, ws.root, `cat '${ws.outside}/canary.txt'; echo; ls '${ws.outside}' | head -1; test -r /etc/passwd && echo etc-ok; ls / > /dev/null && echo root-ok`);
    assert.equal(out.stdout, "CANARY\ncanary.txt\netc-ok\nroot-ok\n");
  });

  describe("network", () => {
    let server;
    let port;
    before(async () => {
      server = net.createServer((socket) => {
        socket.on("error", () => {}); // the clients hang up at once
        socket.end("hello\n");
      });
      await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = server.address().port;
    });
    after(() => new Promise((resolve) => server.close(resolve)));

    /** A client in this runtime: prints `connected` or `refused <error code>`. */
    const connect = () => [
      process.execPath,
      "-e",
      `const s=require("net").connect(${port},"127.0.0.1");s.on("connect",()=>{console.log("connected");s.destroy()});s.on("error",(e)=>console.log("refused",e.code??e.message))`,
    ];
    const listen = [
      process.execPath,
      "-e",
      `const s=require("net").createServer();s.on("error",(e)=>console.log("refused",e.code??e.message));s.listen(0,"127.0.0.1",()=>{console.log("listening");s.close()})`,
    ];

    /** A Unix socket client and server in one process: prints `ux` or `refused <code>`. */
    let sockets = 0;
    const unixEcho = () =>
      `${JSON.stringify(process.execPath)} -e 'const n=require("net");const p=require("path").join(process.cwd(),"u${++sockets}.sock");const s=n.createServer(c=>c.end("ux")).on("error",e=>{console.log("refused",e.code??e.message);process.exit(0)}).listen(p,()=>n.connect(p).on("data",d=>{console.log(String(d));process.exit(0)}))'`;

    test("deny: a connection to a listener on 127.0.0.1 fails, listening fails, no Unix socket can be made", async () => {
      const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required", network: "deny" });
      const connected = await toolkit.invoke("exec_command", { cwd: ws.root, command: connect(), timeout_ms: 20_000 });
      assert.notEqual(connected.content.stdout.trim(), "connected", JSON.stringify(connected.content));
      assert.match(connected.content.stdout.trim(), /^refused /, JSON.stringify(connected.content));
      assert.deepEqual(connected.content.sandbox, { kind: "landlock", abi: connected.content.sandbox.abi, write: "workspace", network: "denied" });
      const listening = await toolkit.invoke("exec_command", { cwd: ws.root, command: listen, timeout_ms: 20_000 });
      assert.match(listening.content.stdout.trim(), /^refused /, JSON.stringify(listening.content));
      const unix = await sh(toolkit, ws.root, unixEcho(), { timeout_ms: 20_000 });
      assert.match(unix.stdout, /^refused /, JSON.stringify(unix));
      // socketpair reaches nothing outside and stays.
      const pair = await sh(toolkit, ws.root, `python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"pair"); print(b.recv(4).decode())'`);
      assert.equal(pair.stdout, "pair\n", JSON.stringify(pair));
    });

    test("deny: a daemon's Unix socket outside the workspace is out of reach (docker.sock)", async () => {
      const socketPath = path.join(ws.outside, "daemon.sock");
      const daemon = net.createServer((c) => c.end("daemon\n"));
      await new Promise((resolve) => daemon.listen(socketPath, resolve));
      try {
        const client = `${JSON.stringify(process.execPath)} -e 'require("net").connect(${JSON.stringify(socketPath)}).on("data",d=>{process.stdout.write(String(d));process.exit(0)}).on("error",e=>{console.log("refused",e.code??e.message)})'`;
        const denied = await sh(toolkitFor(ws.root, "workspace-write", { sandbox: "required", network: "deny" }), ws.root, client, { timeout_ms: 20_000 });
        assert.match(denied.stdout, /^refused /, JSON.stringify(denied));
        const allowed = await sh(toolkitFor(ws.root, "workspace-write", { sandbox: "required", network: "allow" }), ws.root, client, { timeout_ms: 20_000 });
        assert.equal(allowed.stdout, "daemon\n", JSON.stringify(allowed));
      } finally {
        await new Promise((resolve) => daemon.close(resolve));
      }
    });

    test("deny covers grandchildren and other address families (UDP, IPv6)", async () => {
      const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required", network: "deny" });
      const udp = (family) =>
        `const s=require("dgram").createSocket("${family}");s.on("error",(e)=>console.log("refused",e.code??e.message));s.bind(0,()=>{console.log("bound");s.close()})`;
      const node = JSON.stringify(process.execPath);
      const out = await sh(toolkit, ws.root, `sh -c '${connect().map((a) => JSON.stringify(a)).join(" ")}'; ${node} -e '${udp("udp4")}'; ${node} -e '${udp("udp6")}'`, {
        timeout_ms: 20_000,
      });
      const lines = out.stdout.trim().split("\n");
      assert.equal(lines.length, 3, out.stdout + out.stderr);
      for (const line of lines) assert.match(line, /^refused /, out.stdout);
    });

    test("allow: the same connection succeeds, and Unix sockets work", async () => {
      const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required", network: "allow" });
      const out = await toolkit.invoke("exec_command", { cwd: ws.root, command: connect(), timeout_ms: 20_000 });
      assert.equal(out.content.stdout, "connected\n", JSON.stringify(out.content));
      assert.equal(out.content.sandbox.network, "allowed");
      const unix = await sh(toolkit, ws.root, unixEcho(), { timeout_ms: 20_000 });
      assert.equal(unix.stdout, "ux\n", JSON.stringify(unix));
    });
  });

  test("the timeout still kills the whole process group", { timeout: 60_000 }, async () => {
    const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required", network: "deny" });
    // The shell prints its group first; a kill before it did (a loaded machine) started no
    // children: then the same call again with a longer timeout.
    let out;
    for (const timeout_ms of [300, 1_200, 4_800]) {
      const started = Date.now();
      out = await sh(toolkit, ws.root, "echo $$; sleep 300 & sleep 300", { timeout_ms });
      assert.ok(Date.now() - started < timeout_ms + PROMPTLY_MS);
      if (out.stdout !== "") break;
    }
    assert.equal(out.timed_out, true);
    assert.equal(out.exit_code, 124);
    const pgid = Number(out.stdout.trim());
    assert.ok(pgid > 1, `the shell printed its group: ${JSON.stringify(out.stdout)}`);
    // the sleeps would hold the group for 300 s: a killed group is gone long before
    try {
      await waitUntil(() => !exists(-pgid), "every process of the group to be gone (a process of the group survived)", { ms: 60_000 });
    } finally {
      if (exists(-pgid)) process.kill(-pgid, "SIGKILL");
    }
  });

  /** Whether process (or, negative, process group) `id` exists. */
  function exists(id) {
    try {
      process.kill(id, 0);
      return true;
    } catch {
      return false;
    }
  }

  test("background jobs end with the call: `&`, a setsid job, and a setsid job after a timeout", { timeout: 600_000 }, async () => {
    const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required" });
    const pidFile = path.join(ws.root, "job.pid");
    const detached = `setsid sh -c 'echo $$ > job.pid.tmp; mv job.pid.tmp job.pid; exec sleep 300' >/dev/null 2>&1 </dev/null &`;
    // The timeout of the last case must come after the job has started: on a loaded machine the
    // same call again with a longer timeout.
    const cases = [
      ["&", "sleep 300 >/dev/null 2>&1 & echo $! > job.pid", [undefined]],
      ["setsid", `${detached} while [ ! -s job.pid ]; do sleep 0.01; done`, [undefined]],
      ["setsid, then a timeout", `${detached} while [ ! -s job.pid ]; do sleep 0.01; done; sleep 300`, [1_500, 6_000, 24_000]],
    ];
    for (const [name, script, timeouts] of cases) {
      let out;
      for (const timeout_ms of timeouts) {
        fs.rmSync(pidFile, { force: true });
        out = await sh(toolkit, ws.root, script, timeout_ms === undefined ? {} : { timeout_ms });
        assert.equal(out.timed_out, timeout_ms !== undefined, `${name}: ${JSON.stringify(out)}`);
        if (fs.existsSync(pidFile)) break;
      }
      const pid = Number(fs.readFileSync(pidFile, "utf8"));
      assert.ok(pid > 1, name);
      // the job would live 300 s: one that ended with the call is gone long before
      try {
        await waitUntil(() => !exists(pid), `${name}: the job ${pid} to be gone (it outlived the call)`, { ms: 60_000 });
      } finally {
        if (exists(pid)) process.kill(pid, "SIGKILL");
      }
    }
  });

  test("no controlling terminal and no terminal injection (TIOCSTI)", { timeout: 60_000 }, async () => {
    // A pty that the command's own child makes its controlling terminal, then tries to type into.
    const inject = `python3 -c '
import os, pty, fcntl, termios
master, slave = pty.openpty()
name = os.ttyname(slave)
pid = os.fork()
if pid == 0:
    os.setsid()
    fd = os.open(name, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"x")
        print("injected", flush=True)
    except OSError as e:
        print("refused", e.errno, flush=True)
    os._exit(0)
os.waitpid(pid, 0)
'`;
    // Unrestricted writes: opening /dev/ptmx is a write the other scopes refuse.
    const off = await sh(toolkitFor(ws.root, "unrestricted", undefined), ws.root, inject);
    const sandboxed = await sh(toolkitFor(ws.root, "unrestricted", { sandbox: "required" }), ws.root, inject);
    // Where the kernel lets a process type into its own terminal, the sandbox still refuses.
    if (off.stdout === "injected\n") assert.equal(sandboxed.stdout, "refused 1\n", JSON.stringify(sandboxed));
    else assert.match(sandboxed.stdout, /^refused /, JSON.stringify(sandboxed));
    // The command runs in a session of its own without a terminal: /dev/tty cannot be opened.
    const stat = (text) => text.slice(text.lastIndexOf(")") + 2).split(" ");
    const host = stat(fs.readFileSync("/proc/self/stat", "utf8"));
    const out = await sh(toolkitFor(ws.root, "workspace-write", { sandbox: "required" }), ws.root, "cat /proc/self/stat; echo; (exec 3</dev/tty) 2>/dev/null && echo tty || echo no-tty");
    const [statLine, ttyLine] = out.stdout.split("\n").filter(Boolean);
    assert.equal(out.exit_code, 0, JSON.stringify(out));
    const child = stat(statLine);
    assert.notEqual(child[3], host[3], "the command shares the host's session");
    assert.equal(child[4], "0", "the command has a controlling terminal");
    assert.equal(ttyLine, "no-tty", out.stdout);
  });

  test("no capability, whoever the host runs as", async () => {
    const out = await sh(toolkitFor(ws.root, "workspace-write", { sandbox: "required" }), ws.root, "grep ^Cap /proc/self/status; hostname sandboxed 2>/dev/null && echo renamed || echo kept");
    const caps = Object.fromEntries(out.stdout.trim().split("\n").filter((l) => l.startsWith("Cap")).map((l) => l.split(/:\s+/)));
    for (const set of ["CapInh", "CapPrm", "CapEff", "CapAmb"]) assert.equal(BigInt(`0x${caps[set]}`), 0n, `${set}: ${out.stdout}`);
    // A process without CAP_SETPCAP cannot empty its bounding set, and needs not: it has nothing to gain.
    if (process.getuid() === 0) assert.equal(BigInt(`0x${caps.CapBnd}`), 0n, out.stdout);
    assert.match(out.stdout, /kept\n$/);
  });

  test("descriptors the host left open (not close-on-exec) do not reach the command", { timeout: 60_000 }, async () => {
    // A host process holding a pipe at descriptor 200 without close-on-exec (python moves it
    // there and executes this runtime with exec_sandbox_fds_child.mjs).
    const { spawn } = await import("node:child_process");
    const wrapper = "import os, sys; os.dup2(3, 200); os.close(3); os.execv(sys.argv[1], sys.argv[1:])";
    const proc = spawn("python3", ["-c", wrapper, nodePath(), path.join(here, "exec_sandbox_fds_child.mjs"), ws.root], {
      stdio: ["ignore", "pipe", "inherit", "pipe"],
    });
    let written = "";
    proc.stdio[3].on("data", (d) => (written += d));
    let report = "";
    proc.stdout.on("data", (d) => (report += d));
    await new Promise((resolve) => proc.on("close", resolve));
    // The premise: an unsandboxed command inherits the descriptor and writes through it.
    assert.deepEqual(JSON.parse(report), { sandboxed: "no-200", plain: "has-200" }, report);
    assert.equal(written, "plain\n", report);
  });

  test("Landlock ABI 6: no signal to the host and no abstract Unix socket outside", { skip: !landlockAbi6() && "the kernel's Landlock ABI is below 6", timeout: 60_000 }, async () => {
    const name = `atn-test-${process.pid}-${Date.now()}`;
    // An abstract socket served by a process outside any sandbox.
    const { spawn } = await import("node:child_process");
    const server = spawn(
      "python3",
      ["-c", `import socket\ns = socket.socket(socket.AF_UNIX)\ns.bind("\\0${name}")\ns.listen()\nprint("ready", flush=True)\nwhile True:\n    c, _ = s.accept()\n    c.send(b"abstract")\n    c.close()`],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise((resolve) => server.stdout.once("data", resolve));
    try {
      const script = `kill -0 ${process.pid} 2>/dev/null && echo signalled || echo no-signal; python3 -c '
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\\0${name}"); print(s.recv(8).decode())
except OSError as e:
    print("refused", e.errno)
'`;
      // The premise: unsandboxed, both work.
      const plain = await sh(toolkitFor(ws.root, "unrestricted", undefined), ws.root, script);
      assert.equal(plain.stdout, "signalled\nabstract\n", JSON.stringify(plain));
      const out = await sh(toolkitFor(ws.root, "unrestricted", { sandbox: "required", network: "allow" }), ws.root, script);
      assert.equal(out.stdout, "no-signal\nrefused 1\n", JSON.stringify(out));
    } finally {
      server.kill();
    }
  });

  test("no descriptor, thread or temporary directory is left behind", async () => {
    const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required", network: "deny" });
    const fds = () => fs.readdirSync("/proc/self/fd").length;
    // The spawning thread is named atn-exec-sandbox (the kernel keeps 15 bytes); the worker
    // pool may grow meanwhile, so only that name is counted.
    const threads = () =>
      fs.readdirSync("/proc/self/task").filter((t) => {
        try {
          return fs.readFileSync(`/proc/self/task/${t}/comm`, "utf8").startsWith("atn-exec-sandbo");
        } catch {
          return false; // ended meanwhile
        }
      }).length;
    // The private TMPDIR is made in the host's TMPDIR (process.env at call time): a directory of
    // this test's own, so that nothing else running on the machine is counted.
    const hostTmp = path.join(ws.dir, "host-tmp");
    fs.mkdirSync(hostTmp);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = hostTmp;
    const tmps = () => fs.readdirSync(hostTmp).length;
    try {
      const seen = await sh(toolkit, ws.root, 'echo "$TMPDIR"');
      assert.equal(path.dirname(seen.stdout.trim()), hostTmp);
      const before = { fds: fds(), tmps: tmps(), threads: threads() };
      for (let i = 0; i < 40; i++) await sh(toolkit, ws.root, "true");
      const after = { fds: fds(), tmps: tmps(), threads: threads() };
      // No growth: one left behind per call would be 40 more. The runtime may close one of its
      // own meanwhile (what an earlier test opened, on a busy machine), so fewer passes.
      assert.ok(after.fds <= before.fds, `descriptors: ${before.fds} before the 40 calls, ${after.fds} after`);
      assert.deepEqual({ tmps: after.tmps, threads: after.threads }, { tmps: before.tmps, threads: before.threads });
      assert.deepEqual({ tmps: before.tmps, threads: before.threads }, { tmps: 0, threads: 0 });
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  test("off (the default) changes nothing: no sandbox field, writes outside work", async () => {
    for (const exec of [undefined, { sandbox: "off" }]) {
      const toolkit = toolkitFor(ws.root, "read-only", exec);
      const target = path.join(ws.outside, "off.txt");
      const out = await sh(toolkit, ws.root, `echo off > '${target}'`);
      assert.equal(out.exit_code, 0);
      assert.equal("sandbox" in out, false);
      assert.equal(fs.readFileSync(target, "utf8"), "off\n");
      fs.rmSync(target);
    }
  });

  test("the context is live: exec set after the toolkit was made applies to the next call", async () => {
    const context = createToolContext({ workspaceRoot: ws.root, policy: ALLOW_ALL });
    const toolkit = createAgentToolkit(context);
    const target = path.join(ws.outside, "live.txt");
    const script = `echo live > '${target}' 2>/dev/null && echo wrote || echo refused`;
    context.exec = { sandbox: "required" };
    assert.equal((await sh(toolkit, ws.root, script)).stdout, "refused\n");
    context.exec.sandbox = "off";
    assert.equal((await sh(toolkit, ws.root, script)).stdout, "wrote\n");
    fs.rmSync(target);
  });

  test("the tool loop shows the sandbox to the review hook, so sandboxed commands can be auto-approved", async () => {
    const context = createToolContext({ workspaceRoot: ws.root, policy: ALLOW_ALL, exec: { sandbox: "required", network: "deny" } });
    const toolkit = createAgentToolkit(context);
    const use = (id, name, input) => ({ type: "tool_use", id, name, input });
    const responses = [
      {
        content: [
          use("c1", "exec_command", { cwd: ".", command: ["sh", "-c", "echo loop > loop.txt"] }),
          use("c2", "write_file", { path: "w.txt", content: "x" }),
        ],
        stopReason: "tool_use",
      },
      { content: [{ type: "text", text: "done" }], stopReason: "end_turn" },
    ];
    let turn = 0;
    const session = { sendWithTools: async () => responses[turn++], sendToolResults: async () => responses[turn++] };
    const seen = [];
    // The documented pattern: approve commands that cannot write outside the workspace or reach
    // the network; ask (here: reject) for everything else.
    const review = async ({ name, sandbox }) => {
      seen.push({ name, sandbox });
      const confined = sandbox !== undefined && sandbox.kind !== "none" && sandbox.write !== "all" && sandbox.network === "denied";
      return confined ? { decision: "approve" } : { decision: "reject", reason: "ask the user" };
    };
    const result = await runToolLoop({ session, toolkit, prompt: "go", review });
    assert.equal(result.stopReason, "end_turn");
    assert.deepEqual(seen, [
      { name: "exec_command", sandbox: { kind: "landlock", abi: seen[0].sandbox.abi, write: "workspace", network: "denied" } },
      { name: "write_file", sandbox: undefined },
    ]);
    assert.equal(fs.readFileSync(path.join(ws.root, "loop.txt"), "utf8"), "loop\n");
    assert.equal(fs.existsSync(path.join(ws.root, "w.txt")), false, "write_file was rejected");
    // Off: no sandbox field, so the same hook asks.
    context.exec = undefined;
    turn = 0;
    seen.length = 0;
    await runToolLoop({ session, toolkit, prompt: "go", review });
    assert.deepEqual(seen.map((r) => [r.name, "sandbox" in r && r.sandbox !== undefined]), [["exec_command", false], ["write_file", false]]);
  });

  test("session tools (the todo list) keep working on a context that sets exec", async () => {
    const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "required" });
    await toolkit.invoke("task_create_many", { tasks: [{ title: "first" }, { title: "second" }] });
    const listed = await toolkit.invoke("task_list", {});
    assert.deepEqual(
      listed.content.tasks.map((t) => t.title),
      ["first", "second"],
    );
  });

  test("a malformed exec option is a typed INVALID_ARGUMENT error, through every front door", async () => {
    const toolkit = toolkitFor(ws.root, "workspace-write", { sandbox: "yes" });
    const input = { cwd: ws.root, command: ["true"] };
    await assert.rejects(toolkit.invoke("exec_command", input), (error) => {
      assert.equal(error.code, "INVALID_ARGUMENT");
      assert.equal(error.message, 'INVALID_ARGUMENT: context.exec.sandbox must be "off", "auto" or "required"');
      return true;
    });
    const wrapped = await toolkit.tools.exec_command(input);
    const message = 'INVALID_ARGUMENT: context.exec.sandbox must be "off", "auto" or "required"';
    assert.deepEqual(wrapped, { status: "failure", reason: "runtime", message, error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} } });
    const denyWithoutSandbox = toolkitFor(ws.root, "workspace-write", { network: "deny" });
    await assert.rejects(denyWithoutSandbox.invoke("exec_command", input), /needs context\.exec\.sandbox/);
  });
});

describe("a kernel without Landlock (test hook, in a child process)", onlyOn(["linux"], "switches Landlock off through a test hook"), () => {
  let report;
  let child;
  before(async () => {
    child = await new Promise((resolve) => {
      execFile(
        process.execPath,
        [path.join(here, "exec_sandbox_child.mjs")],
        // a fixed job (2 s on a loaded 2-core machine): the timeout only catches a hang
        { cwd: path.join(here, ".."), env: { ...process.env, AGENT_TOOLS_NATIVE_TEST_HOOKS: "1" }, timeout: 300_000 },
        (error, stdout, stderr) => resolve({ code: error ? (error.code ?? error.signal) : 0, stdout, stderr }),
      );
    });
    if (child.code === 0) report = JSON.parse(child.stdout.trim().split("\n").at(-1));
  }, { timeout: 310_000 });

  test("the child ran", () => {
    assert.equal(child.code, 0, child.stderr);
  });

  test('"auto" runs the command unsandboxed and says so', () => {
    assert.deepEqual(report.auto.sandbox, { kind: "none", reason: "Landlock is not available (simulated by a test hook)" });
    assert.equal(report.auto.wroteOutside, true);
  });

  test('"required" fails with SANDBOX_UNAVAILABLE and runs nothing', () => {
    assert.deepEqual(report.required, {
      code: "SANDBOX_UNAVAILABLE",
      message: "SANDBOX_UNAVAILABLE: the OS sandbox cannot be enforced here: Landlock is not available (simulated by a test hook)",
      name: "ExecCommandError",
      ran: false,
    });
  });

  test("the review preview says none as well; switching the hook off restores Landlock", () => {
    assert.deepEqual(report.preview, { kind: "none", reason: "Landlock is not available (simulated by a test hook)" });
    assert.equal(report.restored.kind, "landlock");
  });

  test("the hook is refused in a process without AGENT_TOOLS_NATIVE_TEST_HOOKS=1", async () => {
    const { createRequire } = await import("node:module");
    const native = createRequire(import.meta.url)("../binding.js");
    assert.throws(() => native.debugSimulateNoLandlock(true), /AGENT_TOOLS_NATIVE_TEST_HOOKS=1/);
  });
});
