// `npm run pack:all [-- --targets linux-x64-gnu,darwin-arm64] [--skip-build]`: builds the release
// binary of every target (or the ones named) with zig as the linker, checks the glibc floor of the
// gnu binaries, and packs the root package and one package per platform into dist/npm/*.tgz.
// dist/npm/pack.json records the targets, each package's sizes and each target's build time.
// With --targets, exactly the platforms named are packed (a binary of another platform left in
// npm/ is not) and the root package's optionalDependencies name exactly those: such a partial pack
// is for `npm run test:install`; scripts/check-publish.mjs refuses to publish its root.
// Windows x64 (win32-x64-msvc) builds with mingw-w64 for x86_64-pc-windows-gnu
// (scripts/windows-toolchain.sh), not zig, and its DLL may import only Windows' own DLLs.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertGlibcFloor, assertWindowsSystemImports, distDir, GLIBC_FLOOR, publishProblems, publishedRootManifest, root, rootManifest, selectTargets, stageRootPackage, targets, windowsDllImports } from "./packaging.mjs";

const args = process.argv.slice(2);
const skipBuild = args.includes("--skip-build");
const selected = selectTargets(args);
const partial = selected.length < targets.length;

const run = (cmd, argv, opts = {}) => execFileSync(cmd, argv, { cwd: root, stdio: "inherit", ...opts });

run("bash", ["scripts/ensure.sh", "--deps"]);
if (!skipBuild) run("bash", ["scripts/cross-toolchain.sh"]);

const env = { ...process.env };
delete env.CARGO_BUILD_TARGET; // each build names its target
// The Windows build's environment: napi-build's LIBNODE_PATH and the mingw linker, as the
// toolchain script exports them (it installs what is missing first).
let windowsEnv;
if (!skipBuild && selected.some((t) => t.isWindows)) {
  const script = 'eval "$(bash scripts/windows-toolchain.sh --build --env)" && env -0';
  const vars = execFileSync("bash", ["-c", script], { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 24 });
  windowsEnv = Object.fromEntries(vars.split("\0").filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
}
const buildSeconds = {};
const started = Date.now();
for (const t of selected) {
  const binary = join(t.packageDir, t.binaryFile);
  if (!skipBuild) {
    console.log(`== release build for ${t.buildTarget}`);
    const out = mkdtempSync(join(tmpdir(), "atn-build-"));
    const t0 = Date.now();
    // -x: cargo-zigbuild (Windows: mingw-w64, no -x); the binding.js/binding.d.ts it would write
    // go to the temporary dir
    run("npx", ["--no-install", "napi", "build", "--platform", "--release", "--target", t.buildTarget, ...(t.isWindows ? [] : ["-x"]),
      "--output-dir", out, "--no-js", "--dts", join(out, "binding.d.ts")], { env: t.isWindows ? windowsEnv : env });
    buildSeconds[t.platform] = Math.round((Date.now() - t0) / 1000);
    copyFileSync(join(out, t.builtFile), binary);
    rmSync(out, { recursive: true, force: true });
  }
  if (!existsSync(binary)) throw new Error(`${binary} is missing: build it first (without --skip-build)`);
  // The TypeScript generator (ts-rs, the core's `typegen` feature) is for `cargo test` only.
  if (readFileSync(binary).includes("ToolArgsByName")) {
    throw new Error(`${t.binaryFile} carries the TypeScript generator (the typegen feature)`);
  }
  if (t.isGnu) {
    const highest = assertGlibcFloor(binary);
    console.log(`   ${t.binaryFile}: highest glibc symbol version ${highest} (floor ${GLIBC_FLOOR})`);
  }
  if (t.isWindows) {
    const imports = assertWindowsSystemImports(windowsDllImports(binary), t.binaryFile);
    console.log(`   ${t.binaryFile}: imports ${imports.join(", ")}`);
  }
}

rmSync(distDir, { recursive: true, force: true });
mkdirSync(distDir, { recursive: true });
const pack = (dir) => JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", distDir], { cwd: dir, encoding: "utf8" }))[0];

// The root package from a staging copy, so the published manifest never touches package.json.
const problems = publishProblems(publishedRootManifest(selected));
if (!partial && problems.length) throw new Error(`the packed root manifest would be refused:\n${problems.join("\n")}`);
const stage = mkdtempSync(join(tmpdir(), "atn-root-"));
stageRootPackage(stage, selected);
const packed = [pack(stage)];
rmSync(stage, { recursive: true, force: true });
for (const t of selected) {
  copyFileSync(join(root, "LICENSE"), join(t.packageDir, "LICENSE"));
  packed.push(pack(t.packageDir));
}

const summary = packed.map((p) => ({ package: p.name, tarball: p.filename, size: p.size, unpackedSize: p.unpackedSize, buildSeconds: buildSeconds[p.name.replace(`${rootManifest.name}-`, "")] }));
writeFileSync(join(distDir, "pack.json"), `${JSON.stringify({ totalSeconds: Math.round((Date.now() - started) / 1000), targets: selected.map((t) => t.platform), partial, packages: summary }, null, 2)}\n`);
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
console.log("\n| package | packed | unpacked | release build |\n| --- | --- | --- | --- |");
for (const s of summary) {
  console.log(`| ${s.package} | ${mb(s.size)} | ${mb(s.unpackedSize)} | ${s.buildSeconds === undefined ? "—" : `${s.buildSeconds} s`} |`);
}
console.log(`\n${packed.length} tarballs in dist/npm/, ${Math.round((Date.now() - started) / 1000)} s in all`);
if (partial) {
  console.log(`partial pack (${selected.map((t) => t.platform).join(", ")}): for \`npm run test:install\`; its root is refused for publishing:\n  ${problems.join("\n  ")}`);
}
