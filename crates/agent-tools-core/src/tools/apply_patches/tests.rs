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
