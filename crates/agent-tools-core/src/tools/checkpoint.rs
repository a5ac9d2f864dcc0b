//! The checkpoint tools (docs/tools/checkpoint.md), opt-in: checkpoint_list and
//! checkpoint_restore, the undo journal (`crate::checkpoints`) offered to the model, so that an
//! agent can undo its own changes. They work on the journal of the toolkit's `checkpoints`
//! option (`ToolContext::edits`); without one they fail with `INVALID_ARGUMENT`.
//!
//! checkpoint_restore is a write tool: the call's own record (`invoke::begin_edit_record`)
//! captures nothing, as the restore writes its checkpoint itself (`Store::restore`), so a
//! restore adds exactly one checkpoint, its own.

use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::boolean;
use super::input::{tool_input, Field, ToolInput};
use super::to_json;
use crate::checkpoints::{CheckpointSummary, Store};
use crate::context::RunContext;
use crate::error::{ErrorClass, ToolError};
use crate::value::{js_trim, ArgValue};

pub const LIST_ERROR_CLASS: ErrorClass = ErrorClass("CheckpointListError");
pub const RESTORE_ERROR_CLASS: ErrorClass = ErrorClass("CheckpointRestoreError");

// checkpoint_list's input: none.
#[tool_input(
    name = "checkpoint_list",
    description = "Lists the undo journal's checkpoints, oldest first: one per call that changed files, with its id, tool, time and the files it created, modified or deleted.",
    effect = Read,
    class = LIST_ERROR_CLASS,
    output = CheckpointListOutput,
    handler = Worker(list),
    opt_in,
    shape = Object,
    object = plain_or_absent
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct CheckpointListInput {}

// checkpoint_restore's input, checked, with its default applied.
#[tool_input(
    name = "checkpoint_restore",
    description = "Puts the files a checkpoint and every later one changed back to their state before that checkpoint's call, all or nothing; a file changed since is a conflict unless force.",
    effect = Write,
    class = RESTORE_ERROR_CLASS,
    output = crate::checkpoints::RestoreOutcome,
    handler = Worker(run_restore),
    opt_in,
    shape = Object,
    object = plain
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct CheckpointRestoreInput {
    #[arg(check = checkpoint_id, review)]
    #[schemars(
        description = "The checkpoint to go back to: an id from checkpoint_list (e.g. \"cp-00000003\")."
    )]
    pub id: String,
    #[arg(check = boolean, default = false, review)]
    #[schemars(
        description = "Overwrite files changed since the journal recorded them (default: false: such a file is a conflict and nothing is restored)."
    )]
    pub force: bool,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct CheckpointListOutput {
    pub checkpoints: Vec<CheckpointSummary>,
}

/// `id`: a non-blank string.
fn checkpoint_id(f: Field<String>) -> Result<String, ToolError> {
    match f.value {
        ArgValue::String(id) if !js_trim(id).is_empty() => Ok(id.clone()),
        _ => Err(f.must("be a checkpoint id (a non-empty string from checkpoint_list)")),
    }
}

/// The journal of the call's workspace; the journal's errors (no journal, a directory that
/// cannot be used) reported as the tool's.
fn store(rc: &RunContext, class: ErrorClass) -> Result<Store, ToolError> {
    let store = match &rc.ctx.edits {
        Some(edits) => edits.journal_store(rc.ctx),
        None => Err(crate::checkpoints::no_journal()),
    };
    store.map_err(|e| e.in_class(class))
}

/// checkpoint_list's handler: `{ checkpoints }`, oldest first.
pub fn list(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    CheckpointListInput::from_args(args, rc.ctx)?;
    let checkpoints = store(rc, LIST_ERROR_CLASS)?
        .list()
        .map_err(|e| e.in_class(LIST_ERROR_CLASS))?;
    to_json(&CheckpointListOutput { checkpoints }, LIST_ERROR_CLASS)
}

/// checkpoint_restore's handler: parses its arguments, then `restore`s.
pub fn run_restore(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    restore(rc, CheckpointRestoreInput::from_args(args, rc.ctx)?)
}

/// `checkpoint_restore({ id, force? })`: the journal's restore (`Store::restore`), its
/// `RestoreOutcome` as the result.
pub fn restore(rc: &RunContext, input: CheckpointRestoreInput) -> Result<String, ToolError> {
    let outcome = store(rc, RESTORE_ERROR_CLASS)?
        .restore(&input.id, input.force)
        .map_err(|e| e.in_class(RESTORE_ERROR_CLASS))?;
    to_json(&outcome, RESTORE_ERROR_CLASS)
}

#[cfg(test)]
mod tests {
    use crate::context::ToolContext;
    use std::fs;
    use std::path::PathBuf;
    use std::sync::Arc;

    use serde_json::{json, Value};

    use super::*;
    use crate::checkpoints::{Journal, JournalOptions};
    use crate::context::EditHooks;
    use crate::error::{ErrorCode, Reason};
    use crate::toolkit::{InvokeError, Toolkit};

    /// A workspace `<tmp>/ws` and a journal directory `<tmp>/journal` beside it.
    struct Fixture {
        _dir: tempfile::TempDir,
        root: PathBuf,
        journal: PathBuf,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        fs::create_dir(&root).unwrap();
        let root = crate::sandbox::real_path(&root).unwrap();
        let journal = dir.path().join("journal");
        Fixture {
            _dir: dir,
            root,
            journal,
        }
    }

    impl Fixture {
        fn context(&self, journal: bool) -> ToolContext {
            let mut ctx = ToolContext::allow_all(&self.root.to_string_lossy());
            ctx.edits = Some(Arc::new(EditHooks {
                journal: journal.then(|| {
                    Journal::new(JournalOptions {
                        dir: Some(self.journal.clone()),
                        ..JournalOptions::default()
                    })
                }),
                ..EditHooks::default()
            }));
            ctx
        }

        fn toolkit_over(&self, ctx: ToolContext) -> Toolkit {
            let mut toolkit = Toolkit::new(ctx);
            toolkit.enable("checkpoint_list").unwrap();
            toolkit.enable("checkpoint_restore").unwrap();
            toolkit
        }

        fn toolkit(&self) -> Toolkit {
            self.toolkit_over(self.context(true))
        }

        fn read(&self, rel: &str) -> Option<Vec<u8>> {
            fs::read(self.root.join(rel)).ok()
        }
    }

    fn tool_error(e: InvokeError) -> ToolError {
        match e {
            InvokeError::Tool(e) => e,
            other => panic!("not the tool's error: {other:?}"),
        }
    }

    fn ids(listed: &Value) -> Vec<String> {
        listed["checkpoints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect()
    }

    /// The handler called directly with `args` (no front door).
    fn direct(
        ctx: &ToolContext,
        handler: fn(&RunContext, &[ArgValue]) -> Result<String, ToolError>,
        args: &[ArgValue],
    ) -> Result<String, ToolError> {
        let rc = RunContext {
            ctx,
            confinement: None,
        };
        handler(&rc, args)
    }

    #[test]
    fn restore_arguments_are_checked_in_order() {
        let f = fixture();
        let ctx = f.context(true);
        let cases: [(Vec<ArgValue>, &str); 8] = [
            (vec![], "input must be an object"),
            (vec![ArgValue::Null], "input must be an object"),
            (
                vec![ArgValue::from("cp-00000001")],
                "input must be an object",
            ),
            (
                vec![ArgValue::from(&json!({}))],
                "id must be a checkpoint id",
            ),
            (
                vec![ArgValue::from(&json!({"id": " "}))],
                "id must be a checkpoint id",
            ),
            (
                vec![ArgValue::from(&json!({"id": 1}))],
                "id must be a checkpoint id",
            ),
            // id first, then force
            (
                vec![ArgValue::from(&json!({"id": 1, "force": "yes"}))],
                "id must be a checkpoint id",
            ),
            (
                vec![ArgValue::from(
                    &json!({"id": "cp-00000001", "force": "yes"}),
                )],
                "force must be a boolean",
            ),
        ];
        for (args, message) in cases {
            let e = direct(&ctx, run_restore, &args).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{args:?}");
            assert_eq!(e.class_name, "CheckpointRestoreError");
            assert!(e.message.starts_with("INVALID_ARGUMENT: "), "{}", e.message);
            assert!(e.message.contains(message), "{args:?}: {}", e.message);
        }
        // a well-formed id the journal does not have
        let e = direct(
            &ctx,
            run_restore,
            &[ArgValue::from(&json!({"id": "cp-00000009", "force": null}))],
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::CheckpointNotFound, "{}", e.message);
        assert_eq!(e.class_name, "CheckpointRestoreError");
    }

    #[test]
    fn list_takes_an_object_or_nothing() {
        let f = fixture();
        let ctx = f.context(true);
        for args in [
            vec![],
            vec![ArgValue::Undefined],
            vec![ArgValue::from(&json!({}))],
        ] {
            let out: Value = serde_json::from_str(&direct(&ctx, list, &args).unwrap()).unwrap();
            assert_eq!(out, json!({"checkpoints": []}));
        }
        for args in [vec![ArgValue::Null], vec![ArgValue::from("x")]] {
            let e = direct(&ctx, list, &args).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument);
            assert_eq!(e.class_name, "CheckpointListError");
        }
    }

    #[test]
    fn without_a_journal_both_fail_naming_the_option() {
        let f = fixture();
        let mut bare = ToolContext::allow_all(&f.root.to_string_lossy());
        bare.edits = None;
        // hooks with the syntax check only
        let syntax_only = f.context(false);
        for ctx in [bare, syntax_only] {
            let mut toolkit = f.toolkit_over(ctx);
            let e = tool_error(toolkit.invoke("checkpoint_list", &json!({})).unwrap_err());
            assert_eq!(e.code, ErrorCode::InvalidArgument);
            assert_eq!(e.class_name, "CheckpointListError");
            assert!(e.message.contains("checkpoints: true"), "{}", e.message);
            let e = tool_error(
                toolkit
                    .invoke("checkpoint_restore", &json!({"id": "cp-00000001"}))
                    .unwrap_err(),
            );
            assert_eq!(e.code, ErrorCode::InvalidArgument);
            assert_eq!(e.class_name, "CheckpointRestoreError");
            assert!(e.message.contains("checkpoints: true"), "{}", e.message);
        }
        assert!(!f.journal.exists(), "no journal directory was made");
    }

    #[test]
    fn a_write_is_listed_and_undone_with_one_checkpoint_more() {
        let f = fixture();
        fs::write(f.root.join("a.txt"), b"before\r\n").unwrap();
        let mut tk = f.toolkit();
        assert_eq!(
            tk.invoke("checkpoint_list", &json!({})).unwrap(),
            json!({"checkpoints": []})
        );
        tk.invoke("write_file", &json!({"path": "a.txt", "content": "after"}))
            .unwrap();
        tk.invoke(
            "write_file",
            &json!({"path": "b/new.txt", "content": "new"}),
        )
        .unwrap();
        let listed = tk.invoke("checkpoint_list", &json!({})).unwrap();
        let checkpoints = listed["checkpoints"].as_array().unwrap();
        assert_eq!(checkpoints.len(), 2);
        assert_eq!(checkpoints[0]["tool"], "write_file");
        assert_eq!(
            checkpoints[0]["files"],
            json!([{"path": "a.txt", "change": "modified"}])
        );
        assert_eq!(
            checkpoints[1]["files"],
            json!([{"path": "b/new.txt", "change": "created"}])
        );
        assert_eq!(checkpoints[0]["restorable"], true);
        let first = checkpoints[0]["id"].as_str().unwrap().to_string();

        let out = tk
            .invoke("checkpoint_restore", &json!({"id": first}))
            .unwrap();
        assert_eq!(out["restored"], first.as_str());
        assert_eq!(
            out["files"],
            json!([
                {"path": "a.txt", "change": "modified"},
                {"path": "b/new.txt", "change": "deleted"}
            ])
        );
        assert_eq!(f.read("a.txt").unwrap(), b"before\r\n");
        assert_eq!(f.read("b/new.txt"), None);
        // exactly one checkpoint more: the restore's own (the call's record captured nothing)
        let after = tk.invoke("checkpoint_list", &json!({})).unwrap();
        let after_ids = ids(&after);
        assert_eq!(after_ids.len(), 3);
        assert_eq!(after_ids[..2], ids(&listed)[..]);
        let own = &after["checkpoints"][2];
        assert_eq!(own["id"], out["checkpoint"]);
        assert_eq!(own["tool"], "checkpoint_restore");
        assert_eq!(own["restored"], first.as_str());
        // restoring the restore redoes the writes
        tk.invoke("checkpoint_restore", &json!({"id": out["checkpoint"]}))
            .unwrap();
        assert_eq!(f.read("a.txt").unwrap(), b"after");
        assert_eq!(f.read("b/new.txt").unwrap(), b"new");
        assert_eq!(
            ids(&tk.invoke("checkpoint_list", &json!({})).unwrap()).len(),
            4
        );
    }

    #[test]
    fn a_file_changed_by_hand_is_a_conflict_unless_forced() {
        let f = fixture();
        fs::write(f.root.join("a.txt"), b"one").unwrap();
        let mut tk = f.toolkit();
        tk.invoke("write_file", &json!({"path": "a.txt", "content": "two"}))
            .unwrap();
        let id = ids(&tk.invoke("checkpoint_list", &json!({})).unwrap())[0].clone();
        fs::write(f.root.join("a.txt"), b"by hand").unwrap();
        let e = tool_error(
            tk.invoke("checkpoint_restore", &json!({"id": id, "force": false}))
                .unwrap_err(),
        );
        assert_eq!(e.code, ErrorCode::CheckpointConflict, "{}", e.message);
        assert_eq!(e.class_name, "CheckpointRestoreError");
        assert_eq!(e.details.as_deref(), Some(&json!({"files": ["a.txt"]})));
        assert_eq!(f.read("a.txt").unwrap(), b"by hand");
        assert_eq!(
            ids(&tk.invoke("checkpoint_list", &json!({})).unwrap()).len(),
            1,
            "a refused restore adds no checkpoint"
        );
        let out = tk
            .invoke("checkpoint_restore", &json!({"id": id, "force": true}))
            .unwrap();
        assert_eq!(out["restored"], id.as_str());
        assert_eq!(f.read("a.txt").unwrap(), b"one");
    }

    #[test]
    fn the_read_only_write_scope_refuses_restore_but_not_list() {
        let f = fixture();
        fs::write(f.root.join("a.txt"), b"one").unwrap();
        let id = {
            let mut tk = f.toolkit();
            tk.invoke("write_file", &json!({"path": "a.txt", "content": "two"}))
                .unwrap();
            ids(&tk.invoke("checkpoint_list", &json!({})).unwrap())[0].clone()
        };
        let mut ctx = f.context(true);
        ctx.write_scope = ArgValue::from("read-only");
        let mut tk = f.toolkit_over(ctx);
        assert_eq!(
            ids(&tk.invoke("checkpoint_list", &json!({})).unwrap()),
            std::slice::from_ref(&id)
        );
        match tk
            .invoke("checkpoint_restore", &json!({"id": id}))
            .unwrap_err()
        {
            InvokeError::Refused { reason, .. } => assert_eq!(reason, Some(Reason::Scope)),
            other => panic!("not refused by the write scope: {other:?}"),
        }
        assert_eq!(f.read("a.txt").unwrap(), b"two");
    }
}
