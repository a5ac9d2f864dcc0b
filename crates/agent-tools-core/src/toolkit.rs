//! The entry for Rust programs: a workspace context, its task list, and `invoke(name, args)` with
//! the checks and results of the JavaScript `toolkit.invoke` (policy, write scope, sandbox, the
//! tool), on the calling thread. It goes through the same plan as every JavaScript call
//! (`invoke::plan`).

use crate::context::ToolContext;
use crate::error::{ErrorCode, Reason, ToolError};
use crate::invoke::{self, Call, Door, Outcome, Plan};
use crate::registry;
use crate::tools::todo::TodoState;
use crate::value::ArgValue;

/// Why `Toolkit::invoke` failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InvokeError {
    /// Refused before the tool ran: an unknown tool, the policy, arguments that are not an
    /// object, the write scope; `reason` says which refusal it is (`None`: not a denial).
    #[error("{code}: {message}")]
    Refused {
        code: ErrorCode,
        message: String,
        reason: Option<Reason>,
    },
    /// A path outside the workspace.
    #[error("{0}")]
    Sandbox(String),
    /// The tool's own error (`code` and message as in JavaScript).
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// The built-in tools over one workspace.
pub struct Toolkit {
    context: ToolContext,
    todo: TodoState,
    /// The opt-in tools enabled (`enable`).
    opt_in: Vec<&'static str>,
}

impl Toolkit {
    /// A toolkit with an empty task list.
    pub fn new(context: ToolContext) -> Toolkit {
        Toolkit {
            context,
            todo: TodoState {
                tasks: Vec::new(),
                order: Vec::new(),
            },
            opt_in: Vec::new(),
        }
    }

    /// Enables the opt-in tool `name` (e.g. `edit_file`), as `extraTools` does in JavaScript.
    /// Its edits are checked against what this toolkit read (the context's read ledger, created
    /// here when the context has none).
    pub fn enable(&mut self, name: &str) -> Result<(), String> {
        let spec =
            registry::find_opt_in(name).ok_or_else(|| format!("not an opt-in tool: {name}"))?;
        if !self.opt_in.contains(&spec.name) {
            self.opt_in.push(spec.name);
        }
        if self.context.reads.is_none() {
            self.context.reads = Some(std::sync::Arc::new(crate::context::ReadLedger::default()));
        }
        Ok(())
    }

    pub fn context(&self) -> &ToolContext {
        &self.context
    }

    /// Runs the built-in tool `name` with `args` (its input object) and returns its output.
    pub fn invoke(
        &mut self,
        name: &str,
        args: &serde_json::Value,
    ) -> Result<serde_json::Value, InvokeError> {
        let call = Call {
            door: Door::Invoke,
            name: name.to_string(),
            // as the catalog says
            registered: None,
            is_write_op: None,
            bypass: false,
            run_built_in: true,
            opt_in: self.opt_in.contains(&name),
            approved: false,
        };
        let outcome = match invoke::plan(&self.context, &call, ArgValue::from(args)) {
            Plan::Done(outcome) => outcome,
            Plan::Inline(job) | Plan::Worker(job) => job.run(),
            Plan::Session(session) => {
                session.run(Some(&self.todo), crate::tools::todo::Listing::Text)
            }
        };
        match outcome {
            Outcome::Ok { json, change } => {
                if let Some(change) = change {
                    self.todo.apply(&change);
                }
                Ok(serde_json::from_str(&json).expect("tool output is JSON"))
            }
            Outcome::InvokeError {
                code,
                message,
                reason,
            } => Err(InvokeError::Refused {
                code,
                message,
                reason,
            }),
            Outcome::PlainError { message, .. } => Err(InvokeError::Sandbox(message)),
            Outcome::ToolError(e) => Err(InvokeError::Tool(e)),
            // Only a call that does not run the built-in handler, or comes through another door,
            // ends in these.
            other @ (Outcome::Prepared(_) | Outcome::Denied { .. } | Outcome::Failure { .. }) => {
                Err(InvokeError::Tool(
                    crate::error::ErrorClass("Error")
                        .internal(format!("unexpected outcome of invoke: {other:?}")),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_of_tool_and_every_kind_of_failure() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut toolkit = Toolkit::new(ToolContext::allow_all(root.to_str().unwrap()));
        let written = toolkit
            .invoke("write_file", &json!({"path": "a.txt", "content": "hi\n"}))
            .unwrap();
        assert_eq!(written["created"], true);
        let read = toolkit
            .invoke("read_file", &json!({"path": "a.txt"}))
            .unwrap();
        assert_eq!(read["content"], "hi\n");

        let created = toolkit
            .invoke(
                "task_create_many",
                &json!({"tasks": [{"title": "a"}, {"title": "b"}]}),
            )
            .unwrap();
        let first = created["tasks"][0]["task_id"].as_str().unwrap().to_string();
        toolkit
            .invoke(
                "task_update_status",
                &json!({"task_id": first, "status": "done"}),
            )
            .unwrap();
        let listed = toolkit.invoke("task_list", &json!({})).unwrap();
        assert_eq!(listed["tasks"][0]["status"], "done");
        assert_eq!(listed["tasks"][1]["status"], "todo");

        assert!(matches!(
            toolkit.invoke("read_file", &json!({"path": "../x"})),
            Err(InvokeError::Sandbox(m)) if m.starts_with("[Sandbox Violation]")
        ));
        let mut read_only = ToolContext::allow_all(root.to_str().unwrap());
        read_only.write_scope = "read-only".into();
        match Toolkit::new(read_only).invoke("write_file", &json!({"path": "b", "content": ""})) {
            Err(InvokeError::Refused {
                code: ErrorCode::ToolNotAllowed,
                message,
                reason: Some(Reason::Scope),
            }) => assert!(message.starts_with("[Sandbox Violation] Write operation denied")),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            toolkit.invoke("nope", &json!({})),
            Err(InvokeError::Refused {
                code: ErrorCode::ToolNotFound,
                ..
            })
        ));
        match toolkit.invoke("read_file", &json!({"path": "missing.txt"})) {
            Err(InvokeError::Tool(e)) => assert_eq!(e.code, ErrorCode::NotFound),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn opt_in_tools_run_only_when_enabled() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "x\n").unwrap();
        let mut toolkit = Toolkit::new(ToolContext::allow_all(root.to_str().unwrap()));
        let args = json!({"path": "a.txt", "old_string": "x", "new_string": "y"});
        match toolkit.invoke("edit_file", &args) {
            Err(InvokeError::Refused { code, .. }) => assert_eq!(code, ErrorCode::ToolNotFound),
            other => panic!("{other:?}"),
        }
        assert!(toolkit.enable("edit_files").is_err());
        toolkit.enable("edit_file").unwrap();
        let out = toolkit.invoke("edit_file", &args).unwrap();
        assert_eq!(out["stage"], "exact");
        assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "y\n");
        // the read ledger is on: a change behind the toolkit's back is refused
        std::fs::write(root.join("a.txt"), "y\nz\n").unwrap();
        let again = json!({"path": "a.txt", "old_string": "y", "new_string": "w"});
        match toolkit.invoke("edit_file", &again) {
            Err(InvokeError::Tool(e)) => assert_eq!(e.code, ErrorCode::StaleRead),
            other => panic!("{other:?}"),
        }
        // the sandbox applies
        let outside = json!({"path": "../x", "old_string": "y", "new_string": "w"});
        assert!(matches!(
            toolkit.invoke("edit_file", &outside),
            Err(InvokeError::Sandbox(_))
        ));
    }
}
