//! exec_command (docs/tools/exec_command.md): runs one command through the shared process runner
//! (`core::process`) and reports its exit code and captured output.
//!
//! The shell wrapper follows `context.env.platform` (docs/compat.md, "exec_command default mode follows context.env.platform"); the kill strategy follows the
//! host (a process group, docs/compat.md, "exec_command timeouts kill the whole process group"; a Job Object on Windows, docs/windows-port.md). When the call came through a front door, the working
//! directory is opened and checked to lie inside the workspace, and the child starts in exactly
//! that opened directory, so a directory swapped for a symlink after the check cannot move it.
//! With `context.exec.sandbox` on, the child also restricts itself before it executes the
//! command (`crate::exec_sandbox`; docs/tools/exec_command.md, "OS sandbox").

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{non_blank_string, number_in, one_of, string};
use super::input::{tool_input, Field, ToolInput};
use super::to_json;
use crate::context::{RunContext, ToolContext};
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::exec_sandbox::{self, ExecEnv, ExecOptions, ExecSandbox, Mode, Refusal};
use crate::paths;
use crate::process::{self, CappedText, RunSpec, DEFAULT_MAX_OUTPUT_UNITS};
use crate::sandbox::Confinement;
use crate::sys::{AsFd, OwnedFd};
use crate::value::{js_trim, ArgValue};

pub const ERROR_CLASS: ErrorClass = ErrorClass("ExecCommandError");

/// The defaults of `shell_mode` and `timeout_ms` (in the definition and in `from_args`; the
/// default of `max_output_chars` is `process::DEFAULT_MAX_OUTPUT_UNITS`).
const DEFAULT_SHELL_MODE: ShellMode = ShellMode::Default;
const DEFAULT_TIMEOUT_MS: u32 = 30_000;

#[derive(JsonSchema, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typegen", derive(TS))]
pub enum ShellMode {
    Default,
    Direct,
}

// exec_command's input: `exec_command(input)`, defaults applied.
#[tool_input(
    name = "exec_command",
    description = "Runs a command once in the workspace and returns stdout, stderr, and exit code.",
    effect = Exec,
    class = ERROR_CLASS,
    output = ExecCommandOutput,
    handler = Worker(run),
    spawns_processes,
    shape = Object,
    sandboxed = cwd,
    object = engine
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ExecCommandInput {
    #[arg(check = non_blank_string, review)]
    #[schemars(description = "Working directory path in workspace.")]
    pub cwd: String,
    #[arg(check = command_tokens, review)]
    #[schemars(description = "Only the target command tokens to run (e.g. bun run dev).")]
    pub command: Vec<String>,
    #[arg(check = one_of(SHELL_MODES), default = DEFAULT_SHELL_MODE)]
    #[schemars(
        description = "Use default to apply OS shell wrapper automatically (default: default)."
    )]
    pub shell_mode: ShellMode,
    // checked last, as upstream does
    #[arg(check = string, after = max_output_chars)]
    #[schemars(description = "UTF-8 stdin text.")]
    pub stdin: Option<String>,
    #[arg(check = number_in(1.0..=120_000.0), default = DEFAULT_TIMEOUT_MS)]
    #[schemars(description = "Execution timeout in milliseconds (default: 30000).")]
    pub timeout_ms: f64,
    #[arg(check = number_in(1000.0..=1_000_000.0), default = DEFAULT_MAX_OUTPUT_UNITS)]
    #[schemars(description = "Per-stream output char limit (default: 200000).")]
    pub max_output_chars: f64,
}

pub(crate) const SHELL_MODES: &[(&str, ShellMode)] = &[
    ("default", ShellMode::Default),
    ("direct", ShellMode::Direct),
];

/// `command`: a non-empty array of non-empty strings.
pub(crate) fn command_tokens(f: Field<Vec<String>>) -> Result<Vec<String>, ToolError> {
    match f.value {
        ArgValue::Array(items) if !items.is_empty() => items
            .iter()
            .map(|item| match item {
                ArgValue::String(s) if s.is_empty() => Err(f.error("elements must not be empty")),
                ArgValue::String(s) => Ok(s.clone()),
                _ => Err(f.must("contain only string elements")),
            })
            .collect(),
        _ => Err(f.must("be a non-empty string array")),
    }
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ExecCommandOutput {
    pub cwd: String,
    pub command: Vec<String>,
    pub exit_code: i64,
    #[cfg_attr(feature = "typegen", ts(type = "string"))]
    pub stdout: CappedText,
    #[cfg_attr(feature = "typegen", ts(type = "string"))]
    pub stderr: CappedText,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub timed_out: bool,
    pub duration_ms: u64,
    // What the OS sandbox enforced; present only when `context.exec.sandbox` is `"auto"` or
    // `"required"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub sandbox: Option<ExecSandbox>,
}

/// A validated call.
pub(crate) struct ExecRequest {
    pub cwd: String,
    pub command: Vec<String>,
    pub direct: bool,
    pub stdin: Option<String>,
    pub timeout: Duration,
    pub max_output_units: usize,
}

/// Which OS sandbox a run gets.
#[derive(Clone, Copy)]
pub(crate) enum Sandboxing<'a> {
    /// exec_command's `context.exec` option.
    Command(ExecOptions),
    /// A program the toolkit runs itself (git), writing only in the given directories (its
    /// private ones): `exec_sandbox::prepare_confined_program`.
    ConfinedProgram(&'a [PathBuf]),
}

/// The handler: parses its arguments, then runs the `command`.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    command(rc, ExecCommandInput::from_args(args, rc.ctx)?)
}

pub fn command(rc: &RunContext, input: ExecCommandInput) -> Result<String, ToolError> {
    let request = request(input)?;
    let options = ExecOptions::from_value(&rc.ctx.exec).map_err(|m| ERROR_CLASS.invalid(m))?;
    let removed = exec_env_overrides(rc.ctx)?;
    let overrides: Vec<(&str, Option<&str>)> =
        removed.iter().map(|name| (name.as_str(), None)).collect();
    let output = execute(rc, &request, &overrides, Sandboxing::Command(options))?;
    to_json(&output, ERROR_CLASS)
}

/// The host's variables that `env` leaves out.
fn removed_variables(ctx: &ToolContext, env: &ExecEnv) -> Vec<String> {
    if *env == ExecEnv::Inherit {
        return Vec::new();
    }
    let names: Vec<String> = match &ctx.process_env {
        Some(vars) => vars.iter().map(|(k, _)| k.clone()).collect(),
        None => std::env::vars_os()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect(),
    };
    names.into_iter().filter(|k| !env.keeps(k)).collect()
}

/// Validation steps 1–8 of upstream, in order.
#[cfg(test)]
fn validate(input: &ArgValue) -> Result<ExecRequest, ToolError> {
    request(ExecCommandInput::from_args(
        std::slice::from_ref(input),
        &ToolContext::from_value(&ArgValue::Undefined),
    )?)
}

/// Step 8 (the working directory), then the request.
pub(crate) fn request(input: ExecCommandInput) -> Result<ExecRequest, ToolError> {
    let ExecCommandInput {
        cwd,
        command,
        shell_mode,
        stdin,
        timeout_ms,
        max_output_chars,
    } = input;
    if !std::fs::metadata(&cwd).is_ok_and(|m| m.is_dir()) {
        return Err(not_a_directory(&cwd));
    }
    Ok(ExecRequest {
        cwd,
        command,
        direct: shell_mode == ShellMode::Direct,
        stdin,
        timeout: Duration::from_secs_f64(timeout_ms / 1000.0),
        // A fractional cap keeps whole units only (`slice(0, 1000.5)` keeps 1000).
        max_output_units: max_output_chars.floor() as usize,
    })
}

fn not_a_directory(cwd: &str) -> ToolError {
    ERROR_CLASS.coded(
        ErrorCode::NotDirectory,
        format!("cwd is not a directory: {cwd}"),
    )
}

/// A finite number in `range` (fractions allowed; docs/compat.md, "exec_command accepts fractional timeout_ms and max_output_chars"); `undefined`/`null` → `default`.
/// A command ready to start: the checked directory, the program and its arguments, the OS
/// sandbox and the environment.
pub(crate) struct Launch {
    /// The directory opened and checked (kept open until the child has started in it).
    pub confined: Option<(OwnedFd, PathBuf)>,
    pub argv: Vec<String>,
    pub sandbox: Option<exec_sandbox::Prepared>,
    /// `None`: this process's environment as it is.
    pub env: Option<Vec<(OsString, OsString)>>,
    /// Where the child starts (the open directory's path where there is one).
    pub spawn_cwd: PathBuf,
}

/// Checks the directory, resolves the command and prepares its sandbox and environment.
/// `env_overrides` adjust the child's environment (git_status_summary's git settings,
/// `context.exec.env`).
pub(crate) fn launch(
    rc: &RunContext,
    request: &ExecRequest,
    env_overrides: &[(&str, Option<&str>)],
    sandboxing: Sandboxing<'_>,
) -> Result<Launch, ToolError> {
    let confined = match &rc.confinement {
        Some(confinement) => Some(confined_dir(confinement, &request.cwd)?),
        None => None,
    };
    let platform = rc.ctx.platform.as_deref().unwrap_or_default();
    let argv = if request.direct {
        let program =
            resolve_direct(rc, &request.command[0], &request.cwd, platform).ok_or_else(|| {
                ERROR_CLASS.coded(
                    ErrorCode::CommandNotFound,
                    format!("command not found: {}", request.command[0]),
                )
            })?;
        std::iter::once(program)
            .chain(request.command[1..].iter().cloned())
            .collect()
    } else {
        shell_wrapped(&request.command, platform)
    };
    // Set up before the fork (the child only applies it); the private TMPDIR lives as long as
    // the `Launch`.
    let sandbox = match sandboxing {
        Sandboxing::Command(options) if options.mode == Mode::Off => None,
        Sandboxing::Command(options) => {
            Some(exec_sandbox::prepare(rc.ctx, options, &tmp_base(rc)).map_err(refused)?)
        }
        Sandboxing::ConfinedProgram(writable) => {
            exec_sandbox::prepare_confined_program(Path::new(&argv[0]), writable)
                .map_err(refused)?
        }
    };
    let tmpdir = sandbox
        .as_ref()
        .and_then(|s| s.tmpdir.as_ref())
        .map(|t| t.path().to_string_lossy().into_owned());
    let mut overrides = env_overrides.to_vec();
    if let Some(tmpdir) = &tmpdir {
        overrides.push(("TMPDIR", Some(tmpdir.as_str())));
    }
    let env = (rc.ctx.process_env.is_some() || !overrides.is_empty())
        .then(|| rc.ctx.child_env(&overrides));
    let spawn_cwd = match &confined {
        Some((_, path)) => path.clone(),
        None => PathBuf::from(&request.cwd),
    };
    Ok(Launch {
        confined,
        argv,
        sandbox,
        env,
        spawn_cwd,
    })
}

/// `context.exec.env` as environment changes: the host's variables it leaves out, removed.
pub(crate) fn exec_env_overrides(ctx: &ToolContext) -> Result<Vec<String>, ToolError> {
    let env = ExecEnv::from_value(&ctx.exec).map_err(|m| ERROR_CLASS.invalid(m))?;
    Ok(removed_variables(ctx, &env))
}

/// Resolves the command, runs it under `sandboxing` and builds the output. `env_overrides`
/// adjust the child's environment (git_status_summary's git settings); exec_command itself
/// passes what `context.exec.env` removes.
pub(crate) fn execute(
    rc: &RunContext,
    request: &ExecRequest,
    env_overrides: &[(&str, Option<&str>)],
    sandboxing: Sandboxing<'_>,
) -> Result<ExecCommandOutput, ToolError> {
    let launch = launch(rc, request, env_overrides, sandboxing)?;
    let finished = process::run(&RunSpec {
        argv: &launch.argv,
        cwd: Some(&launch.spawn_cwd),
        cwd_dir: launch.confined.as_ref().map(|(dir, _)| dir.as_fd()),
        env: launch.env.as_deref(),
        stdin: request.stdin.as_deref().map(str::as_bytes),
        timeout: Some(request.timeout),
        max_output_units: request.max_output_units,
        cancel: rc.ctx.cancellation.as_deref(),
        restriction: launch.sandbox.as_ref().and_then(|s| s.restriction.as_ref()),
    })
    .map_err(|e| ERROR_CLASS.coded(ErrorCode::Internal, e.message()))?;
    if finished.cancelled {
        return Err(ERROR_CLASS.coded(ErrorCode::Internal, "the call was aborted"));
    }
    let Launch {
        confined, sandbox, ..
    } = launch;
    drop(confined);
    Ok(ExecCommandOutput {
        cwd: request.cwd.clone(),
        command: request.command.clone(),
        exit_code: finished.exit_code,
        stdout_truncated: finished.stdout.truncated(),
        stderr_truncated: finished.stderr.truncated(),
        stdout: finished.stdout,
        stderr: finished.stderr,
        timed_out: finished.timed_out,
        duration_ms: finished.duration_ms,
        sandbox: match sandboxing {
            Sandboxing::Command(_) => sandbox.map(|s| s.report),
            Sandboxing::ConfinedProgram(_) => None,
        },
    })
}

/// How long a run of git may take, how much of its output is kept and what it reads on stdin.
pub(crate) struct GitRun {
    pub timeout: Duration,
    pub max_output_units: usize,
    pub stdin: Option<String>,
}

impl Default for GitRun {
    fn default() -> Self {
        GitRun {
            timeout: Duration::from_secs(30),
            max_output_units: DEFAULT_MAX_OUTPUT_UNITS,
            stdin: None,
        }
    }
}

/// Runs `git <args>` (the hardened `git`) in `cwd` under the confined-program sandbox, with
/// git's environment changed further by `env` (later entries win); git may write only in
/// `writable` (directories of the caller's own, outside the workspace).
pub(crate) fn run_git(
    rc: &RunContext,
    git: &crate::git::HardenedGit,
    cwd: &str,
    args: &[&str],
    env: &[(&str, Option<&str>)],
    writable: &[PathBuf],
    run: GitRun,
) -> Result<ExecCommandOutput, ToolError> {
    let request = ExecRequest {
        cwd: cwd.to_string(),
        command: std::iter::once(git.program.as_str())
            .chain(args.iter().copied())
            .map(String::from)
            .collect(),
        direct: true,
        stdin: run.stdin,
        timeout: run.timeout,
        max_output_units: run.max_output_units,
    };
    let mut all = git.env();
    all.extend_from_slice(env);
    execute(rc, &request, &all, Sandboxing::ConfinedProgram(writable))
}

/// Where the private temporary directory of a sandboxed call goes: the host's `TMPDIR` when it
/// is an absolute path, else the system's.
fn tmp_base(rc: &RunContext) -> PathBuf {
    rc.ctx
        .host_var("TMPDIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(std::env::temp_dir)
}

fn refused(refusal: Refusal) -> ToolError {
    match refusal {
        Refusal::Unavailable(reason) => ERROR_CLASS.coded(
            ErrorCode::SandboxUnavailable,
            format!("the OS sandbox cannot be enforced here: {reason}"),
        ),
        Refusal::Failed(message) => ERROR_CLASS.internal(message),
    }
}

/// Opens `cwd`, checks that the directory really lies inside the workspace and returns the open
/// directory with the path the child should start in (the open directory itself on Linux). On
/// Windows the directory handle is held without delete sharing (`crate::sys::fs::open`), so
/// while the child starts nobody can rename or remove it and its final path still names it.
fn confined_dir(confinement: &Confinement, cwd: &str) -> Result<(OwnedFd, PathBuf), ToolError> {
    use crate::sys::fs::{Mode, OFlags};
    let flags = OFlags::DIRECTORY | OFlags::CLOEXEC;
    #[cfg(linux_native)]
    let flags = flags | OFlags::PATH;
    let dir = crate::sys::fs::open(cwd, flags, Mode::empty()).map_err(|_| not_a_directory(cwd))?;
    confinement.confine(&dir, cwd, ERROR_CLASS)?;
    // The child inherits the descriptor until it executes (close-on-exec), so it changes into
    // exactly this directory; elsewhere the directory's current real path is the best we have.
    #[cfg(linux_native)]
    let path = {
        use std::os::fd::AsRawFd;
        PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()))
    };
    #[cfg(portable)]
    let path = crate::sandbox::fd_path(&dir).ok_or_else(|| not_a_directory(cwd))?;
    Ok((dir, path))
}

/// `shell_mode: "default"`: the platform's wrapper around the tokens.
fn shell_wrapped(tokens: &[String], platform: &str) -> Vec<String> {
    match platform {
        "win32" => {
            let quoted: Vec<String> = tokens
                .iter()
                .map(|t| format!("'{}'", t.replace('\'', "''")))
                .collect();
            ["pwsh.exe", "-NoLogo", "-NoProfile", "-Command"]
                .iter()
                .map(|s| s.to_string())
                .chain(std::iter::once(format!("& {}", quoted.join(" "))))
                .collect()
        }
        "darwin" => {
            let quoted: Vec<String> = tokens
                .iter()
                .map(|t| {
                    if t.is_empty() {
                        "''".to_string()
                    } else {
                        format!("'{}'", t.replace('\'', "'\"'\"'"))
                    }
                })
                .collect();
            vec!["zsh".into(), "-lc".into(), quoted.join(" ")]
        }
        _ => tokens.to_vec(),
    }
}

/// `shell_mode: "direct"`: the full path of `name`, or `None` (COMMAND_NOT_FOUND).
fn resolve_direct(rc: &RunContext, name: &str, cwd: &str, platform: &str) -> Option<String> {
    let win32 = platform == "win32";
    let usable = |candidate: &str| is_runnable_file(candidate, win32);
    if name.contains('/') || name.contains('\\') {
        let candidate = if cfg!(windows) {
            // `Path::join` replaces `cwd` with an absolute `name`, keeps only its drive for a
            // rooted one (`\x`), as `path.win32.resolve` does.
            host_absolute(&Path::new(cwd).join(name).to_string_lossy())
        } else if name.starts_with('/') {
            name.to_string()
        } else {
            paths::resolve(cwd, name)
        };
        return usable(&candidate).then_some(candidate);
    }
    let path_var = rc.ctx.host_var("PATH").unwrap_or_default();
    let path_var = path_var.to_string_lossy();
    // Node's `path.delimiter`: the host's, whatever `platform` says.
    let delimiter = if cfg!(windows) { ';' } else { ':' };
    let extensions = if win32 {
        windows_extensions(rc.ctx.host_var("PATHEXT"))
    } else {
        Vec::new()
    };
    let upper_name = name.to_uppercase();
    for dir in path_var
        .split(delimiter)
        .map(js_trim)
        .filter(|d| !d.is_empty())
    {
        // `path.join(dir, name)`; a relative PATH entry counts from this process's directory.
        let join = |file: &str| host_absolute(&format!("{dir}/{file}"));
        let mut candidates = Vec::new();
        if !win32 || extensions.iter().any(|ext| upper_name.ends_with(ext)) {
            candidates.push(join(name));
        }
        candidates.extend(extensions.iter().map(|ext| join(&format!("{name}{ext}"))));
        if let Some(found) = candidates.into_iter().find(|c| usable(c)) {
            return Some(found);
        }
    }
    None
}

/// `PATHEXT` entries (trimmed, non-empty, upper-cased) or Windows' default list.
fn windows_extensions(pathext: Option<OsString>) -> Vec<String> {
    let listed: Vec<String> = pathext
        .map(|v| {
            v.to_string_lossy()
                .split(';')
                .map(js_trim)
                .filter(|e| !e.is_empty())
                .map(str::to_uppercase)
                .collect()
        })
        .unwrap_or_default();
    if listed.is_empty() {
        [".COM", ".EXE", ".BAT", ".CMD"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        listed
    }
}

/// A regular file (symlinks followed) that may be executed (the execute check is skipped for
/// `win32`, as upstream does, and on a Windows host, which has no execute permission).
fn is_runnable_file(path: &str, win32: bool) -> bool {
    #[cfg(unix)]
    let executable = || rustix::fs::access(path, rustix::fs::Access::EXEC_OK).is_ok();
    #[cfg(windows)]
    let executable = || true;
    std::fs::metadata(path).is_ok_and(|m| m.is_file()) && (win32 || executable())
}

/// `path.resolve` of the host for a path joined with `/`: the POSIX rule (`paths::absolute`)
/// on Unix; on Windows std's (`GetFullPathNameW`: drive-relative and rooted paths, `.`/`..`,
/// `\` as the separator), which is what `path.win32.resolve` gives for these joins.
fn host_absolute(path: &str) -> String {
    #[cfg(windows)]
    {
        std::path::absolute(path)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| path.to_string())
    }
    #[cfg(not(windows))]
    {
        paths::absolute(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFF: ExecOptions = ExecOptions {
        mode: Mode::Off,
        deny_network: false,
    };
    use crate::context::ToolContext;
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
        // Windows: no `\\?\` form (what `canonicalize` gives), which cmd.exe refuses as `cwd`.
        #[cfg(windows)]
        let root = dir.path().join("ws");
        #[cfg(unix)]
        let root = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        let root = root.to_string_lossy().into_owned();
        let mut ctx = ToolContext::allow_all(&root);
        ctx.platform = Some("linux".into());
        Ws {
            _dir: dir,
            ctx,
            root,
        }
    }

    fn call(ctx: &ToolContext, input: Value) -> Result<Value, ToolError> {
        let rc = RunContext {
            ctx,
            confinement: None,
        };
        run(&rc, &[ArgValue::from(&input)]).map(|json| serde_json::from_str(&json).unwrap())
    }

    fn message(ctx: &ToolContext, input: Value) -> String {
        call(ctx, input).unwrap_err().message
    }

    #[cfg(unix)] // POSIX programs (echo, sh, pwd, true), modes or symlinks; Windows: windows_tests
    #[test]
    fn output_has_the_contract_shape() {
        let w = ws();
        let out = call(
            &w.ctx,
            json!({"cwd": w.root, "command": ["echo", "hi there", "$HOME"]}),
        )
        .unwrap();
        let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "cwd",
                "command",
                "exit_code",
                "stdout",
                "stderr",
                "stdout_truncated",
                "stderr_truncated",
                "timed_out",
                "duration_ms"
            ]
        );
        assert_eq!(out["stdout"], "hi there $HOME\n");
        assert_eq!(out["exit_code"], 0);
        assert_eq!(out["cwd"], w.root.as_str());
        assert_eq!(out["command"], json!(["echo", "hi there", "$HOME"]));
    }

    #[test]
    fn validation_order_and_messages() {
        let w = ws();
        let r = w.root.as_str();
        let cases = [
            (json!({"command": ["ls"]}), "cwd must be a non-empty string"),
            (
                json!({"cwd": " \n", "command": 1}),
                "cwd must be a non-empty string",
            ),
            (
                json!({"cwd": r, "command": "echo hi"}),
                "command must be a non-empty string array",
            ),
            (
                json!({"cwd": r, "command": []}),
                "command must be a non-empty string array",
            ),
            (
                json!({"cwd": r, "command": ["echo", 1, ""]}),
                "command must contain only string elements",
            ),
            (
                json!({"cwd": r, "command": ["echo", "", 1]}),
                "command elements must not be empty",
            ),
            (
                json!({"cwd": r, "command": ["ls"], "shell_mode": "bash", "timeout_ms": 0}),
                "shell_mode must be \"default\" or \"direct\"",
            ),
            (
                json!({"cwd": r, "command": ["ls"], "timeout_ms": 0}),
                "timeout_ms must be between 1 and 120000",
            ),
            (
                json!({"cwd": r, "command": ["ls"], "timeout_ms": 120001}),
                "timeout_ms must be between 1 and 120000",
            ),
            (
                json!({"cwd": r, "command": ["ls"], "timeout_ms": "5"}),
                "timeout_ms must be between 1 and 120000",
            ),
            (
                json!({"cwd": r, "command": ["ls"], "max_output_chars": 999, "stdin": 1}),
                "max_output_chars must be between 1000 and 1000000",
            ),
            (
                json!({"cwd": r, "command": ["ls"], "stdin": null}),
                "stdin must be a string",
            ),
            (
                json!({"cwd": r, "command": ["ls"], "stdin": 5, "timeout_ms": null}),
                "stdin must be a string",
            ),
        ];
        for (input, text) in cases {
            assert_eq!(
                message(&w.ctx, input.clone()),
                format!("INVALID_ARGUMENT: {text}"),
                "{input}"
            );
        }
        // Win32 drops trailing spaces from a path's last component: there `ws/  ` is `ws`, for
        // Node as for this crate.
        let blank_name = cfg!(unix).then(|| format!("{r}/  "));
        for bad in std::iter::once(format!("{r}/nope")).chain(blank_name) {
            assert_eq!(
                message(&w.ctx, json!({"cwd": bad, "command": ["ls"]})),
                format!("NOT_DIRECTORY: cwd is not a directory: {bad}")
            );
        }
        std::fs::write(format!("{r}/f.txt"), "x").unwrap();
        assert_eq!(
            message(
                &w.ctx,
                json!({"cwd": format!("{r}/f.txt"), "command": ["ls"]})
            ),
            format!("NOT_DIRECTORY: cwd is not a directory: {r}/f.txt")
        );
        let rc = RunContext {
            ctx: &w.ctx,
            confinement: None,
        };
        assert_eq!(
            run(&rc, &[]).unwrap_err().message,
            "INTERNAL: undefined is not an object (evaluating 'input.cwd')"
        );
    }

    #[cfg(unix)] // POSIX programs (echo, sh, pwd, true), modes or symlinks; Windows: windows_tests
    #[test]
    fn fractions_are_accepted() {
        let w = ws();
        let out = call(
            &w.ctx,
            json!({"cwd": w.root, "command": ["sh", "-c", "printf %1001s | tr ' ' x"],
                   "timeout_ms": 1000.5, "max_output_chars": 1000.5}),
        )
        .unwrap();
        assert_eq!(out["stdout"].as_str().unwrap().len(), 1000);
        assert_eq!(out["stdout_truncated"], true);
    }

    #[test]
    fn shell_wrappers_follow_the_platform() {
        let tokens: Vec<String> = ["echo", "it's", "a b"].map(String::from).to_vec();
        assert_eq!(
            shell_wrapped(&tokens, "darwin"),
            ["zsh", "-lc", r#"'echo' 'it'"'"'s' 'a b'"#]
        );
        assert_eq!(
            shell_wrapped(&tokens, "win32"),
            [
                "pwsh.exe",
                "-NoLogo",
                "-NoProfile",
                "-Command",
                "& 'echo' 'it''s' 'a b'"
            ]
        );
        assert_eq!(shell_wrapped(&tokens, "freebsd"), tokens);
    }

    #[cfg(unix)] // POSIX programs (echo, sh, pwd, true), modes or symlinks; Windows: windows_tests
    #[test]
    fn missing_and_unrunnable_programs() {
        let w = ws();
        let r = w.root.as_str();
        assert_eq!(
            message(
                &w.ctx,
                json!({"cwd": r, "command": ["definitely-not-a-cmd"]})
            ),
            "INTERNAL: Executable not found in $PATH: \"definitely-not-a-cmd\""
        );
        assert_eq!(
            message(
                &w.ctx,
                json!({"cwd": r, "command": ["definitely-not-a-cmd"], "shell_mode": "direct"})
            ),
            "COMMAND_NOT_FOUND: command not found: definitely-not-a-cmd"
        );
        std::fs::write(format!("{r}/noexec.sh"), "#!/bin/sh\necho no\n").unwrap();
        assert_eq!(
            message(
                &w.ctx,
                json!({"cwd": r, "command": ["./noexec.sh"], "shell_mode": "direct"})
            ),
            "COMMAND_NOT_FOUND: command not found: ./noexec.sh"
        );
        assert_eq!(
            message(&w.ctx, json!({"cwd": r, "command": ["./noexec.sh"]})),
            "INTERNAL: EACCES: permission denied, posix_spawn './noexec.sh'"
        );
        let script = format!("{r}/script.sh");
        std::fs::write(&script, "#!/bin/sh\necho script \"$1\"\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        for mode in ["default", "direct"] {
            let out = call(
                &w.ctx,
                json!({"cwd": r, "command": ["./script.sh", "a"], "shell_mode": mode}),
            )
            .unwrap();
            assert_eq!(out["stdout"], "script a\n", "{mode}");
        }
        let mut darwin = w.ctx.clone();
        darwin.platform = Some("darwin".into());
        let darwin_error = call(&darwin, json!({"cwd": r, "command": ["echo", "x"]}));
        if which("zsh").is_none() {
            assert_eq!(
                darwin_error.unwrap_err().message,
                "INTERNAL: Executable not found in $PATH: \"zsh\""
            );
        }
    }

    #[cfg(unix)]
    fn which(name: &str) -> Option<String> {
        let ctx = ToolContext::allow_all("/");
        let rc = RunContext {
            ctx: &ctx,
            confinement: None,
        };
        resolve_direct(&rc, name, "/", "linux")
    }

    #[cfg(unix)] // POSIX programs (echo, sh, pwd, true), modes or symlinks; Windows: windows_tests
    #[test]
    fn direct_mode_uses_the_host_path_and_pathext() {
        let w = ws();
        let bin = format!("{}/bin", w.root);
        std::fs::create_dir(&bin).unwrap();
        for (file, mode) in [("tool", 0o755), ("plain", 0o644), ("app.EXE", 0o644)] {
            let p = format!("{bin}/{file}");
            std::fs::write(&p, "#!/bin/sh\necho tool\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let mut ctx = w.ctx.clone();
        ctx.process_env = Some(vec![("PATH".into(), "/nonexistent".into())]);
        let rc = RunContext {
            ctx: &ctx,
            confinement: None,
        };
        assert_eq!(resolve_direct(&rc, "tool", &w.root, "linux"), None);
        ctx.process_env = Some(vec![
            ("PATH".into(), format!(":/nonexistent: {bin} ")),
            ("PATHEXT".into(), " .exe ; ;.bat".into()),
        ]);
        let rc = RunContext {
            ctx: &ctx,
            confinement: None,
        };
        assert_eq!(
            resolve_direct(&rc, "tool", &w.root, "linux"),
            Some(format!("{bin}/tool"))
        );
        assert_eq!(resolve_direct(&rc, "plain", &w.root, "linux"), None);
        assert_eq!(
            resolve_direct(&rc, "app", &w.root, "win32"),
            Some(format!("{bin}/app.EXE"))
        );
        assert_eq!(resolve_direct(&rc, "app", &w.root, "linux"), None);
        assert_eq!(
            resolve_direct(&rc, "bin/plain", &w.root, "win32"),
            Some(format!("{bin}/plain"))
        );
        assert_eq!(windows_extensions(None), [".COM", ".EXE", ".BAT", ".CMD"]);
    }

    #[cfg(unix)] // POSIX programs (echo, sh, pwd, true), modes or symlinks; Windows: windows_tests
    #[test]
    fn confined_cwd_runs_in_the_checked_directory() {
        let w = ws();
        let src = format!("{}/src", w.root);
        let rc = RunContext {
            ctx: &w.ctx,
            confinement: Some(Confinement::new(&w.root).unwrap()),
        };
        let request = validate(&ArgValue::from(&json!({"cwd": src, "command": ["pwd"]}))).unwrap();
        let out = execute(&rc, &request, &[], Sandboxing::Command(OFF)).unwrap();
        assert_eq!(out.stdout.text(), format!("{src}\n"));
        assert_eq!(out.cwd, src);

        let outside = w._dir.path().canonicalize().unwrap().join("outside");
        std::fs::create_dir(&outside).unwrap();
        let link = format!("{}/link", w.root);
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let request = validate(&ArgValue::from(&json!({"cwd": link, "command": ["pwd"]}))).unwrap();
        assert_eq!(
            execute(&rc, &request, &[], Sandboxing::Command(OFF)).unwrap_err().message,
            format!(
                "INTERNAL: [Sandbox Violation] Attempted to access path outside of workspace: \"{link}\""
            )
        );
    }

    fn sandboxed(w: &Ws, scope: &str, exec: Value) -> ToolContext {
        let mut ctx = w.ctx.clone();
        ctx.write_scope = ArgValue::from(scope);
        ctx.exec = ArgValue::from(&exec);
        ctx
    }

    /// A descriptor the host holds without close-on-exec reaches a plain command but not a
    /// sandboxed one (Linux: the supervisor; the portable build: marked in the child).
    #[cfg(target_os = "linux")]
    #[test]
    fn host_descriptors_do_not_reach_a_sandboxed_command() {
        let w = ws();
        // SAFETY: duplicates stderr without close-on-exec; closed below.
        let fd = unsafe { libc::dup(2) };
        assert!(fd > 2);
        let script = format!("if [ -e /proc/self/fd/{fd} ]; then echo open; else echo closed; fi");
        let input = json!({"cwd": w.root, "command": ["sh", "-c", script]});
        let plain = call(&w.ctx, input.clone());
        let ctx = sandboxed(&w, "workspace-write", json!({"sandbox": "required"}));
        let confined = call(&ctx, input);
        // SAFETY: the descriptor duplicated above.
        unsafe { libc::close(fd) };
        assert_eq!(plain.unwrap()["stdout"], "open\n");
        let confined = confined.unwrap();
        assert_eq!(confined["stdout"], "closed\n", "{confined}");
    }

    /// A sandboxed command runs in a session of its own, without a controlling terminal; a
    /// plain one stays in the host's session.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_sandboxed_command_has_a_session_of_its_own() {
        let w = ws();
        // Read from /proc, not getsid(2): a session whose leader lives outside this PID
        // namespace (a container's) has id 0 here, which rustix's Pid cannot hold.
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 1..];
        let host: i64 = after_name
            .split_whitespace()
            .nth(3)
            .unwrap()
            .parse()
            .unwrap();
        // awk's own session and terminal (fields 6 and 7 of its stat; its name has no space)
        let input = json!({"cwd": w.root, "command": ["awk", "{print $6, $7}", "/proc/self/stat"]});
        let plain = call(&w.ctx, input.clone()).unwrap();
        let ctx = sandboxed(&w, "workspace-write", json!({"sandbox": "required"}));
        let confined = call(&ctx, input).unwrap();
        let fields = |out: &Value| -> Vec<i64> {
            let text = out["stdout"].as_str().unwrap();
            text.split_whitespace()
                .map(|f| f.parse().unwrap())
                .collect()
        };
        assert_eq!(fields(&plain)[0], host, "{plain}");
        let confined = fields(&confined);
        assert_ne!(confined[0], host, "the host's session");
        assert_eq!(confined[1], 0, "a controlling terminal");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_os_sandbox_confines_writes_to_the_scope() {
        let w = ws();
        let outside = w._dir.path().canonicalize().unwrap().join("outside");
        std::fs::create_dir(&outside).unwrap();
        let script = format!(
            "echo in > {root}/in.txt && echo tmp > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && echo x > /dev/null \
             && echo ok; echo out > {out}/x.txt || echo refused; cat {root}/in.txt",
            root = w.root,
            out = outside.display()
        );
        let ctx = sandboxed(&w, "workspace-write", json!({"sandbox": "required"}));
        let out = call(
            &ctx,
            json!({"cwd": w.root, "command": ["sh", "-c", script]}),
        )
        .unwrap();
        assert_eq!(out["stdout"], "tmp\nok\nrefused\nin\n", "{out}");
        assert!(!outside.join("x.txt").exists());
        let abi = out["sandbox"]["abi"].as_u64().unwrap();
        assert!(abi >= 1);
        assert_eq!(
            out["sandbox"],
            json!({"kind": "landlock", "abi": abi, "write": "workspace", "network": "allowed"})
        );

        let ctx = sandboxed(&w, "read-only", json!({"sandbox": "auto"}));
        let out = call(
            &ctx,
            json!({"cwd": w.root, "command": ["sh", "-c", "echo x > in2.txt || echo refused; echo y > /dev/null && echo dev"]}),
        )
        .unwrap();
        assert_eq!(out["stdout"], "refused\ndev\n");
        assert_eq!(out["sandbox"]["write"], "none");
        assert!(!std::path::Path::new(&w.root).join("in2.txt").exists());
        // Only the spawning thread was restricted: this one still writes anywhere.
        std::fs::write(outside.join("host.txt"), "host").unwrap();

        let ctx = sandboxed(&w, "unrestricted", json!({"sandbox": "auto"}));
        let out = call(
            &ctx,
            json!({"cwd": w.root, "command": ["sh", "-c", format!("echo out > {}/y.txt", outside.display())]}),
        )
        .unwrap();
        assert_eq!(
            (out["exit_code"].as_i64(), out["sandbox"]["write"].as_str()),
            (Some(0), Some("all"))
        );
        assert!(outside.join("y.txt").exists());
    }

    #[cfg(unix)] // POSIX programs (echo, sh, pwd, true), modes or symlinks; Windows: windows_tests
    #[test]
    fn the_sandbox_option_is_validated_and_absent_when_off() {
        let w = ws();
        let input = json!({"cwd": w.root, "command": ["true"]});
        for exec in [json!(null), json!({}), json!({"sandbox": "off"})] {
            let out = call(
                &sandboxed(&w, "workspace-write", exec.clone()),
                input.clone(),
            )
            .unwrap();
            assert!(out.get("sandbox").is_none(), "{exec}");
        }
        for (exec, text) in [
            (json!("auto"), "context.exec must be an object"),
            (
                json!({"sandbox": "on"}),
                "context.exec.sandbox must be \"off\", \"auto\" or \"required\"",
            ),
            (
                json!({"sandbox": "auto", "network": false}),
                "context.exec.network must be \"allow\" or \"deny\"",
            ),
            (
                json!({"network": "deny"}),
                "context.exec.network \"deny\" needs context.exec.sandbox \"auto\" or \"required\"",
            ),
        ] {
            let err = call(&sandboxed(&w, "workspace-write", exec), input.clone()).unwrap_err();
            assert_eq!(
                (err.code, err.message),
                (
                    ErrorCode::InvalidArgument,
                    format!("INVALID_ARGUMENT: {text}")
                )
            );
        }
    }

    #[cfg(unix)] // POSIX programs (echo, sh, pwd, true), modes or symlinks; Windows: windows_tests
    #[test]
    fn the_host_environment_is_passed_on() {
        let w = ws();
        let mut ctx = w.ctx.clone();
        ctx.process_env = Some(vec![
            ("ATN_VISIBLE".into(), "yes".into()),
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ]);
        let out = call(
            &ctx,
            json!({"cwd": w.root, "command": ["sh", "-c", "echo $ATN_VISIBLE"]}),
        )
        .unwrap();
        assert_eq!(out["stdout"], "yes\n");
    }

    #[cfg(unix)] // POSIX programs (echo, sh, pwd, true), modes or symlinks; Windows: windows_tests
    #[test]
    fn the_environment_can_be_cleaned() {
        let w = ws();
        let script = json!({"cwd": w.root, "command": ["sh", "-c", "echo \"${SECRET_TOKEN-none}|${KEPT-none}|${HOME-none}|$PATH\""]});
        let path = std::env::var("PATH").unwrap_or_default();
        let run = |env: Value| {
            let mut ctx = w.ctx.clone();
            ctx.exec = ArgValue::from(&json!({ "env": env }));
            ctx.process_env = Some(vec![
                ("SECRET_TOKEN".into(), "s3cret".into()),
                ("KEPT".into(), "kept".into()),
                ("HOME".into(), "/home/x".into()),
                ("PATH".into(), path.clone()),
            ]);
            call(&ctx, script.clone())
        };
        let stdout = |env| run(env).unwrap()["stdout"].as_str().unwrap().to_string();
        assert_eq!(
            stdout(json!("inherit")),
            format!("s3cret|kept|/home/x|{path}\n")
        );
        assert_eq!(
            stdout(json!("clean")),
            format!("none|none|/home/x|{path}\n")
        );
        assert_eq!(
            stdout(json!(["KEPT"])),
            format!("none|kept|/home/x|{path}\n")
        );
        for bad in [json!("none"), json!([1]), json!(["A=B"]), json!(true)] {
            assert_eq!(
                run(bad).unwrap_err().message,
                "INVALID_ARGUMENT: context.exec.env must be \"inherit\", \"clean\" or an array of variable names"
            );
        }
    }

    /// Windows: the runtime's rules for `win32` on a Windows host (PATHEXT, PowerShell), the
    /// Job Object's timeout, the OS sandbox's absence. The programs are this test binary in a
    /// helper role (crate::process's test helper) and batch files.
    #[cfg(windows)]
    mod windows_tests {
        use super::*;
        use crate::process::windows::test_helper;

        fn win_ws() -> Ws {
            let mut w = ws();
            w.ctx.platform = Some("win32".into());
            w
        }

        /// `Path` (Windows' spelling) set to `path`, the helper's role, no other variable but
        /// the system's own (cmd.exe needs `SystemRoot`).
        fn env_with(path: &str, pathext: Option<&str>, role: &str) -> Vec<(String, String)> {
            let mut env: Vec<(String, String)> = std::env::vars()
                .filter(|(k, _)| {
                    !k.eq_ignore_ascii_case("PATH") && !k.eq_ignore_ascii_case("PATHEXT")
                })
                .collect();
            env.push(("Path".into(), path.into()));
            if let Some(pathext) = pathext {
                env.push(("PATHEXT".into(), pathext.into()));
            }
            env.push(test_helper::role_var(role));
            env
        }

        #[test]
        fn direct_mode_resolves_through_pathext() {
            let mut w = win_ws();
            let bin = format!("{}\\bin", w.root);
            std::fs::create_dir(&bin).unwrap();
            std::fs::write(format!("{bin}\\tool.cmd"), "@echo cmd %1\r\n").unwrap();
            std::fs::write(format!("{bin}\\plain"), "not a program").unwrap();
            std::fs::write(format!("{bin}\\tool.ps1"), "echo ps1").unwrap();
            test_helper::install_as(Path::new(&bin), "tool.exe");
            w.ctx.process_env = Some(env_with(
                &format!(" ;{bin} "),
                Some(" .cmd ; ;.exe"),
                "argv",
            ));
            let input =
                |command: Value| json!({"cwd": w.root, "command": command, "shell_mode": "direct"});
            let out = call(&w.ctx, input(json!(["tool", "x"]))).unwrap();
            assert_eq!(
                (out["exit_code"].as_i64(), out["stdout"].as_str()),
                (Some(0), Some("cmd x\r\n"))
            );
            assert_eq!(out["command"], json!(["tool", "x"]));
            // Extension order is PATHEXT's; a name with a listed extension is tried as given.
            w.ctx.process_env = Some(env_with(&bin, Some(".EXE;.CMD"), "argv"));
            let out = call(&w.ctx, input(json!(["tool", "x"]))).unwrap();
            assert_eq!(out["stdout"], "[\"x\"]\n");
            let out = call(&w.ctx, input(json!(["TOOL.CMD", "y"]))).unwrap();
            assert_eq!(out["stdout"], "cmd y\r\n");
            // No execute check, but a regular file: a directory is not a program.
            let rc = RunContext {
                ctx: &w.ctx,
                confinement: None,
            };
            assert_eq!(
                resolve_direct(&rc, "bin\\plain", &w.root, "win32"),
                Some(format!("{bin}\\plain"))
            );
            assert_eq!(
                message(&w.ctx, input(json!(["./bin"]))),
                "COMMAND_NOT_FOUND: command not found: ./bin"
            );
            // `.PS1` is not in PATHEXT: the name as given is not tried.
            assert_eq!(
                message(&w.ctx, input(json!(["tool.ps1"]))),
                "COMMAND_NOT_FOUND: command not found: tool.ps1"
            );
            // A relative path counts from `cwd`, with either separator.
            let out = call(&w.ctx, input(json!(["bin/tool.cmd", "z"]))).unwrap();
            assert_eq!(out["stdout"], "cmd z\r\n");
        }

        /// Default mode on win32 runs `pwsh.exe -NoLogo -NoProfile -Command "& 't1' …"`; the
        /// command line std builds for it parses back to exactly those arguments (seen by a
        /// stand-in `pwsh.exe` that prints them).
        #[test]
        fn default_mode_wraps_in_powershell() {
            let mut w = win_ws();
            let input = json!({"cwd": w.root, "command": ["echo", "it's", "a b", "\"q\"", "$x"]});
            w.ctx.process_env = Some(env_with(&format!("{}\\none", w.root), None, "argv"));
            assert_eq!(
                message(&w.ctx, input.clone()),
                "INTERNAL: Executable not found in $PATH: \"pwsh.exe\""
            );
            let bin = format!("{}\\pwsh", w.root);
            std::fs::create_dir(&bin).unwrap();
            test_helper::install_as(Path::new(&bin), "pwsh.exe");
            w.ctx.process_env = Some(env_with(&bin, None, "argv"));
            let out = call(&w.ctx, input).unwrap();
            let args: Vec<String> = serde_json::from_str(out["stdout"].as_str().unwrap()).unwrap();
            assert_eq!(
                args,
                [
                    "-NoLogo",
                    "-NoProfile",
                    "-Command",
                    "& 'echo' 'it''s' 'a b' '\"q\"' '$x'"
                ]
            );
        }

        #[test]
        fn timeouts_report_124_and_end_the_tree() {
            let mut w = win_ws();
            w.ctx.process_env = Some(env_with("", None, "tree"));
            let exe = test_helper::exe().to_string_lossy().into_owned();
            let mut timed_out = None;
            for timeout_ms in [2000, 8000, 20000] {
                let out = call(
                    &w.ctx,
                    json!({"cwd": w.root, "command": [exe], "shell_mode": "direct", "timeout_ms": timeout_ms}),
                )
                .unwrap();
                let pids: Vec<u32> = out["stdout"]
                    .as_str()
                    .unwrap()
                    .lines()
                    .filter_map(|l| l.trim().parse().ok())
                    .collect();
                if pids.len() < 2 && timeout_ms < 20000 {
                    continue;
                }
                timed_out = Some((out, pids));
                break;
            }
            let (out, pids) = timed_out.unwrap();
            assert_eq!(
                (out["timed_out"].as_bool(), out["exit_code"].as_i64()),
                (Some(true), Some(124)),
                "{out}"
            );
            assert_eq!(pids.len(), 2, "{out}");
            for pid in pids {
                assert!(
                    test_helper::process_ends_soon(pid),
                    "process {pid} survived"
                );
            }
        }

        /// Through a front door the child starts in the checked directory's real path; a
        /// directory outside the workspace is refused before anything runs.
        #[test]
        fn confined_cwd_runs_in_the_checked_directory() {
            let mut w = win_ws();
            w.ctx.process_env = Some(env_with("", None, "cwd"));
            let src = format!("{}\\src", w.root);
            let rc = RunContext {
                ctx: &w.ctx,
                confinement: Some(Confinement::new(&w.root).unwrap()),
            };
            let exe = test_helper::exe().to_string_lossy().into_owned();
            let input = |cwd: &str| json!({"cwd": cwd, "command": [exe], "shell_mode": "direct"});
            let request = validate(&ArgValue::from(&input(&src))).unwrap();
            let out = execute(&rc, &request, &[], Sandboxing::Command(OFF)).unwrap();
            assert_eq!(out.cwd, src);
            let ran_in = PathBuf::from(out.stdout.text().trim_end());
            assert_eq!(
                ran_in.canonicalize().unwrap(),
                Path::new(&src).canonicalize().unwrap()
            );
            let outside = w._dir.path().join("outside");
            std::fs::create_dir(&outside).unwrap();
            let outside = outside.to_string_lossy().into_owned();
            let request = validate(&ArgValue::from(&input(&outside))).unwrap();
            assert_eq!(
                execute(&rc, &request, &[], Sandboxing::Command(OFF)).unwrap_err().message,
                format!(
                    "INTERNAL: [Sandbox Violation] Attempted to access path outside of workspace: \"{outside}\""
                )
            );
        }

        #[test]
        fn there_is_no_os_sandbox() {
            let w = win_ws();
            let exe = test_helper::exe().to_string_lossy().into_owned();
            let mut ctx = sandboxed(&w, "workspace-write", json!({"sandbox": "auto"}));
            ctx.process_env = Some(env_with("", None, "exit"));
            let input = json!({"cwd": w.root, "command": [exe], "shell_mode": "direct"});
            let out = call(&ctx, input.clone()).unwrap();
            assert_eq!(out["exit_code"], 3);
            assert_eq!(
                out["sandbox"],
                json!({"kind": "none", "reason": "no OS sandbox for commands on windows"})
            );
            let mut ctx = sandboxed(&w, "workspace-write", json!({"sandbox": "required"}));
            ctx.process_env = Some(env_with("", None, "exit"));
            let err = call(&ctx, input).unwrap_err();
            assert_eq!(
                (err.code, err.message),
                (
                    ErrorCode::SandboxUnavailable,
                    "SANDBOX_UNAVAILABLE: the OS sandbox cannot be enforced here: no OS sandbox for commands on windows".to_string()
                )
            );
        }
    }
}
