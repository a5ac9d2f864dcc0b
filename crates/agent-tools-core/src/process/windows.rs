//! The process runner on Windows (docs/windows-port.md, "Process runner").
//!
//! - The child is created suspended (`CREATE_SUSPENDED`), assigned to a fresh **Job Object**
//!   with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, and only then resumed: every process it starts is
//!   in the job from its first instruction (the job allows no breakaway), so nothing escapes a
//!   kill. It gets a process group of its own (`CREATE_NEW_PROCESS_GROUP`: the host's console
//!   Ctrl+C does not reach it, as the Unix runner's own process group keeps the terminal's
//!   `SIGINT` away) and shares the host's console, as with `Bun.spawn`'s defaults. Not
//!   `CREATE_NO_WINDOW`: under wine it lets the command's own children inherit the output pipes
//!   even when they were given other handles, which holds the call until its timeout (a host
//!   without a console, a GUI, may therefore show a console window per command).
//! - Timeout: `TerminateJobObject` at once, the whole tree, no grace (agent-tools-ts runs
//!   `taskkill /T /F` there); output already buffered is still collected for up to
//!   [`KILL_GRACE`], then the pipes are abandoned. The result says `timed_out: true`,
//!   `exit_code: 124`.
//! - Cancellation: the job is terminated as soon as the cancellation event is signalled.
//! - The call's end closes the job, which kills whatever the command left running (a background
//!   process that closed its output): on Windows nothing outlives the call, as with Linux's
//!   supervised runs.
//! - No `poll(2)` on anonymous pipes: one thread reads each output pipe, one writes the input,
//!   one waits for the exit or the cancellation (`WaitForMultipleObjects`); they report over a
//!   bounded channel, which this thread reads with the deadline as its timeout.
//! - Exit code: `GetExitCodeProcess`, unsigned as Node reports it (no signals, no `128 + n`).

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::windows::io::AsRawHandle;
use std::os::windows::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, RecvTimeoutError, SyncSender};
use std::time::Instant;

use windows_sys::Win32::Foundation::{HANDLE, WAIT_OBJECT_0};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, WaitForMultipleObjects, WaitForSingleObject, CREATE_NEW_PROCESS_GROUP,
    CREATE_SUSPENDED, INFINITE,
};

use super::{prepared_command, CappedText, RunOutput, RunSpec, SpawnError, KILL_GRACE, READ_CHUNK};
use crate::job::{resume_main_thread, Job, KILLED_EXIT_CODE};

/// Runs `spec` to completion.
pub fn run(spec: &RunSpec) -> Result<RunOutput, SpawnError> {
    let spawn_error = |error| SpawnError::of(spec, error);
    if spec.restriction.is_some() {
        // exec_sandbox never prepares one here (its "auto" runs unsandboxed, "required" fails).
        return Err(spawn_error(io::Error::from(io::ErrorKind::Unsupported)));
    }
    let (_, mut command) = prepared_command(spec)?;
    command.creation_flags(CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP);
    if let Some(cwd) = spec.cwd {
        command.current_dir(cwd);
    }
    let job = Job::new().map_err(spawn_error)?;
    let started = Instant::now();
    let mut child = command.spawn().map_err(spawn_error)?;
    if let Err(error) = job
        .assign(&child)
        .and_then(|()| resume_main_thread(child.id()))
    {
        // Still suspended (or not in the job): it has started nothing.
        let _ = child.kill();
        let _ = child.wait();
        return Err(spawn_error(error));
    }

    let (sender, events) = sync_channel::<Event>(16);
    let watch = start_exit_watch(&child, spec, sender.clone());
    if let Err(error) = watch {
        job.terminate();
        let _ = child.wait();
        return Err(spawn_error(error));
    }
    if let (Some(mut pipe), Some(data)) = (child.stdin.take(), spec.stdin) {
        let data = data.to_vec();
        // Ends when everything is written or the child's side is gone (closed or killed).
        let _ = std::thread::Builder::new()
            .name("exec-stdin".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                let _ = pipe.write_all(&data);
            });
    }
    let readers: [Option<Box<dyn Read + Send>>; 2] = [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ];
    let mut open = [false, false];
    for (index, reader) in readers.into_iter().enumerate() {
        if let Some(reader) = reader {
            open[index] = start_reader(index, reader, sender.clone()).is_ok();
        }
    }
    drop(sender);

    let mut captures = [
        CappedText::new(spec.max_output_units),
        CappedText::new(spec.max_output_units),
    ];
    let deadline = spec.timeout.map(|t| started + t);
    let mut exit: Option<u32> = None;
    let mut timed_out = false;
    let mut cancelled = false;
    // Set once the job is terminated: until when buffered output is still taken.
    let mut drain_until: Option<Instant> = None;
    loop {
        if open == [false, false] && (exit.is_some() || drain_until.is_some()) {
            break;
        }
        let now = Instant::now();
        if !cancelled && spec.cancel.is_some_and(|c| c.is_cancelled()) {
            // Aborted: the caller has already moved on.
            cancelled = true;
            job.terminate();
            break;
        }
        if drain_until.is_none() && deadline.is_some_and(|d| now >= d) {
            timed_out = true;
            job.terminate();
            drain_until = Some(now + KILL_GRACE);
        }
        if drain_until.is_some_and(|until| now >= until) {
            break;
        }
        let wake_at = drain_until.or(deadline);
        let event = match wake_at {
            Some(at) => match events.recv_timeout(at.saturating_duration_since(now)) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            },
            None => match events.recv() {
                Ok(event) => event,
                Err(_) => break,
            },
        };
        match event {
            Event::Output(index, bytes) => captures[index].push_bytes(&bytes),
            Event::Closed(index) => open[index] = false,
            Event::Exited(code) => exit = Some(code),
            Event::Cancelled => {} // checked at the top of the loop
        }
    }
    // Nothing of the command outlives the call (KILL_ON_JOB_CLOSE does the same when `job` is
    // dropped; terminating first makes the exit watch end now).
    job.terminate();
    drop(events);
    let _ = child.wait();
    let duration_ms = started.elapsed().as_millis() as u64;
    let [mut stdout, mut stderr] = captures;
    stdout.finish();
    stderr.finish();
    let exit_code = match (timed_out, exit) {
        (true, _) => 124,
        (false, Some(code)) => i64::from(code),
        (false, None) => 1,
    };
    Ok(RunOutput {
        exit_code,
        stdout,
        stderr,
        timed_out,
        cancelled: cancelled || spec.cancel.is_some_and(|c| c.is_cancelled()),
        duration_ms,
    })
}

/// What the helper threads report.
enum Event {
    Output(usize, Vec<u8>),
    Closed(usize),
    Exited(u32),
    Cancelled,
}

/// A thread that reports the child's exit code, and the cancellation first if it comes first.
/// It holds its own handles, so it may outlive the call's objects; it ends with the child, which
/// the call always ends (the job is terminated at the latest when the call returns).
fn start_exit_watch(
    child: &std::process::Child,
    spec: &RunSpec,
    sender: SyncSender<Event>,
) -> io::Result<()> {
    use std::os::windows::io::AsHandle;
    let process = child.as_handle().try_clone_to_owned()?;
    let cancel = spec
        .cancel
        .map(|c| c.wake_handle().try_clone_to_owned())
        .transpose()?;
    std::thread::Builder::new()
        .name("exit-watch".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            let process = process.as_raw_handle() as HANDLE;
            if let Some(cancel) = &cancel {
                let handles = [process, cancel.as_raw_handle() as HANDLE];
                // SAFETY: both handles are owned by this thread and open.
                let woke = unsafe { WaitForMultipleObjects(2, handles.as_ptr(), 0, INFINITE) };
                if woke == WAIT_OBJECT_0 + 1 && sender.send(Event::Cancelled).is_err() {
                    return;
                }
            }
            // SAFETY: the process handle is owned by this thread and open.
            unsafe { WaitForSingleObject(process, INFINITE) };
            let mut code = KILLED_EXIT_CODE;
            // SAFETY: as above; `code` is a valid out pointer.
            unsafe { GetExitCodeProcess(process, &mut code) };
            let _ = sender.send(Event::Exited(code));
        })?;
    Ok(())
}

/// A thread that forwards what `reader` (an output pipe) yields, then its end. Ends with the
/// pipe (every writer gone) or when the runner stopped listening.
fn start_reader(
    index: usize,
    mut reader: Box<dyn Read + Send>,
    sender: SyncSender<Event>,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name("exec-output".into())
        .stack_size(128 * 1024)
        .spawn(move || {
            let mut buf = vec![0u8; READ_CHUNK];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        if sender
                            .send(Event::Output(index, buf[..n].to_vec()))
                            .is_err()
                        {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // ERROR_BROKEN_PIPE: every writer closed its end.
                    Err(_) => break,
                }
            }
            let _ = sender.send(Event::Closed(index));
        })?;
    Ok(())
}

/// The program to start, found as agent-tools-ts's runtime finds it on Windows: a name with `/`
/// or `\` is a path (relative to the child's directory); a bare name is looked up in the child's
/// `PATH` (any case of the name; `;`-separated; empty entries skipped; a relative entry counts
/// from the child's directory) with `PATHEXT`'s extensions (`.COM;.EXE;.BAT;.CMD` when unset):
/// the name as given only when it already ends with one of them, then the name with each
/// appended. The first regular file wins (Windows has no execute bit).
pub(crate) fn locate_program(
    program: &str,
    env: Option<&[(OsString, OsString)]>,
    cwd: Option<&Path>,
) -> io::Result<PathBuf> {
    let base = cwd.unwrap_or(Path::new(""));
    if program.contains('/') || program.contains('\\') {
        return Ok(base.join(program));
    }
    let lookup = |name: &str| -> Option<OsString> {
        match env {
            Some(env) => env
                .iter()
                .find(|(k, _)| k.to_str().is_some_and(|k| k.eq_ignore_ascii_case(name)))
                .map(|(_, v)| v.clone()),
            None => std::env::var_os(name),
        }
    };
    let extensions = path_extensions(lookup("PATHEXT"));
    let path_var = lookup("PATH").unwrap_or_default();
    let path_var = path_var.to_string_lossy();
    let dirs = path_var
        .split(';')
        .map(str::trim)
        .filter(|dir| !dir.is_empty());
    let found = candidates(program, dirs, &extensions)
        .into_iter()
        .map(|candidate| base.join(candidate))
        .find(|candidate| std::fs::metadata(candidate).is_ok_and(|m| m.is_file()));
    found.ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
}

/// `PATHEXT`'s entries (trimmed, non-empty, upper-cased) or Windows' default list.
pub(crate) fn path_extensions(pathext: Option<OsString>) -> Vec<String> {
    let listed: Vec<String> = pathext
        .map(|v| {
            v.to_string_lossy()
                .split(';')
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_uppercase)
                .collect()
        })
        .unwrap_or_default();
    if listed.is_empty() {
        [".COM", ".EXE", ".BAT", ".CMD"].map(String::from).to_vec()
    } else {
        listed
    }
}

/// The files tried for `name`, in order, in each of `dirs`.
fn candidates<'a>(
    name: &str,
    dirs: impl Iterator<Item = &'a str>,
    extensions: &[String],
) -> Vec<PathBuf> {
    let upper = name.to_uppercase();
    let bare_first = extensions.iter().any(|ext| upper.ends_with(ext.as_str()));
    let mut files = Vec::new();
    for dir in dirs.map(Path::new) {
        if bare_first {
            files.push(dir.join(name));
        }
        files.extend(
            extensions
                .iter()
                .map(|ext| dir.join(format!("{name}{ext}"))),
        );
    }
    files
}

#[cfg(test)]
pub(crate) mod test_helper;
#[cfg(test)]
mod tests;
