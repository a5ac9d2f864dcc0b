// What the packaging scripts share: the targets, their packages, the published root manifest and
// the check of a binary's glibc floor.
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
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
 * The targets a `--targets linux-x64-gnu,darwin-arm64` argument names (every target without one),
 * in `napi.targets` order. Throws on a missing list, an unknown platform or a repeated one.
 */
export function selectTargets(argv) {
  const at = argv.indexOf("--targets");
  if (at === -1) return targets;
  const list = argv[at + 1];
  if (!list || list.startsWith("--")) throw new Error(`--targets needs a comma-separated list of platforms: ${targets.map((t) => t.platform).join(", ")}`);
  const names = list.split(",");
  const unknown = names.filter((n) => !targets.some((t) => t.platform === n));
  if (unknown.length) throw new Error(`unknown platform in --targets: ${unknown.join(", ")}; known: ${targets.map((t) => t.platform).join(", ")}`);
  if (new Set(names).size !== names.length) throw new Error(`a platform is named twice in --targets: ${list}`);
  return targets.filter((t) => names.includes(t.platform));
}

/**
 * The root package.json as packed by `pack:all`: the platform packages of `selected` (every
 * target unless `--targets` named fewer) as optional dependencies at the root's version (npm
 * installs the one whose os/cpu/libc match), without the development-only fields. The
 * repository's package.json leaves `optionalDependencies` out: `npm ci` needs every optional
 * dependency in package-lock.json, and the platform packages are built from here.
 */
export function publishedRootManifest(selected = targets) {
  const { devDependencies, scripts, overrides, allowScripts, ...published } = rootManifest;
  published.optionalDependencies = Object.fromEntries(
    selected.map((t) => [t.packageName, rootManifest.version]),
  );
  return published;
}

/** Writes the root package as `pack:all` packs it into `dir`: its `files`, README, LICENSE and manifest. */
export function stageRootPackage(dir, selected = targets) {
  for (const entry of [...rootManifest.files, "README.md", "LICENSE"]) {
    cpSync(join(root, entry), join(dir, entry), { recursive: true });
  }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(publishedRootManifest(selected), null, 2)}\n`);
}

/**
 * Why a root manifest must not be packed or published, one line per reason; empty when it may.
 * It may when its `optionalDependencies` are exactly the six platform packages, each at the
 * manifest's own version: what `pack:all` writes when it packs every target. The repository's
 * package.json (none at all) and a partial pack's (`--targets`: some missing) are refused.
 */
export function publishProblems(manifest) {
  const problems = [];
  if (manifest.name !== rootManifest.name) return [`${manifest.name} is not the root package ${rootManifest.name}`];
  const deps = manifest.optionalDependencies ?? {};
  if (Object.keys(deps).length === 0) {
    return [
      "it has no optionalDependencies, so an install would get no native binary. This package.json is " +
        "the development manifest: `npm run pack:all` packs the root package with one optional " +
        "dependency per platform package into dist/npm/ (README: Releasing); publish those tarballs",
    ];
  }
  const missing = targets.filter((t) => !(t.packageName in deps)).map((t) => t.platform);
  if (missing.length) {
    problems.push(
      `its optionalDependencies lack ${missing.map((p) => `${manifest.name}-${p}`).join(", ")}: a partial ` +
        "pack (`pack:all --targets`) is for `npm run test:install`, not for the registry; run `npm run pack:all` for every target",
    );
  }
  for (const [name, version] of Object.entries(deps)) {
    if (!targets.some((t) => t.packageName === name)) problems.push(`its optional dependency ${name} is not a platform package`);
    else if (version !== manifest.version) problems.push(`its optional dependency ${name} is at ${version}, not the package's version ${manifest.version}`);
  }
  return problems;
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
