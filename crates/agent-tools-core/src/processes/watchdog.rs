//! The host's watchdog where there is no supervisor (macOS, and the portable build on Linux):
//! one forked process per host that outlives it and ends the process groups of its processes
//! when it dies, even by `SIGKILL`.
//!
//! The host holds the write end of a pipe (close-on-exec, so no command inherits it); the
//! watchdog reads it. Each message is five bytes: `+` or `-` and a process group id (i32, native
//! order), written whole (under `PIPE_BUF`, so atomically). When the host dies the pipe reaches
//! end of file and the watchdog sends `SIGKILL` to every group still registered, then exits.
//!
//! The host is multithreaded, so the forked child runs only async-signal-safe calls (`read`,
//! `kill`, `close`, `sigaction`, `_exit`…) and allocates nothing: its table of groups is
//! allocated before the fork.
//!
//! Limits: a group registered in the instant between its start and the host's death is missed,
//! and a command that leaves its group (`setsid`) is not followed; the Linux supervisor has
//! neither gap.

use std::collections::BTreeSet;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::{Mutex, OnceLock};

/// Groups the watchdog can hold at once (its table: 256 KiB of address space, touched only as
/// far as it is used).
const CAPACITY: usize = 1 << 16;

const ADD: u8 = b'+';
const REMOVE: u8 = b'-';

struct Watchdog {
    pipe: OwnedFd,
    pid: libc::pid_t,
}

struct State {
    watchdog: Option<Watchdog>,
    /// What the watchdog holds, to hand a new one when the old has died.
    groups: BTreeSet<i32>,
}

fn state() -> &'static Mutex<State> {
    static STATE: OnceLock<Mutex<State>> = OnceLock::new();
    STATE.get_or_init(|| {
        Mutex::new(State {
            watchdog: None,
            groups: BTreeSet::new(),
        })
    })
}

/// The watchdog ends `group` if the host dies before [`forget`] is called for it.
pub fn register(group: i32) {
    let mut state = super::lock(state());
    state.groups.insert(group);
    send(&mut state, ADD, group);
}

/// The group is ended (or about to be reaped): the watchdog no longer needs to end it.
pub fn forget(group: i32) {
    let mut state = super::lock(state());
    if state.groups.remove(&group) {
        send(&mut state, REMOVE, group);
    }
}

/// Writes one message, starting a watchdog first when there is none or it has died (a new one
/// is handed every registered group). Without a watchdog (the fork failed) the groups still end
/// with the table, only not with a host that dies.
fn send(state: &mut State, kind: u8, group: i32) {
    if let Some(watchdog) = &state.watchdog {
        if write_message(&watchdog.pipe, kind, group) {
            return;
        }
        let dead = state.watchdog.take().expect("a watchdog");
        drop(dead.pipe);
        // SAFETY: waitpid on our own child; it has died or is about to (its pipe is closed).
        unsafe { libc::waitpid(dead.pid, std::ptr::null_mut(), 0) };
    }
    let Ok(watchdog) = start() else {
        return;
    };
    // A write fails only when this one has died too: the next message finds it out.
    for &g in &state.groups {
        write_message(&watchdog.pipe, ADD, g);
    }
    state.watchdog = Some(watchdog);
}

fn write_message(pipe: &OwnedFd, kind: u8, group: i32) -> bool {
    let mut message = [0u8; 5];
    message[0] = kind;
    message[1..].copy_from_slice(&group.to_ne_bytes());
    loop {
        match rustix::io::write(pipe, &message) {
            Ok(5) => return true,
            Err(rustix::io::Errno::INTR) => continue,
            // A pipe write under PIPE_BUF is never partial.
            _ => return false,
        }
    }
}

fn start() -> std::io::Result<Watchdog> {
    // std's pipe: close-on-exec on both ends everywhere (macOS has no pipe2).
    let (read, write) = std::io::pipe()?;
    let read = OwnedFd::from(read);
    let write = OwnedFd::from(write);
    let mut table = vec![0i32; CAPACITY].into_boxed_slice();
    let mut max_fd: libc::rlimit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: a valid out pointer.
    let open_max = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut max_fd) } == 0 {
        max_fd.rlim_cur.min(1 << 16) as i32
    } else {
        1024
    };
    // SAFETY: the child runs only `watch`, which makes async-signal-safe calls and allocates
    // nothing; the parent continues normally.
    match unsafe { libc::fork() } {
        -1 => Err(std::io::Error::last_os_error()),
        // SAFETY: this is the child of the fork.
        0 => unsafe { watch(read.as_raw_fd(), &mut table, open_max) },
        pid => {
            drop(read);
            Ok(Watchdog { pipe: write, pid })
        }
    }
}

/// The watchdog: a session of its own (out of reach of the host terminal's signals), default
/// signal handlers (the host's are not ours to run), every descriptor but the pipe closed; then
/// the messages until end of file, and `SIGKILL` to every group left.
///
/// # Safety
/// Only in the child of `fork`.
unsafe fn watch(pipe: i32, table: &mut [i32], open_max: i32) -> ! {
    // SAFETY: the caller's.
    unsafe {
        libc::setsid();
        for signal in 1..32 {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        for fd in 0..open_max {
            if fd != pipe {
                libc::close(fd);
            }
        }
        let mut held = 0usize;
        let mut buf = [0u8; 640];
        let mut filled = 0usize;
        loop {
            let n = libc::read(
                pipe,
                buf.as_mut_ptr().add(filled).cast(),
                buf.len() - filled,
            );
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            if n <= 0 {
                break;
            }
            filled += n as usize;
            let whole = filled - filled % 5;
            for message in buf[..whole].chunks_exact(5) {
                let group = i32::from_ne_bytes([message[1], message[2], message[3], message[4]]);
                if message[0] == ADD {
                    if held < table.len() {
                        table[held] = group;
                        held += 1;
                    }
                } else if let Some(at) = table[..held].iter().position(|&g| g == group) {
                    held -= 1;
                    table[at] = table[held];
                }
            }
            buf.copy_within(whole..filled, 0);
            filled -= whole;
        }
        for &group in &table[..held] {
            libc::kill(-group, libc::SIGKILL);
        }
        libc::_exit(0)
    }
}
