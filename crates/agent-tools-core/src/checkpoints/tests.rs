use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::context::EditHooks;
use crate::syntax_check::SyntaxMode;
use crate::toolkit::{InvokeError, Toolkit};
use crate::ToolContext;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    journal_dir: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    fs::create_dir(&root).unwrap();
    let root = crate::sandbox::real_path(&root).unwrap();
    let journal_dir = dir.path().join("journal");
    Fixture {
        _dir: dir,
        root,
        journal_dir,
    }
}

impl Fixture {
    fn options(&self) -> JournalOptions {
        JournalOptions {
            dir: Some(self.journal_dir.clone()),
            ..JournalOptions::default()
        }
    }

    fn toolkit_with(&self, journal: Option<JournalOptions>, syntax: Option<SyntaxMode>) -> Toolkit {
        let mut ctx = ToolContext::allow_all(&self.root.to_string_lossy());
        ctx.edits = Some(Arc::new(EditHooks {
            journal: journal.map(Journal::new),
            syntax,
            ..EditHooks::default()
        }));
        let mut toolkit = Toolkit::new(ctx);
        toolkit.enable("edit_file").unwrap();
        toolkit.enable("apply_patches").unwrap();
        toolkit
    }

    fn toolkit(&self) -> Toolkit {
        self.toolkit_with(Some(self.options()), None)
    }

    fn store(&self) -> Store {
        Journal::new(self.options()).store(&self.root).unwrap()
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn bytes(&self, rel: &str) -> Option<Vec<u8>> {
        fs::read(self.path(rel)).ok()
    }
}

fn mode_of(path: &Path) -> u32 {
    crate::sys::permission_bits(&fs::metadata(path).unwrap())
}

#[test]
fn a_write_is_undone_byte_and_mode_exact() {
    let f = fixture();
    let mut original = b"line one\r\nline two\n\xef\xbb\xbfno final newline".to_vec();
    // large enough to be kept by a link to its inode
    original.extend(std::iter::repeat_n(b'x', 100_000));
    fs::write(f.path("a.txt"), &original).unwrap();
    #[cfg(unix)]
    fs::set_permissions(
        f.path("a.txt"),
        std::os::unix::fs::PermissionsExt::from_mode(0o751),
    )
    .unwrap();
    let mode = mode_of(&f.path("a.txt"));
    let mut tk = f.toolkit();
    tk.invoke("write_file", &json!({"path": "a.txt", "content": "new"}))
        .unwrap();
    tk.invoke(
        "write_file",
        &json!({"path": "sub/b.txt", "content": "created"}),
    )
    .unwrap();
    let store = f.store();
    let list = store.list().unwrap();
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(list[0].tool, "write_file");
    assert_eq!(
        list[0].files,
        vec![CheckpointFile {
            path: "a.txt".into(),
            change: Change::Modified
        }]
    );
    assert_eq!(
        list[1].files,
        vec![CheckpointFile {
            path: "sub/b.txt".into(),
            change: Change::Created
        }]
    );
    assert!(list.iter().all(|c| c.restorable && !c.pruned));

    // the old content was kept (by a link where the file system allows it), no link is left
    assert!(store.object_path(&hash_of(&original)).is_file());
    let incoming = f.journal_dir.join("incoming");
    assert!(!incoming.exists() || fs::read_dir(&incoming).unwrap().next().is_none());
    let diff = store.diff(&list[0].id).unwrap();
    assert!(diff.contains("-new"), "{diff}");
    assert!(diff.contains("+line one"), "{diff}");
    assert!(diff.contains("--- a/sub/b.txt\n+++ /dev/null"), "{diff}");

    let out = store.restore(&list[0].id, false).unwrap();
    assert_eq!(out.restored, list[0].id);
    assert_eq!(f.bytes("a.txt").unwrap(), original);
    assert_eq!(mode_of(&f.path("a.txt")), mode);
    assert!(!f.path("sub/b.txt").exists());
    // the content the restore replaced was kept for its own checkpoint, no link is left
    assert!(store.object_path(&hash_of(b"new")).is_file());
    assert!(!incoming.exists() || fs::read_dir(&incoming).unwrap().next().is_none());
    // the restore is a checkpoint too: restoring it redoes both writes
    let redo = out.checkpoint.unwrap();
    let list = store.list().unwrap();
    assert_eq!(list.last().unwrap().id, redo);
    assert_eq!(list.last().unwrap().tool, "checkpoint_restore");
    assert_eq!(
        list.last().unwrap().restored.as_deref(),
        Some(list[0].id.as_str())
    );
    store.restore(&redo, false).unwrap();
    assert_eq!(f.bytes("a.txt").unwrap(), b"new");
    assert_eq!(f.bytes("sub/b.txt").unwrap(), b"created");
}

#[test]
fn edit_and_patches_are_undone_and_deletions_recreated() {
    let f = fixture();
    fs::write(f.path("code.js"), "const a = 1;\nconst b = 2;\n").unwrap();
    fs::write(f.path("gone.txt"), "keep me\n").unwrap();
    fs::write(f.path("moved.txt"), "moving\n").unwrap();
    let mut tk = f.toolkit();
    tk.invoke("read_file", &json!({"path": "code.js"})).unwrap();
    tk.invoke(
        "edit_file",
        &json!({"path": "code.js", "old_string": "const b = 2;", "new_string": "const b = 3;"}),
    )
    .unwrap();
    tk.invoke(
        "apply_patch",
        &json!({"filePath": "gone.txt", "patch": "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-keep me\n"}),
    )
    .unwrap();
    tk.invoke(
        "apply_patches",
        &json!({"patch": "*** Begin Patch\n*** Update File: moved.txt\n*** Move to: there/moved.txt\n@@\n-moving\n+moved\n*** End Patch"}),
    )
    .unwrap();
    assert!(!f.path("gone.txt").exists());
    let store = f.store();
    let list = store.list().unwrap();
    let tools: Vec<&str> = list.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(tools, ["edit_file", "apply_patch", "apply_patches"]);
    assert_eq!(list[1].files[0].change, Change::Deleted);
    let mut moved: Vec<_> = list[2]
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.change))
        .collect();
    moved.sort_by_key(|(p, _)| *p);
    assert_eq!(
        moved,
        [
            ("moved.txt", Change::Deleted),
            ("there/moved.txt", Change::Created)
        ]
    );

    store.restore(&list[0].id, false).unwrap();
    assert_eq!(f.bytes("code.js").unwrap(), b"const a = 1;\nconst b = 2;\n");
    assert_eq!(f.bytes("gone.txt").unwrap(), b"keep me\n");
    assert_eq!(f.bytes("moved.txt").unwrap(), b"moving\n");
    assert!(!f.path("there/moved.txt").exists());
}

#[test]
fn a_change_outside_the_journal_is_a_conflict_unless_forced() {
    let f = fixture();
    fs::write(f.path("a.txt"), "one").unwrap();
    let mut tk = f.toolkit();
    tk.invoke("write_file", &json!({"path": "a.txt", "content": "two"}))
        .unwrap();
    tk.invoke("write_file", &json!({"path": "b.txt", "content": "b"}))
        .unwrap();
    fs::write(f.path("a.txt"), "changed by hand").unwrap();
    let store = f.store();
    let first = store.list().unwrap()[0].id.clone();
    let e = store.restore(&first, false).unwrap_err();
    assert_eq!(e.code, ErrorCode::CheckpointConflict);
    assert!(e.message.contains("a.txt"), "{}", e.message);
    assert_eq!(e.details.as_deref(), Some(&json!({"files": ["a.txt"]})));
    // nothing was touched
    assert_eq!(f.bytes("a.txt").unwrap(), b"changed by hand");
    assert_eq!(f.bytes("b.txt").unwrap(), b"b");
    store.restore(&first, true).unwrap();
    assert_eq!(f.bytes("a.txt").unwrap(), b"one");
    assert!(!f.path("b.txt").exists());
}

#[test]
fn what_another_writer_puts_there_before_the_checkpoint_is_a_conflict() {
    let f = fixture();
    let store = f.store();
    for (name, theirs) in [
        ("same-size.txt", "THEIRS"),
        ("other-size.txt", "theirs, longer"),
    ] {
        let abs = f.path(name);
        fs::write(&abs, "before").unwrap();
        let call = CallRecord::new("write_file", Some(store.clone()), None, f.root.clone());
        call.before_change(&abs).unwrap();
        // as the tools write: a new file renamed over the old one (whose inode the journal keeps)
        let tmp = f.path("mine.tmp");
        fs::write(&tmp, "mine").unwrap();
        fs::rename(&tmp, &abs).unwrap();
        call.wrote(&abs, b"mine");
        // another writer, between the tool's write and the end of the call
        fs::write(&abs, theirs).unwrap();
        let id = call.commit(None).unwrap().unwrap();
        let e = store.restore(&id, false).unwrap_err();
        assert_eq!(e.code, ErrorCode::CheckpointConflict, "{name}");
        assert_eq!(f.bytes(name).unwrap(), theirs.as_bytes());
        store.restore(&id, true).unwrap();
        assert_eq!(f.bytes(name).unwrap(), b"before");
    }
}

#[test]
fn another_journal_handle_sees_and_restores_the_same_checkpoints() {
    let f = fixture();
    let mut a = f.toolkit();
    let mut b = f.toolkit();
    a.invoke("write_file", &json!({"path": "x.txt", "content": "from a"}))
        .unwrap();
    b.invoke("write_file", &json!({"path": "x.txt", "content": "from b"}))
        .unwrap();
    let other = Journal::new(f.options()).store(&f.root).unwrap();
    let list = other.list().unwrap();
    assert_eq!(list.len(), 2);
    other.restore(&list[1].id, false).unwrap();
    assert_eq!(f.bytes("x.txt").unwrap(), b"from a");
}

#[test]
fn pruning_keeps_the_byte_and_count_bounds_and_says_so() {
    let f = fixture();
    let options = JournalOptions {
        max_bytes: 10_000,
        max_checkpoints: 3,
        ..f.options()
    };
    let mut tk = f.toolkit_with(Some(options.clone()), None);
    for i in 0..6 {
        let old = format!("{i}").repeat(4_000);
        fs::write(f.path("big.txt"), &old).unwrap();
        tk.invoke("write_file", &json!({"path": "big.txt", "content": "x"}))
            .unwrap();
    }
    let store = Journal::new(options).store(&f.root).unwrap();
    let list = store.list().unwrap();
    let whole: Vec<_> = list.iter().filter(|c| !c.pruned).collect();
    assert_eq!(whole.len(), 2, "4 000 bytes each, 10 000 at most: {list:?}");
    assert!(list.iter().filter(|c| c.pruned).all(|c| !c.restorable));
    let pruned = list.iter().find(|c| c.pruned).unwrap();
    assert_eq!(
        store.restore(&pruned.id, false).unwrap_err().code,
        ErrorCode::CheckpointPruned
    );
    // contents on disk: only what the whole checkpoints name
    let mut stored = 0;
    for head in fs::read_dir(f.journal_dir.join("objects")).unwrap() {
        for obj in fs::read_dir(head.unwrap().path()).unwrap() {
            stored += obj.unwrap().metadata().unwrap().len();
        }
    }
    assert!(stored <= 10_000, "{stored}");
    assert_eq!(
        store.restore("cp-99999999", false).unwrap_err().code,
        ErrorCode::CheckpointNotFound
    );
}

#[test]
fn past_the_count_bound_a_batch_is_pruned_down_to_nine_tenths() {
    let f = fixture();
    let options = JournalOptions {
        max_checkpoints: 10,
        ..f.options()
    };
    let mut tk = f.toolkit_with(Some(options.clone()), None);
    let mut whole = |files: std::ops::Range<usize>| {
        for i in files {
            tk.invoke(
                "write_file",
                &json!({"path": format!("f{i}.txt"), "content": "x"}),
            )
            .unwrap();
        }
        let list = Journal::new(options.clone())
            .store(&f.root)
            .unwrap()
            .list()
            .unwrap();
        list.iter().filter(|c| !c.pruned).count()
    };
    assert_eq!(whole(0..10), 10, "at the bound nothing is pruned");
    assert_eq!(whole(10..11), 9, "past it, down to nine tenths at once");
    assert_eq!(whole(11..12), 10, "then calls go on without pruning");
}

#[test]
fn a_journal_directory_removed_between_calls_is_made_again() {
    let f = fixture();
    let mut tk = f.toolkit();
    tk.invoke("write_file", &json!({"path": "a.txt", "content": "one"}))
        .unwrap();
    fs::remove_dir_all(&f.journal_dir).unwrap();
    tk.invoke("write_file", &json!({"path": "a.txt", "content": "two"}))
        .unwrap();
    let list = f.store().list().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].files[0].change, Change::Modified);
}

#[test]
fn the_index_is_rebuilt_when_it_does_not_match_the_records() {
    let f = fixture();
    fs::write(f.path("a.txt"), "one").unwrap();
    let mut tk = f.toolkit();
    tk.invoke("write_file", &json!({"path": "a.txt", "content": "two"}))
        .unwrap();
    let index = f.journal_dir.join("index.json");
    assert!(index.exists());
    // a process killed between a record and the index: the index lacks the newest record
    fs::remove_file(&index).unwrap();
    // and a content nobody names (a commit killed before its record)
    let store = f.store();
    let orphan = store.put_object(b"orphan").unwrap();
    tk.invoke("write_file", &json!({"path": "a.txt", "content": "three"}))
        .unwrap();
    let list = store.list().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(
        list.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        ["cp-00000001", "cp-00000002"]
    );
    assert!(
        !store.object_path(&orphan).exists(),
        "the rebuild removes what no checkpoint names"
    );
    store.restore(&list[0].id, false).unwrap();
    assert_eq!(f.bytes("a.txt").unwrap(), b"one");
}

#[test]
fn an_index_cut_short_is_rebuilt() {
    let f = fixture();
    fs::write(f.path("a.txt"), "one").unwrap();
    let mut tk = f.toolkit();
    for text in ["two", "three"] {
        tk.invoke("write_file", &json!({"path": "a.txt", "content": text}))
            .unwrap();
    }
    // a write of the index killed halfway: a prefix of its JSON
    let index = f.journal_dir.join("index.json");
    let text = fs::read(&index).unwrap();
    fs::write(&index, &text[..text.len() / 2]).unwrap();
    tk.invoke("write_file", &json!({"path": "a.txt", "content": "four"}))
        .unwrap();
    let store = f.store();
    let ids: Vec<String> = store.list().unwrap().into_iter().map(|c| c.id).collect();
    assert_eq!(ids, ["cp-00000001", "cp-00000002", "cp-00000003"]);
    let rebuilt: Vec<IndexEntry> = serde_json::from_slice(&fs::read(&index).unwrap()).unwrap();
    assert_eq!(rebuilt.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
    store.restore("cp-00000001", false).unwrap();
    assert_eq!(f.bytes("a.txt").unwrap(), b"one");
}

#[test]
fn the_index_kept_in_memory_gives_way_to_other_writers_and_to_a_killed_ones_record() {
    let f = fixture();
    let mut a = f.toolkit();
    let mut b = f.toolkit();
    let write = |tk: &mut Toolkit, text: &str| {
        tk.invoke("write_file", &json!({"path": "x.txt", "content": text}))
            .unwrap();
    };
    write(&mut a, "a1");
    // another journal (another process) writes between two of a's calls
    write(&mut b, "b1");
    write(&mut b, "b2");
    write(&mut a, "a2");
    let ids = |store: &Store| -> Vec<String> {
        store.list().unwrap().into_iter().map(|c| c.id).collect()
    };
    let store = f.store();
    assert_eq!(
        ids(&store),
        ["cp-00000001", "cp-00000002", "cp-00000003", "cp-00000004"]
    );
    // a process killed after its record and before the index: the record a's index lacks
    let last: Checkpoint =
        serde_json::from_slice(&fs::read(store.checkpoint_path(4)).unwrap()).unwrap();
    let killed = Checkpoint {
        seq: 5,
        id: "cp-00000005".into(),
        ..last
    };
    fs::write(
        store.checkpoint_path(5),
        serde_json::to_vec(&killed).unwrap(),
    )
    .unwrap();
    write(&mut a, "a3");
    assert_eq!(
        ids(&store).last().unwrap(),
        "cp-00000006",
        "the killed process's record is not overwritten"
    );
    // every content is still there: each checkpoint restores
    for (id, text) in [("cp-00000004", "b2"), ("cp-00000002", "a1")] {
        store.restore(id, true).unwrap();
        assert_eq!(f.bytes("x.txt").unwrap(), text.as_bytes());
    }
}

#[test]
fn a_tampered_journal_cannot_lead_a_restore_outside() {
    let f = fixture();
    fs::write(f.path("a.txt"), "orig").unwrap();
    let mut tk = f.toolkit();
    tk.invoke("write_file", &json!({"path": "a.txt", "content": "a"}))
        .unwrap();
    let store = f.store();
    let id = store.list().unwrap()[0].id.clone();
    let file = f.journal_dir.join("checkpoints").join(format!("{id}.json"));
    let text = fs::read_to_string(&file).unwrap();
    let outside = f.root.parent().unwrap().join("escaped.txt");
    for bad in [
        "../escaped.txt",
        "/etc/passwd",
        "a/../../escaped.txt",
        "./a.txt",
        "",
    ] {
        fs::write(
            &file,
            text.replace("\"path\":\"a.txt\"", &format!("\"path\":{}", json!(bad))),
        )
        .unwrap();
        let e = store.restore(&id, true).unwrap_err();
        assert_eq!(e.code, ErrorCode::SandboxViolation, "{bad}: {}", e.message);
        assert!(!outside.exists());
    }
    // a directory of the workspace linked outside
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(f.root.parent().unwrap(), f.path("link")).unwrap();
        fs::write(
            &file,
            text.replace("\"path\":\"a.txt\"", "\"path\":\"link/escaped.txt\""),
        )
        .unwrap();
        assert!(store.restore(&id, true).is_err());
        assert!(!outside.exists());
    }
    // a content changed in the journal is not written back
    fs::write(&file, &text).unwrap();
    let object = store.object_path(&hash_of(b"orig"));
    fs::write(&object, "planted").unwrap();
    let e = store.restore(&id, true).unwrap_err();
    assert_eq!(e.code, ErrorCode::CheckpointCorrupt, "{}", e.message);
    assert_eq!(f.bytes("a.txt").unwrap(), b"a");
}

#[test]
fn the_journal_lives_outside_the_workspace() {
    let f = fixture();
    let inside = JournalOptions {
        dir: Some(f.path(".journal")),
        ..JournalOptions::default()
    };
    let mut tk = f.toolkit_with(Some(inside), None);
    let e = tk
        .invoke("write_file", &json!({"path": "a.txt", "content": "a"}))
        .unwrap_err();
    match e {
        InvokeError::Tool(e) => {
            assert_eq!(e.code, ErrorCode::InvalidArgument);
            assert_eq!(e.class_name, "WriteFileError");
        }
        other => panic!("{other:?}"),
    }
    assert!(!f.path("a.txt").exists());
    assert!(
        !f.path(".journal").exists(),
        "nothing of the journal is made inside"
    );
    let dir = default_dir(&f.root).unwrap();
    assert!(!crate::sandbox::is_within(&f.root, &dir));
    assert!(dir.to_string_lossy().contains("agent-tools-native"));
}

#[test]
fn nothing_is_recorded_without_a_change_or_for_reads() {
    let f = fixture();
    fs::write(f.path("a.txt"), "same").unwrap();
    let mut tk = f.toolkit();
    tk.invoke("write_file", &json!({"path": "a.txt", "content": "same"}))
        .unwrap();
    tk.invoke("read_file", &json!({"path": "a.txt"})).unwrap();
    assert_eq!(f.store().list().unwrap(), vec![]);
    // the link that kept the old content is gone with the call
    let incoming = f.journal_dir.join("incoming");
    assert!(!incoming.exists() || fs::read_dir(&incoming).unwrap().next().is_none());
}

#[test]
fn syntax_report_and_reject() {
    let f = fixture();
    fs::write(f.path("old.ts"), "function f( {\n").unwrap();
    let mut report = f.toolkit_with(None, Some(SyntaxMode::Report));
    let out = report
        .invoke(
            "write_file",
            &json!({"path": "a.ts", "content": "const x = ;\n"}),
        )
        .unwrap();
    let d = out["diagnostics"].as_array().unwrap();
    assert!(!d.is_empty());
    assert_eq!(d[0]["path"], "a.ts");
    assert_eq!(d[0]["line"], 1);
    let out = report
        .invoke(
            "write_file",
            &json!({"path": "b.ts", "content": "export const y = 1;\n"}),
        )
        .unwrap();
    assert_eq!(out["diagnostics"], json!([]));
    // a call that wrote no content has none
    let out = report
        .invoke(
            "apply_patch",
            &json!({"filePath": "b.ts", "patch": "--- a/b.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-export const y = 1;\n"}),
        )
        .unwrap();
    assert!(out.get("diagnostics").is_none(), "{out}");
    fs::write(f.path("b.ts"), "export const y = 1;\n").unwrap();

    let mut reject = f.toolkit_with(None, Some(SyntaxMode::Reject));
    let e = reject
        .invoke(
            "write_file",
            &json!({"path": "b.ts", "content": "export const y = ;\n"}),
        )
        .unwrap_err();
    let InvokeError::Tool(e) = e else {
        panic!("{e:?}")
    };
    assert_eq!(e.code, ErrorCode::SyntaxError);
    assert_eq!(e.class_name, "WriteFileError");
    assert!(e.details.unwrap()["diagnostics"][0]["path"] == "b.ts");
    assert_eq!(f.bytes("b.ts").unwrap(), b"export const y = 1;\n");
    // an error that was already there does not block an edit elsewhere in the file
    reject
        .invoke(
            "write_file",
            &json!({"path": "old.ts", "content": "// note\nfunction f( {\n"}),
        )
        .unwrap();
    // apply_patches: all files left as they were
    let e = reject
        .invoke(
            "apply_patches",
            &json!({"patch": "*** Begin Patch\n*** Add File: ok.txt\n+fine\n*** Update File: b.ts\n@@\n-export const y = 1;\n+export const y = (;\n*** End Patch"}),
        )
        .unwrap_err();
    let InvokeError::Tool(e) = e else {
        panic!("{e:?}")
    };
    assert_eq!(e.code, ErrorCode::SyntaxError);
    assert!(!f.path("ok.txt").exists());
    assert_eq!(f.bytes("b.ts").unwrap(), b"export const y = 1;\n");
}

#[test]
fn the_streamed_hash_is_the_stored_one() {
    let f = fixture();
    let content = vec![7u8; 200_000];
    fs::write(f.path("big.bin"), &content).unwrap();
    let (state, _) = capture::read_state(&f.path("big.bin"), &f.root, None).unwrap();
    let (kept, bytes) = capture::read_state(&f.path("big.bin"), &f.root, Some(u64::MAX)).unwrap();
    assert_eq!(state, kept);
    assert_eq!(bytes.unwrap(), content);
    assert_eq!(
        state.unwrap(),
        FileState::File {
            hash: Some(hash_of(&content)),
            size: 200_000,
            mode: mode_of(&f.path("big.bin"))
        }
    );
}

#[cfg(unix)]
mod commands {
    use super::*;

    fn sh(root: &Path, script: &str) {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn exec(tk: &mut Toolkit, script: &str) {
        let out = tk
            .invoke(
                "exec_command",
                &json!({"cwd": ".", "command": ["sh", "-c", script], "shell_mode": "direct"}),
            )
            .unwrap();
        assert_eq!(out["exit_code"], 0, "{out}");
    }

    /// The work tree as [`super::snapshot`] sees it, the repository left out.
    fn tree_of(root: &Path) -> Vec<(String, String)> {
        let mut all = super::snapshot(root);
        all.retain(|(rel, _)| rel != ".git" && !rel.starts_with(".git/"));
        all
    }

    fn git_state(root: &Path) -> (Vec<u8>, Vec<u8>, usize) {
        let count = ignore::WalkBuilder::new(root.join(".git/objects"))
            .hidden(false)
            .build()
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .count();
        (
            fs::read(root.join(".git/index")).unwrap(),
            fs::read(root.join(".git/HEAD")).unwrap(),
            count,
        )
    }

    #[test]
    fn a_command_in_a_git_work_tree_is_undone_exactly_and_the_repository_untouched() {
        let f = fixture();
        sh(
            &f.root,
            "git init -q -b main && git config user.name t && git config user.email t@example.com \
             && printf 'one\\r\\ntwo\\r\\n' > a.txt && printf '#!/bin/sh\\n' > run.sh && chmod 755 run.sh \
             && printf 'ignored.log\\n' > .gitignore && git add -A && git commit -qm init \
             && printf 'untracked' > notes.txt && chmod 600 notes.txt && printf 'x' > ignored.log",
        );
        let before = tree_of(&f.root);
        let repo = git_state(&f.root);
        let mut tk = f.toolkit();
        exec(
            &mut tk,
            "printf 'changed\\n' > a.txt && rm run.sh && printf 'new' > made.txt && printf 'more' >> notes.txt && mkdir -p d/e && printf 'deep' > d/e/f.txt",
        );
        let store = f.store();
        let list = store.list().unwrap();
        assert_eq!(list.len(), 1, "{list:?}");
        assert_eq!(list[0].tool, "exec_command");
        assert!(list[0].restorable);
        let mut files: Vec<(String, Change)> = list[0]
            .files
            .iter()
            .map(|f| (f.path.clone(), f.change))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            files,
            [
                ("a.txt".to_string(), Change::Modified),
                ("d/e/f.txt".to_string(), Change::Created),
                ("made.txt".to_string(), Change::Created),
                ("notes.txt".to_string(), Change::Modified),
                ("run.sh".to_string(), Change::Deleted),
            ]
        );
        // the repository's index, HEAD and objects are as they were
        assert_eq!(git_state(&f.root), repo);
        store.restore(&list[0].id, false).unwrap();
        assert_eq!(tree_of(&f.root), before);
        assert_eq!(git_state(&f.root), repo);
    }

    #[test]
    fn a_repository_that_converts_line_endings_still_gets_its_bytes_back() {
        let f = fixture();
        sh(
            &f.root,
            "git init -q -b main && git config user.name t && git config user.email t@example.com \
             && printf '* text=auto\\n' > .gitattributes && printf 'a\\r\\nb\\r\\n' > crlf.txt \
             && git add -A && git commit -qm init && printf 'c\\r\\n' >> crlf.txt",
        );
        let before = tree_of(&f.root);
        let mut tk = f.toolkit();
        exec(&mut tk, "printf 'gone' > crlf.txt");
        let store = f.store();
        let id = store.list().unwrap()[0].id.clone();
        store.restore(&id, false).unwrap();
        assert_eq!(tree_of(&f.root), before);
    }

    #[test]
    fn outside_git_the_changes_are_named_and_only_creations_restorable() {
        let f = fixture();
        fs::write(f.path("kept.txt"), "kept").unwrap();
        let mut tk = f.toolkit();
        exec(&mut tk, "printf 'new' > made.txt");
        exec(&mut tk, "printf 'edit' >> kept.txt");
        let store = f.store();
        let list = store.list().unwrap();
        assert_eq!(list.len(), 2, "{list:?}");
        assert_eq!(
            list[0].files,
            vec![CheckpointFile {
                path: "made.txt".into(),
                change: Change::Created
            }]
        );
        assert!(list[0].restorable);
        assert_eq!(
            list[1].files,
            vec![CheckpointFile {
                path: "kept.txt".into(),
                change: Change::Modified
            }]
        );
        assert!(!list[1].restorable);
        let e = store.restore(&list[1].id, false).unwrap_err();
        assert_eq!(e.code, ErrorCode::CheckpointNotRestorable);
        // restoring the first includes the second: refused too, nothing touched
        assert_eq!(
            store.restore(&list[0].id, false).unwrap_err().code,
            ErrorCode::CheckpointNotRestorable
        );
        assert!(f.path("made.txt").exists());
    }

    #[test]
    fn a_command_that_changes_nothing_records_nothing() {
        let f = fixture();
        sh(&f.root, "git init -q -b main && printf 'a' > a.txt");
        let mut tk = f.toolkit();
        exec(&mut tk, "cat a.txt > /dev/null");
        assert_eq!(f.store().list().unwrap(), vec![]);
    }
}

#[test]
fn contents_and_journal_directories_keep_the_names_earlier_versions_gave_them() {
    // XXH3 values (128 bits for contents, 64 for the default directory's key): a journal written
    // by an earlier version must still find its contents, and the same workspace its journal.
    assert_eq!(hash_of(b""), "99aa06d3014798d86001c324468d497f");
    assert_eq!(hash_of(b"orig"), "0dafb73c2fde6307ddc3bc5a5fb5f7dc");
    let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    assert_eq!(hash_of(&big), "b65af738c61b5fc15d12941f4cf541c5");
    // the same content hashed as it is read, in blocks
    let f = fixture();
    fs::write(f.path("big.bin"), &big).unwrap();
    let (state, _) = capture::read_state(&f.path("big.bin"), &f.root, None).unwrap();
    assert!(
        matches!(&state, Some(FileState::File { hash: Some(h), size: 300_000, .. }) if h == "b65af738c61b5fc15d12941f4cf541c5"),
        "{state:?}"
    );
    // the key is the hash of the path's text alone: a bare name serves
    if let Some(dir) = default_dir(Path::new("project")) {
        assert_eq!(
            dir.file_name().unwrap().to_string_lossy(),
            "project-fb14618ed48abbb8"
        );
    }
}

#[test]
fn what_a_killed_process_left_in_incoming_is_removed_when_a_journal_is_opened() {
    let f = fixture();
    let incoming = f.journal_dir.join("incoming");
    fs::create_dir_all(&incoming).unwrap();
    let (old, fresh) = (incoming.join("old"), incoming.join("fresh"));
    fs::write(&old, "a content taken two hours ago").unwrap();
    fs::write(&fresh, "a content another call holds now").unwrap();
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(two_hours_ago)
        .unwrap();
    f.store();
    assert!(!old.exists());
    assert!(fresh.exists());
}

/// Every path below `root` with what it is: a directory, a file's bytes and permission bits, a
/// link's target.
fn snapshot(root: &Path) -> Vec<(String, String)> {
    let mut all = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = fs::symlink_metadata(&path).unwrap();
            let what = if meta.file_type().is_symlink() {
                format!("-> {}", fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_string()
            } else {
                format!("{:o} {:?}", mode_of(&path), fs::read(&path).unwrap())
            };
            all.push((rel, what));
        }
    }
    all.sort();
    all
}

#[test]
fn a_restore_that_fails_at_any_step_leaves_everything_as_it_was() {
    let f = fixture();
    fs::create_dir_all(f.path("old/dir")).unwrap();
    fs::write(f.path("old/dir/kept.txt"), "kept").unwrap();
    fs::write(f.path("m.txt"), "before").unwrap();
    fs::write(f.path("gone.txt"), "deleted by the call").unwrap();
    let mut tk = f.toolkit();
    let patch = "*** Begin Patch\n*** Update File: m.txt\n@@\n-before\n+after\n*** Delete File: gone.txt\n*** Delete File: old/dir/kept.txt\n*** Add File: new/deep/n.txt\n+n\n*** Add File: e/x.txt\n+x\n*** End Patch";
    tk.invoke("apply_patches", &json!({ "patch": patch }))
        .unwrap();
    // a file where a directory was: the restore removes it, then writes into a directory
    fs::remove_dir_all(f.path("old")).unwrap();
    // a directory the first call created, left empty by a later one
    let patch = "*** Begin Patch\n*** Delete File: e/x.txt\n*** End Patch";
    tk.invoke("apply_patches", &json!({ "patch": patch }))
        .unwrap();
    tk.invoke(
        "write_file",
        &json!({"path": "old", "content": "a file now"}),
    )
    .unwrap();
    let store = f.store();
    let first = store.list().unwrap()[0].id.clone();
    let before = snapshot(&f.root);
    let count = store.list().unwrap().len();
    // one failure per step: a removal, a directory the calls created, a write (the one into
    // the directories the restore makes, after it made them; the last of all)
    for at in [
        "old",
        "new/deep/n.txt",
        "new/deep",
        "old/dir/kept.txt",
        "m.txt",
        "gone.txt",
    ] {
        let target = f.path(at);
        restore_hook(Some(Box::new(move |p: &Path| p == target)));
        let e = store.restore(&first, true).unwrap_err();
        restore_hook(None);
        assert!(
            e.message.contains("nothing was restored"),
            "{at}: {}",
            e.message
        );
        assert_eq!(snapshot(&f.root), before, "failing at {at}");
        assert_eq!(
            store.list().unwrap().len(),
            count,
            "failing at {at}: no checkpoint"
        );
    }
    let incoming = f.journal_dir.join("incoming");
    assert!(!incoming.exists() || fs::read_dir(&incoming).unwrap().next().is_none());
    // without the failure the same restore goes through
    store.restore(&first, true).unwrap();
    assert_eq!(f.bytes("m.txt").unwrap(), b"before");
    assert_eq!(f.bytes("gone.txt").unwrap(), b"deleted by the call");
    assert_eq!(f.bytes("old/dir/kept.txt").unwrap(), b"kept");
    assert!(!f.path("new").exists());
    assert!(!f.path("e").exists());
}

fn restore_hook(hook: Option<super::restore::FaultAt>) {
    super::restore::FAIL_AT.with(|h| *h.borrow_mut() = hook);
}
