"use strict";
// Generated from ts/mcp_sdk.cts by `npm run build:ts`: edit that file, not this one.
// The MCP SDK (@modelcontextprotocol/sdk), loaded by the `mcp` command only (ts/cli.cts, ts/mcp_http.cts,
// ts/mcp_stdio.cts). It is an optional peer dependency, not a dependency: the SDK brings two HTTP
// frameworks (express and hono) and 95 more packages with them, none of which the library
// needs in-process, so `npm install agent-tools-native` installs none of them (README, "Install").
// Without the SDK, the `mcp` command fails with MissingSdkError, which names the one command that
// fetches both packages; `tools` and `call` never load it.
exports.MissingSdkError = exports.SDK_SPEC = void 0;
exports.mcpCommandArgv = mcpCommandArgv;
exports.mcpCommand = mcpCommand;
exports.requireSdk = requireSdk;
const SDK = "@modelcontextprotocol/sdk";
const manifest = require("../package.json");
/** The SDK as the one-line command names it: its major version of the peer range (`^1.32.2` → `@1`). */
exports.SDK_SPEC = `${SDK}@${/\d+/.exec(manifest.peerDependencies[SDK] ?? "")?.[0] ?? "latest"}`;
/** The one-line command that runs the MCP server on a clean machine (README, "Use it from an MCP client"), as argv. */
function mcpCommandArgv(args = ["--root", "."]) {
    return ["npx", "-y", "-p", "agent-tools-native", "-p", exports.SDK_SPEC, "agent-tools-native", "mcp", ...args];
}
/** The same command as a shell line. */
function mcpCommand(args) {
    const quote = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
    return mcpCommandArgv(args).map(quote).join(" ");
}
/** The SDK is not installed where this package can load it from. */
class MissingSdkError extends Error {
    code = "MCP_SDK_MISSING";
    constructor(args, cause) {
        super(`the MCP server needs ${SDK}, which is not installed: it is an optional peer dependency of ` +
            "agent-tools-native (a library install stays without its HTTP frameworks). Run the server with\n" +
            `  ${mcpCommand(args)}\n` +
            `(an MCP client's "command" and "args"), or install the SDK beside the package: npm install ${exports.SDK_SPEC}`, { cause });
        this.name = "MissingSdkError";
    }
}
exports.MissingSdkError = MissingSdkError;
/**
 * `require("@modelcontextprotocol/sdk/<subpath>")`; a MissingSdkError when the SDK is not
 * installed (`args`: the `mcp` command's arguments, repeated in the command the error suggests).
 */
function requireSdk(subpath, args) {
    const path = `${SDK}/${subpath}`;
    // Resolved first: a module the SDK itself fails to find is its own error, not a missing SDK.
    try {
        require.resolve(path);
    }
    catch (error) {
        throw new MissingSdkError(args, error);
    }
    return require(path);
}
