//! The process tools (docs/tools/process.md), opt-in: process_start, process_read,
//! process_write, process_list and process_kill. A process started here outlives the call: a dev
//! server, a watcher, a REPL. It runs as exec_command's commands run (the same directory check,
//! program lookup, shell wrapper, `context.exec` sandbox and environment) and belongs to the
//! context's table (`crate::processes`), which ends it with the toolkit.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{boolean, non_blank_string, number_in, one_of, string};
use super::exec_command::{self, command_tokens, ShellMode, SHELL_MODES};
use super::input::{tool_input, Field, ToolInput};
use super::to_json;
use crate::context::RunContext;
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::exec_sandbox::ExecOptions;
use crate::processes::{Listed, Output, Process, ProcessError, ProcessTable, StartSpec, Status};
use crate::value::ArgValue;

pub const ERROR_CLASS: ErrorClass = ErrorClass("ProcessError");

const RAW_DESCRIPTION: &str =
    "With tty: keep the terminal's escape sequences and carriage returns (default: false).";

/// How long process_start waits by default, and the most any call waits.
const DEFAULT_START_WAIT_MS: u32 = 1000;
const MAX_WAIT_MS: f64 = 30_000.0;
/// Without `wait_for`, a wait ends once new output has been quiet this long.
const SETTLE: Duration = Duration::from_millis(250);
/// The most output one answer carries by default (characters), and at most.
const DEFAULT_MAX_CHARS: u32 = 20_000;
const MAX_CHARS: f64 = 16_777_216.0;

// process_start's input: `process_start(input)`; cwd, command and shell_mode mean what they
// mean for exec_command, checked alike.
#[tool_input(
    name = "process_start",
    description = "Starts a command that keeps running after the call (a dev server, a watcher, a REPL) and returns its first output and a process_id for process_read, process_write and process_kill.",
    effect = Exec,
    class = ERROR_CLASS,
    output = ProcessOutput,
    handler = Worker(start),
    opt_in,
    spawns_processes,
    shape = Object,
    sandboxed = cwd,
    object = plain
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessStartInput {
    #[arg(check = non_blank_string, review)]
    #[schemars(description = "Working directory path in workspace.")]
    pub cwd: String,
    #[arg(check = command_tokens, review)]
    #[schemars(description = "The command tokens to run (e.g. [\"npm\", \"run\", \"dev\"]).")]
    pub command: Vec<String>,
    #[arg(check = one_of(SHELL_MODES))]
    #[schemars(
        description = "Use default to apply OS shell wrapper automatically (default: default)."
    )]
    pub shell_mode: Option<ShellMode>,
    #[arg(check = boolean)]
    #[schemars(
        description = "Run in a pseudo-terminal (default: false): for programs that need one (REPLs, prompts, colour, Ctrl-C as \"\\u0003\"); output then has escape sequences stripped unless raw."
    )]
    pub tty: Option<bool>,
    #[arg(check = terminal_size)]
    #[schemars(description = "Terminal width with tty (default: 80).")]
    pub cols: Option<f64>,
    #[arg(check = terminal_size)]
    #[schemars(description = "Terminal height with tty (default: 24).")]
    pub rows: Option<f64>,
    #[arg(check = environment)]
    #[schemars(description = "Environment variables to set for the process.")]
    pub env: Option<BTreeMap<String, String>>,
    #[arg(check = number_in(0.0..=MAX_WAIT_MS))]
    #[schemars(
        description = "Milliseconds to wait for output before answering, 0-30000 (default: 1000); the wait ends early at the exit, at a wait_for match, or once output has been quiet for 250 ms."
    )]
    pub wait_ms: Option<f64>,
    #[arg(check = wait_for)]
    #[schemars(
        description = "A regular expression: answer as soon as the new output matches it (e.g. \"listening on\")."
    )]
    pub wait_for: Option<String>,
    #[arg(check = boolean)]
    #[schemars(description = RAW_DESCRIPTION)]
    pub raw: Option<bool>,
}

// process_read's input.
#[tool_input(
    name = "process_read",
    description = "Returns a started process's new output (after the last read, or after cursor), its status and exit code; can wait for output matching wait_for.",
    effect = Read,
    class = ERROR_CLASS,
    output = ProcessOutput,
    handler = Worker(read),
    opt_in,
    shape = Object,
    object = plain
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessReadInput {
    #[arg(check = non_blank_string)]
    #[schemars(description = "The id process_start returned.")]
    pub process_id: String,
    #[arg(check = cursor)]
    #[schemars(description = "Read the output after this cursor (default: after the last read).")]
    pub cursor: Option<f64>,
    #[arg(check = number_in(0.0..=MAX_WAIT_MS))]
    #[schemars(
        description = "Milliseconds to wait for new output, 0-30000 (default: 0); ends early as for process_start."
    )]
    pub wait_ms: Option<f64>,
    #[arg(check = wait_for)]
    #[schemars(description = "A regular expression: answer as soon as the new output matches it.")]
    pub wait_for: Option<String>,
    #[arg(check = number_in(1.0..=MAX_CHARS))]
    #[schemars(description = "The most output characters to return (default: 20000).")]
    pub max_chars: Option<f64>,
    #[arg(check = boolean)]
    #[schemars(description = RAW_DESCRIPTION)]
    pub raw: Option<bool>,
}

// process_write's input.
#[tool_input(
    name = "process_write",
    description = "Writes text to a started process's stdin (answer a prompt, drive a REPL), then returns its new output like process_read.",
    effect = Exec,
    class = ERROR_CLASS,
    output = ProcessOutput,
    handler = Worker(write),
    opt_in,
    shape = Object,
    object = plain
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessWriteInput {
    #[arg(check = non_blank_string, review)]
    #[schemars(description = "The id process_start returned.")]
    pub process_id: String,
    #[arg(check = string, review)]
    #[schemars(
        description = "Text written to the process's stdin (include \"\\n\" to end a line)."
    )]
    pub input: String,
    #[arg(check = boolean)]
    #[schemars(description = "Close stdin after writing (default: false).")]
    pub close_stdin: Option<bool>,
    #[arg(check = number_in(0.0..=MAX_WAIT_MS))]
    #[schemars(
        description = "Milliseconds to wait for the answer, 0-30000 (default: 1000); ends early as for process_start."
    )]
    pub wait_ms: Option<f64>,
    #[arg(check = wait_for)]
    #[schemars(description = "A regular expression: answer as soon as the new output matches it.")]
    pub wait_for: Option<String>,
    #[arg(check = boolean)]
    #[schemars(description = RAW_DESCRIPTION)]
    pub raw: Option<bool>,
}

// process_list's input: none.
#[tool_input(
    name = "process_list",
    description = "Lists the processes started in this session: id, command, status, pid, start time, exit code and buffered output size.",
    effect = Read,
    class = ERROR_CLASS,
    output = ProcessListOutput,
    handler = Worker(list),
    opt_in,
    shape = Object,
    object = plain_or_absent
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessListInput {}

// process_kill's input.
#[tool_input(
    name = "process_kill",
    description = "Stops a started process and everything it started, waits until they are gone, and returns the final status and the output not read yet.",
    effect = Exec,
    class = ERROR_CLASS,
    output = ProcessOutput,
    handler = Worker(kill),
    opt_in,
    shape = Object,
    object = plain
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessKillInput {
    #[arg(check = non_blank_string, review)]
    #[schemars(description = "The id process_start returned.")]
    pub process_id: String,
    #[arg(check = signal, review)]
    #[schemars(
        description = "SIGTERM (default: the tree gets 2 s to exit, then SIGKILL), SIGKILL, SIGINT, SIGHUP or SIGQUIT.",
        extend("enum" = ["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP", "SIGQUIT"])
    )]
    #[cfg_attr(
        feature = "typegen",
        ts(type = "\"SIGTERM\" | \"SIGKILL\" | \"SIGINT\" | \"SIGHUP\" | \"SIGQUIT\"")
    )]
    pub signal: Option<String>,
}

/// What the process does now, and its output since the cursor a call read from.
#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessOutput {
    pub process_id: String,
    pub pid: u32,
    #[cfg_attr(feature = "typegen", ts(type = "\"running\" | \"exited\""))]
    pub status: &'static str,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub output: String,
    /// Where the next read continues (a byte offset in everything the process wrote).
    pub cursor: u64,
    /// Output lost before it was read (the buffer keeps the last bytes only).
    pub dropped_bytes: u64,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessListEntry {
    pub process_id: String,
    pub command: Vec<String>,
    #[cfg_attr(feature = "typegen", ts(type = "\"running\" | \"exited\""))]
    pub status: &'static str,
    pub pid: u32,
    /// ISO 8601, UTC.
    pub started_at: String,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub buffered_bytes: usize,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessListOutput {
    pub processes: Vec<ProcessListEntry>,
}

/// `cols` / `rows`: a number of cells, 1 to 1000 (rounded down).
fn terminal_size(f: Field<Option<f64>>) -> Result<Option<f64>, ToolError> {
    match f.value {
        v if v.is_nullish() => Ok(None),
        ArgValue::Number(n) if n.is_finite() && (1.0..=1000.0).contains(n) => Ok(Some(n.floor())),
        _ => Err(f.must("be a number between 1 and 1000")),
    }
}

/// `env`: variable names (not empty, no `=` or NUL) mapped to strings.
fn environment(
    f: Field<Option<BTreeMap<String, String>>>,
) -> Result<Option<BTreeMap<String, String>>, ToolError> {
    let error = || f.must("map variable names to string values");
    match f.value {
        v if v.is_nullish() => Ok(None),
        ArgValue::Object(entries) => entries
            .iter()
            .map(|(k, v)| match v {
                ArgValue::String(s) if !k.is_empty() && !k.contains(['=', '\0']) => {
                    Ok((k.clone(), s.clone()))
                }
                _ => Err(error()),
            })
            .collect::<Result<BTreeMap<_, _>, _>>()
            .map(Some),
        _ => Err(error()),
    }
}

/// `cursor`: a byte offset, a non-negative integer.
fn cursor(f: Field<Option<f64>>) -> Result<Option<f64>, ToolError> {
    match f.value {
        v if v.is_nullish() => Ok(None),
        ArgValue::Number(n) if n.is_finite() && *n >= 0.0 && n.fract() == 0.0 => Ok(Some(*n)),
        _ => Err(f.must("be a non-negative integer")),
    }
}

/// `wait_for`: a regular expression (compiled here to be refused early).
fn wait_for(f: Field<Option<String>>) -> Result<Option<String>, ToolError> {
    match f.value {
        v if v.is_nullish() => Ok(None),
        ArgValue::String(s) => {
            compile(s)?;
            Ok(Some(s.clone()))
        }
        _ => Err(f.must("be a string")),
    }
}

/// `signal`: one of the signals process_kill sends.
fn signal(f: Field<Option<String>>) -> Result<Option<String>, ToolError> {
    match f.value {
        v if v.is_nullish() => Ok(None),
        ArgValue::String(s) if signal_number(s).is_some() => Ok(Some(s.clone())),
        _ => Err(f.must("be SIGTERM, SIGKILL, SIGINT, SIGHUP or SIGQUIT")),
    }
}

fn compile(pattern: &str) -> Result<regex::Regex, ToolError> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| {
            ERROR_CLASS.coded(
                ErrorCode::InvalidRegex,
                format!("wait_for is not a valid regular expression: {e}"),
            )
        })
}

/// The signals process_kill takes.
fn signal_number(name: &str) -> Option<i32> {
    Some(match name {
        "SIGTERM" => 15,
        "SIGKILL" => 9,
        "SIGINT" => 2,
        "SIGHUP" => 1,
        "SIGQUIT" => 3,
        _ => return None,
    })
}

fn signal_name(number: i32) -> String {
    match number {
        1 => "SIGHUP".into(),
        2 => "SIGINT".into(),
        3 => "SIGQUIT".into(),
        6 => "SIGABRT".into(),
        9 => "SIGKILL".into(),
        11 => "SIGSEGV".into(),
        13 => "SIGPIPE".into(),
        15 => "SIGTERM".into(),
        n => format!("SIG{n}"),
    }
}

fn table<'a>(rc: &'a RunContext<'a>) -> Result<&'a ProcessTable, ToolError> {
    rc.ctx.processes.as_deref().ok_or_else(|| {
        ERROR_CLASS.coded(
            ErrorCode::Internal,
            "the process tools need a toolkit that enables them (extraTools)",
        )
    })
}

fn process_error(error: ProcessError) -> ToolError {
    match error {
        ProcessError::Unknown(id) => ERROR_CLASS.coded(
            ErrorCode::ProcessNotFound,
            format!("no process with id {id} (unknown, or its exit was already reported)"),
        ),
        e @ ProcessError::TooMany { .. } => {
            ERROR_CLASS.coded(ErrorCode::TooManyProcesses, e.to_string())
        }
        e @ ProcessError::StdinClosed(_) => {
            ERROR_CLASS.coded(ErrorCode::StdinClosed, e.to_string())
        }
        ProcessError::Spawn(e) => ERROR_CLASS.coded(ErrorCode::Internal, e.to_string()),
        ProcessError::Unsupported(reason) => tty_unsupported(&reason),
    }
}

/// Waits as the tools do: until `wait_ms`, the exit, a `wait_for` match, or (without one) new
/// output that has been quiet for [`SETTLE`].
fn wait(process: &Process, from: u64, wait_ms: f64, pattern: Option<&regex::Regex>) {
    let deadline = Instant::now() + Duration::from_secs_f64(wait_ms / 1000.0);
    if pattern.is_some() {
        process.wait(from, deadline, pattern);
        return;
    }
    let mut seen = process.end_offset();
    loop {
        let now = Instant::now();
        if now >= deadline || !process.is_running() {
            return;
        }
        // Some output, then quiet for SETTLE: answer.
        let quiet_until = if seen > from { now + SETTLE } else { deadline };
        process.wait_for_output(seen, quiet_until.min(deadline));
        let now_seen = process.end_offset();
        if now_seen == seen && seen > from {
            return;
        }
        seen = now_seen;
    }
}

/// Reads for an answer: once the process has exited, after its output is complete (its tree is
/// ended at the exit, so that takes a moment at most).
fn final_read(process: &Process, from: u64, max_chars: Option<f64>) -> Output {
    if !process.is_running() {
        process.wait_gone(Some(Duration::from_secs(5)));
    }
    process.read(Some(from), max_bytes(max_chars))
}

fn answer(process: &Process, output: Output, raw: Option<bool>) -> ProcessOutput {
    let (status, exit_code, signal) = status_fields(output.status);
    let text = if process.terminal && raw != Some(true) {
        as_text(&output.text)
    } else {
        output.text
    };
    ProcessOutput {
        process_id: process.id.clone(),
        pid: process.pid,
        status,
        exit_code,
        signal,
        output: text,
        cursor: output.cursor,
        dropped_bytes: output.dropped_bytes,
    }
}

/// A terminal's output as text: escape sequences stripped, `\r\n` as `\n`.
fn as_text(output: &str) -> String {
    strip_ansi_escapes::strip_str(output).replace("\r\n", "\n")
}

fn status_fields(status: Status) -> (&'static str, Option<i32>, Option<String>) {
    match status {
        Status::Running => ("running", None, None),
        Status::Exited { code, signal } => ("exited", code, signal.map(signal_name)),
    }
}

fn max_bytes(max_chars: Option<f64>) -> usize {
    max_chars.map_or(DEFAULT_MAX_CHARS as usize, |n| n as usize)
}

/// Why `tty` cannot be had here (`None`: it can): on Windows where there is no ConPTY, or under
/// wine when the host is not on wine's console (`crate::conpty`).
fn terminal_unavailable() -> Option<&'static str> {
    #[cfg(windows)]
    return crate::conpty::unavailable();
    #[cfg(unix)]
    None
}

fn tty_unsupported(reason: &str) -> ToolError {
    ERROR_CLASS.coded(
        ErrorCode::TtyUnsupported,
        format!("a pseudo-terminal is not available: {reason}: run without tty (pipes)"),
    )
}

/// process_start.
pub fn start(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let input = ProcessStartInput::from_args(args, rc.ctx)?;
    let table = table(rc)?;
    if let Some(reason) = terminal_unavailable().filter(|_| input.tty == Some(true)) {
        return Err(tty_unsupported(reason));
    }
    let terminal = (input.tty == Some(true)).then(|| {
        let size = |v: Option<f64>, default: u16| v.map_or(default, |n| n as u16);
        (size(input.cols, 80), size(input.rows, 24))
    });
    let pattern = input.wait_for.as_deref().map(compile).transpose()?;
    let options = ExecOptions::from_value(&rc.ctx.exec).map_err(|m| ERROR_CLASS.invalid(m))?;
    let removed = exec_command::exec_env_overrides(rc.ctx).map_err(|e| e.in_class(ERROR_CLASS))?;
    let mut overrides: Vec<(&str, Option<&str>)> =
        removed.iter().map(|name| (name.as_str(), None)).collect();
    if let Some(env) = &input.env {
        overrides.extend(env.iter().map(|(k, v)| (k.as_str(), Some(v.as_str()))));
    }
    let request = exec_command::request(exec_command::ExecCommandInput {
        cwd: input.cwd,
        command: input.command,
        shell_mode: input.shell_mode.unwrap_or(ShellMode::Default),
        stdin: None,
        timeout_ms: 1.0,
        max_output_chars: 1000.0,
    })
    .map_err(|e| e.in_class(ERROR_CLASS))?;
    let launch = exec_command::launch(
        rc,
        &request,
        &overrides,
        exec_command::Sandboxing::Command(options),
    )
    .map_err(|e| e.in_class(ERROR_CLASS))?;
    let exec_command::Launch {
        confined,
        argv,
        sandbox,
        env,
        spawn_cwd,
    } = launch;
    let (restriction, keep) = match sandbox {
        Some(prepared) => (
            prepared.restriction.map(|r| r.restrict()),
            prepared
                .tmpdir
                .map(|t| Box::new(t) as Box<dyn std::any::Any + Send + Sync>),
        ),
        None => (None, None),
    };
    let env = env.unwrap_or_else(|| rc.ctx.child_env(&[]));
    // The program as exec_command's runner finds it, in the process's PATH.
    let mut argv = argv;
    argv[0] = crate::process::locate_program(&argv[0], Some(&env), Some(&spawn_cwd))
        .map_err(|_| {
            ERROR_CLASS.coded(
                ErrorCode::CommandNotFound,
                format!("command not found: {}", argv[0]),
            )
        })?
        .to_string_lossy()
        .into_owned();
    let process = table
        .start(StartSpec {
            argv,
            cwd: spawn_cwd,
            env,
            restriction,
            keep,
            terminal,
        })
        .map_err(process_error)?;
    drop(confined);
    let wait_ms = input.wait_ms.unwrap_or(f64::from(DEFAULT_START_WAIT_MS));
    wait(&process, 0, wait_ms, pattern.as_ref());
    let output = final_read(&process, 0, None);
    let answered = answer(&process, output, input.raw);
    table.forget_if_exited_and_read(&process);
    to_json(&answered, ERROR_CLASS)
}

/// process_read.
pub fn read(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let input = ProcessReadInput::from_args(args, rc.ctx)?;
    let table = table(rc)?;
    let process = table.get(&input.process_id).map_err(process_error)?;
    let from = input.cursor.map_or_else(|| process.cursor(), |c| c as u64);
    let pattern = input.wait_for.as_deref().map(compile).transpose()?;
    wait(
        &process,
        from,
        input.wait_ms.unwrap_or(0.0),
        pattern.as_ref(),
    );
    let output = final_read(&process, from, input.max_chars);
    let answered = answer(&process, output, input.raw);
    table.forget_if_exited_and_read(&process);
    to_json(&answered, ERROR_CLASS)
}

/// process_write.
pub fn write(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let input = ProcessWriteInput::from_args(args, rc.ctx)?;
    let table = table(rc)?;
    let process = table.get(&input.process_id).map_err(process_error)?;
    let pattern = input.wait_for.as_deref().map(compile).transpose()?;
    let from = process.cursor();
    process
        .write(input.input.as_bytes(), input.close_stdin == Some(true))
        .map_err(process_error)?;
    wait(
        &process,
        from,
        input.wait_ms.unwrap_or(1000.0),
        pattern.as_ref(),
    );
    let output = final_read(&process, from, None);
    let answered = answer(&process, output, input.raw);
    table.forget_if_exited_and_read(&process);
    to_json(&answered, ERROR_CLASS)
}

/// process_list.
pub fn list(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    ProcessListInput::from_args(args, rc.ctx)?;
    let table = table(rc)?;
    let processes = table.list().into_iter().map(listed).collect();
    to_json(&ProcessListOutput { processes }, ERROR_CLASS)
}

fn listed(entry: Listed) -> ProcessListEntry {
    let (status, exit_code, signal) = status_fields(entry.status);
    ProcessListEntry {
        process_id: entry.id,
        command: entry.command,
        status,
        pid: entry.pid,
        started_at: iso8601(entry.started_ms),
        exit_code,
        signal,
        buffered_bytes: entry.buffered_bytes,
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of milliseconds since the epoch.
fn iso8601(ms: u64) -> String {
    let time = std::time::UNIX_EPOCH + Duration::from_millis(ms);
    humantime::format_rfc3339_millis(time).to_string()
}

/// How long a process gets to exit after SIGTERM (or another catchable signal) before its
/// tree is killed.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// process_kill.
pub fn kill(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let input = ProcessKillInput::from_args(args, rc.ctx)?;
    let table = table(rc)?;
    let process = table.get(&input.process_id).map_err(process_error)?;
    let signal = input
        .signal
        .as_deref()
        .and_then(signal_number)
        .unwrap_or(15);
    let from = process.cursor();
    if signal != 9 && process.is_running() {
        process.signal(signal);
        process.wait(from, Instant::now() + KILL_GRACE, None);
    }
    process.end();
    process.wait_gone(Some(Duration::from_secs(30)));
    let output = process.read(Some(from), max_bytes(None));
    let answered = answer(&process, output, None);
    table.forget(&process);
    to_json(&answered, ERROR_CLASS)
}

// Windows: `tty` through the tools (cmd.exe and the test binary in a helper role); the
// pseudo console tests, whose names hold `conpty`, run under `script` there.
#[cfg(all(windows, test))]
mod conpty_tests;
#[cfg(all(windows, test))]
mod windows_tests;
