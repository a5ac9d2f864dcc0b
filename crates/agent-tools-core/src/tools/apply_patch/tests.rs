use super::*;
use crate::context::ToolContext;
use crate::sandbox::Confinement;
use serde_json::{json, Value};
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;

struct Ws {
    _dir: tempfile::TempDir,
    root: String,
    ctx: ToolContext,
}

fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = dir
        .path()
        .canonicalize()
        .map(crate::sys::plain_path)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    fs::create_dir(format!("{root}/src")).unwrap();
    Ws {
        ctx: ToolContext::allow_all(&root),
        root,
        _dir: dir,
    }
}

impl Ws {
    fn file(&self, rel: &str, bytes: &[u8]) -> String {
        let p = format!("{}/{rel}", self.root);
        fs::write(&p, bytes).unwrap();
        p
    }
    fn apply(&self, path: &str, patch: ArgValue) -> Result<Value, ToolError> {
        let rc = RunContext {
            ctx: &self.ctx,
            confinement: Some(Confinement::new(&self.root).unwrap()),
        };
        run(&rc, &[path.into(), patch]).map(|s| serde_json::from_str(&s).unwrap())
    }
    fn entries(&self, rel: &str) -> usize {
        fs::read_dir(format!("{}/{rel}", self.root))
            .unwrap()
            .count()
    }
}

const PATCH: &str = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-old\n+new\n";

#[test]
fn applies_and_reports_like_the_contract() {
    let w = ws();
    let p = w.file("src/main.ts", b"old\n");
    assert_eq!(
        w.apply(&p, PATCH.into()).unwrap(),
        json!({"file_path": p, "exit_code": 0, "changed": true, "stderr": ""})
    );
    assert_eq!(fs::read(&p).unwrap(), b"new\n");
    assert_eq!(w.entries("src"), 1, "no temporary file is left");
    // the same patch again no longer matches: the file stays as it is
    let err = w.apply(&p, PATCH.into()).unwrap_err();
    assert_eq!(
        (err.class_name, err.code.as_str()),
        ("ApplyPatchError", "APPLY_FAILED")
    );
    assert_eq!(
        err.message,
        "git apply failed with exit code 1: error: patch failed: src/main.ts:1\nerror: src/main.ts: patch does not apply"
    );
    assert_eq!(fs::read(&p).unwrap(), b"new\n");
    // a patch for another file: success, nothing changes
    let other = "--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-new\n+zzz\n";
    assert_eq!(w.apply(&p, other.into()).unwrap()["changed"], false);
    // whitespace warnings are reported in stderr (trimmed)
    let ws_patch = "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-new\n+newer  \n";
    let out = w.apply(&p, ws_patch.into()).unwrap();
    assert_eq!(
        out["stderr"],
        "<stdin>:5: trailing whitespace.\nnewer  \nwarning: 1 line applied after fixing whitespace errors."
    );
    assert_eq!(fs::read(&p).unwrap(), b"newer\n");
}

#[test]
fn validation_order_and_messages() {
    let w = ws();
    for bad in [ArgValue::Undefined, ArgValue::Number(1.0), "  ".into()] {
        let rc = RunContext {
            ctx: &w.ctx,
            confinement: None,
        };
        let err = run(&rc, &[bad, ArgValue::Null]).unwrap_err();
        assert_eq!(err.message, "filePath must be a non-empty string");
        assert_eq!(err.code, "INVALID_ARGUMENT");
    }
    let missing = format!("{}/missing.ts", w.root);
    let err = w.apply(&missing, ArgValue::Null).unwrap_err();
    assert_eq!(
        (err.code.as_str(), err.message.as_str()),
        ("INVALID_ARGUMENT", "patch must be a string")
    );
    let err = w.apply(&missing, "".into()).unwrap_err();
    assert_eq!(
        (err.code.as_str(), err.message),
        ("NOT_FOUND", format!("file not found: {missing}"))
    );
    let err = w.apply(&format!("{}/src", w.root), "".into()).unwrap_err();
    assert_eq!(err.message, format!("file not found: {}/src", w.root));
    let err = w.apply("/ws/a\0b", "".into()).unwrap_err();
    assert_eq!(err.code, "INTERNAL");
    assert!(
        err.message.contains("without null bytes"),
        "{}",
        err.message
    );
    let p = w.file("src/main.ts", b"a\n");
    let err = w.apply(&p, "".into()).unwrap_err();
    assert_eq!(
        (err.code.as_str(), err.message.as_str()),
        ("APPLY_FAILED", "git apply failed with exit code 128: error: No valid patches in input (allow with \"--allow-empty\")")
    );
    let err = w.apply(&p, "@@ -1 +1 @@\n-old\n+new\n".into()).unwrap_err();
    assert_eq!(
        err.message,
        "git apply failed with exit code 128: error: patch fragment without header at line 1: @@ -1 +1 @@"
    );
}

#[test]
fn size_limit_is_ten_mebibytes() {
    let w = ws();
    let p = w.file("big.txt", b"");
    let f = fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(10 * 1024 * 1024).unwrap();
    let big = "--- a/big.txt\n+++ b/big.txt\n@@ -1 +1 @@\n-old\n+new\n";
    let err = w.apply(&p, big.into()).unwrap_err();
    assert_eq!(
        err.code, "APPLY_FAILED",
        "exactly 10 MiB passes the size check"
    );
    f.set_len(10 * 1024 * 1024 + 1).unwrap();
    let err = w.apply(&p, PATCH.into()).unwrap_err();
    assert_eq!(
        (err.code.as_str(), err.message.as_str()),
        (
            "FILE_TOO_LARGE",
            "file size exceeds the 10 MB limit (actual: 10.00)"
        )
    );
    f.set_len(15 * 1024 * 1024 + 123_456).unwrap();
    assert_eq!(
        w.apply(&p, PATCH.into()).unwrap_err().message,
        "file size exceeds the 10 MB limit (actual: 15.12)"
    );
    assert_eq!(
        mebibytes(10_616_832),
        "10.13",
        "halves round up as toFixed does"
    );
}

#[cfg(unix)] // Unix permission bits
#[test]
fn mode_symlinks_bom_and_deletion() {
    let w = ws();
    let p = w.file("src/main.ts", b"old\n");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    w.apply(&p, PATCH.into()).unwrap();
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );
    // a mode change in the patch sets or clears the executable bits only
    let chmod = "diff --git a/src/main.ts b/src/main.ts\nold mode 100644\nnew mode 100755\n";
    assert_eq!(w.apply(&p, chmod.into()).unwrap()["changed"], false);
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o750
    );

    // through a symlink that stays inside the workspace, the link's target is patched
    let target = w.file("real.ts", b"old\n");
    crate::sys::symlink("../real.ts", format!("{}/src/link.ts", w.root)).unwrap();
    let link_patch = "--- a/src/link.ts\n+++ b/src/link.ts\n@@ -1 +1 @@\n-old\n+new\n";
    let link = format!("{}/src/link.ts", w.root);
    assert_eq!(w.apply(&link, link_patch.into()).unwrap()["changed"], true);
    assert_eq!(fs::read(&target).unwrap(), b"new\n");
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());

    // a change that only drops a BOM decodes to the same text: changed is false (docs/compat.md, "apply_patch decides changed on decoded text")
    let bom = w.file("bom.ts", b"\xEF\xBB\xBFa\n");
    let patch = "--- a/bom.ts\n+++ b/bom.ts\n@@ -1 +1 @@\n-\u{feff}a\n+a\n";
    assert_eq!(w.apply(&bom, patch.into()).unwrap()["changed"], false);
    assert_eq!(fs::read(&bom).unwrap(), b"a\n");

    let del = w.file("gone.ts", b"a\n");
    let patch = "diff --git a/gone.ts b/gone.ts\ndeleted file mode 100644\n--- a/gone.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n";
    assert_eq!(w.apply(&del, patch.into()).unwrap()["changed"], true);
    assert!(!Path::new(&del).exists());
}

#[test]
fn a_failure_leaves_the_file_byte_for_byte() {
    let w = ws();
    let original = b"a\r\nb\xFF\nc\n".to_vec();
    let p = w.file("src/main.ts", &original);
    let id = || {
        crate::search_cache::FileId::stat(Path::new(&p), false)
            .unwrap()
            .1
    };
    let before = id();
    // the first hunk applies, the second does not: nothing is written
    let patch =
        "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1 +1 @@\n-a\r\n+A\r\n@@ -3 +3 @@\n-x\n+y\n";
    assert_eq!(w.apply(&p, patch.into()).unwrap_err().code, "APPLY_FAILED");
    assert_eq!(fs::read(&p).unwrap(), original);
    assert_eq!(before, id(), "the file's identity is unchanged");
    assert_eq!(w.entries("src"), 1);
}

#[test]
fn confined_calls_refuse_files_outside_the_root() {
    let w = ws();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.ts");
    fs::write(&secret, "old\n").unwrap();
    let err = w
        .apply(
            &secret.to_string_lossy(),
            "--- a/secret.ts\n+++ b/secret.ts\n@@ -1 +1 @@\n-old\n+new\n".into(),
        )
        .unwrap_err();
    assert!(err.message.contains("Sandbox Violation"), "{}", err.message);
    assert_eq!(fs::read(&secret).unwrap(), b"old\n");
}
