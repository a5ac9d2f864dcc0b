// Writes the structured seeds of the `tool_args` fuzz target (fuzz/fuzz_targets/tool_args.rs):
// inputs that decode to chosen tool calls, so the fuzzer starts from calls that reach deep into
// the opt-in tools and from the input shapes that once crashed the search tools.
//
//   node scripts/fuzz-seeds.mjs        (re-run after the catalog or the definitions change)
//
// The target reads its input with `arbitrary::Unstructured`: choices and small integers take
// bytes from the front (`int_in_range`: as many bytes as the range needs, big-endian, modulo
// the range), a string takes its length from the back (1, 2 or 4 bytes set aside, by how much
// input is left, read as `int_in_range` reads) and then its bytes from the front. `encode` lays out a planned call that way.
// What a seed decodes to: `TOOL_ARGS_DECODE_ONLY=1 fuzz/target/<triple>/release/tool_args <seed>`
// prints the call and stops before the handler.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const core = path.join(repo, "crates/agent-tools-core/src");
const out = path.join(repo, "fuzz/seeds/tool_args");

// The target's choice tables: `CATALOG` (registry.rs, in order) and `keys()` (every property
// name of the definitions plus the invoke path fields, sorted, deduplicated).
const registry = fs.readFileSync(path.join(core, "registry.rs"), "utf8");
const catalogSource = registry.slice(registry.indexOf("pub static CATALOG"), registry.indexOf("\n];", registry.indexOf("pub static CATALOG")));
const CATALOG = [...catalogSource.matchAll(/^ {8}name: "([a-z_]+)",$/gm)].map((m) => m[1]);
const declared = Number(/pub static CATALOG: \[ToolSpec; (\d+)\]/.exec(registry)[1]);
if (CATALOG.length !== declared) throw new Error(`read ${CATALOG.length} of ${declared} catalog names`);
const KEYS = (() => {
  const keys = new Set(["filePath", "patch", "path"]);
  const collect = (value) => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === "object") {
      if (value.properties && typeof value.properties === "object" && !Array.isArray(value.properties)) {
        Object.keys(value.properties).forEach((k) => keys.add(k));
      }
      Object.values(value).forEach(collect);
    }
  };
  for (const file of ["definitions.json", "opt_in_definitions.json"]) collect(JSON.parse(fs.readFileSync(path.join(core, file), "utf8")));
  return [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
})();

// ---- the plan: what the target's generator functions will be asked, in order ----------------------

/** A byte read from the front, for a choice among `n` (`n` ≤ 256). */
const pick = (index, n) => {
  if (!(index >= 0 && index < n && n <= 256)) throw new Error(`choice ${index} of ${n}`);
  return { front: [index] };
};
const str = (text) => ({ string: Buffer.from(text, "utf8") });
const tool = (name) => pick(CATALOG.indexOf(name), CATALOG.length);
const key = (name) => pick(KEYS.indexOf(name), KEYS.length);

/** `value(u, f, depth)`: a raw string (not from the dictionary), a boolean, or an object. */
const value = {
  string: (text) => [pick(4, 10), pick(4, 5) /* ratio(4, 5) false */, str(text)],
  bool: (b) => [pick(2, 10), { front: [b ? 1 : 0] }],
  object: (entries) => [pick(8, 10), ...object(entries)],
};
/** `object(u, f, depth)`: entries with keys from the table. */
function object(entries) {
  const plan = [pick(entries.length, 6)];
  for (const [name, v] of entries) plan.push(pick(0, 10) /* ratio(9, 10) true */, key(name), ...v);
  return plan;
}
/** `run`: the tool, the door, the arguments. */
const viaInvoke = (name, entries) => [tool(name), { front: [1] }, pick(0, 8) /* ratio(7, 8) true */, ...object(entries)];
const viaWrapper = (name, values) => [tool(name), { front: [0] }, pick(values.length, 5), ...values.flat()];

/** Lays the plan out as the target reads it (see the header). */
function encode(plan) {
  // lengths are read from the back, each when its string comes: the width depends on all that
  // is left at that point, so lay out from the last item back
  const front = [];
  const back = [];
  let left = 0;
  for (const item of [...plan].reverse()) {
    const bytes = item.front ? Buffer.from(item.front) : item.string;
    front.push(bytes);
    left += bytes.length;
    if (item.front) continue;
    // what is left when the length is read: this string, all after it, and the length itself;
    // of the `width` bytes set aside for it, only as many are read as the largest possible
    // length (all that is left besides them) needs
    const width = left + 1 <= 256 ? 1 : left + 2 <= 65537 ? 2 : 4;
    let read = 0;
    while (read < width && Math.floor(left / 256 ** read) > 0) read++;
    const size = Buffer.alloc(width);
    if (read > 0) size.writeUIntBE(bytes.length, 0, read);
    back.push(size); // the first string's length ends up last
    left += width;
  }
  return Buffer.concat([...front.reverse(), ...back]);
}

// ---- the seeds --------------------------------------------------------------------------------------

const CODEX_UPDATE = "*** Begin Patch\n*** Update File: a.txt\n@@\n line one\n-line two\n+line 2\n*** End Patch\n";
const CODEX_ESCAPE = "*** Begin Patch\n*** Update File: src/b.ts\n*** Move to: out/moved.ts\n@@\n-let b = 2;\n+let b = 3;\n*** End Patch\n";
const UNIFIED_TWO = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n line one\n-line two\n+line 2\n--- /dev/null\n+++ b/src/c.ts\n@@ -0,0 +1 @@\n+x\n";
// Shapes that once overflowed the stack of the search tools' pattern compilers.
const ALTERNATIVES = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join("|");
const NESTED = `${"(".repeat(5000)}x${")".repeat(5000)}`;

const SEEDS = {
  "edit-file-invoke": viaInvoke("edit_file", [
    ["path", value.string("a.txt")],
    ["old_string", value.string("line two")],
    ["new_string", value.string("line 2")],
  ]),
  "edit-file-wrapper-replace-all": viaWrapper("edit_file", [
    value.string("src/b.ts"),
    value.object([
      ["old_string", value.string("=")],
      ["new_string", value.string(":=")],
      ["replace_all", value.bool(true)],
      ["dry_run", value.bool(true)],
    ]),
  ]),
  "edit-file-through-symlink": viaInvoke("edit_file", [
    ["path", value.string("canary-link")],
    ["old_string", value.string("outside")],
    ["new_string", value.string("inside")],
  ]),
  "find-files-invoke": viaInvoke("find_files", [
    ["pattern", value.string("**/*.{ts,txt}")],
    ["include_hidden", value.bool(true)],
  ]),
  "find-files-root-symlink": viaWrapper("find_files", [value.object([
    ["pattern", value.string("*")],
    ["root_path", value.string("out")],
  ])]),
  "apply-patches-codex": viaInvoke("apply_patches", [["patch", value.string(CODEX_UPDATE)]]),
  "apply-patches-codex-escape": viaInvoke("apply_patches", [["patch", value.string(CODEX_ESCAPE)]]),
  "apply-patches-unified": viaWrapper("apply_patches", [value.object([["patch", value.string(UNIFIED_TWO)]])]),
  "regexp-search-20000-alternatives": viaInvoke("regexp_search", [["pattern", value.string(ALTERNATIVES)]]),
  "ast-grep-search-5000-nested-parentheses": viaInvoke("ast_grep_search", [
    ["language", value.string("typescript")],
    ["rule", value.object([["pattern", value.string(NESTED)]])],
  ]),
};

fs.mkdirSync(out, { recursive: true });
for (const [name, plan] of Object.entries(SEEDS)) fs.writeFileSync(path.join(out, name), encode(plan));
console.log(`${Object.keys(SEEDS).length} seeds in ${path.relative(repo, out)}`);
