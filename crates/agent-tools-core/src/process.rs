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
#[cfg(unix)]
use std::fs::File;
use std::io;
#[cfg(unix)]
use std::io::{Read, Write};
#[cfg(unix)]
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
#[cfg(unix)]
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
#[cfg(unix)]
use std::path::PathBuf;
#[cfg(unix)]
use std::process::{Child, ExitStatus};
use std::process::{Command, Stdio};
use std::time::Duration;
#[cfg(unix)]
use std::time::Instant;

#[cfg(unix)]
use rustix::event::{poll, PollFd, PollFlags, Timespec};
#[cfg(unix)]
use rustix::process::{kill_process_group, Pid, Signal};
use serde::{Serialize, Serializer};

use super::error::node_io_message;
#[cfg(linux_native)]
use super::supervisor::ExecImage;
use super::value::utf16_len;

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

/// The program at `location` with `spec`'s arguments, its output piped, its stdin piped when
/// `spec` has input and empty otherwise.
fn piped_command(location: &Path, spec: &RunSpec) -> Command {
    let mut command = Command::new(location);
    command
        .args(spec.argv.iter().skip(1))
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs `spec` to completion.
#[cfg(unix)]
pub fn run(spec: &RunSpec) -> Result<RunOutput, SpawnError> {
    let program = spec.argv.first().map(String::as_str).unwrap_or_default();
    let spawn_error = |error| SpawnError {
        program: program.to_string(),
        error,
    };
    // Fuzzing builds check everything up to the spawn but never start what the fuzzer wrote.
    if cfg!(fuzzing) {
        return Err(spawn_error(io::Error::from(io::ErrorKind::Unsupported)));
    }
    let location = locate_program(program, spec.env, spec.cwd).map_err(spawn_error)?;
    let mut command = piped_command(&location, spec);
    match (spec.cwd, spec.cwd_dir) {
        #[cfg(portable)]
        (_, Some(dir)) => {
            use std::os::fd::AsRawFd;
            let fd = dir.as_raw_fd();
            // SAFETY: runs in the child between fork and exec and only calls `fchdir`, which is
            // async-signal-safe; the descriptor is the caller's, open until the spawn returns
            // (close-on-exec: the child has it until it executes).
            unsafe {
                command.pre_exec(move || match libc::fchdir(fd) {
                    0 => Ok(()),
                    _ => Err(io::Error::last_os_error()),
                });
            }
        }
        (Some(cwd), _) => {
            command.current_dir(cwd);
        }
        _ => {}
    }
    if let Some(env) = spec.env {
        command.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
    }
    let started = Instant::now();
    let (mut streams, mut reaper, mut tree) =
        spawn(command, &location, spec).map_err(spawn_error)?;
    let supervised = supervise(&mut streams, &mut tree, spec, started);
    tree.end_of_call();
    // Whatever happened, the child is reaped (no zombies).
    let status = reaper.wait();
    let (stdout, stderr, timed_out) = supervised.map_err(spawn_error)?;
    let cancelled = spec.cancel.is_some_and(|c| c.is_cancelled());
    let duration_ms = started.elapsed().as_millis() as u64;
    let exit = match tree {
        Tree::Group(_) => status.and_then(exit_code_of),
        #[cfg(linux_native)]
        Tree::Supervised { exit, .. } => exit.map(crate::supervisor::Exit::code),
    };
    let exit_code = match (timed_out, exit) {
        (true, _) => 124,
        (false, Some(code)) => code.into(),
        (false, None) => 1,
    };
    Ok(RunOutput {
        exit_code,
        stdout,
        stderr,
        timed_out,
        cancelled,
        duration_ms,
    })
}

/// Starts the command: a plain child in its own group, or (Linux, sandboxed) under its
/// supervisor.
#[cfg(unix)]
fn spawn(
    mut command: Command,
    location: &Path,
    spec: &RunSpec,
) -> io::Result<(Streams, Reaper, Tree)> {
    let plain = |child: io::Result<Child>| {
        let mut child = child?;
        let pid = Pid::from_child(&child);
        let streams = Streams {
            stdin: child.stdin.take().map(OwnedFd::from),
            stdout: child.stdout.take().map(OwnedFd::from),
            stderr: child.stderr.take().map(OwnedFd::from),
        };
        Ok((streams, Reaper::Child(child), Tree::Group(pid)))
    };
    let Some(restriction) = spec.restriction else {
        return plain(command.process_group(0).spawn());
    };
    #[cfg(portable)]
    {
        let _ = location;
        plain(restriction.spawn(&mut command))
    }
    #[cfg(linux_native)]
    {
        drop(command);
        // The host's environment is copied here: the supervisor shares this process's memory,
        // where another thread may change `environ` meanwhile.
        let inherited: Vec<(OsString, OsString)>;
        let env = match spec.env {
            Some(env) => env,
            None => {
                inherited = std::env::vars_os().collect();
                &inherited
            }
        };
        let image = ExecImage::new(
            location.as_os_str(),
            spec.argv.iter().skip(1).map(std::ffi::OsStr::new),
            Some(env),
        )?;
        let supervised = restriction.spawn_supervised(
            std::sync::Arc::new(image),
            spec.cwd,
            spec.stdin.is_some(),
        )?;
        let streams = Streams {
            stdin: supervised.stdin,
            stdout: Some(supervised.stdout),
            stderr: Some(supervised.stderr),
        };
        let tree = Tree::Supervised {
            control: Some(supervised.control),
            report: supervised.report,
            exit: None,
        };
        Ok((streams, Reaper::Supervisor(supervised.process), tree))
    }
}

/// The host's ends of the child's standard streams.
#[cfg(unix)]
struct Streams {
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
}

/// What is reaped at the end: the child, or (Linux, sandboxed) the supervisor.
#[cfg(unix)]
enum Reaper {
    Child(Child),
    #[cfg(linux_native)]
    Supervisor(crate::supervisor::SupervisorProcess),
}

#[cfg(unix)]
impl Reaper {
    /// Reaps the process; the plain child's status.
    fn wait(&mut self) -> Option<ExitStatus> {
        match self {
            Reaper::Child(child) => child.wait().ok(),
            #[cfg(linux_native)]
            Reaper::Supervisor(process) => {
                process.wait();
                None
            }
        }
    }
}

/// The command's process tree: how it is signalled and how its exit is seen.
#[cfg(unix)]
enum Tree {
    /// A child leading its own process group: signals go to the group, the exit is the child's.
    Group(Pid),
    /// Linux, sandboxed: the command under its supervisor (crate::supervisor), which reports
    /// the command's exit and ends the whole tree when `control` closes.
    #[cfg(linux_native)]
    Supervised {
        control: Option<OwnedFd>,
        report: OwnedFd,
        exit: Option<crate::supervisor::Exit>,
    },
}

#[cfg(unix)]
impl Tree {
    /// `SIGTERM` to the tree.
    fn terminate(&mut self) {
        match self {
            Tree::Group(pid) => signal_group(*pid, Signal::TERM),
            #[cfg(linux_native)]
            Tree::Supervised { control, .. } => {
                if let Some(control) = control {
                    let _ = rustix::io::write(control, b"T");
                }
            }
        }
    }

    /// `SIGKILL` to the tree (for a supervised one: every process of it, whatever group or
    /// session it moved to).
    fn kill(&mut self) {
        match self {
            Tree::Group(pid) => signal_group(*pid, Signal::KILL),
            #[cfg(linux_native)]
            Tree::Supervised { control, .. } => drop(control.take()),
        }
    }

    /// The call is over. A supervised tree ends with it: the supervisor kills what the command
    /// left behind and exits. A plain group is left alone, as upstream leaves it (only its
    /// timeout kills the group).
    fn end_of_call(&mut self) {
        #[cfg(linux_native)]
        if let Tree::Supervised { .. } = self {
            self.kill();
        }
    }

    /// The descriptor that turns readable when the command has exited (`watch`: the plain
    /// child's).
    fn exit_fd<'a>(&'a self, watch: Option<&'a ExitWatch>) -> Option<BorrowedFd<'a>> {
        match self {
            Tree::Group(_) => watch.map(ExitWatch::fd),
            #[cfg(linux_native)]
            Tree::Supervised { report, .. } => Some(report.as_fd()),
        }
    }

    /// Called once the exit descriptor is readable.
    fn record_exit(&mut self) {
        #[cfg(linux_native)]
        if let Tree::Supervised { report, exit, .. } = self {
            let mut bytes = [0u8; 8];
            let got = crate::supervisor::read_full(report.as_fd(), &mut bytes);
            // End of file without a report: the supervisor died; the exit is unknown.
            *exit = (got == bytes.len()).then(|| crate::supervisor::exit_of(&bytes));
        }
    }
}

/// The program to start. A name without `/` is looked up here, as the JavaScript runtime does:
/// the first executable regular file in the child's `PATH` (a relative entry counts from the
/// child's directory). Handing std a full path also lets it use `posix_spawn`; for a bare name
/// with a changed environment it would fork the whole host process instead, several times
/// slower for a large Node process.
#[cfg(unix)]
pub(crate) fn locate_program(
    program: &str,
    env: Option<&[(OsString, OsString)]>,
    cwd: Option<&Path>,
) -> io::Result<PathBuf> {
    if program.contains('/') {
        return Ok(PathBuf::from(program));
    }
    let path_var = match env {
        Some(env) => env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone()),
        None => std::env::var_os("PATH"),
    };
    let base = cwd.unwrap_or(Path::new(""));
    path_var
        .iter()
        .flat_map(std::env::split_paths)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| base.join(dir).join(program))
        .find(|candidate| {
            std::fs::metadata(candidate).is_ok_and(|m| m.is_file())
                && rustix::fs::access(candidate, rustix::fs::Access::EXEC_OK).is_ok()
        })
        .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
}

/// The exit code, or 128 + signal for a signal death.
#[cfg(unix)]
fn exit_code_of(status: ExitStatus) -> Option<i32> {
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
}

/// Where the supervision loop stands with respect to the timeout.
#[derive(Clone, Copy, PartialEq)]
#[cfg(unix)]
enum Phase {
    Running,
    /// `SIGTERM` sent; `SIGKILL` follows at the instant given.
    Terminating(Instant),
}

/// Pumps stdin/stdout/stderr until completion or until the kill grace ran out; returns the
/// captures and whether the timeout fired. On failure the process group is killed, so the caller
/// can always reap the child.
#[cfg(unix)]
fn supervise(
    streams: &mut Streams,
    tree: &mut Tree,
    spec: &RunSpec,
    started: Instant,
) -> io::Result<(CappedText, CappedText, bool)> {
    let watch = match tree {
        Tree::Group(pid) => Some(ExitWatch::new(*pid).inspect_err(|_| tree.kill())?),
        #[cfg(linux_native)]
        Tree::Supervised { .. } => None,
    };
    let pumped = pump(streams, tree, watch.as_ref(), spec, started);
    if pumped.is_err() {
        tree.kill();
    }
    pumped // `watch` goes last: a waiter thread only ends once the child has exited
}

#[cfg(unix)]
fn pump(
    streams: &mut Streams,
    tree: &mut Tree,
    watch: Option<&ExitWatch>,
    spec: &RunSpec,
    started: Instant,
) -> io::Result<(CappedText, CappedText, bool)> {
    let mut stdin = match (streams.stdin.take(), spec.stdin) {
        (Some(pipe), Some(data)) if !data.is_empty() => {
            rustix::io::ioctl_fionbio(&pipe, true)?;
            Some((File::from(pipe), data))
        }
        _ => None, // empty input: dropping the pipe closes it at once
    };
    let mut outputs = [
        OutputPipe::new(streams.stdout.take(), spec.max_output_units)?,
        OutputPipe::new(streams.stderr.take(), spec.max_output_units)?,
    ];
    let deadline = spec.timeout.map(|t| started + t);
    let mut buf = vec![0u8; READ_CHUNK];
    let mut phase = Phase::Running;
    let mut exited = false;
    let mut timed_out = false;

    loop {
        if exited && outputs.iter().all(OutputPipe::is_closed) {
            break;
        }
        let now = Instant::now();
        if spec.cancel.is_some_and(|c| c.is_cancelled()) {
            // Aborted: no grace, the caller has already moved on.
            tree.kill();
            break;
        }
        if phase == Phase::Running && deadline.is_some_and(|d| now >= d) {
            timed_out = true;
            tree.terminate();
            phase = Phase::Terminating(now + KILL_GRACE);
        }
        if let Phase::Terminating(kill_at) = phase {
            if now >= kill_at {
                tree.kill();
                for output in &mut outputs {
                    output.drain_buffered(&mut buf);
                }
                break;
            }
        }
        let wake_at = match phase {
            Phase::Running => deadline,
            Phase::Terminating(kill_at) => Some(kill_at),
        };

        let mut fds: Vec<PollFd> = Vec::with_capacity(4);
        let mut roles: Vec<Role> = Vec::with_capacity(4);
        for (index, output) in outputs.iter().enumerate() {
            if let Some(fd) = output.fd() {
                fds.push(PollFd::from_borrowed_fd(fd, PollFlags::IN));
                roles.push(Role::Output(index));
            }
        }
        if let Some((pipe, _)) = &stdin {
            fds.push(PollFd::from_borrowed_fd(pipe.as_fd(), PollFlags::OUT));
            roles.push(Role::Stdin);
        }
        if !exited {
            if let Some(fd) = tree.exit_fd(watch) {
                fds.push(PollFd::from_borrowed_fd(fd, PollFlags::IN));
                roles.push(Role::Exit);
            }
        }
        if let Some(cancel) = spec.cancel {
            fds.push(PollFd::from_borrowed_fd(cancel.wake_fd(), PollFlags::IN));
            roles.push(Role::Cancel);
        }
        let timeout = wake_at.map(|at| timespec(at.saturating_duration_since(now)));
        match poll(&mut fds, timeout.as_ref()) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
        let ready: Vec<(Role, bool)> = fds
            .iter()
            .zip(&roles)
            .map(|(fd, role)| (*role, !fd.revents().is_empty()))
            .collect();
        drop(fds);
        for (role, is_ready) in ready {
            if !is_ready {
                continue;
            }
            match role {
                Role::Output(index) => {
                    outputs[index].read_once(&mut buf);
                }
                Role::Stdin => {
                    if let Some((pipe, data)) = &mut stdin {
                        match pipe.write(data) {
                            Ok(written) => *data = &data[written..],
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            // EPIPE and friends: the child does not want (more) input.
                            Err(_) => *data = &[],
                        }
                        if data.is_empty() {
                            stdin = None;
                        }
                    }
                }
                Role::Exit => {
                    exited = true;
                    tree.record_exit();
                }
                Role::Cancel => {} // checked at the top of the loop
            }
        }
    }
    drop(stdin);
    let [stdout, stderr] = outputs.map(OutputPipe::finish);
    Ok((stdout, stderr, timed_out))
}

#[derive(Clone, Copy)]
#[cfg(unix)]
enum Role {
    Output(usize),
    Stdin,
    Exit,
    Cancel,
}

#[cfg(unix)]
fn timespec(d: Duration) -> Timespec {
    Timespec {
        tv_sec: d.as_secs() as _,
        tv_nsec: d.subsec_nanos() as _,
    }
}

/// Signals the child's process group. The group id is the child's pid, which stays reserved
/// until the child is reaped; a group that is already gone (`ESRCH`) is fine.
#[cfg(unix)]
fn signal_group(pid: Pid, signal: Signal) {
    if pid.as_raw_nonzero().get() > 1 {
        let _ = kill_process_group(pid, signal);
    }
}

/// One output pipe and its capture.
#[cfg(unix)]
struct OutputPipe {
    pipe: Option<File>,
    capture: CappedText,
}

#[cfg(unix)]
impl OutputPipe {
    fn new(pipe: Option<impl Into<OwnedFd>>, cap: usize) -> io::Result<Self> {
        let pipe = pipe.map(|p| File::from(p.into()));
        if let Some(p) = &pipe {
            rustix::io::ioctl_fionbio(p, true)?;
        }
        Ok(OutputPipe {
            pipe,
            capture: CappedText::new(cap),
        })
    }

    fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.pipe.as_ref().map(AsFd::as_fd)
    }

    fn is_closed(&self) -> bool {
        self.pipe.is_none()
    }

    /// One `read(2)` (the poll loop comes back for more, so a child writing without pause cannot
    /// keep the loop from its deadline); closes the pipe at EOF or on a read error. Returns
    /// whether the pipe may hold more data right now.
    fn read_once(&mut self, buf: &mut [u8]) -> bool {
        let Some(pipe) = &mut self.pipe else {
            return false;
        };
        loop {
            match pipe.read(buf) {
                Ok(0) => break,
                Ok(n) => {
                    self.capture.push_bytes(&buf[..n]);
                    return true;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return false,
                Err(_) => break,
            }
        }
        self.pipe = None;
        false
    }

    /// Takes what is already buffered in the pipe (bounded: a pipe holds at most 1 MiB by
    /// default limits), then stops reading it.
    fn drain_buffered(&mut self, buf: &mut [u8]) {
        for _ in 0..(1 << 20) / READ_CHUNK {
            if !self.read_once(buf) {
                break;
            }
        }
        self.pipe = None;
    }

    fn finish(mut self) -> CappedText {
        self.capture.finish();
        self.capture
    }
}

/// Becomes readable when the child has exited, without reaping it.
#[cfg(unix)]
enum ExitWatch {
    #[cfg(linux_native)]
    Pidfd(std::os::fd::OwnedFd),
    /// A thread blocked in `waitid(WEXITED | WNOWAIT)` that writes one byte when the child exits
    /// (used where pidfds are unavailable: other systems, old kernels, strict seccomp filters).
    Thread {
        reader: io::PipeReader,
        waiter: Option<std::thread::JoinHandle<()>>,
    },
}

#[cfg(unix)]
impl ExitWatch {
    fn new(pid: Pid) -> io::Result<ExitWatch> {
        #[cfg(linux_native)]
        if let Ok(fd) = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) {
            return Ok(ExitWatch::Pidfd(fd));
        }
        ExitWatch::with_thread(pid)
    }

    fn with_thread(pid: Pid) -> io::Result<ExitWatch> {
        let (reader, mut writer) = io::pipe()?;
        let waiter = std::thread::Builder::new()
            .name("exit-watch".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                use rustix::process::{waitid, WaitId, WaitIdOptions};
                let exited = || {
                    waitid(
                        WaitId::Pid(pid),
                        WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
                    )
                };
                while let Err(rustix::io::Errno::INTR) = exited() {}
                let _ = writer.write_all(&[1]);
            })?;
        Ok(ExitWatch::Thread {
            reader,
            waiter: Some(waiter),
        })
    }

    fn fd(&self) -> BorrowedFd<'_> {
        match self {
            #[cfg(linux_native)]
            ExitWatch::Pidfd(fd) => fd.as_fd(),
            ExitWatch::Thread { reader, .. } => reader.as_fd(),
        }
    }
}

#[cfg(unix)]
impl Drop for ExitWatch {
    /// Joins the waiter thread (it ends once the child has exited, which the caller guarantees
    /// by reaping the child first), so its write never meets a closed pipe.
    fn drop(&mut self) {
        // the only variant where pidfds do not exist
        #[allow(irrefutable_let_patterns)]
        if let ExitWatch::Thread { waiter, .. } = self {
            if let Some(handle) = waiter.take() {
                let _ = handle.join();
            }
        }
    }
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
mod tests {
    use super::*;

    fn argv(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| s.to_string()).collect()
    }

    fn spec<'a>(argv: &'a [String]) -> RunSpec<'a> {
        RunSpec {
            argv,
            cwd: None,
            cwd_dir: None,
            env: None,
            stdin: None,
            timeout: Some(Duration::from_secs(20)),
            max_output_units: DEFAULT_MAX_OUTPUT_UNITS,
            cancel: None,
            restriction: None,
        }
    }

    fn capture(cap: usize, chunks: &[&[u8]]) -> CappedText {
        let mut c = CappedText::new(cap);
        for chunk in chunks {
            c.push_bytes(chunk);
        }
        c.finish();
        c
    }

    #[test]
    fn decoding_is_streaming_and_lossy() {
        let e_acute = "é".as_bytes();
        let c = capture(100, &[b"a", &e_acute[..1], &e_acute[1..], b"b"]);
        assert_eq!(c.text(), "aéb");
        let c = capture(100, &[b"a\xffb\xe2\x82"]);
        assert_eq!(c.text(), "a\u{FFFD}b\u{FFFD}");
        let c = capture(100, &[b"\xef\xbb", b"\xbfx\xef\xbb\xbf"]);
        assert_eq!(c.text(), "x\u{FEFF}", "only the leading BOM is dropped");
        assert!(!c.truncated());
    }

    #[test]
    fn cap_counts_utf16_units() {
        let c = capture(4, &["ab😀".as_bytes()]);
        assert_eq!((c.text(), c.truncated()), ("ab😀", false));
        let c = capture(4, &["ab😀c".as_bytes()]);
        assert_eq!((c.text(), c.truncated()), ("ab😀", true));
        let c = capture(3, &["ab😀".as_bytes()]);
        assert_eq!((c.text(), c.truncated()), ("ab", true));
        assert_eq!(c.to_json_literal(), "\"ab\\ud83d\"");
        let value: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap_or_default();
        // serde_json itself refuses lone surrogates; JavaScript's JSON.parse accepts them.
        assert_eq!(value, serde_json::Value::Null);
        assert_eq!(serde_json::to_string(&c).unwrap(), "\"ab\\ud83d\"");
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn exit_codes_and_signals() {
        let out = run(&spec(&argv(&[
            "sh",
            "-c",
            "echo out; echo err >&2; exit 3",
        ])))
        .unwrap();
        assert_eq!(out.exit_code, 3);
        assert_eq!(out.stdout.text(), "out\n");
        assert_eq!(out.stderr.text(), "err\n");
        assert!(!out.timed_out);
        let out = run(&spec(&argv(&["sh", "-c", "kill -9 $$"]))).unwrap();
        assert_eq!(out.exit_code, 137);
        let out = run(&spec(&argv(&["sh", "-c", "kill -15 $$"]))).unwrap();
        assert_eq!(out.exit_code, 143);
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn stdin_is_written_or_empty() {
        let args = argv(&["cat"]);
        let mut s = spec(&args);
        s.stdin = Some("abcé".as_bytes());
        assert_eq!(run(&s).unwrap().stdout.text(), "abcé");
        let out = run(&spec(&args)).unwrap();
        assert_eq!((out.exit_code, out.stdout.text()), (0, ""));
        // A child that never reads its input does not block or break the run.
        let args = argv(&["true"]);
        let big = vec![b'x'; 4 << 20];
        let mut s = spec(&args);
        s.stdin = Some(&big);
        assert_eq!(run(&s).unwrap().exit_code, 0);
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn both_pipes_full_do_not_deadlock() {
        let args = argv(&[
            "sh",
            "-c",
            "head -c 10000000 /dev/zero | tr '\\0' o & head -c 10000000 /dev/zero | tr '\\0' e >&2; wait",
        ]);
        let mut s = spec(&args);
        s.max_output_units = 1000;
        let out = run(&s).unwrap();
        assert_eq!(out.exit_code, 0);
        assert_eq!(out.stdout.text(), "o".repeat(1000));
        assert_eq!(out.stderr.text(), "e".repeat(1000));
        assert!(out.stdout.truncated() && out.stderr.truncated());
    }

    /// Killed processes close their pipes before the kernel marks them dead, so a member can
    /// look alive for a moment after the run returned; allow it a second on a loaded machine.
    /// How soon a call must return when it must not wait for a command that would run 30 s or
    /// more: a third of that wait, room for a loaded machine.
    #[cfg(unix)]
    const PROMPTLY: Duration = Duration::from_secs(10);

    /// Whether the group is gone within 20 s (polled every 10 ms; its sleeps would last 30 s).
    #[cfg(unix)]
    fn group_dies_soon(pgid: i32) -> bool {
        (0..2000).any(|_| {
            let dead = living_group_members(pgid).is_empty();
            if !dead {
                std::thread::sleep(Duration::from_millis(10));
            }
            dead
        })
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn timeout_kills_the_whole_group_promptly() {
        let args = argv(&["sh", "-c", "echo $$; sleep 30 & sleep 30"]);
        let mut s = spec(&args);
        // Long enough for a loaded machine to start the shell (its pid is read below).
        s.timeout = Some(Duration::from_millis(1000));
        let started = Instant::now();
        let out = run(&s).unwrap();
        assert!(started.elapsed() < PROMPTLY, "{out:?}");
        assert!(out.timed_out);
        assert_eq!(out.exit_code, 124);
        let pgid: i32 = out.stdout.text().trim().parse().unwrap();
        assert!(group_dies_soon(pgid), "a process of the group survived");
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn cancellation_kills_the_group_at_once() {
        let cancel = std::sync::Arc::new(crate::cancel::Cancellation::new().unwrap());
        let argv = ["sh", "-c", "sleep 30 & sleep 30"]
            .map(String::from)
            .to_vec();
        let mut s = spec(&argv);
        s.timeout = Some(Duration::from_secs(60));
        let trigger = cancel.clone();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            trigger.cancel();
        });
        s.cancel = Some(&cancel);
        let started = Instant::now();
        let out = run(&s).unwrap();
        canceller.join().unwrap();
        assert!(out.cancelled);
        assert!(started.elapsed() < PROMPTLY, "returned promptly");
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn endless_output_does_not_defeat_the_timeout() {
        let args = argv(&["yes"]);
        let mut s = spec(&args);
        s.timeout = Some(Duration::from_millis(200));
        s.max_output_units = 1000;
        let started = Instant::now();
        let out = run(&s).unwrap();
        assert!(started.elapsed() < PROMPTLY);
        assert_eq!((out.exit_code, out.timed_out), (124, true));
        assert_eq!(out.stdout.text(), "y\n".repeat(500));
        assert!(out.stdout.truncated());
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn pipes_held_outside_the_group_are_abandoned_after_the_grace() {
        let args = argv(&["sh", "-c", "setsid sh -c 'echo $$; exec sleep 30' & wait"]);
        let mut s = spec(&args);
        // Long enough for a loaded machine to start the escaping shell (its pid is read below).
        s.timeout = Some(Duration::from_millis(1000));
        let started = Instant::now();
        let out = run(&s).unwrap();
        let took = started.elapsed();
        let escaped: i32 = out.stdout.text().trim().parse().unwrap();
        let _ = rustix::process::kill_process(Pid::from_raw(escaped).unwrap(), Signal::KILL);
        assert!(took < PROMPTLY, "{took:?}");
        assert_eq!((out.exit_code, out.timed_out), (124, true));
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn sigterm_ignoring_child_is_killed_after_the_grace() {
        let args = argv(&[
            "sh",
            "-c",
            "trap '' TERM; echo ready; while :; do sleep 1; done",
        ]);
        let mut s = spec(&args);
        // On a loaded machine the timeout can come before the shell has set its trap and printed
        // "ready": then the same run again with a longer timeout.
        for timeout_ms in [100, 400, 1600, 6400] {
            s.timeout = Some(Duration::from_millis(timeout_ms));
            let started = Instant::now();
            let out = run(&s).unwrap();
            let took = started.elapsed();
            if out.stdout.text().is_empty() && timeout_ms < 6400 {
                continue;
            }
            assert!(
                took >= KILL_GRACE && took < s.timeout.unwrap() + PROMPTLY,
                "{took:?}"
            );
            assert_eq!((out.exit_code, out.timed_out), (124, true));
            assert_eq!(out.stdout.text(), "ready\n");
            break;
        }
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn thread_exit_watch_works_too() {
        let args = argv(&["sh", "-c", "echo $$; sleep 30 & sleep 30"]);
        let mut child = Command::new(&args[0])
            .args(&args[1..])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let watch = ExitWatch::with_thread(Pid::from_child(&child)).unwrap();
        let mut s = spec(&args);
        // Long enough for a loaded machine to start the shell (its pid is read below).
        s.timeout = Some(Duration::from_millis(1000));
        let mut tree = Tree::Group(Pid::from_child(&child));
        let mut streams = Streams {
            stdin: None,
            stdout: child.stdout.take().map(OwnedFd::from),
            stderr: child.stderr.take().map(OwnedFd::from),
        };
        let (stdout, _, timed_out) =
            pump(&mut streams, &mut tree, Some(&watch), &s, Instant::now()).unwrap();
        let status = child.wait().unwrap();
        drop(watch);
        assert!(timed_out);
        assert_eq!(status.signal(), Some(Signal::TERM.as_raw()));
        let pgid: i32 = stdout.text().trim().parse().unwrap();
        assert!(group_dies_soon(pgid), "a process of the group survived");
    }

    /// Without a `/proc/self/fd` path (macOS, `portable-unix`) the child starts in the open
    /// directory it was given, whatever the path names by then (here a symlink to another one).
    #[cfg(all(portable, unix))]
    #[test]
    fn the_child_starts_in_the_open_directory_not_where_the_path_leads() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("checked")).unwrap();
        std::fs::create_dir(base.join("outside")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), base.join("swapped")).unwrap();
        let checked = std::fs::File::open(base.join("checked")).unwrap();
        let argv = argv(&["/bin/sh", "-c", "pwd -P"]);
        let path = base.join("swapped");
        let out = run(&RunSpec {
            cwd: Some(&path),
            cwd_dir: Some(checked.as_fd()),
            ..spec(&argv)
        })
        .unwrap();
        let expected = format!("{}\n", base.join("checked").display());
        assert_eq!(out.stdout.text(), expected);
        assert_eq!(out.exit_code, 0);
    }

    #[test]
    fn spawn_errors_use_the_runtime_wording() {
        let err = run(&spec(&argv(&["definitely-not-a-cmd-xyz"]))).unwrap_err();
        assert!(err.is_not_found());
        assert_eq!(
            err.message(),
            "Executable not found in $PATH: \"definitely-not-a-cmd-xyz\""
        );
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn bare_names_are_found_on_the_child_path() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (dir.path().join("first"), dir.path().join("second"));
        for (bin, mode) in [(&first, 0o644), (&second, 0o755)] {
            std::fs::create_dir(bin).unwrap();
            let tool = bin.join("atn-tool");
            std::fs::write(&tool, format!("#!/bin/sh\necho {}\n", bin.display())).unwrap();
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let path = std::env::join_paths([&first, &second]).unwrap();
        let env = [(OsString::from("PATH"), path)];
        let args = argv(&["atn-tool"]);
        let mut s = spec(&args);
        s.env = Some(&env);
        assert_eq!(
            run(&s).unwrap().stdout.text(),
            format!("{}\n", second.display()),
            "the non-executable first match is skipped"
        );
        let env = [(OsString::from("PATH"), first.into_os_string())];
        s.env = Some(&env);
        assert!(run(&s).unwrap_err().is_not_found());
    }

    #[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
    #[test]
    fn environment_is_exactly_the_given_one() {
        let args = argv(&["sh", "-c", "echo \"$ATN_A|$HOME\""]);
        let env = [
            (OsString::from("ATN_A"), OsString::from("1")),
            (
                OsString::from("PATH"),
                std::env::var_os("PATH").unwrap_or_default(),
            ),
        ];
        let mut s = spec(&args);
        s.env = Some(&env);
        assert_eq!(run(&s).unwrap().stdout.text(), "1|\n");
    }

    /// Pids of the group's members that are not zombies (a zombie is already dead).
    #[cfg(unix)]
    fn living_group_members(pgid: i32) -> Vec<i32> {
        let mut alive = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // Fields after the command name: state ppid pgrp ...
            let after = &stat[stat.rfind(')').unwrap_or(0) + 2..];
            let fields: Vec<&str> = after.split(' ').collect();
            if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
                alive.push(pid);
            }
        }
        alive
    }
}
