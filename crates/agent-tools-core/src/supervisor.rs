//! Linux: how a sandboxed command is started and ended (exec_command's OS sandbox, the git runs
//! of git_status_summary). The host clones a small supervisor process; the supervisor clones the
//! command. So that nothing the command leaves behind outlives the call:
//!
//! - The supervisor starts a new session (no controlling terminal, so nothing the command runs
//!   can reach the user's terminal) and is the child subreaper of the command's tree: every
//!   process of the tree whose parent dies becomes the supervisor's child, whatever session or
//!   group it moved to (`setsid`, double forks).
//! - The command is the leader of its own process group inside that session and runs under the
//!   restriction (Landlock, seccomp, no capabilities, descriptors above 2 closed). With Landlock
//!   ABI 6 its domain is scoped, so it cannot signal the supervisor (or the host).
//! - Two pipes tie the supervisor to the host: it reports the command's exit through the
//!   report pipe, and the host's end of the control pipe asks it to signal the tree (`T`:
//!   `SIGTERM`, another byte: that signal's number, to the command's group and the adopted
//!   orphans) or, closed, to kill the whole tree with `SIGKILL`, reap it and exit. The host closes the control pipe when the call ends, however
//!   it ends; if the host dies, the kernel closes it.
//!
//! Both processes share the host's memory (`CLONE_VM`): the supervisor for its whole life, on a
//! stack of its own, the command's process until it executes (as posix_spawn does). So no copy
//! of the host's page tables is made (that copy cost about 0.8 ms per call; figures in the
//! README, "The OS sandbox for commands"), and the rules of a forked child hold, stricter: only
//! system calls, nothing that allocates (the argument and environment vectors, the restriction
//! and the supervisor's own stack are built before the clone), every signal blocked from the
//! first instruction, and once the command runs only rustix's raw calls, which leave `errno`
//! (shared with the cloning thread) alone.

use std::ffi::{c_char, CString, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt;

/// The program, arguments and environment the command is executed with, as `execve` takes them.
/// (Only Linux's supervisor executes it; elsewhere, as with the `portable-unix` feature, std
/// executes the command.)
#[cfg_attr(portable, allow(dead_code))]
pub struct ExecImage {
    path: CString,
    _strings: Vec<CString>,
    argv: Vec<*const c_char>,
    /// `None`: the host's environment.
    envp: Option<Vec<*const c_char>>,
}

// SAFETY: the pointers point into `_strings` and `path`, which the image owns and never changes.
unsafe impl Send for ExecImage {}
// SAFETY: as above; the image is only read.
unsafe impl Sync for ExecImage {}

impl ExecImage {
    /// `argv[0]` is `path`, as std's `Command::new(path)` would pass it.
    pub fn new<'a>(
        path: &OsStr,
        args: impl Iterator<Item = &'a OsStr>,
        env: Option<&[(std::ffi::OsString, std::ffi::OsString)]>,
    ) -> io::Result<ExecImage> {
        let c = |bytes: &[u8]| {
            CString::new(bytes).map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "nul byte found in provided data",
                )
            })
        };
        let path = c(path.as_bytes())?;
        let mut strings = vec![path.clone()];
        for arg in args {
            strings.push(c(arg.as_bytes())?);
        }
        let argc = strings.len();
        if let Some(env) = env {
            for (key, value) in env {
                let mut pair = key.as_bytes().to_vec();
                pair.push(b'=');
                pair.extend_from_slice(value.as_bytes());
                strings.push(c(&pair)?);
            }
        }
        let pointers = |range: std::ops::Range<usize>| {
            let mut list: Vec<*const c_char> = strings[range].iter().map(|s| s.as_ptr()).collect();
            list.push(std::ptr::null());
            list
        };
        let argv = pointers(0..argc);
        let envp = env.map(|_| pointers(argc..strings.len()));
        Ok(ExecImage {
            path,
            _strings: strings,
            argv,
            envp,
        })
    }
}

/// A new pseudo-terminal of `cols` x `rows`: its master and its slave (neither the
/// controlling terminal of this process).
pub fn open_terminal(
    cols: u16,
    rows: u16,
) -> io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    // macOS has no close-on-exec flag for posix_openpt: it is set right after.
    #[cfg(not(target_vendor = "apple"))]
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)?;
    #[cfg(target_vendor = "apple")]
    let master = {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY)?;
        rustix::io::fcntl_setfd(&master, rustix::io::FdFlags::CLOEXEC)?;
        master
    };
    grantpt(&master)?;
    unlockpt(&master)?;
    let name = ptsname(&master, Vec::new())?;
    let slave = rustix::fs::open(
        name.as_c_str(),
        rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NOCTTY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )?;
    let size = rustix::termios::Winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    rustix::termios::tcsetwinsize(&master, size)?;
    Ok((master, slave))
}

/// What the command's exit was: `CLD_EXITED` with its code, else the signal that ended it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl Exit {
    /// The exit code, or 128 + signal.
    pub fn code(self) -> i32 {
        match self {
            Exit::Code(code) => code,
            Exit::Signal(signal) => 128 + signal,
        }
    }
}

/// Every signal back to its default disposition, the ignored ones too, as Node's and Bun's
/// spawn leave a child: a host started in the background by a shell ignores SIGINT and SIGQUIT,
/// and a command inheriting that could not be interrupted with Ctrl-C in its terminal.
///
/// # Safety
/// Only between fork and exec (`sigaction` is async-signal-safe; nothing is allocated).
pub unsafe fn default_signal_dispositions() {
    #[cfg(target_os = "linux")]
    let last_signal = libc::SIGRTMAX();
    // macOS numbers its signals 1 to 31 (SIGUSR2) and has no real-time ones.
    #[cfg(not(target_os = "linux"))]
    let last_signal = libc::SIGUSR2;
    for signal in 1..=last_signal {
        let mut action: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, std::ptr::null(), &mut action) == 0
            && action.sa_sigaction != libc::SIG_DFL
        {
            action.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(linux_native)]
pub use linux::{read_full, spawn, Restrict, Streams, Supervised, SupervisorProcess};

#[cfg(linux_native)]
mod linux {
    use std::ffi::{c_char, c_int, CString};
    use std::io;
    use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::Arc;

    use rustix::event::{poll, PollFd, PollFlags};
    use rustix::pipe::{pipe_with, PipeFlags};
    use rustix::process::{Pid, Signal, WaitIdOptions, WaitOptions};

    use super::ExecImage;

    /// The restriction the command applies to itself right before `execve`.
    pub type Restrict = Arc<dyn Fn() -> io::Result<()> + Send + Sync>;

    /// A started supervisor and the host's ends of the command's standard streams.
    pub struct Supervised {
        /// The write end of the command's stdin (`None`: its stdin is `/dev/null`).
        pub stdin: Option<OwnedFd>,
        pub stdout: OwnedFd,
        pub stderr: OwnedFd,
        /// Readable once the command has exited: 8 bytes (`si_code`, `si_status`), or end of file
        /// if the supervisor died.
        pub report: OwnedFd,
        /// The host's end of the control pipe (see the module notes).
        pub control: OwnedFd,
        /// The supervisor process, reaped with [`SupervisorProcess::wait`].
        pub process: SupervisorProcess,
        /// The command's process id.
        pub command_pid: u32,
    }

    /// The supervisor process, and the memory it runs on until it has exited.
    pub struct SupervisorProcess {
        pid: Pid,
        memory: Option<(Box<SupervisorStart>, Stack)>,
    }

    impl SupervisorProcess {
        /// Waits for the supervisor to exit (it does once the control pipe is closed and the
        /// tree is gone) and reaps it; only then is its stack released.
        pub fn wait(&mut self) {
            if self.memory.is_none() {
                return;
            }
            while let Err(rustix::io::Errno::INTR) =
                rustix::process::waitpid(Some(self.pid), WaitOptions::empty())
            {}
            self.memory = None;
        }
    }

    impl Drop for SupervisorProcess {
        fn drop(&mut self) {
            // Never waited for (a panic on the way): the supervisor may still run on this
            // memory, so it is left to it rather than freed.
            if let Some(memory) = self.memory.take() {
                std::mem::forget(memory);
            }
        }
    }

    /// An anonymous mapping for the supervisor's stack, with a guard page below it.
    struct Stack {
        base: *mut libc::c_void,
        len: usize,
    }

    // SAFETY: the mapping is owned by this value alone and only unmapped on drop.
    unsafe impl Send for Stack {}

    impl Stack {
        fn new(len: usize) -> io::Result<Stack> {
            let page = 4096;
            // SAFETY: a fresh private anonymous mapping; nothing else refers to it.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len + page,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            let stack = Stack {
                base,
                len: len + page,
            };
            // SAFETY: the lowest page of the mapping made above.
            if unsafe { libc::mprotect(base, page, libc::PROT_NONE) } != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(stack)
        }

        fn top(&self) -> *mut libc::c_void {
            ((self.base as usize + self.len) & !15) as *mut libc::c_void
        }

        /// The top of the command's start stack: [`COMMAND_STACK`] above the guard page.
        fn command_top(&self) -> usize {
            (self.base as usize + 4096 + COMMAND_STACK) & !15
        }
    }

    impl Drop for Stack {
        fn drop(&mut self) {
            // SAFETY: the mapping made in `new`, no longer used by anyone.
            unsafe { libc::munmap(self.base, self.len) };
        }
    }

    /// The supervisor's mapping: the command's start stack at its bottom ([`COMMAND_STACK`],
    /// above the guard page), the supervisor's own frames from its top down. Pages count in the
    /// host's memory only once touched (the two processes share it).
    const SUPERVISOR_STACK: usize = 1 << 20;

    /// What the supervisor needs, in the host's memory (which it shares).
    struct SupervisorStart {
        image: Arc<ExecImage>,
        restrict: Restrict,
        cwd: Option<CString>,
        /// The command's stdin, stdout and stderr, dup'ed onto 0, 1 and 2.
        stdio: [c_int; 3],
        control: c_int,
        report: c_int,
        /// Given `[0, errno]` if the command could not be started, `[1, pid]` once it was.
        started: c_int,
        /// stdin is a terminal, to become the session's controlling terminal.
        terminal: bool,
        /// Where the command's process starts its stack (`Stack::command_top`).
        command_stack_top: usize,
    }

    /// How the command's standard streams are connected.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Streams {
        /// stdin `/dev/null`, stdout and stderr two pipes (exec_command).
        Separate,
        /// stdin a pipe, stdout and stderr one pipe, in the order they were written (the
        /// process tools); `Supervised::stderr` is then a second end of it, never written.
        Interactive,
        /// A pseudo-terminal of this size (columns, rows) as stdin, stdout and stderr, the
        /// command's controlling terminal with the command's group in the foreground; stdin,
        /// stdout and stderr of `Supervised` are ends of its master.
        Terminal(u16, u16),
    }

    /// Starts `image` under `restrict` (applied in the command's process right before `execve`),
    /// supervised, in `cwd`, with piped output and stdin a pipe or `/dev/null`.
    ///
    /// The supervisor is cloned sharing the host's memory (`CLONE_VM`): no copy of the host's
    /// page tables, which made a sandboxed command about 1.4 ms slower than a plain one. So it
    /// runs on a stack of its own, with every signal blocked from its first instruction, touches
    /// no allocator and, once the command has started, makes system calls only through rustix's
    /// raw calls, which leave `errno` alone (it shares the cloning thread's thread-local storage;
    /// until the command has started, that thread waits in a raw `read`).
    pub fn spawn(
        image: Arc<ExecImage>,
        restrict: Restrict,
        cwd: Option<&Path>,
        stdin_piped: bool,
        streams: Streams,
    ) -> io::Result<Supervised> {
        let (control_read, control) = pipe_with(PipeFlags::CLOEXEC)?;
        let (report, report_write) = pipe_with(PipeFlags::CLOEXEC)?;
        let (started_read, started_write) = pipe_with(PipeFlags::CLOEXEC)?;
        let dup = |fd: &OwnedFd| rustix::io::fcntl_dupfd_cloexec(fd, 0);
        let (stdin, stdin_read, stdout, stdout_write, stderr, stderr_write) = match streams {
            Streams::Terminal(cols, rows) => {
                let (master, slave) = super::open_terminal(cols, rows)?;
                (
                    Some(dup(&master)?),
                    dup(&slave)?,
                    dup(&master)?,
                    dup(&slave)?,
                    master,
                    slave,
                )
            }
            Streams::Separate | Streams::Interactive => {
                let (stdout, stdout_write) = pipe_with(PipeFlags::CLOEXEC)?;
                let (stderr, stderr_write) = if streams == Streams::Separate {
                    pipe_with(PipeFlags::CLOEXEC)?
                } else {
                    (dup(&stdout)?, dup(&stdout_write)?)
                };
                let (stdin, stdin_read) = if stdin_piped {
                    let (read, write) = pipe_with(PipeFlags::CLOEXEC)?;
                    (Some(write), read)
                } else {
                    let null = rustix::fs::open(
                        "/dev/null",
                        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
                        rustix::fs::Mode::empty(),
                    )?;
                    (None, null)
                };
                (
                    stdin,
                    stdin_read,
                    stdout,
                    stdout_write,
                    stderr,
                    stderr_write,
                )
            }
        };
        let cwd = cwd
            .map(|p| CString::new(p.as_os_str().as_bytes()))
            .transpose()
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "nul byte in the path"))?;
        let stack = Stack::new(SUPERVISOR_STACK)?;
        let start = Box::new(SupervisorStart {
            command_stack_top: stack.command_top(),
            image,
            restrict,
            cwd,
            terminal: matches!(streams, Streams::Terminal(..)),
            stdio: [
                stdin_read.as_raw_fd(),
                stdout_write.as_raw_fd(),
                stderr_write.as_raw_fd(),
            ],
            control: control_read.as_raw_fd(),
            report: report_write.as_raw_fd(),
            started: started_write.as_raw_fd(),
        });
        // SAFETY: the mask is this thread's, restored below; `clone` gets a stack of its own and
        // a pointer to `start`, which outlives the supervisor (kept until it is reaped).
        let pid = unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            let pid = libc::clone(
                supervisor_main,
                stack.top(),
                libc::CLONE_VM | libc::SIGCHLD,
                std::ptr::addr_of!(*start) as *mut libc::c_void,
            );
            let error = io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            if pid < 0 {
                return Err(error);
            }
            pid
        };
        // The supervisor has its own copy of the descriptor table.
        drop((
            control_read,
            report_write,
            started_write,
            stdout_write,
            stderr_write,
            stdin_read,
        ));
        let mut process = SupervisorProcess {
            pid: Pid::from_raw(pid).ok_or_else(|| io::Error::from_raw_os_error(libc::ESRCH))?,
            memory: Some((start, stack)),
        };
        let mut word = [0u8; 8];
        let got = read_full(started_read.as_fd(), &mut word);
        let kind = i32::from_ne_bytes([word[0], word[1], word[2], word[3]]);
        let value = i32::from_ne_bytes([word[4], word[5], word[6], word[7]]);
        if got != word.len() || kind != 1 {
            // The command never ran; the supervisor has exited.
            process.wait();
            let errno = if got == word.len() {
                value
            } else {
                libc::ECHILD
            };
            return Err(io::Error::from_raw_os_error(errno));
        }
        Ok(Supervised {
            stdin,
            stdout,
            stderr,
            report,
            control,
            process,
            command_pid: value as u32,
        })
    }

    /// The supervisor (`clone` entry). Returns only if the command could not be started, after
    /// saying why through the `started` pipe.
    extern "C" fn supervisor_main(start: *mut libc::c_void) -> c_int {
        // SAFETY: `start` points to the host's `SupervisorStart`, kept until this process has
        // been reaped.
        unsafe {
            let start = &*(start as *const SupervisorStart);
            let error = supervise(start);
            let errno = error.raw_os_error().unwrap_or(libc::EINVAL);
            tell_started(start.started, 0, errno);
            libc::_exit(127)
        }
    }

    fn last_error() -> io::Error {
        io::Error::last_os_error()
    }

    /// The `started` pipe's word: `[kind, value]`.
    unsafe fn tell_started(fd: c_int, kind: i32, value: i32) {
        let mut word = [0u8; 8];
        word[..4].copy_from_slice(&kind.to_ne_bytes());
        word[4..].copy_from_slice(&value.to_ne_bytes());
        libc::write(fd, word.as_ptr().cast(), word.len());
    }

    /// The supervisor's setup: a session, the subreaper role, the standard streams and the
    /// directory, then the command; then it watches. Returns only on failure, before the
    /// command started.
    ///
    /// # Safety
    /// Only in the supervisor, at its start.
    unsafe fn supervise(start: &SupervisorStart) -> io::Error {
        if libc::setsid() < 0 {
            return last_error();
        }
        if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
            return last_error();
        }
        for (target, &fd) in start.stdio.iter().enumerate() {
            if libc::dup2(fd, target as c_int) < 0 {
                return last_error();
            }
        }
        if start.terminal && libc::ioctl(0, libc::TIOCSCTTY as _, 0) != 0 {
            return last_error();
        }
        if let Some(cwd) = &start.cwd {
            if libc::chdir(cwd.as_ptr()) != 0 {
                return last_error();
            }
        }
        // The command reports a failed setup or execve here; a successful execve closes it.
        let mut failure = [0 as c_int; 2];
        if libc::pipe2(failure.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return last_error();
        }
        // SIGCHLD (blocked, as every signal here) through a signalfd; without one, the loop
        // looks again every 50 ms.
        let mut chld: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut chld);
        libc::sigaddset(&mut chld, libc::SIGCHLD);
        let signals = libc::signalfd(-1, &chld, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
        // The command's process shares this one's memory until it executes (vfork-like, as
        // posix_spawn does). It runs on the bottom of this process's mapping, while this one
        // waits, suspended, until it has executed or exited; only the pages it touches count.
        let top = start.command_stack_top;
        let command_start = CommandStart {
            image: &start.image,
            restrict: &*start.restrict,
            failure: failure[1],
            terminal: start.terminal,
        };
        let pid = libc::clone(
            command_main,
            top as *mut libc::c_void,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::addr_of!(command_start) as *mut libc::c_void,
        );
        if pid < 0 {
            return last_error();
        }
        libc::close(failure[1]);
        let mut errno = [0u8; 4];
        let got = read_full(BorrowedFd::borrow_raw(failure[0]), &mut errno);
        libc::close(failure[0]);
        if got == errno.len() {
            libc::waitpid(pid, std::ptr::null_mut(), 0);
            return io::Error::from_raw_os_error(i32::from_ne_bytes(errno));
        }
        // The word on `started` tells the host the command runs; then the host's thread reads
        // `errno` again, so from here on only raw system calls.
        tell_started(start.started, 1, pid);
        close_all_except(&mut [start.control, start.report, signals]);
        let Some(command) = Pid::from_raw(pid) else {
            libc::_exit(1)
        };
        watch(
            command,
            BorrowedFd::borrow_raw(start.control),
            OwnedFd::from_raw_fd(start.report),
            (signals >= 0).then(|| BorrowedFd::borrow_raw(signals)),
        )
    }

    /// The stack of the command's process until it executes.
    const COMMAND_STACK: usize = 256 << 10;

    /// What the command's process needs, on the supervisor's stack.
    struct CommandStart<'a> {
        image: &'a ExecImage,
        restrict: &'a (dyn Fn() -> io::Result<()> + Send + Sync),
        failure: c_int,
        terminal: bool,
    }

    /// The command's process (`clone` entry): starts the command, or reports why it could not
    /// through the failure pipe and exits.
    extern "C" fn command_main(start: *mut libc::c_void) -> c_int {
        // SAFETY: `start` points to the `CommandStart` in the supervisor's frame, which waits
        // (CLONE_VFORK) until this process has executed or exited.
        unsafe {
            let start = &*(start as *const CommandStart);
            let error = start_command(start.image, start.restrict, start.terminal);
            let errno = error.raw_os_error().unwrap_or(libc::EINVAL);
            let bytes = errno.to_ne_bytes();
            libc::write(start.failure, bytes.as_ptr().cast(), bytes.len());
            libc::_exit(127)
        }
    }

    /// The command's process: its own group, an empty signal mask, the restriction, no inherited
    /// descriptor above 2, then `execve`. Returns the error that stopped it.
    ///
    /// # Safety
    /// Only between fork and exec.
    unsafe fn start_command(
        image: &ExecImage,
        restrict: &(dyn Fn() -> io::Result<()> + Send + Sync),
        terminal: bool,
    ) -> io::Error {
        // The host's signal handlers must not run here (this process shares the host's memory,
        // and a handler could act for the host): back to the defaults first.
        super::default_signal_dispositions();
        if libc::setpgid(0, 0) != 0 {
            return last_error();
        }
        // The terminal's foreground group: while every signal is still blocked (a background
        // group's `tcsetpgrp` would otherwise be stopped by SIGTTOU).
        if terminal && libc::tcsetpgrp(0, libc::getpid()) != 0 {
            return last_error();
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        if let Err(error) = restrict() {
            return error;
        }
        // Close-on-exec rather than closed: the failure pipe must stay usable if execve fails.
        if libc::syscall(
            libc::SYS_close_range,
            3 as c_int,
            c_int::MAX,
            libc::CLOSE_RANGE_CLOEXEC as c_int,
        ) != 0
        {
            for fd in 3..4096 {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
        let envp: *const *const c_char = match &image.envp {
            Some(envp) => envp.as_ptr(),
            None => std::ptr::null(),
        };
        if envp.is_null() {
            // The host's `environ` is shared memory another thread may be changing: the
            // supervised path always gets an environment of its own (`spawn`'s caller).
            return io::Error::from_raw_os_error(libc::EINVAL);
        }
        libc::execve(image.path.as_ptr(), image.argv.as_ptr(), envp);
        last_error()
    }

    /// Closes every descriptor but `keep` (negative entries ignored).
    unsafe fn close_all_except(keep: &mut [c_int]) {
        keep.sort_unstable();
        let mut next: c_int = 0;
        for &fd in keep.iter().filter(|&&fd| fd >= 0) {
            close_range(next, fd - 1);
            next = fd + 1;
        }
        close_range(next, c_int::MAX);
    }

    unsafe fn close_range(first: c_int, last: c_int) {
        if first > last {
            return;
        }
        if libc::syscall(libc::SYS_close_range, first, last, 0 as c_int) != 0 {
            for fd in first..=last.min(4095) {
                libc::close(fd);
            }
        }
    }

    /// Reads until `buf` is full or end of file; returns the bytes read (raw calls only).
    pub fn read_full(fd: BorrowedFd<'_>, buf: &mut [u8]) -> usize {
        let mut got = 0;
        while got < buf.len() {
            match rustix::io::read(fd, &mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => break,
            }
        }
        got
    }

    /// The supervisor's loop: reports the command's exit, reaps adopted orphans, and ends the tree
    /// when the host asks or goes away. Raw system calls only (rustix), no allocation.
    fn watch(
        command: Pid,
        control: BorrowedFd<'_>,
        report: OwnedFd,
        signals: Option<BorrowedFd<'_>>,
    ) -> ! {
        let mut report = Some(report);
        loop {
            if report.is_some() {
                // NOWAIT: the command stays a zombie, so its pid (= its group's id) cannot be
                // reused before the tree is ended.
                let done = rustix::process::waitid(
                    rustix::process::WaitId::Pid(command),
                    WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
                );
                if let Ok(Some(status)) = done {
                    if let Some(fd) = report.take() {
                        let _ = rustix::io::write(&fd, &report_bytes(&status));
                    }
                }
            }
            reap_orphans(command);
            let mut fds = [
                PollFd::from_borrowed_fd(control, PollFlags::IN),
                PollFd::new(&control, PollFlags::empty()),
            ];
            let count = match signals {
                Some(fd) => {
                    fds[1] = PollFd::from_borrowed_fd(fd, PollFlags::IN);
                    2
                }
                None => 1,
            };
            let timeout = rustix::event::Timespec {
                tv_sec: 0,
                tv_nsec: 50_000_000,
            };
            let timeout = signals.is_none().then_some(&timeout);
            if poll(&mut fds[..count], timeout).is_err() {
                continue;
            }
            let (control_ready, signals_ready) = (
                !fds[0].revents().is_empty(),
                count == 2 && !fds[1].revents().is_empty(),
            );
            if let (true, Some(fd)) = (signals_ready, signals) {
                let mut drain = [0u8; 1024];
                while matches!(rustix::io::read(fd, &mut drain), Ok(n) if n > 0) {}
            }
            if control_ready {
                let mut byte = [0u8; 1];
                match rustix::io::read(control, &mut byte) {
                    Ok(1) => terminate(command, signal_of(byte[0])),
                    Err(rustix::io::Errno::INTR) => {}
                    _ => end_tree(command, report.take()),
                }
            }
        }
    }

    /// The supervisor's children (the command and adopted orphans), zombies included, read from
    /// `/proc/thread-self/children` into `pids`; `None` when that file cannot be read.
    fn children(pids: &mut [i32; 512]) -> Option<usize> {
        let fd = rustix::fs::open(
            "/proc/thread-self/children",
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .ok()?;
        let mut text = [0u8; 4096];
        let len = read_full(fd.as_fd(), &mut text);
        drop(fd);
        let mut count = 0;
        let mut value: i32 = 0;
        let mut digits = false;
        for &byte in &text[..len] {
            if byte.is_ascii_digit() {
                value = value
                    .saturating_mul(10)
                    .saturating_add((byte - b'0') as i32);
                digits = true;
            } else {
                if digits && count < pids.len() {
                    pids[count] = value;
                    count += 1;
                }
                value = 0;
                digits = false;
            }
        }
        // A number cut by the end of a full buffer is left for the next round.
        if digits && len < text.len() && count < pids.len() {
            pids[count] = value;
            count += 1;
        }
        Some(count)
    }

    /// Reaps adopted orphans that have exited (never the command: see `watch`).
    fn reap_orphans(command: Pid) {
        let mut pids = [0; 512];
        let Some(count) = children(&mut pids) else {
            return;
        };
        for pid in pids[..count].iter().filter_map(|&p| Pid::from_raw(p)) {
            if pid != command {
                let _ = rustix::process::waitpid(Some(pid), WaitOptions::NOHANG);
            }
        }
    }

    /// The signal a control byte asks for: `T` (the host's timeout) is `SIGTERM`, a byte below
    /// 65 that signal's number.
    fn signal_of(byte: u8) -> Signal {
        match byte {
            b'T' => Signal::TERM,
            // SAFETY: a number the host sent as a signal; an invalid one makes `kill` fail.
            n => unsafe { Signal::from_raw_unchecked(i32::from(n)) },
        }
    }

    /// `signal` to the command's group and to every adopted orphan.
    fn terminate(command: Pid, signal: Signal) {
        let _ = rustix::process::kill_process_group(command, signal);
        let mut pids = [0; 512];
        if let Some(count) = children(&mut pids) {
            for pid in pids[..count].iter().filter_map(|&p| Pid::from_raw(p)) {
                if pid != command {
                    let _ = rustix::process::kill_process(pid, signal);
                }
            }
        }
    }

    /// Waits for `pid` (blocking), retrying on `EINTR`.
    fn reap(pid: Option<Pid>) -> bool {
        loop {
            match rustix::process::waitpid(pid, WaitOptions::empty()) {
                Err(rustix::io::Errno::INTR) => continue,
                Ok(Some(_)) => return true,
                _ => return false,
            }
        }
    }

    /// Reaps the command (blocking) and, if its exit was not reported yet, reports it.
    fn reap_command(command: Pid, report: Option<OwnedFd>) {
        loop {
            match rustix::process::waitid(
                rustix::process::WaitId::Pid(command),
                WaitIdOptions::EXITED,
            ) {
                Err(rustix::io::Errno::INTR) => continue,
                Ok(Some(status)) => {
                    if let Some(fd) = report {
                        let _ = rustix::io::write(&fd, &report_bytes(&status));
                    }
                    return;
                }
                _ => return,
            }
        }
    }

    /// The 8-byte report of an exit: `CLD_EXITED` and the code, or `CLD_KILLED` and the signal.
    fn report_bytes(status: &rustix::process::WaitIdStatus) -> [u8; 8] {
        let (code, value) = match status.exit_status() {
            Some(code) => (libc::CLD_EXITED, code),
            None => (
                libc::CLD_KILLED,
                status.terminating_signal().unwrap_or(libc::SIGKILL),
            ),
        };
        let mut bytes = [0u8; 8];
        bytes[..4].copy_from_slice(&code.to_ne_bytes());
        bytes[4..].copy_from_slice(&value.to_ne_bytes());
        bytes
    }

    /// `SIGKILL` to the whole tree, round after round (a killed process's children are adopted),
    /// until the supervisor has no child left; then exits. The command's exit is reported if it
    /// was not yet (`report`).
    fn end_tree(command: Pid, mut report: Option<OwnedFd>) -> ! {
        let mut command_reaped = false;
        loop {
            if !command_reaped {
                let _ = rustix::process::kill_process_group(command, Signal::KILL);
            }
            let mut pids = [0; 512];
            let Some(count) = children(&mut pids) else {
                // No /proc: the command's group is all that can be found.
                if !command_reaped {
                    reap_command(command, report.take());
                }
                while matches!(
                    rustix::process::waitpid(None, WaitOptions::NOHANG),
                    Ok(Some(_))
                ) {}
                // SAFETY: ends this process; `_exit` sets no `errno`.
                unsafe { libc::_exit(0) }
            };
            if count == 0 {
                // SAFETY: ends this process; `_exit` sets no `errno`.
                unsafe { libc::_exit(0) }
            }
            let children = pids[..count].iter().filter_map(|&p| Pid::from_raw(p));
            for pid in children.clone() {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
            }
            for pid in children {
                if pid == command {
                    reap_command(command, report.take());
                    command_reaped = true;
                } else {
                    reap(Some(pid));
                }
            }
        }
    }
}

/// The command's exit from the supervisor's 8-byte report.
pub fn exit_of(report: &[u8; 8]) -> Exit {
    let code = i32::from_ne_bytes(report[..4].try_into().unwrap_or_default());
    let status = i32::from_ne_bytes(report[4..].try_into().unwrap_or_default());
    if code == libc::CLD_EXITED {
        Exit::Code(status)
    } else {
        Exit::Signal(status)
    }
}
