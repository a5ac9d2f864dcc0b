// Deterministic benchmark fixtures (no network): a nested source tree at a given scale, a 1 MiB
// text file, a 50 000-line file and a 100-hunk unified diff against it.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

/** A small seeded PRNG (mulberry32): the same fixture on every machine. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["alpha", "beta", "gamma", "delta", "value", "result", "config", "handler", "buffer", "index", "count", "TODO", "parse", "render"];

function sourceLine(rand, ext, i) {
  const w = () => WORDS[Math.floor(rand() * WORDS.length)];
  switch (ext) {
    case "ts": return rand() < 0.3 ? `const ${w()}${i} = ${w()}(${Math.floor(rand() * 100)});` : `export function ${w()}${i}(x: number): number { return x + ${i}; }`;
    case "rs": return `fn ${w()}_${i}(x: u32) -> u32 { x + ${i} } // ${w()}`;
    case "py": return `def ${w()}_${i}(x):\n    return x + ${i}  # ${w()}`;
    default: return `Some ${w()} text about ${w()} and ${w()} number ${i}.`;
  }
}

/** ~10 KB of source text. */
function sourceFile(rand, ext) {
  const lines = [];
  let size = 0;
  for (let i = 0; size < 10_000; i++) {
    const line = sourceLine(rand, ext, i);
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n") + "\n";
}

/**
 * Writes `files` files under `root` (dirs of ~20 files, nested 3 deep), a .gitignore, a few
 * binaries, a git repository with one commit and some modified and untracked files.
 */
const EXTS = ["ts", "ts", "rs", "py", "md"];

/** Whether file `i` of a tree is one of its binaries. */
export const isBinary = (i) => i % 97 === 0;
/** The extension of text file `i` of a tree ("bin" for a binary). */
export const treeFileExt = (i) => (isBinary(i) ? "bin" : EXTS[i % EXTS.length]);
/** The path of file `i` of the tree at `root` (the layout makeTree writes). */
export function treeFilePath(root, i) {
  const dir = path.join(root, `pkg${i % 10}`, `mod${Math.floor(i / 10) % 10}`, `part${Math.floor(i / 100)}`);
  return path.join(dir, isBinary(i) ? `blob${i}.bin` : `file${i}.${treeFileExt(i)}`);
}

export function makeTree(root, files, { git = true } = {}) {
  const rand = prng(files);
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const written = [];
  for (let i = 0; i < files; i++) {
    const file = treeFilePath(root, i);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, isBinary(i) ? Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rand() * 256))) : sourceFile(rand, treeFileExt(i)));
    written.push(file);
  }
  fs.writeFileSync(path.join(root, ".gitignore"), "*.log\nbuild/\n");
  if (git) {
    const run = (...args) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
    run("init", "-q", "-b", "main");
    run("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "add", "-A");
    run("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "fixture");
    for (let i = 0; i < Math.min(50, written.length); i += 5) fs.appendFileSync(written[i], "// modified\n");
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(root, `untracked${i}.txt`), "new\n");
  }
  return written;
}

/** A 1 MiB text file of numbered lines. */
export function makeMiB(file) {
  const line = (i) => `line ${String(i).padStart(7, "0")} ${"x".repeat(50)}\n`;
  let text = "";
  for (let i = 0; text.length < 1024 * 1024 - 80; i++) text += line(i);
  fs.writeFileSync(file, text.padEnd(1024 * 1024, "y"));
}

/** A 50 000-line file and a unified diff with 100 hunks against it (made by git diff). */
export function makePatchCase(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const before = Array.from({ length: 50_000 }, (_, i) => `row ${i} ${"v".repeat(i % 40)}`);
  const after = [...before];
  for (let h = 0; h < 100; h++) after[h * 500 + 250] = `changed row ${h}`;
  fs.writeFileSync(path.join(dir, "big.txt"), before.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "big.new"), after.join("\n") + "\n");
  let diff = "";
  try {
    execFileSync("git", ["diff", "--no-index", "big.txt", "big.new"], { cwd: dir });
  } catch (error) {
    diff = error.stdout.toString(); // exit code 1 = files differ
  }
  const patch = diff.replace(/^diff --git .*\n/m, "").replace("--- a/big.txt", "--- a/big.txt").replace("+++ b/big.new", "+++ b/big.txt");
  fs.writeFileSync(path.join(dir, "big.patch"), patch);
  fs.rmSync(path.join(dir, "big.new"));
  return patch;
}

/**
 * The tree of `files` files at `root`, generated only when its stamp (`<root>.stamp`, next to
 * it, so no search sees it) is missing or from another generator version: for the 200 000-file
 * tree (about 2.4 GB on disk, a minute or two to write), which is made without git.
 */
export function ensureTree(root, files, options = {}) {
  const stamp = `${root}.stamp`;
  const want = JSON.stringify({ version: 1, files, git: options.git ?? true });
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === want && fs.existsSync(root)) return false;
  fs.rmSync(stamp, { force: true });
  makeTree(root, files, options);
  fs.writeFileSync(stamp, want);
  return true;
}

/**
 * Edits of a tree that can be undone: `edit(count, line)` appends `line(n)` to `count` random
 * text files (a seeded PRNG: the same files on every run) and records each file's size before
 * its first edit in a journal (`<root>.edits.json`); `restore()` truncates them back and removes
 * the journal. A journal left by a run that died is undone by `restoreTreeEdits(root)`.
 */
export function treeEditor(root, files, seed) {
  const rand = prng(seed);
  const journalFile = `${root}.edits.json`;
  const journal = fs.existsSync(journalFile) ? JSON.parse(fs.readFileSync(journalFile, "utf8")) : {};
  const appended = []; // [file index, line number n] of every line appended
  let n = 0;
  return {
    appended,
    edit(count, line) {
      const picked = [];
      while (picked.length < count) {
        const i = Math.floor(rand() * files);
        if (!isBinary(i)) picked.push(i);
      }
      for (const i of picked) {
        const file = treeFilePath(root, i);
        if (!(file in journal)) {
          journal[file] = fs.statSync(file).size;
          fs.writeFileSync(journalFile, JSON.stringify(journal));
        }
        n++;
        fs.appendFileSync(file, `${line(n)}\n`);
        appended.push([i, n]);
      }
      return picked;
    },
    restore: () => restoreTreeEdits(root),
  };
}

export function restoreTreeEdits(root) {
  const journalFile = `${root}.edits.json`;
  if (!fs.existsSync(journalFile)) return 0;
  const journal = JSON.parse(fs.readFileSync(journalFile, "utf8"));
  for (const [file, size] of Object.entries(journal)) fs.truncateSync(file, size);
  fs.rmSync(journalFile);
  return Object.keys(journal).length;
}
