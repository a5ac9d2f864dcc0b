//! Oracle test: the in-process `git apply` against the real one. Hundreds of random files and
//! edits (inserts, deletions, replacements, hunks at both ends, missing final newlines, CRLF,
//! trailing whitespace and space-before-tab on added lines, new blank lines at the end,
//! multi-file patches, creations and deletions) are turned into patches by
//! `git diff --no-index`, applied to exact, shifted, whitespace-damaged and CRLF-flipped copies,
//! and also mutated and truncated. Every case must give the same exit code, the same stderr
//! and the same resulting bytes as `git apply --whitespace=fix --include <path> -`.
//! Deterministic (a fixed-seed LCG); needs `git` on PATH.

// Unix only: it compares execute bits (POSIX modes) with git's and diffs with GNU `diff`.
#![cfg(unix)]

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use agent_tools_gitapply::{apply, Effect, Target};

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Few distinct lines, so that contexts repeat and the offset search has choices.
const LINES: &[&str] = &[
    "",
    "a",
    "b",
    "c",
    "x = 1;",
    "y = 2;",
    "  indented",
    "\tfoo();",
    "}",
    "{",
    "return x;",
    "if (a) {",
    "\t\tdeep",
    "// comment",
    "z",
    "end",
    "  ",
    "b  ",
    " \tmixed",
    "tail\t",
];

const TARGETS: &[&str] = &[
    "f.txt",
    "src/main.ts",
    "a/b/c.txt",
    "dir with space/x.txt",
    "é.txt",
];

/// `min` to `min + spread - 1` random lines.
fn random_lines(rng: &mut Lcg, min: usize, spread: usize) -> Vec<String> {
    let n = min + rng.below(spread);
    (0..n).map(|_| rng.pick(LINES).to_string()).collect()
}

#[derive(Clone, Debug)]
struct Text {
    lines: Vec<String>,
    crlf: bool,
    final_newline: bool,
}

impl Text {
    fn bytes(&self) -> Vec<u8> {
        let eol = if self.crlf { "\r\n" } else { "\n" };
        let mut s = self.lines.join(eol);
        if self.final_newline && !self.lines.is_empty() {
            s.push_str(eol);
        }
        s.into_bytes()
    }
}

/// Random edits: inserts, deletions and replacements anywhere, including both ends.
fn edit(rng: &mut Lcg, text: &Text) -> Text {
    let mut lines = text.lines.clone();
    for _ in 0..1 + rng.below(4) {
        let at = match rng.below(4) {
            0 => 0,
            1 => lines.len(),
            _ => rng.below(lines.len() + 1),
        };
        match rng.below(3) {
            0 => {
                let new = random_lines(rng, 1, 3);
                lines.splice(at..at, new);
            }
            1 if at < lines.len() => {
                let end = (at + 1 + rng.below(3)).min(lines.len());
                lines.drain(at..end);
            }
            _ if at < lines.len() => lines[at] = rng.pick(LINES).to_string(),
            _ => lines.push(rng.pick(LINES).to_string()),
        }
    }
    if rng.chance(15) {
        lines.extend(
            ["".to_string(), "".to_string()]
                .into_iter()
                .take(1 + rng.below(2)),
        );
    }
    Text {
        lines,
        crlf: text.crlf,
        final_newline: if rng.chance(15) {
            !text.final_newline
        } else {
            text.final_newline
        },
    }
}

/// The file the patch is applied to: the original, or a shifted / whitespace-damaged /
/// line-ending-flipped copy of it.
fn drift(rng: &mut Lcg, text: &Text) -> Text {
    let mut t = text.clone();
    match rng.below(10) {
        0 | 1 => {
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(t.lines.len() + 1);
                let new = random_lines(rng, 1, 2);
                t.lines.splice(at..at, new);
            }
        }
        2 if !t.lines.is_empty() => {
            let at = rng.below(t.lines.len());
            t.lines.remove(at);
        }
        3 => {
            for line in t.lines.iter_mut() {
                if rng.chance(30) {
                    if line.ends_with(' ') {
                        *line = line.trim_end().to_string();
                    } else {
                        line.push_str("  ");
                    }
                }
            }
        }
        4 if rng.chance(30) => t.crlf = !t.crlf,
        _ => {}
    }
    t
}

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn git(dir: &Path, home: &Path, args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", home)
        .env("LC_ALL", "C")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git must be installed");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Rewrites `OLD/`/`NEW/` out of the header lines of a `git diff --no-index OLD NEW`.
fn strip_side_dirs(patch: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(patch);
    let mut out = String::new();
    let mut in_header = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("diff --git ") {
            in_header = true;
        } else if line.starts_with("@@ ") {
            in_header = false;
        }
        if in_header {
            out.push_str(&line.replace("OLD/", "").replace("NEW/", ""));
        } else {
            out.push_str(line);
        }
    }
    out.into_bytes()
}

struct Case {
    rel: String,
    patch: Vec<u8>,
    base: Vec<u8>,
    p0: bool,
}

/// Mutations that should make a patch fail or break: a changed context/removed line, a
/// truncation, a lost final newline.
fn mutate(rng: &mut Lcg, patch: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(patch).into_owned();
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    match rng.below(4) {
        0 | 1 => {
            let candidates: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].starts_with(' ') || lines[i].starts_with('-'))
                .filter(|&i| !lines[i].starts_with("--- "))
                .collect();
            if !candidates.is_empty() {
                let i = *rng.pick(&candidates);
                let keep = lines[i].ends_with('\n');
                let mut body = lines[i].trim_end_matches('\n').to_string();
                body.push_str("MUTATED");
                if keep {
                    body.push('\n');
                }
                lines[i] = body;
            }
            lines.concat().into_bytes()
        }
        2 => {
            let cut = rng.below(patch.len() + 1);
            patch[..cut].to_vec()
        }
        _ => {
            let mut p = patch.to_vec();
            while p.last() == Some(&b'\n') {
                p.pop();
            }
            p
        }
    }
}

/// Turns a `git diff` into a traditional patch (no `diff --git` extended header lines).
fn traditional(patch: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(patch);
    let extended = [
        "diff --git ",
        "index ",
        "new file mode ",
        "deleted file mode ",
        "old mode ",
        "new mode ",
    ];
    text.split_inclusive('\n')
        .filter(|line| !extended.iter().any(|p| line.starts_with(p)))
        .collect::<String>()
        .into_bytes()
}

/// Inserts lines that are no part of any section (as in a mail) before the first section and
/// between sections.
fn add_garbage(rng: &mut Lcg, patch: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(patch);
    let mut out = String::from("From: someone\nSubject: [PATCH] change\n\n");
    for line in text.split_inclusive('\n') {
        if line.starts_with("diff ") && rng.chance(50) {
            out.push_str("some words between sections\n");
        }
        out.push_str(line);
    }
    out.push_str("-- \n2.47.3\n");
    out.into_bytes()
}

/// One `OLD`/`NEW` tree pair, diffed by git (or GNU diff) into a patch.
fn diff_trees(
    rng: &mut Lcg,
    dir: &Path,
    tmp: &Path,
    rel: &str,
    old: &Text,
    new: &Text,
    step: usize,
) -> (Vec<u8>, bool) {
    let dir = dir.join(format!("step{step}"));
    let (old_dir, new_dir) = (dir.join("OLD"), dir.join("NEW"));
    fs::create_dir_all(&old_dir).unwrap();
    fs::create_dir_all(&new_dir).unwrap();
    match rng.below(12) {
        0 => write(&new_dir.join(rel), &new.bytes()), // creation of the target
        1 => write(&old_dir.join(rel), &old.bytes()), // deletion of the target
        _ => {
            write(&old_dir.join(rel), &old.bytes());
            write(&new_dir.join(rel), &new.bytes());
            if rng.chance(8) {
                let f = new_dir.join(rel);
                fs::set_permissions(&f, fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
    }
    // other files in the same patch, before and after the target in path order
    for other in ["0-first.txt", "zz/last.txt", "src/other.ts"] {
        if rng.chance(35) {
            let a = Text {
                lines: random_lines(rng, 0, 8),
                crlf: false,
                final_newline: true,
            };
            let b = edit(rng, &a);
            write(&old_dir.join(other), &a.bytes());
            write(&new_dir.join(other), &b.bytes());
        }
    }
    let context = *rng.pick(&[1usize, 2, 3, 3, 3, 3, 5, 0]);
    let unified = format!("-U{context}");
    if rng.chance(15) {
        // GNU diff: traditional headers with timestamps (epoch ones for creations/deletions)
        let out = Command::new("diff")
            .args(["-ruN", unified.as_str(), "OLD", "NEW"])
            .current_dir(&dir)
            .output()
            .expect("GNU diff must be installed");
        return (out.stdout, false);
    }
    let p0 = rng.chance(20);
    let mut args = vec!["diff", "--no-index", unified.as_str()];
    if p0 {
        args.push("--no-prefix");
    }
    args.extend(["OLD", "NEW"]);
    let (_, out, _) = git(&dir, tmp, &args, b"");
    let mut patch = strip_side_dirs(&out);
    if rng.chance(15) {
        patch = traditional(&patch);
    }
    (patch, p0)
}

fn make_case(rng: &mut Lcg, tmp: &Path, n: usize) -> Case {
    let rel = rng.pick(TARGETS).to_string();
    let old = Text {
        lines: random_lines(rng, 0, 25),
        crlf: rng.chance(20),
        final_newline: !rng.chance(15),
    };
    let new = edit(rng, &old);
    let dir = tmp.join(format!("case{n}"));
    let (mut patch, p0) = diff_trees(rng, &dir, tmp, &rel, &old, &new, 0);
    if !p0 && rng.chance(10) {
        // a second section for the same file, applied on top of the first one's result
        let newer = edit(rng, &new);
        let (second, second_p0) = diff_trees(rng, &dir, tmp, &rel, &new, &newer, 1);
        if !second_p0 {
            patch.extend_from_slice(&second);
        }
    }
    if rng.chance(10) {
        patch = add_garbage(rng, &patch);
    }
    if rng.chance(12) {
        patch = mutate(rng, &patch);
    }
    let base = if rng.chance(60) {
        old.clone()
    } else {
        drift(rng, &old)
    };
    Case {
        rel,
        patch,
        base: base.bytes(),
        p0,
    }
}

/// Exit code, stderr, the file afterwards (None: deleted) and whether it is executable.
type Observed = (i32, String, Option<Vec<u8>>, bool);

fn run_git_apply(tmp: &Path, n: usize, case: &Case) -> Observed {
    let ws = tmp.join(format!("case{n}")).join("ws");
    let file = ws.join(&case.rel);
    write(&file, &case.base);
    let mut args = vec!["apply", "--whitespace=fix"];
    if case.p0 {
        args.push("-p0");
    }
    args.extend(["--include", case.rel.as_str(), "-"]);
    let (code, _, stderr) = git(&ws, tmp, &args, &case.patch);
    let exec = fs::metadata(&file).is_ok_and(|m| m.permissions().mode() & 0o100 != 0);
    (code, stderr, fs::read(&file).ok(), exec)
}

fn run_ours(case: &Case) -> Observed {
    let abs = format!("/nonexistent-ws/{}", case.rel);
    let out = apply(
        &case.patch,
        &Target {
            rel: &case.rel,
            abs: &abs,
            content: &case.base,
            mode: 0o100644,
        },
    );
    let (file, exec) = match out.effect {
        Effect::Unchanged => (Some(case.base.clone()), false),
        Effect::Replace { content, mode } => (Some(content), mode & 0o100 != 0),
        Effect::Delete => (None, false),
    };
    (out.exit_code, out.stderr, file, exec)
}

#[test]
fn matches_git_apply_on_random_patches() {
    let tmp = tempfile::tempdir().unwrap();
    let tmp = tmp.path().canonicalize().unwrap();
    // Fixed by default; ORACLE_SEED / ORACLE_CASES explore further.
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let mut rng = Lcg(env("ORACLE_SEED", 0x5eed_2024));
    let cases = env("ORACLE_CASES", 600) as usize;
    let (mut applied, mut failed, mut changed) = (0, 0, 0);
    for n in 0..cases {
        let case = make_case(&mut rng, &tmp, n);
        let expected = run_git_apply(&tmp, n, &case);
        let actual = run_ours(&case);
        if expected != actual {
            if let Ok(dump) = std::env::var("ORACLE_DUMP") {
                write(&Path::new(&dump).join("patch"), &case.patch);
                write(&Path::new(&dump).join("base"), &case.base);
            }
            panic!(
                "case {n} differs from git apply\n--- target {:?} (p0: {})\n--- base:\n{:?}\n--- patch:\n{}\n--- git: {:?}\n--- ours: {:?}",
                case.rel,
                case.p0,
                String::from_utf8_lossy(&case.base),
                String::from_utf8_lossy(&case.patch),
                expected,
                actual
            );
        }
        if expected.0 == 0 {
            applied += 1;
            if expected.2.as_deref() != Some(&case.base[..]) {
                changed += 1;
            }
        } else {
            failed += 1;
        }
    }
    eprintln!("oracle: {applied} applied ({changed} changed the file), {failed} failed, all identical to git");
    assert!(
        changed * 2 > cases,
        "the generator must exercise real changes"
    );
    assert!(failed * 10 > cases, "the generator must exercise failures");
}

/// Hand-written patches for the corners a generator rarely reaches: garbage, headers of every
/// kind, binary sections, modes, renames, creations, deletions, line-count errors, overlapping
/// hunks, whitespace rules. Each is compared with git like the random ones.
#[test]
fn matches_git_apply_on_handwritten_patches() {
    const T: &str = "src/main.ts";
    let cases: &[(&str, &str, &str, bool)] = &[
        ("hunk without header", "old\n", "@@ -1 +1 @@\n-old\n+new\n", false),
        ("a/ b/ prefixes", "old\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-old\n+new\n", false),
        ("diff --git header", "old\n", "diff --git a/src/main.ts b/src/main.ts\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-old\n+new\n", false),
        ("no prefixes", "old\n", "--- src/main.ts\n+++ src/main.ts\n@@ -1 +1 @@\n-old\n+new\n", true),
        ("no prefixes, git header", "old\n", "diff --git src/main.ts src/main.ts\n--- src/main.ts\n+++ src/main.ts\n@@ -1 +1 @@\n-old\n+new\n", true),
        ("context mismatch", "a\nb\nc\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n-X\n+B\n c\n", false),
        ("another file only", "a\n", "--- a/other.ts\n+++ b/other.ts\n@@ -1 +1 @@\n-a\n+b\n", false),
        ("empty patch", "a\n", "", false),
        ("garbage only", "a\n", "hello\nworld\n", false),
        ("offset search", "x\ny\n1\n2\n3\n4\nb\n5\n6\n7\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -3,7 +3,7 @@\n 2\n 3\n 4\n-b\n+B\n 5\n 6\n 7\n", false),
        ("start must match at the start", "x\na\nb\nc\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", false),
        ("end must match at the end", "a\nb\nc\nx\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n b\n-c\n+C\n", false),
        ("context fixed by whitespace rules", "a  \nb\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n", false),
        ("new blank lines at the end", "a\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1,4 @@\n a\n+b\n+\n+  \n", false),
        ("space before tab", "a\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1,2 @@\n a\n+ \tx  \n", false),
        ("many whitespace errors", "a\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1,8 @@\n a\n+1 \n+2 \n+3 \n+4 \n+5 \n+6 \n+7 \n", false),
        ("CRLF file and patch", "a\r\nb\r\nc\r\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B \r\n c\r\n", false),
        ("CRLF file, LF patch", "a\r\nb\r\nc\r\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", false),
        ("no newline at end", "a\nb", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", false),
        ("patch without final newline", "a\nb\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c", false),
        ("too few lines for the counts", "a\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n", false),
        ("context only", "a\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n a\n", false),
        ("deletion", "a\nb\n", "diff --git a/src/main.ts b/src/main.ts\ndeleted file mode 100644\nindex 422c2b7..0000000\n--- a/src/main.ts\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", false),
        ("deletion leaving content", "a\nb\nc\n", "diff --git a/src/main.ts b/src/main.ts\ndeleted file mode 100644\n--- a/src/main.ts\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", false),
        ("creation over the file", "a\n", "diff --git a/src/main.ts b/src/main.ts\nnew file mode 100644\nindex 0000000..7898192\n--- /dev/null\n+++ b/src/main.ts\n@@ -0,0 +1 @@\n+a\n", false),
        ("deletion then creation", "a\n", "diff --git a/src/main.ts b/src/main.ts\ndeleted file mode 100644\n--- a/src/main.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\ndiff --git a/src/main.ts b/src/main.ts\nnew file mode 100755\n--- /dev/null\n+++ b/src/main.ts\n@@ -0,0 +1 @@\n+z\n", false),
        ("binary without full index", "a\n", "diff --git a/src/main.ts b/src/main.ts\nindex 7898192..6178079 100644\nBinary files a/src/main.ts and b/src/main.ts differ\n", false),
        ("binary section of another file", "a\n", "diff --git a/img.png b/img.png\nindex 5e07d261855586626d75321e8ab899341f972802..1c4a18378367eae0bc1144f3cee0f99df334794a 100644\nGIT binary patch\nliteral 7\nOcmZQzWKK*<P5}S|@Bxni\n\nliteral 6\nNcmZQzWJ*j*1^@zG0V)6h\n\ndiff --git a/src/main.ts b/src/main.ts\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-a\n+b\n", false),
        ("corrupt binary line", "a\n", "diff --git a/img.png b/img.png\nGIT binary patch\nliteral 5\nxyz\n\n", false),
        ("mode change only", "a\n", "diff --git a/src/main.ts b/src/main.ts\nold mode 100644\nnew mode 100755\n", false),
        ("mode change with content", "a\n", "diff --git a/src/main.ts b/src/main.ts\nold mode 100644\nnew mode 100755\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-a\n+b\n", false),
        ("expected mode differs", "a\n", "diff --git a/src/main.ts b/src/main.ts\nindex 7898192..6178079 100755\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-a\n+b\n", false),
        ("symlink type", "a\n", "diff --git a/src/main.ts b/src/main.ts\nindex 7898192..6178079 120000\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-a\n+b\n", false),
        ("rename away from the file", "a\n", "diff --git a/src/main.ts b/new.ts\nsimilarity index 100%\nrename from src/main.ts\nrename to new.ts\n", false),
        ("two sections for the file", "a\nb\nc\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,4 @@\n a\n B\n c\n+d\n", false),
        ("overlapping hunks", "a\nb\nc\nd\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -2,3 +2,3 @@\n b\n c\n-d\n+D\n", false),
        ("several hunks with offsets", "0\n0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -2,3 +2,3 @@\n 2\n-3\n+three\n 4\n@@ -7,3 +7,3 @@\n 7\n-8\n+eight\n 9\n", false),
        ("traditional with timestamps", "a\nb\n", "--- src/main.ts.orig\t2024-05-01 10:00:00.000000000 +0200\n+++ src/main.ts\t2024-05-01 10:01:00.000000000 +0200\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", true),
        ("traditional creation with epoch", "a\n", "--- OLD/src/main.ts\t1970-01-01 00:00:00.000000000 +0000\n+++ NEW/src/main.ts\t2024-05-01 10:01:00.000000000 +0200\n@@ -0,0 +1 @@\n+x\n", false),
        ("traditional deletion with epoch", "x\n", "--- OLD/src/main.ts\t2024-05-01 10:01:00.000000000 +0200\n+++ NEW/src/main.ts\t1970-01-01 00:00:00.000000000 +0000\n@@ -1 +0,0 @@\n-x\n", false),
        ("inconsistent header lines", "a\n", "diff --git a/src/main.ts b/src/main.ts\nnew file mode 100644\ndeleted file mode 100644\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-a\n+b\n", false),
        ("inconsistent names", "a\n", "diff --git a/src/main.ts b/src/main.ts\n--- a/src/main.ts\n+++ b/src/other.ts\n@@ -1 +1 @@\n-a\n+b\n", false),
        ("bad mode", "a\n", "diff --git a/src/main.ts b/src/main.ts\nold mode 10x644\nnew mode 100755\n", false),
        ("header without hunks", "a\n", "diff --git a/src/main.ts b/src/main.ts\nindex 7898192..6178079 100644\n", false),
        ("mail with preamble", "a\n", "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n---\n src/main.ts | 2 +-\n\ndiff --git a/src/main.ts b/src/main.ts\nindex 7898192..6178079 100644\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-a\n+b\n-- \n2.47.3\n", false),
        ("no newline in the middle of a hunk", "a\nb", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n\\ No newline at end of file\n", false),
        ("unicode", "héllo\nwörld\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n héllo\n-wörld\n+мир 😀\n", false),
        ("empty context line (GNU diff)", "a\n\nb\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n", false),
        ("fragment counts overflow", "a\n", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,99999999999999999999 +1 @@\n-a\n+b\n", false),
        ("empty file gets content", "", "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -0,0 +1,2 @@\n+a\n+b\n", false),
        ("file emptied", "a\n", "diff --git a/src/main.ts b/src/main.ts\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +0,0 @@\n-a\n", false),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let tmp = tmp.path().canonicalize().unwrap();
    for (n, (name, base, patch, p0)) in cases.iter().enumerate() {
        let case = Case {
            rel: T.to_string(),
            patch: patch.as_bytes().to_vec(),
            base: base.as_bytes().to_vec(),
            p0: *p0,
        };
        let expected = run_git_apply(&tmp, n, &case);
        let actual = run_ours(&case);
        assert_eq!(
            actual, expected,
            "case {name:?}: ours (left) differs from git (right)"
        );
    }
}

/// proptest over the same oracle: a file and an edit of it from a small alphabet of lines, the
/// patch made by `git diff --no-index`, applied to the file itself or to a shifted or
/// whitespace-damaged copy. A failure shrinks to a minimal file and edit.
mod properties {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    struct Scenario {
        old: Text,
        new: Text,
        context: usize,
        /// Lines inserted into the base before the patch is applied, at a position.
        shift: Option<(usize, Vec<String>)>,
        /// Base lines that get two trailing spaces.
        damaged: Vec<usize>,
    }

    fn line() -> impl Strategy<Value = String> {
        prop::sample::select(LINES).prop_map(str::to_string)
    }

    fn text() -> impl Strategy<Value = Text> {
        (
            prop::collection::vec(line(), 0..20),
            any::<bool>(),
            prop::bool::weighted(0.85),
        )
            .prop_map(|(lines, crlf, final_newline)| Text {
                lines,
                crlf,
                final_newline,
            })
    }

    fn scenario() -> impl Strategy<Value = Scenario> {
        (
            text(),
            prop::collection::vec((0usize..25, 0usize..3, prop::option::of(line())), 1..4),
        )
            .prop_flat_map(|(old, edits)| {
                let mut lines = old.lines.clone();
                for (at, remove, insert) in edits {
                    let at = at.min(lines.len());
                    let end = (at + remove).min(lines.len());
                    lines.splice(at..end, insert);
                }
                let new = Text {
                    lines,
                    ..old.clone()
                };
                let base_len = old.lines.len() + 1;
                (
                    Just(old),
                    Just(new),
                    prop::sample::select(&[0usize, 1, 3, 3, 5][..]),
                    prop::option::weighted(0.3, (0..base_len, prop::collection::vec(line(), 1..3))),
                    prop::collection::vec(0..base_len, 0..2),
                )
            })
            .prop_map(|(old, new, context, shift, damaged)| Scenario {
                old,
                new,
                context,
                shift,
                damaged,
            })
    }

    fn case_of(s: &Scenario, tmp: &Path, n: usize) -> Case {
        let rel = "src/main.ts";
        let dir = tmp.join(format!("prop{n}"));
        let _ = fs::remove_dir_all(&dir);
        write(&dir.join("OLD").join(rel), &s.old.bytes());
        write(&dir.join("NEW").join(rel), &s.new.bytes());
        let unified = format!("-U{}", s.context);
        let (_, out, _) = git(
            &dir,
            tmp,
            &["diff", "--no-index", &unified, "OLD", "NEW"],
            b"",
        );
        let mut base = s.old.clone();
        if let Some((at, lines)) = &s.shift {
            let at = (*at).min(base.lines.len());
            base.lines.splice(at..at, lines.iter().cloned());
        }
        for &i in &s.damaged {
            if let Some(line) = base.lines.get_mut(i) {
                line.push_str("  ");
            }
        }
        Case {
            rel: rel.to_string(),
            patch: strip_side_dirs(&out),
            base: base.bytes(),
            p0: false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

        #[test]
        fn applier_agrees_with_git_apply(s in scenario()) {
            let tmp = tempfile::tempdir().unwrap();
            let tmp = tmp.path().canonicalize().unwrap();
            let case = case_of(&s, &tmp, 0);
            let expected = run_git_apply(&tmp, 0, &case);
            let actual = run_ours(&case);
            prop_assert_eq!(&actual, &expected);
            // The file a diff with context was made from always takes it (git refuses some
            // zero-context hunks without --unidiff-zero).
            let own_diff = s.shift.is_none() && s.damaged.is_empty() && s.context > 0;
            if own_diff && s.old.bytes() != s.new.bytes() {
                prop_assert_eq!(actual.0, 0, "{}", actual.1);
            }
        }
    }
}
