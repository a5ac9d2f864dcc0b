#!/usr/bin/env node
"use strict";
// Generated from ts/cli.cts by `npm run build:ts`: edit that file, not this one.
// The package's command line (the bin `agent-tools-native`): `mcp` serves the toolkit to MCP
// clients over stdio (the official SDK's server on this package's transport, ts/mcp_stdio.cts)
// or, with --http, over Streamable HTTP (one server per MCP session, ts/mcp_http.cts),
// `tools` lists the allowed tools, `call` runs one and `checkpoints` lists, shows and restores
// the undo journal's checkpoints (`--checkpoints`). Every call goes through
// `createAgentToolkit`'s invoke: the same policy, write scope and descriptor-checked sandbox as
// the library (README, "Use it from an MCP client").
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
exports.DEFAULT_OUTPUT_CACHE_BYTES = exports.DEFAULT_OUTPUT_CACHE_ENTRIES = exports.DEFAULT_MAX_OUTPUT_CHARS = void 0;
exports.parseArgs = parseArgs;
exports.failureOf = failureOf;
exports.mcpTools = mcpTools;
exports.main = main;
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const node_url_1 = require("node:url");
const index_cjs_1 = require("./index.cjs");
const mcp_sdk_cjs_1 = require("./mcp_sdk.cjs");
const mcp_stdio_cjs_1 = require("./mcp_stdio.cjs");
const mcp_http_cjs_1 = require("./mcp_http.cjs");
const native_cjs_1 = require("./native.cjs");
const errors_cjs_1 = require("./errors.cjs");
const toolkit_cjs_1 = require("./toolkit.cjs");
const user_tools_cjs_1 = require("./user_tools.cjs");
const VERSION = require("../package.json").version;
/** Outputs longer than this (characters of their JSON text) go to the tool-output cache. */
exports.DEFAULT_MAX_OUTPUT_CHARS = 40_000;
/** Bounds of the MCP server's tool-output cache (OutputCache's defaults). */
exports.DEFAULT_OUTPUT_CACHE_ENTRIES = 256;
exports.DEFAULT_OUTPUT_CACHE_BYTES = 64 * 1024 * 1024;
/** Lines of a cached output the client gets at once (and the default page of `tool_output_cache`). */
const PAGE_LINES = 200;
/** How often a call with a progressToken gets a progress notification. */
const PROGRESS_INTERVAL_MS = 500;
const WRITE_SCOPES = ["read-only", "workspace-write", "unrestricted"];
const EXEC_SANDBOXES = ["off", "auto", "required"];
const SYNTAX_CHECKS = ["report", "reject"];
const CHECKPOINT_ACTIONS = ["list", "diff", "restore"];
/** The opt-in tools `--extra-tools` takes, in registry order. */
const OPT_IN_NAMES = (0, native_cjs_1.optInCatalog)().map((e) => e.name);
const HELP = `agent-tools-native ${VERSION}: sandboxed tools for coding agents, as an MCP server and a CLI

Usage:
  agent-tools-native mcp [options]                    serve the tools over MCP on stdio (needs the
                                                      optional peer @modelcontextprotocol/sdk)
  agent-tools-native mcp --http [HOST:]PORT --root DIR [options]
                                                      serve them over MCP's Streamable HTTP
  agent-tools-native tools [options]                  list the allowed tools, one a line
  agent-tools-native call <tool> '<json args>' [options]
                                                      run one tool, print its result as JSON
                                                      (exit 0: success, 1: tool error, 2: bad usage)
  agent-tools-native checkpoints list|diff ID|restore ID [--root DIR] [options]
                                                      list the undo journal's checkpoints, show
                                                      the diff restoring one would make, or
                                                      restore one (exit codes as for call)
  agent-tools-native --help | --version

Options:
  --root DIR            the workspace every path is confined to (mcp: default the client's
                        first MCP root; tools, call and checkpoints: default the current
                        directory)
  --write-scope MODE    read-only | workspace-write | unrestricted (default workspace-write)
  --allow a,b           serve only these tools (default: every tool)
  --deny a,b            never serve these tools
  --extra-tools a,b     also serve these opt-in tools (the library's extraTools):
                        ${OPT_IN_NAMES.join(", ")}
  --tools ./module.mjs  also serve the tools (made with defineTool) that the module exports
  --exec-sandbox MODE   off | auto | required (default off): exec_command confined by the OS
                        sandbox (Linux: Landlock and seccomp) to what the write scope allows
  --network MODE        allow | deny (default allow): with --exec-sandbox, deny commands IP sockets
  --exec-env ENV        inherit | clean | NAME,NAME (default inherit): the environment exec_command's
                        commands get; clean keeps PATH, HOME, the locale and the like, a list
                        keeps those names too
  --permissions FILE    permission rules on a call's arguments (docs/permissions.md): JSON
                        { "<tool>": { "<pattern>": "allow" | "ask" | "deny" } }; a call a rule
                        denies fails with PERMISSION_DENIED, one it asks about with
                        APPROVAL_REQUIRED (nobody can approve here)
  --checkpoints         keep an undo journal: every write_file, apply_patch, edit_file and
                        apply_patches call records the files it touched, in the user's state
                        directory (per workspace); \`checkpoints\` lists and restores them
  --checkpoints-dir DIR the same, with the journal in DIR (outside the workspace); for the
                        checkpoints command, the journal to read (default the state directory's)
  --syntax-check MODE   report | reject: after an edit, the syntax errors it added (files with
                        a tree-sitter grammar) go in the result's diagnostics (report), or the
                        change is refused with SYNTAX_ERROR and the file left as it was (reject)
  --force               checkpoints restore: also overwrite files changed outside the journal
                        since (else CHECKPOINT_CONFLICT, nothing restored)
  --json                checkpoints: print the list, diff or restore (and an error) as JSON
  --max-output-chars N  mcp: outputs over N characters go to the tool-output cache and the
                        client gets a first page and a ref_id (default ${exports.DEFAULT_MAX_OUTPUT_CHARS})
  --output-cache-entries N, --output-cache-bytes SIZE
                        mcp: the tool-output cache holds at most N outputs and SIZE bytes of
                        their text (default ${exports.DEFAULT_OUTPUT_CACHE_ENTRIES}, 64m); past either the oldest are dropped
  --max-processes N, --process-buffer SIZE, --process-lifetime SEC
                        with the process tools: processes running at once per session (default
                        8), output kept per process (default 1m), a lifetime after which a
                        process and its tree are killed (default none)
  --max-message-bytes SIZE
                        mcp: the largest JSON-RPC message (one line) read from the client
                        (default 10m); a longer one is answered with an Invalid Request error
                        (over HTTP: the largest request body, else 413)
${mcp_http_cjs_1.HTTP_HELP}  -h, --help            this help

SIZE is a number of bytes, or one with a k, m or g suffix (KiB, MiB, GiB).
`;
class UsageError extends Error {
}
/** A size option's value: a whole number of bytes, or with a k, m or g suffix (KiB, MiB, GiB). */
function parseSize(flag, value, min) {
    const match = /^(\d+)([kmg]?)$/i.exec(value.trim());
    const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match?.[2] ?? "").toLowerCase()];
    const n = match ? Number(match[1]) * unit : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min)
        throw new UsageError(`${flag} must be a whole number of bytes >= ${min} (a k, m or g suffix allowed)`);
    return n;
}
/** The command line as options; a UsageError for anything it does not understand. */
function parseArgs(argv) {
    const options = {
        command: "help",
        positional: [],
        writeScope: "workspace-write",
        deny: [],
        extraTools: [],
        maxOutputChars: exports.DEFAULT_MAX_OUTPUT_CHARS,
        maxMessageBytes: mcp_stdio_cjs_1.DEFAULT_MAX_MESSAGE_BYTES,
        outputCacheEntries: exports.DEFAULT_OUTPUT_CACHE_ENTRIES,
        outputCacheBytes: exports.DEFAULT_OUTPUT_CACHE_BYTES,
        processes: {},
        force: false,
        json: false,
    };
    const list = (value) => value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    let command;
    const httpFlags = (0, mcp_http_cjs_1.newHttpFlags)();
    const usage = (message) => {
        throw new UsageError(message);
    };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
        const flag = eq === -1 ? arg : arg.slice(0, eq);
        const value = () => {
            if (eq !== -1)
                return arg.slice(eq + 1);
            const next = argv[++i];
            if (next === undefined)
                throw new UsageError(`${flag} needs a value`);
            return next;
        };
        const noValue = () => {
            if (eq !== -1)
                throw new UsageError(`${flag} takes no value`);
        };
        switch (flag) {
            case "-h":
            case "--help":
                return { ...options, command: "help" };
            case "-v":
            case "--version":
                return { ...options, command: "version" };
            case "--root":
                options.root = value();
                break;
            case "--write-scope": {
                const scope = value();
                if (!WRITE_SCOPES.includes(scope))
                    throw new UsageError(`--write-scope must be one of ${WRITE_SCOPES.join(", ")}`);
                options.writeScope = scope;
                break;
            }
            case "--allow":
                options.allow = [...(options.allow ?? []), ...list(value())];
                break;
            case "--deny":
                options.deny.push(...list(value()));
                break;
            case "--extra-tools": {
                for (const name of list(value())) {
                    if (!OPT_IN_NAMES.includes(name))
                        throw new UsageError(`--extra-tools: unknown opt-in tool ${name} (opt-in tools: ${OPT_IN_NAMES.join(", ")})`);
                    if (!options.extraTools.includes(name))
                        options.extraTools.push(name);
                }
                break;
            }
            case "--tools":
                options.toolsModule = value();
                break;
            case "--exec-sandbox": {
                const sandbox = value();
                if (!EXEC_SANDBOXES.includes(sandbox))
                    throw new UsageError(`--exec-sandbox must be one of ${EXEC_SANDBOXES.join(", ")}`);
                options.exec = { ...options.exec, sandbox };
                break;
            }
            case "--network": {
                const network = value();
                if (network !== "allow" && network !== "deny")
                    throw new UsageError("--network must be allow or deny");
                options.exec = { ...options.exec, network };
                break;
            }
            case "--exec-env": {
                const text = value();
                const env = text === "inherit" || text === "clean" ? text : text.split(",").filter((name) => name !== "");
                if (Array.isArray(env) && (env.length === 0 || env.some((name) => name.includes("=")))) {
                    throw new UsageError("--exec-env must be inherit, clean or a comma-separated list of variable names");
                }
                options.exec = { ...options.exec, env };
                break;
            }
            case "--permissions": {
                const file = value();
                let rules;
                try {
                    rules = JSON.parse((0, node_fs_1.readFileSync)(file, "utf8"));
                }
                catch (error) {
                    throw new UsageError(`--permissions ${file}: ${error.message}`);
                }
                const problem = rules === null ? "permissions must be an object of tool names" : (0, native_cjs_1.loadNative)().permissionsProblem(rules);
                if (problem !== null)
                    throw new UsageError(`--permissions ${file}: ${problem}`);
                options.permissions = rules;
                break;
            }
            case "--max-output-chars": {
                const n = Number(value());
                if (!Number.isInteger(n) || n < 1)
                    throw new UsageError("--max-output-chars must be a positive integer");
                options.maxOutputChars = n;
                break;
            }
            case "--max-message-bytes":
                options.maxMessageBytes = parseSize(flag, value(), 1024);
                break;
            case "--output-cache-entries": {
                const n = Number(value());
                if (!Number.isSafeInteger(n) || n < 1)
                    throw new UsageError("--output-cache-entries must be a positive integer");
                options.outputCacheEntries = n;
                break;
            }
            case "--output-cache-bytes":
                options.outputCacheBytes = parseSize(flag, value(), 1);
                break;
            case "--max-processes": {
                const n = Number(value());
                if (!Number.isSafeInteger(n) || n < 1 || n > 1024)
                    throw new UsageError("--max-processes must be a whole number from 1 to 1024");
                options.processes.maxRunning = n;
                break;
            }
            case "--process-buffer": {
                const n = parseSize(flag, value(), 1);
                if (n > 2 ** 30)
                    throw new UsageError("--process-buffer must be at most 1g");
                options.processes.bufferBytes = n;
                break;
            }
            case "--process-lifetime": {
                const seconds = Number(value());
                if (!Number.isFinite(seconds) || seconds <= 0 || seconds * 1000 > 2 ** 31)
                    throw new UsageError("--process-lifetime must be a number of seconds > 0");
                options.processes.maxLifetimeMs = Math.ceil(seconds * 1000);
                break;
            }
            case "--checkpoints":
                noValue();
                if (options.checkpoints === undefined)
                    options.checkpoints = true;
                break;
            case "--checkpoints-dir": {
                const dir = value();
                if (dir === "" || dir.includes("\0"))
                    throw new UsageError("--checkpoints-dir needs a directory");
                if ((0, node_fs_1.existsSync)(dir) && !isDirectory(dir))
                    throw new UsageError(`--checkpoints-dir ${dir}: not a directory`);
                options.checkpoints = { dir: node_path_1.default.resolve(dir) };
                break;
            }
            case "--syntax-check": {
                const mode = value();
                if (!SYNTAX_CHECKS.includes(mode))
                    throw new UsageError(`--syntax-check must be one of ${SYNTAX_CHECKS.join(", ")}`);
                options.syntaxCheck = mode;
                break;
            }
            case "--force":
                noValue();
                options.force = true;
                break;
            case "--json":
                noValue();
                options.json = true;
                break;
            default:
                if ((0, mcp_http_cjs_1.parseHttpFlag)(flag, value, httpFlags, usage))
                    break;
                if (arg.startsWith("-") && arg !== "-")
                    throw new UsageError(`unknown option ${arg}`);
                if (command === undefined)
                    command = arg;
                else
                    options.positional.push(arg);
        }
    }
    if (command === undefined)
        throw new UsageError("a command is needed: mcp, tools, call or checkpoints");
    if (command !== "mcp" && command !== "tools" && command !== "call" && command !== "checkpoints")
        throw new UsageError(`unknown command ${command}`);
    options.command = command;
    if (command === "call" && (options.positional.length < 1 || options.positional.length > 2)) {
        throw new UsageError("call needs a tool name and optionally its arguments as JSON: call <tool> '<json>'");
    }
    if (command === "checkpoints")
        checkCheckpointsArgs(options);
    else {
        if (options.force)
            throw new UsageError("--force is an option of checkpoints restore");
        if (options.json)
            throw new UsageError("--json is an option of the checkpoints command");
    }
    if (command !== "call" && command !== "checkpoints" && options.positional.length > 0)
        throw new UsageError(`unexpected argument ${options.positional[0]}`);
    if (options.root !== undefined && !isDirectory(options.root))
        throw new UsageError(`--root ${options.root}: not a directory`);
    const journalDir = typeof options.checkpoints === "object" ? options.checkpoints.dir : undefined;
    if (options.root !== undefined && journalDir !== undefined && isWithin(realPathOf(options.root), realPathOf(journalDir))) {
        // The journal would refuse it too, but only after making its directories in the workspace.
        throw new UsageError(`--checkpoints-dir ${journalDir}: must lie outside the workspace ${options.root}`);
    }
    const http = (0, mcp_http_cjs_1.resolveHttpSettings)(httpFlags, { command, root: options.root, env: process.env }, usage);
    if (http)
        options.http = http;
    return options;
}
/** `checkpoints list | diff ID | restore ID [--root DIR]`: the action and its id. */
function checkCheckpointsArgs(options) {
    const [action, id, extra] = options.positional;
    if (action === undefined || !CHECKPOINT_ACTIONS.includes(action)) {
        throw new UsageError(`checkpoints needs an action: ${CHECKPOINT_ACTIONS.join(", ")}${action === undefined ? "" : ` (got ${action})`}`);
    }
    if (action === "list" && id !== undefined)
        throw new UsageError(`unexpected argument ${id}: checkpoints list takes no id`);
    if (action !== "list" && id === undefined)
        throw new UsageError(`checkpoints ${action} needs a checkpoint id (\`checkpoints list\` shows them)`);
    if (extra !== undefined)
        throw new UsageError(`unexpected argument ${extra}`);
    if (options.force && action !== "restore")
        throw new UsageError("--force is an option of checkpoints restore");
}
/** The real path of `p`, its missing tail (not made yet) joined to its nearest existing ancestor's. */
function realPathOf(p) {
    const absolute = node_path_1.default.resolve(p);
    const parent = node_path_1.default.dirname(absolute);
    try {
        return (0, node_fs_1.realpathSync)(absolute);
    }
    catch {
        return parent === absolute ? absolute : node_path_1.default.join(realPathOf(parent), node_path_1.default.basename(absolute));
    }
}
/** Whether `p` is `root` or below it (absolute, real paths). */
function isWithin(root, p) {
    const rel = node_path_1.default.relative(root, p);
    return rel === "" || (rel !== ".." && !rel.startsWith(`..${node_path_1.default.sep}`) && !node_path_1.default.isAbsolute(rel));
}
function isDirectory(dir) {
    try {
        return (0, node_fs_1.statSync)(dir).isDirectory();
    }
    catch {
        return false;
    }
}
/** The user tools a `--tools` module exports (default export: a tool or an array of them; named exports). */
async function loadUserTools(specifier) {
    const url = (0, node_url_1.pathToFileURL)(node_path_1.default.resolve(specifier)).href;
    let module;
    try {
        module = (await import(url));
    }
    catch (error) {
        throw new UsageError(`--tools ${specifier}: cannot load the module: ${error.message}`);
    }
    const found = [];
    const add = (value) => {
        if (Array.isArray(value))
            for (const v of value)
                add(v);
        else if ((0, user_tools_cjs_1.isTool)(value) && !found.includes(value))
            found.push(value);
    };
    for (const value of Object.values(module))
        add(value);
    if (found.length === 0) {
        throw new UsageError(`--tools ${specifier}: the module exports no tool made by this package's defineTool`);
    }
    return found;
}
/**
 * The toolkit for one workspace root, with the policy of --allow / --deny. `ownTools` (the cache
 * tools) are allowed unless denied by name, also when --allow lists others.
 */
function makeToolkit(root, options, userTools, ownTools = []) {
    const servedTools = [...userTools, ...ownTools];
    const known = new Set([...(0, native_cjs_1.builtInCatalog)().map((e) => e.name), ...options.extraTools, ...servedTools.map((t) => t.name)]);
    for (const name of [...(options.allow ?? []), ...options.deny]) {
        if (!known.has(name))
            throw new UsageError(`unknown tool ${name} (known: ${[...known].join(", ")})${optInHint(name)}`);
    }
    const tools = {};
    for (const name of options.allow ?? [])
        tools[name] = "allow";
    for (const tool of ownTools)
        tools[tool.name] = "allow";
    for (const name of options.deny)
        tools[name] = "deny";
    const context = (0, index_cjs_1.createToolContext)({
        workspaceRoot: node_path_1.default.resolve(root),
        writeScope: options.writeScope,
        policy: { tools, defaultPolicy: options.allow ? "deny" : "allow" },
        ...(options.exec ? { exec: options.exec } : {}),
        ...(options.permissions ? { permissions: options.permissions } : {}),
    });
    let toolkit;
    try {
        toolkit = (0, index_cjs_1.createAgentToolkit)(context, {
            tools: servedTools,
            extraTools: options.extraTools,
            processes: options.processes,
            ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
            ...(options.syntaxCheck ? { syntaxCheck: options.syntaxCheck } : {}),
        });
    }
    catch (error) {
        // A --tools module's tool named like a built-in or an enabled opt-in tool.
        throw new UsageError(error.message);
    }
    const closable = toolkit;
    return {
        definitions: toolkit.getAllowedTools(),
        invoke: (name, args, signal) => (0, toolkit_cjs_1.invokeWithSignal)(toolkit, name, args, signal),
        userTools: new Map(servedTools.map((t) => [t.name, t])),
        close: async () => closable.close?.(),
    };
}
/** For a name that is an opt-in tool not enabled: how to enable it. */
function optInHint(name) {
    return OPT_IN_NAMES.includes(name) ? `; ${name} is an opt-in tool: add --extra-tools ${name}` : "";
}
/**
 * What a rejected invoke means for the caller: a code, a message and, for a refusal, why. Why is
 * what the toolkit recorded with the error (`refusalOf`), never read out of the message.
 */
function failureOf(error) {
    const e = (error ?? {});
    const message = (0, errors_cjs_1.textOf)(error);
    let code = typeof e.code === "string" ? e.code : undefined;
    const refusal = (0, errors_cjs_1.refusalOf)(error);
    if (refusal)
        return { code: errors_cjs_1.REFUSAL_CODES[refusal], message, denied: refusal };
    if (!code)
        code = e.name === "AbortError" ? "ABORTED" : "TOOL_ERROR";
    // The details the native side gives these two errors (a user tool's own fields are not taken).
    if (code === "SYNTAX_ERROR" && Array.isArray(e.diagnostics))
        return { code, message, diagnostics: e.diagnostics };
    if (code === "CHECKPOINT_CONFLICT" && Array.isArray(e.files))
        return { code, message, files: e.files };
    return { code, message };
}
function errorResult(failure) {
    return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: failure }) }] };
}
// ---- MCP -------------------------------------------------------------------------------------------
/** How the client should see each effect class (MCP tool annotations). */
const ANNOTATIONS = {
    read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    write: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    exec: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    state: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};
/** The structured content of an output that went to the cache. */
const CACHED_PAGE_SCHEMA = {
    type: "object",
    properties: {
        output_ref: { type: "string", description: "ref_id of the whole output for tool_output_cache / tool_output_cache_grep" },
        total_chars: { type: "integer" },
        total_lines: { type: "integer" },
        page: { type: "string", description: "the first lines of the cached text (indented JSON, multi-line strings written out), numbered" },
    },
    required: ["output_ref", "total_chars", "total_lines", "page"],
};
function outputSchemas() {
    return JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(__dirname, "output_schemas.json"), "utf8"));
}
/** The MCP tool list entries: the allowed tools' definitions, output schemas and annotations. */
function mcpTools(served) {
    // Built-in and opt-in tools: the native catalog's effect class and the generated output schema.
    // A user tool may take the name of an opt-in tool that is not enabled: it gets neither.
    const effects = new Map((0, native_cjs_1.nativeCatalog)().map((e) => [e.name, e.effect]));
    const schemas = outputSchemas();
    return served.definitions.map(({ function: fn }) => {
        const tool = { name: fn.name, description: fn.description, inputSchema: fn.parameters };
        const user = served.userTools.get(fn.name);
        const schema = user ? undefined : schemas[fn.name];
        if (schema) {
            // A cached output's structured content is its page (the anyOf's second branch).
            const { $defs, ...own } = schema;
            tool.outputSchema = { type: "object", anyOf: [own, CACHED_PAGE_SCHEMA], ...($defs ? { $defs } : {}) };
        }
        const effect = user ? undefined : effects.get(fn.name);
        if (effect)
            tool.annotations = ANNOTATIONS[effect];
        else {
            const writes = user ? user_tools_cjs_1.toolInternals.get(user).writes : false;
            tool.annotations = { readOnlyHint: !writes };
        }
        return tool;
    });
}
/** The SDK (an optional peer dependency: ts/mcp_sdk.cts); a MissingSdkError without it. */
function loadSdk(args) {
    return {
        server: (0, mcp_sdk_cjs_1.requireSdk)("server/index.js", args),
        types: (0, mcp_sdk_cjs_1.requireSdk)("types.js", args),
    };
}
/**
 * The text a large output is cached as, to page by lines: its indented JSON, except that string
 * fields spanning several lines (exec_command's stdout, read_file's content) follow it written
 * out, each under a `--- field (N lines) ---` line.
 */
function cachedText(value) {
    if (value === null || typeof value !== "object" || Array.isArray(value))
        return JSON.stringify(value, null, 2);
    const rest = {};
    const texts = [];
    for (const [key, field] of Object.entries(value)) {
        if (typeof field === "string" && field.includes("\n"))
            texts.push(`--- ${key} (${field.split("\n").length} lines) ---\n${field}`);
        else
            rest[key] = field;
    }
    return [JSON.stringify(rest, null, 2), ...texts].join("\n");
}
/**
 * A tool's output as a CallToolResult; with a cache, outputs over the limit go to it and the
 * client gets a page.
 */
async function presentOutput(name, output, builtIn, cache, maxChars) {
    const result = builtIn ? { type: "json", value: output } : (0, user_tools_cjs_1.toToolResult)(output);
    if (result.type === "parts") {
        const content = result.parts.map((part) => {
            if (part.type === "text")
                return { type: "text", text: part.text };
            if ("data" in part)
                return { type: "image", data: part.data, mimeType: part.mimeType };
            return { type: "text", text: `[image: ${part.url}]` };
        });
        return { content };
    }
    const text = result.type === "text" ? result.text : (JSON.stringify(result.value) ?? "null");
    if (cache !== null && text.length > maxChars) {
        const whole = result.type === "text" ? result.text : cachedText(result.value);
        const { refId } = cache.record(whole);
        const totalLines = whole.split("\n").length;
        let page = await cache.read(refId, 1, PAGE_LINES);
        if (page.length > maxChars)
            page = `${page.slice(0, maxChars)}\n[page cut at ${maxChars} characters]`;
        const note = `[the output of ${name} has ${whole.length} characters (${totalLines} lines), over this server's limit of ${maxChars}: ` +
            `it is kept as ref_id "${refId}"; read more with tool_output_cache {"ref_id":"${refId}","offset":${PAGE_LINES + 1}} ` +
            "or search it with tool_output_cache_grep. Its first lines:]";
        const structured = { output_ref: refId, total_chars: whole.length, total_lines: totalLines, page };
        return { content: [{ type: "text", text: `${note}\n${page}` }], structuredContent: builtIn ? structured : undefined };
    }
    const isObject = result.type === "json" && result.value !== null && typeof result.value === "object" && !Array.isArray(result.value);
    return { content: [{ type: "text", text }], ...(isObject ? { structuredContent: result.value } : {}) };
}
/** The workspace root the client names (its first root, a file: URI), or null. */
async function clientRoot(server) {
    if (!server.getClientCapabilities()?.roots)
        return null;
    const { roots } = await server.listRoots();
    const first = roots.find((r) => r.uri.startsWith("file:"));
    return first ? (0, node_url_1.fileURLToPath)(first.uri) : null;
}
/** The server of one MCP session, before any transport (stdio: the only one; HTTP: one per session). */
function createMcpSession(options, userTools, sdk) {
    const cache = new index_cjs_1.OutputCache(undefined, { maxEntries: options.outputCacheEntries, maxBytes: options.outputCacheBytes });
    const cacheTools = (0, index_cjs_1.outputCacheTools)(cache);
    // The tool list does not depend on the root; the toolkit used for calls does.
    const listing = makeToolkit(options.root ?? process.cwd(), options, userTools, cacheTools);
    let served = options.root === undefined ? undefined : Promise.resolve(listing);
    /** Every toolkit the session made: their processes end with it. */
    const made = new Set([listing]);
    const server = new sdk.server.Server({ name: "agent-tools-native", version: VERSION }, {
        capabilities: { tools: {} },
        instructions: "Sandboxed tools for a coding workspace: every path is confined to the workspace root (symlinks " +
            "and .. included); tool failures come back as results with a code and message.",
    });
    const noRoot = (why) => Object.assign(new Error(`no workspace root: ${why}`), { code: "NO_WORKSPACE_ROOT" });
    const toolkit = () => {
        if (served)
            return served;
        const attempt = clientRoot(server).then((root) => {
            if (root === null)
                throw noRoot("start the server with --root DIR or use a client that sends MCP roots");
            process.stderr.write(`agent-tools-native: workspace root ${root} (the client's first root)\n`);
            const rooted = makeToolkit(root, options, userTools, cacheTools);
            made.add(rooted);
            return rooted;
        }, (error) => {
            throw noRoot(`the client's roots/list failed: ${error?.message ?? String(error)}`);
        });
        served = attempt;
        // A failed attempt is not kept: the next call asks the client again.
        attempt.catch(() => {
            if (served === attempt)
                served = undefined;
        });
        return attempt;
    };
    if (options.root === undefined) {
        server.setNotificationHandler(sdk.types.RootsListChangedNotificationSchema, async () => {
            served = undefined;
        });
    }
    const running = new Set();
    server.setRequestHandler(sdk.types.ListToolsRequestSchema, async () => ({ tools: mcpTools(listing) }));
    // tools/call is answered here, not through setRequestHandler: the SDK validates a call's params
    // against its schema first and answers a bad `arguments` with a protocol error, where this server
    // promises an isError result. The transport has already checked that params, if present, is an
    // object (else -32602) and that `_meta` is well formed.
    const callTool = async (params, extra) => {
        const name = params.name;
        if (typeof name !== "string") {
            const got = name === undefined ? "none" : name === null ? "null" : typeof name;
            return errorResult({ code: "INVALID_ARGUMENT", message: `tools/call needs params.name, the name of the tool to call (a string); got ${got}` });
        }
        // A present `arguments` goes to invoke as it is: a non-object fails there, after the policy,
        // with the library's INVALID_TOOL_ARGUMENTS_TYPE.
        const args = "arguments" in params ? params.arguments : {};
        const controller = new AbortController();
        const abort = () => controller.abort(extra.signal.reason);
        if (extra.signal.aborted)
            abort();
        extra.signal.addEventListener("abort", abort, { once: true });
        running.add(controller);
        const token = params._meta?.progressToken;
        const started = Date.now();
        let ticks = 0;
        const progress = token === undefined
            ? undefined
            : setInterval(() => {
                ticks += 1;
                const seconds = ((Date.now() - started) / 1000).toFixed(1);
                extra
                    .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: ticks, message: `${name}: running for ${seconds}s` } })
                    .catch(() => { });
            }, PROGRESS_INTERVAL_MS);
        try {
            const current = await toolkit();
            const output = await current.invoke(name, args, controller.signal);
            // The cache tools' own pages (at most 2 000 lines) are not cached again.
            const cacheable = !cacheTools.some((t) => t.name === name);
            return await presentOutput(name, output, !current.userTools.has(name), cacheable ? cache : null, options.maxOutputChars);
        }
        catch (error) {
            return errorResult(failureOf(error));
        }
        finally {
            if (progress)
                clearInterval(progress);
            extra.signal.removeEventListener("abort", abort);
            running.delete(controller);
        }
    };
    server.fallbackRequestHandler = async (request, extra) => {
        if (request.method === "tools/call")
            return callTool(request.params ?? {}, extra);
        throw new sdk.types.McpError(sdk.types.ErrorCode.MethodNotFound, "Method not found");
    };
    const close = async () => {
        await Promise.all([...made].map((toolkit) => toolkit.close()));
    };
    return { server, tools: listing.definitions.length, running, close };
}
async function serveMcp(options, userTools, sdk) {
    // Only protocol on stdout: console output of user tools goes to stderr.
    console.log = console.info = console.debug = console.error;
    if (options.http) {
        await (0, mcp_http_cjs_1.serveMcpHttp)(options.http, {
            createSession: () => createMcpSession(options, userTools, sdk),
            maxBodyBytes: options.maxMessageBytes,
            version: VERSION,
            root: node_path_1.default.resolve(options.root),
            writeScope: options.writeScope,
        });
        return;
    }
    const { server, tools, running, close } = createMcpSession(options, userTools, sdk);
    const transport = new mcp_stdio_cjs_1.LineTransport(process.stdin, process.stdout, { maxMessageBytes: options.maxMessageBytes, types: sdk.types });
    let closing = false;
    /**
     * The end of the session. At stdin's end of file the calls already sent are answered first (a
     * client may send its last request and close its end at once); when the transport itself
     * fails they are aborted, as nobody could read their answers.
     */
    const shutdown = async (answerFirst) => {
        if (closing)
            return;
        closing = true;
        // every request read is answered (its answer written) before the transport goes
        if (answerFirst)
            await transport.whenAnswered();
        for (const controller of running)
            controller.abort(new Error("the client went away"));
        // The session's processes end with it, before the server goes.
        await Promise.allSettled([close(), server.close()]);
        // Running native work (aborted above) must not keep the process: exit once it settles.
        setTimeout(() => process.exit(0), 2_000).unref();
    };
    process.stdin.on("end", () => void shutdown(true));
    process.stdin.on("close", () => void shutdown(true));
    transport.onclose = () => void shutdown(false);
    // Started through a launcher (npx runs `sh -c` runs this), the server would outlive it when the
    // launcher is stopped (npm does not pass SIGTERM on, and the client's pipe stays open): once
    // its parent is gone (it was adopted), it ends. Windows does not re-parent: not watched there.
    if (process.platform !== "win32") {
        const parent = process.ppid;
        const watch = setInterval(() => {
            if (process.ppid === parent)
                return;
            clearInterval(watch);
            process.stderr.write("agent-tools-native: the process that started the server is gone; stopping\n");
            void shutdown(false);
        }, 500);
        watch.unref();
    }
    await server.connect(transport);
    process.stderr.write(`agent-tools-native ${VERSION}: MCP server on stdio (root ${options.root === undefined ? "from the client" : node_path_1.default.resolve(options.root)}, ` +
        `write scope ${options.writeScope}, ${tools} tools)\n`);
}
// ---- the CLI ---------------------------------------------------------------------------------------
async function runCall(options, userTools) {
    const [name, json] = options.positional;
    let args = {};
    if (json !== undefined) {
        try {
            args = JSON.parse(json);
        }
        catch (error) {
            throw new UsageError(`the arguments are not JSON: ${error.message}`);
        }
    }
    const served = makeToolkit(options.root ?? process.cwd(), options, userTools);
    const known = new Set([...(0, native_cjs_1.builtInCatalog)().map((e) => e.name), ...options.extraTools, ...userTools.map((t) => t.name)]);
    if (!known.has(name))
        throw new UsageError(`unknown tool ${name}: \`agent-tools-native tools\` lists them${optInHint(name)}`);
    try {
        const output = await served.invoke(name, args);
        const result = served.userTools.has(name) ? (0, user_tools_cjs_1.toToolResult)(output) : { type: "json", value: output };
        const value = result.type === "json" ? result.value : result.type === "text" ? result.text : result.parts;
        process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
        return 0;
    }
    catch (error) {
        process.stdout.write(`${JSON.stringify({ error: failureOf(error) }, null, 2)}\n`);
        return 1;
    }
    finally {
        // A process the call started ends with it.
        await served.close();
    }
}
/** One checkpoint as a line of `checkpoints list`: id, time, tool, the files changed and markers. */
function checkpointLine(cp) {
    const files = cp.files.map((f) => `${f.change} ${f.path}`).join(", ");
    const marks = [cp.restored === undefined ? "" : ` (restore of ${cp.restored})`, cp.pruned ? " (pruned)" : "", cp.restorable ? "" : " (not restorable)"];
    return `${cp.id}  ${cp.time}  ${cp.tool}  ${files}${marks.join("")}`;
}
/**
 * `checkpoints list | diff ID | restore ID`: the journal of the workspace `--root` (in
 * `--checkpoints-dir` or the default place), through a toolkit's `checkpoints`. A failure is
 * `CODE: message` on stderr (with --json also `{"error": …}` on stdout, as `call` prints it), exit 1.
 */
async function runCheckpoints(options) {
    const [action, id] = options.positional;
    const root = node_path_1.default.resolve(options.root ?? process.cwd());
    // The journal's operations are the user's, not a model's: no policy or write scope applies.
    const context = (0, index_cjs_1.createToolContext)({ workspaceRoot: root, policy: { tools: {}, defaultPolicy: "allow" } });
    const journal = (0, index_cjs_1.createAgentToolkit)(context, { checkpoints: options.checkpoints ?? true }).checkpoints;
    if (journal === undefined)
        throw new Error("the toolkit has no journal");
    const out = (text) => process.stdout.write(text);
    try {
        if (action === "list") {
            const list = await journal.list();
            if (options.json)
                out(`${JSON.stringify(list, null, 2)}\n`);
            else if (list.length === 0)
                process.stderr.write(`agent-tools-native: no checkpoints in the journal of ${root}\n`);
            else
                for (const cp of list)
                    out(`${checkpointLine(cp)}\n`);
        }
        else if (action === "diff") {
            const diff = await journal.diff(id);
            if (options.json)
                out(`${JSON.stringify({ id, diff }, null, 2)}\n`);
            else
                out(diff === "" || diff.endsWith("\n") ? diff : `${diff}\n`);
        }
        else {
            const outcome = await journal.restore(id, { force: options.force });
            if (options.json)
                out(`${JSON.stringify(outcome, null, 2)}\n`);
            else {
                out(`restored ${outcome.restored}: ${outcome.files.length === 0 ? "nothing had to change" : "the files are as before its call"}\n`);
                for (const f of outcome.files)
                    out(`  ${f.change} ${f.path}\n`);
                if (outcome.checkpoint !== null)
                    out(`the restore is checkpoint ${outcome.checkpoint} (restore it to undo the restore)\n`);
            }
        }
        return 0;
    }
    catch (error) {
        const failure = failureOf(error);
        process.stderr.write(`${failure.code}: ${failure.message}\n`);
        if (failure.files) {
            process.stderr.write(`the files:\n${failure.files.map((f) => `  ${f}\n`).join("")}`);
        }
        if (options.json)
            out(`${JSON.stringify({ error: failure }, null, 2)}\n`);
        return 1;
    }
}
async function main(argv) {
    let options;
    try {
        options = parseArgs(argv);
        if (options.command === "help") {
            process.stdout.write(HELP);
            return 0;
        }
        if (options.command === "version") {
            process.stdout.write(`${VERSION}\n`);
            return 0;
        }
        if (options.command === "checkpoints")
            return await runCheckpoints(options);
        // The SDK first: without it the command fails before anything else is loaded.
        const at = argv.indexOf("mcp");
        const sdk = options.command === "mcp" ? loadSdk([...argv.slice(0, at), ...argv.slice(at + 1)]) : null;
        const userTools = options.toolsModule ? await loadUserTools(options.toolsModule) : [];
        if (sdk) {
            await serveMcp(options, userTools, sdk);
            return -1;
        }
        if (options.command === "tools") {
            const mcp = makeToolkit(options.root ?? process.cwd(), options, userTools);
            for (const tool of mcpTools(mcp))
                process.stdout.write(`${tool.name}\t${(tool.description ?? "").split("\n")[0]}\n`);
            return 0;
        }
        return await runCall(options, userTools);
    }
    catch (error) {
        if (error instanceof UsageError) {
            process.stderr.write(`agent-tools-native: ${error.message}\n(agent-tools-native --help for usage)\n`);
            return 2;
        }
        if (error instanceof mcp_sdk_cjs_1.MissingSdkError) {
            process.stderr.write(`agent-tools-native: ${error.message}\n`);
            return 1;
        }
        throw error;
    }
}
if (require.main === module) {
    // A reader that stops early (`| head`) does not want the rest: end quietly, as other tools do.
    process.stdout.on("error", (error) => {
        if (error.code !== "EPIPE")
            throw error;
        process.exit(process.exitCode ?? 0);
    });
    main(process.argv.slice(2)).then((code) => {
        // -1: the MCP server runs until its client goes away.
        if (code >= 0)
            process.exitCode = code;
    }, (error) => {
        process.stderr.write(`agent-tools-native: ${error?.stack ?? String(error)}\n`);
        process.exitCode = 1;
    });
}
