//! Linux: how a sandboxed command is started and ended (exec_command's OS sandbox, the git runs
//! of git_status_summary). The host forks a small supervisor process; the supervisor forks the
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
//!   report pipe, and the host's end of the control pipe asks it to terminate (`T`: `SIGTERM` to
//!   the command's group and the adopted orphans) or, closed, to kill the whole tree with
//!   `SIGKILL`, reap it and exit. The host closes the control pipe when the call ends, however
//!   it ends; if the host dies, the kernel closes it.
//!
//! Between `fork` and `exec` only async-signal-safe system calls run (the host is
//! multi-threaded): everything that allocates (the argument and environment vectors, the
//! restriction) is built before the fork. The command's process is cloned from the supervisor
//! sharing its memory until it executes (as posix_spawn does), and the supervisor unmaps the
//! host's heaps from its own copy right after: the cost is one copy of the host's page tables
//! per call (figures in the README, "The OS sandbox for commands").

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

#[cfg(linux_native)]
pub use linux::{spawn, Supervised};

#[cfg(linux_native)]
mod linux {
    use std::ffi::{c_char, c_int};
    use std::io;
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command};
    use std::sync::Arc;

    use super::ExecImage;

    /// A started supervisor: `child` is the supervisor process (its stdout and stderr are the
    /// command's, the supervisor itself holds none of them).
    pub struct Supervised {
        pub child: Child,
        /// Readable once the command has exited: 8 bytes (`si_code`, `si_status`), or end of file
        /// if the supervisor died.
        pub report: OwnedFd,
        /// The host's end of the control pipe (see the module notes).
        pub control: OwnedFd,
    }

    /// Starts `image` under `restrict` (applied in the command's process right before `execve`),
    /// supervised. `command` provides the standard streams and the working directory.
    pub fn spawn(
        command: &mut Command,
        image: Arc<ExecImage>,
        restrict: Arc<dyn Fn() -> io::Result<()> + Send + Sync>,
    ) -> io::Result<Supervised> {
        let (control_read, control) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
        let (report, report_write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
        let fds = (control_read.as_raw_fd(), report_write.as_raw_fd());
        // SAFETY: the closure runs in the forked child and only makes system calls on memory built
        // before the fork (see `supervise`).
        unsafe {
            command.pre_exec(move || supervise(fds.0, fds.1, &image, &*restrict));
        }
        let child = command.spawn()?;
        drop((control_read, report_write));
        Ok(Supervised {
            child,
            report,
            control,
        })
    }

    fn last_error() -> io::Error {
        io::Error::last_os_error()
    }

    /// Runs in the forked supervisor. Returns only on failure, before the command started (std then
    /// reports the error as a failed spawn); the command's own process returns only when its setup
    /// or `execve` failed.
    ///
    /// # Safety
    /// Only between fork and exec, in a child of the host.
    unsafe fn supervise(
        control: c_int,
        report: c_int,
        image: &ExecImage,
        restrict: &(dyn Fn() -> io::Result<()> + Send + Sync),
    ) -> io::Result<()> {
        if libc::setsid() < 0 {
            return Err(last_error());
        }
        if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
            return Err(last_error());
        }
        // The command reports a failed setup or execve here; a successful execve closes it.
        let mut failure = [0 as c_int; 2];
        if libc::pipe2(failure.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(last_error());
        }
        // The supervisor takes SIGCHLD through a signalfd and ignores every other signal that can
        // be blocked (the command's group gets SIGTERM on a timeout; so could the supervisor).
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::sigprocmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
        // The command's process shares this one's memory until it executes (vfork-like, as
        // posix_spawn does): no second copy of the host's page tables. It runs on a stack
        // carved from this frame, which waits, suspended, until the command's process has
        // executed or exited.
        // Not zeroed: filling it would touch (and so copy) every page of it on each spawn.
        let mut stack = std::mem::MaybeUninit::<[u8; COMMAND_STACK]>::uninit();
        let top = (stack.as_mut_ptr() as usize + COMMAND_STACK) & !15;
        let start = CommandStart {
            image,
            restrict,
            failure: failure[1],
        };
        let pid = libc::clone(
            command_main,
            top as *mut libc::c_void,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::addr_of!(start) as *mut libc::c_void,
        );
        if pid < 0 {
            return Err(last_error());
        }
        libc::close(failure[1]);
        let mut errno = [0u8; 4];
        let got = read_full(failure[0], &mut errno);
        libc::close(failure[0]);
        if got == errno.len() {
            // The command never ran: std reports the error as a failed spawn.
            libc::waitpid(pid, std::ptr::null_mut(), 0);
            return Err(io::Error::from_raw_os_error(i32::from_ne_bytes(errno)));
        }
        close_all_except(&mut [control, report]);
        release_memory();
        watch(pid, control, report)
    }

    /// The stack of the command's process until it executes.
    const COMMAND_STACK: usize = 256 << 10;

    /// What the command's process needs, on the supervisor's stack.
    struct CommandStart<'a> {
        image: &'a ExecImage,
        restrict: &'a (dyn Fn() -> io::Result<()> + Send + Sync),
        failure: c_int,
    }

    /// The command's process (`clone` entry): starts the command, or reports why it could not
    /// through the failure pipe and exits.
    extern "C" fn command_main(start: *mut libc::c_void) -> c_int {
        // SAFETY: `start` points to the `CommandStart` in the supervisor's frame, which waits
        // (CLONE_VFORK) until this process has executed or exited.
        unsafe {
            let start = &*(start as *const CommandStart);
            let error = start_command(start.image, start.restrict);
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
    ) -> io::Error {
        // The host's signal handlers must not run here (this process shares the supervisor's
        // memory, and a handler could act for the host): back to the defaults first.
        for signal in 1..libc::SIGRTMAX() {
            let mut action: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut action) == 0
                && action.sa_sigaction != libc::SIG_DFL
                && action.sa_sigaction != libc::SIG_IGN
            {
                action.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        if libc::setpgid(0, 0) != 0 {
            return last_error();
        }
        if let Err(error) = restrict() {
            return error;
        }
        // Close-on-exec rather than closed: std's error pipe must stay usable if execve fails.
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
        extern "C" {
            static environ: *const *const c_char;
        }
        let envp = match &image.envp {
            Some(envp) => envp.as_ptr(),
            None => environ,
        };
        libc::execve(image.path.as_ptr(), image.argv.as_ptr(), envp);
        last_error()
    }

    /// Unmaps the host's anonymous writable memory (its heaps) from the supervisor's copy of the
    /// address space. The supervisor lives as long as the call and needs none of it, but while
    /// it shares those pages every page the host writes meanwhile is copied (measured: the
    /// sandboxed `true` cost about 8 ms more per call). Kept: the mapping holding this stack
    /// (with the thread's TLS), and anonymous mappings that directly follow a file mapping (the
    /// `.bss` of the loaded libraries, libc's among them). Best effort: a line that cannot be
    /// read leaves its mapping.
    unsafe fn release_memory() {
        let marker = 0u8;
        let stack = std::ptr::addr_of!(marker) as usize;
        let fd = libc::open(
            c"/proc/self/maps".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return;
        }
        let mut buf = [0u8; 16 << 10];
        let (mut held, mut previous_end, mut previous_file) = (0usize, 0usize, false);
        loop {
            let n = libc::read(fd, buf[held..].as_mut_ptr().cast(), buf.len() - held);
            if n <= 0 {
                break;
            }
            let len = held + n as usize;
            let mut start = 0;
            while let Some(end) = buf[start..len].iter().position(|&b| b == b'\n') {
                let line = &buf[start..start + end];
                if let Some(m) = Mapping::parse(line) {
                    let follows_file = previous_file && m.start == previous_end;
                    if m.anonymous_writable() && !follows_file && !(m.start..m.end).contains(&stack)
                    {
                        libc::munmap(m.start as *mut libc::c_void, m.end - m.start);
                    }
                    previous_end = m.end;
                    previous_file = m.file_backed;
                }
                start += end + 1;
            }
            buf.copy_within(start..len, 0);
            held = len - start;
            if held == buf.len() {
                break; // a line longer than the buffer: stop here
            }
        }
        libc::close(fd);
    }

    /// One line of `/proc/self/maps`: `start-end perms offset dev inode [path]`.
    struct Mapping {
        start: usize,
        end: usize,
        writable_private: bool,
        file_backed: bool,
        special: bool,
    }

    impl Mapping {
        fn parse(line: &[u8]) -> Option<Mapping> {
            let mut fields = line.split(|&b| b == b' ').filter(|f| !f.is_empty());
            let range = fields.next()?;
            let dash = range.iter().position(|&b| b == b'-')?;
            let start = hex(&range[..dash])?;
            let end = hex(&range[dash + 1..])?;
            let perms = fields.next()?;
            let _offset = fields.next()?;
            let _device = fields.next()?;
            let inode = fields.next()?;
            let path = fields.next().unwrap_or_default();
            Some(Mapping {
                start,
                end,
                writable_private: perms.len() >= 4 && perms[1] == b'w' && perms[3] == b'p',
                file_backed: inode != b"0",
                special: path.starts_with(b"[") && path != b"[heap]" && !path.starts_with(b"[anon"),
            })
        }

        fn anonymous_writable(&self) -> bool {
            self.writable_private && !self.file_backed && !self.special
        }
    }

    fn hex(digits: &[u8]) -> Option<usize> {
        let mut value = 0usize;
        for &d in digits {
            value = value.checked_mul(16)? + (d as char).to_digit(16)? as usize;
        }
        Some(value)
    }

    /// Closes every descriptor but `keep`.
    unsafe fn close_all_except(keep: &mut [c_int]) {
        keep.sort_unstable();
        let mut next: c_int = 0;
        for &fd in keep.iter() {
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

    /// Reads until `buf` is full or end of file; returns the bytes read.
    unsafe fn read_full(fd: c_int, buf: &mut [u8]) -> usize {
        let mut got = 0;
        while got < buf.len() {
            let n = libc::read(fd, buf[got..].as_mut_ptr().cast(), buf.len() - got);
            if n > 0 {
                got += n as usize;
            } else if n == 0 || *libc::__errno_location() != libc::EINTR {
                break;
            }
        }
        got
    }

    /// The supervisor's loop: reports the command's exit, reaps adopted orphans, and ends the tree
    /// when the host asks or goes away.
    unsafe fn watch(command: libc::pid_t, control: c_int, report: c_int) -> ! {
        let mut chld: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut chld);
        libc::sigaddset(&mut chld, libc::SIGCHLD);
        let signals = libc::signalfd(-1, &chld, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
        let mut reported = false;
        loop {
            if !reported {
                // WNOWAIT: the command stays a zombie, so its pid (= its group's id) cannot be
                // reused before the tree is ended.
                let mut info: libc::siginfo_t = std::mem::zeroed();
                let done = libc::waitid(
                    libc::P_PID,
                    command as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                );
                if done == 0 && info.si_pid() == command {
                    let status = [info.si_code, info.si_status()];
                    let mut bytes = [0u8; 8];
                    bytes[..4].copy_from_slice(&status[0].to_ne_bytes());
                    bytes[4..].copy_from_slice(&status[1].to_ne_bytes());
                    libc::write(report, bytes.as_ptr().cast(), bytes.len());
                    libc::close(report);
                    reported = true;
                }
            }
            reap_orphans(command);
            let mut fds = [
                libc::pollfd {
                    fd: control,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: signals,
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // Without a signalfd, look again every 50 ms.
            let timeout = if signals < 0 { 50 } else { -1 };
            if libc::poll(fds.as_mut_ptr(), 2, timeout) < 0 {
                continue; // EINTR
            }
            if fds[1].revents != 0 {
                let mut drain = [0u8; 1024];
                while libc::read(signals, drain.as_mut_ptr().cast(), drain.len()) > 0 {}
            }
            if fds[0].revents != 0 {
                let mut byte = [0u8; 1];
                match libc::read(control, byte.as_mut_ptr().cast(), 1) {
                    1 => terminate(command),
                    n if n < 0 && *libc::__errno_location() == libc::EINTR => {}
                    _ => end_tree(command),
                }
            }
        }
    }

    /// The supervisor's children (the command and adopted orphans), zombies included, read from
    /// `/proc/thread-self/children` into `pids`; `None` when that file cannot be read.
    unsafe fn children(pids: &mut [libc::pid_t; 512]) -> Option<usize> {
        let fd = libc::open(
            c"/proc/thread-self/children".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return None;
        }
        let mut text = [0u8; 4096];
        let len = read_full(fd, &mut text);
        libc::close(fd);
        let mut count = 0;
        let mut value: libc::pid_t = 0;
        let mut digits = false;
        for &byte in &text[..len] {
            if byte.is_ascii_digit() {
                value = value
                    .saturating_mul(10)
                    .saturating_add((byte - b'0') as libc::pid_t);
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
    unsafe fn reap_orphans(command: libc::pid_t) {
        let mut pids = [0; 512];
        let Some(count) = children(&mut pids) else {
            return;
        };
        for &pid in &pids[..count] {
            if pid != command {
                libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
            }
        }
    }

    /// `SIGTERM` to the command's group and to every adopted orphan.
    unsafe fn terminate(command: libc::pid_t) {
        libc::kill(-command, libc::SIGTERM);
        let mut pids = [0; 512];
        if let Some(count) = children(&mut pids) {
            for &pid in &pids[..count] {
                if pid != command {
                    libc::kill(pid, libc::SIGTERM);
                }
            }
        }
    }

    /// `SIGKILL` to the whole tree, round after round (a killed process's children are adopted),
    /// until the supervisor has no child left; then exits.
    unsafe fn end_tree(command: libc::pid_t) -> ! {
        let mut command_reaped = false;
        loop {
            if !command_reaped {
                libc::kill(-command, libc::SIGKILL);
            }
            let mut pids = [0; 512];
            let Some(count) = children(&mut pids) else {
                // No /proc: the command's group is all that can be found.
                if !command_reaped {
                    libc::waitpid(command, std::ptr::null_mut(), 0);
                }
                while libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) > 0 {}
                libc::_exit(0);
            };
            if count == 0 {
                libc::_exit(0);
            }
            for &pid in &pids[..count] {
                libc::kill(pid, libc::SIGKILL);
            }
            for &pid in &pids[..count] {
                while libc::waitpid(pid, std::ptr::null_mut(), 0) < 0
                    && *libc::__errno_location() == libc::EINTR
                {}
                command_reaped |= pid == command;
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
