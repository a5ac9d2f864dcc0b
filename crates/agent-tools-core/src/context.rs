//! The caller's `ToolContext` as the core sees it. The JavaScript object is live (users mutate
//! it): the JavaScript layer keeps one native copy per context object while the fields the checks
//! read stay the same, and makes a new one whenever one of them changes (`contextHandle` in the
//! TypeScript layer), so an edit applies to the next call. Each call that may resolve a path works
//! on its own clone of that copy, which resolves the real root afresh.

use super::error::{ErrorClass, ToolError};
use super::sandbox::Confinement;
use super::value::ArgValue;

/// What a tool's handler sees besides its positional arguments.
pub struct RunContext<'a> {
    pub ctx: &'a ToolContext,
    /// `Some` when the call came through `invoke` or `toolkit.tools.*` (sandboxed); `None` for a
    /// direct `ToolCatalog[name].handler(...)` call, which upstream leaves unchecked.
    pub confinement: Option<Confinement>,
}

/// What a toolkit adds to the calls that change files: the undo journal
/// (`crate::checkpoints`) and the syntax check (`crate::syntax_check`).
#[derive(Debug, Default)]
pub struct EditHooks {
    pub journal: Option<super::checkpoints::Journal>,
    pub syntax: Option<super::syntax_check::SyntaxMode>,
    /// The syntax trees of the files checked last, for incremental parsing.
    pub trees: std::sync::Arc<super::syntax_check::Trees>,
}

impl EditHooks {
    /// The journal of `ctx`'s workspace, opened; without a journal, `no_journal()`.
    pub fn journal_store(&self, ctx: &ToolContext) -> Result<super::checkpoints::Store, ToolError> {
        let journal = self
            .journal
            .as_ref()
            .ok_or_else(super::checkpoints::no_journal)?;
        let root = ctx
            .real_root()
            .map_err(|e| super::checkpoints::ERROR_CLASS.internal(e))?;
        journal.store(root)
    }
}

impl RunContext<'_> {
    /// Called by every tool right before it creates, replaces or removes the file at `abs` (a
    /// resolved path): the journal records the file's state from before the call. Fails the
    /// call when that state cannot be read, before anything changed.
    pub fn before_change(&self, abs: &std::path::Path) -> Result<(), ToolError> {
        match &self.ctx.call {
            Some(call) => call.before_change(abs),
            None => Ok(()),
        }
    }

    /// Called by every tool right after it wrote `bytes` to the file at `abs` (a resolved
    /// path): the reads record and the journal learn the new content without reading it back.
    pub fn wrote(&self, abs: &std::path::Path, bytes: &[u8]) {
        if let Some(reads) = &self.ctx.reads {
            reads.record(abs, bytes);
        }
        if let Some(call) = &self.ctx.call {
            call.wrote(abs, bytes);
        }
    }

    /// The syntax check of a change of `abs` from `old` (`None`: the file on disk, read only
    /// when needed) to `new`, before it is written (`crate::syntax_check`).
    pub fn check_syntax(
        &self,
        abs: &std::path::Path,
        old: Option<&[u8]>,
        new: &[u8],
        class: ErrorClass,
    ) -> Result<(), ToolError> {
        match &self.ctx.call {
            Some(call) => call.check_syntax(abs, old, new, class),
            None => Ok(()),
        }
    }

    /// The one confinement check of the tools: for a confined call, `fd` (what the tool opened
    /// for `path`) must really lie inside the workspace, else the tool's error
    /// `INTERNAL: [Sandbox Violation] Attempted to access path outside of workspace: "<path>"`
    /// (`reason: Sandbox`). An unconfined call (a direct handler call) passes.
    pub fn confine<Fd: crate::sys::AsFd>(
        &self,
        fd: Fd,
        path: &str,
        class: ErrorClass,
    ) -> Result<(), ToolError> {
        match &self.confinement {
            Some(confinement) => confinement.confine(fd, path, class),
            None => Ok(()),
        }
    }
}

#[derive(Debug)]
pub struct ToolContext {
    /// `workspaceRoot` as given; `None` when it is not a string.
    pub workspace_root: Option<String>,
    /// `writeScope`; only `"read-only"` changes behaviour (docs/compat.md, "Module surface").
    pub write_scope: ArgValue,
    /// `policy` as given (`{ tools, defaultPolicy }`).
    pub policy: ArgValue,
    /// `env.platform`.
    pub platform: Option<String>,
    /// `exec` as given (`{ sandbox, network }`, validated by exec_command: `exec_sandbox`).
    pub exec: ArgValue,
    /// `searchCacheBytes` as given: the search cache's budget (`crate::search_cache`).
    pub search_cache_bytes: ArgValue,
    /// `permissions` as given: rules on a call's arguments (`crate::permissions`).
    pub permissions: ArgValue,
    /// The host's `process.env` at call time, for tools that start processes (the binding fills
    /// it in for them). Bun does not mirror `process.env` changes into the C environment, so the
    /// inherited environment alone would miss variables set at run time. `None`: this process's
    /// own environment.
    pub process_env: Option<Vec<(String, String)>>,
    /// Set when the caller can abort the call (the tool loop's `AbortSignal`).
    pub cancellation: Option<std::sync::Arc<super::cancel::Cancellation>>,
    /// What this context read or wrote through the toolkit, for edit_file's stale-read guard;
    /// `None` (nothing is recorded) unless a toolkit over this context enabled edit_file.
    pub reads: Option<std::sync::Arc<ReadLedger>>,
    /// The context's background processes (the process tools); `None` unless a toolkit over
    /// this context enabled them.
    pub processes: Option<std::sync::Arc<super::processes::ProcessTable>>,
    /// The undo journal and the syntax check of the calls that change files; `None` unless a
    /// toolkit over this context enabled one of them.
    pub edits: Option<std::sync::Arc<EditHooks>>,
    /// The journal and syntax-check record of the call under way (set on the call's own copy).
    pub call: Option<std::sync::Arc<super::checkpoints::CallRecord>>,
    /// The real (symlink-free) workspace root, resolved once per call and shared by every path
    /// check and the confinement of the call.
    real_root: std::sync::OnceLock<Result<std::path::PathBuf, String>>,
}

/// A clone resolves the real root afresh (its `workspace_root` may be changed).
impl Clone for ToolContext {
    fn clone(&self) -> Self {
        ToolContext {
            workspace_root: self.workspace_root.clone(),
            write_scope: self.write_scope.clone(),
            policy: self.policy.clone(),
            platform: self.platform.clone(),
            exec: self.exec.clone(),
            search_cache_bytes: self.search_cache_bytes.clone(),
            permissions: self.permissions.clone(),
            process_env: self.process_env.clone(),
            cancellation: self.cancellation.clone(),
            reads: self.reads.clone(),
            processes: self.processes.clone(),
            edits: self.edits.clone(),
            call: self.call.clone(),
            real_root: std::sync::OnceLock::new(),
        }
    }
}

/// Whether two environment variable names name one variable: equal, or on Windows equal but for
/// case.
fn same_variable(a: &str, b: &str, windows: bool) -> bool {
    a == b || (windows && a.eq_ignore_ascii_case(b))
}

/// Node's `process.platform` for Rust's `std::env::consts::OS` (the tools read Node's names:
/// `darwin` picks zsh for shell mode, `win32` the Windows rules).
pub fn node_platform(rust_os: &str) -> &str {
    match rust_os {
        "macos" => "darwin",
        "windows" => "win32",
        "solaris" | "illumos" => "sunos",
        other => other,
    }
}

impl ToolContext {
    /// Reads a context object (`{ workspaceRoot, writeScope, policy, env, exec }`).
    pub fn from_value(ctx: &ArgValue) -> ToolContext {
        ToolContext {
            workspace_root: ctx.get("workspaceRoot").as_str().map(str::to_string),
            write_scope: ctx.get("writeScope").clone(),
            policy: ctx.get("policy").clone(),
            platform: ctx.get("env").get("platform").as_str().map(str::to_string),
            exec: ctx.get("exec").clone(),
            search_cache_bytes: ctx.get("searchCacheBytes").clone(),
            permissions: ctx.get("permissions").clone(),
            process_env: None,
            cancellation: None,
            reads: None,
            processes: None,
            edits: None,
            call: None,
            real_root: std::sync::OnceLock::new(),
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
            platform: Some(node_platform(std::env::consts::OS).to_string()),
            exec: ArgValue::Undefined,
            search_cache_bytes: ArgValue::Undefined,
            permissions: ArgValue::Undefined,
            process_env: None,
            cancellation: None,
            reads: None,
            processes: None,
            edits: None,
            call: None,
            real_root: std::sync::OnceLock::new(),
        }
    }

    /// The environment a child process gets: `process_env` (or this process's environment) with
    /// `overrides` applied (`Some` sets, `None` removes).
    pub fn child_env(
        &self,
        overrides: &[(&str, Option<&str>)],
    ) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = match &self.process_env {
            Some(vars) => vars.iter().map(|(k, v)| (k.into(), v.into())).collect(),
            None => std::env::vars_os().collect(),
        };
        for (key, value) in overrides {
            // On Windows a variable is one whatever the case of its name.
            env.retain(|(k, _)| {
                !k.to_str()
                    .is_some_and(|k| same_variable(k, key, cfg!(windows)))
            });
            if let Some(value) = value {
                env.push((key.into(), value.into()));
            }
        }
        env
    }

    /// A variable of the host's environment (`process.env[name]`; on Windows, as there, whatever
    /// the case of its name).
    pub fn host_var(&self, name: &str) -> Option<std::ffi::OsString> {
        match &self.process_env {
            Some(vars) => vars
                .iter()
                .find(|(k, _)| same_variable(k, name, cfg!(windows)))
                .map(|(_, v)| v.into()),
            None => std::env::var_os(name),
        }
    }

    pub fn is_read_only(&self) -> bool {
        self.write_scope.as_str() == Some("read-only")
    }

    /// The real location of the workspace root (resolved on first use in this call).
    pub fn real_root(&self) -> Result<&std::path::Path, String> {
        self.real_root
            .get_or_init(|| {
                let root = self.root()?;
                super::sandbox::real_path(std::path::Path::new(&super::paths::absolute(root)))
                    .map_err(|e| e.to_string())
            })
            .as_deref()
            .map_err(Clone::clone)
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

/// The fingerprint of every file's content as this context last read or wrote it through the
/// toolkit, by real path: read_file and write_file record, edit_file checks and records. It lives
/// natively, one per JavaScript context object (kept beside it by the JavaScript layer, never on
/// it, so the context's shape does not change), and is shared by every call's copy of the context.
#[derive(Debug, Default)]
pub struct ReadLedger {
    seen: std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, u64>>,
}

impl ReadLedger {
    /// The fingerprint of a content (64-bit SipHash; the keys are fixed, so it is stable).
    pub fn fingerprint(bytes: &[u8]) -> u64 {
        use std::hash::Hasher;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        hasher.write(bytes);
        hasher.finish()
    }

    /// Records `bytes` as the content of `path` this context has seen.
    pub fn record(&self, path: &std::path::Path, bytes: &[u8]) {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let fingerprint = Self::fingerprint(bytes);
        if let Ok(mut seen) = self.seen.lock() {
            seen.insert(key, fingerprint);
        }
    }

    /// False when this context saw `path` with another content than `bytes`; true when it saw
    /// this content or never saw the file.
    pub fn is_current(&self, path: &std::path::Path, bytes: &[u8]) -> bool {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        match self.seen.lock() {
            Ok(seen) => seen
                .get(&key)
                .is_none_or(|&seen| seen == Self::fingerprint(bytes)),
            Err(_) => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_names_ignore_case_on_windows_only() {
        assert!(same_variable("PATH", "PATH", false));
        assert!(!same_variable("Path", "PATH", false));
        assert!(same_variable("Path", "PATH", true));
        assert!(!same_variable("PATHEXT", "PATH", true));
    }

    #[test]
    fn platforms_use_node_names() {
        assert_eq!(node_platform("macos"), "darwin");
        assert_eq!(node_platform("windows"), "win32");
        assert_eq!(node_platform("linux"), "linux");
        assert_eq!(node_platform("freebsd"), "freebsd");
        let ctx = ToolContext::allow_all("/ws");
        assert_eq!(
            ctx.platform.as_deref(),
            Some(node_platform(std::env::consts::OS))
        );
        assert_ne!(ctx.platform.as_deref(), Some("macos"));
    }

    #[cfg(unix)] // a symlinked root
    #[test]
    fn the_real_root_is_resolved_once_and_clones_start_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        std::fs::create_dir(real.join("ws")).unwrap();
        std::os::unix::fs::symlink(real.join("ws"), real.join("link")).unwrap();
        let ctx = ToolContext::allow_all(&real.join("link").to_string_lossy());
        assert_eq!(ctx.real_root().unwrap(), real.join("ws"));
        let first: *const std::path::Path = ctx.real_root().unwrap();
        assert_eq!(
            first,
            ctx.real_root().unwrap() as *const _,
            "cached, not resolved again"
        );
        let mut other = ctx.clone();
        other.workspace_root = Some(real.to_string_lossy().into_owned());
        assert_eq!(
            other.real_root().unwrap(),
            real,
            "a clone does not keep the old root"
        );
        let mut broken = ctx.clone();
        broken.workspace_root = None;
        assert!(broken.real_root().is_err());
    }

    #[test]
    fn overrides_replace_a_variable_whatever_its_case_on_windows() {
        let mut ctx = ToolContext::allow_all("/ws");
        ctx.process_env = Some(vec![
            ("Lc_All".into(), "fr".into()),
            ("KEEP".into(), "1".into()),
        ]);
        let env = ctx.child_env(&[("LC_ALL", Some("C"))]);
        let names: Vec<&str> = env.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        if cfg!(windows) {
            assert_eq!(names, ["KEEP", "LC_ALL"]);
        } else {
            assert_eq!(names, ["Lc_All", "KEEP", "LC_ALL"]);
        }
    }
}
