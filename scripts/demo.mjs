// `npm run demo`: the toolkit doing real work in a temporary workspace.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAgentToolkit, createToolContext, SecurityBypass } from "agent-tools-native";
import { runAgentDemo } from "./agent-demo.mjs";

const workspaceRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-demo-")));
const show = (title, value) => console.log(`\n## ${title}\n${typeof value === "string" ? value : JSON.stringify(value, null, 2)}`);

try {
  fs.mkdirSync(path.join(workspaceRoot, "src", "util"), { recursive: true });
  fs.writeFileSync(path.join(workspaceRoot, "src", "main.ts"), 'import { greet } from "./util/greet";\n\nconsole.log(greet("agent"));\n');
  fs.writeFileSync(path.join(workspaceRoot, "src", "util", "greet.ts"), "export const greet = (name: string) => `hello ${name}`;\n");
  fs.writeFileSync(path.join(workspaceRoot, "README.md"), "# demo workspace\n");

  const context = createToolContext({
    workspaceRoot,
    policy: { tools: { read_file: "allow", write_file: "allow", tree: "allow" }, defaultPolicy: "deny" },
  });
  const toolkit = createAgentToolkit(context);
  console.log(`workspace: ${workspaceRoot}`);

  show("getAllowedTools() — what the model is offered", toolkit.getAllowedTools().map((d) => `${d.function.name}: ${d.function.description}`).join("\n"));

  const read = await toolkit.invoke("read_file", { path: "src/main.ts", max_lines: 2 });
  show('invoke("read_file", { path: "src/main.ts", max_lines: 2 })', read);

  const written = await toolkit.tools.write_file("src/util/farewell.ts", "export const bye = () => 'bye';\n");
  show('tools.write_file("src/util/farewell.ts", ...)', written);

  const tree = await toolkit.invoke("tree", { path: ".", entry_kind: "all" });
  const lines = [];
  const walk = (node) => {
    lines.push(`${"  ".repeat(node.depth)}${node.kind === "directory" ? "📁" : "📄"} ${node.name}`);
    for (const child of node.children ?? []) walk(child);
  };
  walk(tree.content.root);
  show(`invoke("tree", { path: ".", entry_kind: "all" }) — ${tree.content.scanned_entries} entries`, lines.join("\n"));

  show("denied by policy: tools.exec_command(...)", await toolkit.tools.exec_command({ cwd: ".", command: ["ls"] }));

  try {
    await toolkit.invoke("read_file", { path: "../../etc/passwd" });
  } catch (error) {
    show('sandbox violation: invoke("read_file", { path: "../../etc/passwd" })', `${error.constructor.name}: ${error.message}`);
  }

  fs.symlinkSync("/etc", path.join(workspaceRoot, "etc-link"));
  show('symlink escape: tools.read_file("etc-link/hostname")', await toolkit.tools.read_file("etc-link/hostname"));

  try {
    await toolkit.invoke("read_file", { path: "src/missing.ts" });
  } catch (error) {
    show("a tool error through invoke", { name: error.name, code: error.code, message: error.message });
  }

  const plan = await SecurityBypass.run(() =>
    toolkit.invoke("task_create_many", { tasks: [{ title: "read the code" }, { title: "write the fix", description: "small commit" }] }),
  );
  show('SecurityBypass.run(() => invoke("task_create_many", ...)) — policy skipped inside the scope', plan.content.tasks.map((t) => `${t.task_id} ${t.status} ${t.title}`).join("\n"));
  show("context.todo after it (the session state lives on the context)", `${context.todo.tasks.size} tasks, order ${JSON.stringify(context.todo.order)}`);
} finally {
  fs.rmSync(workspaceRoot, { recursive: true, force: true });
}

await runAgentDemo();
