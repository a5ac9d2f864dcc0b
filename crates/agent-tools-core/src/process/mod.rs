//! The shared process runner (docs/tools/exec_command.md), used by exec_command
//! and git_status_summary.
//!
//! Design:
//! - The child is spawned without a shell, in its own process group (docs/compat.md, "exec_command timeouts kill the whole process group"), with stdin
//!   either a pipe (when input is given) or `/dev/null`, and stdout/stderr piped.
//! - One thread supervises everything with `poll(2)`: both output pipes, the stdin pipe while
//!   input remains, and an exit notification for the child (a pidfd on Linux, else a helper
//!   thread blocked in `waitid(WNOWAIT)`, as with the `portable-unix` feature). Output is
//!   therefore read concurrently (a child filling both pipes never deadlocks), and the timeout is
//!   the poll timeout: nothing busy-waits.
//! - The child is reaped only at the very end, so its pid (= the process group id) stays reserved
//!   and signalling the group can never hit an unrelated group that reused the id.
//! - Timeout: `SIGTERM` to the whole group, up to [`KILL_GRACE`] for it to go, then `SIGKILL` to
//!   the group; after that the pipes are drained of what is already buffered and closed, so the
//!   call returns even when an escaped process (a new session) still holds them open.
//! - Completion without a timeout = both pipes at EOF and the child exited (as upstream).
//!
//! Windows has none of poll(2) on pipes, process groups or signals: its runner
//! (`process/windows.rs`) puts the command in a Job Object and reads with threads; what it shares
//! with this one is the specification, the output capture and the error wording.

use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::{Serialize, Serializer};

use super::error::node_io_message;
use super::value::utf16_len;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use self::unix::locate_program;
#[cfg(unix)]
pub use self::unix::run;
#[cfg(windows)]
pub(crate) mod windows;
#[cfg(windows)]
pub(crate) use self::windows::locate_program;
#[cfg(windows)]
pub use self::windows::run;

/// An open directory handed to the runner (`RunSpec::cwd_dir`): a descriptor on Unix, a handle
/// on Windows.
pub type DirRef<'a> = crate::sys::BorrowedFd<'a>;

/// The system call a spawn failure is reported against, in the runtime's words (Bun starts
/// processes with `posix_spawn` on Unix and libuv's `uv_spawn` on Windows).
const SPAWN_CALL: &str = if cfg!(windows) {
    "uv_spawn"
} else {
    "posix_spawn"
};

/// How long a timed-out process group gets between `SIGTERM` and `SIGKILL` (upstream's 500 ms);
/// on Windows, where the kill comes at once, how long output still buffered is collected after it.
pub const KILL_GRACE: Duration = Duration::from_millis(500);

/// Upstream's default per-stream cap in UTF-16 code units.
pub const DEFAULT_MAX_OUTPUT_UNITS: usize = 200_000;

/// Read buffer size per `read(2)`.
const READ_CHUNK: usize = 64 * 1024;

/// What to run.
pub struct RunSpec<'a> {
    /// `argv[0]` is the program (looked up on the child's `PATH` when it has no `/`; on Windows
    /// no `/` or `\`, with `PATHEXT`).
    pub argv: &'a [String],
    /// The child's working directory; `None` keeps this process's.
    pub cwd: Option<&'a Path>,
    /// `cwd` opened (and checked) by the caller. Where there is no `/proc/self/fd` path to give
    /// as `cwd` (macOS, the `portable-unix` feature), the child changes into it by descriptor
    /// (`fchdir`), since `cwd` may name another directory by the time the child starts. On
    /// Windows only held: the caller opened it without delete sharing, so it cannot be renamed
    /// or removed while the child starts in `cwd`.
    pub cwd_dir: Option<DirRef<'a>>,
    /// The child's complete environment; `None` inherits this process's.
    pub env: Option<&'a [(OsString, OsString)]>,
    /// Bytes written to the child's stdin, which is then closed; `None` connects `/dev/null`.
    pub stdin: Option<&'a [u8]>,
    /// When to terminate the process group; `None` waits for ever.
    pub timeout: Option<Duration>,
    /// Per-stream capture cap in UTF-16 code units.
    pub max_output_units: usize,
    /// Aborts the run: the process group is killed at once.
    pub cancel: Option<&'a crate::cancel::Cancellation>,
    /// An OS sandbox the child applies to itself between fork and exec (exec_command's opt-in
    /// `context.exec.sandbox`).
    pub restriction: Option<&'a crate::exec_sandbox::ChildRestriction>,
}

/// What a finished run produced.
#[derive(Debug)]
pub struct RunOutput {
    /// 124 after a timeout, else the exit status (128 + signal for a signal death; on Windows
    /// `GetExitCodeProcess`'s unsigned value, as Node reports it).
    pub exit_code: i64,
    pub stdout: CappedText,
    pub stderr: CappedText,
    pub timed_out: bool,
    /// The run was aborted through `RunSpec::cancel` (the group was killed).
    pub cancelled: bool,
    /// Whole milliseconds from spawn to completion.
    pub duration_ms: u64,
}

/// The program could not be started (or supervised).
#[derive(Debug)]
pub struct SpawnError {
    pub program: String,
    pub error: io::Error,
}

impl SpawnError {
    /// The not-found case, which callers tell apart (upstream's `code: "ENOENT"`).
    pub fn is_not_found(&self) -> bool {
        self.error.kind() == io::ErrorKind::NotFound
    }

    /// The runtime's message (Bun's wording, docs/tools/exec_command.md).
    pub fn message(&self) -> String {
        let program = &self.program;
        match self.error.kind() {
            io::ErrorKind::NotFound => format!("Executable not found in $PATH: \"{program}\""),
            io::ErrorKind::PermissionDenied => {
                format!("EACCES: permission denied, {SPAWN_CALL} '{program}'")
            }
            io::ErrorKind::InvalidInput => self.error.to_string(),
            _ => node_io_message(&self.error, SPAWN_CALL, program),
        }
    }
}

impl SpawnError {
    /// `error` in starting the program of `spec`.
    fn of(spec: &RunSpec, error: io::Error) -> SpawnError {
        SpawnError {
            program: spec.argv.first().cloned().unwrap_or_default(),
            error,
        }
    }
}

/// What both runners do first: the program located as the runtime does (none started in a
/// fuzzing build, which checks everything up to the spawn but never starts what the fuzzer
/// wrote), and its command with `spec`'s arguments and environment, its output piped, its stdin
/// piped when `spec` has input and empty otherwise. Returns the program's location too.
fn prepared_command(spec: &RunSpec) -> Result<(std::path::PathBuf, Command), SpawnError> {
    if cfg!(fuzzing) {
        return Err(SpawnError::of(
            spec,
            io::Error::from(io::ErrorKind::Unsupported),
        ));
    }
    let program = spec.argv.first().map(String::as_str).unwrap_or_default();
    let location =
        locate_program(program, spec.env, spec.cwd).map_err(|e| SpawnError::of(spec, e))?;
    let mut command = Command::new(&location);
    command
        .args(spec.argv.iter().skip(1))
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(env) = spec.env {
        command.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
    }
    Ok((location, command))
}

/// Streamed text keeping at most `cap` UTF-16 code units, decoded as JavaScript's `TextDecoder`
/// does: UTF-8, invalid bytes become U+FFFD, a BOM at the start is dropped.
///
/// A cut through a surrogate pair keeps the lone high surrogate as the last unit, as upstream
/// does; Rust strings cannot hold it, so it is kept aside and written as a `\uXXXX` escape when
/// the text is serialised to JSON (JavaScript's `JSON.parse` restores the lone surrogate).
#[derive(Debug, Clone, Default)]
pub struct CappedText {
    text: String,
    dangling_high_surrogate: Option<u16>,
    units: usize,
    cap: usize,
    truncated: bool,
    /// Bytes of an incomplete UTF-8 sequence at the end of the last chunk.
    pending: Vec<u8>,
    started: bool,
}

impl CappedText {
    pub fn new(cap: usize) -> CappedText {
        CappedText {
            cap,
            ..CappedText::default()
        }
    }

    /// The kept text (without a dangling high surrogate).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True when more output arrived than fit.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Feeds the next bytes of the stream.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        if self.truncated || bytes.is_empty() {
            return; // nothing more can be kept
        }
        let joined;
        let mut rest: &[u8] = if self.pending.is_empty() {
            bytes
        } else {
            joined = [std::mem::take(&mut self.pending).as_slice(), bytes].concat();
            &joined
        };
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    self.push_text(text);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // SAFETY-free: `valid` was just checked.
                    self.push_text(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        Some(len) => {
                            self.push_text("\u{FFFD}");
                            rest = &after[len..];
                        }
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
    }

    /// Ends the stream: an incomplete sequence at the end becomes one U+FFFD.
    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            self.pending.clear();
            self.push_text("\u{FFFD}");
        }
    }

    fn push_text(&mut self, mut text: &str) {
        if text.is_empty() || self.truncated {
            return;
        }
        if !self.started {
            self.started = true;
            text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
        }
        let len = utf16_len(text);
        if self.units + len <= self.cap {
            self.text.push_str(text);
            self.units += len;
            return;
        }
        self.truncated = true;
        for c in text.chars() {
            let width = c.len_utf16();
            if self.units + width > self.cap {
                if self.units < self.cap {
                    let mut pair = [0u16; 2];
                    c.encode_utf16(&mut pair);
                    self.dangling_high_surrogate = Some(pair[0]);
                    self.units += 1;
                }
                break;
            }
            self.text.push(c);
            self.units += width;
        }
    }

    /// The text as a JSON string literal, with a dangling high surrogate as an escape.
    pub fn to_json_literal(&self) -> String {
        let mut json = serde_json::to_string(&self.text).unwrap_or_else(|_| "\"\"".into());
        if let Some(unit) = self.dangling_high_surrogate {
            json.insert_str(json.len() - 1, &format!("\\u{unit:04x}"));
        }
        json
    }
}

impl Serialize for CappedText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw = serde_json::value::RawValue::from_string(self.to_json_literal())
            .map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

#[cfg(test)]
mod tests;
