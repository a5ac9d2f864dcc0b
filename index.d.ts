// Public typings of agent-tools-native: the same surface as agent-tools-ts v0.6.0 (four runtime
// exports, twelve type exports). Tool input/output types come from the Rust types via ts-rs
// (types/tools.d.ts, generated and checked in).

import type {
  AllowedToolName,
  AstGrepSearchInput,
  ExecCommandInput,
  ReadFileOptions,
  RegexpSearchInput,
  TaskCreateManyInput,
  TaskItem,
  TaskListInput,
  TaskUpdateInput,
  TaskUpdateStatusInput,
  TaskValidateCompletionInput,
  ToolArgsByName,
  ToolCatalogMetadata,
  ToolDefinitions,
  ToolResultByName,
  TreeOptions,
} from "./types/tools";

export type { AllowedToolName, ToolArgsByName, ToolResultByName };

export type FileAccessMode = "read-only" | "workspace-write" | "unrestricted";
export type AccessLevel = "allow" | "deny";
export interface SecurityPolicyConfig<TToolName extends string = string> {
  tools: Partial<Record<TToolName, AccessLevel>>;
  defaultPolicy: AccessLevel;
}
export type ToolPolicy = SecurityPolicyConfig<AllowedToolName>;

type TodoSessionState = { tasks: Map<string, TaskItem>; order: string[] };

export type ToolContext = {
  workspaceRoot: string;
  writeScope: FileAccessMode;
  policy: SecurityPolicyConfig<AllowedToolName>;
  todo?: TodoSessionState;
  env: { platform: NodeJS.Platform; osRelease: string };
};

export type ToolErrorEnvelope = {
  code: string;
  message: string;
  retriable: boolean;
  details: Record<string, unknown>;
};

export type InvokeToolErrorCode =
  | "INVALID_TOOL_ARGUMENTS_TYPE"
  | "TOOL_NOT_FOUND"
  | "TOOL_NOT_ALLOWED"
  | "INTERNAL";

export type ToolkitInvokeOutput<TName extends AllowedToolName> = {
  role: "function";
  name: TName;
  content: ToolResultByName[TName];
};

export type Invoke = <TName extends AllowedToolName>(
  name: TName,
  args: ToolArgsByName[TName],
) => Promise<ToolkitInvokeOutput<TName>>;

type ToolResult<R> =
  | { status: "success"; data: R }
  | {
      status: "failure" | "denied";
      reason: "policy" | "sandbox" | "runtime";
      message: string;
      error: ToolErrorEnvelope;
    };

/** The positional parameters of each tool (`toolkit.tools.<name>` and its handler). */
type ToolParams = {
  apply_patch: [filePath: string, patch: string];
  exec_command: [input: ExecCommandInput];
  write_file: [path: string, content: string];
  tree: [path: string, options?: TreeOptions];
  read_file: [path: string, options?: ReadFileOptions];
  regexp_search: [input: RegexpSearchInput];
  ast_grep_search: [input: AstGrepSearchInput];
  git_status_summary: [cwd?: string];
  task_create_many: [input: TaskCreateManyInput];
  task_list: [_input: TaskListInput];
  task_update: [input: TaskUpdateInput];
  task_update_status: [input: TaskUpdateStatusInput];
  task_validate_completion: [_input: TaskValidateCompletionInput];
};

type SecureTools = {
  [K in keyof ToolParams]: (...args: ToolParams[K]) => Promise<ToolResult<ToolResultByName[K]>>;
};

export declare function createToolContext(params: {
  workspaceRoot: string;
  writeScope?: FileAccessMode;
  policy?: ToolPolicy;
}): ToolContext;

export declare function createAgentToolkit(context: ToolContext): {
  tools: SecureTools;
  invoke: Invoke;
  getAllowedTools: () => Array<ToolDefinitions[AllowedToolName]>;
};

export declare const ToolCatalog: {
  readonly [K in keyof ToolParams]: {
    readonly metadata: ToolCatalogMetadata[K];
    readonly handler: (context: ToolContext, ...args: ToolParams[K]) => Promise<ToolResultByName[K]>;
  };
};

export declare const SecurityBypass: {
  run<T>(task: () => Promise<T> | T): Promise<T>;
  isEnabled(): boolean;
  enforce<T>(task: () => Promise<T> | T): Promise<T>;
};
