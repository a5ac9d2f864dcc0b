//! Unit tests of the parser and applier with git's expected outputs written out (each was
//! checked against git 2.47; `tests/apply_patch_oracle.rs` compares with a live git).

use super::*;

fn run(rel: &str, base: &str, patch: &str) -> Outcome {
    let abs = format!("/ws/{rel}");
    apply(
        patch.as_bytes(),
        &Target {
            rel,
            abs: &abs,
            content: base.as_bytes(),
            mode: 0o100644,
        },
    )
}

fn replaced(outcome: &Outcome) -> String {
    match &outcome.effect {
        Effect::Replace { content, .. } => String::from_utf8(content.clone()).unwrap(),
        other => panic!("expected a replacement, got {other:?} ({})", outcome.stderr),
    }
}

const T: &str = "src/main.ts";

#[test]
fn applies_with_and_without_prefixes() {
    for header in [
        "--- a/src/main.ts\n+++ b/src/main.ts\n",
        "--- src/main.ts\n+++ src/main.ts\n",
        "diff --git a/src/main.ts b/src/main.ts\n--- a/src/main.ts\n+++ b/src/main.ts\n",
        "diff --git src/main.ts src/main.ts\n--- src/main.ts\n+++ src/main.ts\n",
    ] {
        let out = run(T, "old\n", &format!("{header}@@ -1 +1 @@\n-old\n+new\n"));
        assert_eq!((out.exit_code, out.stderr.as_str()), (0, ""), "{header}");
        assert_eq!(replaced(&out), "new\n");
    }
    // a top-level file without prefix: git's -p1 finds no name; -p0 does
    let out = run(
        "a.txt",
        "old\n",
        "diff --git a.txt a.txt\n--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-old\n+new\n",
    );
    assert_eq!(replaced(&out), "new\n");
}

#[test]
fn other_files_are_skipped() {
    let out = run(
        T,
        "a\n",
        "--- a/other.ts\n+++ b/other.ts\n@@ -1 +1 @@\n-zzz\n+b\n",
    );
    assert_eq!((out.exit_code, out.effect), (0, Effect::Unchanged));
    let patch = "--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-q\n+r\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-a\n+b\n--- a/y.ts\n+++ b/y.ts\n@@ -1 +1 @@\n-q  \n+r  \n";
    let out = run(T, "a\n", patch);
    assert_eq!(replaced(&out), "b\n");
    assert_eq!(
        out.stderr, "",
        "skipped sections are not checked for whitespace"
    );
}

#[test]
fn unusable_patches_exit_128_with_git_messages() {
    let cases = [
        ("@@ -1 +1 @@\n-old\n+new\n", "error: patch fragment without header at line 1: @@ -1 +1 @@\n"),
        ("", "error: No valid patches in input (allow with \"--allow-empty\")\n"),
        ("just text\n", "error: No valid patches in input (allow with \"--allow-empty\")\n"),
        ("--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c", "error: corrupt patch at line 6\n"),
        ("--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n a\n", "error: corrupt patch at line 5\n"),
        ("diff --git a/src/main.ts b/src/main.ts\nindex 7898192..6178079 100644\n", "error: patch with only garbage at line 3\n"),
        ("diff --git a/src/main.ts b/src/main.ts\ndeleted file mode 100644\n--- a/src/other.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", "error: git apply: bad git-diff - inconsistent old filename on line 2\n"),
        ("diff --git a/src/main.ts b/src/main.ts\nnew file mode 100644\ndeleted file mode 100644\n", "error: inconsistent header lines 2 and 3\n"),
        ("--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n", ""),
    ];
    for (patch, stderr) in cases {
        let out = run(T, "a\n", patch);
        if stderr.is_empty() {
            continue;
        }
        assert_eq!(
            (out.exit_code, out.stderr.as_str()),
            (128, stderr),
            "{patch:?}"
        );
        assert_eq!(out.effect, Effect::Unchanged);
    }
    let out = run(
        ".git/config",
        "a\n",
        "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n",
    );
    assert_eq!(
        (out.exit_code, out.stderr.as_str()),
        (128, "error: invalid path '.git/config'\n")
    );
    // the target's absolute path in the headers is taken, and refused like git refuses it
    let out = run(
        T,
        "a\n",
        "--- a//ws/src/main.ts\n+++ b//ws/src/main.ts\n@@ -1 +1 @@\n-a\n+b\n",
    );
    assert_eq!(
        (out.exit_code, out.stderr.as_str()),
        (128, "error: invalid path '/ws/src/main.ts'\n")
    );
}

#[test]
fn context_must_match_without_fuzz() {
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n-X\n+B\n c\n";
    let out = run(T, "a\nb\nc\n", patch);
    assert_eq!(out.exit_code, 1);
    assert_eq!(
        out.stderr,
        "error: patch failed: src/main.ts:1\nerror: src/main.ts: patch does not apply\n"
    );
    assert_eq!(out.effect, Effect::Unchanged);
    // a hunk at line 1 must match at the start, one without trailing context at the end
    let out = run(
        T,
        "x\na\nb\nc\n",
        "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
    );
    assert_eq!(out.exit_code, 1);
    let out = run(
        T,
        "a\nb\nc\nx\n",
        "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n b\n-c\n+C\n",
    );
    assert_eq!(out.exit_code, 1);
}

#[test]
fn hunks_move_to_the_nearest_match() {
    let base = "x\ny\n1\n2\n3\n4\nb\n5\n6\n7\n";
    let patch =
        "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -3,7 +3,7 @@\n 2\n 3\n 4\n-b\n+B\n 5\n 6\n 7\n";
    let out = run(T, base, patch);
    assert_eq!(replaced(&out), "x\ny\n1\n2\n3\n4\nB\n5\n6\n7\n");
    // the same context twice: the nearer one (forwards first on a tie) wins
    let base = "k\nv\nk\nq\nk\nv\nk\n";
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -4,3 +4,3 @@\n k\n-v\n+V\n k\n";
    assert_eq!(replaced(&run(T, base, patch)), "k\nv\nk\nq\nk\nV\nk\n");
    // lines written by one hunk are not matched by the next
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -2,3 +2,3 @@\n b\n c\n-d\n+D\n";
    assert_eq!(run(T, "a\nb\nc\nd\n", patch).exit_code, 1);
}

#[test]
fn incomplete_lines_and_crlf() {
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n";
    assert_eq!(replaced(&run(T, "a\nb", patch)), "a\nb\n");
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n";
    assert_eq!(replaced(&run(T, "a\nb\n", patch)), "a\nc");
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B \r\n c\r\n";
    let out = run(T, "a\r\nb\r\nc\r\n", patch);
    assert_eq!(
        replaced(&out),
        "a\r\nB\r\nc\r\n",
        "CR kept, trailing space fixed"
    );
    assert_eq!(
        out.stderr,
        "<stdin>:6: trailing whitespace.\nB \r\nwarning: 1 line applied after fixing whitespace errors.\n"
    );
    // an LF patch matches CRLF lines once whitespace is fixed; those lines become LF
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    assert_eq!(
        replaced(&run(T, "a\r\nb\r\nc\r\nd\r\n", patch)),
        "a\nB\nc\nd\r\n"
    );
}

#[test]
fn whitespace_is_fixed_like_git() {
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1,2 @@\n a\n+ \tx  \n";
    let out = run(T, "a\n", patch);
    assert_eq!(replaced(&out), "a\n\tx\n");
    assert_eq!(
        out.stderr,
        "<stdin>:5: trailing whitespace, space before tab in indent.\n \tx  \nwarning: 1 line applied after fixing whitespace errors.\n"
    );
    // new blank lines at the end of the file are dropped
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1,4 @@\n a\n+b\n+\n+  \n";
    let out = run(T, "a\n", patch);
    assert_eq!(replaced(&out), "a\nb\n");
    // context with whitespace damage still matches; it is fixed too
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
    assert_eq!(replaced(&run(T, "a  \nb\n", patch)), "a\nB\n");
    // without any whitespace error in the patch, added lines are copied as they are
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1,2 @@\n a\n+b\n";
    assert_eq!(run(T, "a\n", patch).stderr, "");
    // past five errors git stops printing them
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1,8 @@\n a\n+1 \n+2 \n+3 \n+4 \n+5 \n+6 \n+7 \n";
    let out = run(T, "a\n", patch);
    assert_eq!(replaced(&out), "a\n1\n2\n3\n4\n5\n6\n7\n");
    assert!(out.stderr.ends_with(
        "<stdin>:9: trailing whitespace.\n5 \nwarning: squelched 2 whitespace errors\nwarning: 7 lines applied after fixing whitespace errors.\n"
    ), "{}", out.stderr);
}

#[test]
fn creations_deletions_modes_renames_binaries() {
    let deletion = "diff --git a/src/main.ts b/src/main.ts\ndeleted file mode 100644\n--- a/src/main.ts\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n";
    assert_eq!(run(T, "a\nb\n", deletion).effect, Effect::Delete);
    let out = run(T, "a\nb\nc\n", deletion);
    assert_eq!(out.exit_code, 1);
    assert_eq!(
        out.stderr,
        "error: patch failed: src/main.ts:1\nerror: src/main.ts: patch does not apply\n"
    );

    let creation = "diff --git a/src/main.ts b/src/main.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/main.ts\n@@ -0,0 +1 @@\n+a\n";
    let out = run(T, "a\n", creation);
    assert_eq!(
        (out.exit_code, out.stderr.as_str()),
        (
            1,
            "error: src/main.ts: already exists in working directory\n"
        )
    );

    let mode = "diff --git a/src/main.ts b/src/main.ts\nold mode 100644\nnew mode 100755\n";
    let out = run(T, "a\n", mode);
    assert_eq!(
        out.effect,
        Effect::Replace {
            content: b"a\n".to_vec(),
            mode: 0o100755
        }
    );

    let expected_exec = "diff --git a/src/main.ts b/src/main.ts\nindex 7898192..6178079 100755\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-a\n+b\n";
    let out = run(T, "a\n", expected_exec);
    assert_eq!(
        out.stderr,
        "warning: src/main.ts has type 100644, expected 100755\n"
    );
    assert_eq!(
        out.effect,
        Effect::Replace {
            content: b"b\n".to_vec(),
            mode: 0o100644
        }
    );

    let rename = "diff --git a/old.ts b/src/main.ts\nsimilarity index 100%\nrename from old.ts\nrename to src/main.ts\n";
    let out = run(T, "a\n", rename);
    assert_eq!(
        (out.exit_code, out.stderr.as_str()),
        (
            1,
            "error: src/main.ts: already exists in working directory\n"
        )
    );
    let away = "diff --git a/src/main.ts b/new.ts\nsimilarity index 100%\nrename from src/main.ts\nrename to new.ts\n";
    assert_eq!(run(T, "a\n", away).effect, Effect::Unchanged);

    let binary = "diff --git a/src/main.ts b/src/main.ts\nindex 7898192..6178079 100644\nBinary files a/src/main.ts and b/src/main.ts differ\n";
    let out = run(T, "a\n", binary);
    assert_eq!(
        (out.exit_code, out.stderr.as_str()),
        (1, "error: cannot apply binary patch to 'src/main.ts' without full index line\nerror: src/main.ts: patch does not apply\n")
    );
}

#[test]
fn sections_for_the_same_file_apply_in_turn() {
    let patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,4 @@\n a\n B\n c\n+d\n";
    assert_eq!(replaced(&run(T, "a\nb\nc\n", patch)), "a\nB\nc\nd\n");
}

#[test]
fn traditional_headers_with_timestamps_and_quoted_names() {
    let patch = "--- OLD/src/main.ts\t2024-05-01 10:00:00.000000000 +0200\n+++ NEW/src/main.ts\t2024-05-01 10:01:00.000000000 +0200\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
    assert_eq!(replaced(&run(T, "a\nb\n", patch)), "a\nc\n");
    let patch = "diff --git \"a/d\\303\\251 x.ts\" \"b/d\\303\\251 x.ts\"\n--- \"a/d\\303\\251 x.ts\"\n+++ \"b/d\\303\\251 x.ts\"\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(replaced(&run("dé x.ts", "a\n", patch)), "b\n");
}

/// Random damage to valid patches (bytes flipped, lines cut, pieces swapped) must never panic.
#[test]
fn damaged_patches_never_panic() {
    let seeds = [
        "diff --git a/src/main.ts b/src/main.ts\nindex 7898192..6178079 100644\n--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,3 +1,4 @@\n a\n-b\n+B  \n+ \tc\n c\n\\ No newline at end of file\n",
        "--- src/main.ts\t2024-05-01 10:00:00 +0200\n+++ src/main.ts\t1970-01-01 00:00:00 +0000\n@@ -1,2 +0,0 @@\n-a\n-b\n",
        "diff --git \"a/src/main.ts\" \"b/src/main.ts\"\nold mode 100644\nnew mode 100755\nGIT binary patch\nliteral 7\nOcmZQzWKK*<P5}S|@Bxni\n\n",
        "diff --git a/src/main.ts b/src/main.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/main.ts\n@@ -0,0 +1,2 @@\n+\n+  \n",
    ];
    let alphabet = b"@-+ \\\n\r\t\"/ab0123,";
    let mut state: u64 = 42;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % n.max(1) as u64) as usize
    };
    for round in 0..4000 {
        let mut bytes = seeds[round % seeds.len()].as_bytes().to_vec();
        for _ in 0..1 + next(4) {
            match next(3) {
                0 if !bytes.is_empty() => {
                    let i = next(bytes.len());
                    bytes[i] = alphabet[next(alphabet.len())];
                }
                0 | 1 => bytes.truncate(next(bytes.len() + 1)),
                _ => {
                    let i = next(bytes.len() + 1);
                    let j = next(bytes.len() + 1);
                    let piece = bytes[i.min(j)..i.max(j)].to_vec();
                    let at = next(bytes.len() + 1);
                    bytes.splice(at..at, piece);
                }
            }
        }
        for base in ["", "a\nb\nc", "a\r\nb\r\n", "\n\n  \n"] {
            let out = apply(
                &bytes,
                &Target {
                    rel: T,
                    abs: "/ws/src/main.ts",
                    content: base.as_bytes(),
                    mode: 0o100644,
                },
            );
            assert!(
                out.exit_code == 0 || out.effect == Effect::Unchanged,
                "a failure never carries a result"
            );
        }
    }
}

#[test]
fn windows_rules_of_verify_path() {
    use super::verify_path_for;
    for path in [
        "C:\\Users\\me\\ws\\src\\main.ts",
        "c:/ws/main.ts",
        "C:main.ts",
        "src\\..\\..\\out.txt",
        "src\\.git\\config",
        "a.txt:secret",
        "src/CON",
        "src/nul.txt",
        "com1",
        "LPT9.log",
        "conin$",
        "trailing.",
        "trailing ",
        "what?.txt",
        "pipe|name",
        "tab\there",
        "con.d/x",
    ] {
        assert!(
            !verify_path_for(path.as_bytes(), true),
            "{path:?} is valid on Windows"
        );
    }
    for path in [
        "src/main.ts",
        "src\\main.ts",
        "console.txt",
        "com10",
        "lpt0",
        "nul_x",
        "a.b.c",
    ] {
        assert!(
            verify_path_for(path.as_bytes(), true),
            "{path:?} is invalid on Windows"
        );
    }
    // without the Windows rules, only git's own: a drive letter and `\` are plain characters
    assert!(verify_path_for(b"C:\\Users\\me\\main.ts", false));
    assert!(verify_path_for(b"a.txt:secret", false));
    assert!(!verify_path_for(b"src/../out.txt", false));
}
