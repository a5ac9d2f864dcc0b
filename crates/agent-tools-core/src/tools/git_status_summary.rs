//! git_status_summary (docs/tools/git_status_summary.md): the branch and raw porcelain status of
//! the repository holding a workspace directory.
//!
//! Like upstream it runs the `git` CLI twice through exec_command (direct mode, 30 s timeout,
//! default output cap), so exec_command's errors reach the caller wrapped once more as
//! `INTERNAL: <exec_command message>`. git runs with `LC_ALL=C` and without `LANGUAGE`
//! (docs/compat.md, "git runs with LC_ALL=C"), so "not a git repository" is recognised whatever the user's locale.

use std::time::Duration;

use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::exec_command::{self, ExecCommandOutput, ExecRequest};
use super::{to_json, workspace_root};
use crate::context::RunContext;
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::process::{CappedText, DEFAULT_MAX_OUTPUT_UNITS};
use crate::sandbox::resolve_in_workspace;
use crate::value::{js_trim, ArgValue};

pub const ERROR_CLASS: ErrorClass = ErrorClass("GitStatusSummaryError");

/// The locale settings git runs with.
const GIT_ENV: [(&str, Option<&str>); 2] = [("LC_ALL", Some("C")), ("LANGUAGE", None)];

const GIT_TIMEOUT: Duration = Duration::from_secs(30);

#[cfg_attr(feature = "typegen", derive(TS))]
#[allow(dead_code)]
pub struct GitStatusSummaryInput {
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub cwd: Option<String>,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct GitStatusSummaryOutput {
    pub repository_root: String,
    pub branch: Option<String>,
    #[cfg_attr(feature = "typegen", ts(type = "string"))]
    pub raw: CappedText,
}

pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let target = target_dir(rc, args.first().unwrap_or(&ArgValue::Undefined))?;
    if !std::fs::metadata(&target).is_ok_and(|m| m.is_dir()) {
        return Err(ERROR_CLASS.coded(
            ErrorCode::NotDirectory,
            format!("cwd is not a directory: {target}"),
        ));
    }
    // The two git processes are independent: run side by side, checked in upstream's order.
    let (rev_parse, status) = std::thread::scope(|scope| {
        let rev_parse = scope.spawn(|| {
            git(
                rc,
                &target,
                &["rev-parse", "--show-toplevel"],
                "failed to resolve repository root",
            )
        });
        let status = git(
            rc,
            &target,
            &[
                "-c",
                "core.quotePath=false",
                "status",
                "--porcelain=v1",
                "--branch",
            ],
            "failed to get git status",
        );
        let rev_parse = rev_parse.join().unwrap_or_else(|_| {
            Err(ERROR_CLASS.coded(ErrorCode::Internal, "failed to resolve repository root"))
        });
        (rev_parse, status)
    });
    let (rev_parse, status) = (rev_parse?, status?);
    to_json(
        &GitStatusSummaryOutput {
            repository_root: js_trim(rev_parse.stdout.text()).to_string(),
            branch: parse_branch(status.stdout.text()),
            raw: status.stdout,
        },
        ERROR_CLASS,
    )
}

/// Handler steps 1–3: the directory to inspect.
fn target_dir(rc: &RunContext, cwd: &ArgValue) -> Result<String, ToolError> {
    let root = workspace_root(rc, ERROR_CLASS)?;
    let cwd = match cwd {
        ArgValue::Undefined => return Ok(root.to_string()),
        ArgValue::String(s) if !js_trim(s).is_empty() => s.replace('\\', "/"),
        _ => {
            return Err(
                ERROR_CLASS.coded(ErrorCode::InvalidArgument, "cwd must be a non-empty string")
            )
        }
    };
    let drive_path_error = || {
        ERROR_CLASS.coded(
            ErrorCode::InvalidArgument,
            "cwd must not be an absolute Windows drive path",
        )
    };
    match (is_drive_path(&cwd), is_drive_path(root)) {
        (true, false) => Err(drive_path_error()),
        (true, true) => resolve_in_workspace(&cwd, root).map_err(|_| drive_path_error()),
        _ => resolve_in_workspace(&cwd, root)
            .map_err(|v| ERROR_CLASS.coded(ErrorCode::Internal, v.message)),
    }
}

/// `/^[a-zA-Z]:[\\/]/`.
fn is_drive_path(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'/' | b'\\')
}

/// Runs `git <args>` in `cwd`; a failed run becomes NOT_GIT_REPOSITORY or INTERNAL.
fn git(
    rc: &RunContext,
    cwd: &str,
    args: &[&str],
    failure: &str,
) -> Result<ExecCommandOutput, ToolError> {
    let request = ExecRequest {
        cwd: cwd.to_string(),
        command: std::iter::once("git")
            .chain(args.iter().copied())
            .map(String::from)
            .collect(),
        direct: true,
        stdin: None,
        timeout: GIT_TIMEOUT,
        max_output_units: DEFAULT_MAX_OUTPUT_UNITS,
    };
    let output = exec_command::execute(rc, &request, &GIT_ENV)
        .map_err(|e| ERROR_CLASS.coded(ErrorCode::Internal, e.message))?;
    if output.exit_code == 0 {
        return Ok(output);
    }
    let stderr = output.stderr.text();
    if stderr.to_lowercase().contains("not a git repository") {
        return Err(ERROR_CLASS.coded(
            ErrorCode::NotGitRepository,
            format!("not a git repository: {cwd}"),
        ));
    }
    let detail = js_trim(stderr);
    Err(ERROR_CLASS.coded(
        ErrorCode::Internal,
        if detail.is_empty() {
            failure.to_string()
        } else {
            format!("{failure}: {detail}")
        },
    ))
}

/// The branch named by the `## ...` header of `git status --porcelain=v1 --branch`, or `None`
/// (detached HEAD, no header).
pub fn parse_branch(raw: &str) -> Option<String> {
    let first = raw.split('\n').next().unwrap_or_default();
    let first = first.strip_suffix('\r').unwrap_or(first);
    let header = js_trim(first.strip_prefix("##")?);
    let is_detached = |h: &str| h == "HEAD" || h.starts_with("HEAD ");
    if header.is_empty() || is_detached(header) {
        return None;
    }
    for prefix in ["No commits yet on ", "Initial commit on "] {
        if let Some(rest) = header.strip_prefix(prefix) {
            let name = js_trim(rest);
            return (!name.is_empty()).then(|| name.to_string());
        }
    }
    let branch = js_trim(header.split("...").next().unwrap_or_default());
    if branch.is_empty() || is_detached(branch) {
        return None;
    }
    Some(branch.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ToolContext;
    use serde_json::{json, Value};
    use std::process::Command;

    #[test]
    fn branch_header_parsing() {
        let cases = [
            ("## main\n?? a\n", Some("main")),
            (
                "## feature/example...origin/feature/example [ahead 1]\n",
                Some("feature/example"),
            ),
            ("## HEAD (detached at 1234567)\n", None),
            ("## HEAD (no branch)\n", None),
            ("## HEAD\n", None),
            ("## No commits yet on main\n", Some("main")),
            ("## Initial commit on dev\r\n", Some("dev")),
            // The header is trimmed before the prefix test, as upstream does.
            ("## No commits yet on  \n", Some("No commits yet on")),
            ("##   \n", None),
            ("## ...origin/x\n", None),
            ("?? a.txt\n", None),
            ("", None),
            ("## main\r\n", Some("main")),
        ];
        for (raw, want) in cases {
            assert_eq!(parse_branch(raw).as_deref(), want, "{raw:?}");
        }
    }

    #[test]
    fn drive_paths_are_recognised() {
        assert!(is_drive_path("C:/work"));
        assert!(is_drive_path("c:\\work"));
        assert!(!is_drive_path("C:work"));
        assert!(!is_drive_path("/C:/work"));
        assert!(!is_drive_path("1:/x"));
    }

    struct Repo {
        _dir: tempfile::TempDir,
        root: String,
        ctx: ToolContext,
    }

    fn sh(cwd: &str, script: &str) {
        let ok = Command::new("sh")
            .args(["-c", script])
            .current_dir(cwd)
            .status()
            .unwrap()
            .success();
        assert!(ok, "{script}");
    }

    fn repo() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        let root = root.to_string_lossy().into_owned();
        sh(
            &root,
            "git init -q -b main && git config user.name t && git config user.email t@example.com",
        );
        let mut ctx = ToolContext::allow_all(&root);
        // Keep git from finding a repository above the temp dir.
        ctx.process_env = Some(
            std::env::vars()
                .chain([(
                    "GIT_CEILING_DIRECTORIES".to_string(),
                    dir.path().canonicalize().unwrap().to_string_lossy().into(),
                )])
                .collect(),
        );
        Repo {
            _dir: dir,
            root,
            ctx,
        }
    }

    fn call(ctx: &ToolContext, args: &[ArgValue]) -> Result<Value, ToolError> {
        let rc = RunContext {
            ctx,
            confinement: None,
        };
        run(&rc, args).map(|json| serde_json::from_str(&json).unwrap())
    }

    #[test]
    fn unborn_then_committed_repository() {
        let r = repo();
        std::fs::write(format!("{}/a.txt", r.root), "a").unwrap();
        std::fs::write(format!("{}/sub/b.txt", r.root), "b").unwrap();
        let out = call(&r.ctx, &[]).unwrap();
        assert_eq!(
            out,
            json!({"repository_root": r.root, "branch": "main",
                   "raw": "## No commits yet on main\n?? a.txt\n?? sub/\n"})
        );
        sh(&r.root, "git add a.txt && git commit -q -m one");
        let want =
            json!({"repository_root": r.root, "branch": "main", "raw": "## main\n?? sub/\n"});
        for arg in [".", "sub", "sub\\", "sub/"] {
            assert_eq!(call(&r.ctx, &[arg.into()]).unwrap(), want, "{arg}");
        }
        assert_eq!(
            serde_json::to_string(&call(&r.ctx, &[]).unwrap()).unwrap(),
            serde_json::to_string(&want).unwrap(),
            "key order"
        );
        sh(&r.root, "git checkout -q --detach");
        let out = call(&r.ctx, &[]).unwrap();
        assert_eq!(out["branch"], Value::Null);
        assert!(out["raw"]
            .as_str()
            .unwrap()
            .starts_with("## HEAD (no branch)"));
    }

    #[test]
    fn errors_follow_the_contract() {
        let r = repo();
        let root = &r.root;
        std::fs::write(format!("{root}/a.txt"), "a").unwrap();
        let message = |args: &[ArgValue]| call(&r.ctx, args).unwrap_err().message;
        assert_eq!(
            message(&["a.txt".into()]),
            format!("NOT_DIRECTORY: cwd is not a directory: {root}/a.txt")
        );
        assert_eq!(
            message(&["missing".into()]),
            format!("NOT_DIRECTORY: cwd is not a directory: {root}/missing")
        );
        assert_eq!(
            message(&[" ".into()]),
            "INVALID_ARGUMENT: cwd must be a non-empty string"
        );
        assert_eq!(
            message(&[ArgValue::Null]),
            "INVALID_ARGUMENT: cwd must be a non-empty string"
        );
        assert_eq!(
            message(&[ArgValue::Number(5.0)]),
            "INVALID_ARGUMENT: cwd must be a non-empty string"
        );
        assert_eq!(
            message(&["C:\\work".into()]),
            "INVALID_ARGUMENT: cwd must not be an absolute Windows drive path"
        );
        assert_eq!(
            message(&["..".into()]),
            "INTERNAL: [Sandbox Violation] Attempted to access path outside of workspace: \"..\""
        );

        let plain = format!("{root}/sub");
        std::fs::remove_dir_all(format!("{root}/.git")).unwrap();
        assert_eq!(
            message(&["sub".into()]),
            format!("NOT_GIT_REPOSITORY: not a git repository: {plain}")
        );

        let mut no_git = r.ctx.clone();
        no_git.process_env = Some(vec![("PATH".into(), "/nonexistent".into())]);
        assert_eq!(
            call(&no_git, &[]).unwrap_err().message,
            "INTERNAL: COMMAND_NOT_FOUND: command not found: git"
        );
    }

    #[test]
    fn git_runs_in_the_c_locale() {
        let r = repo();
        let mut ctx = r.ctx.clone();
        let mut env = ctx.process_env.take().unwrap();
        env.push(("LANGUAGE".into(), "de".into()));
        env.push(("LC_ALL".into(), "de_DE.UTF-8".into()));
        ctx.process_env = Some(env);
        let rc = RunContext {
            ctx: &ctx,
            confinement: None,
        };
        let request = ExecRequest {
            cwd: r.root.clone(),
            command: ["sh", "-c", "echo \"$LC_ALL|${LANGUAGE-unset}\""]
                .map(String::from)
                .to_vec(),
            direct: true,
            stdin: None,
            timeout: GIT_TIMEOUT,
            max_output_units: 1000,
        };
        let out = exec_command::execute(&rc, &request, &GIT_ENV).unwrap();
        assert_eq!(out.stdout.text(), "C|unset\n");
    }
}
