// Child process of ffi_panic.test.mjs, started with AGENT_TOOLS_NATIVE_TEST_HOOKS=1 (the test
// hook reads the variable from the real process environment, which Bun does not update when
// `process.env` changes at run time, so a fresh process is the one robust way to set it).
// For every tool in turn (the 13, then the opt-in tools): make its handler panic, call it
// through invoke, toolkit.tools.* and the raw ToolCatalog handler (the opt-in tools have none),
// call another tool meanwhile, switch the panic off and call the tool again. Prints one JSON
// report on stdout; the parent asserts on it.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { ToolCatalog, createAgentToolkit } from "agent-tools-native";
import { workspace } from "./helpers.mjs";

const native = createRequire(import.meta.url)("../binding.js");

const PATCH = "--- a/p.txt\n+++ b/p.txt\n@@ -1 +1 @@\n-a\n+b\n";
/** The opt-in tools (the parent checks this is all of them). */
const OPT_IN = ["edit_file", "find_files", "apply_patches"];

/** What a call ended in, in plain JSON. */
async function observe(promise) {
  try {
    return { resolved: await promise };
  } catch (error) {
    return {
      rejected: {
        isError: error instanceof Error,
        name: error.name,
        code: error.code,
        message: error.message,
        tool_name: error.tool_name,
        envelope: typeof error.toEnvelope === "function" ? error.toEnvelope() : undefined,
      },
    };
  }
}

const ws = workspace();
try {
  execFileSync("git", ["init", "-q", ws.root]);
  fs.writeFileSync(path.join(ws.root, "a.txt"), "hello\n");
  fs.writeFileSync(path.join(ws.root, "src", "a.ts"), "const answer = 42;\n");
  const { context } = ws;
  // one toolkit with every opt-in tool: the 13 work through it as through a plain one
  const toolkit = createAgentToolkit(context, { extraTools: OPT_IN });
  const freshTask = async () => (await toolkit.invoke("task_create_many", { tasks: [{ title: "t" }] })).content.tasks[0].task_id;

  /** Per tool: invoke args (prepared before each call) and the wrapper's positional arguments. */
  const CALLS = {
    apply_patch: async () => {
      fs.writeFileSync(path.join(ws.root, "p.txt"), "a\n");
      return { filePath: "p.txt", patch: PATCH };
    },
    exec_command: async () => ({ cwd: ".", command: ["echo", "hi"] }),
    write_file: async () => ({ path: "w.txt", content: "written" }),
    tree: async () => ({ path: "." }),
    read_file: async () => ({ path: "a.txt" }),
    regexp_search: async () => ({ pattern: "hel+o" }),
    ast_grep_search: async () => ({ language: "typescript", rule: { pattern: "const $A = $B" } }),
    git_status_summary: async () => ({}),
    task_create_many: async () => ({ tasks: [{ title: "x" }] }),
    task_list: async () => ({}),
    task_update: async () => ({ task_id: await freshTask(), title: "renamed" }),
    task_update_status: async () => ({ task_id: await freshTask(), status: "done" }),
    task_validate_completion: async () => ({}),
    // edits the file back and forth (rewriting it behind the toolkit's back would be a stale read)
    edit_file: async () => {
      const file = path.join(ws.root, "e.txt");
      if (!fs.existsSync(file)) fs.writeFileSync(file, "old\n");
      const now = fs.readFileSync(file, "utf8").trim();
      return { path: "e.txt", old_string: now, new_string: now === "old" ? "new" : "old" };
    },
    find_files: async () => ({ pattern: "*.txt" }),
    apply_patches: async () => {
      fs.writeFileSync(path.join(ws.root, "p.txt"), "a\n");
      return { patch: PATCH };
    },
  };
  const positional = (name, args) => {
    switch (name) {
      case "apply_patch":
        return [args.filePath, args.patch];
      case "write_file":
        return [args.path, args.content];
      case "read_file":
      case "tree":
        return [args.path];
      case "edit_file": {
        const { path: file, ...options } = args;
        return [file, options];
      }
      case "git_status_summary":
        return [];
      default:
        return [args];
    }
  };
  const rawArgs = (name, args) => {
    const [first, ...rest] = positional(name, args);
    return typeof first === "string" ? [path.join(ws.root, first), ...rest] : positional(name, args);
  };

  const report = { tools: {} };
  for (const name of [...Object.keys(ToolCatalog), ...OPT_IN]) {
    const entry = {};
    native.debugInjectPanic(name);
    entry.invoke = await observe(toolkit.invoke(name, await CALLS[name]()));
    entry.wrapper = await observe(toolkit.tools[name](...positional(name, await CALLS[name]())));
    entry.raw = ToolCatalog[name]
      ? await observe(ToolCatalog[name].handler(context, ...rawArgs(name, await CALLS[name]())))
      : { none: true };
    // Twenty more concurrent panicking calls, with another tool working in between.
    const other = name === "read_file" ? "tree" : "read_file";
    const burst = await Promise.all([
      ...Array.from({ length: 20 }, async () => observe(toolkit.invoke(name, await CALLS[name]()))),
      observe(toolkit.invoke(other, await CALLS[other]())),
    ]);
    entry.burstInternal = burst.slice(0, 20).filter((o) => o.rejected?.code === "INTERNAL").length;
    entry.other = burst[20];
    native.debugInjectPanic(null);
    entry.after = {
      invoke: await observe(toolkit.invoke(name, await CALLS[name]())),
      wrapper: await observe(toolkit.tools[name](...positional(name, await CALLS[name]()))),
    };
    report.tools[name] = entry;
  }
  report.unknownTool = await observe((async () => native.debugInjectPanic("no_such_tool"))());
  report.optInListed = toolkit.getAllowedTools().slice(Object.keys(ToolCatalog).length).map((d) => d.function.name);
  report.pid = process.pid;
  console.log(JSON.stringify(report));
} finally {
  ws.cleanup();
}
