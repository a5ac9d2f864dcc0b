// Writes the derived parts of docs/tools/*.md from the package itself, so they cannot drift:
// each built-in tool's description, write-scope flag and parameter table (from the definitions
// `getAllowedTools()` returns) and its output type (quoted from types/tools.d.ts, generated from
// the Rust types). Only the text between `<!-- generated:start -->` and `<!-- generated:end -->`
// is replaced; everything around it is written by hand.
//
//   node scripts/gen-docs.mjs           rewrite the generated blocks
//   node scripts/gen-docs.mjs --check   change nothing; exit 1 naming every stale file
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAgentToolkit, createToolContext, ToolCatalog } from "agent-tools-native";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const START = "<!-- generated:start -->";
const END = "<!-- generated:end -->";
const check = process.argv.includes("--check");

/** The five todo tools share one page, and so do the five process tools and the two checkpoint tools; every other tool has its own. */
function pageOf(tool) {
  if (tool.startsWith("task_")) return "docs/tools/todo.md";
  if (tool.startsWith("process_")) return "docs/tools/process.md";
  if (tool.startsWith("checkpoint_")) return "docs/tools/checkpoint.md";
  return `docs/tools/${tool}.md`;
}

// ---- the definitions -------------------------------------------------------------------------

// The opt-in tools (`extraTools`) have pages too; their write flag comes from the native registry.
const optIn = createRequire(import.meta.url)("../binding.js").toolCatalog().filter((entry) => entry.optIn);
const optInWriteOp = new Map(optIn.map((entry) => [entry.name, entry.isWriteOp]));
const toolkit = createAgentToolkit(
  createToolContext({ workspaceRoot: repo, policy: { tools: {}, defaultPolicy: "allow" } }),
  { extraTools: optIn.map((entry) => entry.name) },
);
const definitions = toolkit.getAllowedTools().map((d) => d.function);

/** Markdown table cell: backslashes, pipes and angle brackets escaped, one line. */
function cell(text) {
  return String(text)
    .replaceAll("\\", "\\\\")
    .replaceAll("|", "\\|")
    .replaceAll("<", "&lt;")
    .replaceAll("\n", " ");
}

/** Code span for a table cell (pipes must still be escaped inside a GFM table). */
function code(text) {
  return "`" + String(text).replaceAll("|", "\\|") + "`";
}

function typeOf(schema) {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.type === "array") {
    const items = schema.items ?? {};
    const inner = typeOf(items);
    return inner.includes(" ") ? `(${inner})[]` : `${inner}[]`;
  }
  return schema.type ?? "any";
}

/** One row per property; the properties of array items that are objects follow as `name[].key`. */
function rows(schema, prefix = "") {
  const out = [];
  const required = new Set(schema.required ?? []);
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const name = prefix + key;
    const def = Object.hasOwn(prop, "default") ? code(JSON.stringify(prop.default)) : "—";
    out.push(`| ${code(name)} | ${code(typeOf(prop))} | ${required.has(key) ? "yes" : "no"} | ${def} | ${cell(prop.description ?? "")} |`);
    if (prop.type === "array" && prop.items?.type === "object") out.push(...rows(prop.items, `${name}[].`));
    if (prop.type === "object" && prop.properties) out.push(...rows(prop, `${name}.`));
  }
  return out;
}

// ---- the output types ------------------------------------------------------------------------

const dts = fs.readFileSync(path.join(repo, "types/tools.d.ts"), "utf8");

/**
 * `export type Name = ...;` declarations of types/tools.d.ts, by name: each is a block of its own
 * (blocks are separated by a blank line), on one line or, with doc comments on its fields, on
 * several (quoted with their comments, trailing spaces dropped).
 */
const declarations = new Map();
for (const block of dts.split(/\n\n+/)) {
  const match = /^export type (\w+) = [\s\S]*;$/.exec(block.trim());
  if (match) declarations.set(match[1], match[0].replace(/[ \t]+$/gm, ""));
}

/** The output type name of each tool, from `interface ToolResultByName`. */
const outputTypeOf = new Map();
for (const map of ["ToolResultByName", "OptInToolResultByName"]) {
  const resultBlock = new RegExp(`export interface ${map}[^{]*\\{([^}]*)\\}`).exec(dts);
  if (!resultBlock) throw new Error(`types/tools.d.ts: interface ${map} not found`);
  for (const match of resultBlock[1].matchAll(/^\s*(\w+): (\w+);$/gm)) outputTypeOf.set(match[1], match[2]);
}

/** The declaration of `name` and of every type it references, depth first, each once. */
function typeClosure(name, seen = new Set()) {
  if (seen.has(name) || !declarations.has(name)) return [];
  seen.add(name);
  const text = declarations.get(name);
  // the names a declaration references, not the words of its comments
  const body = text.slice(text.indexOf("=") + 1).replace(/\/\*[\s\S]*?\*\//g, "");
  const out = [text];
  for (const ref of body.matchAll(/\b[A-Z]\w*\b/g)) {
    if (ref[0] !== name) out.push(...typeClosure(ref[0], seen));
  }
  return out;
}

// ---- one tool's block ------------------------------------------------------------------------

function toolBlock(def, headingLevel) {
  const meta = ToolCatalog[def.name]?.metadata;
  const lines = [];
  if (headingLevel) lines.push(`${"#".repeat(headingLevel)} ${def.name}`, "");
  lines.push(`> ${def.description}`, "");
  if (meta && meta.description !== def.description) {
    lines.push(`\`ToolCatalog.${def.name}.metadata.description\` differs: "${meta.description}"`, "");
  }
  lines.push(
    (meta?.isWriteOp ?? optInWriteOp.get(def.name))
      ? "Write operation (`isWriteOp: true`): denied when `writeScope` is `\"read-only\"`."
      : "Not a write operation (`isWriteOp: false`): runs in every write scope.",
    "",
  );
  const params = rows(def.parameters);
  if (params.length === 0) {
    lines.push("Parameters: none (an empty object).", "");
  } else {
    lines.push("| parameter | type | required | default | description |", "| --- | --- | --- | --- | --- |", ...params, "");
  }
  const output = outputTypeOf.get(def.name);
  if (!output) throw new Error(`types/tools.d.ts: no output type for ${def.name}`);
  lines.push(`Output: \`${output}\` (types/tools.d.ts)`, "", "```ts", ...typeClosure(output), "```", "");
  return lines;
}

function generated(page) {
  const defs = definitions.filter((d) => pageOf(d.name) === page);
  const grouped = defs.length > 1;
  const lines = [START, "<!-- Written by scripts/gen-docs.mjs from the package's definitions and types/tools.d.ts; do not edit. -->", ""];
  for (const def of defs) lines.push(...toolBlock(def, grouped ? 3 : 0));
  lines.push(END);
  return lines.join("\n");
}

// ---- rewrite or check ------------------------------------------------------------------------

const pages = [...new Set(definitions.map((d) => pageOf(d.name)))];
const stale = [];
for (const page of pages) {
  const file = path.join(repo, page);
  const before = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
  let after;
  if (before === null) {
    after = `# ${path.basename(page, ".md")}\n\n${generated(page)}\n`;
  } else {
    const start = before.indexOf(START);
    const end = before.indexOf(END);
    if (start < 0 || end < start) {
      stale.push(`${page} (markers missing)`);
      continue;
    }
    after = before.slice(0, start) + generated(page) + before.slice(end + END.length);
  }
  if (after === before) continue;
  if (check) {
    stale.push(before === null ? `${page} (missing)` : page);
  } else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, after);
    console.log(`wrote ${page}`);
  }
}

if (stale.length > 0) {
  console.error(
    check
      ? `docs are stale, run \`node scripts/gen-docs.mjs\`: ${stale.join(", ")}`
      : `cannot regenerate: ${stale.join(", ")}`,
  );
  process.exit(1);
}
if (check) console.log(`docs up to date (${pages.length} pages)`);
