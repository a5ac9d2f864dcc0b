// Upstream's compile-time behaviour (docs/compat.md, "Typings"), checked by
// `tsc -p tsconfig.json`. Every
// `@ts-expect-error` line must fail to compile; removing a real error makes tsc fail.
import {
  createAgentToolkit,
  createToolContext,
  SecurityBypass,
  ToolCatalog,
  type AccessLevel,
  type AllowedToolName,
  type FileAccessMode,
  type Invoke,
  type InvokeToolErrorCode,
  type SecurityPolicyConfig,
  type ToolArgsByName,
  type ToolContext,
  type ToolErrorEnvelope,
  type ToolkitInvokeOutput,
  type ToolPolicy,
  type ToolResultByName,
} from "agent-tools-native";

const ctx = createToolContext({ workspaceRoot: "/ws", policy: { tools: { read_file: "allow" }, defaultPolicy: "deny" } });
const toolkit = createAgentToolkit(ctx);
const { invoke, tools, getAllowedTools } = toolkit;

export async function compiles(): Promise<void> {
  await invoke("read_file", { path: "src/lib.ts" });
  await invoke("exec_command", { cwd: ".", command: ["pwd"] });
  await invoke("task_create_many", { tasks: [{ title: "task" }] });
  await invoke("regexp_search", { pattern: "TODO" });
  await invoke("ast_grep_search", { language: "typescript", rule: { pattern: "const $A = $B" } });
  await invoke("git_status_summary", {});
  await tools.git_status_summary();
  await tools.read_file("a.ts", { start_line: 2 });
  await tools.tree(".", { entry_kind: "all", exclude: ["dist/**"] });
  await tools.task_list({});
}

export async function errors(): Promise<void> {
  // @ts-expect-error path is required
  await invoke("read_file", { cwd: "." });
  // @ts-expect-error command is required
  await invoke("exec_command", { cwd: "." });
  // @ts-expect-error tasks is required
  await invoke("task_create_many", {});
  // @ts-expect-error pattern is required
  await invoke("regexp_search", { root_path: "." });
  // @ts-expect-error language and rule are required
  await invoke("ast_grep_search", { root_path: "." });
  // @ts-expect-error unknown tool name
  await invoke("nope", {});
  // @ts-expect-error task_list takes no keys
  await invoke("task_list", { a: 1 });
  // @ts-expect-error content is required
  await invoke("write_file", { path: "x" });
  // @ts-expect-error path is required
  await tools.read_file();
  // @ts-expect-error an argument is required
  await tools.task_list();
  // @ts-expect-error wrong option type
  await tools.read_file("a", { start_line: "1" });
  // @ts-expect-error entry_kind is a closed set
  await tools.tree(".", { entry_kind: "files" });
  const defs = getAllowedTools();
  // @ts-expect-error definitions are deeply readonly
  defs[0].function.name = "x";
  // @ts-expect-error a context needs env
  const noEnv: ToolContext = { workspaceRoot: "/", writeScope: "read-only", policy: { tools: {}, defaultPolicy: "deny" } };
  void noEnv;
  // @ts-expect-error typo'd tool names are rejected in a policy
  createToolContext({ workspaceRoot: "/", policy: { tools: { read_flie: "allow" }, defaultPolicy: "deny" } });
}

export async function inference(): Promise<void> {
  const read = await invoke("read_file", { path: "a" });
  const name: "read_file" = read.name;
  const content: ToolResultByName["read_file"] = read.content;
  const line: number | null = read.content.next_start_line;
  const bytes: number = read.content.meta.byte_length;
  // @ts-expect-error read_file content is not a tree
  const notTree: ToolResultByName["tree"] = read.content;
  const tree = await invoke("tree", { path: "." });
  const depth: number = tree.content.root.depth;
  // @ts-expect-error the tree root has no content field
  tree.content.root.content;
  const wrapped = await tools.read_file("a");
  if (wrapped.status === "success") {
    const text: string = wrapped.data.content;
    void text;
  } else {
    const reason: "policy" | "sandbox" | "runtime" = wrapped.reason;
    const envelope: ToolErrorEnvelope = wrapped.error;
    void reason, envelope;
  }
  const git = await tools.git_status_summary();
  if (git.status === "success") {
    const branch: string | null = git.data.branch;
    void branch;
  }
  void name, content, line, bytes, notTree, depth;
}

export function catalogAndTypes(): void {
  const isWrite: true = ToolCatalog.apply_patch.metadata.isWriteOp;
  const isRead: false = ToolCatalog.read_file.metadata.isWriteOp;
  const enabled: boolean = SecurityBypass.isEnabled();
  const ran: Promise<number> = SecurityBypass.run(() => 1);
  const enforced: Promise<string> = SecurityBypass.enforce(async () => "x");
  const mode: FileAccessMode = "unrestricted";
  const level: AccessLevel = "deny";
  const policy: ToolPolicy = { tools: { tree: level }, defaultPolicy: "allow" };
  const generic: SecurityPolicyConfig = { tools: { anything: "allow" }, defaultPolicy: "deny" };
  const names: AllowedToolName[] = ["git_status_summary", "ast_grep_search"];
  const codes: InvokeToolErrorCode[] = ["INVALID_TOOL_ARGUMENTS_TYPE", "TOOL_NOT_FOUND", "TOOL_NOT_ALLOWED", "INTERNAL"];
  // Exactly these four (generated from the Rust ErrorCode): a member more or less fails here.
  const everyCode: Record<InvokeToolErrorCode, true> = { INVALID_TOOL_ARGUMENTS_TYPE: true, TOOL_NOT_FOUND: true, TOOL_NOT_ALLOWED: true, INTERNAL: true };
  // @ts-expect-error a denial code is not an InvokeToolError code
  const denialCode: InvokeToolErrorCode = "POLICY_DENIED";
  const args: ToolArgsByName["apply_patch"] = { filePath: "a", patch: "b" };
  const typedInvoke: Invoke = invoke;
  const output: ToolkitInvokeOutput<"write_file"> = { role: "function", name: "write_file", content: { path: "a", created: true, bytes_written: 1 } };
  // @ts-expect-error metadata is readonly (as const)
  ToolCatalog.read_file.metadata.isWriteOp = true;
  void isWrite, isRead, enabled, ran, enforced, mode, policy, generic, names, codes, everyCode, denialCode, args, typedInvoke, output;
}

/** OpenAI's `ChatCompletionTool` shape (openai v5/v6), mirrored to keep the check offline. */
type ChatCompletionTool = {
  type: "function";
  function: { name: string; description?: string; parameters?: { [key: string]: unknown }; strict?: boolean | null };
};
export const forOpenAI: ChatCompletionTool[] = getAllowedTools();
