// npm's `version` hook (`npm version <new>` runs it after writing the root package.json): gives
// every platform package and the Rust crates the root's new version, so one command bumps them
// all; npm then commits and tags the result.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { optInTargets, root, rootManifest, targets } from "./packaging.mjs";

const version = rootManifest.version;
for (const t of [...targets, ...optInTargets]) {
  const file = join(t.packageDir, "package.json");
  const manifest = JSON.parse(readFileSync(file, "utf8"));
  manifest.version = version;
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}
const replaceOnce = (file, pattern, replacement) => {
  const text = readFileSync(join(root, file), "utf8");
  if (!pattern.test(text)) throw new Error(`${file}: the crate's version line was not found`);
  writeFileSync(join(root, file), text.replace(pattern, replacement));
};
replaceOnce("Cargo.toml", /^(\[workspace\.package\]\nversion = )"[^"]*"/m, `$1"${version}"`);
for (const crate of ["agent_tools_native", "agent-tools-core"]) {
  replaceOnce("Cargo.lock", new RegExp(`^(name = "${crate}"\\nversion = )"[^"]*"`, "m"), `$1"${version}"`);
}
console.log(`version ${version}: ${targets.length + optInTargets.length} platform packages, the workspace (Cargo.toml, Cargo.lock)`);
