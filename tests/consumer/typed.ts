// Compiled with `tsc --strict` in a consumer directory: the typed invoke, through the package name.
import { createAgentToolkit, createToolContext, type ToolArgsByName, type ToolResultByName } from "agent-tools-native";

const toolkit = createAgentToolkit(createToolContext({ workspaceRoot: process.cwd() }));

export async function typed(): Promise<number> {
  const read = await toolkit.invoke("read_file", { path: "package.json", max_lines: 5 });
  const content: ToolResultByName["read_file"] = read.content;
  const lines: number = read.content.meta.line_count;
  const args: ToolArgsByName["exec_command"] = { cwd: ".", command: ["ls"] };
  const exec = await toolkit.invoke("exec_command", args);
  const code: number = exec.content.exit_code;
  // @ts-expect-error: read_file takes `path`, not `file`
  await toolkit.invoke("read_file", { file: "package.json" });
  // @ts-expect-error: no such tool
  await toolkit.invoke("read_files", { path: "x" });
  // @ts-expect-error: tree's output has no `content`
  (await toolkit.invoke("tree", { path: "." })).content.content;
  return content.content.length + lines + code;
}
