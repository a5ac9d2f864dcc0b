// exec_command (docs/tools/exec_command.md, and its entries in docs/compat.md) through invoke,
// the secure wrapper and the raw handler.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ToolCatalog } from "agent-tools-native";
import { workspace, tempDir, rejection, PROMPTLY_MS, onlyOn, NEEDS, notUnderWine, WINE } from "./helpers.mjs";

const OUTPUT_KEYS = [
  "cwd", "command", "exit_code", "stdout", "stderr", "stdout_truncated", "stderr_truncated", "timed_out", "duration_ms",
];

/** Runs `fn(ws)` with a fresh workspace, removed afterwards. */
async function withWorkspace(fn, ...options) {
  const ws = workspace(...options);
  try {
    await fn(ws);
  } finally {
    ws.cleanup();
  }
}

/** Runs `input` through invoke, checking the envelope and the output's key order. */
async function viaInvoke(ws, input) {
  const out = await ws.toolkit.invoke("exec_command", input);
  assert.deepEqual(Object.keys(out), ["role", "name", "content"]);
  assert.equal(out.role, "function");
  assert.equal(out.name, "exec_command");
  assert.deepEqual(Object.keys(out.content), OUTPUT_KEYS);
  assert.ok(Number.isInteger(out.content.duration_ms) && out.content.duration_ms >= 0);
  return out.content;
}

/** Runs `input` through `tools.exec_command`, expecting success. */
async function viaWrapper(ws, input) {
  const result = await ws.toolkit.tools.exec_command(input);
  assert.equal(result.status, "success", JSON.stringify(result));
  assert.deepEqual(Object.keys(result.data), OUTPUT_KEYS);
  return result.data;
}

/** Runs `input` through both front doors and returns both outputs. */
async function viaBoth(ws, input) {
  return [await viaInvoke(ws, input), await viaWrapper(ws, input)];
}

/** The same tool error through invoke (ExecCommandError) and the wrapper (failure envelope). */
async function assertError(ws, input, code, message) {
  const err = await rejection(ws.toolkit.invoke("exec_command", input));
  assert.ok(err instanceof Error);
  assert.equal(err.name, "ExecCommandError");
  assert.equal(err.code, code);
  assert.equal(err.message, message);
  assert.deepEqual(await ws.toolkit.tools.exec_command(input), {
    status: "failure",
    reason: "runtime",
    message,
    error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} },
  });
}

function writeScript(ws, name, body, mode) {
  const file = path.join(ws.root, name);
  fs.writeFileSync(file, body);
  fs.chmodSync(file, mode);
  return file;
}

/** Runs `fn` with `process.env[name]` set (or deleted for `undefined`), restoring it after. */
async function withEnv(vars, fn) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    await fn();
  } finally {
    apply(saved);
  }
}

/** Pids of the non-zombie processes in process group `pgid` (Linux /proc). */
function livingGroupMembers(pgid) {
  const alive = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") alive.push(Number(name));
  }
  return alive;
}

describe("exec_command: output", onlyOn(["unix"], NEEDS.sh), () => {
  test("verified example: no shell on Linux, output in upstream's key order", async () => {
    await withWorkspace(async (ws) => {
      for (const out of await viaBoth(ws, { cwd: ".", command: ["echo", "hi there", "$HOME"] })) {
        assert.deepEqual({ ...out, duration_ms: 0 }, {
          cwd: ws.root,
          command: ["echo", "hi there", "$HOME"],
          exit_code: 0,
          stdout: "hi there $HOME\n",
          stderr: "",
          stdout_truncated: false,
          stderr_truncated: false,
          timed_out: false,
          duration_ms: 0,
        });
      }
    });
  });

  test("cwd is resolved in the workspace and the child runs there", async () => {
    await withWorkspace(async (ws) => {
      for (const out of await viaBoth(ws, { cwd: "src", command: ["pwd"] })) {
        assert.equal(out.cwd, path.join(ws.root, "src"));
        assert.equal(out.stdout, `${path.join(ws.root, "src")}\n`);
      }
      for (const out of await viaBoth(ws, { cwd: "", command: ["pwd"] })) {
        assert.equal(out.cwd, ws.root, '"" resolves to the root');
        assert.equal(out.stdout, `${ws.root}\n`);
      }
      const [out] = await viaBoth(ws, { cwd: "src\\..\\src", command: ["pwd"] });
      assert.equal(out.cwd, path.join(ws.root, "src"));
    });
  });

  test("command is reported as given, stderr is captured, a non-zero exit is not an error", async () => {
    await withWorkspace(async (ws) => {
      for (const out of await viaBoth(ws, { cwd: ".", command: ["sh", "-c", "echo out; echo err >&2; exit 3"] })) {
        assert.deepEqual(out.command, ["sh", "-c", "echo out; echo err >&2; exit 3"]);
        assert.equal(out.exit_code, 3);
        assert.equal(out.stdout, "out\n");
        assert.equal(out.stderr, "err\n");
      }
    });
  });

  test("signal deaths map to 128 + signal", async () => {
    await withWorkspace(async (ws) => {
      for (const [signal, code] of [["9", 137], ["15", 143]]) {
        for (const out of await viaBoth(ws, { cwd: ".", command: ["sh", "-c", `kill -${signal} $$`] })) {
          assert.equal(out.exit_code, code);
          assert.equal(out.timed_out, false);
        }
      }
    });
  });

  test("stdin is written and closed; without stdin the child reads EOF", async () => {
    await withWorkspace(async (ws) => {
      for (const out of await viaBoth(ws, { cwd: ".", command: ["cat"], stdin: "abcé" })) assert.equal(out.stdout, "abcé");
      for (const out of await viaBoth(ws, { cwd: ".", command: ["cat"] })) {
        assert.equal(out.exit_code, 0);
        assert.equal(out.stdout, "");
      }
      const [empty] = await viaBoth(ws, { cwd: ".", command: ["cat"], stdin: "" });
      assert.equal(empty.stdout, "");
      // A child that ignores a large input neither blocks the call nor breaks the host (SIGPIPE).
      const big = "x".repeat(4 << 20);
      const [ignored] = await viaBoth(ws, { cwd: ".", command: ["sh", "-c", "head -c 3; exit 0"], stdin: big });
      assert.equal(ignored.exit_code, 0);
      assert.equal(ignored.stdout, "xxx");
    });
  });

  test("output is decoded as UTF-8: invalid bytes become U+FFFD, a leading BOM is dropped", async () => {
    await withWorkspace(async (ws) => {
      const [out] = await viaBoth(ws, { cwd: ".", command: ["printf", "\\357\\273\\277a\\377b\\342\\202\\254"] });
      assert.equal(out.stdout, "a\uFFFDb€");
    });
  });

  test("the child inherits the environment, including variables set at run time (docs/compat.md)", async () => {
    await withWorkspace(async (ws) => {
      await withEnv({ ATN_EXEC_TEST_VAR: "visible value" }, async () => {
        for (const out of await viaBoth(ws, { cwd: ".", command: ["sh", "-c", 'printf %s "$ATN_EXEC_TEST_VAR"'] })) {
          assert.equal(out.stdout, "visible value");
        }
      });
      await withEnv({ ATN_EXEC_TEST_VAR: undefined }, async () => {
        const [out] = await viaBoth(ws, { cwd: ".", command: ["sh", "-c", 'printf %s "${ATN_EXEC_TEST_VAR-unset}"'] });
        assert.equal(out.stdout, "unset");
      });
    });
  });

  test("exec_command runs in read-only mode (kept, docs/compat.md)", async () => {
    await withWorkspace(async (ws) => {
      const [out] = await viaBoth(ws, { cwd: ".", command: ["sh", "-c", "echo hi > made.txt"] });
      assert.equal(out.exit_code, 0);
      assert.equal(fs.readFileSync(path.join(ws.root, "made.txt"), "utf8"), "hi\n");
    }, undefined, "read-only");
  });
});

describe("exec_command: output caps (UTF-16 code units)", onlyOn(["unix"], NEEDS.sh), () => {
  test("5000 units on each stream with a cap of 1000: both cut and truncated", async () => {
    await withWorkspace(async (ws) => {
      const script = "printf %5000s | tr ' ' x; printf %5000s | tr ' ' y >&2";
      for (const out of await viaBoth(ws, { cwd: ".", command: ["sh", "-c", script], max_output_chars: 1000 })) {
        assert.equal(out.stdout, "x".repeat(1000));
        assert.equal(out.stderr, "y".repeat(1000));
        assert.equal(out.stdout_truncated, true);
        assert.equal(out.stderr_truncated, true);
      }
    });
  });

  test("output exactly at the cap is not truncated", async () => {
    await withWorkspace(async (ws) => {
      const [out] = await viaBoth(ws, { cwd: ".", command: ["sh", "-c", "printf %1000s | tr ' ' x"], max_output_chars: 1000 });
      assert.equal(out.stdout.length, 1000);
      assert.equal(out.stdout_truncated, false);
    });
  });

  test("a cut through a surrogate pair keeps the lone high surrogate (kept, docs/compat.md)", async () => {
    await withWorkspace(async (ws) => {
      const script = "printf %999s | tr ' ' a; printf '\\360\\237\\230\\200'";
      for (const out of await viaBoth(ws, { cwd: ".", command: ["sh", "-c", script], max_output_chars: 1000 })) {
        assert.equal(out.stdout.length, 1000);
        assert.equal(out.stdout, `${"a".repeat(999)}\uD83D`);
        assert.equal(out.stdout_truncated, true);
      }
      const [whole] = await viaBoth(ws, { cwd: ".", command: ["sh", "-c", script], max_output_chars: 1001 });
      assert.equal(whole.stdout, `${"a".repeat(999)}😀`);
      assert.equal(whole.stdout_truncated, false);
    });
  });

  test("the default cap is 200000 units; fractional caps keep whole units (kept, docs/compat.md)", async () => {
    await withWorkspace(async (ws) => {
      const [big] = await viaBoth(ws, { cwd: ".", command: ["sh", "-c", "head -c 200001 /dev/zero | tr '\\0' z"] });
      assert.equal(big.stdout.length, 200000);
      assert.equal(big.stdout_truncated, true);
      const [fraction] = await viaBoth(ws, {
        cwd: ".", command: ["sh", "-c", "printf %1001s | tr ' ' x"], max_output_chars: 1000.5, timeout_ms: 1000.5,
      });
      assert.equal(fraction.stdout.length, 1000);
      assert.equal(fraction.stdout_truncated, true);
      const [exact] = await viaBoth(ws, { cwd: ".", command: ["sh", "-c", "printf %1000s"], max_output_chars: 1000.5 });
      assert.equal(exact.stdout_truncated, false);
    });
  });

  test("10 MB on each pipe at once: read concurrently, no deadlock", async () => {
    await withWorkspace(async (ws) => {
      const script = "head -c 10000000 /dev/zero | tr '\\0' o & head -c 10000000 /dev/zero | tr '\\0' e >&2; wait";
      const out = await viaInvoke(ws, { cwd: ".", command: ["sh", "-c", script], max_output_chars: 1000000, timeout_ms: 60000 });
      assert.equal(out.exit_code, 0);
      assert.equal(out.timed_out, false);
      assert.equal(out.stdout, "o".repeat(1000000));
      assert.equal(out.stderr, "e".repeat(1000000));
      assert.equal(out.stdout_truncated, true);
      assert.equal(out.stderr_truncated, true);
    });
  });
});

describe("exec_command: timeout", () => {
  test("upstream example: a 5 s sleep with timeout_ms 50", notUnderWine(WINE.pwsh), async () => {
    await withWorkspace(async (ws) => {
      const input = { cwd: ".", command: [process.execPath, "-e", "setTimeout(() => {}, 5000)"], timeout_ms: 50 };
      for (const out of await viaBoth(ws, input)) {
        assert.equal(out.timed_out, true);
        assert.equal(out.exit_code, 124);
        assert.ok(out.duration_ms >= 1);
      }
    });
  });

  test("output written before the kill is kept", { ...onlyOn(["unix"], NEEDS.sh), timeout: 120_000 }, async () => {
    await withWorkspace(async (ws) => {
      // On a loaded machine the kill can come before the shell has run its echo: then the same
      // call again with a longer timeout (nothing written is only accepted on the way there).
      let out;
      for (const timeout_ms of [300, 1_200, 4_800, 19_200]) {
        out = await viaInvoke(ws, { cwd: ".", command: ["sh", "-c", "echo before; exec sleep 60"], timeout_ms });
        if (out.stdout !== "") break;
      }
      assert.equal(out.stdout, "before\n");
      assert.equal(out.timed_out, true);
      assert.equal(out.exit_code, 124);
    });
  });

  test("the whole process group is killed and the call returns promptly (docs/compat.md)", { ...onlyOn(["linux"], NEEDS.processGroup), timeout: 120_000 }, async () => {
    await withWorkspace(async (ws) => {
      // The shell prints its group first; a kill before it did (a loaded machine) started no
      // children: then the same call again with a longer timeout.
      let out;
      let took;
      for (const timeout_ms of [200, 800, 3_200]) {
        const started = Date.now();
        out = await viaInvoke(ws, { cwd: ".", command: ["sh", "-c", "echo $$; sleep 300 & sleep 300"], timeout_ms });
        took = Date.now() - started;
        if (out.stdout !== "") break;
      }
      assert.ok(took < PROMPTLY_MS, `returned after ${took} ms`);
      assert.equal(out.timed_out, true);
      assert.equal(out.exit_code, 124);
      const pgid = Number(out.stdout.trim());
      assert.ok(pgid > 1);
      // Zombies are dead processes an init that does not reap may keep listed, so `kill -0`
      // cannot tell; /proc's state can. A killed process still has to be scheduled to die: on
      // a loaded machine that takes a moment after the call returned (the sleeps would live 300 s).
      let living = livingGroupMembers(pgid);
      for (const end = Date.now() + 60_000; living.length > 0 && Date.now() < end; living = livingGroupMembers(pgid)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (const pid of living) process.kill(pid, "SIGKILL");
      assert.deepEqual(living, [], "no process of the group survives");
    });
  });

  test("children of the killed child no longer hold the call past the timeout", onlyOn(["unix"], NEEDS.sh), async () => {
    await withWorkspace(async (ws) => {
      const started = Date.now();
      const out = await viaWrapper(ws, { cwd: ".", command: ["sh", "-c", "sleep 30; echo done"], timeout_ms: 200 });
      assert.ok(Date.now() - started < PROMPTLY_MS);
      assert.equal(out.stdout, "");
      assert.equal(out.timed_out, true);
      assert.equal(out.exit_code, 124);
    });
  });
});

describe("exec_command: concurrency", onlyOn(["unix"], NEEDS.sh), () => {
  test("200 concurrent calls through invoke all complete", async () => {
    await withWorkspace(async (ws) => {
      const calls = Array.from({ length: 200 }, (_, i) =>
        ws.toolkit.invoke("exec_command", { cwd: ".", command: ["sh", "-c", `sleep 0.2; echo ${i}`] }),
      );
      const outs = await Promise.all(calls);
      outs.forEach((out, i) => {
        assert.equal(out.content.exit_code, 0);
        assert.equal(out.content.stdout, `${i}\n`);
      });
    });
  });
});

describe("exec_command: command resolution", () => {
  test("a missing program: INTERNAL in default mode, COMMAND_NOT_FOUND in direct mode", onlyOn(["linux"], "expects the default mode of Linux, which starts the program without a shell"), async () => {
    await withWorkspace(async (ws) => {
      await assertError(ws, { cwd: ".", command: ["definitely-not-a-cmd"] }, "INTERNAL",
        'INTERNAL: Executable not found in $PATH: "definitely-not-a-cmd"');
      await assertError(ws, { cwd: ".", command: ["definitely-not-a-cmd"], shell_mode: "direct" }, "COMMAND_NOT_FOUND",
        "COMMAND_NOT_FOUND: command not found: definitely-not-a-cmd");
    });
  });

  test("relative scripts: executable runs in both modes, non-executable fails per mode", onlyOn(["unix"], "runs #!/bin/sh scripts and checks their execute bit"), async () => {
    await withWorkspace(async (ws) => {
      writeScript(ws, "script.sh", '#!/bin/sh\necho script "$1"\n', 0o755);
      writeScript(ws, "noexec.sh", "#!/bin/sh\necho no\n", 0o644);
      for (const shell_mode of [undefined, null, "default", "direct"]) {
        for (const out of await viaBoth(ws, { cwd: ".", command: ["./script.sh", "a"], shell_mode })) {
          assert.equal(out.stdout, "script a\n");
          assert.deepEqual(out.command, ["./script.sh", "a"]);
        }
      }
      await assertError(ws, { cwd: ".", command: ["./noexec.sh"], shell_mode: "direct" }, "COMMAND_NOT_FOUND",
        "COMMAND_NOT_FOUND: command not found: ./noexec.sh");
      await assertError(ws, { cwd: ".", command: ["./noexec.sh"] }, "INTERNAL",
        "INTERNAL: EACCES: permission denied, posix_spawn './noexec.sh'");
      await assertError(ws, { cwd: ".", command: ["./missing.sh"], shell_mode: "direct" }, "COMMAND_NOT_FOUND",
        "COMMAND_NOT_FOUND: command not found: ./missing.sh");
    });
  });

  test("direct mode searches process.env.PATH in order and requires an executable regular file", onlyOn(["unix"], "runs #!/bin/sh scripts and checks their execute bit"), async () => {
    await withWorkspace(async (ws) => {
      const first = path.join(ws.root, "first");
      const second = path.join(ws.root, "second");
      fs.mkdirSync(first);
      fs.mkdirSync(second);
      fs.writeFileSync(path.join(first, "atn-tool"), "#!/bin/sh\necho first\n", { mode: 0o644 });
      fs.mkdirSync(path.join(first, "atn-dir"));
      fs.writeFileSync(path.join(second, "atn-tool"), "#!/bin/sh\necho second\n", { mode: 0o755 });
      fs.writeFileSync(path.join(second, "atn-dir"), "#!/bin/sh\necho file\n", { mode: 0o755 });
      await withEnv({ PATH: ` : ${first} ::${second}:${process.env.PATH}` }, async () => {
        for (const out of await viaBoth(ws, { cwd: ".", command: ["atn-tool"], shell_mode: "direct" })) {
          assert.equal(out.stdout, "second\n", "the non-executable first match is skipped");
        }
        const [dir] = await viaBoth(ws, { cwd: ".", command: ["atn-dir"], shell_mode: "direct" });
        assert.equal(dir.stdout, "file\n", "a directory is not a command");
      });
    });
  });

  test("darwin wraps the tokens in `zsh -lc` with single quotes", onlyOn(["unix"], "stands a #!/bin/sh script in for zsh"), async () => {
    await withWorkspace(async (ws) => {
      const bin = path.join(ws.base, "fakebin");
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, "zsh"), '#!/bin/sh\nfor a in "$@"; do printf "<%s>" "$a"; done\n', { mode: 0o755 });
      ws.context.env.platform = "darwin";
      await withEnv({ PATH: bin }, async () => {
        for (const out of await viaBoth(ws, { cwd: ".", command: ["echo", "it's", "a b"] })) {
          assert.equal(out.stdout, `<-lc><'echo' 'it'"'"'s' 'a b'>`);
          assert.deepEqual(out.command, ["echo", "it's", "a b"]);
        }
        // direct mode never wraps
        await assertError(ws, { cwd: ".", command: ["echo"], shell_mode: "direct" }, "COMMAND_NOT_FOUND",
          "COMMAND_NOT_FOUND: command not found: echo");
      });
      await withEnv({ PATH: path.join(ws.base, "empty") }, async () => {
        await assertError(ws, { cwd: ".", command: ["echo", "x"] }, "INTERNAL", 'INTERNAL: Executable not found in $PATH: "zsh"');
      });
    });
  });

  test("win32 wraps the tokens in `pwsh.exe -Command &` and direct mode uses PATHEXT without an execute check", onlyOn(["unix"], "stands a #!/bin/sh script in for pwsh.exe and expects the POSIX spawn error"), async () => {
    await withWorkspace(async (ws) => {
      const bin = path.join(ws.base, "fakebin");
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, "pwsh.exe"), '#!/bin/sh\nfor a in "$@"; do printf "<%s>" "$a"; done\n', { mode: 0o755 });
      ws.context.env.platform = "win32";
      await withEnv({ PATH: bin }, async () => {
        const [out] = await viaBoth(ws, { cwd: ".", command: ["Write-Output", "it's"] });
        assert.equal(out.stdout, "<-NoLogo><-NoProfile><-Command><& 'Write-Output' 'it''s'>");
      });
      // PATHEXT lookup: `tool` finds `tool.CMD`; the file's mode is not checked on win32, so
      // spawning the non-executable file then fails as the runtime reports it.
      fs.writeFileSync(path.join(bin, "tool.CMD"), "@echo off\n", { mode: 0o644 });
      await withEnv({ PATH: bin, PATHEXT: " .exe; .cmd ;" }, async () => {
        await assertError(ws, { cwd: ".", command: ["tool"], shell_mode: "direct" }, "INTERNAL",
          `INTERNAL: EACCES: permission denied, posix_spawn '${path.join(bin, "tool.CMD")}'`);
      });
    });
  });
});

describe("exec_command: validation (order and exact messages)", () => {
  test("each rule in upstream's order", async () => {
    await withWorkspace(async (ws) => {
      const cases = [
        [{ command: ["ls"] }, "cwd must be a non-empty string"],
        [{ cwd: 5, command: 5 }, "cwd must be a non-empty string"],
        [{ cwd: ".", command: "echo hi" }, "command must be a non-empty string array"],
        [{ cwd: ".", command: [] }, "command must be a non-empty string array"],
        [{ cwd: ".", command: ["echo", 1] }, "command must contain only string elements"],
        [{ cwd: ".", command: ["echo", ""] }, "command elements must not be empty"],
        [{ cwd: ".", command: ["echo", 1, ""] }, "command must contain only string elements"],
        [{ cwd: ".", command: ["echo", "", 1] }, "command elements must not be empty"],
        [{ cwd: ".", command: ["ls"], shell_mode: "bash", timeout_ms: 0 }, 'shell_mode must be "default" or "direct"'],
        [{ cwd: ".", command: ["ls"], timeout_ms: 0, max_output_chars: 1 }, "timeout_ms must be between 1 and 120000"],
        [{ cwd: ".", command: ["ls"], timeout_ms: 120001 }, "timeout_ms must be between 1 and 120000"],
        [{ cwd: ".", command: ["ls"], timeout_ms: "100" }, "timeout_ms must be between 1 and 120000"],
        [{ cwd: ".", command: ["ls"], timeout_ms: Infinity }, "timeout_ms must be between 1 and 120000"],
        [{ cwd: ".", command: ["ls"], max_output_chars: 999, stdin: 1 }, "max_output_chars must be between 1000 and 1000000"],
        [{ cwd: ".", command: ["ls"], max_output_chars: 1000001 }, "max_output_chars must be between 1000 and 1000000"],
        [{ cwd: ".", command: ["ls"], stdin: null }, "stdin must be a string"],
        [{ cwd: ".", command: ["ls"], stdin: 1 }, "stdin must be a string"],
      ];
      for (const [input, text] of cases) {
        await assertError(ws, input, "INVALID_ARGUMENT", `INVALID_ARGUMENT: ${text}`);
      }
    });
  });

  test("nullish options take the defaults", onlyOn(["unix"], NEEDS.sh), async () => {
    await withWorkspace(async (ws) => {
      const [out] = await viaBoth(ws, { cwd: ".", command: ["true"], shell_mode: null, timeout_ms: null, max_output_chars: null });
      assert.equal(out.exit_code, 0);
      const [edges] = await viaBoth(ws, { cwd: ".", command: ["true"], timeout_ms: 120000, max_output_chars: 1000000 });
      assert.equal(edges.exit_code, 0);
    });
  });

  test("a cwd that is a file, missing or blank-named: NOT_DIRECTORY with the absolute path", onlyOn(["unix"], "names a directory \"  \", which Windows does not allow"), async () => {
    await withWorkspace(async (ws) => {
      fs.writeFileSync(path.join(ws.root, "f.txt"), "x");
      for (const cwd of ["f.txt", "nope", "  "]) {
        await assertError(ws, { cwd, command: ["ls"] }, "NOT_DIRECTORY", `NOT_DIRECTORY: cwd is not a directory: ${path.join(ws.root, cwd)}`);
      }
    });
  });

  test("a non-object input through the wrapper is an Invalid path argument", async () => {
    await withWorkspace(async (ws) => {
      const result = await ws.toolkit.tools.exec_command(5);
      assert.equal(result.status, "failure");
      assert.equal(result.message, "Invalid path argument");
    });
  });
});

describe("exec_command: sandbox", () => {
  test("a cwd outside the workspace is denied", async () => {
    await withWorkspace(async (ws) => {
      const wrapped = await ws.toolkit.tools.exec_command({ cwd: "..", command: ["pwd"] });
      assert.equal(wrapped.status, "denied");
      assert.equal(wrapped.error.code, "SANDBOX_VIOLATION");
      assert.equal(wrapped.message, '[Sandbox Violation] Attempted to access path outside of workspace: ".."');
      const err = await rejection(ws.toolkit.invoke("exec_command", { cwd: "..", command: ["pwd"] }));
      assert.equal(err.constructor, Error);
      assert.equal(err.message, '[Sandbox Violation] Attempted to access path outside of workspace: ".."');
    });
  });

  test("a symlinked cwd leading outside is denied (docs/compat.md) but the raw handler follows it", onlyOn(["unix"], NEEDS.symlinks), async () => {
    await withWorkspace(async (ws) => {
      fs.symlinkSync(ws.outside, path.join(ws.root, "outlink"));
      const wrapped = await ws.toolkit.tools.exec_command({ cwd: "outlink", command: ["pwd"] });
      assert.equal(wrapped.status, "denied");
      assert.equal(wrapped.reason, "sandbox");
      await rejection(ws.toolkit.invoke("exec_command", { cwd: "outlink", command: ["pwd"] }));
      const raw = await ToolCatalog.exec_command.handler(ws.context, { cwd: path.join(ws.root, "outlink"), command: ["pwd"] });
      assert.equal(raw.stdout, `${ws.outside}\n`);
    });
  });

  test("a symlinked cwd inside the workspace is allowed", onlyOn(["unix"], NEEDS.symlinks), async () => {
    await withWorkspace(async (ws) => {
      fs.symlinkSync("src", path.join(ws.root, "srclink"));
      for (const out of await viaBoth(ws, { cwd: "srclink", command: ["pwd", "-P"] })) {
        assert.equal(out.cwd, path.join(ws.root, "srclink"));
        assert.equal(out.stdout, `${path.join(ws.root, "src")}\n`);
      }
    });
  });
});

describe("exec_command: raw handler", () => {
  test("runs without sandbox checks, with the cwd as given", onlyOn(["unix"], NEEDS.sh), async () => {
    const { dir, cleanup } = tempDir();
    try {
      const ws = workspace();
      try {
        const out = await ToolCatalog.exec_command.handler(ws.context, { cwd: dir, command: ["pwd"] });
        assert.deepEqual(Object.keys(out), OUTPUT_KEYS);
        assert.equal(out.cwd, dir);
        assert.equal(out.stdout, `${dir}\n`);
      } finally {
        ws.cleanup();
      }
    } finally {
      cleanup();
    }
  });

  test("validates like the front doors; a missing input is a TypeError wrapped as INTERNAL", async () => {
    const ws = workspace();
    try {
      const err = await rejection(ToolCatalog.exec_command.handler(ws.context, { cwd: " ", command: ["ls"] }));
      assert.equal(err.name, "ExecCommandError");
      assert.equal(err.message, "INVALID_ARGUMENT: cwd must be a non-empty string");
      const missing = await rejection(ToolCatalog.exec_command.handler(ws.context));
      assert.equal(missing.code, "INTERNAL");
      assert.equal(missing.message, "INTERNAL: undefined is not an object (evaluating 'input.cwd')");
    } finally {
      ws.cleanup();
    }
  });
});
