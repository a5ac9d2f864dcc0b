// The workspace and the random edits of search_cache.test.mjs: a seeded PRNG, a generator of
// source text that plants the literals the queries look for, the initial workspace, and the
// edit operations (each one step of the differential test).
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

// ---- seeded PRNG -------------------------------------------------------------------------------

/** mulberry32: a small deterministic PRNG (no Math.random anywhere in the test). */
export class Rng {
  constructor(seed) {
    this.state = seed >>> 0;
  }
  next() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  int(n) {
    return Math.floor(this.next() * n);
  }
  /** An integer in [lo, hi]. */
  range(lo, hi) {
    return lo + this.int(hi - lo + 1);
  }
  pick(list) {
    return list[this.int(list.length)];
  }
  chance(p) {
    return this.next() < p;
  }
}

// ---- generated text ----------------------------------------------------------------------------

/**
 * Text that only case folding connects to the queries: the Kelvin sign (k under `iu`), long s
 * (s under `iu`), final sigma, capital sharp s, Dž/dž, µ/μ, é/É, dotted and dotless i.
 */
const FOLD_WORDS = ["\u212Aelvin", "KELVIN", "NEEDLE\u017F", "ΣΊΓΜΑ", "σίγμας", "STRA\u1E9EE", "straße", "\u01C5emal", "\u00B5sec", "\u03BCSEC", "HÉLLO WORLD", "İstanbul ıi"];
/** The words planted in generated text: what the test's queries look for. */
const WORDS = ["needle", "Needle", "NEEDLE", "foo", "fooo", "fo", "bar", "baz", "bax", "value7", "héllo", "HÉLLO", "日本", "naïve", "😀", "qux", "TODO", ...FOLD_WORDS];
const IDENTS = ["foo", "bar", "baz", "needle", "value3", "value42", "qux", "x"];

const TS_LINES = [
  (r) => `const value${r.int(100)} = "${r.pick(WORDS)}";`,
  (r) => `console.log(${r.pick(IDENTS)});`,
  (r) => `console.log("${r.pick(WORDS)}", value${r.int(20)});`,
  (r) => `${r.pick(IDENTS)}(${r.pick(IDENTS)});`,
  (r) => `foo(bar(${r.int(50)}));`,
  (r) => `// ${r.pick(WORDS)} ${r.pick(WORDS)}`,
  (r) => `export function f${r.int(100)}(a: number) { return baz(a) + ${r.int(9)}; }`,
  (r) => `let s${r.int(9)} = "héllo 日本 ${r.pick(WORDS)}";`,
  (r) => `console.log("${r.pick(FOLD_WORDS)} ${r.pick(FOLD_WORDS)}");`,
  () => "",
];
const JS_LINES = [
  (r) => `var value${r.int(100)} = '${r.pick(WORDS)}';`,
  (r) => `console.log(${r.pick(IDENTS)});`,
  (r) => `${r.pick(IDENTS)}(${r.pick(IDENTS)}, ${r.int(9)});`,
  (r) => `function g${r.int(100)}(a) { return bar(a); }`,
  (r) => `/* ${r.pick(WORDS)} */`,
];
const PY_LINES = [
  (r) => `def f${r.int(100)}(a):\n    print(${r.pick(IDENTS)})\n    return foo(a)`,
  (r) => `value${r.int(100)} = "${r.pick(WORDS)}"`,
  (r) => `print("${r.pick(WORDS)}")`,
  (r) => `${r.pick(IDENTS)}(${r.pick(IDENTS)})`,
  (r) => `# ${r.pick(WORDS)} ${r.pick(WORDS)}`,
];
const TEXT_LINES = [
  (r) => `# ${r.pick(WORDS)}`,
  (r) => `some ${r.pick(WORDS)} text with ${r.pick(WORDS)} and value${r.int(100)}`,
  (r) => `\`console.log(${r.pick(IDENTS)})\` in prose`,
  (r) => `${r.pick(FOLD_WORDS)} and ${r.pick(FOLD_WORDS)}`,
  () => "",
];

function linesFor(rel) {
  const ext = path.extname(rel);
  if (ext === ".ts" || ext === ".mts" || ext === ".tsx") return TS_LINES;
  if (ext === ".js" || ext === ".cjs") return JS_LINES;
  if (ext === ".py") return PY_LINES;
  return TEXT_LINES;
}

/** Text for a file named `rel` (its language chosen by extension), `lines` lines long. */
export function genText(rng, rel, lines = rng.range(1, 12)) {
  if (path.extname(rel) === ".html") return `<p>${rng.pick(WORDS)}</p>\n<script>\n${genText(rng, "s.js", lines)}</script>\n`;
  const gens = linesFor(rel);
  const out = [];
  for (let i = 0; i < lines; i++) out.push(rng.pick(gens)(rng));
  const eol = rng.chance(0.1) ? "\r\n" : "\n";
  return out.join(eol) + (rng.chance(0.85) ? eol : "");
}

/** An ASCII line of exactly `n` bytes that the queries see (needle, console.log, foo…). */
function asciiLine(rng, n) {
  const seeds = ["console.log(needle);", "foo(bar);", "needle = value9;", "NEEDLE baz fooo", "print(needle)"];
  let s = rng.pick(seeds);
  while (s.length < n) s += rng.pick([" ", " needle", " foo", " x"]);
  return s.slice(0, n);
}

/**
 * `buf` with the same byte length but different bytes: a whole non-empty line replaced by an
 * ASCII line of the same byte length (so UTF-8 stays valid), or one byte flipped between two
 * ASCII letters when no line qualifies. Returns null when `buf` is empty.
 */
export function sameSizeVariant(rng, buf) {
  if (buf.length === 0) return null;
  const starts = [0];
  for (let i = 0; i < buf.length; i++) if (buf[i] === 0x0a) starts.push(i + 1);
  const spans = [];
  for (const s of starts) {
    let e = s;
    while (e < buf.length && buf[e] !== 0x0a && buf[e] !== 0x0d) e++;
    if (e > s) spans.push([s, e]);
  }
  if (spans.length > 0) {
    for (let tries = 0; tries < 4; tries++) {
      const [s, e] = rng.pick(spans);
      const line = Buffer.from(asciiLine(rng, e - s));
      if (!line.equals(buf.subarray(s, e))) return Buffer.concat([buf.subarray(0, s), line, buf.subarray(e)]);
    }
  }
  const out = Buffer.from(buf);
  const i = rng.int(out.length);
  out[i] = out[i] === 0x6e ? 0x4e : 0x6e; // 'n' <-> 'N' (or anything -> 'n')
  return out;
}

// ---- the workspace -----------------------------------------------------------------------------

const BIG_LIMIT = 1024 * 1024; // regexp_search's per-file limit

/** A file just under (or over) regexp_search's 1 MiB limit, with a needle on its last line. */
export function bigText(delta) {
  const tail = "the last line has a needle\n";
  const size = BIG_LIMIT + delta;
  const filler = size - tail.length;
  const row = `${"filler value1 ".repeat(5).trimEnd()}\n`;
  const body = row.repeat(Math.floor(filler / row.length));
  return body + "x".repeat(filler - body.length) + tail;
}

/** Creates the initial workspace below `root` (and the canaries in `outside`). */
export function buildWorkspace(rng, root, outside) {
  const put = (rel, data) => {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, data);
  };
  // A .git directory makes ast_grep_search honour .gitignore (ripgrep's rule).
  fs.mkdirSync(path.join(root, ".git", "info"), { recursive: true });
  put(".git/info/exclude", "*.tmp\n");
  put(".git/config.ts", "console.log(needle); // never searched\n");
  put(".gitignore", "gen/\n*.log\nlib/sub/*.py\n");
  put(".env", "NEEDLE=1\nfoo=bar\n");
  put(".hidden/h.ts", "console.log(needle);\n");
  put(".hidden/cfg.py", "print(needle)\n");
  put("src/.dot.ts", "console.log(foo);\n");
  put("README.md", genText(rng, "README.md", 8));
  put("notes/guide.md", genText(rng, "x.md", 6));
  put("notes/api/ref.md", genText(rng, "x.md", 6));
  // ast_grep_search also searches <script> blocks of HTML files for JavaScript and TypeScript.
  put("notes/page.html", "<html><body>\n<script>\nconsole.log(needle);\nfoo(bar);\n</script>\n</body></html>\n");
  put("src/a.ts", "console.log(needle);\nconst value1 = \"héllo 日本\";\nfoo(bar(1));\n");
  put("src/b.ts", genText(rng, "b.ts", 10));
  put("src/c.js", genText(rng, "c.js", 8));
  put("src/é.ts", genText(rng, "e.ts", 5));
  put("src/Ünï.py", genText(rng, "u.py", 5));
  put("src/folds.ts", `console.log("${FOLD_WORDS.join(" ")}");\nconst lone = "\u{1F600}";\n`);
  put("src/crlf.ts", "console.log(needle);\r\nfoo(bar);\r\nlet s = \"x\";\r\n");
  put("src/bom.ts", "\uFEFFconsole.log(bom);\nneedle(1);\n");
  put("src/empty.ts", "");
  put("src/util/keep.ts", genText(rng, "k.ts", 6));
  put("src/util/deep/d.ts", genText(rng, "d.ts", 6));
  put("lib/x.py", genText(rng, "x.py", 6));
  put("lib/y.py", genText(rng, "y.py", 6));
  put("lib/sub/z.py", genText(rng, "z.py", 6));
  put("lib/sub/w.js", genText(rng, "w.js", 4));
  put("gen/g1.ts", "console.log(generated);\nneedle(2);\n");
  put("gen/g2.py", "print(generated)\n");
  put("app.log", "needle in a log line\nfoo bar baz\n");
  put("scratch.tmp", "console.log(needle) in a tmp file\n");
  put("bin.dat", Buffer.concat([Buffer.from("needle foo\n"), Buffer.from([0, 1, 2, 0]), Buffer.from("\nbar\n")]));
  put("src/nul.ts", Buffer.concat([Buffer.from("console.log(needle);\n"), Buffer.from([0]), Buffer.from("\n")]));
  put("latin1.txt", Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a])); // "needle caf\xe9\n"
  put("src/latin1.ts", Buffer.from("const naive = \"caf\xe9\";\nconsole.log(needle);\n", "latin1"));
  put("node_modules/pkg/index.js", "console.log(needle);\n");
  put("src/sub1/node_modules/n.ts", "console.log(needle);\n");
  put("dist/out.js", "console.log(needle);\n");
  const extra = rng.range(4, 8);
  const dirs = ["src", "src/util", "src/util/deep", "lib", "lib/sub", "src/sub1", "notes", "pkg/mod"];
  const exts = [".ts", ".ts", ".ts", ".js", ".py", ".py", ".md", ".txt"];
  for (let i = 0; i < extra; i++) {
    const rel = `${rng.pick(dirs)}/m${i}${rng.pick(exts)}`;
    put(rel, genText(rng, rel));
  }
  fs.mkdirSync(outside, { recursive: true });
  fs.writeFileSync(path.join(outside, "canary.ts"), "console.log(needle); // outside\n");
  fs.writeFileSync(path.join(outside, "canary.py"), "print(needle)\n");
}

// ---- reading the workspace ---------------------------------------------------------------------

/**
 * The workspace's entries by kind (lstat, no symlink followed; `special`: FIFOs), `.git` and
 * `big.md` left out; relative paths.
 */
export function scan(root) {
  const files = [];
  const dirs = [];
  const links = [];
  const special = [];
  const walk = (rel) => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (r === ".git" || r === "big.md") continue; // big.md: only OPS.bigFile touches it
      const st = fs.lstatSync(path.join(root, r));
      if (st.isSymbolicLink()) links.push(r);
      else if (st.isDirectory()) {
        dirs.push(r);
        walk(r);
      } else if (st.isFile()) files.push(r);
      else special.push(r);
    }
  };
  walk("");
  return { files, dirs, links, special };
}

// ---- timestamps ----------------------------------------------------------------------------------

/**
 * How old (ctime) a file must be before the cache keeps it: files changed within the racy window
 * (2 s: README "Warm searches") are read again on every call, so an edit of a file that changed
 * recently never meets a cached entry. The test ages its workspaces past this before searching
 * and prefers aged files for its racy edits, so those edits really hit cached entries.
 */
export const AGED_MS = 2600;

/** Whether `file` changed (ctime) long enough ago for the cache to keep it. */
export function aged(file) {
  return fs.lstatSync(file).ctimeMs < Date.now() - AGED_MS;
}

/** The whole-second mtime of `file`, or null when it has a fraction (utimes cannot restore one exactly). */
function wholeSecondMtime(file) {
  const ns = fs.lstatSync(file, { bigint: true }).mtimeNs;
  return ns % 1_000_000_000n === 0n ? Number(ns / 1_000_000_000n) : null;
}

/** Sets every file's and directory's mtime below `root` (itself included) to whole seconds. */
export function wholeSecondMtimes(root, t = Math.floor(Date.now() / 1000) - 3600) {
  const walk = (dir) => {
    for (const name of fs.readdirSync(dir)) {
      const p = path.join(dir, name);
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) continue;
      if (st.isDirectory()) walk(p);
      fs.utimesSync(p, t, t);
    }
  };
  walk(root);
  fs.utimesSync(root, t, t);
}

// ---- edit operations ---------------------------------------------------------------------------

/** An integer second in the past, for mtimes that can be restored exactly. */
function pastSecond(rng) {
  return Math.floor(Date.now() / 1000) - rng.range(100, 100_000);
}

/** Files fit for a racy rewrite: non-empty, small, preferably aged with a whole-second mtime. */
function racyCandidates(root, files) {
  const usable = files.filter((f) => fs.statSync(path.join(root, f)).size > 0);
  const cached = usable.filter((f) => aged(path.join(root, f)) && wholeSecondMtime(path.join(root, f)) !== null);
  return { usable, cached };
}

/** Whether a directory on the way to `rel` (below `root`) is a symlink: nothing is created through one. */
function throughSymlink(root, rel) {
  let dir = path.dirname(rel);
  while (dir !== "." && dir !== "") {
    const p = path.join(root, dir);
    if (fs.existsSync(p) && fs.lstatSync(p).isSymbolicLink()) return true;
    dir = path.dirname(dir);
  }
  return false;
}

const NEW_DIRS = ["src", "src/util", "lib", "notes", "src/new", "newdir/deeper", ".cache"];
const NEW_EXTS = [".ts", ".ts", ".js", ".py", ".md", ".txt", ".log", ".html"];
const IGNORE_POOL = ["gen/", "*.py", "src/util/", "*.md", "!src/util/keep.ts", "m1*.ts", "lib/sub", "**/deep/**", "*.js", "src/a.ts"];

/**
 * The edit operations. Each takes `(env)` — `{ rng, root, outside, check }`, where
 * `check(label, mode)` runs the queries on the toolkits and asserts they agree (`mode` "core":
 * only the two core queries, on the cold and the warm toolkit) — and returns a description of
 * what it did, or null when it found nothing to do (the caller then picks another).
 */
export const OPS = {
  /** New content of a different size. */
  modify({ rng, root }) {
    const { files } = scan(root);
    if (files.length === 0) return null;
    const rel = rng.pick(files);
    const file = path.join(root, rel);
    const old = fs.readFileSync(file);
    let text = genText(rng, rel);
    if (Buffer.byteLength(text) === old.length) text += "needle\n";
    fs.writeFileSync(file, text);
    return `modify ${rel} (${old.length} -> ${Buffer.byteLength(text)} bytes)`;
  },

  /**
   * Searched (an aged file: now cached), then rewritten with the same size at once (same second,
   * same size); or written, searched and rewritten at once.
   */
  async racySameSecond({ rng, root, check }) {
    const { files } = scan(root);
    const { usable, cached } = racyCandidates(root, files);
    const fresh = cached.length === 0 || rng.chance(0.3);
    const pool = fresh ? files : cached;
    if (pool.length === 0 || usable.length === 0) return null;
    const rel = rng.pick(pool);
    const file = path.join(root, rel);
    if (fresh) fs.writeFileSync(file, genText(rng, rel, rng.range(2, 6)));
    await check(`racySameSecond ${rel}: searched${fresh ? " after a first write" : " (aged file)"}`);
    const next = sameSizeVariant(rng, fs.readFileSync(file));
    if (next === null) return null;
    fs.writeFileSync(file, next);
    return `racySameSecond ${rel}: rewritten with ${next.length} bytes (same size) right after a search${fresh ? "" : " of the aged file"}`;
  },

  /**
   * An aged file with a whole-second mtime searched (so cached), rewritten with the same size,
   * its mtime restored exactly with utimes: only ctime (and, when renamed over, the inode) tell.
   */
  async racyRestoredMtime({ rng, root, check }) {
    const { files } = scan(root);
    const { usable, cached } = racyCandidates(root, files);
    if (usable.length === 0) return null;
    const rel = rng.pick(cached.length > 0 ? cached : usable);
    const file = path.join(root, rel);
    let t = wholeSecondMtime(file);
    if (t === null) {
      t = pastSecond(rng);
      fs.utimesSync(file, t, t);
    }
    await check(`racyRestoredMtime ${rel}: searched with mtime ${t}${aged(file) ? " (aged file)" : ""}`);
    const next = sameSizeVariant(rng, fs.readFileSync(file));
    // In place (same inode), or as editors and write_file save: a new file renamed over it.
    const replace = rng.chance(0.4);
    if (replace) {
      const tmp = `${file}.~${rng.int(1000)}`;
      fs.writeFileSync(tmp, next);
      fs.utimesSync(tmp, t, t);
      fs.renameSync(tmp, file);
    } else {
      fs.writeFileSync(file, next);
    }
    fs.utimesSync(file, t, t);
    return `racyRestoredMtime ${rel}: same-size rewrite${replace ? " (renamed over it)" : ""}, mtime restored to ${t}`;
  },

  /**
   * A directory's listing changed behind a restored mtime: in an aged directory with a
   * whole-second mtime (searched, so its listing may be cached), a file is renamed, added,
   * removed, or swapped for a directory or a symlink of the same name; then the directory's mtime
   * is set back exactly. Only its ctime tells.
   */
  async racyDirChange({ rng, root, check }) {
    const { files } = scan(root);
    if (files.length === 0) return null;
    const usable = files.filter((f) => !throughSymlink(root, f));
    const inAged = usable.filter((f) => {
      const dir = path.dirname(path.join(root, f));
      return aged(dir) && wholeSecondMtime(dir) !== null;
    });
    if (usable.length === 0) return null;
    const rel = rng.pick(inAged.length > 0 ? inAged : usable);
    const dir = path.dirname(path.join(root, rel));
    let t = wholeSecondMtime(dir);
    if (t === null) {
      t = pastSecond(rng);
      fs.utimesSync(dir, t, t);
    }
    await check(`racyDirChange ${rel}: searched with directory mtime ${t}${aged(dir) ? " (aged directory)" : ""}`);
    const file = path.join(root, rel);
    const kind = rng.pick(["rename", "add", "remove", "toDir", "toSymlink"]);
    let what;
    if (kind === "rename") {
      const to = path.join(path.dirname(rel), `r${rng.int(1000)}${rng.pick(NEW_EXTS)}`);
      if (fs.existsSync(path.join(root, to))) return null;
      fs.renameSync(file, path.join(root, to));
      what = `renamed to ${to}`;
    } else if (kind === "add") {
      const to = path.join(path.dirname(rel), `a${rng.int(1000)}${rng.pick(NEW_EXTS)}`);
      if (fs.existsSync(path.join(root, to))) return null;
      fs.writeFileSync(path.join(root, to), "console.log(needle); // added behind a restored directory mtime\nprint(needle)\n");
      what = `${to} added next to it`;
    } else if (kind === "remove") {
      fs.rmSync(file);
      what = "removed";
    } else if (kind === "toDir") {
      fs.rmSync(file);
      fs.mkdirSync(file);
      fs.writeFileSync(path.join(file, "inside.ts"), "console.log(needle); // a file turned directory\n");
      what = "replaced by a directory";
    } else {
      fs.rmSync(file);
      fs.symlinkSync(path.relative(path.dirname(file), path.join(root, rng.pick(files.filter((f) => f !== rel)) ?? "README.md")), file);
      what = "replaced by a symlink";
    }
    fs.utimesSync(dir, t, t);
    return `racyDirChange ${rel}: ${what}, directory mtime restored to ${t}`;
  },

  /** A FIFO (never read: neither tool opens special files) added or removed. */
  fifo({ rng, root }) {
    const { dirs } = scan(root);
    const rel = path.join(rng.pick(["", ...dirs]), `pipe${rng.int(3)}.fifo`);
    const file = path.join(root, rel);
    if (throughSymlink(root, rel)) return null;
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (st) {
      fs.rmSync(file);
      return `fifo ${rel}: removed`;
    }
    execFileSync("mkfifo", [file]);
    return `fifo ${rel}: created`;
  },

  append({ rng, root }) {
    const { files } = scan(root);
    if (files.length === 0) return null;
    const rel = rng.pick(files);
    const line = `${rng.pick(linesFor(rel))(rng)} // needle ${rng.pick(WORDS)}\n`;
    fs.appendFileSync(path.join(root, rel), line);
    return `append to ${rel}: ${JSON.stringify(line)}`;
  },

  add({ rng, root }) {
    const rel = `${rng.pick(NEW_DIRS)}/n${rng.int(1000)}${rng.pick(NEW_EXTS)}`;
    const file = path.join(root, rel);
    if (fs.existsSync(file) || throughSymlink(root, rel)) return null;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
    } catch {
      return null; // a parent is a file
    }
    fs.writeFileSync(file, genText(rng, rel));
    return `add ${rel}`;
  },

  remove({ rng, root }) {
    const { files, links, special } = scan(root);
    const all = [...files, ...links, ...special];
    if (all.length === 0) return null;
    const rel = rng.pick(all);
    fs.rmSync(path.join(root, rel));
    return `remove ${rel}`;
  },

  renameFile({ rng, root }) {
    const { files, dirs } = scan(root);
    if (files.length === 0) return null;
    const rel = rng.pick(files);
    const toDir = rng.chance(0.5) ? path.dirname(rel) : rng.pick(["", ...dirs]);
    const to = path.join(toDir, `${path.basename(rel, path.extname(rel))}_${rng.int(100)}${rng.pick(NEW_EXTS)}`);
    if (fs.existsSync(path.join(root, to))) return null;
    fs.renameSync(path.join(root, rel), path.join(root, to));
    return `rename ${rel} -> ${to}`;
  },

  renameDir({ rng, root }) {
    const { dirs } = scan(root);
    if (dirs.length === 0) return null;
    const rel = rng.pick(dirs);
    const to = path.join(path.dirname(rel), `${rng.pick(["d", "gen", "deep", ".h", "node_modules", "x"])}${rng.int(10)}`);
    if (fs.existsSync(path.join(root, to))) return null;
    fs.renameSync(path.join(root, rel), path.join(root, to));
    return `renameDir ${rel} -> ${to}`;
  },

  /** A directory replaced by a symlink to another directory inside, or to one outside. */
  dirToSymlink({ rng, root, outside }) {
    const { dirs } = scan(root);
    if (dirs.length === 0) return null;
    const rel = rng.pick(dirs);
    const inside = dirs.filter((d) => d !== rel && !d.startsWith(`${rel}/`) && !rel.startsWith(`${d}/`));
    const toOutside = rng.chance(0.4) || inside.length === 0;
    const target = toOutside ? outside : path.relative(path.dirname(path.join(root, rel)), path.join(root, rng.pick(inside)));
    fs.rmSync(path.join(root, rel), { recursive: true });
    fs.symlinkSync(target, path.join(root, rel));
    return `dirToSymlink ${rel} -> ${target}`;
  },

  /** A file replaced by a symlink to another file inside, or to one outside. */
  fileToSymlink({ rng, root, outside }) {
    const { files } = scan(root);
    if (files.length < 2) return null;
    const rel = rng.pick(files);
    const target = rng.chance(0.3)
      ? path.join(outside, "canary.ts")
      : path.relative(path.dirname(path.join(root, rel)), path.join(root, rng.pick(files.filter((f) => f !== rel))));
    fs.rmSync(path.join(root, rel));
    fs.symlinkSync(target, path.join(root, rel));
    return `fileToSymlink ${rel} -> ${target}`;
  },

  /** A symlink replaced by a real file or directory of the same name. */
  unlink({ rng, root }) {
    const { links } = scan(root);
    if (links.length === 0) return null;
    const rel = rng.pick(links);
    const file = path.join(root, rel);
    fs.rmSync(file);
    if (rng.chance(0.5)) {
      fs.mkdirSync(file);
      fs.writeFileSync(path.join(file, "back.ts"), "console.log(needle); // back\n");
      return `unlink ${rel}: now a directory`;
    }
    fs.writeFileSync(file, genText(rng, `${rel}.ts`));
    return `unlink ${rel}: now a file`;
  },

  /** A file replaced by a directory of the same name, or a directory by a file. */
  swapKind({ rng, root }) {
    const { files, dirs } = scan(root);
    if (rng.chance(0.5) && files.length > 0) {
      const rel = rng.pick(files);
      fs.rmSync(path.join(root, rel));
      fs.mkdirSync(path.join(root, rel));
      fs.writeFileSync(path.join(root, rel, "inner.ts"), "console.log(needle); // inner\n");
      return `swapKind ${rel}: file -> directory`;
    }
    if (dirs.length === 0) return null;
    const rel = rng.pick(dirs);
    fs.rmSync(path.join(root, rel), { recursive: true });
    fs.writeFileSync(path.join(root, rel), "console.log(needle); // was a directory\n");
    return `swapKind ${rel}: directory -> file`;
  },

  /** Adds or removes a pattern of the root .gitignore, a nested one, .ignore or .git/info/exclude. */
  ignoreFiles({ rng, root }) {
    const { dirs } = scan(root);
    const which = rng.pick([".gitignore", ".gitignore", ".ignore", ".git/info/exclude", "nested"]);
    const rel = which === "nested" ? `${rng.pick(dirs.length ? dirs : ["src"])}/.gitignore` : which;
    const file = path.join(root, rel);
    if (!fs.existsSync(path.dirname(file)) || fs.lstatSync(path.dirname(file)).isSymbolicLink()) return null;
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (st && !st.isFile()) return null; // a symlink (maybe dangling) or a directory
    const old = st ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
    let lines;
    if (old.length > 0 && rng.chance(0.45)) {
      const drop = rng.pick(old);
      lines = old.filter((l) => l !== drop);
    } else {
      lines = [...old, rng.pick(which === "nested" ? ["*.ts", "x*", "m*", "*.py", "!keep.ts"] : IGNORE_POOL)];
    }
    if (lines.length === 0 && rng.chance(0.5)) {
      fs.rmSync(file, { force: true });
      return `ignoreFiles ${rel}: removed`;
    }
    fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(""));
    return `ignoreFiles ${rel}: ${JSON.stringify(lines)}`;
  },

  /** Removes or recreates .git: .gitignore applies to ast_grep_search only inside a repository. */
  toggleGit({ root }) {
    const git = path.join(root, ".git");
    if (fs.existsSync(git)) {
      fs.rmSync(git, { recursive: true });
      return "toggleGit: .git removed";
    }
    fs.mkdirSync(path.join(git, "info"), { recursive: true });
    fs.writeFileSync(path.join(git, "info", "exclude"), "*.tmp\n");
    return "toggleGit: .git created";
  },

  hidden({ rng, root }) {
    const { files, dirs } = scan(root);
    const hidden = files.filter((f) => f.split("/").some((p) => p.startsWith(".") && p !== ".gitignore" && p !== ".ignore"));
    if (hidden.length > 0 && rng.chance(0.4)) {
      const rel = rng.pick(hidden);
      fs.rmSync(path.join(root, rel));
      return `hidden: removed ${rel}`;
    }
    const dir = rng.chance(0.3) ? ".hidden2" : rng.pick(["", ...dirs]);
    const rel = path.join(dir, `.h${rng.int(100)}${rng.pick([".ts", ".py", ".md"])}`);
    const file = path.join(root, rel);
    if (throughSymlink(root, rel)) return null;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
    } catch {
      return null;
    }
    if (fs.existsSync(file)) return null;
    fs.writeFileSync(file, `console.log(needle);\nprint(needle)\n${genText(rng, rel, 2)}`);
    return `hidden: added ${rel}`;
  },

  /** A NUL byte inserted into a text file, or every NUL removed from a file that has one. */
  binary(step) {
    const afterFirstLine = (buf) => (buf.indexOf(0x0a) >= 0 && step.rng.chance(0.7) ? buf.indexOf(0x0a) + 1 : step.rng.int(buf.length + 1));
    return toggleByte(step, "binary", 0, [0], afterFirstLine);
  },

  /** A 0xFF byte (never valid UTF-8) inserted into a text file, or removed again. */
  nonUtf8(step) {
    const beforeLastBreak = (buf) => (buf.lastIndexOf(0x0a) > 0 ? buf.lastIndexOf(0x0a) : buf.length);
    return toggleByte(step, "nonUtf8", 0xff, [0x63, 0x61, 0x66, 0xff], beforeLastBreak);
  },

  /** A file emptied, or an empty file filled. */
  emptyOrFill({ rng, root }) {
    const { files } = scan(root);
    const empty = files.filter((f) => fs.statSync(path.join(root, f)).size === 0);
    if (empty.length > 0 && rng.chance(0.5)) {
      const rel = rng.pick(empty);
      fs.writeFileSync(path.join(root, rel), genText(rng, rel));
      return `emptyOrFill: filled ${rel}`;
    }
    if (files.length === 0) return null;
    const rel = rng.pick(files);
    fs.writeFileSync(path.join(root, rel), "");
    return `emptyOrFill: emptied ${rel}`;
  },

  /**
   * big.md written just under or exactly at regexp_search's 1 MiB limit, then just over it (or
   * the other way round), then removed; light checks in between (every regexp_search reads it).
   */
  async bigFile({ rng, root, check }) {
    const file = path.join(root, "big.md");
    if (fs.lstatSync(file, { throwIfNoEntry: false })) return null;
    const under = rng.pick([-1, 0, -300]);
    const over = rng.pick([1, 7]);
    const [first, second] = rng.chance(0.5) ? [under, over] : [over, under];
    const label = (d) => `1 MiB ${d >= 0 ? "+" : ""}${d} bytes`;
    fs.writeFileSync(file, bigText(first));
    await check(`bigFile: big.md is ${label(first)}`, "core");
    fs.writeFileSync(file, bigText(second));
    await check(`bigFile: big.md is ${label(second)}`, "core");
    fs.rmSync(file);
    return `bigFile: big.md written with ${label(first)}, then ${label(second)}, then removed`;
  },

  /**
   * A hard link to a workspace file made outside the workspace; later (when links exist), a
   * same-size rewrite through one with its mtime restored: only the inode tells.
   */
  hardLinkOutside({ rng, root, outside }) {
    const links = path.join(outside, "links");
    fs.mkdirSync(links, { recursive: true });
    const existing = fs.readdirSync(links);
    if (existing.length > 0 && rng.chance(0.6)) {
      const link = path.join(links, rng.pick(existing));
      const next = sameSizeVariant(rng, fs.readFileSync(link));
      if (next === null) return null;
      const { atime, mtime } = fs.statSync(link);
      fs.writeFileSync(link, next);
      fs.utimesSync(link, atime, mtime);
      return `hardLinkOutside: rewritten through ${path.basename(link)} (same size, mtime restored)`;
    }
    const { files } = scan(root);
    if (files.length === 0) return null;
    const rel = rng.pick(files);
    const name = `link${rng.int(1_000_000)}`;
    fs.linkSync(path.join(root, rel), path.join(links, name));
    return `hardLinkOutside: ${rel} linked from outside as ${name}`;
  },

  /** Only the timestamps change: results must not. */
  touch({ rng, root }) {
    const { files } = scan(root);
    if (files.length === 0) return null;
    const rel = rng.pick(files);
    const t = rng.chance(0.5) ? pastSecond(rng) : Date.now() / 1000 + rng.range(1, 1000);
    fs.utimesSync(path.join(root, rel), t, t);
    return `touch ${rel} (${t})`;
  },
};

/** Relative weights of the operations in a random sequence. */
export const WEIGHTS = {
  modify: 6,
  racySameSecond: 4,
  racyRestoredMtime: 4,
  racyDirChange: 4,
  fifo: 1,
  append: 4,
  add: 3,
  remove: 2,
  renameFile: 3,
  renameDir: 2,
  dirToSymlink: 2,
  fileToSymlink: 2,
  unlink: 2,
  swapKind: 1,
  ignoreFiles: 4,
  toggleGit: 1,
  hidden: 2,
  binary: 3,
  nonUtf8: 3,
  emptyOrFill: 2,
  bigFile: 1,
  touch: 1,
  hardLinkOutside: 3,
};

/** A random operation name, by WEIGHTS. */
export function pickOp(rng) {
  const names = Object.keys(WEIGHTS);
  let n = rng.int(names.reduce((s, k) => s + WEIGHTS[k], 0));
  for (const k of names) {
    n -= WEIGHTS[k];
    if (n < 0) return k;
  }
  return names[names.length - 1];
}

/**
 * Half the time (when some file has one) every `byte` is removed from a file; otherwise `inserted`
 * goes into a file without it, at `at(buffer)`. Returns what was done, or null.
 */
function toggleByte({ rng, root }, name, byte, inserted, at) {
  const { files } = scan(root);
  const having = files.filter((f) => fs.readFileSync(path.join(root, f)).includes(byte));
  if (having.length > 0 && rng.chance(0.5)) {
    const rel = rng.pick(having);
    const buf = fs.readFileSync(path.join(root, rel));
    fs.writeFileSync(path.join(root, rel), Buffer.from(buf.filter((b) => b !== byte)));
    return `${name}: byte ${byte} removed from ${rel}`;
  }
  const plain = files.filter((f) => !having.includes(f));
  if (plain.length === 0) return null;
  const rel = rng.pick(plain);
  const buf = fs.readFileSync(path.join(root, rel));
  const pos = at(buf);
  fs.writeFileSync(path.join(root, rel), Buffer.concat([buf.subarray(0, pos), Buffer.from(inserted), buf.subarray(pos)]));
  return `${name}: byte ${byte} inserted into ${rel} at ${pos}`;
}
