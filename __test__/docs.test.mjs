// The documentation stands on its own: the generated parts of docs/tools/*.md are fresh, every
// tool has a page, no file cites a document outside the repository, and every docs/… path and
// docs/compat.md heading that a file names exists.
import { test, describe } from "./harness.mjs";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ToolCatalog } from "agent-tools-native";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Build output, dependencies and fuzzing data: never documentation or source. */
const SKIPPED_DIRS = new Set(["target", "node_modules", "corpus", "artifacts", "coverage"]);

/** Every file below `dir` (relative to the repository) whose name passes `keep`. */
function filesUnder(dir, keep = () => true) {
  const out = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(repo, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(child);
      } else if (entry.isFile() && keep(child)) out.push(child);
    }
  };
  walk(dir);
  return out;
}

const read = (rel) => fs.readFileSync(path.join(repo, rel), "utf8");
/** This file names the patterns it looks for, so the reference checks skip it. */
const self = "__test__/docs.test.mjs";

/** The files whose text must not cite outside documents. */
const docFiles = [
  "README.md",
  "CHANGELOG.md",
  "bench/README.md",
  ...filesUnder("docs", (f) => f.endsWith(".md")),
  "index.d.ts",
  "crates/agent-tools-core/README.md",
  ...filesUnder("ts"),
  ...filesUnder("js"),
  ...filesUnder("scripts"),
  ...filesUnder("tests"),
  ...filesUnder("__test__"),
];

/** The Rust sources, wherever the crates live. */
function rustFiles() {
  return ["src", "crates", "tests", "fuzz"]
    .filter((dir) => fs.existsSync(path.join(repo, dir)))
    .flatMap((dir) => filesUnder(dir, (f) => f.endsWith(".rs")));
}

/** GitHub's heading anchor: lower case, punctuation other than `-` and `_` dropped, spaces → `-`. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, "")
    .replaceAll(" ", "-");
}

describe("docs", () => {
  test("the generated parts of docs/tools are up to date (node scripts/gen-docs.mjs --check)", () => {
    const run = spawnSync(process.execPath, [path.join(repo, "scripts/gen-docs.mjs"), "--check"], {
      cwd: repo,
      encoding: "utf8",
    });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  });

  test("every built-in tool has a page under docs/tools", () => {
    const names = Object.keys(ToolCatalog);
    assert.equal(names.length, 13);
    for (const name of names) {
      const page = name.startsWith("task_") ? "docs/tools/todo.md" : `docs/tools/${name}.md`;
      assert.ok(fs.existsSync(path.join(repo, page)), `${name}: ${page} is missing`);
      assert.ok(read(page).includes(name), `${page} does not mention ${name}`);
    }
  });

  test("no file cites a document outside the repository", () => {
    // Spelled in pieces so that this file does not match itself.
    const forbidden = [
      ["a path to the shared folder", (t) => t.includes(".." + "/shared")],
      ["a numbered quirk", (t) => t.includes("quirks" + " #")],
      ["the quirks file", (t) => t.includes(["quirks", "md"].join("."))],
      ["a README section number", (t) => t.includes("README " + "\u00a7")],
      ["an issue number", (t) => new RegExp("issue" + " \\d").test(t)],
    ];
    const found = [];
    for (const file of docFiles) {
      const text = read(file);
      for (const [what, matches] of forbidden) if (matches(text)) found.push(`${file}: ${what}`);
    }
    assert.deepEqual(found, []);
  });

  test("every docs/ path and docs/compat.md anchor that a file names exists", () => {
    const sources = [...docFiles.filter((f) => f !== self), ...rustFiles()];
    const headings = new Set(
      read("docs/compat.md")
        .split("\n")
        .filter((line) => /^#{1,6} /.test(line))
        .map((line) => slug(line.replace(/^#+ /, ""))),
    );
    const dangling = [];
    for (const file of sources) {
      const text = read(file);
      for (const [mention] of text.matchAll(/docs\/[\w./-]*\.md/g)) {
        if (!fs.existsSync(path.join(repo, mention))) dangling.push(`${file}: ${mention}`);
      }
      // Relative links between pages: (../compat.md#anchor), (compat.md#anchor), (docs/compat.md#anchor)
      for (const [, anchor] of text.matchAll(/compat\.md#([^)\s"'`]+)/g)) {
        if (!headings.has(anchor)) dangling.push(`${file}: compat.md#${anchor}`);
      }
      for (const [, target] of text.matchAll(/\]\((\.\.?\/[^)#\s]+|[\w-]+\.md)(?:#[^)]*)?\)/g)) {
        if (!file.startsWith("docs/") && !file.endsWith(".md")) continue;
        const resolved = path.join(repo, path.dirname(file), target);
        if (!fs.existsSync(resolved)) dangling.push(`${file}: ${target}`);
      }
    }
    assert.deepEqual(dangling, []);
  });

  test("docs/compat.md headings cited by name exist", () => {
    const headings = new Set(
      read("docs/compat.md")
        .split("\n")
        .filter((line) => line.startsWith("### "))
        .map((line) => line.slice(4).trim()),
    );
    const missing = [];
    // Citations of the form (docs/compat.md, "heading") in comments and test names.
    const sources = [...docFiles.filter((f) => f !== self), ...rustFiles()];
    for (const file of sources) {
      // A citation may wrap over comment lines: join them first.
      const text = read(file).replace(/\n\s*(?:\/\/[/!]?|\*)[ \t]*/g, " ");
      for (const [, heading] of text.matchAll(/docs\/compat\.md, \\?"([^"\\]+)\\?"/g)) {
        if (!headings.has(heading)) missing.push(`${file}: "${heading}"`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
