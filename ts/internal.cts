// What the toolkit (index.cts) lends the command line and MCP server (cli.cts) beyond the public
// API. Not part of the package's API: nothing here is exported from the package's entry.

/**
 * `toolkit.invoke(name, args)` with an AbortSignal for the call (a built-in's native work and an
 * `exec_command`'s process group are stopped when it fires) and a user tool's execute receiving it.
 * Resolves the output (the invoke result's `content`) and rejects as `invoke` does.
 */
export type InvokeWithSignal = (toolkit: object, name: string, args: unknown, signal?: AbortSignal) => Promise<unknown>;

/** Filled in by index.cts when it loads. */
export const hooks: { invokeWithSignal?: InvokeWithSignal } = {};
