#!/usr/bin/env node
// Generated from ts/cli.cts by `npm run build:ts`: edit that file, not this one.
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js" with {
    "resolution-mode": "import"
};
import { type Diagnostic, type ExecOptions, type FileAccessMode, type PermissionRules } from "./index.cjs";
import { type HttpSettings } from "./mcp_http.cjs";
import type { Refusal } from "../binding.js";
import type { OptInToolName } from "../types/tools.js";
import { type AnyTool } from "./user_tools.cjs";
type Sdk = {
    server: typeof import("@modelcontextprotocol/sdk/server/index.js", { with: { "resolution-mode": "import" } });
    types: typeof import("@modelcontextprotocol/sdk/types.js", { with: { "resolution-mode": "import" } });
};
/** Outputs longer than this (characters of their JSON text) go to the tool-output cache. */
export declare const DEFAULT_MAX_OUTPUT_CHARS = 40000;
/** Bounds of the MCP server's tool-output cache (OutputCache's defaults). */
export declare const DEFAULT_OUTPUT_CACHE_ENTRIES = 256;
export declare const DEFAULT_OUTPUT_CACHE_BYTES: number;
type SyntaxCheckMode = "report" | "reject";
type Options = {
    command: "mcp" | "tools" | "call" | "checkpoints" | "help" | "version";
    positional: string[];
    root?: string;
    writeScope: FileAccessMode;
    allow?: string[];
    deny: string[];
    /** The opt-in tools enabled (`--extra-tools`), as the library's `extraTools`. */
    extraTools: OptInToolName[];
    toolsModule?: string;
    maxOutputChars: number;
    maxMessageBytes: number;
    outputCacheEntries: number;
    outputCacheBytes: number;
    exec?: ExecOptions;
    /** `--permissions FILE`, read and checked. */
    permissions?: PermissionRules;
    /** The process tools' bounds (`--max-processes`, `--process-buffer`, `--process-lifetime`). */
    processes: {
        maxRunning?: number;
        bufferBytes?: number;
        maxLifetimeMs?: number;
    };
    /** The undo journal (`--checkpoints`, `--checkpoints-dir DIR`), as the library's `checkpoints`. */
    checkpoints?: true | {
        dir: string;
    };
    /** `--syntax-check MODE`, as the library's `syntaxCheck`. */
    syntaxCheck?: SyntaxCheckMode;
    /** checkpoints restore: `--force`. */
    force: boolean;
    /** checkpoints: `--json`. */
    json: boolean;
    /** mcp --http: the HTTP server's settings. */
    http?: HttpSettings;
};
/** The command line as options; a UsageError for anything it does not understand. */
export declare function parseArgs(argv: string[]): Options;
type Served = {
    /** The names the policy allows, built-ins first (getAllowedTools order). */
    definitions: Array<{
        function: {
            name: string;
            description: string;
            parameters: Record<string, unknown>;
        };
    }>;
    invoke: (name: string, args: unknown, signal?: AbortSignal) => Promise<unknown>;
    userTools: Map<string, AnyTool>;
    /** Ends the processes the toolkit's calls started (process_start) and waits until they are gone. */
    close: () => Promise<void>;
};
type ToolFailure = {
    code: string;
    message: string;
    denied?: Refusal;
    /** SYNTAX_ERROR (`--syntax-check reject`): the syntax errors the change would have added. */
    diagnostics?: Diagnostic[];
    /** CHECKPOINT_CONFLICT: the files changed outside the journal since. */
    files?: string[];
};
/**
 * What a rejected invoke means for the caller: a code, a message and, for a refusal, why. Why is
 * what the toolkit recorded with the error (`refusalOf`), never read out of the message.
 */
export declare function failureOf(error: unknown): ToolFailure;
/** The MCP tool list entries: the allowed tools' definitions, output schemas and annotations. */
export declare function mcpTools(served: Served): McpTool[];
/** One MCP session's server: its own toolkit (tool context, todo state, read ledger) and output cache. */
export type McpSession = {
    server: InstanceType<Sdk["server"]["Server"]>;
    /** The allowed tools (for the start-up line). */
    tools: number;
    /** The calls running now. */
    running: Set<AbortController>;
    /** Ends the session's processes (every toolkit it made) and waits until they are gone. */
    close: () => Promise<void>;
};
export declare function main(argv: string[]): Promise<number>;
export {};
