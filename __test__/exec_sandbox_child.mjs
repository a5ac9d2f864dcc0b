// Child process of exec_sandbox.test.mjs, started with AGENT_TOOLS_NATIVE_TEST_HOOKS=1: hides
// Landlock with the test hook `debugSimulateNoLandlock(true)`, then runs exec_command with
// `sandbox: "auto"` and `"required"` and asks for the review preview; switches the hook off and
// asks again. Prints one JSON report on stdout; the parent asserts on it.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { createToolContext, createAgentToolkit } from "agent-tools-native";
import { tempDir, ALLOW_ALL } from "./helpers.mjs";

const native = createRequire(import.meta.url)("../binding.js");
const { dir, cleanup } = tempDir("atn-sbx-child-");
const root = path.join(dir, "ws");
fs.mkdirSync(root);
const report = {};
try {
  native.debugSimulateNoLandlock(true);
  const context = (sandbox) => createToolContext({ workspaceRoot: root, policy: ALLOW_ALL, exec: { sandbox } });
  const target = (name) => path.join(dir, name);

  const auto = await createAgentToolkit(context("auto")).invoke("exec_command", { cwd: root, command: ["sh", "-c", `echo x > '${target("auto.txt")}'`] });
  report.auto = { sandbox: auto.content.sandbox, wroteOutside: fs.existsSync(target("auto.txt")) };

  try {
    await createAgentToolkit(context("required")).invoke("exec_command", { cwd: root, command: ["sh", "-c", `echo x > '${target("required.txt")}'`] });
    report.required = "resolved";
  } catch (error) {
    report.required = { code: error.code, message: error.message, name: error.name, ran: fs.existsSync(target("required.txt")) };
  }
  report.preview = JSON.parse(native.execSandboxPreview(context("required")));
  native.debugSimulateNoLandlock(false);
  report.restored = JSON.parse(native.execSandboxPreview(context("required")));
} finally {
  cleanup();
}
console.log(JSON.stringify(report));
