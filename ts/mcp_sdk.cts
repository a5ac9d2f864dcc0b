// The MCP SDK (@modelcontextprotocol/sdk), loaded by the `mcp` command only (ts/cli.cts, ts/mcp_http.cts,
// ts/mcp_stdio.cts). It is an optional peer dependency, not a dependency: the SDK brings two HTTP
// frameworks (express and hono) and 95 more packages with them, none of which the library
// needs in-process, so `npm install agent-tools-native` installs none of them (README, "Install").
// Without the SDK, the `mcp` command fails with MissingSdkError, which names the one command that
// fetches both packages; `tools` and `call` never load it.

const SDK = "@modelcontextprotocol/sdk";

const manifest = require("../package.json") as { peerDependencies: Record<string, string> };

/** The SDK as the one-line command names it: its major version of the peer range (`^1.32.2` → `@1`). */
export const SDK_SPEC = `${SDK}@${/\d+/.exec(manifest.peerDependencies[SDK] ?? "")?.[0] ?? "latest"}`;

/** The one-line command that runs the MCP server on a clean machine (README, "Use it from an MCP client"), as argv. */
export function mcpCommandArgv(args: string[] = ["--root", "."]): string[] {
  return ["npx", "-y", "-p", "agent-tools-native", "-p", SDK_SPEC, "agent-tools-native", "mcp", ...args];
}

/** The same command as a shell line. */
export function mcpCommand(args?: string[]): string {
  const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
  return mcpCommandArgv(args).map(quote).join(" ");
}

/** The SDK is not installed where this package can load it from. */
export class MissingSdkError extends Error {
  readonly code = "MCP_SDK_MISSING";

  constructor(args: string[] | undefined, cause: unknown) {
    super(
      `the MCP server needs ${SDK}, which is not installed: it is an optional peer dependency of ` +
        "agent-tools-native (a library install stays without its HTTP frameworks). Run the server with\n" +
        `  ${mcpCommand(args)}\n` +
        `(an MCP client's "command" and "args"), or install the SDK beside the package: npm install ${SDK_SPEC}`,
      { cause },
    );
    this.name = "MissingSdkError";
  }
}

/**
 * `require("@modelcontextprotocol/sdk/<subpath>")`; a MissingSdkError when the SDK is not
 * installed (`args`: the `mcp` command's arguments, repeated in the command the error suggests).
 */
export function requireSdk<T>(subpath: string, args?: string[]): T {
  const path = `${SDK}/${subpath}`;
  // Resolved first: a module the SDK itself fails to find is its own error, not a missing SDK.
  try {
    require.resolve(path);
  } catch (error) {
    throw new MissingSdkError(args, error);
  }
  return require(path) as T;
}
