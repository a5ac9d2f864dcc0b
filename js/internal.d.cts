// Generated from ts/internal.cts by `npm run build:ts`: edit that file, not this one.
/**
 * `toolkit.invoke(name, args)` with an AbortSignal for the call (a built-in's native work and an
 * `exec_command`'s process group are stopped when it fires) and a user tool's execute receiving it.
 * Resolves the output (the invoke result's `content`) and rejects as `invoke` does.
 */
export type InvokeWithSignal = (toolkit: object, name: string, args: unknown, signal?: AbortSignal) => Promise<unknown>;
/** Filled in by index.cts when it loads. */
export declare const hooks: {
    invokeWithSignal?: InvokeWithSignal;
};
