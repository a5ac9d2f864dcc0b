// Generated from ts/mcp_sdk.cts by `npm run build:ts`: edit that file, not this one.
/** The SDK as the one-line command names it: its major version of the peer range (`^1.32.2` → `@1`). */
export declare const SDK_SPEC: string;
/** The one-line command that runs the MCP server on a clean machine (README, "Use it from an MCP client"), as argv. */
export declare function mcpCommandArgv(args?: string[]): string[];
/** The same command as a shell line. */
export declare function mcpCommand(args?: string[]): string;
/** The SDK is not installed where this package can load it from. */
export declare class MissingSdkError extends Error {
    readonly code = "MCP_SDK_MISSING";
    constructor(args: string[] | undefined, cause: unknown);
}
/**
 * `require("@modelcontextprotocol/sdk/<subpath>")`; a MissingSdkError when the SDK is not
 * installed (`args`: the `mcp` command's arguments, repeated in the command the error suggests).
 */
export declare function requireSdk<T>(subpath: string, args?: string[]): T;
