//! git_status_summary (docs/tools/git_status_summary.md): the branch and raw porcelain status of
//! the repository holding a workspace directory.
//!
//! Like upstream it runs the `git` CLI twice through exec_command (direct mode, 30 s timeout,
//! default output cap), so exec_command's errors reach the caller wrapped once more as
//! `INTERNAL: <exec_command message>`. git runs with `LC_ALL=C` and without `LANGUAGE`
//! (docs/compat.md, "git runs with LC_ALL=C"), so "not a git repository" is recognised whatever the user's locale.
//!
//! A repository is written by the model: its configuration can name programs (`core.fsmonitor`,
//! filter drivers, hooks, transports) that plain `git status` would run with the host's rights.
//! So git starts as `crate::git` prepares it: it never reads the repository's configuration, every
//! directory it uses lies inside the workspace, and it runs under the OS sandbox where the system
//! has one (nothing written, no network, and on Linux nothing executed but git itself).

use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::non_blank_string;
use super::exec_command::{ExecCommandOutput, GitRun};
use super::input::{tool_input, ToolInput};
use super::{to_json, workspace_root};
use crate::context::{RunContext, ToolContext};
use crate::error::{outside_workspace_message, ErrorClass, ErrorCode, Reason, ToolError};
use crate::git::{HardenedGit, Refusal};
use crate::process::CappedText;
use crate::sandbox::resolve_in_workspace;
use crate::value::{js_trim, ArgValue};

pub const ERROR_CLASS: ErrorClass = ErrorClass("GitStatusSummaryError");

// git_status_summary's input: `git_status_summary(cwd?)`.
#[tool_input(
    name = "git_status_summary",
    description = "Returns current git branch and raw porcelain status output for a workspace directory.",
    effect = Read,
    class = ERROR_CLASS,
    output = GitStatusSummaryOutput,
    handler = Worker(run),
    spawns_processes,
    shape = OptionalPath,
    before = workspace_root_first
)]
#[derive(JsonSchema, Debug)]
#[schemars(extend("required" = []))]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct GitStatusSummaryInput {
    #[arg(check = non_blank_string, default = ".")]
    #[schemars(
        description = "Workspace path to inspect (default: workspace root). Accepts / or \\\\ as separator; escape backslash in JSON (e.g. src\\\\tools)."
    )]
    pub cwd: Option<String>,
}

/// The workspace root is checked first, as upstream's handler resolves against it.
fn workspace_root_first(ctx: &ToolContext) -> Result<(), ToolError> {
    ctx.root().map(|_| ()).map_err(|m| ERROR_CLASS.internal(m))
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct GitStatusSummaryOutput {
    pub repository_root: String,
    pub branch: Option<String>,
    #[cfg_attr(feature = "typegen", ts(type = "string"))]
    pub raw: CappedText,
}

/// The handler: parses its arguments, then `summarise`s.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    summarise(rc, GitStatusSummaryInput::from_args(args, rc.ctx)?)
}

pub fn summarise(rc: &RunContext, input: GitStatusSummaryInput) -> Result<String, ToolError> {
    let target = target_dir(rc, input.cwd)?;
    if !std::fs::metadata(&target).is_ok_and(|m| m.is_dir()) {
        return Err(ERROR_CLASS.coded(
            ErrorCode::NotDirectory,
            format!("cwd is not a directory: {target}"),
        ));
    }
    let git = HardenedGit::prepare(rc.ctx, Path::new(&target)).map_err(|r| refusal(r, &target))?;
    // The two git processes are independent: run side by side, checked in upstream's order.
    let (rev_parse, status) = std::thread::scope(|scope| {
        let rev_parse = scope.spawn(|| {
            run_checked(
                rc,
                &target,
                &git,
                &["rev-parse", "--show-toplevel"],
                "failed to resolve repository root",
            )
        });
        let status = run_checked(
            rc,
            &target,
            &git,
            &[
                "-c",
                "core.quotePath=false",
                "status",
                "--porcelain=v1",
                "--branch",
                "--ignore-submodules=dirty",
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
fn target_dir(rc: &RunContext, cwd: Option<String>) -> Result<String, ToolError> {
    let root = workspace_root(rc, ERROR_CLASS)?;
    let cwd = match cwd {
        None => return Ok(root.to_string()),
        Some(s) => s.replace('\\', "/"),
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
            .map_err(|v| ERROR_CLASS.internal(v.message).refused(Reason::Sandbox)),
    }
}

/// `/^[a-zA-Z]:[\\/]/`.
fn is_drive_path(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'/' | b'\\')
}

/// Why git did not start, as this tool reports it.
fn refusal(refusal: Refusal, cwd: &str) -> ToolError {
    match refusal {
        Refusal::GitNotFound => ERROR_CLASS.coded(
            ErrorCode::Internal,
            "COMMAND_NOT_FOUND: command not found: git",
        ),
        Refusal::NotRepository => ERROR_CLASS.coded(
            ErrorCode::NotGitRepository,
            format!("not a git repository: {cwd}"),
        ),
        Refusal::Outside(what) => ERROR_CLASS
            .bare(
                ErrorCode::SandboxViolation,
                outside_workspace_message(&what),
            )
            .refused(Reason::Sandbox),
        Refusal::Git(message) => ERROR_CLASS.coded(
            ErrorCode::Internal,
            format!("failed to resolve repository root: {message}"),
        ),
    }
}

/// Runs `git <args>` in `cwd` under the program sandbox.
fn run_git(
    rc: &RunContext,
    cwd: &str,
    git: &HardenedGit,
    args: &[&str],
) -> Result<ExecCommandOutput, ToolError> {
    super::exec_command::run_git(rc, git, cwd, args, &[], &[], GitRun::default())
        .map_err(|e| ERROR_CLASS.coded(ErrorCode::Internal, e.message))
}

/// Runs `git <args>` in `cwd`; a failed run becomes NOT_GIT_REPOSITORY or INTERNAL.
fn run_checked(
    rc: &RunContext,
    cwd: &str,
    git: &HardenedGit,
    args: &[&str],
    failure: &str,
) -> Result<ExecCommandOutput, ToolError> {
    let output = run_git(rc, cwd, git, args)?;
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
    #[cfg(unix)]
    use crate::tools::exec_command::{self, ExecRequest};
    use serde_json::{json, Value};
    #[cfg(unix)]
    use std::process::Command;
    #[cfg(unix)]
    use std::time::Duration;

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

    #[cfg(unix)]
    struct Repo {
        _dir: tempfile::TempDir,
        root: String,
        ctx: ToolContext,
    }

    #[cfg(unix)]
    fn sh(cwd: &str, script: &str) {
        let ok = Command::new("sh")
            .args(["-c", script])
            .current_dir(cwd)
            .status()
            .unwrap()
            .success();
        assert!(ok, "{script}");
    }

    #[cfg(unix)]
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

    #[cfg(unix)]
    fn call(ctx: &ToolContext, args: &[ArgValue]) -> Result<Value, ToolError> {
        let rc = RunContext {
            ctx,
            confinement: None,
        };
        run(&rc, args).map(|json| serde_json::from_str(&json).unwrap())
    }

    #[cfg(unix)] // repositories are set up with `sh` scripts; Windows: windows_tests
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

    #[cfg(unix)] // repositories are set up with `sh` scripts; Windows: windows_tests
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

    #[cfg(unix)] // repositories are set up with `sh` scripts; Windows: windows_tests
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
            timeout: Duration::from_secs(30),
            max_output_units: 1000,
        };
        let git = HardenedGit::prepare(&ctx, Path::new(&r.root)).unwrap();
        let out = exec_command::execute(
            &rc,
            &request,
            &git.env(),
            exec_command::Sandboxing::ConfinedProgram(&[]),
        )
        .unwrap();
        assert_eq!(out.stdout.text(), "C|unset\n");
    }

    /// A repository configured (by whoever could write it) to run `evil.sh`, which appends to a
    /// marker file outside the workspace.
    #[cfg(unix)]
    struct Trap {
        repo: Repo,
        marker: std::path::PathBuf,
    }

    #[cfg(unix)]
    impl Trap {
        fn ran(&self) -> bool {
            std::fs::read_to_string(&self.marker).is_ok_and(|m| !m.is_empty())
        }

        /// `git status` as the tool runs it, with or without its preparation and sandbox.
        fn status(&self, hardened: bool, sandbox: bool) -> ExecCommandOutput {
            let rc = RunContext {
                ctx: &self.repo.ctx,
                confinement: None,
            };
            let git = HardenedGit::prepare(&self.repo.ctx, Path::new(&self.repo.root)).unwrap();
            let program = if hardened {
                git.program.as_str()
            } else {
                "git"
            };
            let request = ExecRequest {
                cwd: self.repo.root.clone(),
                command: [program, "status", "--porcelain=v1"]
                    .map(String::from)
                    .to_vec(),
                direct: true,
                stdin: None,
                timeout: Duration::from_secs(30),
                max_output_units: 10_000,
            };
            let env = if hardened { git.env() } else { vec![] };
            let sandboxing = if sandbox {
                exec_command::Sandboxing::ConfinedProgram(&[])
            } else {
                exec_command::Sandboxing::Command(crate::exec_sandbox::ExecOptions {
                    mode: crate::exec_sandbox::Mode::Off,
                    deny_network: false,
                })
            };
            exec_command::execute(&rc, &request, &env, sandboxing).unwrap()
        }
    }

    /// `setup` runs in the repository with `$EVIL` naming the program; the tracked file `a.txt`
    /// is then touched, so that git must look at it again.
    #[cfg(unix)]
    fn trap(setup: &str) -> Trap {
        let repo = repo();
        let outside = std::path::Path::new(&repo.root)
            .parent()
            .unwrap()
            .to_path_buf();
        let marker = outside.join("marker");
        let evil = outside.join("evil.sh");
        std::fs::write(
            &evil,
            format!("#!/bin/sh\necho ran >> '{}'\n", marker.display()),
        )
        .unwrap();
        sh(&repo.root, &format!("chmod +x '{}'", evil.display()));
        sh(
            &repo.root,
            "echo a > a.txt && git add a.txt && git commit -q -m one",
        );
        sh(&repo.root, &format!("EVIL='{}'; {setup}", evil.display()));
        // An older modification time than the index records: git has to read the file again.
        sh(&repo.root, "touch -d '2001-01-01' a.txt");
        Trap { repo, marker }
    }

    /// Two filter drivers with 100 000-character names before the real one: the deny-list this
    /// design replaced read driver names from output capped at 200 000 units.
    #[cfg(unix)]
    const PADDING: &str = "for n in 1 2; do printf '[filter \"%s%s\"]\\n\\tclean = cat\\n' $n \"$(head -c 100000 /dev/zero | tr '\\0' p)\" >> .git/config; done && echo '*.txt filter=evil' > .gitattributes && git config filter.evil.clean \"$EVIL\"";

    #[cfg(unix)]
    const VECTORS: [(&str, &str); 7] = [
        ("filter after 200 KB of padding", PADDING),
        ("fsmonitor", "git config core.fsmonitor \"$EVIL\""),
        (
            "clean filter",
            "echo '*.txt filter=evil' > .gitattributes && git config filter.evil.clean \"$EVIL\" && git config filter.evil.smudge \"$EVIL\"",
        ),
        (
            "process filter",
            "echo '*.txt filter=long' > .git/info/attributes && git config filter.long.process \"$EVIL\" && git config filter.long.required true",
        ),
        (
            "hooks path",
            "mkdir hooks && cp \"$EVIL\" hooks/post-index-change && git config core.hooksPath \"$PWD/hooks\"",
        ),
        (
            "include",
            "printf '[core]\\n\\tfsmonitor = %s\\n' \"$EVIL\" > ../included && git config include.path \"$PWD/../included\"",
        ),
        (
            "includeIf with a filter",
            "printf '[filter \"x=y\"]\\n\\tclean = %s\\n' \"$EVIL\" > ../included && git config includeIf.gitdir:/.path \"$PWD/../included\" && echo 'a.txt filter=x=y' > .gitattributes",
        ),
    ];

    #[cfg(unix)] // repositories are set up with `sh` scripts; Windows: windows_tests
    #[test]
    fn no_program_the_repository_configures_runs() {
        for (name, setup) in VECTORS {
            // The trap is real: plain `git status` runs the program.
            let t = trap(setup);
            t.status(false, false);
            assert!(t.ran(), "{name}: the vector does not fire with plain git");

            // The tool: nothing runs, and the status is still right.
            let t = trap(setup);
            let out = call(&t.repo.ctx, &[]).unwrap();
            assert!(!t.ran(), "{name}: git_status_summary ran the program");
            assert!(
                out["raw"].as_str().unwrap().starts_with("## main"),
                "{name}: {out}"
            );

            // Each layer holds on its own: the configuration without the OS sandbox ...
            let t = trap(setup);
            let out = t.status(true, false);
            assert!(!t.ran(), "{name}: the configuration let the program run");
            assert_eq!(out.exit_code, 0, "{name}: {}", out.stderr.text());
            // ... and the OS sandbox without the configuration (where the kernel has one).
            if crate::exec_sandbox::prepare_confined_program(std::path::Path::new("/bin/sh"), &[])
                .unwrap()
                .is_some()
            {
                let t = trap(setup);
                t.status(false, true);
                assert!(!t.ran(), "{name}: the OS sandbox let the program run");
            }
        }
    }

    /// Windows: `git` is found through `PATHEXT` (here a stand-in `git.exe`, the test binary
    /// in its `git` role, which answers like git for the two calls and prints the settings it
    /// was given), only in a `PATH` entry outside the workspace, and it gets the private git
    /// directory: the repository's filter and fsmonitor never reach it.
    #[cfg(windows)]
    mod windows_tests {
        use super::*;
        use crate::process::windows::test_helper;

        #[test]
        fn git_exe_is_found_through_pathext_and_given_no_program() {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("ws");
            let bin = dir.path().join("bin");
            let git_dir = root.join(".git");
            std::fs::create_dir_all(root.join("src")).unwrap();
            std::fs::create_dir_all(git_dir.join("objects")).unwrap();
            std::fs::create_dir_all(git_dir.join("refs").join("heads")).unwrap();
            std::fs::write(git_dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
            std::fs::write(
                git_dir.join("config"),
                "[core]\n\tautocrlf = true\n\tfsmonitor = C:/evil.exe\n[filter \"evil\"]\n\tclean = C:/evil.exe\n",
            )
            .unwrap();
            std::fs::create_dir(&bin).unwrap();
            test_helper::install_as(&bin, "git.exe");
            // A `git.exe` in the workspace, first on PATH: not a program, so running it would fail.
            std::fs::create_dir(root.join("bin")).unwrap();
            std::fs::write(root.join("bin").join("git.exe"), "not a program").unwrap();
            let root = root.to_string_lossy().into_owned();
            let mut ctx = ToolContext::allow_all(&root);
            assert_eq!(ctx.platform.as_deref(), Some("win32"));
            let mut env: Vec<(String, String)> = std::env::vars()
                .filter(|(k, _)| {
                    !k.eq_ignore_ascii_case("PATH") && !k.eq_ignore_ascii_case("PATHEXT")
                })
                .collect();
            let path = format!("{root}\\bin;bin;.;{}", bin.to_string_lossy());
            env.push(("Path".into(), path));
            env.push(("LC_ALL".into(), "fr_FR.UTF-8".into()));
            env.push(("GIT_DIR".into(), "C:/elsewhere/.git".into()));
            env.push(test_helper::role_var("git"));
            ctx.process_env = Some(env);
            let rc = RunContext {
                ctx: &ctx,
                confinement: None,
            };
            let out: Value =
                serde_json::from_str(&run(&rc, &[ArgValue::from("src")]).unwrap()).unwrap();
            let src = format!("{root}\\src").replace('\\', "/");
            assert_eq!(out["repository_root"], json!(src));
            assert_eq!(out["branch"], json!("main"));
            let raw = out["raw"].as_str().unwrap();
            assert!(
                raw.starts_with("## main\n M a.txt\nLC_ALL=C\nGIT_DIR="),
                "{raw}"
            );
            let private = raw
                .lines()
                .nth(3)
                .unwrap()
                .strip_prefix("GIT_DIR=")
                .unwrap();
            assert!(!private.is_empty() && !private.starts_with(&root), "{raw}");
            assert!(
                raw.contains("\nconfig=[core]|\trepositoryformatversion = 0|\tbare = false|\n"),
                "{raw}"
            );
            assert!(raw.contains("\ncore.autocrlf=true\n"), "{raw}");
            assert!(raw.contains("\ncore.fsmonitor=false\n"), "{raw}");
            assert!(!raw.contains("evil"), "{raw}");
            // The private directory is gone after the call.
            assert!(!std::path::Path::new(private).exists());
            // No git outside the workspace on the path: exec_command's error, wrapped.
            let mut ctx = ctx.clone();
            ctx.process_env = Some(vec![("Path".into(), format!("{root}\\bin"))]);
            let rc = RunContext {
                ctx: &ctx,
                confinement: None,
            };
            assert_eq!(
                run(&rc, &[]).unwrap_err().message,
                "INTERNAL: COMMAND_NOT_FOUND: command not found: git"
            );
        }
    }
}
