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

use super::exec_command::{self, ExecCommandInput, ShellMode};
use super::input::{ArgShape, ToolInput};
use super::to_json;
use crate::context::{RunContext, ToolContext};
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::exec_sandbox::ExecOptions;
use crate::processes::{Listed, Output, Process, ProcessError, ProcessTable, StartSpec, Status};
use crate::value::{js_trim, ArgValue};

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

// process_start's input: `process_start(input)`.
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessStartInput {
    #[schemars(description = "Working directory path in workspace.")]
    pub cwd: String,
    #[schemars(description = "The command tokens to run (e.g. [\"npm\", \"run\", \"dev\"]).")]
    pub command: Vec<String>,
    #[schemars(
        description = "Use default to apply OS shell wrapper automatically (default: default)."
    )]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub shell_mode: Option<ShellMode>,
    #[schemars(
        description = "Run in a pseudo-terminal (default: false): for programs that need one (REPLs, prompts, colour, Ctrl-C as \"\\u0003\"); output then has escape sequences stripped unless raw."
    )]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub tty: Option<bool>,
    #[schemars(description = "Terminal width with tty (default: 80).")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub cols: Option<f64>,
    #[schemars(description = "Terminal height with tty (default: 24).")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub rows: Option<f64>,
    #[schemars(description = "Environment variables to set for the process.")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub env: Option<BTreeMap<String, String>>,
    #[schemars(
        description = "Milliseconds to wait for output before answering, 0-30000 (default: 1000); the wait ends early at the exit, at a wait_for match, or once output has been quiet for 250 ms."
    )]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub wait_ms: Option<f64>,
    #[schemars(
        description = "A regular expression: answer as soon as the new output matches it (e.g. \"listening on\")."
    )]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub wait_for: Option<String>,
    #[schemars(description = RAW_DESCRIPTION)]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub raw: Option<bool>,
}

// process_read's input.
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessReadInput {
    #[schemars(description = "The id process_start returned.")]
    pub process_id: String,
    #[schemars(description = "Read the output after this cursor (default: after the last read).")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub cursor: Option<f64>,
    #[schemars(
        description = "Milliseconds to wait for new output, 0-30000 (default: 0); ends early as for process_start."
    )]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub wait_ms: Option<f64>,
    #[schemars(description = "A regular expression: answer as soon as the new output matches it.")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub wait_for: Option<String>,
    #[schemars(description = "The most output characters to return (default: 20000).")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub max_chars: Option<f64>,
    #[schemars(description = RAW_DESCRIPTION)]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub raw: Option<bool>,
}

// process_write's input.
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessWriteInput {
    #[schemars(description = "The id process_start returned.")]
    pub process_id: String,
    #[schemars(
        description = "Text written to the process's stdin (include \"\\n\" to end a line)."
    )]
    pub input: String,
    #[schemars(description = "Close stdin after writing (default: false).")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub close_stdin: Option<bool>,
    #[schemars(
        description = "Milliseconds to wait for the answer, 0-30000 (default: 1000); ends early as for process_start."
    )]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub wait_ms: Option<f64>,
    #[schemars(description = "A regular expression: answer as soon as the new output matches it.")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub wait_for: Option<String>,
    #[schemars(description = RAW_DESCRIPTION)]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub raw: Option<bool>,
}

// process_list's input: none.
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessListInput {}

// process_kill's input.
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ProcessKillInput {
    #[schemars(description = "The id process_start returned.")]
    pub process_id: String,
    #[schemars(
        description = "SIGTERM (default: the tree gets 2 s to exit, then SIGKILL), SIGKILL, SIGINT, SIGHUP or SIGQUIT.",
        extend("enum" = ["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP", "SIGQUIT"])
    )]
    #[cfg_attr(
        feature = "typegen",
        ts(
            optional,
            type = "\"SIGTERM\" | \"SIGKILL\" | \"SIGINT\" | \"SIGHUP\" | \"SIGQUIT\""
        )
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

impl ToolInput for ProcessStartInput {
    const SHAPE: ArgShape = ArgShape::Object(Some("cwd"));

    fn from_args(args: &[ArgValue], _: &ToolContext) -> Result<Self, ToolError> {
        let input = object(args)?;
        // cwd, command and shell_mode mean what they mean for exec_command, checked alike.
        let exec = ExecCommandInput::parse(input).map_err(|e| e.in_class(ERROR_CLASS))?;
        let tty = bool_field(input, "tty")?;
        let size = |name: &str| -> Result<Option<f64>, ToolError> {
            match input.get(name) {
                v if v.is_nullish() => Ok(None),
                ArgValue::Number(n) if n.is_finite() && (1.0..=1000.0).contains(n) => {
                    Ok(Some(n.floor()))
                }
                _ => {
                    Err(ERROR_CLASS.invalid(format!("{name} must be a number between 1 and 1000")))
                }
            }
        };
        let (cols, rows) = (size("cols")?, size("rows")?);
        let env = match input.get("env") {
            v if v.is_nullish() => None,
            ArgValue::Object(entries) => Some(
                entries
                    .iter()
                    .map(|(k, v)| match v {
                        ArgValue::String(s) if !k.is_empty() && !k.contains(['=', '\0']) => {
                            Ok((k.clone(), s.clone()))
                        }
                        _ => {
                            Err(ERROR_CLASS.invalid("env must map variable names to string values"))
                        }
                    })
                    .collect::<Result<BTreeMap<_, _>, _>>()?,
            ),
            _ => return Err(ERROR_CLASS.invalid("env must map variable names to string values")),
        };
        Ok(ProcessStartInput {
            cwd: exec.cwd,
            command: exec.command,
            shell_mode: Some(exec.shell_mode),
            tty,
            cols,
            rows,
            env,
            wait_ms: wait_ms(input)?,
            wait_for: wait_for(input)?,
            raw: bool_field(input, "raw")?,
        })
    }
}

impl ToolInput for ProcessReadInput {
    const SHAPE: ArgShape = ArgShape::Object(None);

    fn from_args(args: &[ArgValue], _: &ToolContext) -> Result<Self, ToolError> {
        let input = object(args)?;
        let cursor = match input.get("cursor") {
            v if v.is_nullish() => None,
            ArgValue::Number(n) if n.is_finite() && *n >= 0.0 && n.fract() == 0.0 => Some(*n),
            _ => return Err(ERROR_CLASS.invalid("cursor must be a non-negative integer")),
        };
        let max_chars = match input.get("max_chars") {
            v if v.is_nullish() => None,
            ArgValue::Number(n) if n.is_finite() && (1.0..=MAX_CHARS).contains(n) => Some(*n),
            _ => return Err(ERROR_CLASS.invalid("max_chars must be between 1 and 16777216")),
        };
        Ok(ProcessReadInput {
            process_id: process_id(input)?,
            cursor,
            wait_ms: wait_ms(input)?,
            wait_for: wait_for(input)?,
            max_chars,
            raw: bool_field(input, "raw")?,
        })
    }
}

impl ToolInput for ProcessWriteInput {
    const SHAPE: ArgShape = ArgShape::Object(None);

    fn from_args(args: &[ArgValue], _: &ToolContext) -> Result<Self, ToolError> {
        let input = object(args)?;
        let process_id = process_id(input)?;
        let text = match input.get("input") {
            ArgValue::String(s) => s.clone(),
            _ => return Err(ERROR_CLASS.invalid("input must be a string")),
        };
        Ok(ProcessWriteInput {
            process_id,
            input: text,
            close_stdin: bool_field(input, "close_stdin")?,
            wait_ms: wait_ms(input)?,
            wait_for: wait_for(input)?,
            raw: bool_field(input, "raw")?,
        })
    }
}

impl ToolInput for ProcessListInput {
    const SHAPE: ArgShape = ArgShape::Object(None);

    fn from_args(args: &[ArgValue], _: &ToolContext) -> Result<Self, ToolError> {
        match args.first() {
            None | Some(ArgValue::Undefined) => Ok(ProcessListInput {}),
            Some(v) if v.is_plain_object() => Ok(ProcessListInput {}),
            _ => Err(ERROR_CLASS.invalid("input must be an object")),
        }
    }
}

impl ToolInput for ProcessKillInput {
    const SHAPE: ArgShape = ArgShape::Object(None);

    fn from_args(args: &[ArgValue], _: &ToolContext) -> Result<Self, ToolError> {
        let input = object(args)?;
        let process_id = process_id(input)?;
        let signal = match input.get("signal") {
            v if v.is_nullish() => None,
            ArgValue::String(s) if signal_number(s).is_some() => Some(s.clone()),
            _ => {
                return Err(ERROR_CLASS
                    .invalid("signal must be SIGTERM, SIGKILL, SIGINT, SIGHUP or SIGQUIT"))
            }
        };
        Ok(ProcessKillInput { process_id, signal })
    }
}

fn object(args: &[ArgValue]) -> Result<&ArgValue, ToolError> {
    let input = args.first().unwrap_or(&ArgValue::Undefined);
    if !input.is_plain_object() {
        return Err(ERROR_CLASS.invalid("input must be an object"));
    }
    Ok(input)
}

fn process_id(input: &ArgValue) -> Result<String, ToolError> {
    match input.get("process_id") {
        ArgValue::String(s) if !js_trim(s).is_empty() => Ok(s.clone()),
        _ => Err(ERROR_CLASS.invalid("process_id must be a non-empty string")),
    }
}

fn bool_field(input: &ArgValue, name: &str) -> Result<Option<bool>, ToolError> {
    match input.get(name) {
        v if v.is_nullish() => Ok(None),
        ArgValue::Bool(b) => Ok(Some(*b)),
        _ => Err(ERROR_CLASS.invalid(format!("{name} must be a boolean"))),
    }
}

fn wait_ms(input: &ArgValue) -> Result<Option<f64>, ToolError> {
    match input.get("wait_ms") {
        v if v.is_nullish() => Ok(None),
        ArgValue::Number(n) if n.is_finite() && (0.0..=MAX_WAIT_MS).contains(n) => Ok(Some(*n)),
        _ => Err(ERROR_CLASS.invalid("wait_ms must be between 0 and 30000")),
    }
}

fn wait_for(input: &ArgValue) -> Result<Option<String>, ToolError> {
    match input.get("wait_for") {
        v if v.is_nullish() => Ok(None),
        ArgValue::String(s) => {
            compile(s)?;
            Ok(Some(s.clone()))
        }
        _ => Err(ERROR_CLASS.invalid("wait_for must be a string")),
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
        ProcessError::Unsupported(m) => ERROR_CLASS.coded(ErrorCode::Internal, m),
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

/// process_start.
pub fn start(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let input = ProcessStartInput::from_args(args, rc.ctx)?;
    let table = table(rc)?;
    if input.tty == Some(true) && cfg!(windows) {
        return Err(ERROR_CLASS.coded(
            ErrorCode::TtyUnsupported,
            "a pseudo-terminal is not available on Windows yet: run without tty (pipes)",
        ));
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
    let request = exec_command::request(ExecCommandInput {
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
