// Child process of process_tools.test.mjs: starts a process (with a background child of its
// own) through the process tools, prints both pids, then ends without closing the toolkit:
// argv[2] "exit" exits when a line arrives on stdin, "SIGKILL" waits for the parent to kill it;
// argv[3] is the workspace, made and removed by the parent.
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { ALLOW_ALL } from "./helpers.mjs";

const root = process.argv[3];
const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL }), { extraTools: ["process_start"] });
const p = (await toolkit.invoke("process_start", { cwd: root, command: ["sh", "-c", "sleep 300 & echo $!; wait"], wait_for: "\\d+\\n" })).content;
process.stdout.write(`pids ${p.pid} ${Number(p.output.trim())}\n`);
// "exit": once the parent has seen the processes run, it says so on stdin.
// The toolkit stays reachable (a context that is garbage-collected ends its processes).
if (process.argv[2] === "exit") process.stdin.once("data", () => process.exit(toolkit ? 0 : 1));
setInterval(() => toolkit, 1000);
