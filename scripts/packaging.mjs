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
 * The Windows x64 package is named after napi-rs's `x86_64-pc-windows-msvc` (`win32-x64-msvc`):
 * napi-rs's loader (binding.js) picks that name on the official node.exe and bun.exe (it takes
 * the `-gnu` name only on a Node built as a shared library with mingw), and binding.js is
 * generated, so the package follows the loader rather than the other way round. The binary in
 * it is built for `x86_64-pc-windows-gnu` (mingw-w64 from Debian; the MSVC linker is not to be
 * had here) and renamed: an N-API addon's interface to the runtime is plain C, resolved at load
 * time, so the toolchain that built it does not matter to node.exe or bun.exe.
 */
const WINDOWS_X64 = "x86_64-pc-windows-msvc";

/**
 * One entry for a triple: its platform name, package, binary file name, the target the build
 * compiles for (gnu triples carry the glibc floor as a suffix; Windows builds with mingw) and
 * the file that build writes (`builtFile`, renamed to `binaryFile` when they differ).
 */
function describeTarget(triple) {
  const platform = tripleToPlatform(triple);
  const binaryName = rootManifest.napi.binaryName;
  const isWindows = triple === WINDOWS_X64;
  const buildTarget = isWindows ? "x86_64-pc-windows-gnu" : triple.endsWith("-linux-gnu") ? `${triple}.${GLIBC_FLOOR}` : triple;
  return {
    triple,
    platform,
    packageName: `${rootManifest.name}-${platform}`,
    packageDir: join(root, "npm", platform),
    binaryFile: `${binaryName}.${platform}.node`,
    buildTarget,
    builtFile: `${binaryName}.${isWindows ? "win32-x64-gnu" : platform}.node`,
    isGnu: triple.endsWith("-linux-gnu"),
    isWindows,
  };
}

/** One entry per `napi.targets` triple: the platforms packed and published by default. */
export const targets = rootManifest.napi.targets.map(describeTarget);

/**
 * Platforms packed only when `--targets` names them: a platform listed here and not in
 * `napi.targets`. Empty since Windows x64 joined `napi.targets`; kept for the next platform that
 * builds before its code is complete.
 */
export const optInTargets = [WINDOWS_X64].filter((triple) => !rootManifest.napi.targets.includes(triple)).map(describeTarget);

/**
 * The targets a `--targets linux-x64-gnu,darwin-arm64` argument names (every target of
 * `napi.targets` without one), in `napi.targets` order, the opt-in ones last. Throws on a missing
 * list, an unknown platform or a repeated one.
 */
export function selectTargets(argv) {
  const at = argv.indexOf("--targets");
  if (at === -1) return targets;
  const known = [...targets, ...optInTargets];
  const list = argv[at + 1];
  if (!list || list.startsWith("--")) throw new Error(`--targets needs a comma-separated list of platforms: ${known.map((t) => t.platform).join(", ")}`);
  const names = list.split(",");
  const unknown = names.filter((n) => !known.some((t) => t.platform === n));
  if (unknown.length) throw new Error(`unknown platform in --targets: ${unknown.join(", ")}; known: ${known.map((t) => t.platform).join(", ")}`);
  if (new Set(names).size !== names.length) throw new Error(`a platform is named twice in --targets: ${list}`);
  return known.filter((t) => names.includes(t.platform));
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
 * It may when its `optionalDependencies` are the seven platform packages (and possibly opt-in
 * ones), each at the manifest's own version: what `pack:all` writes when it packs every target. The repository's
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
    if (![...targets, ...optInTargets].some((t) => t.packageName === name)) problems.push(`its optional dependency ${name} is not a platform package`);
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

/**
 * The DLLs a PE file imports, as `objdump -p` prints them ("DLL Name: KERNEL32.dll"), in order.
 * Any binutils' objdump reads PE; mingw's is preferred, the host's is the fallback.
 */
export function parseDllImports(objdumpOutput) {
  return [...objdumpOutput.matchAll(/^\s*DLL Name: (\S+)\s*$/gm)].map((m) => m[1]);
}

/** The DLLs a Windows binary imports (see parseDllImports). */
export function windowsDllImports(file) {
  for (const objdump of ["x86_64-w64-mingw32-objdump", "objdump"]) {
    let out;
    try {
      out = execFileSync(objdump, ["-p", file], { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      if (error.code === "ENOENT") continue;
      const reason = String(error.stderr ?? error.message).trim().split("\n")[0];
      throw new Error(`${file}: ${objdump} cannot read it as a PE file (${reason})`);
    }
    return parseDllImports(out);
  }
  throw new Error("no objdump found: install binutils or gcc-mingw-w64-x86-64 (scripts/windows-toolchain.sh)");
}

/**
 * Throws unless every DLL in `imports` ships with Windows: a mingw-built addon that imports
 * mingw's runtime (libgcc_s_seh-1.dll, libwinpthread-1.dll, libstdc++-6.dll: every such DLL is
 * named lib*.dll) would load only where that runtime happens to be on PATH, and one that imports
 * node.exe or libnode.dll directly would load into Node only, never into bun.exe (napi-rs's
 * dyn-symbols resolves N-API from the host process instead). Returns `imports`.
 */
export function assertWindowsSystemImports(imports, file = "the binary") {
  if (imports.length === 0) throw new Error(`${file}: no imported DLLs found (not a PE file?)`);
  const foreign = imports.filter((dll) => /^lib/i.test(dll) || /^(node|bun)\.exe$/i.test(dll));
  if (foreign.length) throw new Error(`${file} imports ${foreign.join(", ")}: a Windows addon may import only DLLs that ship with Windows`);
  return imports;
}
