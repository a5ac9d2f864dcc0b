//! The entry for Rust programs: a workspace context, its task list, and `invoke(name, args)` with
//! the checks and results of the JavaScript `toolkit.invoke` (policy, write scope, sandbox, the
//! tool), on the calling thread.

use crate::context::ToolContext;
use crate::error::{ErrorCode, ToolError};
use crate::invoke::{self, CallSite, Rejection};
use crate::registry::{self, Handler};
use crate::tools::todo::{Listing, TodoState};
use crate::value::ArgValue;

/// Why `Toolkit::invoke` failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InvokeError {
    /// Refused before the tool ran: an unknown tool, the policy, arguments that are not an object.
    #[error("{code}: {message}")]
    Refused { code: ErrorCode, message: String },
    /// A path outside the workspace.
    #[error("{0}")]
    Sandbox(String),
    /// The tool's own error (`code` and message as in JavaScript).
    #[error(transparent)]
    Tool(#[from] ToolError),
}

impl From<Rejection> for InvokeError {
    fn from(rejection: Rejection) -> Self {
        match rejection {
            Rejection::Invoke { code, raw_message } => InvokeError::Refused {
                code,
                message: raw_message,
            },
            Rejection::Plain(message) => InvokeError::Sandbox(message),
            Rejection::Tool(e) => InvokeError::Tool(e),
        }
    }
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
        let opt_in = self.opt_in.contains(&name);
        let spec = registry::find_enabled(name, opt_in);
        let call = CallSite {
            name: name.to_string(),
            registered: spec.is_some(),
            is_write_op: spec.is_some_and(|s| s.effect.is_write_op()),
            bypass: false,
            opt_in,
        };
        let positional = invoke::prepare_invoke(&self.context, &call, &ArgValue::from(args))?;
        let text = match spec.map(|s| s.handler) {
            Some(Handler::Session(_)) => {
                let result =
                    invoke::run_session(name, Some(&self.todo), &positional, Listing::Text)?;
                if let Some(change) = &result.change {
                    self.todo.apply(change);
                }
                result.output
            }
            _ => invoke::run(&self.context, name, &positional, true)?,
        };
        Ok(serde_json::from_str(&text).expect("tool output is JSON"))
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
