// `node scripts/check-publish.mjs [dir | tarball.tgz]`: refuses (exit 1, the reasons on stderr) a
// root package whose manifest would publish without every platform package as an optional
// dependency at its own version (scripts/packaging.mjs, publishProblems). It is the repository's
// `prepack` script, so a plain `npm pack` or `npm publish` at the repository root stops here; the
// root that `npm run pack:all` packs is staged with that manifest and without scripts, and its
// tarball passes: `node scripts/check-publish.mjs dist/npm/agent-tools-native-<version>.tgz`.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { publishProblems } from "./packaging.mjs";

const target = resolve(process.argv[2] ?? process.cwd());
const manifest = target.endsWith(".tgz")
  ? JSON.parse(execFileSync("tar", ["-xzOf", target, "package/package.json"], { encoding: "utf8" }))
  : JSON.parse(readFileSync(join(target, "package.json"), "utf8"));
const problems = publishProblems(manifest);
if (problems.length) {
  process.stderr.write(
    `${manifest.name}@${manifest.version}: refusing to pack or publish ${target}:\n${problems.map((p) => `  - ${p}\n`).join("")}`,
  );
  process.exit(1);
}
console.log(`${manifest.name}@${manifest.version}: optionalDependencies name every platform package at ${manifest.version}`);
