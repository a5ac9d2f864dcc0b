// The edit-robustness benchmark of edit_file (docs/tools/edit_file.md): a generated corpus of
// edit requests over real-looking source files, each with a perturbation models produce and the
// one right answer, run through `toolkit.invoke("edit_file", ...)` beside an exact-match-only
// baseline (one exact occurrence → replace; otherwise refuse).
//
//   node bench/edit_robustness.mjs             run 720 requests, print the table
//   node bench/edit_robustness.mjs --write     also write the table into bench/README.md
//   node bench/edit_robustness.mjs --count N   another corpus size (the test runs a small one)
//
// An outcome is `right` (the file is exactly the expected one, byte for byte), `refused` (an
// error, the file unchanged) or `wrong` (the file changed into anything else). For a request
// whose old_string occurs twice, also overlapping itself, the right answer is a refusal
// (`AMBIGUOUS`): editing either place is a guess.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAgentToolkit, createToolContext } from "agent-tools-native";

// ---- a seeded generator -------------------------------------------------------------------------

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Languages: how a file is indented and how a block opens and closes.
const LANGUAGES = [
  { ext: "js", unit: "  ", open: (h) => `${h} {`, close: "}", fn: (n) => `function ${n}(input, options)` },
  { ext: "ts", unit: "    ", open: (h) => `${h} {`, close: "}", fn: (n) => `export async function ${n}(input: Input): Promise<Output>` },
  { ext: "go", unit: "\t", open: (h) => `${h} {`, close: "}", fn: (n) => `func ${n}(ctx context.Context, in *Input) (*Output, error)` },
  { ext: "py", unit: "    ", open: (h) => `${h}:`, close: null, fn: (n) => `def ${n}(self, request, *args)` },
  { ext: "rs", unit: "    ", open: (h) => `${h} {`, close: "}", fn: (n) => `pub fn ${n}(&mut self, input: &Input) -> Result<Output>` },
  { ext: "cs", unit: "\t", open: (h) => `${h}`, close: "}", fn: (n) => `public Output ${n}(Input input)`, braceLine: true },
];

const WORDS = ["total", "count", "index", "buffer", "result", "offset", "limit", "cursor", "item", "value", "entry", "state"];
const CALLS = ["validate", "normalise", "flush", "record", "update", "publish", "resolve", "compute"];

/** A statement of `lang` (depth-independent text). */
function statement(lang, r, id) {
  const w = WORDS[Math.floor(r() * WORDS.length)];
  const c = CALLS[Math.floor(r() * CALLS.length)];
  const n = Math.floor(r() * 100);
  const forms = {
    js: [`const ${w}${id} = ${c}(input, ${n});`, `options.${w} = ${w}${id} + ${n};`, `${c}(${w}${id});`],
    ts: [`const ${w}${id}: number = await ${c}(input, ${n});`, `this.${w} += ${w}${id} * ${n};`, `${c}(${w}${id});`],
    go: [`${w}${id} := ${c}(in, ${n})`, `if ${w}${id} > ${n} {`, `${c}(ctx, ${w}${id})`],
    py: [`${w}${id} = self.${c}(request, ${n})`, `self.${w} += ${w}${id}`, `${c}(${w}${id})`],
    rs: [`let ${w}${id} = self.${c}(input, ${n})?;`, `self.${w} += ${w}${id};`, `${c}(&${w}${id});`],
    cs: [`var ${w}${id} = ${c}(input, ${n});`, `this.${w} += ${w}${id};`, `${c}(${w}${id});`],
  };
  const choices = forms[lang.ext].filter((s) => !s.endsWith("{")); // no unbalanced openers
  return choices[Math.floor(r() * choices.length)];
}

/**
 * A file as lines `{ depth, text }`: a few functions, each a header, a body with a nested
 * block, and a close. Identifiers carry the function's number, so blocks are unique.
 */
function generateFile(lang, r, fileNo) {
  const lines = [];
  const functions = 3 + Math.floor(r() * 4);
  for (let f = 0; f < functions; f++) {
    const id = `${fileNo}_${f}`;
    const header = lang.fn(`handle${CALLS[f % CALLS.length][0].toUpperCase()}${CALLS[f % CALLS.length].slice(1)}${id}`);
    if (lang.braceLine) {
      lines.push({ depth: 1, text: header }, { depth: 1, text: "{" });
    } else {
      lines.push({ depth: 1, text: lang.open(header) });
    }
    const body = 3 + Math.floor(r() * 4);
    for (let s = 0; s < body; s++) lines.push({ depth: 2, text: statement(lang, r, `${id}_${s}`) });
    const cond = `${WORDS[f % WORDS.length]}${id}_0 > ${f + 1}`;
    const opener = lang.ext === "py" ? `if ${cond}:` : lang.ext === "go" ? `if ${cond} {` : `if (${cond}) {`;
    lines.push({ depth: 2, text: opener });
    for (let s = 0; s < 2; s++) lines.push({ depth: 3, text: statement(lang, r, `${id}_n${s}`) });
    if (lang.close) lines.push({ depth: 2, text: lang.close });
    lines.push({ depth: 2, text: lang.ext === "py" ? `return ${WORDS[f % WORDS.length]}${id}_0` : `return ${WORDS[f % WORDS.length]}${id}_0;` });
    if (lang.close) lines.push({ depth: 1, text: lang.close });
    lines.push({ depth: 0, text: "" });
  }
  return lines;
}

/** Lines rendered with an indent unit, a line ending, optional trailing whitespace. */
function render(lines, { unit, eol, trailing = () => "" }) {
  return lines.map((l, i) => (l.text === "" ? "" : unit.repeat(l.depth) + l.text + trailing(i))).join(eol);
}

// ---- the corpus ----------------------------------------------------------------------------------

export const PERTURBATIONS = [
  "none",
  "crlf_file_lf_model",
  "tabs_file_spaces_model",
  "spaces_file_tabs_model",
  "wrong_depth",
  "trailing_whitespace",
  "crlf_and_indentation",
  "occurs_twice",
  "overlaps_itself",
];

/**
 * `count` requests: `{ file, content, old_string, new_string, expected, perturbation }`;
 * `expected` is the right content, or null when the right answer is a refusal.
 */
export function corpus(count, seed = 17) {
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < count; i++) {
    const perturbation = PERTURBATIONS[i % PERTURBATIONS.length];
    let lang = LANGUAGES[Math.floor(r() * LANGUAGES.length)];
    if (perturbation === "tabs_file_spaces_model" && lang.unit !== "\t") lang = LANGUAGES[2];
    if (perturbation === "spaces_file_tabs_model" && lang.unit === "\t") lang = LANGUAGES[1];
    const lines = generateFile(lang, r, i);
    // the region: 2–4 consecutive non-blank lines inside a function body
    const candidates = lines.map((l, k) => k).filter((k) => lines[k].depth >= 2);
    let start = candidates[Math.floor(r() * candidates.length)];
    let len = 2 + Math.floor(r() * 3);
    while (start + len > lines.length || lines.slice(start, start + len).some((l) => l.text === "" || l.depth < 1)) {
      start = candidates[Math.floor(r() * candidates.length)];
      len = 2;
    }
    const region = lines.slice(start, start + len);
    // the edit: change one line, insert a deeper line after it, or delete one
    const kind = Math.floor(r() * 3);
    const target = Math.floor(r() * len);
    const replacement = region.map((l) => ({ ...l }));
    if (kind === 0) replacement[target].text = replacement[target].text.replace(/\d+/, (d) => String(Number(d) + 1000));
    if (kind === 0 && replacement[target].text === region[target].text) replacement[target].text += " // changed";
    if (kind === 1) replacement.splice(target + 1, 0, { depth: region[target].depth + 1, text: `log("edit ${i}");` });
    if (kind === 2) replacement.splice(target, 1);
    let fileLines = lines;
    if (perturbation === "occurs_twice") {
      // the same block again further down (a copied snippet), at the same depth
      fileLines = [...lines, ...region.map((l) => ({ ...l })), { depth: 0, text: "" }];
    }
    // overlaps_itself: the region is two equal lines and the file has three of them in a row
    // (closing braces, repeated calls), so old_string is there twice, overlapping; in turn as
    // it is, with CRLF in the file, and with the model's indentation one level off
    const overlapStyle = perturbation === "overlaps_itself" ? Math.floor(i / PERTURBATIONS.length) % 3 : -1;
    if (perturbation === "overlaps_itself") {
      const line = region[0];
      fileLines = [...lines.slice(0, start), line, { ...line }, { ...line }, ...lines.slice(start + 1)];
      region.splice(0, region.length, line, { ...line });
    }
    const fileStyle = {
      unit: lang.unit,
      eol: perturbation.startsWith("crlf") || overlapStyle === 1 ? "\r\n" : "\n",
      trailing: perturbation === "trailing_whitespace" ? (k) => (k % 2 === 0 ? "  " : "") : undefined,
    };
    const modelUnit = {
      tabs_file_spaces_model: r() < 0.5 ? "    " : "  ",
      spaces_file_tabs_model: "\t",
      crlf_and_indentation: lang.unit === "\t" ? "    " : "\t",
    }[perturbation] ?? lang.unit;
    const shift = perturbation === "wrong_depth" ? (r() < 0.5 ? -1 : 1) : overlapStyle === 2 ? 1 : 0;
    const model = (ls) =>
      ls
        .map((l) => ({ ...l, depth: Math.max(0, l.depth + shift - (shift < 0 ? 0 : 0)) }))
        .map((l) => (l.text === "" ? "" : modelUnit.repeat(l.depth) + l.text))
        .join("\n");
    const content = render(fileLines, fileStyle) + fileStyle.eol;
    const old_string = model(region);
    const new_string = model(replacement);
    let expected = null;
    if (perturbation !== "occurs_twice" && perturbation !== "overlaps_itself") {
      // the right answer: the region's lines replaced by the new ones in the file's own style;
      // the replaced lines lose their trailing whitespace only where the stage had to ignore it
      const before = fileLines.slice(0, start);
      const after = fileLines.slice(start + len);
      const trailingBefore = (k) => fileStyle.trailing?.(k) ?? "";
      const renderAt = (ls, offset, keepTrailing) =>
        ls.map((l, k) => (l.text === "" ? "" : lang.unit.repeat(l.depth) + l.text + (keepTrailing ? trailingBefore(offset + k) : "")));
      const replaced = renderAt(replacement, start, false);
      // old_string literally in the file (no trailing blanks before its last line's end): the
      // exact stage replaces just that text, and the last line's trailing blanks stay
      if (region.slice(0, -1).every((_, k) => trailingBefore(start + k) === "")) {
        replaced[replaced.length - 1] += trailingBefore(start + len - 1);
      }
      const rendered = [...renderAt(before, 0, true), ...replaced, ...renderAt(after, start + len, true)];
      expected = rendered.join(fileStyle.eol) + fileStyle.eol;
    }
    out.push({ file: `f${i}.${lang.ext}`, content, old_string, new_string, expected, perturbation, depthShift: shift });
  }
  return out;
}

// ---- running it ------------------------------------------------------------------------------------

/** The exact-match-only baseline: one exact occurrence is replaced, anything else refused. */
function baseline(request) {
  const { content, old_string, new_string } = request;
  const first = content.indexOf(old_string);
  if (first < 0 || content.indexOf(old_string, first + 1) >= 0) return { after: content };
  return { after: content.slice(0, first) + new_string + content.slice(first + old_string.length) };
}

/** `right`, `refused` or `wrong`: the file must be exactly the expected content, byte for byte. */
function judge(request, after, errored) {
  if (after === request.content) return request.expected === null && errored ? "right" : "refused";
  if (request.expected === null) return "wrong";
  return after === request.expected ? "right" : "wrong";
}

/** Runs every request through edit_file and the baseline: per-request outcomes. */
export async function run(requests) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-edit-bench-")));
  try {
    const context = createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } });
    const toolkit = createAgentToolkit(context, { extraTools: ["edit_file"] });
    const results = [];
    for (const request of requests) {
      const file = path.join(dir, request.file);
      fs.writeFileSync(file, request.content);
      let stage = null;
      let code = null;
      try {
        const { content } = await toolkit.invoke("edit_file", { path: request.file, old_string: request.old_string, new_string: request.new_string });
        stage = content.stage;
      } catch (error) {
        code = error.code ?? "ERROR";
      }
      const after = fs.readFileSync(file, "utf8");
      fs.rmSync(file);
      const ours = judge(request, after, code !== null);
      const base = baseline(request);
      const theirs = judge(request, base.after, base.after === request.content);
      results.push({ perturbation: request.perturbation, ours, theirs, stage, code });
    }
    return results;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The report: per perturbation, right / wrong for both, and edit_file's stages. */
export function table(results) {
  const pct = (n, d) => (d === 0 ? "—" : `${((100 * n) / d).toFixed(1)}%`);
  const rows = [
    "| perturbation | requests | edit_file right | edit_file wrong | exact-only right | exact-only wrong | edit_file stages |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  const groups = [...PERTURBATIONS, "all"];
  for (const g of groups) {
    const rs = results.filter((x) => g === "all" || x.perturbation === g);
    const count = (who, what) => rs.filter((x) => x[who] === what).length;
    const stages = {};
    for (const x of rs) {
      const key = x.stage ?? x.code;
      stages[key] = (stages[key] ?? 0) + 1;
    }
    const stageText = Object.entries(stages)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    rows.push(
      `| ${g === "all" ? "**all**" : g} | ${rs.length} | ${pct(count("ours", "right"), rs.length)} | ${count("ours", "wrong")} | ${pct(count("theirs", "right"), rs.length)} | ${count("theirs", "wrong")} | ${stageText} |`,
    );
  }
  return rows.join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const at = process.argv.indexOf("--count");
  const count = at > 0 ? Number(process.argv[at + 1]) : 720;
  const results = await run(corpus(count));
  const text = table(results);
  console.log(text);
  if (process.argv.includes("--write")) {
    const readme = path.join(path.dirname(fileURLToPath(import.meta.url)), "README.md");
    const before = fs.readFileSync(readme, "utf8");
    const START = "<!-- edit-results:start -->";
    const END = "<!-- edit-results:end -->";
    const block = `${START}\n${count} requests, seed 17.\n\n${text}\n${END}`;
    const s = before.indexOf(START);
    const e = before.indexOf(END);
    if (s < 0 || e < s) throw new Error("bench/README.md: edit-results markers missing");
    fs.writeFileSync(readme, before.slice(0, s) + block + before.slice(e + END.length));
  }
}
