// Generated from ts/bypass.cts by `npm run build:ts`: edit that file, not this one.
/**
 * Runs work with the policy check skipped for its whole async call tree (docs/compat.md,
 * "Module surface"); nothing else is skipped.
 */
export declare const SecurityBypass: {
    run<T>(task: () => Promise<T> | T): Promise<T>;
    isEnabled(): boolean;
    enforce<T>(task: () => Promise<T> | T): Promise<T>;
};
