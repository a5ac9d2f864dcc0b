"use strict";
// Generated from ts/native.cts by `npm run build:ts`: edit that file, not this one.
// Loads the native addon through napi-rs's generated loader (binding.js), and turns its failure
// into an error that says what this machine is, which package would have carried its binary,
// which platforms have one, and how to build from source.
exports.NativeBindingError = exports.PREBUILT = void 0;
exports.tripleToPlatform = tripleToPlatform;
exports.platformName = platformName;
exports.missingBinaryMessage = missingBinaryMessage;
exports.currentHost = currentHost;
exports.loadNative = loadNative;
exports.nativeCatalog = nativeCatalog;
exports.builtInCatalog = builtInCatalog;
exports.optInCatalog = optInCatalog;
const node_fs_1 = require("node:fs");
const PACKAGE = "agent-tools-native";
/** napi-rs's platform name of a Rust target triple (`aarch64-apple-darwin` → `darwin-arm64`). */
function tripleToPlatform(triple) {
    const [cpu = "", , system = "", abi] = triple.split("-");
    const arch = { x86_64: "x64", aarch64: "arm64", i686: "ia32" }[cpu] ?? cpu;
    const platform = { darwin: "darwin", windows: "win32" }[system] ?? system;
    return platformName({ platform, arch, libc: abi === "musl" ? "musl" : "glibc" });
}
/** The platforms with a prebuilt package (`agent-tools-native-<platform>`): `napi.targets`. */
exports.PREBUILT = require("../package.json").napi.targets.map(tripleToPlatform);
/** "glibc", "musl" or null (not Linux). */
function detectLibc() {
    if (process.platform !== "linux")
        return null;
    const report = (typeof process.report?.getReport === "function" ? process.report.getReport() : null);
    if (report?.header?.glibcVersionRuntime)
        return "glibc";
    if (report?.sharedObjects?.some((f) => f.includes("libc.musl-") || f.includes("ld-musl-")))
        return "musl";
    try {
        return (0, node_fs_1.readFileSync)("/usr/bin/ldd", "utf8").includes("musl") ? "musl" : "glibc";
    }
    catch {
        return "glibc";
    }
}
/** The napi-rs platform name for a host: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, … */
function platformName({ platform, arch, libc }) {
    if (platform === "linux")
        return `${platform}-${arch}-${libc === "musl" ? "musl" : "gnu"}`;
    if (platform === "win32")
        return `${platform}-${arch}-msvc`;
    return `${platform}-${arch}`;
}
/**
 * The message for a host without a loadable binary. `cause` is the loader's error (its `cause`
 * chain holds one error per candidate it tried).
 */
function missingBinaryMessage(host, cause) {
    const name = platformName(host);
    const expected = `${PACKAGE}-${name}`;
    const found = `${host.platform} ${host.arch}${host.libc ? ` (${host.libc})` : ""}`;
    const reasons = [];
    for (let e = cause?.cause; e; e = e.cause) {
        if (e.message)
            reasons.push(e.message.split("\n")[0]);
    }
    const lines = [`${PACKAGE}: no native binary could be loaded for this machine: ${found}.`];
    if (exports.PREBUILT.includes(name)) {
        lines.push(`The binary for it comes in the package ${expected}, an optional dependency that the package ` +
            `manager installs on ${name} only. It was not found or did not load: reinstall without ` +
            `--omit=optional / --no-optional / --ignore-optional, and keep package-lock.json from ` +
            `another platform from pinning it away (npm install ${expected} adds it explicitly).`);
    }
    else {
        lines.push(`There is no prebuilt package for ${name} (it would be ${expected}).`);
    }
    lines.push(`Prebuilt platforms: ${exports.PREBUILT.join(", ")}.`);
    lines.push("To build from source (Rust ≥ 1.90 and a C compiler): clone the repository, then " +
        "`npm install && npm run build`; the binary lands next to binding.js. " +
        "NAPI_RS_NATIVE_LIBRARY_PATH=/path/to/file.node loads a binary from anywhere.");
    if (reasons.length > 0)
        lines.push(`What was tried:\n  ${reasons.join("\n  ")}`);
    return lines.join("\n");
}
class NativeBindingError extends Error {
    constructor(host, cause) {
        super(missingBinaryMessage(host, cause), { cause });
        this.name = "NativeBindingError";
        this.code = "NATIVE_BINDING_MISSING";
        this.platform = platformName(host);
        this.expectedPackage = `${PACKAGE}-${this.platform}`;
    }
}
exports.NativeBindingError = NativeBindingError;
function currentHost() {
    return { platform: process.platform, arch: process.arch, libc: detectLibc() };
}
function loadNative() {
    try {
        return require("../binding.js");
    }
    catch (error) {
        throw new NativeBindingError(currentHost(), error);
    }
}
let allTools;
/** Every tool of the native registry (the one list), read once per process. */
function nativeCatalog() {
    allTools ??= loadNative().toolCatalog();
    return allTools;
}
let builtIns;
/** The 13 built-in tools of the native registry, in catalog order. */
function builtInCatalog() {
    builtIns ??= nativeCatalog().filter((entry) => !entry.optIn);
    return builtIns;
}
let optIns;
/** The opt-in tools of the native registry (`extraTools`), each with its definition. */
function optInCatalog() {
    optIns ??= nativeCatalog().filter((entry) => entry.optIn);
    return optIns;
}
