// Generated from ts/types.cts by `npm run build:ts`: edit that file, not this one.
import type { AllowedToolName, CheckpointSummary, Diagnostic, ExecSandbox, OptInToolArgsByName, OptInToolDefinitions, OptInToolName, OptInToolParams, OptInToolResultByName, ToolArgsByName, ToolCatalogMetadata, ToolDefinitions, TaskItem, ToolParams, RestoreOutcome, ToolResultByName } from "../types/tools.js";
import type { InvokeToolErrorCode } from "../types/errors.js";
import type { AnyTool, ExecuteRawContext, ToolInput, ToolOutput } from "./user_tools.cjs";
export type { AllowedToolName, ExecSandbox, ToolArgsByName, ToolResultByName };
export type { OptInToolArgsByName, OptInToolDefinitions, OptInToolName, OptInToolResultByName };
export type { CheckpointSummary, Diagnostic, RestoreOutcome };
export type FileAccessMode = "read-only" | "workspace-write" | "unrestricted";
export type AccessLevel = "allow" | "deny";
export interface SecurityPolicyConfig<TToolName extends string = string> {
    tools: Partial<Record<TToolName, AccessLevel>>;
    defaultPolicy: AccessLevel;
}
export type ToolPolicy = SecurityPolicyConfig<AllowedToolName>;
/** `context.todo`: the session's task list as the todo tools keep it. */
export type TodoSessionState = {
    tasks: Map<string, TaskItem>;
    order: string[];
};
export type ToolContext = {
    workspaceRoot: string;
    writeScope: FileAccessMode;
    policy: SecurityPolicyConfig<AllowedToolName>;
    todo?: TodoSessionState;
    env: {
        platform: NodeJS.Platform;
        osRelease: string;
    };
    /** exec_command's opt-in OS sandbox (absent or `sandbox: "off"`: none). */
    exec?: ExecOptions;
    /**
     * The memory budget in bytes of the search cache that regexp_search and ast_grep_search share
     * per workspace (README, "Warm searches"); absent: 128 MiB; `0`: no cache for this context.
     */
    searchCacheBytes?: number;
    /**
     * Permission rules on a call's arguments (docs/permissions.md): per tool, patterns that
     * `"allow"`, `"ask"` or `"deny"` — command lines for exec_command and process_start
     * (`"git status*"`), globs on the workspace-relative path for the tools that take one
     * (`"secrets/**"`). Deny wins over ask, ask over allow; a call no rule matches follows `policy`.
     */
    permissions?: PermissionRules;
};
/** What a permission rule says about the calls its pattern matches. */
export type PermissionDecision = "allow" | "ask" | "deny";
/** `{ [toolName]: { [pattern]: decision } }` (docs/permissions.md). */
export type PermissionRules = {
    [toolName: string]: {
        [pattern: string]: PermissionDecision;
    };
};
/**
 * exec_command's OS sandbox (README, "Reliability"): with `"auto"` or `"required"` each command
 * restricts itself before it starts — Landlock on Linux, Seatbelt on macOS — to write only where
 * `writeScope` allows, and with `network: "deny"` to open no IP connection. `"required"` fails a
 * call (`SANDBOX_UNAVAILABLE`) where the system cannot enforce it; `"auto"` then runs the command
 * unsandboxed. The result's `sandbox` field says what was enforced.
 */
export type ExecOptions = {
    sandbox?: "off" | "auto" | "required";
    /** Default `"allow"`; `"deny"` needs `sandbox` `"auto"` or `"required"`. */
    network?: "allow" | "deny";
    /**
     * The environment commands get (README, "Reliability"). `"inherit"` (the default): the host's
     * whole environment, secrets included. `"clean"`: only what programs need to run (`PATH`,
     * `HOME`, `USER`, `SHELL`, `TERM`, the locale, `TZ`, `TMPDIR`, and on Windows `SystemRoot`,
     * `PATHEXT`, `TEMP`, `USERPROFILE`, `APPDATA` and the like). An array: those and these names.
     */
    env?: "inherit" | "clean" | string[];
};
export type ToolErrorEnvelope = {
    code: string;
    message: string;
    retriable: boolean;
    details: Record<string, unknown>;
};
export type { InvokeToolErrorCode };
export type ToolkitInvokeOutput<TName extends AllowedToolName> = {
    role: "function";
    name: TName;
    content: ToolResultByName[TName];
};
export type Invoke = <TName extends AllowedToolName>(name: TName, args: ToolArgsByName[TName]) => Promise<ToolkitInvokeOutput<TName>>;
export type SecureToolResult<R> = {
    status: "success";
    data: R;
} | {
    status: "failure" | "denied";
    reason: "policy" | "sandbox" | "runtime";
    message: string;
    error: ToolErrorEnvelope;
};
export type { OptInToolParams, ToolParams };
type SecureTools = {
    [K in keyof ToolParams]: (...args: ToolParams[K]) => Promise<SecureToolResult<ToolResultByName[K]>>;
};
type OptInSecureTools<TOptIn extends OptInToolName> = {
    [K in TOptIn]: (...args: OptInToolParams[K]) => Promise<SecureToolResult<OptInToolResultByName[K]>>;
};
/** The input of a built-in or opt-in tool by name. */
type KnownArgs<TName> = TName extends AllowedToolName ? ToolArgsByName[TName] : TName extends OptInToolName ? OptInToolArgsByName[TName] : never;
/** The output of a built-in or opt-in tool by name. */
type KnownResult<TName> = TName extends AllowedToolName ? ToolResultByName[TName] : TName extends OptInToolName ? OptInToolResultByName[TName] : never;
/** `invoke` of a toolkit with opt-in tools enabled (and maybe user tools). */
type InvokeWithOptInTools<TUser extends AnyTool, TOptIn extends OptInToolName> = <TName extends AllowedToolName | TOptIn | TUser["name"]>(name: TName, args: TName extends AllowedToolName | TOptIn ? KnownArgs<TName> : ToolInput<Extract<TUser, {
    name: TName;
}>>) => Promise<{
    role: "function";
    name: TName;
    content: TName extends AllowedToolName | TOptIn ? KnownResult<TName> : ToolOutput<Extract<TUser, {
        name: TName;
    }>>;
}>;
type InvokeWithUserTools<TUser extends AnyTool> = <TName extends AllowedToolName | TUser["name"]>(name: TName, args: TName extends AllowedToolName ? ToolArgsByName[TName] : ToolInput<Extract<TUser, {
    name: TName;
}>>) => Promise<{
    role: "function";
    name: TName;
    content: TName extends AllowedToolName ? ToolResultByName[TName] : ToolOutput<Extract<TUser, {
        name: TName;
    }>>;
}>;
/**
 * `toolkit.checkpoints`, with `createAgentToolkit(context, { checkpoints })`: the undo journal of
 * the workspace (docs/checkpoints.md). Errors are `CheckpointError`s with a code
 * (`CHECKPOINT_NOT_FOUND`, `CHECKPOINT_PRUNED`, `CHECKPOINT_NOT_RESTORABLE`,
 * `CHECKPOINT_CONFLICT` with `files`, `CHECKPOINT_CORRUPT`, `SANDBOX_VIOLATION`).
 */
export type CheckpointsApi = {
    /** Every checkpoint of the workspace's journal, oldest first (also those of other processes). */
    list: () => Promise<CheckpointSummary[]>;
    /** What `restore(id)` would change, as a unified diff from the files now to the files restored. */
    diff: (id: string) => Promise<string>;
    /**
     * Puts the files checkpoint `id` and every later one changed back to their state before call
     * `id`, all or nothing; refused with `CHECKPOINT_CONFLICT` when one of them changed outside
     * the journal since, unless `force`. The restore is a checkpoint too (restore it to redo).
     */
    restore: (id: string, options?: {
        force?: boolean;
    }) => Promise<RestoreOutcome>;
};
/**
 * The toolkit: exactly agent-tools-ts's shape; `invoke` also knows the registered user tools,
 * and `tools` / `invoke` / `getAllowedTools` the enabled opt-in tools (`TOptIn`).
 */
export type AgentToolkit<TUser extends AnyTool = never, TOptIn extends OptInToolName = never> = [TOptIn] extends [never] ? {
    tools: SecureTools;
    invoke: [TUser] extends [never] ? Invoke : InvokeWithUserTools<TUser>;
    /** The undo journal: present with `options.checkpoints`. */
    checkpoints?: CheckpointsApi;
    getAllowedTools: () => [TUser] extends [never] ? Array<ToolDefinitions[AllowedToolName]> : Array<ToolDefinitions[AllowedToolName] | TUser["definition"]>;
    /**
     * Present with `options.checkpoints`: removes the private directory the journal keeps
     * between commands (a later command makes it again). Also `Symbol.asyncDispose`.
     */
    close?: () => Promise<void>;
    [Symbol.asyncDispose]?: () => Promise<void>;
} : {
    tools: SecureTools & OptInSecureTools<TOptIn>;
    /** The undo journal: present with `options.checkpoints`. */
    checkpoints?: CheckpointsApi;
    invoke: InvokeWithOptInTools<TUser, TOptIn>;
    getAllowedTools: () => Array<ToolDefinitions[AllowedToolName] | OptInToolDefinitions[TOptIn] | TUser["definition"]>;
    /**
     * Ends every process the context's calls started with process_start (their whole trees)
     * and resolves once they are gone; with `options.checkpoints`, records what they changed
     * and removes the journal's private directory. Also `await using toolkit = ...`
     * (`Symbol.asyncDispose`).
     */
    close: () => Promise<void>;
    [Symbol.asyncDispose]: () => Promise<void>;
};
export type AgentToolkitOptions<TTools extends readonly AnyTool[], TOptIn extends OptInToolName = never> = {
    /** User tools made by `defineTool`; names must not clash with built-ins, enabled opt-in tools or each other. */
    tools?: TTools;
    /**
     * Opt-in tools to enable beside the 13 (`"edit_file"`): served through the same policy,
     * sandbox and error model, listed by `getAllowedTools()` after the built-ins.
     */
    extraTools?: readonly TOptIn[];
    /**
     * The bounds of the process tools (docs/tools/process.md), for the context's table when this
     * toolkit is the first over the context to enable them: processes running at once (default
     * 8; past it `TOO_MANY_PROCESSES`), output kept per process (default 1 MiB), and a maximum
     * lifetime after which a process and its tree are killed (default none).
     */
    processes?: {
        maxRunning?: number;
        bufferBytes?: number;
        maxLifetimeMs?: number;
    };
    /**
     * The undo journal (docs/checkpoints.md), off by default: every call that changes files
     * records the state of each file it touched from before the call, and `toolkit.checkpoints`
     * lists, diffs and restores them. Stored outside the workspace (by default in the user's state
     * directory, per workspace: `dir` to choose), at most `maxBytes` of contents (default 256 MiB)
     * and `maxCheckpoints` checkpoints (default 200); the oldest are pruned.
     */
    checkpoints?: boolean | {
        dir?: string;
        maxBytes?: number;
        maxCheckpoints?: number;
    };
    /**
     * The syntax check after write_file, apply_patch, edit_file and apply_patches, for files in a
     * language with a tree-sitter grammar in this build; only errors the change adds count.
     * `"report"`: the result's `diagnostics`; `"reject"`: the change is refused with `SYNTAX_ERROR`
     * (the error's `diagnostics`) and the file left as it was. Off by default.
     */
    syntaxCheck?: "report" | "reject";
    /** Defaults of every user tool's execution context. */
    deps?: Record<string, unknown>;
    overrides?: ExecuteRawContext["overrides"];
    logger?: ExecuteRawContext["logger"];
    now?: () => Date;
};
export type ToolCatalogType = {
    readonly [K in keyof ToolParams]: {
        readonly metadata: ToolCatalogMetadata[K];
        readonly handler: (context: ToolContext, ...args: ToolParams[K]) => Promise<ToolResultByName[K]>;
    };
};
