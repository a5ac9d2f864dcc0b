// The published shape: one package per target with the right os/cpu/libc, one version everywhere,
// the root's optional dependencies, and the error a machine without a binary gets.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { assertGlibcFloor, assertWindowsSystemImports, compareVersions, GLIBC_FLOOR, optInTargets, parseDllImports, publishProblems, publishedRootManifest, requiredGlibcVersions, root, rootManifest, selectTargets, targets, windowsDllImports } from "../scripts/packaging.mjs";
import { notUnderWine, onlyOn, WINE } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const { missingBinaryMessage, platformName, tripleToPlatform, PREBUILT } = require("../js/native.cjs");

const expectedFields = {
  "x86_64-unknown-linux-gnu": { os: ["linux"], cpu: ["x64"], libc: ["glibc"] },
  "aarch64-unknown-linux-gnu": { os: ["linux"], cpu: ["arm64"], libc: ["glibc"] },
  "x86_64-unknown-linux-musl": { os: ["linux"], cpu: ["x64"], libc: ["musl"] },
  "aarch64-unknown-linux-musl": { os: ["linux"], cpu: ["arm64"], libc: ["musl"] },
  "x86_64-apple-darwin": { os: ["darwin"], cpu: ["x64"] },
  "aarch64-apple-darwin": { os: ["darwin"], cpu: ["arm64"] },
  "x86_64-pc-windows-msvc": { os: ["win32"], cpu: ["x64"] },
};

describe("platform packages", () => {
  test("napi.targets lists the seven supported targets", () => {
    assert.deepEqual([...rootManifest.napi.targets].sort(), Object.keys(expectedFields).sort());
  });

  test("Windows x64 under napi-rs's msvc name, built with the gnu toolchain and renamed; no opt-in target is left", () => {
    assert.deepEqual(optInTargets, []);
    const win = targets.find((t) => t.triple === "x86_64-pc-windows-msvc");
    assert.equal(win.platform, "win32-x64-msvc");
    assert.equal(win.packageName, "agent-tools-native-win32-x64-msvc");
    assert.equal(win.buildTarget, "x86_64-pc-windows-gnu");
    assert.equal(win.builtFile, "agent-tools-native.win32-x64-gnu.node");
    assert.equal(win.binaryFile, "agent-tools-native.win32-x64-msvc.node");
    assert.equal(win.isWindows, true);
    // the name napi-rs's generated loader requires on the official node.exe and bun.exe
    const loader = fs.readFileSync(path.join(root, "binding.js"), "utf8");
    assert.match(loader, /require\('agent-tools-native-win32-x64-msvc'\)/);
    assert.match(loader, /require\('\.\/agent-tools-native\.win32-x64-msvc\.node'\)/);
    for (const t of targets.filter((x) => x !== win)) assert.deepEqual([t.isWindows, t.builtFile], [false, t.binaryFile]);
  });

  for (const t of [...targets, ...optInTargets]) {
    test(`${t.packageName}: napi-rs name, os/cpu/libc, its binary only, the root's version and links`, () => {
      const manifest = JSON.parse(fs.readFileSync(path.join(t.packageDir, "package.json"), "utf8"));
      const fields = expectedFields[t.triple];
      assert.equal(manifest.name, t.packageName);
      assert.equal(manifest.version, rootManifest.version);
      assert.deepEqual(manifest.os, fields.os);
      assert.deepEqual(manifest.cpu, fields.cpu);
      assert.deepEqual(manifest.libc, fields.libc);
      assert.equal(manifest.main, t.binaryFile);
      assert.deepEqual(manifest.files, [t.binaryFile]);
      for (const field of ["license", "repository", "homepage", "bugs", "engines"]) {
        assert.deepEqual(manifest[field], rootManifest[field], field);
      }
    });
  }

  test("the Rust crates have the root's version", () => {
    const cargo = fs.readFileSync(path.join(root, "Cargo.toml"), "utf8");
    assert.match(cargo, new RegExp(`^\\[workspace\\.package\\]\\nversion = "${rootManifest.version.replaceAll(".", "\\.")}"$`, "m"));
  });

  test("the version hook (npm version) gives every platform package and the crate the root's new version", () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-version-")));
    try {
      for (const entry of ["package.json", "Cargo.toml", "Cargo.lock", "npm", "scripts", "js"]) {
        fs.cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true, filter: (f) => !f.endsWith(".node") });
      }
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ ...manifest, version: "9.8.7" }));
      execFileSync(process.execPath, ["scripts/version.mjs"], { cwd: dir, encoding: "utf8" });
      for (const t of [...targets, ...optInTargets]) {
        assert.equal(JSON.parse(fs.readFileSync(path.join(dir, "npm", t.platform, "package.json"), "utf8")).version, "9.8.7", t.platform);
      }
      assert.match(fs.readFileSync(path.join(dir, "Cargo.toml"), "utf8"), /^\[workspace\.package\]\nversion = "9\.8\.7"$/m);
      const lock = fs.readFileSync(path.join(dir, "Cargo.lock"), "utf8");
      assert.match(lock, /^name = "agent_tools_native"\nversion = "9\.8\.7"$/m);
      assert.match(lock, /^name = "agent-tools-core"\nversion = "9\.8\.7"$/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the published root manifest depends on every platform package at its own version", () => {
    const published = publishedRootManifest();
    assert.deepEqual(
      published.optionalDependencies,
      Object.fromEntries(targets.map((t) => [`agent-tools-native-${t.platform}`, rootManifest.version])),
    );
    for (const dev of ["devDependencies", "scripts", "overrides", "allowScripts"]) assert.equal(published[dev], undefined, dev);
    assert.deepEqual(published.exports, rootManifest.exports);
    assert.equal(published.version, rootManifest.version);
  });

  test("every file the published root needs is in `files` (js/native.cjs, the typings)", () => {
    for (const entry of ["binding.js", "binding.d.ts", "index.d.ts", "js/", "types/"]) assert.ok(rootManifest.files.includes(entry), entry);
    assert.ok(fs.existsSync(path.join(root, "LICENSE")));
  });

  test("the bin agent-tools-native: js/cli.cjs with its shebang, packed with what it reads; the MCP SDK an optional peer", notUnderWine(WINE.npm), () => {
    const published = publishedRootManifest();
    assert.deepEqual(published.bin, { "agent-tools-native": "js/cli.cjs" });
    assert.match(fs.readFileSync(path.join(root, "js", "cli.cjs"), "utf8"), /^#!\/usr\/bin\/env node\n/);
    assert.equal(published.dependencies, undefined);
    assert.match(published.peerDependencies["@modelcontextprotocol/sdk"], /^\^1\./);
    assert.deepEqual(published.peerDependenciesMeta["@modelcontextprotocol/sdk"], { optional: true });
    // (npm is npm.cmd on Windows: a shell runs it)
    const [packed] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", shell: process.platform === "win32" }));
    const files = packed.files.map((f) => f.path);
    for (const file of ["js/cli.cjs", "js/mcp_sdk.cjs", "js/toolkit.cjs", "js/output_schemas.json", "package.json"]) assert.ok(files.includes(file), file);
    assert.ok(!files.some((f) => f.startsWith("__test__/") || f.endsWith(".node")), "no tests or local binaries");
  });
});

/**
 * A copy of the repository's packaging inputs in a temporary directory (node_modules linked), with
 * a stand-in binary in every npm/<platform>/: for the gnu targets a small shared object whose only
 * versioned glibc symbols are GLIBC_2.2.5 (the floor check reads them), for the others a few bytes;
 * with `windowsDll`, Windows gets a small DLL built with mingw-w64 (scripts/windows-toolchain.sh
 * --build), which the imports check of pack:all reads.
 */
function packagingCopy({ windowsDll = false } = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-pack-")));
  for (const entry of ["package.json", "scripts", "npm", "README.md", "LICENSE", ...rootManifest.files]) {
    fs.cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true, filter: (f) => !f.endsWith(".node") && !/\/npm\/[^/]+\/LICENSE$/.test(f) });
  }
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  const source = path.join(dir, "stand-in.c");
  fs.writeFileSync(source, '__asm__(".symver memcpy,memcpy@GLIBC_2.2.5");\nvoid *memcpy(void *, const void *, unsigned long);\nvoid copy3(char *a, const char *b) { memcpy(a, b, 3); }\n');
  const so = path.join(dir, "stand-in.so");
  execFileSync("cc", ["-shared", "-fPIC", "-nostartfiles", "-o", so, source]);
  const dll = path.join(dir, "stand-in.dll");
  if (windowsDll) {
    const dllSource = path.join(dir, "stand-in-dll.c");
    fs.writeFileSync(dllSource, "#include <windows.h>\n__declspec(dllexport) DWORD tick(void) { return GetTickCount(); }\n");
    execFileSync("x86_64-w64-mingw32-gcc", ["-shared", "-o", dll, dllSource]);
  }
  for (const t of targets) {
    const binary = path.join(dir, "npm", t.platform, t.binaryFile);
    if (t.isGnu) fs.copyFileSync(so, binary);
    else if (t.isWindows && windowsDll) fs.copyFileSync(dll, binary);
    else fs.writeFileSync(binary, `stand-in for the ${t.platform} binary\n`);
  }
  return dir;
}

/** Runs scripts/check-publish.mjs on `what` (a directory or a tarball): its exit status and output. */
function checkPublish(cwd, what) {
  const r = spawnSync(process.execPath, [path.join(cwd, "scripts", "check-publish.mjs"), ...(what ? [what] : [])], { cwd, encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** The package.json inside a packed tarball. */
const tarballManifest = (file) => JSON.parse(execFileSync("tar", ["-xzOf", file, "package/package.json"], { encoding: "utf8" }));

describe("packing and publishing the root package", () => {
  const version = rootManifest.version;
  const everyPlatform = Object.fromEntries(targets.map((t) => [t.packageName, version]));

  test("the guard refuses the repository's package.json (no optionalDependencies), with what to run instead", () => {
    assert.equal(rootManifest.scripts.prepack, "node scripts/check-publish.mjs");
    const { status, out } = checkPublish(root);
    assert.equal(status, 1);
    assert.ok(out.startsWith(`agent-tools-native@${version}: refusing to pack or publish ${root}:\n`), out);
    assert.match(out, /it has no optionalDependencies, so an install would get no native binary/);
    assert.match(out, /`npm run pack:all` packs the root package/);
  });

  test("the guard accepts exactly every platform package at the package's version", () => {
    assert.deepEqual(publishProblems(publishedRootManifest()), []);
    assert.deepEqual(publishedRootManifest().optionalDependencies, everyPlatform);
    const some = publishProblems(publishedRootManifest(selectTargets(["--targets", "linux-x64-gnu"])));
    assert.equal(some.length, 1);
    assert.match(some[0], /lack agent-tools-native-linux-arm64-gnu, agent-tools-native-linux-x64-musl, .*agent-tools-native-darwin-arm64, agent-tools-native-win32-x64-msvc: a partial pack/);
    const stale = publishProblems({ ...publishedRootManifest(), optionalDependencies: { ...everyPlatform, "agent-tools-native-darwin-x64": "0.0.1" } });
    assert.deepEqual(stale, [`its optional dependency agent-tools-native-darwin-x64 is at 0.0.1, not the package's version ${version}`]);
    const extra = publishProblems({ ...publishedRootManifest(), optionalDependencies: { ...everyPlatform, "left-pad": version } });
    assert.deepEqual(extra, ["its optional dependency left-pad is not a platform package"]);
    // the Windows package is one of them; on its own it is a partial pack
    assert.ok("agent-tools-native-win32-x64-msvc" in everyPlatform);
    const winOnly = publishProblems(publishedRootManifest(selectTargets(["--targets", "win32-x64-msvc"])));
    assert.equal(winOnly.length, 1);
    assert.match(winOnly[0], /lack agent-tools-native-linux-x64-gnu, .*agent-tools-native-darwin-arm64: a partial pack/);
  });

  test("--targets: a clear error for a missing list, an unknown or a repeated platform", () => {
    assert.deepEqual(selectTargets([]), targets);
    assert.deepEqual(selectTargets(["--skip-build", "--targets", "darwin-arm64,linux-x64-gnu"]).map((t) => t.platform), ["linux-x64-gnu", "darwin-arm64"]);
    assert.throws(() => selectTargets(["--targets"]), /^Error: --targets needs a comma-separated list of platforms: linux-x64-gnu, /);
    assert.throws(() => selectTargets(["--targets", "--skip-build"]), /--targets needs a comma-separated list/);
    assert.deepEqual(selectTargets(["--targets", "win32-x64-msvc,linux-x64-gnu"]).map((t) => t.platform), ["linux-x64-gnu", "win32-x64-msvc"]);
    assert.throws(() => selectTargets(["--targets", "linux-x64-gnu,win32-arm64-msvc"]), /unknown platform in --targets: win32-arm64-msvc; known: linux-x64-gnu, .*, darwin-arm64, win32-x64-msvc$/);
    assert.throws(() => selectTargets(["--targets", "darwin-x64,darwin-x64"]), /a platform is named twice in --targets: darwin-x64,darwin-x64/);
  });

  // npm runs the prepack script for `npm pack` and `npm publish` of a directory (not for a tarball)
  test("a plain `npm pack` and `npm publish` at the root stop at the guard, before anything is packed", { ...onlyOn(["unix"], "links node_modules into a copy and compiles a stand-in shared object with cc"), timeout: 120_000 }, () => {
    const dir = packagingCopy();
    try {
      for (const command of [["pack", "--dry-run"], ["publish", "--dry-run"]]) {
        const r = spawnSync("npm", command, { cwd: dir, encoding: "utf8" });
        assert.notEqual(r.status, 0, command.join(" "));
        assert.match(r.stderr, /refusing to pack or publish .*\n {2}- it has no optionalDependencies/, command.join(" "));
        assert.doesNotMatch(r.stdout + r.stderr, /Tarball Contents|\+ agent-tools-native@/, command.join(" "));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("pack:all packs every platform and a root the guard accepts; --targets packs exactly those, and its root is refused", { ...onlyOn(["unix"], "links node_modules into a copy and compiles a stand-in shared object with cc"), timeout: 300_000 }, () => {
    const dir = packagingCopy({ windowsDll: true });
    const dist = path.join(dir, "dist", "npm");
    const packAll = (...args) => execFileSync(process.execPath, [path.join(dir, "scripts", "pack-all.mjs"), "--skip-build", ...args], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const tarballs = () => fs.readdirSync(dist).filter((f) => f.endsWith(".tgz")).sort();
    const rootTarball = path.join(dist, `agent-tools-native-${version}.tgz`);
    try {
      packAll();
      assert.deepEqual(tarballs(), [`agent-tools-native-${version}.tgz`, ...targets.map((t) => `${t.packageName}-${version}.tgz`)].sort());
      assert.deepEqual(tarballManifest(rootTarball).optionalDependencies, everyPlatform);
      assert.equal(tarballManifest(rootTarball).scripts, undefined);
      const accepted = checkPublish(dir, rootTarball);
      assert.equal(accepted.status, 0, accepted.out);
      assert.match(accepted.out, /optionalDependencies name every platform package/);
      assert.equal(JSON.parse(fs.readFileSync(path.join(dist, "pack.json"), "utf8")).partial, false);

      // every binary from before is still in npm/*/: only the two named are packed
      packAll("--targets", "darwin-arm64,linux-x64-musl");
      const named = ["agent-tools-native-linux-x64-musl", "agent-tools-native-darwin-arm64"];
      assert.deepEqual(tarballs(), [`agent-tools-native-${version}.tgz`, ...named.map((n) => `${n}-${version}.tgz`)].sort());
      assert.deepEqual(tarballManifest(rootTarball).optionalDependencies, Object.fromEntries(named.map((n) => [n, version])));
      const summary = JSON.parse(fs.readFileSync(path.join(dist, "pack.json"), "utf8"));
      assert.deepEqual([summary.partial, summary.targets], [true, ["linux-x64-musl", "darwin-arm64"]]);
      const refused = checkPublish(dir, rootTarball);
      assert.equal(refused.status, 1);
      assert.match(refused.out, /lack agent-tools-native-linux-x64-gnu, agent-tools-native-linux-arm64-gnu, agent-tools-native-linux-arm64-musl, agent-tools-native-darwin-x64, agent-tools-native-win32-x64-msvc: a partial pack/);

      // the Windows package: its binary must be a PE file importing only Windows' DLLs
      fs.writeFileSync(path.join(dir, "npm", "win32-x64-msvc", "agent-tools-native.win32-x64-msvc.node"), "stand-in for the win32-x64-msvc binary\n");
      const notPe = spawnSync(process.execPath, [path.join(dir, "scripts", "pack-all.mjs"), "--skip-build", "--targets", "linux-x64-gnu,win32-x64-msvc"], { cwd: dir, encoding: "utf8" });
      assert.notEqual(notPe.status, 0);
      assert.match(notPe.stderr, /agent-tools-native\.win32-x64-msvc\.node: \S*objdump cannot read it as a PE file/);

      // a named platform without its binary: refused before anything is packed
      fs.rmSync(path.join(dir, "npm", "darwin-x64", "agent-tools-native.darwin-x64.node"));
      const missing = spawnSync(process.execPath, [path.join(dir, "scripts", "pack-all.mjs"), "--skip-build", "--targets", "darwin-x64"], { cwd: dir, encoding: "utf8" });
      assert.notEqual(missing.status, 0);
      assert.match(missing.stderr, /agent-tools-native\.darwin-x64\.node is missing: build it first/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the glibc floor check", () => {
  test("versions compare numerically", () => {
    assert.ok(compareVersions("2.17", "2.9") > 0);
    assert.ok(compareVersions("2.2.5", "2.17") < 0);
    assert.equal(compareVersions("2.17", "2.17.0"), 0);
    assert.equal(GLIBC_FLOOR, "2.17");
  });

  const glibcHost = process.platform === "linux" && require("../js/native.cjs").currentHost().libc === "glibc";
  test("reads a binary's versioned glibc symbols (this runtime's own), sorted", { skip: !glibcHost && "not a glibc machine" }, () => {
    const versions = requiredGlibcVersions(process.execPath);
    assert.ok(versions.length > 3, versions.join(" "));
    for (const v of versions) assert.match(v, /^\d+(\.\d+)+$/);
    assert.deepEqual([...versions].sort(compareVersions), versions);
    // Node 20 needs glibc 2.28, Bun 1.4 targets 2.17 itself
    assert.ok(compareVersions(versions.at(-1), "2.17") >= 0, versions.at(-1));
  });

  test("the floor check refuses a binary that needs more and passes one that does not", { skip: !glibcHost && "not a glibc machine" }, () => {
    const highest = requiredGlibcVersions(process.execPath).at(-1);
    assert.equal(assertGlibcFloor(process.execPath, highest), highest);
    assert.equal(assertGlibcFloor(process.execPath, "99.0"), highest);
    // every glibc binary on x64 (2.2.5) and arm64 (2.17) needs more than glibc 2.2
    assert.throws(() => assertGlibcFloor(process.execPath, "2.2"), new RegExp(`needs GLIBC_${highest.replaceAll(".", "\\.")}, above the floor 2\\.2$`));
  });
});

describe("no binary for this machine: a clear error", () => {
  test("platform names follow napi-rs", () => {
    assert.deepEqual(PREBUILT, ["linux-x64-gnu", "linux-arm64-gnu", "linux-x64-musl", "linux-arm64-musl", "darwin-x64", "darwin-arm64", "win32-x64-msvc"]);
    assert.equal(tripleToPlatform("x86_64-pc-windows-msvc"), "win32-x64-msvc");
    assert.equal(platformName({ platform: "linux", arch: "arm64", libc: "musl" }), "linux-arm64-musl");
  });

  test("a supported platform whose package is missing: the package, the flags that drop it, building from source", () => {
    const cause = new Error("Cannot find native binding.", { cause: new Error("Cannot find module './agent-tools-native.linux-arm64-musl.node'") });
    const message = missingBinaryMessage({ platform: "linux", arch: "arm64", libc: "musl" }, cause);
    assert.match(message, /^agent-tools-native: no native binary could be loaded for this machine: linux arm64 \(musl\)\./);
    assert.match(message, /package agent-tools-native-linux-arm64-musl, an optional dependency/);
    assert.match(message, /--omit=optional/);
    assert.match(message, /Prebuilt platforms: linux-x64-gnu, linux-arm64-gnu, linux-x64-musl, linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64-msvc\./);
    assert.match(message, /npm install && npm run build/);
    assert.match(message, /What was tried:\n {2}Cannot find module '\.\/agent-tools-native\.linux-arm64-musl\.node'/);
  });

  test("an unsupported platform: says there is no prebuilt package", () => {
    const message = missingBinaryMessage({ platform: "freebsd", arch: "x64", libc: null }, new Error("x"));
    assert.match(message, /this machine: freebsd x64\./);
    assert.match(message, /There is no prebuilt package for freebsd-x64 \(it would be agent-tools-native-freebsd-x64\)\./);
  });

  test("loading the package without any binary fails with NativeBindingError, from require and import", () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-nobin-")));
    try {
      const pkg = path.join(dir, "node_modules", "agent-tools-native");
      fs.mkdirSync(pkg, { recursive: true });
      for (const entry of ["package.json", ...rootManifest.files]) fs.cpSync(path.join(root, entry), path.join(pkg, entry), { recursive: true });
      fs.writeFileSync(
        path.join(dir, "probe.cjs"),
        `try { require("agent-tools-native"); console.log("loaded"); }
         catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, expectedPackage: e.expectedPackage, message: e.message })); }`,
      );
      // a static import: the way an ESM program loads it (the process fails with the error)
      fs.writeFileSync(path.join(dir, "probe.mjs"), `import "agent-tools-native";\nconsole.log("loaded");\n`);
      const env = { ...process.env };
      delete env.NAPI_RS_NATIVE_LIBRARY_PATH;
      const error = JSON.parse(execFileSync(process.execPath, ["probe.cjs"], { cwd: dir, env, encoding: "utf8" }));
      const here = require("../js/native.cjs").currentHost();
      assert.equal(error.name, "NativeBindingError");
      assert.equal(error.code, "NATIVE_BINDING_MISSING");
      assert.equal(error.expectedPackage, `agent-tools-native-${platformName(here)}`);
      assert.match(error.message, new RegExp(`this machine: ${here.platform} ${here.arch}`));
      const esm = spawnSync(process.execPath, ["probe.mjs"], { cwd: dir, env, encoding: "utf8" });
      assert.notEqual(esm.status, 0);
      assert.equal(esm.stdout, "");
      assert.match(esm.stderr, /NativeBindingError: agent-tools-native: no native binary could be loaded for this machine/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the Windows DLL imports check", () => {
  // what `objdump -p` prints for a mingw-built napi-rs addon (abridged)
  const objdump = `
The Import Tables (interpreted .idata section contents)
 vma:            Hint    Time      Forward  DLL       First
                 Table   Stamp     Chain    Name      Thunk
 000c2000       000c20b4 00000000 00000000 000c2c58 000c2328

\tDLL Name: KERNEL32.dll
\tvma:  Hint/Ord Member-Name Bound-To
\tc2f48\t  311  CloseHandle

\tDLL Name: msvcrt.dll
\tDLL Name: api-ms-win-core-synch-l1-2-0.dll
\tDLL Name: bcryptprimitives.dll
`;

  test("reads the imported DLL names in order", () => {
    assert.deepEqual(parseDllImports(objdump), ["KERNEL32.dll", "msvcrt.dll", "api-ms-win-core-synch-l1-2-0.dll", "bcryptprimitives.dll"]);
    assert.deepEqual(parseDllImports("no import tables here\n"), []);
  });

  test("accepts Windows' own DLLs and refuses mingw's runtime, node.exe and an empty list", () => {
    const system = parseDllImports(objdump);
    assert.equal(assertWindowsSystemImports(system), system);
    assert.throws(
      () => assertWindowsSystemImports([...system, "libwinpthread-1.dll", "libgcc_s_seh-1.dll"], "addon.node"),
      /^Error: addon\.node imports libwinpthread-1\.dll, libgcc_s_seh-1\.dll: a Windows addon may import only DLLs that ship with Windows$/,
    );
    assert.throws(() => assertWindowsSystemImports(["KERNEL32.dll", "node.exe"]), /imports node\.exe:/);
    assert.throws(() => assertWindowsSystemImports(["KERNEL32.dll", "libnode.dll"]), /imports libnode\.dll:/);
    assert.throws(() => assertWindowsSystemImports([], "x.node"), /^Error: x\.node: no imported DLLs found \(not a PE file\?\)$/);
  });

  test("a file that is not a PE file: a clear error naming it", onlyOn(["linux"], "runs mingw-w64's objdump, as pack:all does on its Linux build machine"), () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "atn-pe-"));
    try {
      const file = path.join(dir, "stand-in.node");
      fs.writeFileSync(file, "not a PE file\n");
      assert.throws(() => windowsDllImports(file), new RegExp(`^Error: ${file.replaceAll(".", "\\.")}: \\S*objdump cannot read it as a PE file \\(.*file format not recognized\\)$`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
