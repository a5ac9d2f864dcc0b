//! The process runner on Unix: the child in its own process group (or, Linux sandboxed, under
//! its supervisor, `crate::supervisor`), one thread pumping its pipes with `poll(2)`.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::process::{kill_process_group, Pid, Signal};

use super::{prepared_command, CappedText, RunOutput, RunSpec, SpawnError, KILL_GRACE, READ_CHUNK};
#[cfg(linux_native)]
use crate::supervisor::ExecImage;

/// Runs `spec` to completion.
pub fn run(spec: &RunSpec) -> Result<RunOutput, SpawnError> {
    let spawn_error = |error| SpawnError::of(spec, error);
    let (location, mut command) = prepared_command(spec)?;
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
pub(super) fn spawn(
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
pub(super) struct Streams {
    pub(super) stdin: Option<OwnedFd>,
    pub(super) stdout: Option<OwnedFd>,
    pub(super) stderr: Option<OwnedFd>,
}

/// What is reaped at the end: the child, or (Linux, sandboxed) the supervisor.
pub(super) enum Reaper {
    Child(Child),
    #[cfg(linux_native)]
    Supervisor(crate::supervisor::SupervisorProcess),
}

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
pub(super) enum Tree {
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
pub(super) fn exit_code_of(status: ExitStatus) -> Option<i32> {
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
}

/// Where the supervision loop stands with respect to the timeout.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Phase {
    Running,
    /// `SIGTERM` sent; `SIGKILL` follows at the instant given.
    Terminating(Instant),
}

/// Pumps stdin/stdout/stderr until completion or until the kill grace ran out; returns the
/// captures and whether the timeout fired. On failure the process group is killed, so the caller
/// can always reap the child.
pub(super) fn supervise(
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

pub(super) fn pump(
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
pub(super) enum Role {
    Output(usize),
    Stdin,
    Exit,
    Cancel,
}

pub(super) fn timespec(d: Duration) -> Timespec {
    Timespec {
        tv_sec: d.as_secs() as _,
        tv_nsec: d.subsec_nanos() as _,
    }
}

/// Signals the child's process group. The group id is the child's pid, which stays reserved
/// until the child is reaped; a group that is already gone (`ESRCH`) is fine.
pub(super) fn signal_group(pid: Pid, signal: Signal) {
    if pid.as_raw_nonzero().get() > 1 {
        let _ = kill_process_group(pid, signal);
    }
}

/// One output pipe and its capture.
pub(super) struct OutputPipe {
    pipe: Option<File>,
    capture: CappedText,
}

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
pub(super) enum ExitWatch {
    #[cfg(linux_native)]
    Pidfd(std::os::fd::OwnedFd),
    /// A thread blocked in `waitid(WEXITED | WNOWAIT)` that writes one byte when the child exits
    /// (used where pidfds are unavailable: other systems, old kernels, strict seccomp filters).
    Thread {
        reader: io::PipeReader,
        waiter: Option<std::thread::JoinHandle<()>>,
    },
}

impl ExitWatch {
    fn new(pid: Pid) -> io::Result<ExitWatch> {
        #[cfg(linux_native)]
        if let Ok(fd) = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) {
            return Ok(ExitWatch::Pidfd(fd));
        }
        ExitWatch::with_thread(pid)
    }

    pub(super) fn with_thread(pid: Pid) -> io::Result<ExitWatch> {
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
