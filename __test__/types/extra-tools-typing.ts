// Compile-time checks for the opt-in tools (README, "Opt-in tools"): enabled ones are typed in
// invoke, tools.* and getAllowedTools; a toolkit without them is typed exactly as before.
import { z } from "zod";
import {
  asTools,
  createAgentToolkit,
  createToolContext,
  defineTool,
  runToolLoop,
  type AgentToolkit,
  type OptInToolName,
  type OptInToolResultByName,
} from "agent-tools-native";

export async function usage(): Promise<void> {
  // a policy may name an opt-in tool
  const context = createToolContext({
    workspaceRoot: "/ws",
    policy: { tools: { edit_file: "allow", read_file: "allow" }, defaultPolicy: "deny" },
  });
  const toolkit = createAgentToolkit(context, { extraTools: ["edit_file"] });

  const out = await toolkit.invoke("edit_file", { path: "a.ts", old_string: "a", new_string: "b", replace_all: true });
  const stage: "exact" | "line_endings" | "trailing_whitespace" | "indentation" = out.content.stage;
  const diff: string = out.content.diff;
  const lines: number[] = out.content.lines;
  const name: "edit_file" = out.name;
  void [stage, diff, lines, name];

  // the built-ins keep their types beside it
  const read = await toolkit.invoke("read_file", { path: "a.ts" });
  const text: string = read.content.content;
  void text;

  // @ts-expect-error new_string is required
  await toolkit.invoke("edit_file", { path: "a.ts", old_string: "a" });
  // @ts-expect-error replace_all is a boolean
  await toolkit.invoke("edit_file", { path: "a.ts", old_string: "a", new_string: "b", replace_all: "yes" });
  // @ts-expect-error the result has no such field
  void out.content.created;

  const wrapped = await toolkit.tools.edit_file("a.ts", { old_string: "a", new_string: "b", dry_run: true });
  if (wrapped.status === "success") {
    const result: OptInToolResultByName["edit_file"] = wrapped.data;
    void result;
  }
  // @ts-expect-error the options object is required
  await toolkit.tools.edit_file("a.ts");

  const names: string[] = toolkit.getAllowedTools().map((d) => d.function.name);
  void names;

  // without extraTools: no edit_file, in invoke or in tools
  const plain = createAgentToolkit(context);
  // @ts-expect-error not enabled
  await plain.invoke("edit_file", { path: "a.ts", old_string: "a", new_string: "b" });
  // @ts-expect-error not enabled
  void plain.tools.edit_file;
  const same: AgentToolkit = plain;
  void same;

  // @ts-expect-error not an opt-in tool
  createAgentToolkit(context, { extraTools: ["edit_files"] });

  // with user tools too
  const echo = defineTool({ name: "echo", description: "Echo", input: z.object({ text: z.string() }), execute: (i) => i.text });
  const both = createAgentToolkit(context, { tools: [echo], extraTools: ["edit_file"] });
  const echoed = await both.invoke("echo", { text: "hi" });
  const edited = await both.invoke("edit_file", { path: "a", old_string: "a", new_string: "b" });
  const replaced: number = edited.content.replacements;
  void [echoed, replaced];
  // @ts-expect-error echo's input
  await both.invoke("echo", { text: 1 });

  // find_files: its own input and result
  const finder = createAgentToolkit(context, { extraTools: ["find_files", "edit_file"] });
  const found = await finder.invoke("find_files", { pattern: "*.ts", max_results: 10 });
  const first: string | undefined = found.content.items[0]?.path;
  const truncated: boolean = found.content.truncated;
  void [first, truncated];
  const listed = await finder.tools.find_files({ pattern: "src/**/*.ts", include_hidden: true });
  void listed;
  // @ts-expect-error pattern is required
  await finder.invoke("find_files", { root_path: "src" });
  // @ts-expect-error find_files was not enabled here
  await toolkit.invoke("find_files", { pattern: "*" });

  // apply_patches
  const patcher = createAgentToolkit(context, { extraTools: ["apply_patches"] });
  const patched = await patcher.invoke("apply_patches", { patch: "*** Begin Patch\n*** End Patch" });
  const action: "added" | "updated" | "deleted" | "moved" | undefined = patched.content.files[0]?.action;
  void action;
  // @ts-expect-error patch is a string
  await patcher.invoke("apply_patches", { patch: 1 });

  // the checkpoint tools
  const undo = createAgentToolkit(context, { extraTools: ["checkpoint_list", "checkpoint_restore"], checkpoints: true });
  const journal = await undo.invoke("checkpoint_list", {});
  const firstId: string | undefined = journal.content.checkpoints[0]?.id;
  const change: "created" | "modified" | "deleted" | undefined = journal.content.checkpoints[0]?.files[0]?.change;
  void change;
  const undone = await undo.invoke("checkpoint_restore", { id: firstId ?? "cp-00000001", force: true });
  const redo: string | null = undone.content.checkpoint;
  void redo;
  const envelope = await undo.tools.checkpoint_restore({ id: "cp-00000001" });
  void envelope;
  // @ts-expect-error id is required
  await undo.invoke("checkpoint_restore", {});
  // @ts-expect-error force is a boolean
  await undo.invoke("checkpoint_restore", { id: "cp-00000001", force: "yes" });

  // asTools and the tool loop take a toolkit with extras
  void asTools(both);
  void runToolLoop;
  const all: OptInToolName[] = ["edit_file", "find_files", "apply_patches", "checkpoint_list", "checkpoint_restore"];
  void all;
}
