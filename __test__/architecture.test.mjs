// The TypeScript module map of docs/architecture.md against the actual imports of ts/: every
// module is listed, and each imports at run time only modules of the rows above its own
// (type-only imports are erased and may point anywhere). And no module of ts/ decides anything by
// an error's message text: errors carry codes and recorded facts.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsDir = path.join(repo, "ts");
const modules = fs.readdirSync(tsDir).filter((f) => f.endsWith(".cts"));
const source = (file) => fs.readFileSync(path.join(tsDir, file), "utf8");

/** The modules `file` imports at run time: `import`/`export … from "./x.cjs"` that are not type-only, and `require("./x.cjs")`. */
export function runtimeImports(text) {
  const found = new Set();
  for (const [, typeKeyword, specifiers, name] of text.matchAll(/^(?:import|export)\s+(type\s+)?([^";]*?)\s+from\s+"\.\/(\w+)\.cjs"/gm)) {
    const names = specifiers.trim().startsWith("{") ? specifiers.replace(/[{}\s]/g, "").split(",").filter(Boolean) : null;
    const typeOnly = Boolean(typeKeyword) || (names !== null && names.length > 0 && names.every((n) => n.startsWith("type")));
    if (!typeOnly) found.add(`${name}.cts`);
  }
  for (const [, name] of text.matchAll(/require\("\.\/(\w+)\.cjs"\)/g)) found.add(`${name}.cts`);
  return found;
}

/** The rows of the TypeScript map, from the bottom layer up: the modules each row's first cell names. */
function documentedLayers() {
  const doc = fs.readFileSync(path.join(repo, "docs/architecture.md"), "utf8");
  const table = doc.split("TypeScript (`ts/`):")[1];
  assert.ok(table, "docs/architecture.md has no TypeScript module map");
  const rows = [];
  for (const line of table.split("\n").slice(2)) {
    if (!line.startsWith("|")) {
      if (rows.length > 0) break;
      continue;
    }
    const names = [...line.split("|")[1].matchAll(/`([\w.]+\.cts)`/g)].map((m) => m[1]);
    if (names.length > 0) rows.push(names);
  }
  return rows;
}

describe("the module map", () => {
  test("the reader tells run-time imports from type-only ones", () => {
    const text = [
      'import type { A } from "./a.cjs";',
      'import { type B, c } from "./b.cjs";',
      'import { type D } from "./d.cjs";',
      'export * from "./e.cjs";',
      'const f = require("./f.cjs");',
      'import type { G } from "../types/tools.js";',
    ].join("\n");
    assert.deepEqual([...runtimeImports(text)].sort(), ["b.cts", "e.cts", "f.cts"]);
  });

  test("docs/architecture.md lists every module of ts/, each importing only modules of the rows above it", () => {
    const layers = documentedLayers();
    const layerOf = new Map(layers.flatMap((row, i) => row.map((m) => [m, i])));
    assert.deepEqual([...layerOf.keys()].sort(), [...modules].sort(), "the map and ts/ differ");
    const wrong = [];
    for (const file of modules) {
      for (const imported of runtimeImports(source(file))) {
        if (!layerOf.has(imported)) wrong.push(`${file} imports ${imported}, which is not in ts/`);
        else if (layerOf.get(imported) >= layerOf.get(file)) wrong.push(`${file} imports ${imported}, which the map lists at or after it`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});

describe("errors are codes", () => {
  test("no module of ts/ looks into an error's message text", () => {
    const looks = [
      /\bmessage\w*\??\.(startsWith|endsWith|includes|match|search|indexOf)\(/,
      /\.test\(\s*[\w.]*message\w*\s*\)/i,
      /\bmessage\w*\s*===?\s*["'`]/,
    ];
    const found = [];
    for (const file of modules) {
      source(file)
        .split("\n")
        .forEach((line, i) => {
          if (looks.some((re) => re.test(line))) found.push(`ts/${file}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(found, []);
  });
});
