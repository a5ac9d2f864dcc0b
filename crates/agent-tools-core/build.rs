//! Two names for the platform choices of the core's code (`#[cfg(linux_native)]`,
//! `#[cfg(portable)]`), so that the `portable-unix` feature can switch them on Linux.
fn main() {
    cfg_aliases::cfg_aliases! {
        // Linux's own implementations: openat2, O_TMPFILE + linkat, pidfds, the supervisor
        // process, /proc/self/fd, inotify, SCHED_IDLE.
        linux_native: { all(target_os = "linux", not(feature = "portable-unix")) },
        // The implementations macOS builds use: plain opens checked afterwards, named temporary
        // files, a waiter thread, F_GETPATH (a /proc stand-in on Linux), no watcher. On Linux
        // with the `portable-unix` feature, to run them where tests can.
        portable: { any(not(target_os = "linux"), feature = "portable-unix") },
    }
}
