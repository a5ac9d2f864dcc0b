// Generated from ts/native.cts by `npm run build:ts`: edit that file, not this one.
/** The addon's functions and classes, as napi-rs declares them (binding.d.ts). */
export type NativeBinding = typeof import("../binding.js");
/** A machine as the loader sees it (`libc` is null off Linux). */
export type Host = {
    platform: string;
    arch: string;
    libc: "glibc" | "musl" | null;
};
/** napi-rs's platform name of a Rust target triple (`aarch64-apple-darwin` → `darwin-arm64`). */
export declare function tripleToPlatform(triple: string): string;
/** The platforms with a prebuilt package (`agent-tools-native-<platform>`): `napi.targets`. */
export declare const PREBUILT: string[];
/** The napi-rs platform name for a host: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, … */
export declare function platformName({ platform, arch, libc }: Host): string;
/**
 * The message for a host without a loadable binary. `cause` is the loader's error (its `cause`
 * chain holds one error per candidate it tried).
 */
export declare function missingBinaryMessage(host: Host, cause?: unknown): string;
export declare class NativeBindingError extends Error {
    code: "NATIVE_BINDING_MISSING";
    platform: string;
    expectedPackage: string;
    constructor(host: Host, cause?: unknown);
}
export declare function currentHost(): Host;
export declare function loadNative(): NativeBinding;
/** Every tool of the native registry (the one list), read once per process. */
export declare function nativeCatalog(): readonly CatalogEntry[];
/** The 13 built-in tools of the native registry, in catalog order. */
export declare function builtInCatalog(): readonly CatalogEntry[];
/** The opt-in tools of the native registry (`extraTools`), each with its definition. */
export declare function optInCatalog(): readonly CatalogEntry[];
/** One tool of the native catalog (`toolCatalog()`, typed in binding.d.ts), in catalog order. */
export type CatalogEntry = import("../binding.js").CatalogEntry;
