// What the packaging scripts share: the targets, their packages, the published root manifest and
// the check of a binary's glibc floor.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const { tripleToPlatform } = require("../js/native.cjs");

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
export const distDir = join(root, "dist", "npm");

/** The oldest glibc the gnu binaries may need: the floor of Rust's own Linux targets. */
export const GLIBC_FLOOR = "2.17";

/**
 * One entry per `napi.targets` triple: its platform name, package, binary file name and the
 * target cargo-zigbuild builds (gnu triples carry the glibc floor as a suffix).
 */
export const targets = rootManifest.napi.targets.map((triple) => {
  const platform = tripleToPlatform(triple);
  const binaryName = rootManifest.napi.binaryName;
  return {
    triple,
    platform,
    packageName: `${rootManifest.name}-${platform}`,
    packageDir: join(root, "npm", platform),
    binaryFile: `${binaryName}.${platform}.node`,
    buildTarget: triple.endsWith("-linux-gnu") ? `${triple}.${GLIBC_FLOOR}` : triple,
    isGnu: triple.endsWith("-linux-gnu"),
  };
});

/**
 * The root package.json as published: every platform package as an optional dependency at the
 * root's version (npm installs the one whose os/cpu/libc match), without the development-only
 * fields. The repository's package.json leaves `optionalDependencies` out: `npm ci` needs every
 * optional dependency in package-lock.json, and the platform packages are built from here.
 */
export function publishedRootManifest() {
  const { devDependencies, scripts, overrides, allowScripts, ...published } = rootManifest;
  published.optionalDependencies = Object.fromEntries(
    targets.map((t) => [t.packageName, rootManifest.version]),
  );
  return published;
}

/** Compares dotted versions numerically: negative when a < b. */
export function compareVersions(a, b) {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The glibc symbol versions an ELF binary requires (its version-needs section, read by readelf,
 * which reads any architecture's ELF), highest last.
 */
export function requiredGlibcVersions(file) {
  const out = execFileSync("readelf", ["--version-info", "--wide", file], { encoding: "utf8", maxBuffer: 1 << 28 });
  const versions = new Set();
  for (const m of out.matchAll(/Name: GLIBC_([0-9.]+)/g)) versions.add(m[1]);
  return [...versions].sort(compareVersions);
}

/**
 * The highest glibc version `file` requires; throws when it is above `floor` (the gnu packages'
 * promise, checked at pack time and on the binaries installed from the registry).
 */
export function assertGlibcFloor(file, floor = GLIBC_FLOOR) {
  const highest = requiredGlibcVersions(file).at(-1);
  if (highest === undefined) throw new Error(`${file}: no versioned glibc symbols found`);
  if (compareVersions(highest, floor) > 0) throw new Error(`${file} needs GLIBC_${highest}, above the floor ${floor}`);
  return highest;
}
