// Loads the native addon through napi-rs's generated loader (binding.js), and turns its failure
// into an error that says what this machine is, which package would have carried its binary,
// which platforms have one, and how to build from source.

import { readFileSync } from "node:fs";

/** The addon's functions and classes, as napi-rs declares them (binding.d.ts). */
export type NativeBinding = typeof import("../binding.js");

/** A machine as the loader sees it (`libc` is null off Linux). */
export type Host = { platform: string; arch: string; libc: "glibc" | "musl" | null };

const PACKAGE = "agent-tools-native";

/** napi-rs's platform name of a Rust target triple (`aarch64-apple-darwin` → `darwin-arm64`). */
export function tripleToPlatform(triple: string): string {
  const [cpu = "", , system = "", abi] = triple.split("-");
  const arch = ({ x86_64: "x64", aarch64: "arm64", i686: "ia32" } as Record<string, string>)[cpu] ?? cpu;
  const platform = ({ darwin: "darwin", windows: "win32" } as Record<string, string>)[system] ?? system;
  return platformName({ platform, arch, libc: abi === "musl" ? "musl" : "glibc" });
}

/** The platforms with a prebuilt package (`agent-tools-native-<platform>`): `napi.targets`. */
export const PREBUILT: string[] = (require("../package.json") as { napi: { targets: string[] } }).napi.targets.map(tripleToPlatform);

type Report = { header?: { glibcVersionRuntime?: string }; sharedObjects?: string[] };

/** "glibc", "musl" or null (not Linux). */
function detectLibc(): Host["libc"] {
  if (process.platform !== "linux") return null;
  const report = (typeof process.report?.getReport === "function" ? process.report.getReport() : null) as Report | null;
  if (report?.header?.glibcVersionRuntime) return "glibc";
  if (report?.sharedObjects?.some((f) => f.includes("libc.musl-") || f.includes("ld-musl-"))) return "musl";
  try {
    return readFileSync("/usr/bin/ldd", "utf8").includes("musl") ? "musl" : "glibc";
  } catch {
    return "glibc";
  }
}

/** The napi-rs platform name for a host: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, … */
export function platformName({ platform, arch, libc }: Host): string {
  if (platform === "linux") return `${platform}-${arch}-${libc === "musl" ? "musl" : "gnu"}`;
  if (platform === "win32") return `${platform}-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/**
 * The message for a host without a loadable binary. `cause` is the loader's error (its `cause`
 * chain holds one error per candidate it tried).
 */
export function missingBinaryMessage(host: Host, cause?: unknown): string {
  const name = platformName(host);
  const expected = `${PACKAGE}-${name}`;
  const found = `${host.platform} ${host.arch}${host.libc ? ` (${host.libc})` : ""}`;
  const reasons: string[] = [];
  type Chain = { message?: string; cause?: unknown } | null | undefined;
  for (let e = (cause as Chain)?.cause as Chain; e; e = e.cause as Chain) {
    if (e.message) reasons.push(e.message.split("\n")[0] as string);
  }
  const lines = [`${PACKAGE}: no native binary could be loaded for this machine: ${found}.`];
  if (PREBUILT.includes(name)) {
    lines.push(
      `The binary for it comes in the package ${expected}, an optional dependency that the package ` +
        `manager installs on ${name} only. It was not found or did not load: reinstall without ` +
        `--omit=optional / --no-optional / --ignore-optional, and keep package-lock.json from ` +
        `another platform from pinning it away (npm install ${expected} adds it explicitly).`,
    );
  } else {
    lines.push(`There is no prebuilt package for ${name} (it would be ${expected}).`);
  }
  lines.push(`Prebuilt platforms: ${PREBUILT.join(", ")}.`);
  lines.push(
    "To build from source (Rust ≥ 1.90 and a C compiler): clone the repository, then " +
      "`npm install && npm run build`; the binary lands next to binding.js. " +
      "NAPI_RS_NATIVE_LIBRARY_PATH=/path/to/file.node loads a binary from anywhere.",
  );
  if (reasons.length > 0) lines.push(`What was tried:\n  ${reasons.join("\n  ")}`);
  return lines.join("\n");
}

export class NativeBindingError extends Error {
  declare code: "NATIVE_BINDING_MISSING";
  declare platform: string;
  declare expectedPackage: string;

  constructor(host: Host, cause?: unknown) {
    super(missingBinaryMessage(host, cause), { cause });
    this.name = "NativeBindingError";
    this.code = "NATIVE_BINDING_MISSING";
    this.platform = platformName(host);
    this.expectedPackage = `${PACKAGE}-${this.platform}`;
  }
}

export function currentHost(): Host {
  return { platform: process.platform, arch: process.arch, libc: detectLibc() };
}

export function loadNative(): NativeBinding {
  try {
    return require("../binding.js") as NativeBinding;
  } catch (error) {
    throw new NativeBindingError(currentHost(), error);
  }
}

let allTools: readonly CatalogEntry[] | undefined;

/** Every tool of the native registry (the one list), read once per process. */
export function nativeCatalog(): readonly CatalogEntry[] {
  allTools ??= loadNative().toolCatalog();
  return allTools;
}

let builtIns: readonly CatalogEntry[] | undefined;

/** The 13 built-in tools of the native registry, in catalog order. */
export function builtInCatalog(): readonly CatalogEntry[] {
  builtIns ??= nativeCatalog().filter((entry) => !entry.optIn);
  return builtIns;
}

let optIns: readonly CatalogEntry[] | undefined;

/** The opt-in tools of the native registry (`extraTools`), each with its definition. */
export function optInCatalog(): readonly CatalogEntry[] {
  optIns ??= nativeCatalog().filter((entry) => entry.optIn);
  return optIns;
}

/** One tool of the native catalog (`toolCatalog()`, typed in binding.d.ts), in catalog order. */
export type CatalogEntry = import("../binding.js").CatalogEntry;
