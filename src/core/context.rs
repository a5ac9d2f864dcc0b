//! The per-call view of the caller's `ToolContext`. The JavaScript object is live (users mutate
//! it), so the binding reads it afresh on every call and hands the core this snapshot.

use super::value::ArgValue;

#[derive(Debug, Clone)]
pub struct ToolContext {
    /// `workspaceRoot` as given; `None` when it is not a string.
    pub workspace_root: Option<String>,
    /// `writeScope`; only `"read-only"` changes behaviour (README §3.2).
    pub write_scope: ArgValue,
    /// `policy` as given (`{ tools, defaultPolicy }`).
    pub policy: ArgValue,
    /// `env.platform`.
    pub platform: Option<String>,
}

impl ToolContext {
    /// Reads a context object (`{ workspaceRoot, writeScope, policy, env }`).
    pub fn from_value(ctx: &ArgValue) -> ToolContext {
        ToolContext {
            workspace_root: ctx.get("workspaceRoot").as_str().map(str::to_string),
            write_scope: ctx.get("writeScope").clone(),
            policy: ctx.get("policy").clone(),
            platform: ctx.get("env").get("platform").as_str().map(str::to_string),
        }
    }

    /// A context rooted at `root` with an allow-all policy (Rust tests and the demo).
    pub fn allow_all(root: &str) -> ToolContext {
        ToolContext {
            workspace_root: Some(root.to_string()),
            write_scope: ArgValue::from("workspace-write"),
            policy: ArgValue::Object(vec![
                ("tools".into(), ArgValue::Object(vec![])),
                ("defaultPolicy".into(), "allow".into()),
            ]),
            platform: Some(std::env::consts::OS.to_string()),
        }
    }

    pub fn is_read_only(&self) -> bool {
        self.write_scope.as_str() == Some("read-only")
    }

    /// The workspace root for path work; a non-string root behaves like Node's `path.resolve`
    /// refusing it.
    pub fn root(&self) -> Result<&str, String> {
        self.workspace_root.as_deref().ok_or_else(|| {
            "The \"paths[0]\" argument must be of type string. Received a non-string workspaceRoot"
                .to_string()
        })
    }
}
