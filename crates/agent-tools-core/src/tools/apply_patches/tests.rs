use super::*;
use crate::context::ToolContext;
use serde_json::{json, Value};

fn apply(ctx: &ToolContext, patch: &str) -> Result<Value, ToolError> {
    let rc = RunContext {
        ctx,
        confinement: None,
    };
    run(&rc, &[ArgValue::from(&json!({ "patch": patch }))])
        .map(|s| serde_json::from_str(&s).unwrap())
}

fn setup() -> (tempfile::TempDir, ToolContext, String) {
    let (d, ctx) = super::super::temp_workspace();
    let root = ctx.workspace_root.clone().unwrap();
    fs::write(format!("{root}/a.txt"), "one\ntwo\nthree\n").unwrap();
    fs::write(format!("{root}/b.txt"), "alpha\r\nbeta\r\n").unwrap();
    fs::write(format!("{root}/gone.txt"), "bye\n").unwrap();
    (d, ctx, root)
}

fn read(root: &str, rel: &str) -> String {
    fs::read_to_string(format!("{root}/{rel}")).unwrap()
}

#[test]
fn codex_format_every_operation() {
    let (_d, ctx, root) = setup();
    let patch = "*** Begin Patch\n*** Add File: new/c.txt\n+hello\n+world\n*** Update File: a.txt\n@@\n one\n-two\n+2\n three\n*** Update File: b.txt\n*** Move to: moved/b.txt\n@@ alpha\n-beta\n+BETA\n*** Delete File: gone.txt\n*** End Patch\n";
    let out = apply(&ctx, patch).unwrap();
    assert_eq!(
        out,
        json!({"format": "codex", "files": [
            {"path": "new/c.txt", "action": "added"},
            {"path": "a.txt", "action": "updated"},
            {"path": "b.txt", "action": "moved", "moved_to": "moved/b.txt"},
            {"path": "gone.txt", "action": "deleted"},
        ]})
    );
    assert_eq!(read(&root, "new/c.txt"), "hello\nworld\n");
    assert_eq!(read(&root, "a.txt"), "one\n2\nthree\n");
    assert_eq!(read(&root, "moved/b.txt"), "alpha\r\nBETA\r\n", "CRLF kept");
    assert!(!Path::new(&format!("{root}/b.txt")).exists());
    assert!(!Path::new(&format!("{root}/gone.txt")).exists());
}

#[test]
fn git_unified_diff_of_several_files() {
    let (_d, ctx, root) = setup();
    let patch = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\ndiff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\ndiff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\ndiff --git a/b.txt b/r.txt\nsimilarity index 100%\nrename from b.txt\nrename to r.txt\n";
    let out = apply(&ctx, patch).unwrap();
    assert_eq!(out["format"], "unified");
    let actions: Vec<&str> = out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["updated", "added", "deleted", "moved"]);
    assert_eq!(read(&root, "a.txt"), "one\nTWO\nthree\n");
    assert_eq!(read(&root, "n.txt"), "x\ny\n");
    assert_eq!(read(&root, "r.txt"), "alpha\r\nbeta\r\n");
    assert!(!Path::new(&format!("{root}/gone.txt")).exists());
}

#[test]
fn all_or_nothing() {
    let (_d, ctx, root) = setup();
    // the second file's hunk does not match: nothing is written
    let patch = "*** Begin Patch\n*** Update File: a.txt\n-two\n+2\n*** Update File: b.txt\n-nope\n+x\n*** End Patch";
    let e = apply(&ctx, patch).unwrap_err();
    assert_eq!(e.code, "APPLY_FAILED");
    assert_eq!(
        e.message,
        "APPLY_FAILED: hunk 1 of b.txt does not match the file"
    );
    assert_eq!(read(&root, "a.txt"), "one\ntwo\nthree\n");
    // a write that fails after others succeeded: those are restored
    fs::write(format!("{root}/plain"), "p").unwrap();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n-two\n+2\n*** Delete File: gone.txt\n*** Add File: plain/inside.txt\n+x\n*** End Patch";
    let e = apply(&ctx, patch).unwrap_err();
    assert_eq!(e.code, "INTERNAL");
    assert_eq!(read(&root, "a.txt"), "one\ntwo\nthree\n", "restored");
    assert_eq!(read(&root, "gone.txt"), "bye\n", "restored");
    // refusals
    for (patch, code) in [
        (
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch",
            "APPLY_FAILED",
        ),
        (
            "*** Begin Patch\n*** Delete File: none.txt\n*** End Patch",
            "APPLY_FAILED",
        ),
        ("*** Begin Patch\n*** Delete File: a.txt\n", "APPLY_FAILED"),
        (
            "*** Begin Patch\n*** Delete File: a.txt\n*** Delete File: a.txt\n*** End Patch",
            "APPLY_FAILED",
        ),
        ("hello", "APPLY_FAILED"),
        (
            "*** Begin Patch\n*** Update File: a.txt\n*** End Patch",
            "APPLY_FAILED",
        ),
        (
            "diff --git a/a.txt b/a.txt\nGIT binary patch\nliteral 0\n",
            "APPLY_FAILED",
        ),
        ("", "INVALID_ARGUMENT"),
    ] {
        assert_eq!(apply(&ctx, patch).unwrap_err().code, code, "{patch}");
    }
    assert_eq!(read(&root, "a.txt"), "one\ntwo\nthree\n");
}

#[test]
fn every_path_passes_the_sandbox() {
    let (_d, ctx, root) = setup();
    for patch in [
        "*** Begin Patch\n*** Add File: ../evil.txt\n+x\n*** End Patch",
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../../evil.txt\n-two\n+2\n*** End Patch",
        "--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n",
        "*** Begin Patch\n*** Delete File: /etc/hostname\n*** End Patch",
    ] {
        let e = apply(&ctx, patch).unwrap_err();
        assert!(e.message.contains("[Sandbox Violation]"), "{patch}: {}", e.message);
    }
    assert_eq!(read(&root, "a.txt"), "one\ntwo\nthree\n");
    assert!(!Path::new(&format!("{root}/../evil.txt")).exists());
}

/// Runs `f` with the write-failure hook set to `fail`, then clears it.
fn with_failing_writes<T>(
    fail: impl Fn(&str, Option<&[u8]>) -> bool + 'static,
    f: impl FnOnce() -> T,
) -> T {
    FAIL_WRITE.with(|hook| *hook.borrow_mut() = Some(Box::new(fail)));
    let out = f();
    FAIL_WRITE.with(|hook| *hook.borrow_mut() = None);
    out
}

#[test]
fn a_failed_restore_is_named_in_the_error() {
    let (_d, ctx, root) = setup();
    // a.txt is written, gone.txt's removal fails, and putting a.txt back fails too
    let patch = "*** Begin Patch\n*** Update File: a.txt\n-two\n+2\n*** Delete File: gone.txt\n*** End Patch";
    let e = with_failing_writes(
        |abs, content| {
            std::path::Path::new(abs).ends_with("gone.txt")
                || (std::path::Path::new(abs).ends_with("a.txt")
                    && content == Some(b"one\ntwo\nthree\n"))
        },
        || apply(&ctx, patch).unwrap_err(),
    );
    assert_eq!(e.code, "INTERNAL");
    // the messages name the files by the paths the tool resolved (the host's separator)
    let gone = Path::new(&root).join("gone.txt");
    assert_eq!(
        e.message,
        format!(
            "INTERNAL: EIO: i/o error, unlink '{}'; the rollback failed, not restored: a.txt (EIO: i/o error, open '{}')",
            gone.display(),
            Path::new(&root).join("a.txt").display()
        )
    );
    assert_eq!(
        read(&root, "a.txt"),
        "one\n2\nthree\n",
        "the restore really failed"
    );
    assert_eq!(read(&root, "gone.txt"), "bye\n");
    // a rollback that succeeds adds nothing to the message
    fs::write(format!("{root}/a.txt"), "one\ntwo\nthree\n").unwrap();
    let e = with_failing_writes(
        |abs, _| std::path::Path::new(abs).ends_with("gone.txt"),
        || apply(&ctx, patch).unwrap_err(),
    );
    assert_eq!(
        e.message,
        format!("INTERNAL: EIO: i/o error, unlink '{}'", gone.display())
    );
    assert_eq!(read(&root, "a.txt"), "one\ntwo\nthree\n", "restored");
}

#[test]
fn rollback_removes_the_directories_the_call_created() {
    let (_d, ctx, root) = setup();
    fs::create_dir(format!("{root}/kept")).unwrap();
    // three new files in new directories (one below an existing one), then a failing write
    let patch = "*** Begin Patch\n*** Add File: new/deep/c.txt\n+c\n*** Add File: kept/sub/d.txt\n+d\n*** Update File: b.txt\n*** Move to: moved/x/b.txt\n*** Update File: a.txt\n-two\n+2\n*** End Patch";
    let e = with_failing_writes(
        |abs, _| std::path::Path::new(abs).ends_with("a.txt"),
        || apply(&ctx, patch).unwrap_err(),
    );
    assert_eq!(
        e.message,
        format!(
            "INTERNAL: EIO: i/o error, open '{}'",
            std::path::Path::new(&root).join("a.txt").display()
        )
    );
    let mut names: Vec<String> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.txt", "b.txt", "gone.txt", "kept"]);
    assert_eq!(fs::read_dir(format!("{root}/kept")).unwrap().count(), 0);
    assert_eq!(read(&root, "b.txt"), "alpha\r\nbeta\r\n");
    // a created directory that cannot be removed (something else was put in it) is named
    let patch = "*** Begin Patch\n*** Add File: new/c.txt\n+c\n*** Update File: a.txt\n-two\n+2\n*** End Patch";
    let squatter = format!("{root}/new/other.txt");
    let e = with_failing_writes(
        move |abs, _| {
            if std::path::Path::new(abs).ends_with("a.txt") {
                fs::write(&squatter, "x").unwrap();
                return true;
            }
            false
        },
        || apply(&ctx, patch).unwrap_err(),
    );
    assert_eq!(
        e.message,
        format!(
            "INTERNAL: EIO: i/o error, open '{}'; the rollback failed, not restored: directory new/ (ENOTEMPTY: directory not empty, rmdir '{}')",
            Path::new(&root).join("a.txt").display(),
            Path::new(&root).join("new").display()
        )
    );
    assert!(!Path::new(&format!("{root}/new/c.txt")).exists());
}

#[test]
fn mixed_line_endings_keep_each_lines_own() {
    let (_d, ctx, root) = setup();
    fs::write(format!("{root}/m.txt"), "a\r\nb\nc\r\nd\ne\n").unwrap();
    // context lines keep theirs; a changed line takes the ending of the line it replaces; a
    // pure insertion takes that of the line before it
    let patch = "*** Begin Patch\n*** Update File: m.txt\n@@\n a\n b\n-c\n+C\n+C2\n d\n+D\n e\n*** End Patch";
    apply(&ctx, patch).unwrap();
    assert_eq!(read(&root, "m.txt"), "a\r\nb\nC\r\nC2\r\nd\nD\ne\n");
    // an insertion after a CRLF line, and a file without a final newline stays so
    fs::write(format!("{root}/n.txt"), "x\r\ny\nz").unwrap();
    let patch =
        "*** Begin Patch\n*** Update File: n.txt\n@@\n x\n+X\n y\n-z\n+Z\n+END\n*** End Patch";
    apply(&ctx, patch).unwrap();
    assert_eq!(read(&root, "n.txt"), "x\r\nX\r\ny\nZ\nEND");
    // a rename without hunks keeps the bytes as they are
    fs::write(format!("{root}/r.txt"), "1\r\n2\n3\r\r\n4").unwrap();
    let patch =
        "diff --git a/r.txt b/s.txt\nsimilarity index 100%\nrename from r.txt\nrename to s.txt\n";
    apply(&ctx, patch).unwrap();
    assert_eq!(read(&root, "s.txt"), "1\r\n2\n3\r\r\n4");
    // unmixed files as before: all CRLF stays CRLF
    let patch = "*** Begin Patch\n*** Update File: b.txt\n alpha\n+middle\n beta\n*** End Patch";
    apply(&ctx, patch).unwrap();
    assert_eq!(read(&root, "b.txt"), "alpha\r\nmiddle\r\nbeta\r\n");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
)]
fn reads_go_through_the_checked_directory() {
    let (_d, ctx, root) = setup();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("a.txt"), "one\ntwo\nCANARY\n").unwrap();
    crate::sys::symlink(outside.path(), format!("{root}/out")).unwrap();
    crate::sys::symlink("a.txt", format!("{root}/alink")).unwrap();
    let rc = RunContext {
        ctx: &ctx,
        confinement: Some(Confinement::new(&root).unwrap()),
    };
    // the directory really is outside: refused when opened, whatever the path check said
    let e = open_place(&rc, &format!("{root}/out/a.txt"))
        .err()
        .expect("refused");
    assert!(e.message.contains("[Sandbox Violation]"), "{}", e.message);
    // a symlink as the file itself is not followed
    let e = read_existing(&rc, &format!("{root}/alink"), "alink")
        .err()
        .expect("refused");
    assert_eq!(e.message, "APPLY_FAILED: not a regular file: alink");
    let (place, content) = read_existing(&rc, &format!("{root}/a.txt"), "a.txt").unwrap();
    assert!(place.is_some());
    assert_eq!(content.unwrap().0, b"one\ntwo\nthree\n");
    let (place, content) = read_existing(&rc, &format!("{root}/none/x.txt"), "none/x.txt").unwrap();
    assert!(place.is_none() && content.is_none());
    let e = read_existing(&rc, &root, ".").err().expect("refused");
    assert_eq!(e.message, "APPLY_FAILED: not a regular file: .");
}
