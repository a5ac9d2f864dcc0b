// Child process of exec_sandbox.test.mjs, started with a pipe at descriptor 200 that is not
// close-on-exec (as a parent process may leave one). Runs one command sandboxed and one not,
// each telling whether it has descriptor 200 and writing its label to it; prints a JSON report.
import { createToolContext, createAgentToolkit } from "agent-tools-native";
import { ALLOW_ALL } from "./helpers.mjs";

const root = process.argv[2];
const run = async (exec, label) => {
  const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: root, policy: ALLOW_ALL, exec }));
  const script = `test -e /proc/self/fd/200 && echo has-200 || echo no-200; bash -c 'echo ${label} >&200' 2>/dev/null`;
  const out = await toolkit.invoke("exec_command", { cwd: root, command: ["sh", "-c", script] });
  return out.content.stdout.trim();
};
const sandboxed = await run({ sandbox: "required" }, "sandboxed");
const plain = await run(undefined, "plain");
process.stdout.write(JSON.stringify({ sandboxed, plain }));
process.exit(0);
