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
export function makeTree(root, files, { git = true } = {}) {
  const rand = prng(files);
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const exts = ["ts", "ts", "rs", "py", "md"];
  const written = [];
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `pkg${i % 10}`, `mod${Math.floor(i / 10) % 10}`, `part${Math.floor(i / 100)}`);
    fs.mkdirSync(dir, { recursive: true });
    const ext = exts[i % exts.length];
    const file = path.join(dir, i % 97 === 0 ? `blob${i}.bin` : `file${i}.${ext}`);
    fs.writeFileSync(file, i % 97 === 0 ? Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rand() * 256))) : sourceFile(rand, ext));
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
