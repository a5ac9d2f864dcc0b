// Child process of process_tools.test.mjs: starts a process (with a background child of its
// own) through the process tools, prints both pids, then ends without closing the toolkit:
// argv[2] "exit" exits when a line arrives on stdin, "SIGKILL" waits for the parent to kill it.
import fs from "node:fs";
import path from "node:path";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { tempDir, ALLOW_ALL } from "./helpers.mjs";

const { dir } = tempDir("atn-proc-host-");
const root = path.join(dir, "ws");
fs.mkdirSync(root);
const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL }), { extraTools: ["process_start"] });
const p = (await toolkit.invoke("process_start", { cwd: root, command: ["sh", "-c", "sleep 300 & echo $!; wait"], wait_for: "\\d+\\n" })).content;
process.stdout.write(`pids ${p.pid} ${Number(p.output.trim())}\n`);
// "exit": once the parent has seen the processes run, it says so on stdin.
// The toolkit stays reachable (a context that is garbage-collected ends its processes).
if (process.argv[2] === "exit") process.stdin.once("data", () => process.exit(toolkit ? 0 : 1));
setInterval(() => toolkit, 1000);
